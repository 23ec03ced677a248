"""An aligned f16 matmul whose K loop Triton's pipeliner turns into ``cp.async`` copies on sm_80 / sm_90.

The operand pointers are 16-byte divisible (Triton's specialisation; ``c_ptr`` is left unspecialised so the
result's store conversion is the one ``matmul.py`` already has: ``llverify/gpu/triton_cvt_corpus.json`` lists each
corpus conversion once) and the row strides are constexpr
multiples of 16, so axis analysis finds 8 contiguous, aligned f16 per thread: the copies are 16 bytes wide
(``ttg.async_copy_global_to_local`` carries ``{contiguity = 8 : i32}``; ``tests/test_ttgir_cp_async.py``
compares the widths the gate computes with the ``cp.async`` sizes in Triton's LLVM IR)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def pipelined_matmul(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     K: tl.constexpr, N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


CASES = [Case("pipelined_matmul", pipelined_matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16"},
              {"m64n64k32": {"BM": 64, "BN": 64, "BK": 32, "K": 512, "N": 1024}},
              ("cuda:80", "cuda:90"), (4,), divisible_by_16=("a_ptr", "b_ptr"))]
