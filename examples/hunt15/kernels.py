"""hunt15 kernels: written for the hunt of session 15 in styles the earlier hunts lack: 2-CTA clusters
(num_ctas = 2) on sm_90 / sm_100, Philox random numbers (dropout), the math library (erf, rsqrt, div_rn, fma,
umulhi, clamp), device asserts under debug, fp64 and int8 dots, dots with an f16 accumulator and the f32
precisions (ieee, tf32x3), tiny and huge tiles, 5-D permutes, reverse scans and cumprod, a spin lock (atomic_cas /
atomic_xchg), unrolled loops and a single-buffered accumulator, a fused-MoE gather matmul, a data-dependent while
loop, tensors through scf.if, split-K atomic adds, maxnreg and TMA reduce stores.

CASES has the fields of examples/hunt13/kernels.py; examples/hunt/compile.py compiles it (HUNT_KERNELS=examples/hunt15).
"""
import triton
import triton.language as tl


@triton.jit
def cluster_mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a plain pointer matmul compiled with num_ctas = 2: CTA layouts split over the cluster
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def cluster_tma_mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    ad = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    cd = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        acc = tl.dot(ad.load([om, k]), bd.load([k, on]), acc)
    cd.store([om, on], acc.to(tl.float16))


@triton.jit
def dropout(x, y, n, seed, p: tl.constexpr, B: tl.constexpr):
    off = tl.program_id(0) * B + tl.arange(0, B)
    m = off < n
    v = tl.load(x + off, mask=m)
    r = tl.rand(seed, off)
    keep = r > p
    tl.store(y + off, tl.where(keep, v / (1 - p), 0.0), mask=m)
    ri = tl.randint(seed, off)
    tl.store(y + n + off, (ri & 0xFF).to(tl.float32), mask=m)


