"""Column sums and row maxima of a tile (reductions along both axes)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def reduction(x_ptr, colsum_ptr, rowmax_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M)
    c = tl.arange(0, N)
    x = tl.load(x_ptr + r[:, None] * N + c[None, :])
    tl.store(colsum_ptr + c, tl.sum(x, axis=0))
    tl.store(rowmax_ptr + r, tl.max(x, axis=1))


CASES = [Case("reduction", reduction, {"x_ptr": "*fp32", "colsum_ptr": "*fp32", "rowmax_ptr": "*fp32"},
              {"m64n64": {"M": 64, "N": 64}, "m32n256": {"M": 32, "N": 256}})]
