"""hunt13 kernels: written for the hunt of session 13 in styles examples/hunt/kernels.py lacks (Blackwell
warp-specialized and persistent flattened loops, device and host TMA descriptors, fp8 TMA on sm_90/100/120,
block-scaled dots on sm_100/120 and gfx950, AMD pipelined matmuls at 2-4 stages with and without buffer ops,
gfx1250, RDNA, 1- and 16-warp kernels, int4 packing, cat + gather, masked histogram and atomics, odd 3-D and
1-D tiles, a hand-written bitonic sort, sort/topk on 3-D tiles, tuple scans, custom reductions, inline asm).

CASES has the same fields as examples/hunt/kernels.py plus "env" (extra environment of the compile, e.g.
AMDGCN_USE_BUFFER_OPS=1); examples/hunt/compile.py compiles such a list one child per job.
"""
import triton
import triton.language as tl


@triton.jit
def ws_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ST: tl.constexpr):
    # Blackwell warp-specialized K loop, device-side TMA descriptors
    ad = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    cd = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=ST, warp_specialize=True):
        x = ad.load([om, k * BK])
        y = bd.load([on, k * BK])
        acc = tl.dot(x, y.T, acc)
    cd.store([om, on], acc.to(cd.dtype))


@triton.jit
def ws_persistent_host(ad, bd, cd, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NSM: tl.constexpr,
                       WS: tl.constexpr):
    # persistent, flattened loop nest, host-side descriptors; epilogue split in two halves
    tm = tl.cdiv(M, BM)
    tn = tl.cdiv(N, BN)
    kt = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), tm * tn, NSM, flatten=True, warp_specialize=WS):
        pm = tile // tn
        pn = tile % tn
        acc = tl.zeros((BM, BN), tl.float32)
        for ki in range(kt):
            acc = tl.dot(ad.load([pm * BM, ki * BK]), bd.load([ki * BK, pn * BN]), acc)
        a3 = tl.reshape(acc, (BM, 2, BN // 2))
        a3 = tl.permute(a3, (0, 2, 1))
        lo, hi = tl.split(a3)
        cd.store([pm * BM, pn * BN], lo.to(tl.float16))
        cd.store([pm * BM, pn * BN + BN // 2], hi.to(tl.float16))


@triton.jit
def fp8_tma_mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ST: tl.constexpr):
    ad = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=ST):
        acc = tl.dot(ad.load([om, k]), bd.load([k, on]), acc)
    rm = om + tl.arange(0, BM)
    rn = on + tl.arange(0, BN)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def mxfp_kloop(a, b, sa, sb, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, AF: tl.constexpr,
               BF: tl.constexpr, ST: tl.constexpr):
    # block-scaled K loop; bf16/e5m2 lhs, e2m1 (packed along K) rhs
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    AK: tl.constexpr = BK // 2 if AF == "e2m1" else BK
    BKP: tl.constexpr = BK // 2 if BF == "e2m1" else BK
    rka = tl.arange(0, AK)
    rkb = tl.arange(0, BKP)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K // BK, num_stages=ST):
        x = tl.load(a + rm[:, None] * (K // BK * AK) + (k * AK + rka)[None, :])
        y = tl.load(b + (k * BKP + rkb)[:, None] * BN + rn[None, :])
        ys = tl.load(sb + rn[:, None] * (K // 32) + (k * (BK // 32) + rs)[None, :])
        if AF == "bf16":
            acc = tl.dot_scaled(x, None, AF, y, ys, BF, acc)
        else:
            xs = tl.load(sa + rm[:, None] * (K // 32) + (k * (BK // 32) + rs)[None, :])
            acc = tl.dot_scaled(x, xs, AF, y, ys, BF, acc)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def amd_pipe_mm(a, b, c, M, N, K, sa, sb, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, TB: tl.constexpr):
    # AMD-style pipelined matmul: B optionally transposed in memory, masked K tail
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    rm = (pid // npn) * BM + tl.arange(0, BM)
    rn = (pid % npn) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        x = tl.load(a + rm[:, None] * sa + kk[None, :], mask=kk[None, :] < K, other=0.0)
        if TB:
            y = tl.load(b + rn[None, :] * sb + kk[:, None], mask=kk[:, None] < K, other=0.0)
        else:
            y = tl.load(b + kk[:, None] * sb + rn[None, :], mask=kk[:, None] < K, other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def tiny_dot(a, b, c, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # single small tile, often compiled with 1 or 16 warps
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    x = tl.load(a + rm[:, None] * K + rk[None, :])
    y = tl.load(b + rk[:, None] * N + rn[None, :])
    z = tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], z)
    tl.store(c + M * N + rn, tl.sum(z, axis=0))


@triton.jit
def w4a16(a, bq, scales, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
    # int4 weights, two per byte along K; unpack by join + reshape + trans
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rk2 = tl.arange(0, BK // 2)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    packed = tl.load(bq + rk2[:, None] * BN + rn[None, :])
    lo = (packed & 0xF).to(tl.int8) - 8
    hi = ((packed >> 4) & 0xF).to(tl.int8) - 8
    w = tl.join(lo, hi)                        # BK/2 x BN x 2
    w = tl.permute(w, (0, 2, 1))               # BK/2 x 2 x BN
    w = tl.reshape(w, (BK, BN))
    s = tl.load(scales + (rk // G)[:, None] * BN + rn[None, :])
    wf = (w.to(tl.float16) * s)
    tl.store(c + rm[:, None] * BN + rn[None, :], tl.dot(x, wf).to(tl.float16))


@triton.jit
def int4_pack(x, q, BM: tl.constexpr, BN: tl.constexpr):
    # quantize to int4 and pack pairs along N: reshape + split
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    t = tl.load(x + rm[:, None] * BN + rn[None, :])
    qi = (tl.clamp(t, -8.0, 7.0) + 8.0).to(tl.uint8)
    lo, hi = tl.split(tl.reshape(qi, (BM, BN // 2, 2)))
    p = lo | (hi << 4)
    tl.store(q + rm[:, None] * (BN // 2) + tl.arange(0, BN // 2)[None, :], p)


@triton.jit
def cat_gather(x, idx, y, out, N: tl.constexpr, M: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(x + r)
    b = tl.load(y + r)
    ab = tl.cat(a, b, can_reorder=True)           # 2N
    r2 = tl.arange(0, 2 * N)
    i = tl.load(idx + r2)
    g = tl.gather(ab, i, 0)
    tl.store(out + r2, g)
    rm = tl.arange(0, M)
    t = tl.load(x + rm[:, None] * N + r[None, :])
    ii = tl.load(idx + rm[:, None] * 4 + tl.arange(0, 4)[None, :]) % N
    tl.store(out + 2 * N + rm[:, None] * 4 + tl.arange(0, 4)[None, :], tl.gather(t, ii, 1))


@triton.jit
def masked_hist_atomics(x, h, o, n, N: tl.constexpr, B: tl.constexpr):
    r = tl.program_id(0) * N + tl.arange(0, N)
    m = r < n
    v = tl.load(x + r, mask=m, other=0)
    hh = tl.histogram(v % B, B, mask=m)
    tl.atomic_add(h + tl.arange(0, B), hh, mask=hh > 0)
    old = tl.atomic_cas(o + (r % 8), tl.zeros_like(v), v)
    tl.atomic_min(o + 8 + (v % 16), old, mask=m & (v > 3), sem="acq_rel", scope="gpu")
    t2 = tl.reshape(v, (N // 32, 32))
    tl.atomic_add(o + 32 + tl.arange(0, 32), tl.sum(t2, 0), mask=tl.arange(0, 32) < 20, sem="release")


@triton.jit
def odd_tiles(x, y, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, L: tl.constexpr):
    ra = tl.arange(0, A)
    rb = tl.arange(0, B)
    rc = tl.arange(0, C)
    t = tl.load(x + ra[:, None, None] * B * C + rb[None, :, None] * C + rc[None, None, :])
    s0 = tl.sum(t, axis=2)                 # A x B
    s1 = tl.max(t, axis=0)                 # B x C
    tt = tl.permute(t, (2, 0, 1))          # C x A x B
    tl.store(y + rc[:, None, None] * A * B + ra[None, :, None] * B + rb[None, None, :], tt)
    tl.store(y + A * B * C + ra[:, None] * B + rb[None, :], s0)
    tl.store(y + 2 * A * B * C + rb[:, None] * C + rc[None, :], s1)
    rl = tl.arange(0, L)
    v = tl.load(x + rl)
    tl.store(y + 3 * A * B * C + rl, tl.cumsum(v, 0) + tl.sum(v, 0))


@triton.jit
def bitonic_manual(x, y, N: tl.constexpr, LOGN: tl.constexpr):
    # bitonic sort of one row written by hand with reshapes (no tl.sort)
    r = tl.arange(0, N)
    v = tl.load(x + r)
    for stage in tl.static_range(1, LOGN + 1):
        for sub in tl.static_range(stage - 1, -1, -1):
            v3 = tl.reshape(v, (N // (2 << sub), 2, 1 << sub))
            lo, hi = tl.split(tl.permute(v3, (0, 2, 1)))
            idx = tl.arange(0, N // (2 << sub))[:, None] * (2 << sub) + tl.arange(0, 1 << sub)[None, :]
            up = ((idx >> stage) & 1) == 0
            mn = tl.minimum(lo, hi)
            mx = tl.maximum(lo, hi)
            a = tl.where(up, mn, mx)
            b = tl.where(up, mx, mn)
            v = tl.reshape(tl.permute(tl.join(a, b), (0, 2, 1)), (N,))
    tl.store(y + r, v)


@triton.jit
def topk_3d(x, y, vals, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    t = tl.load(x + rm[:, None] * N + rn[None, :])
    s = tl.sort(tl.reshape(t, (M, 2, N // 2)), dim=2)
    tl.store(y + rm[:, None, None] * N + tl.arange(0, 2)[None, :, None] * (N // 2) + tl.arange(0, N // 2)[None, None, :], s)
    tk = tl.topk(t, K, dim=1)
    tl.store(vals + rm[:, None] * K + tl.arange(0, K)[None, :], tk)


@triton.jit
def _lin_rec(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _seg_add(v1, f1, v2, f2):
    return tl.where(f2 != 0, v2, v1 + v2), f1 | f2


@triton.jit
def scans_tuple(a, b, f, y, M: tl.constexpr, N: tl.constexpr, REV: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    o = rm[:, None] * N + rn[None, :]
    at = tl.load(a + o)
    bt = tl.load(b + o)
    ft = tl.load(f + o)
    _, h = tl.associative_scan((at, bt), axis=1, combine_fn=_lin_rec, reverse=REV)
    s, _ = tl.associative_scan((bt, ft), axis=0, combine_fn=_seg_add)
    tl.store(y + o, h + s)


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    take = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@triton.jit
def _logsumexp_combine(m1, s1, m2, s2):
    m = tl.maximum(m1, m2)
    return m, s1 * tl.exp(m1 - m) + s2 * tl.exp(m2 - m)


@triton.jit
def custom_reduce(x, vo, io, lo, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    t = tl.load(x + rm[:, None] * N + rn[None, :])
    ii = tl.broadcast_to(rn[None, :], (M, N))
    v, i = tl.reduce((t, ii), 1, _argmax_combine)
    tl.store(vo + rm, v)
    tl.store(io + rm, i)
    mm, ss = tl.reduce((t, tl.full((M, N), 1.0, tl.float32)), 0, _logsumexp_combine, keep_dims=True)
    tl.store(lo + rn[None, :], mm + tl.log(ss))


@triton.jit
def inline_asm_k(x, y, N: tl.constexpr):
    r = tl.arange(0, N)
    v = tl.load(x + r)
    w = tl.inline_asm_elementwise(
        asm="""{
        .reg .b32 t;
        prmt.b32 $0, $1, 0, 0x0123;
        }""", constraints="=r,r", args=[v], dtype=tl.int32, is_pure=True, pack=1)
    b = tl.load(x + N + r).to(tl.uint8)
    h = tl.inline_asm_elementwise("shl.b32 $0, $1, 1;", "=r,r", [b], dtype=tl.uint8, is_pure=True, pack=4)
    tl.store(y + r, w + h.to(tl.int32))


@triton.jit
def dot_chain_bwd(q, k, do, dq, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # attention-backward style: dS = dO V^T style chain, transposed operands, two dots
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    qt = tl.load(q + rm[:, None] * D + rd[None, :])
    kt = tl.load(k + rn[:, None] * D + rd[None, :])
    dot_ = tl.load(do + rm[:, None] * D + rd[None, :])
    s = tl.dot(qt, tl.trans(kt))
    p = tl.exp2(s - tl.max(s, 1)[:, None])
    dp = tl.dot(dot_, tl.trans(kt))
    ds = p * (dp - tl.sum(p * dp, 1)[:, None])
    dqt = tl.dot(ds.to(tl.float16), kt)
    dkt = tl.dot(tl.trans(ds.to(tl.float16)), qt)
    tl.store(dq + rm[:, None] * D + rd[None, :], dqt)
    tl.store(dq + BM * D + rn[:, None] * D + rd[None, :], dkt)


def J(name, fn, sig, configs, targets, warps=(4,), stages=(None,), options=None, env=None):
    return dict(name=name, fn=fn, sig=sig, configs=configs, targets=targets, warps=warps, stages=stages,
                options=options or {}, env=env or {})


P16 = "*fp16"
NV = ("cuda:80", "cuda:90", "cuda:100", "cuda:120")
AMD = ("hip:gfx942", "hip:gfx950")
CASES = [
    J("ws_matmul", ws_matmul, {"a_ptr": P16, "b_ptr": P16, "c_ptr": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128x128x64": dict(BM=128, BN=128, BK=64, ST=3), "b128x256x64": dict(BM=128, BN=256, BK=64, ST=2),
       "b64x64x64": dict(BM=64, BN=64, BK=64, ST=4)}, targets=("cuda:100",), warps=(4, 8)),
    J("ws_persistent_host", ws_persistent_host,
      {"ad": "tensordesc<fp16[128, 64]>", "bd": "tensordesc<fp16[64, 128]>", "cd": "tensordesc<fp16[128, 64]>",
       "M": "i32", "N": "i32", "K": "i32"},
      {"ws": dict(BM=128, BN=128, BK=64, NSM=148, WS=True), "nows": dict(BM=128, BN=128, BK=64, NSM=132, WS=False)},
      targets=("cuda:90", "cuda:100"), warps=(4, 8), stages=(3,)),
    J("fp8_tma_mm", fp8_tma_mm, {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*bf16", "M": "i32", "N": "i32",
                                 "K": "i32"},
      {"b128x128x128": dict(BM=128, BN=128, BK=128, ST=3), "b64x256x64": dict(BM=64, BN=256, BK=64, ST=4)},
      targets=("cuda:90", "cuda:100", "cuda:120"), warps=(4, 8)),
    J("mxfp_kloop", mxfp_kloop, {"a": "*u8", "b": "*u8", "sa": "*u8", "sb": "*u8", "c": "*bf16", "K": "i32"},
      {"e5m2_e2m1": dict(BM=128, BN=128, BK=128, AF="e5m2", BF="e2m1", ST=2),
       "e2m1_e2m1": dict(BM=128, BN=64, BK=256, AF="e2m1", BF="e2m1", ST=3),
       },
      targets=("cuda:100", "cuda:120", "hip:gfx950"), warps=(4, 8)),
    J("mxfp_kloop_bf16", mxfp_kloop, {"a": "*bf16", "b": "*u8", "sa": "*u8", "sb": "*u8", "c": "*bf16", "K": "i32"},
      {"bf16_e2m1": dict(BM=64, BN=128, BK=64, AF="bf16", BF="e2m1", ST=2)},
      targets=("cuda:100", "cuda:120", "hip:gfx950"), warps=(4, 8)),
    J("amd_pipe_mm", amd_pipe_mm, {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32", "sa": "i32", "sb": "i32"},
      {"nn256": dict(BM=256, BN=256, BK=32, TB=False), "nt128": dict(BM=128, BN=128, BK=64, TB=True),
       "nn64x32": dict(BM=64, BN=32, BK=128, TB=False)},
      targets=("hip:gfx942", "hip:gfx950"), warps=(4, 8), stages=(2, 3, 4)),
    J("amd_pipe_mm_buf", amd_pipe_mm, {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32", "sa": "i32", "sb": "i32"},
      {"nt128": dict(BM=128, BN=128, BK=64, TB=True), "nn256": dict(BM=256, BN=256, BK=32, TB=False)},
      targets=("hip:gfx950", "hip:gfx942"), warps=(4, 8), stages=(2, 3), env={"AMDGCN_USE_BUFFER_OPS": "1"}),
    J("amd_pipe_mm_1250", amd_pipe_mm, {"a": "*bf16", "b": "*bf16", "c": "*bf16", "M": "i32", "N": "i32", "K": "i32", "sa": "i32", "sb": "i32"},
      {"nt128": dict(BM=128, BN=128, BK=64, TB=True), "nn64x32": dict(BM=64, BN=32, BK=128, TB=False)},
      targets=("hip:gfx1250",), warps=(4, 8), stages=(2, 3)),
    J("tiny_dot", tiny_dot, {"a": P16, "b": P16, "c": "*fp32"},
      {"m16n16k16": dict(M=16, N=16, K=16), "m32n64k16": dict(M=32, N=64, K=16), "m128n16k32": dict(M=128, N=16, K=32)},
      targets=NV + AMD + ("hip:gfx1250",), warps=(1, 16)),
    J("w4a16", w4a16, {"a": P16, "bq": "*u8", "scales": P16, "c": P16}, {"m16": dict(BM=16, BN=64, BK=128, G=32),
                                                                            "m64": dict(BM=64, BN=128, BK=64, G=64)},
      targets=("cuda:80", "cuda:90", "cuda:100", "hip:gfx942"), warps=(4,)),
    J("int4_pack", int4_pack, {"x": "*fp32", "q": "*u8"}, {"m32n64": dict(BM=32, BN=64), "m1n1024": dict(BM=1, BN=1024)},
      targets=("cuda:90", "hip:gfx942"), warps=(1, 4)),
    J("cat_gather", cat_gather, {"x": "*fp32", "idx": "*i32", "y": "*fp32", "out": "*fp32"},
      {"n256": dict(N=256, M=8), "n32": dict(N=32, M=64)}, targets=("cuda:90", "hip:gfx950"), warps=(1, 4)),
    J("masked_hist_atomics", masked_hist_atomics, {"x": "*i32", "h": "*i32", "o": "*i32", "n": "i32"},
      {"n512b32": dict(N=512, B=32), "n64b128": dict(N=64, B=128)}, targets=("cuda:90", "hip:gfx942"), warps=(1, 4, 16)),
    J("odd_tiles", odd_tiles, {"x": "*fp32", "y": "*fp32"},
      {"2x256x4": dict(A=2, B=256, C=4, L=8192), "64x1x8": dict(A=64, B=1, C=8, L=32), "1x8x512": dict(A=1, B=8, C=512, L=2)},
      targets=("cuda:90", "hip:gfx942"), warps=(1, 4, 16)),
    J("bitonic_manual", bitonic_manual, {"x": "*fp32", "y": "*fp32"}, {"n64": dict(N=64, LOGN=6), "n256": dict(N=256, LOGN=8)},
      targets=("cuda:90", "hip:gfx942"), warps=(1, 4)),
    J("topk_3d", topk_3d, {"x": "*fp16", "y": "*fp16", "vals": "*fp16"}, {"m8n64k4": dict(M=8, N=64, K=4),
                                                                      "m2n512k16": dict(M=2, N=512, K=16)},
      targets=("cuda:90", "hip:gfx950"), warps=(1, 4)),
    J("scans_tuple", scans_tuple, {"a": "*fp32", "b": "*fp32", "f": "*i32", "y": "*fp32"},
      {"m16n128": dict(M=16, N=128, REV=False), "m128n8r": dict(M=128, N=8, REV=True)},
      targets=("cuda:90", "hip:gfx942"), warps=(1, 4, 16)),
    J("custom_reduce", custom_reduce, {"x": "*fp32", "vo": "*fp32", "io": "*i32", "lo": "*fp32"},
      {"m32n256": dict(M=32, N=256), "m256n4": dict(M=256, N=4)}, targets=("cuda:90", "hip:gfx950"), warps=(1, 4, 16)),
    J("inline_asm_k", inline_asm_k, {"x": "*i32", "y": "*i32"}, {"n1024": dict(N=1024), "n64": dict(N=64)},
      targets=("cuda:90", "cuda:100"), warps=(1, 4)),
    J("dot_chain_bwd", dot_chain_bwd, {"q": P16, "k": P16, "do": P16, "dq": "*fp32"},
      {"d64": dict(D=64, BM=64, BN=64), "d128m128n32": dict(D=128, BM=128, BN=32)},
      targets=("cuda:80", "cuda:90", "cuda:100", "cuda:120", "hip:gfx942", "hip:gfx950", "hip:gfx1250"), warps=(4, 8)),
]
