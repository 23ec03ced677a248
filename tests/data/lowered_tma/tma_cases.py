"""The kernel of ``make_tma.py``'s TMA cases (a Python file: ``@triton.jit`` needs one): a tensor-descriptor copy."""

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def tma_copy(in_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid = tl.program_id(0)
    x = src.load([pid * BM, 0])
    dst.store([pid * BM, 0], x + 1)


def build(dtype: str, bm: int, bn: int, warps: int) -> None:
    """Compile one case for sm_90 (into ``TRITON_CACHE_DIR``)."""
    sig = {"in_ptr": "*" + dtype, "out_ptr": "*" + dtype, "M": "i32", "N": "i32", "BM": "constexpr", "BN": "constexpr"}
    src = triton.compiler.ASTSource(fn=tma_copy, signature=sig, constexprs={"BM": bm, "BN": bn})
    triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
