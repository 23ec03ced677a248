"""Gluon: load a tile in layout SRC, ``convert_layout`` to DST, store it: one explicit conversion per kernel.

These are the conversions the gate classifies (register / shuffle / shared memory) and the GPU suite runs;
each pair is written for its warp count and threads per warp (32 on NVIDIA, 64 on AMD)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from _case import Case


@gluon.jit
def convert(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    w = gl.convert_layout(v, DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)


def _blocked(spt, tpw, wpc, order):
    return gl.BlockedLayout(spt, tpw, wpc, order)


def _pairs(threads, warps):
    """(name, SRC, DST) pairs for ``warps`` warps of ``threads`` lanes."""
    t0, t1 = (8, 4) if threads == 32 else (8, 8)
    w = [warps, 1]
    wt = [1, warps]
    out = [
        ("rowmajor_to_colmajor", _blocked([1, 4], [t0, t1], w, [1, 0]), _blocked([4, 1], [t1, t0], wt, [0, 1])),
        ("vec4_to_vec1", _blocked([1, 4], [t0, t1], w, [1, 0]), _blocked([1, 1], [t0, t1], w, [1, 0])),
        ("lane_swap", _blocked([1, 1], [t0, t1], w, [1, 0]), _blocked([1, 1], [t1, t0], w, [1, 0])),
        ("warp_swap", _blocked([1, 4], [t0, t1], w, [1, 0]), _blocked([1, 4], [t0, t1], wt, [1, 0])),
        ("register_reorder", _blocked([2, 2], [t0, t1], w, [1, 0]), _blocked([2, 2], [t0, t1], w, [0, 1])),
    ]
    if threads == 32:
        mma_w = [2, warps // 2]
        mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=mma_w, instr_shape=[16, 8])
        out.append(("mma_to_blocked", mma, _blocked([1, 8], [4, 8], w, [1, 0])))
        out.append(("blocked_to_mma", _blocked([1, 8], [4, 8], w, [1, 0]), mma))
    return out


def _cases():
    sig = {"x": "*fp16", "y": "*fp16"}
    cases = []
    for threads, targets in ((32, ("cuda:80", "cuda:90", "cuda:100")), (64, ("hip:gfx942", "hip:gfx950"))):
        for warps in (4, 8):
            for name, src, dst in _pairs(threads, warps):
                cfg = {"M": 64, "N": 64, "SRC": src, "DST": dst}
                suffix = "" if threads == 32 else "_wave64"
                cases.append(Case(f"gluon_convert_{name}{suffix}_w{warps}", convert, sig, {"64x64": cfg},
                                  targets=targets, warps=(warps,), gluon=True))
    return cases


CASES = _cases()
