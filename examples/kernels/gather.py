"""Gather along the columns of a tile with a per-element index tile."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def gather(x_ptr, idx_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    i = tl.load(idx_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + r[:, None] * N + c[None, :], tl.gather(x, i, axis=1))


CASES = [Case("gather", gather, {"x_ptr": "*fp32", "idx_ptr": "*i32", "y_ptr": "*fp32"},
              {"m32n32": {"M": 32, "N": 32}})]
