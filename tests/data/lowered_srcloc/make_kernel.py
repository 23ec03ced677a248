"""The scaled-dot kernel of these samples (our own).  `python make_kernel.py hip:gfx950 e2m1` writes
ds-hip_gfx950-e2m1.{ttgir,llir,json}: run once as is (*-default: debug locations name the Python source) and
once under USE_IR_LOC=ttgir (*-irloc: they name .ttgir lines); the files here are those, renamed."""
import triton, triton.language as tl, sys
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
@triton.jit
def k(a_ptr, b_ptr, as_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, FMT: tl.constexpr):
    rm = tl.arange(0, M); rn = tl.arange(0, N)
    PK: tl.constexpr = K // 2 if FMT == "e2m1" else K
    rk = tl.arange(0, PK)
    a = tl.load(a_ptr + rm[:, None] * PK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    rs = tl.arange(0, K // 32)
    sa = tl.load(as_ptr + rm[:, None] * (K // 32) + rs[None, :])
    sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + rs[None, :])
    c = tl.dot_scaled(a, sa, FMT, b, sb, FMT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
if __name__ == "__main__":
    tgt = sys.argv[1]; fmt = sys.argv[2]
    backend, arch = tgt.split(":")
    target = GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)
    src = ASTSource(fn=k, signature={"a_ptr": "*u8", "b_ptr": "*u8", "as_ptr": "*u8", "bs_ptr": "*u8", "c_ptr": "*fp32", "M": "constexpr", "N": "constexpr", "K": "constexpr", "FMT": "constexpr"}, constexprs={"M": 128, "N": 128, "K": 128, "FMT": fmt})
    out = triton.compile(src, target=target, options={"num_warps": 4})
    open(f"ds-{tgt.replace(':','_')}-{fmt}.ttgir", "w").write(out.asm["ttgir"])
    open(f"ds-{tgt.replace(':','_')}-{fmt}.llir", "w").write(out.asm["llir"])
    import json; open("ds-" + tgt.replace(":", "_") + "-" + fmt + ".json", "w").write(json.dumps({"shared": out.metadata.shared, "num_warps": 4}))
