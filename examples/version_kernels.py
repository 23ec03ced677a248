"""Kernels of other shapes for the version sweep (examples/build_versions.py): a split-K matmul that
accumulates with atomics, a batched (3-D) int8 dot, and a kernel chaining an associative scan with a custom
combine, a sort, a gather and a histogram.  Compiled for cuda:80/90/100 and gfx942/gfx950 with Triton 3.9 and
the older versions; ``JOBS`` lists (name, signature, constexprs, warp counts)."""
import triton
import triton.language as tl


@triton.jit
def splitk_matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    # each program sums every SPLIT-th K tile, then adds its partial sum into C
    for kt in range(pid_k, tl.cdiv(K, BK), SPLIT):
        offs_k = kt * BK + tl.arange(0, BK)
        a = tl.load(A + offs_m[:, None] * K + offs_k[None, :], mask=offs_k[None, :] < K, other=0.0)
        b = tl.load(B + offs_k[:, None] * N + offs_n[None, :], mask=offs_k[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.atomic_add(C + offs_m[:, None] * N + offs_n[None, :], acc, mask=mask, sem="relaxed")


@triton.jit
def batched_i8_dot(A, B, C, BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    bb = tl.arange(0, BATCH)[:, None, None]
    mm = tl.arange(0, M)[None, :, None]
    nn = tl.arange(0, N)[None, None, :]
    kk_row = tl.arange(0, K)[None, None, :]
    kk_col = tl.arange(0, K)[None, :, None]
    a = tl.load(A + bb * M * K + mm * K + kk_row)          # BATCH x M x K int8
    b = tl.load(B + bb * K * N + kk_col * N + nn)          # BATCH x K x N int8
    c = tl.dot(a, b, out_dtype=tl.int32)                   # BATCH x M x N int32
    tl.store(C + bb * M * N + mm * N + nn, c)


@triton.jit
def _max_plus(a, b):
    # running maximum of a prefix: associative and commutative
    return tl.maximum(a, b)


@triton.jit
def scan_sort_gather(X, IDX, Y, H, R: tl.constexpr, N: tl.constexpr, BINS: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    cols = tl.arange(0, N)[None, :]
    x = tl.load(X + rows * N + cols)
    run = tl.associative_scan(x, 1, _max_plus)             # prefix maximum along each row
    srt = tl.sort(run, dim=1, descending=True)
    idx = tl.load(IDX + rows * N + cols)                    # a permutation of 0..N-1 per row
    g = tl.gather(srt, idx, axis=1)
    tl.store(Y + rows * N + cols, g)
    flat = tl.reshape(idx, (R * N,))
    tl.store(H + tl.arange(0, BINS), tl.histogram(flat, BINS))


JOBS = [
    ("splitk_matmul", {"A": "*fp16", "B": "*fp16", "C": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
     {"BM": 64, "BN": 64, "BK": 32, "SPLIT": 4}, [4, 8]),
    ("batched_i8_dot", {"A": "*i8", "B": "*i8", "C": "*i32"}, {"BATCH": 2, "M": 32, "N": 32, "K": 64}, [4, 8]),
    ("scan_sort_gather", {"X": "*fp32", "IDX": "*i32", "Y": "*fp32", "H": "*i32"}, {"R": 8, "N": 64, "BINS": 64},
     [4, 8]),
]
