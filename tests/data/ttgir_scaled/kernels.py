# The scaled-dot kernel whose TTGIR is checked in here: python kernels.py TARGET M N K FMT WARPS OUT (triton 3.9 wheel)
import sys, triton, triton.language as tl
from triton.backends.compiler import GPUTarget

@triton.jit
def mx_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, FMT: tl.constexpr):
    rm = tl.arange(0, M); rn = tl.arange(0, N); rk = tl.arange(0, K // 2 if FMT == "e2m1" else K)
    rks = tl.arange(0, K // 32)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    sa = tl.load(as_ptr + rm[:, None] * (K // 32) + rks[None, :])
    sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + rks[None, :])
    c = tl.dot_scaled(a, sa, FMT, b, sb, FMT)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)

def main() -> None:
    tgt = sys.argv[1]; M, N, K, FMT, W = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
    backend, arch = tgt.split(":")
    target = GPUTarget("hip", arch, 64) if backend == "hip" else GPUTarget("cuda", int(arch), 32)
    sig = {"a_ptr": "*u8" if FMT == "e2m1" else "*fp8e4nv", "as_ptr": "*u8", "b_ptr": "*u8" if FMT == "e2m1" else "*fp8e4nv", "bs_ptr": "*u8", "c_ptr": "*fp32"}
    src = triton.compiler.ASTSource(fn=mx_kernel, signature=sig, constexprs={"M": M, "N": N, "K": K, "FMT": FMT})
    k = triton.compile(src, target=target, options={"num_warps": W})
    open(sys.argv[7], "w").write(k.asm["ttgir"])


if __name__ == "__main__":
    main()
