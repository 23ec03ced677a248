"""A tcgen5 matmul whose epilogue reads the accumulator in column halves (or quarters): the epilogue-subtile
pattern, ``acc.reshape(BM, 2, BN // 2).permute(0, 2, 1)`` then ``tl.split``.

On Blackwell Triton 3.9 keeps the accumulator in tensor memory and turns each half into a
``ttng.tmem_subslice`` view (``{offset = 0}``, ``{offset = BN // 2}``) read by its own ``ttng.tmem_load``; the
gate decides each read's lane quarters at the view's column offset (``tmem_access`` in ``docs/ttgir.md``)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def _halves(x, N: tl.constexpr):
    y = tl.permute(tl.reshape(x, (x.shape[0], 2, N // 2)), (0, 2, 1))
    return tl.split(y)


@triton.jit
def epilogue_subtile(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                     QUARTERS: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    lo, hi = _halves(acc, BN)
    if QUARTERS:
        q0, q1 = _halves(lo, BN // 2)
        q2, q3 = _halves(hi, BN // 2)
        rq = tl.arange(0, BN // 4)
        base = c_ptr + rm[:, None] * BN + rq[None, :]
        tl.store(base, q0.to(tl.float16))
        tl.store(base + BN // 4, q1.to(tl.float16))
        tl.store(base + BN // 2, q2.to(tl.float16))
        tl.store(base + 3 * BN // 4, q3.to(tl.float16))
    else:
        rh = tl.arange(0, BN // 2)
        base = c_ptr + rm[:, None] * BN + rh[None, :]
        tl.store(base, lo.to(tl.float16))
        tl.store(base + BN // 2, hi.to(tl.float16))


CASES = [Case("epilogue_subtile", epilogue_subtile,
              {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
              {"m128n128k64": {"BM": 128, "BN": 128, "BK": 64, "QUARTERS": False},
               "m128n256k64q": {"BM": 128, "BN": 256, "BK": 64, "QUARTERS": True}},
              targets=("cuda:100",), warps=(4, 8), options={"num_stages": 3},
              divisible_by_16=("a_ptr", "b_ptr", "c_ptr"))]
