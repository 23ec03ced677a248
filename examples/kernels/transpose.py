"""Tile transpose: load row-major, tl.trans, store row-major (a layout conversion in the middle)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def transpose(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    t = tl.trans(x)
    tl.store(y_ptr + c[:, None] * M + r[None, :], t)


CASES = [Case("transpose", transpose, {"x_ptr": "*fp16", "y_ptr": "*fp16"},
              {"m64n64": {"M": 64, "N": 64}, "m32n128": {"M": 32, "N": 128}})]
