"""A fixed-trip-count tf32x3 matmul loop: Triton's pipeliner multi-buffers the operands with ``cp.async`` on
sm_80 / sm_90 and indexes the buffers with wrap-around counters (``tests/data/lowered/pipelined_tf32x3-*``)."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def pipelined_tf32x3(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)[:, None]
    n = tl.arange(0, N)[None, :]
    k = tl.arange(0, K)
    acc = tl.zeros((M, N), tl.float32)
    for i in range(4):
        a = tl.load(a_ptr + m * K + k[None, :] + i)
        b = tl.load(b_ptr + k[:, None] * N + n + i)
        acc += tl.dot(a, b, input_precision="tf32x3")
    tl.store(c_ptr + m * N + n, acc)


CASES = [Case("pipelined_tf32x3", pipelined_tf32x3, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
              {"m64n64k32": {"M": 64, "N": 64, "K": 32}}, ("cuda:80", "cuda:90"), (4,))]
