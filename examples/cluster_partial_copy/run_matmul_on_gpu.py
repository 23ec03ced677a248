"""Run one cubin of compile.py's matmuls on a GPU (CuPy): one 2-CTA cluster computes a 128x128 tile of a @ b (f16,
K = 128), twice with random inputs; prints one JSON line with the elements off a @ b (f32 reference) and their
column range.

    python3 examples/cluster_partial_copy/run_matmul_on_gpu.py OUT/mm_real     # reads mm_real.cubin / .json
"""
import json, sys, numpy as np, cupy as cp
stem = sys.argv[1]
meta = json.load(open(stem + ".json"))
out = {"cubin": stem}
try:
    fn = cp.RawModule(path=stem + ".cubin").get_function(meta["name"])
    null = cp.uint64(0)
    rng = np.random.default_rng(0)
    M = N = 128; K = 128
    res = []
    for trial in range(2):
        a = cp.asarray(rng.standard_normal((M, K)).astype(np.float16))
        b = cp.asarray(rng.standard_normal((K, N)).astype(np.float16))
        c = cp.zeros((M, N), dtype=cp.float16)
        fn((2, 1, 1), (32 * meta["num_warps"], 1, 1), (a, b, c, cp.int32(M), cp.int32(N), cp.int32(K), null, null), shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
        ref = (a.astype(cp.float32) @ b.astype(cp.float32))
        err = cp.abs(c.astype(cp.float32) - ref)
        bad = (err > 0.05 * (1 + cp.abs(ref))).get()
        cols = np.flatnonzero(bad.any(axis=0))
        res.append({"bad_elements": int(bad.sum()), "bad_columns": [int(cols.min()), int(cols.max())] if cols.size else [], "max_err": float(err.max())})
    out.update(ok=True, trials=res)
except Exception as exc:
    out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
print(json.dumps(out))
