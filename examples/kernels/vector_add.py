"""z = x + y over a 1-D range, one block of BLOCK elements per program."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def vector_add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    keep = idx < n
    a = tl.load(x_ptr + idx, mask=keep, other=0.0)
    b = tl.load(y_ptr + idx, mask=keep, other=0.0)
    tl.store(z_ptr + idx, a + b, mask=keep)


CASES = [Case("vector_add", vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32"},
              {"b256": {"BLOCK": 256}, "b1024": {"BLOCK": 1024}})]
