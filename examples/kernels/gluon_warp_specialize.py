"""Gluon: a warp-specialized kernel whose worker partition computes with distributed layouts of its own warp
count (2 warps, while the default partition has the kernel's 4): row sums of two 32 x 32 tiles.

Triton 3.9 prints a worker's warp count only in its region header (``partition0(...) num_warps(2) {``); the
gate checks each partition's layouts against that count."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from _case import Case


@gluon.jit
def _row_sums(x, y, N: gl.constexpr, WARPS: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [WARPS, 1], [1, 0])
    rm = gl.arange(0, N, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    gl.store(y + rm, gl.sum(v, axis=1))


@gluon.jit
def _default_part(x, y, N: gl.constexpr):
    _row_sums(x, y, N, 4)


@gluon.jit
def _worker_part(x, y, N: gl.constexpr):
    _row_sums(x + N * N, y + N, N, 2)


@gluon.jit
def ws_row_sums(x, y, N: gl.constexpr):
    gl.warp_specialize([(_default_part, (x, y, N)), (_worker_part, (x, y, N))], [2], [48])


CASES = [Case("gluon_ws_row_sums", ws_row_sums, {"x": "*fp32", "y": "*fp32"}, {"n32": {"N": 32}},
              targets=("cuda:90", "cuda:100"), warps=(4,), gluon=True)]
