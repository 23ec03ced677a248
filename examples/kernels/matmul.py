"""C = A @ B with a K loop: mma v2 on sm_80, wgmma on sm_90, tcgen5 on sm_100, MFMA on gfx942/gfx950.

``STAGES`` > 1 makes Triton's pipeliner multi-buffer the operand tiles in shared memory."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


CASES = [Case("matmul", matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
              {"t64s1": {"BM": 64, "BN": 64, "BK": 32, "STAGES": 1},
               "t64s3": {"BM": 64, "BN": 64, "BK": 32, "STAGES": 3},
               "t128s1": {"BM": 128, "BN": 128, "BK": 64, "STAGES": 1},
               "t128s3": {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3}})]
