"""TMA gather and scatter (Blackwell ``tile::gather4``): rows picked by an index vector are copied between
global memory and a shared buffer through a descriptor whose block is one row (``[1, N]``).

On cuda:100 Triton lowers ``desc.gather`` / ``desc.scatter`` to ``ttng.async_tma_gather`` /
``ttng.async_tma_scatter`` on an NVMMA shared buffer of ``[rows, N]``; the gate checks that box footprint
and that the buffer's layout is the descriptor's (``tma_buffer`` in ``docs/ttgir.md``)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def tma_gather(x_ptr, idx_ptr, y_ptr, R, C, ROWS: tl.constexpr, N: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[R, C], strides=[C, 1], block_shape=[1, N])
    out = tl.make_tensor_descriptor(y_ptr, shape=[R, C], strides=[C, 1], block_shape=[1, N])
    rows = tl.load(idx_ptr + tl.arange(0, ROWS))
    tile = desc.gather(rows, 0)
    out.scatter(tile * 2, rows, N)


CASES = [Case("tma_gather", tma_gather, {"x_ptr": "*bf16", "idx_ptr": "*i32", "y_ptr": "*bf16", "R": "i32", "C": "i32"},
              {"r32n128": {"ROWS": 32, "N": 128}, "r8n64": {"ROWS": 8, "N": 64}},
              targets=("cuda:100",), warps=(4,))]
