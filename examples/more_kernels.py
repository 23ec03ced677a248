"""Our own small kernels for ops the main corpus has few of (compiled by build_more_kernels.py)."""
import triton
import triton.language as tl

@triton.jit
def join_split(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    a = tl.load(X + o)
    b = tl.load(X + N + o)
    j = tl.join(a, b)            # N x 2
    r = tl.reshape(j, (2 * N,))
    c, d = tl.split(tl.reshape(r, (N, 2)))
    tl.store(Y + o, c * 2 + d)

@triton.jit
def trans_reshape(X, Y, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    x = tl.load(X + om * N + on)
    t = tl.trans(x)
    r = tl.reshape(t, (N * M,))
    tl.store(Y + tl.arange(0, N * M), r)

@triton.jit
def histo(X, Y, N: tl.constexpr, B: tl.constexpr):
    x = tl.load(X + tl.arange(0, N))
    h = tl.histogram(x, B)
    tl.store(Y + tl.arange(0, B), h)

@triton.jit
def gather_k(X, I, Y, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    x = tl.load(X + om * N + on)
    idx = tl.load(I + om * N + on)
    g = tl.gather(x, idx, axis=1)
    tl.store(Y + om * N + on, g)

@triton.jit
def atomics(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.atomic_add(Y + o % 16, x)
    s = tl.sum(x, axis=0)
    tl.atomic_max(Y + 16, s)

@triton.jit
def fp8_dot(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]; ok = tl.arange(0, K)
    a = tl.load(A + om * K + ok[None, :])
    b = tl.load(B + ok[:, None] * N + on)
    c = tl.dot(a, b)
    tl.store(C + om * N + on, c)

@triton.jit
def tma_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0); pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        a = a_desc.load([pid_m * BM, k]); b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))

@triton.jit
def cumsum_2d(X, Y, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    x = tl.load(X + om * N + on)
    y = tl.cumsum(x, axis=0)
    z = tl.sort(y, dim=1)
    tl.store(Y + om * N + on, z)


@triton.jit
def argmax_k(X, Y, I, M: tl.constexpr, N: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    x = tl.load(X + om * N + on, mask=on < N - 3, other=-1.0)
    v, i = tl.max(x, axis=1, return_indices=True)
    tl.store(Y + tl.arange(0, M), v); tl.store(I + tl.arange(0, M), i)

@triton.jit
def bmm(A, B, C, S: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    os_ = tl.arange(0, S)[:, None, None]; om = tl.arange(0, M)[None, :, None]
    on = tl.arange(0, N)[None, None, :]; ok = tl.arange(0, K)
    a = tl.load(A + os_ * M * K + om * K + ok[None, None, :])
    b = tl.load(B + os_ * K * N + ok[None, :, None] * N + on)
    c = tl.dot(a, b)
    tl.store(C + os_ * M * N + om * N + on, c)

@triton.jit
def interleave_flip(X, Y, N: tl.constexpr):
    o = tl.arange(0, N)
    a = tl.load(X + o); b = tl.load(X + N + o)
    c = tl.interleave(a, b)
    d = tl.flip(c, 0)
    tl.store(Y + tl.arange(0, 2 * N), tl.clamp(d, -1.0, 1.0))

@triton.jit
def _pair_add(a0, a1, b0, b1):
    return a0 + b0, tl.maximum(a1, b1)

@triton.jit
def tuple_scan(X, Y, Z, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    s, m = tl.associative_scan((x, x), 0, _pair_add)
    tl.store(Y + o, s); tl.store(Z + o, m)

@triton.jit
def swizzle_pid(X, Y, M: tl.constexpr, N: tl.constexpr):
    i, j = tl.swizzle2d(tl.program_id(0), tl.program_id(1), 8, 8, 4)
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    x = tl.load(X + (i * M + om) * N + on)
    y = tl.where(x > 0, x, 0.0)
    z = tl.exp(y - tl.max(y, axis=1)[:, None])
    tl.store(Y + (i * M + om) * N + on + j, z / tl.sum(z, axis=1)[:, None])

@triton.jit
def dot_scaled_k(A, AS, B, BS, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    om = tl.arange(0, M)[:, None]; on = tl.arange(0, N)[None, :]
    ok = tl.arange(0, K); oks = tl.arange(0, K // 32)
    a = tl.load(A + om * K + ok[None, :])
    b = tl.load(B + ok[:, None] * N + on)
    a_s = tl.load(AS + om * (K // 32) + oks[None, :])
    b_s = tl.load(BS + tl.arange(0, N)[:, None] * (K // 32) + oks[None, :])
    c = tl.dot_scaled(a, a_s, "e4m3", b, b_s, "e4m3")
    tl.store(C + om * N + on, c)

@triton.jit
def ws_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0); pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3, warp_specialize=True):
        a = a_desc.load([pid_m * BM, k]); b = b_desc.load([pid_n * BN, k])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))

@triton.jit
def cat_reorder(X, Y, N: tl.constexpr):
    a = tl.load(X + tl.arange(0, N))
    b = tl.load(X + N + tl.arange(0, N))
    c = tl.cat(a, b, can_reorder=True)
    d = tl.reshape(c, (2, N), can_reorder=True)
    tl.store(Y + tl.arange(0, N), tl.sum(d, axis=0))
