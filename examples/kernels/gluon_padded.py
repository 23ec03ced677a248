"""Gluon: a tile stored into a ``#ttg.padded_shared`` buffer and read back in a column-major layout.

Padding (``[interval:+padding]``: ``padding`` unused elements after every ``interval``) is AMD's way to
avoid LDS bank conflicts; the gate models it exactly (llverify.hw.padded).  Three buffers: rows padded by
16 bytes (vectors stay aligned), rows padded by one 4-byte word (breaks 16-byte alignment of the stored
vectors: on NVIDIA a misaligned-address fault, which the gate refutes as ``vector_alignment``; on AMD it says
unknown), and a row-permuted linear component."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from _case import Case


@gluon.jit
def padded_roundtrip(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr,
                     SMEM: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    buf = gl.allocate_shared_memory(gl.float16, [M, N], SMEM)
    buf.store(v)
    w = buf.load(DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)


def _cases():
    sig = {"x": "*fp16", "y": "*fp16"}
    cases = []
    rows = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [1, 0]]
    buffers = {
        "pad16b": lambda: gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0]),
        "pad4b": lambda: gl.PaddedSharedLayout.with_identity_for([[64, 2]], [64, 64], [1, 0]),
        "permuted": lambda: gl.PaddedSharedLayout([[64, 8], [512, 16]], rows, [], [64, 64]),
    }
    for threads, targets in ((32, ("cuda:90",)), (64, ("hip:gfx942", "hip:gfx950"))):
        t0, t1 = (8, 4) if threads == 32 else (8, 8)
        src = gl.BlockedLayout([1, 8], [t0, t1], [4, 1], [1, 0])
        dst = gl.BlockedLayout([8, 1], [t1, t0], [1, 4], [0, 1])
        suffix = "" if threads == 32 else "_wave64"
        configs = {name: {"M": 64, "N": 64, "SRC": src, "DST": dst, "SMEM": make()} for name, make in buffers.items()}
        cases.append(Case(f"gluon_padded{suffix}", padded_roundtrip, sig, configs, targets=targets, warps=(4,),
                          gluon=True))
    return cases


CASES = _cases()
