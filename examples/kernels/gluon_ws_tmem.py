"""Gluon: a warp-specialized kernel whose worker partition reads and writes tensor memory (tcgen05.ld/st)
with its own warp count, beside a 1-warp worker that only copies a vector.

On Blackwell a warp reaches only the TMEM lane quarter ``32 (w mod 4) ..+31`` of its CTA-wide warp id ``w``;
a worker partition's warps are numbered from the first warp Triton allocates to it (AllocateWarpGroups: the
kernel's warps first, then the partitions by decreasing size), so the gate checks each TMEM access against
those warp ids (``tmem_access`` in ``docs/ttgir.md``)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, allocate_tensor_memory

from _case import Case


@gluon.jit
def _copy_part(x, y, M: gl.constexpr, N: gl.constexpr, tm):
    L: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    o = gl.arange(0, 32, layout=L)
    gl.store(y + o, gl.load(x + o))


@gluon.jit
def _tmem_part(x, y, M: gl.constexpr, N: gl.constexpr, tm):
    R: gl.constexpr = tm.get_reg_layout()
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, R))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, R))
    offs = rm[:, None] * N + rn[None, :]
    tm.store(gl.load(x + offs))
    gl.store(y + offs, tm.load(R) * 2.0)


@gluon.jit
def ws_tmem(x, y, M: gl.constexpr, N: gl.constexpr, TMEM_WARPS: gl.constexpr):
    tm = allocate_tensor_memory(gl.float32, [M, N], TensorMemoryLayout([M, N], col_stride=1))
    gl.warp_specialize([(_copy_part, (x, y, M, N, tm)), (_copy_part, (x, y, M, N, tm)),
                        (_tmem_part, (x, y, M, N, tm))], [1, TMEM_WARPS], [48, 48])


CASES = [Case("gluon_ws_tmem", ws_tmem, {"x": "*fp32", "y": "*fp32"},
              {"m128n32w4": {"M": 128, "N": 32, "TMEM_WARPS": 4}, "m128n32w8": {"M": 128, "N": 32, "TMEM_WARPS": 8}},
              targets=("cuda:100",), warps=(4,), gluon=True)]
