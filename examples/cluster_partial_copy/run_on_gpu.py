"""Run one cubin of compile.py on a GPU (CuPy) as one cluster of 2 CTAs; prints one JSON line per input.

- a round trip (``own_half``, ``read_whole``): the kernel copies a 64x32 f16 tile x to y through shared memory,
  three times with different x; the mismatching elements and the first bad rows;
- a matmul (``mm_real``, ``mm_b_whole``): one 128x128 tile of a @ b (f16, K = 128), twice with random inputs; the
  elements off the f32 reference (tolerance 0.05 (1 + |ref|)) and their column range.

    python3 examples/cluster_partial_copy/run_on_gpu.py OUT/own_half     # reads own_half.cubin and own_half.json
"""

from __future__ import annotations

import json
import sys

import cupy as cp
import numpy as np


def round_trip(fn, meta: dict) -> list[dict]:
    null, res = cp.uint64(0), []
    for trial in range(3):
        x = cp.asarray((np.arange(64 * 32) * (trial + 1) + 7 * trial) % 2039, dtype=cp.float16)
        y = cp.zeros_like(x)
        fn((2, 1, 1), (32 * meta["num_warps"], 1, 1), (x, y, null, null), shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
        bad = cp.flatnonzero(y != x).get()
        res.append({"mismatches": int(bad.size), "first_bad_rows": sorted({int(i) // 32 for i in bad[:200]})[:8]})
    return res


def matmul(fn, meta: dict) -> list[dict]:
    null, res, rng = cp.uint64(0), [], np.random.default_rng(0)
    m = n = k = 128
    for _ in range(2):
        a = cp.asarray(rng.standard_normal((m, k)).astype(np.float16))
        b = cp.asarray(rng.standard_normal((k, n)).astype(np.float16))
        c = cp.zeros((m, n), dtype=cp.float16)
        fn((2, 1, 1), (32 * meta["num_warps"], 1, 1), (a, b, c, cp.int32(m), cp.int32(n), cp.int32(k), null, null),
           shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
        ref = a.astype(cp.float32) @ b.astype(cp.float32)
        err = cp.abs(c.astype(cp.float32) - ref)
        bad = (err > 0.05 * (1 + cp.abs(ref))).get()
        cols = np.flatnonzero(bad.any(axis=0))
        res.append({"bad_elements": int(bad.sum()), "bad_columns": [int(cols.min()), int(cols.max())] if cols.size
                    else [], "max_err": float(err.max())})
    return res


def main() -> None:
    stem = sys.argv[1]
    meta = json.load(open(stem + ".json"))
    out: dict = {"cubin": stem}
    try:
        fn = cp.RawModule(path=stem + ".cubin").get_function(meta["name"])
        out.update(ok=True, trials=(matmul if stem.rsplit("/", 1)[-1].startswith("mm_") else round_trip)(fn, meta))
    except Exception as exc:  # noqa: BLE001 - the run's outcome is the report
        out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