@triton.jit
def mathlib(x, y, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    v = tl.load(x + r[:, None] * C + c[None, :])
    a = tl.erf(v) + tl.rsqrt(tl.abs(v) + 1.0) + tl.div_rn(v, 3.0) + tl.fma(v, v, 1.0)
    u = v.to(tl.uint32, bitcast=True)
    h = tl.umulhi(u, u ^ 0x9E3779B9)
    a = tl.clamp(a, -4.0, 4.0) + (h & 7).to(tl.float32) + tl.sqrt_rn(tl.abs(v)) + tl.log2(tl.abs(v) + 1.0)
    tl.store(y + r[:, None] * C + c[None, :], a)


@triton.jit
def checked(x, y, n, B: tl.constexpr):
    off = tl.program_id(0) * B + tl.arange(0, B)
    tl.device_assert(off >= 0, "negative offset")
    v = tl.load(x + off, mask=off < n, other=0.0)
    tl.device_assert(v == v, "nan")
    tl.store(y + off, v * 2, mask=off < n)


@triton.jit
def dot_types(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr,
              OUT16: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    if OUT16:
        z = tl.dot(x, y, out_dtype=tl.float16)
    else:
        z = tl.dot(x, y, input_precision=PREC)
    tl.store(c + rm[:, None] * BN + rn[None, :], z.to(c.dtype.element_ty))


@triton.jit
def tiny_tiles(x, y):
    one = tl.arange(0, 1)
    two = tl.arange(0, 2)
    v1 = tl.load(x + one)
    v2 = tl.load(x + 1 + two)
    m = tl.load(x + two[:, None] * 2 + two[None, :])
    s = tl.sum(m, axis=1) + tl.max(v2) + tl.sum(v1)
    t = tl.reshape(m, (4,))
    tl.store(y + two, s)
    tl.store(y + 2 + tl.arange(0, 4), t)
    tl.store(y + 6 + one, tl.sum(tl.reshape(v1, (1, 1)), axis=0))


@triton.jit
def huge_row(x, y, C: tl.constexpr):
    c = tl.arange(0, C)
    v = tl.load(x + tl.program_id(0) * C + c)
    mx = tl.max(v, 0)
    e = tl.exp(v - mx)
    tl.store(y + tl.program_id(0) * C + c, e / tl.sum(e, 0))


@triton.jit
def five_d(x, y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, D: tl.constexpr, E: tl.constexpr):
    i = tl.arange(0, A * B * C * D * E)
    v = tl.reshape(tl.load(x + i), (A, B, C, D, E))
    w = tl.permute(v, (4, 2, 0, 3, 1))
    s = tl.sum(w, axis=2)
    tl.store(y + tl.arange(0, E * C * D * B), tl.reshape(s, (E * C * D * B,)))
    tl.store(y + E * C * D * B + i, tl.reshape(w, (A * B * C * D * E,)))


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def scans(x, y, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    v = tl.load(x + r[:, None] * C + c[None, :])
    a = tl.cumsum(v, axis=1, reverse=True)
    b = tl.cumprod(v, axis=0)
    d = tl.associative_scan(v, 1, _mul, reverse=True)
    f = tl.flip(v, 1)
    tl.store(y + r[:, None] * C + c[None, :], a + b + d + f)


@triton.jit
def spin_lock(x, lock, count, y, C: tl.constexpr):
    c = tl.arange(0, C)
    v = tl.load(x + tl.program_id(0) * C + c)
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    n = tl.load(count)
    if n == 0:
        tl.atomic_xchg(count, 1)
        tl.store(y + c, v)
    else:
        tl.store(y + c, tl.load(y + c) + v)
    tl.atomic_xchg(lock, 0)


@triton.jit
def unrolled(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=3, loop_unroll_factor=2, disallow_acc_multi_buffer=True):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def moe_mm(a, w, c, tok, expert, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, TOPK: tl.constexpr):
    # fused-MoE style: rows of A gathered through sorted token ids, one expert's weights, scattered store
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ids = tl.load(tok + pm * BM + tl.arange(0, BM))
    e = tl.load(expert + pm)
    valid = ids >= 0
    rows = tl.where(valid, ids // TOPK, 0)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rows[:, None] * K + (k + rk)[None, :], mask=valid[:, None], other=0.0)
        y = tl.load(w + e * K * N + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(x, y, acc)
    tl.store(c + ids[:, None] * N + rn[None, :], acc.to(tl.float16), mask=valid[:, None])


@triton.jit
def search(sorted_keys, queries, out, n, B: tl.constexpr):
    q = tl.load(queries + tl.program_id(0) * B + tl.arange(0, B))
    lo = tl.zeros((B,), tl.int32)
    hi = tl.zeros((B,), tl.int32) + n
    while tl.max(hi - lo) > 0:
        mid = (lo + hi) // 2
        k = tl.load(sorted_keys + mid, mask=lo < hi, other=0)
        go = (k < q) & (lo < hi)
        lo = tl.where(go, mid + 1, lo)
        hi = tl.where(go | (lo >= hi), hi, mid)
    tl.store(out + tl.program_id(0) * B + tl.arange(0, B), lo)


@triton.jit
def branchy(x, y, flag, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    v = tl.load(x + r[:, None] * C + c[None, :])
    if tl.load(flag) > 0:
        w = tl.trans(tl.trans(v) * 2)
        s = tl.sum(w, 1)
    else:
        w = v + 1
        s = tl.max(w, 1)
    tl.store(y + r[:, None] * C + c[None, :], w + s[:, None])


@triton.jit
def splitk_atomic(a, b, c, K, SPLIT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(pid * BK, K, BK * SPLIT):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(x, y)
    tl.atomic_add(c + rm[:, None] * BN + rn[None, :], acc.to(c.dtype.element_ty), sem="relaxed")


@triton.jit
def tma_reduce(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl.make_tensor_descriptor(x, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(y, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    om = tl.program_id(0) * BM
    v = xd.load([om, 0])
    yd.atomic_add([om, 0], v)
    yd.atomic_max([om, 0], v)


@triton.jit
def attn_fwd(q, k, v, o, L, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr):
    # one query block against every key block (online softmax), causal mask optional
    pm = tl.program_id(0)
    rm = pm * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    qt = tl.load(q + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    hi = (pm + 1) * BM if CAUSAL else L
    for n0 in range(0, hi, BN):
        rn = n0 + tl.arange(0, BN)
        kt = tl.load(k + rn[:, None] * D + rd[None, :])
        s = tl.dot(qt, tl.trans(kt))
        if CAUSAL:
            s = tl.where(rm[:, None] >= rn[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        vt = tl.load(v + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), vt)
        m_i = m_new
    tl.store(o + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def layer_norm(x, y, w, b, N, R: tl.constexpr, C: tl.constexpr):
    rr = tl.program_id(0) * R + tl.arange(0, R)
    cc = tl.arange(0, C)
    m = cc[None, :] < N
    v = tl.load(x + rr[:, None] * N + cc[None, :], mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(v, 1) / N
    d = tl.where(m, v - mean[:, None], 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, 1) / N + 1e-5)
    ww = tl.load(w + cc, mask=cc < N)
    bb = tl.load(b + cc, mask=cc < N)
    tl.store(y + rr[:, None] * N + cc[None, :], (d * rstd[:, None] * ww[None, :] + bb[None, :]).to(tl.float16), mask=m)


def J(name, fn, sig, configs, targets, warps=(4,), stages=(None,), options=None, env=None):
    return dict(name=name, fn=fn, sig=sig, configs=configs, targets=targets, warps=warps, stages=stages,
                options=options or {}, env=env or {})


P16 = "*fp16"
P32 = "*fp32"
NV = ("cuda:80", "cuda:90", "cuda:100", "cuda:120")
AMD = ("hip:gfx942", "hip:gfx950", "hip:gfx1100", "hip:gfx1200")
ALL = NV + AMD
CASES = [
    J("cluster_mm", cluster_mm, {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128x128x64": dict(BM=128, BN=128, BK=64), "b64x128x32": dict(BM=64, BN=128, BK=32)},
      targets=("cuda:90", "cuda:100"), warps=(4, 8), options={"num_ctas": 2}),
    J("cluster_mm_amd", cluster_mm, {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128x128x64": dict(BM=128, BN=128, BK=64)}, targets=("hip:gfx1250",), warps=(4, 8), stages=(2, 3),
      options={"num_ctas": 2}),
    J("cluster_tma_mm", cluster_tma_mm, {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128x128x64": dict(BM=128, BN=128, BK=64)}, targets=("cuda:90", "cuda:100"), warps=(4, 8),
      options={"num_ctas": 2}),
    J("dropout", dropout, {"x": P32, "y": P32, "n": "i32", "seed": "i32"},
      {"b1024": dict(p=0.5, B=1024), "b128": dict(p=0.25, B=128)}, targets=ALL, warps=(4, 8)),
    J("mathlib", mathlib, {"x": P32, "y": P32}, {"r16c128": dict(R=16, C=128), "r64c32": dict(R=64, C=32)},
      targets=ALL, warps=(4, 2)),
    J("checked", checked, {"x": P32, "y": P32, "n": "i32"}, {"b512": dict(B=512)}, targets=ALL,
      options={"debug": True}),
    J("dot_f64", dot_types, {"a": "*fp64", "b": "*fp64", "c": "*fp64"},
      {"m32n32k16": dict(BM=32, BN=32, BK=16, PREC="ieee", OUT16=False)}, targets=NV + ("hip:gfx942",)),
    J("dot_i8", dot_types, {"a": "*i8", "b": "*i8", "c": "*i32"},
      {"m64n64k64": dict(BM=64, BN=64, BK=64, PREC="ieee", OUT16=False)}, targets=ALL, warps=(4, 8)),
    J("dot_out16", dot_types, {"a": P16, "b": P16, "c": P16},
      {"m64n64k32": dict(BM=64, BN=64, BK=32, PREC="ieee", OUT16=True)}, targets=ALL),
    J("dot_f32prec", dot_types, {"a": P32, "b": P32, "c": P32},
      {"ieee": dict(BM=64, BN=64, BK=32, PREC="ieee", OUT16=False),
       "tf32x3": dict(BM=64, BN=64, BK=32, PREC="tf32x3", OUT16=False),
       "tf32": dict(BM=64, BN=64, BK=32, PREC="tf32", OUT16=False)}, targets=("cuda:80", "cuda:90", "cuda:100")),
    J("tiny_tiles", tiny_tiles, {"x": P32, "y": P32}, {"t": {}}, targets=ALL, warps=(1, 4)),
    J("huge_row", huge_row, {"x": P32, "y": P32}, {"c32768": dict(C=32768), "c4096": dict(C=4096)},
      targets=("cuda:90", "hip:gfx942", "hip:gfx1100"), warps=(16, 32)),
    J("five_d", five_d, {"x": P32, "y": P32}, {"a2b4c8d2e4": dict(A=2, B=4, C=8, D=2, E=4)}, targets=ALL),
    J("scans", scans, {"x": P32, "y": P32}, {"r16c64": dict(R=16, C=64), "r128c8": dict(R=128, C=8)},
      targets=ALL),
    J("spin_lock", spin_lock, {"x": P32, "lock": "*i32", "count": "*i32", "y": P32}, {"c256": dict(C=256)},
      targets=ALL),
    J("unrolled", unrolled, {"a": P16, "b": P16, "c": P32, "K": "i32"},
      {"m64n64k32": dict(BM=64, BN=64, BK=32)}, targets=("cuda:80", "cuda:90", "cuda:100", "hip:gfx942",
                                                          "hip:gfx950")),
    J("moe_mm", moe_mm, {"a": P16, "w": P16, "c": P16, "tok": "*i32", "expert": "*i32", "K": "i32", "N": "i32"},
      {"m64n64k64": dict(BM=64, BN=64, BK=64, TOPK=2), "m16n128k64": dict(BM=16, BN=128, BK=64, TOPK=8)},
      targets=ALL, warps=(4, 8), stages=(2, 3)),
    J("search", search, {"sorted_keys": "*i32", "queries": "*i32", "out": "*i32", "n": "i32"},
      {"b256": dict(B=256)}, targets=ALL),
    J("branchy", branchy, {"x": P32, "y": P32, "flag": "*i32"}, {"r32c64": dict(R=32, C=64)}, targets=ALL),
    J("splitk_atomic", splitk_atomic, {"a": P16, "b": P16, "c": P16, "K": "i32"},
      {"s4m64n64k32": dict(SPLIT=4, BM=64, BN=64, BK=32)}, targets=ALL),
    J("splitk_atomic_bf16", splitk_atomic, {"a": "*bf16", "b": "*bf16", "c": "*bf16", "K": "i32"},
      {"s2m128n64k32": dict(SPLIT=2, BM=128, BN=64, BK=32)}, targets=("cuda:90", "cuda:100", "hip:gfx942",
                                                                      "hip:gfx950")),
    J("maxnreg_mm", unrolled, {"a": P16, "b": P16, "c": P32, "K": "i32"},
      {"m128n128k32": dict(BM=128, BN=128, BK=32)}, targets=("cuda:80", "cuda:90"), options={"maxnreg": 128}),
    J("attn_fwd", attn_fwd, {"q": P16, "k": P16, "v": P16, "o": P16, "L": "i32"},
      {"d64": dict(D=64, BM=64, BN=64, CAUSAL=False), "d128c": dict(D=128, BM=128, BN=64, CAUSAL=True)},
      targets=("cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950"), warps=(4, 8)),
    J("layer_norm", layer_norm, {"x": P16, "y": P16, "w": P32, "b": P32, "N": "i32"},
      {"r4c1024": dict(R=4, C=1024), "r16c256": dict(R=16, C=256)}, targets=ALL, warps=(4, 8)),
    J("tma_reduce", tma_reduce, {"x": P32, "y": P32, "M": "i32", "N": "i32"}, {"b64x64": dict(BM=64, BN=64)},
      targets=("cuda:90", "cuda:100")),
]

#: the same kernels in 2-CTA clusters (num_ctas = 2): sm_90, sm_100 and gfx1250 (its cluster_mm is a Triton bug the
#: cta_local rule finds: tests/data/ttgir_cta/triton_fails)
CLUSTER_TARGETS = ("cuda:90", "cuda:100", "hip:gfx1250")
CASES += [dict(c, name=c["name"] + "_cta2", targets=CLUSTER_TARGETS, warps=(4,), stages=(None,) if c["stages"] == (None,) else (3,),
               options={**c["options"], "num_ctas": 2})
          for c in CASES if c["name"] in ("dropout", "mathlib", "five_d", "scans", "moe_mm", "splitk_atomic", "branchy",
                                          "huge_row", "unrolled", "dot_i8", "dot_out16", "tiny_tiles", "search",
                                          "attn_fwd", "layer_norm")]

#: a few of them in 4-CTA clusters (sm_90 / sm_100 allow up to 8 portably)
CASES += [dict(c, name=c["name"].replace("_cta2", "_cta4"), options={**c["options"], "num_ctas": 4},
               targets=("cuda:90", "cuda:100"))
          for c in list(CASES) if c["name"] in ("dropout_cta2", "moe_mm_cta2", "splitk_atomic_cta2", "branchy_cta2",
                                                "huge_row_cta2", "attn_fwd_cta2", "layer_norm_cta2", "dot_out16_cta2")]
CASES += [dict(c, name="cluster_mm_cta4", options={**c["options"], "num_ctas": 4})
          for c in list(CASES) if c["name"] == "cluster_mm"]
