"""Gluon on AMD: ``gl.amd.slice`` takes a register-only slice of a distributed tensor (``amdg.extract_slice``).

Each thread keeps the registers of the slice it already holds; nothing moves between threads when the slice's
offsets and sizes are whole tiles of the layout.  The gate proves that per (register, thread) with the uniform
register map of Triton's AMD lowering (``register_tiles`` in ``docs/ttgir.md``)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from _case import Case


@gluon.jit
def amd_slice(x, y, M: gl.constexpr, N: gl.constexpr, SM: gl.constexpr, SN: gl.constexpr, OM: gl.constexpr,
              ON: gl.constexpr, L: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    s = gl.amd.slice(v, [SM, SN], [OM, ON])
    om = gl.arange(0, SM, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, SN, layout=gl.SliceLayout(0, L))
    gl.store(y + om[:, None] * SN + on[None, :], s)


def _cases():
    rows = gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0])  # wave64 tile 32 x 64
    cols = gl.BlockedLayout([4, 1], [16, 4], [1, 4], [0, 1])  # wave64 tile 64 x 16
    configs = {"rows64at64": {"M": 128, "N": 64, "SM": 64, "SN": 64, "OM": 64, "ON": 0, "L": rows},
               "cols32at32": {"M": 64, "N": 64, "SM": 64, "SN": 32, "OM": 0, "ON": 32, "L": cols}}
    return [Case("amd_slice", amd_slice, {"x": "*fp16", "y": "*fp16"}, configs, targets=("hip:gfx950",),
                 warps=(4,), gluon=True)]


CASES = _cases()
