"""Inclusive prefix sums along rows of a tile."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def scan(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(y_ptr + r[:, None] * N + c[None, :], tl.cumsum(x, axis=1))


CASES = [Case("scan", scan, {"x_ptr": "*fp32", "y_ptr": "*fp32"}, {"m32n128": {"M": 32, "N": 128}})]
