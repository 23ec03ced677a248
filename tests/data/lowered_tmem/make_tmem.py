"""The TMEM allocation prologue sample: a 128x128x64 tl.dot for cuda:100 (tcgen05), compiled with
USE_IR_LOC=ttgir (-irloc) and by default (-default):

    USE_IR_LOC=ttgir TRITON_CACHE_DIR=c1 python3 make_tmem.py; TRITON_CACHE_DIR=c2 python3 make_tmem.py

then mm.{ttgir,llir,json} of each cache copied here."""
import sys, os
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

@triton.jit
def mm(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    acc = tl.dot(x, y)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)

sig = {"a": "*fp16", "b": "*fp16", "c": "*fp32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
if __name__ == "__main__":
    triton.compile(ASTSource(fn=mm, signature=sig, constexprs={"BM": 128, "BN": 128, "BK": 64}), target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
