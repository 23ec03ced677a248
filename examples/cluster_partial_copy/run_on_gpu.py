"""Run one cubin of compile.py on a GPU (CuPy): a cluster of 2 CTAs copies a 64x32 f16 tile x to y through shared
memory, three times with different x; prints one JSON line with the mismatching elements and the first bad rows.

    python3 examples/cluster_partial_copy/run_on_gpu.py OUT/own_half     # reads own_half.cubin and own_half.json
"""
import json, sys, numpy as np, cupy as cp
stem = sys.argv[1]
meta = json.load(open(stem + ".json"))
out = {"cubin": stem}
try:
    fn = cp.RawModule(path=stem + ".cubin").get_function(meta["name"])
    null = cp.uint64(0)
    res = []
    for trial in range(3):
        x = cp.asarray((np.arange(64 * 32) * (trial + 1) + 7 * trial) % 2039, dtype=cp.float16)
        y = cp.zeros_like(x)
        fn((2, 1, 1), (128, 1, 1), (x, y, null, null), shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
        bad = cp.flatnonzero(y != x).get()
        res.append({"mismatches": int(bad.size), "first_bad_rows": sorted(set(int(i) // 32 for i in bad[:200]))[:8]})
    out.update(ok=True, trials=res)
except Exception as exc:
    out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
print(json.dumps(out))
