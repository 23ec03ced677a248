"""A block-scaled matmul tile (``tl.dot_scaled``, e2m1 / e4m3 operands with E8M0 scales per 32 k-values).

What each target makes of it: Blackwell keeps it as ``ttng.tc_gen5_mma_scaled``; Hopper and Ampere decompose it
(``ttg.fp4_to_fp`` unpacks two e2m1 per byte along k, then a bf16 ``tt.dot``); gfx942 upcasts with
``amdg.scaled_upcast_fp4/fp8``; gfx950 keeps ``tt.dot_scaled`` on scaled MFMA dot operands
(``tests/data/ttgir/scaled_dot``)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def scaled_dot(a_ptr, b_ptr, as_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
               FMT: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    packed_k: tl.constexpr = K // 2 if FMT == "e2m1" else K   # e2m1: two values per byte along k
    kk = tl.arange(0, packed_k)
    a = tl.load(a_ptr + rows[:, None] * packed_k + kk[None, :])
    b = tl.load(b_ptr + kk[:, None] * N + cols[None, :])
    groups = tl.arange(0, K // 32)                            # one E8M0 scale per 32 k-values
    a_scale = tl.load(as_ptr + rows[:, None] * (K // 32) + groups[None, :])
    b_scale = tl.load(bs_ptr + cols[:, None] * (K // 32) + groups[None, :])
    acc = tl.dot_scaled(a, a_scale, FMT, b, b_scale, FMT)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc)


CASES = [Case("scaled_dot", scaled_dot,
              {"a_ptr": "*u8", "b_ptr": "*u8", "as_ptr": "*u8", "bs_ptr": "*u8", "c_ptr": "*fp32"},
              {"e2m1-m128n128k128": {"M": 128, "N": 128, "K": 128, "FMT": "e2m1"},
               "e4m3-m128n128k128": {"M": 128, "N": 128, "K": 128, "FMT": "e4m3"}},
              warps=(4,))]
