"""Attention forward for one query block: online softmax over key/value blocks."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, n_keys, scale, BQ: tl.constexpr, BK: tl.constexpr, D: tl.constexpr):
    qi = tl.program_id(0) * BQ + tl.arange(0, BQ)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + qi[:, None] * D + d[None, :])
    best = tl.full((BQ,), float("-inf"), tl.float32)
    total = tl.zeros((BQ,), tl.float32)
    acc = tl.zeros((BQ, D), tl.float32)
    for start in range(0, n_keys, BK):
        kj = start + tl.arange(0, BK)
        k = tl.load(k_ptr + kj[None, :] * D + d[:, None])
        s = tl.dot(q, k) * scale
        new_best = tl.maximum(best, tl.max(s, axis=1))
        p = tl.exp(s - new_best[:, None])
        alpha = tl.exp(best - new_best)
        total = total * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kj[:, None] * D + d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        best = new_best
    tl.store(o_ptr + qi[:, None] * D + d[None, :], (acc / total[:, None]).to(tl.float16))


CASES = [Case("attention", attention, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                                       "n_keys": "i32", "scale": "fp32"},
              {"q64k64d64": {"BQ": 64, "BK": 64, "D": 64}, "q128k64d64": {"BQ": 128, "BK": 64, "D": 64}})]
