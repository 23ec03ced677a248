"""Gluon conversions compiled for the lowered-code samples of ``ttg.convert_layout`` (``make.py --cvt``).

Each case: one ``gl.convert_layout`` between two explicit layouts, of an element type and a shape chosen to
exercise a lowering: sub-word elements (f16, i8), several rounds through the scratch buffer (a tile larger
than Triton's scratch budget), blocked -> mma, and AMD's wave64 (gfx942)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def convert(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    w = gl.convert_layout(v, DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)


def B(spt, tpw, wpc, order):
    return gl.BlockedLayout(spt, tpw, wpc, order)


def cases():
    """name -> (target, warps, element type, M, N, SRC, DST)"""
    mma2 = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])
    mma3 = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])
    return {
        "cvt_transpose_f32_128x256": ("cuda:90", 4, "fp32", 128, 256,
                                      B([1, 4], [4, 8], [4, 1], [1, 0]), B([4, 1], [8, 4], [1, 4], [0, 1])),
        "cvt_transpose_i8_64x128": ("cuda:90", 4, "i8", 64, 128,
                                    B([1, 16], [8, 4], [4, 1], [1, 0]), B([16, 1], [4, 8], [1, 4], [0, 1])),
        "cvt_blocked_to_mma_f16": ("cuda:90", 4, "fp16", 64, 64, B([1, 8], [4, 8], [4, 1], [1, 0]), mma2),
        "cvt_mma3_to_blocked_f32": ("cuda:90", 4, "fp32", 64, 64, mma3, B([1, 4], [8, 4], [4, 1], [1, 0])),
        "cvt_mma3_to_blocked_f16": ("cuda:90", 4, "fp16", 64, 64, mma3, B([1, 8], [8, 4], [4, 1], [1, 0])),
        "cvt_transpose_f16_wave64": ("hip:gfx942", 4, "fp16", 64, 128,
                                     B([1, 8], [8, 8], [4, 1], [1, 0]), B([8, 1], [8, 8], [1, 4], [0, 1])),
        "cvt_transpose_i8_wave64": ("hip:gfx942", 4, "i8", 64, 64,
                                    B([1, 4], [8, 8], [4, 1], [1, 0]), B([4, 1], [8, 8], [1, 4], [0, 1])),
        "cvt_warp_swap_bf16_w8": ("cuda:90", 8, "bf16", 64, 128,
                                  B([1, 4], [4, 8], [8, 1], [1, 0]), B([1, 4], [4, 8], [1, 8], [1, 0])),
    }


def compile_case(name: str) -> dict:
    """In a child process (``USE_IR_LOC=ttgir`` set): compile case ``name``; Triton writes its cache."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    target, warps, elem, M, N, src, dst = cases()[name]
    backend, arch = target.split(":")
    gpu = GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)
    sig = {"x": f"*{elem}", "y": f"*{elem}", "M": "constexpr", "N": "constexpr", "SRC": "constexpr",
           "DST": "constexpr"}
    source = GluonASTSource(fn=convert, signature=sig, constexprs={"M": M, "N": N, "SRC": src, "DST": dst})
    triton.compile(source, target=gpu, options={"num_warps": warps})
    return {"target": target, "warps": warps}
