"""Row softmax of a (rows x COLS) matrix: one row block per program, max-subtracted."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def softmax(inp, out, stride, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, COLS)
    x = tl.load(inp + r[:, None] * stride + c[None, :]).to(tl.float32)
    top = tl.max(x, axis=1)
    e = tl.exp(x - top[:, None])
    tl.store(out + r[:, None] * stride + c[None, :], (e / tl.sum(e, axis=1)[:, None]).to(tl.float16))


CASES = [Case("softmax", softmax, {"inp": "*fp16", "out": "*fp16", "stride": "i32"},
              {"r4c128": {"ROWS": 4, "COLS": 128}, "r16c256": {"ROWS": 16, "COLS": 256}})]
