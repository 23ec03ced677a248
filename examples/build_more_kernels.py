"""Compile examples/more_kernels.py (join/split, trans+reshape, histogram, gather, atomics, fp8 dot,
TMA descriptors, cumsum+sort, argmax, batched dot, interleave+flip, tuple scan, swizzle2d softmax,
dot_scaled, a warp-specialized TMA matmul, cat and reshape with can_reorder) for cuda:90, cuda:100 and gfx942 into tests/data/ttgir/more_kernels/.

These exercise ops the main corpus has few of; `tl.sort` found a reader bug (arith.select's result
type is the last of its two printed types).  Run: ``python examples/build_more_kernels.py``.
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "tests" / "data" / "ttgir" / "more_kernels"
import sys, json, subprocess
JOBS = [
 ("join_split", {"X": "*fp32", "Y": "*fp32"}, {"N": 128}),
 ("trans_reshape", {"X": "*fp16", "Y": "*fp16"}, {"M": 64, "N": 32}),
 ("histo", {"X": "*i32", "Y": "*i32"}, {"N": 256, "B": 64}),
 ("gather_k", {"X": "*fp32", "I": "*i32", "Y": "*fp32"}, {"M": 32, "N": 64}),
 ("atomics", {"X": "*fp32", "Y": "*fp32"}, {"N": 256}),
 ("fp8_dot", {"A": "*fp8e4nv", "B": "*fp8e4nv", "C": "*fp32"}, {"M": 64, "N": 64, "K": 64}),
 ("tma_matmul", {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64}),
 ("cumsum_2d", {"X": "*fp32", "Y": "*fp32"}, {"M": 64, "N": 32}),
 ("argmax_k", {"X": "*fp32", "Y": "*fp32", "I": "*i32"}, {"M": 32, "N": 128}),
 ("bmm", {"A": "*fp16", "B": "*fp16", "C": "*fp32"}, {"S": 2, "M": 32, "N": 32, "K": 32}),
 ("interleave_flip", {"X": "*fp32", "Y": "*fp32"}, {"N": 128}),
 ("tuple_scan", {"X": "*fp32", "Y": "*fp32", "Z": "*fp32"}, {"N": 256}),
 ("swizzle_pid", {"X": "*fp32", "Y": "*fp32"}, {"M": 16, "N": 128}),
 ("ws_matmul", {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64}),
 ("cat_reorder", {"X": "*fp32", "Y": "*fp32"}, {"N": 256}),
 ("dot_scaled_k", {"A": "*fp8e4nv", "AS": "*u8", "B": "*fp8e4nv", "BS": "*u8", "C": "*fp32"}, {"M": 128, "N": 128, "K": 128}),
]
CHILD = r'''
import sys, json, warnings; warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[2])
import more_kernels as kernels, triton
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
name, sig, cx, tgt = json.loads(sys.argv[1])
b, a = tgt.split(":")
sig = dict(sig); sig.update({k: "constexpr" for k in cx})
src = ASTSource(fn=getattr(kernels, name), signature=sig, constexprs=cx)
k = triton.compile(src, target=GPUTarget(b, int(a) if b == "cuda" else a, 32 if b == "cuda" else 64), options={"num_warps": 4})
open(f"{sys.argv[3]}/{name}-{tgt.replace(':','_')}.ttgir", "w").write(k.asm["ttgir"])
'''
ONLY = sys.argv[1] if len(sys.argv) > 1 else None  # rebuild only the kernels whose name contains this
for name, sig, cx in JOBS:
    if ONLY and ONLY not in name:
        continue
    for tgt in ("cuda:90", "cuda:100", "hip:gfx942"):
        p = subprocess.run([sys.executable, "-c", CHILD, json.dumps([name, sig, cx, tgt]), str(HERE), str(OUT)], capture_output=True, text=True, timeout=180)
        print(name, tgt, "ok" if p.returncode == 0 else "FAIL " + (p.stderr.strip().splitlines() or [""])[-1][:150])
