"""Gluon: the epilogue-subtile reads of examples/kernels/epilogue_subtile.py written by hand over a buffered
accumulator: ``tm.slice(2, 2, dim=0)`` keeps buffers 2..3 of a ``4 x 128 x 128`` tensor memory allocation
(Triton 3.9 prints ``{dim = 0 : i32, offset = 2 : i32}``), ``.index(1)`` picks buffer 3, and
``.slice(0 | 64, 64)`` its column halves, each stored and loaded in the register layout Gluon gives the view.

The gate follows the def chain (subslice, memdesc_index, subslice) to the view's column offset and decides
each access's lane quarters there (``tmem_access`` in ``docs/ttgir.md``); ``view_in_bounds`` reads the sliced
dim of each subslice."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, allocate_tensor_memory

from _case import Case


@gluon.jit
def _half(acc, x, y, START: gl.constexpr, N: gl.constexpr):
    view = acc.slice(START, N)
    R: gl.constexpr = view.get_reg_layout()
    rm = gl.arange(0, 128, layout=gl.SliceLayout(1, R))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, R))
    offs = rm[:, None] * (2 * N) + START + rn[None, :]
    view.store(gl.load(x + offs))
    gl.store(y + offs, view.load(R) * 2.0)


@gluon.jit
def epilogue_subtile_gluon(x, y, N: gl.constexpr):
    tm = allocate_tensor_memory(gl.float32, [4, 128, 2 * N], TensorMemoryLayout([128, 2 * N], col_stride=1))
    acc = tm.slice(2, 2, dim=0).index(1)
    _half(acc, x, y, 0, N)
    _half(acc, x, y, N, N)


CASES = [Case("epilogue_subtile_gluon", epilogue_subtile_gluon, {"x": "*fp32", "y": "*fp32"},
              {"n64": {"N": 64}}, targets=("cuda:100",), warps=(4, 8), gluon=True)]
