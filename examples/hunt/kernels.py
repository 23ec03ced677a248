"""Workload-style kernels written for the hunt (Triton 3.9): persistent, grouped, fp8 and mx matmuls, causal
attention, layer-norm backward, rms-norm, online softmax, int8 quantisation, top-k, gathers, paged decode, split-k,
shape ops, histogram + atomics, 3-D dots, scan/sort, TMA and TDM descriptors.  Compiled by compile.py."""
import triton
import triton.language as tl

NV = ("cuda:80", "cuda:89", "cuda:90", "cuda:100", "cuda:120")
AMD = ("hip:gfx942", "hip:gfx950")
ALL = NV + AMD


@triton.jit
def persistent_mm(a, b, c, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  NPROG: tl.constexpr, ST: tl.constexpr):
    tiles_n = tl.cdiv(N, BN)
    ntiles = tl.cdiv(M, BM) * tiles_n
    for t in tl.range(tl.program_id(0), ntiles, NPROG, flatten=False):
        tm = t // tiles_n
        tn = t % tiles_n
        rm = tm * BM + tl.arange(0, BM)
        rn = tn * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in tl.range(0, K, BK, num_stages=ST):
            rk = k0 + tl.arange(0, BK)
            x = tl.load(a + rm[:, None] * sam + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            y = tl.load(b + rk[:, None] * sbk + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c + rm[:, None] * scm + rn[None, :], acc.to(c.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def grouped_mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    width = GROUP * npn
    g = pid // width
    first = g * GROUP
    gs = tl.minimum(npm - first, GROUP)
    pm = first + (pid % width) % gs
    pn = (pid % width) // gs
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * K + rk[None, :]
    pb = b + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(x, y, out_dtype=tl.float32)
        pa += BK
        pb += BK * N
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def fp8_rowscale_mm(a, b, sa, sb, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] + rn[None, :] * K)
        acc = tl.dot(x, y, acc)
    s1 = tl.load(sa + rm)
    s2 = tl.load(sb + rn)
    acc = acc * s1[:, None] * s2[None, :]
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def mx_mm(a, b, sa, sb, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FMT: tl.constexpr):
    # block-scaled: a, b are e4m3 (or packed e2m1), one e8m0 scale per 32 elements of K
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    PK: tl.constexpr = BK // 2 if FMT == "e2m1" else BK
    rk = tl.arange(0, PK)
    rs = tl.arange(0, BK // 32)
    x = tl.load(a + rm[:, None] * PK + rk[None, :])
    y = tl.load(b + rk[:, None] * BN + rn[None, :])
    xs = tl.load(sa + rm[:, None] * (BK // 32) + rs[None, :])
    ys = tl.load(sb + rn[:, None] * (BK // 32) + rs[None, :])
    acc = tl.dot_scaled(x, xs, FMT, y, ys, FMT)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def causal_attn(q, k, v, o, L, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start = tl.program_id(0) * BM
    off = tl.program_id(1) * L * D
    rm = start + tl.arange(0, BM)
    rd = tl.arange(0, D)
    qt = tl.load(q + off + rm[:, None] * D + rd[None, :])
    m = tl.full((BM,), float("-inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for j in range(0, start + BM, BN):
        rn = j + tl.arange(0, BN)
        kt = tl.load(k + off + rn[None, :] * D + rd[:, None])
        s = tl.dot(qt, kt) * scale
        s = tl.where(rm[:, None] >= rn[None, :], s, float("-inf"))
        mn = tl.maximum(m, tl.max(s, 1))
        p = tl.exp2(s - mn[:, None])
        alpha = tl.exp2(m - mn)
        l = l * alpha + tl.sum(p, 1)
        vt = tl.load(v + off + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(vt.dtype), vt)
        m = mn
    tl.store(o + off + rm[:, None] * D + rd[None, :], (acc / l[:, None]).to(o.dtype.element_ty))


@triton.jit
def ln_bwd(x, dy, w, mean, rstd, dx, dw, db, lock, N, ROWS_PER: tl.constexpr, BN: tl.constexpr, GROUPS: tl.constexpr):
    row0 = tl.program_id(0) * ROWS_PER
    cols = tl.arange(0, BN)
    mk = cols < N
    g = tl.program_id(0) % GROUPS
    pdw = tl.zeros((BN,), tl.float32)
    pdb = tl.zeros((BN,), tl.float32)
    wt = tl.load(w + cols, mask=mk, other=0.0).to(tl.float32)
    for r in range(row0, row0 + ROWS_PER):
        xt = tl.load(x + r * N + cols, mask=mk, other=0.0).to(tl.float32)
        dyt = tl.load(dy + r * N + cols, mask=mk, other=0.0).to(tl.float32)
        mu = tl.load(mean + r)
        rs = tl.load(rstd + r)
        xh = tl.where(mk, (xt - mu) * rs, 0.0)
        wdy = wt * dyt
        c1 = tl.sum(xh * wdy, 0) / N
        c2 = tl.sum(wdy, 0) / N
        tl.store(dx + r * N + cols, ((wdy - (xh * c1 + c2)) * rs).to(dx.dtype.element_ty), mask=mk)
        pdw += dyt * xh
        pdb += dyt
    while tl.atomic_cas(lock + g, 0, 1) == 1:
        pass
    tl.store(dw + g * N + cols, tl.load(dw + g * N + cols, mask=mk) + pdw, mask=mk)
    tl.store(db + g * N + cols, tl.load(db + g * N + cols, mask=mk) + pdb, mask=mk)
    tl.atomic_xchg(lock + g, 0)


@triton.jit
def rmsnorm(x, w, y, N, eps, BN: tl.constexpr):
    r = tl.program_id(0)
    cols = tl.arange(0, BN)
    xt = tl.load(x + r * N + cols, mask=cols < N, other=0.0).to(tl.float32)
    ms = tl.sum(xt * xt, axis=0) / N
    yt = xt * tl.rsqrt(ms + eps) * tl.load(w + cols, mask=cols < N, other=0.0)
    tl.store(y + r * N + cols, yt.to(tl.bfloat16), mask=cols < N)


@triton.jit
def online_softmax(x, y, N, BN: tl.constexpr):
    r = tl.program_id(0)
    m = tl.full((BN,), float("-inf"), tl.float32)
    z = tl.zeros((BN,), tl.float32)
    for c in range(0, N, BN):
        cols = c + tl.arange(0, BN)
        t = tl.load(x + r * N + cols, mask=cols < N, other=float("-inf"))
        mn = tl.maximum(m, t)
        z = z * tl.exp(m - mn) + tl.exp(t - mn)
        m = mn
    gm = tl.max(m, 0)
    gz = tl.sum(z * tl.exp(m - gm), 0)
    for c in range(0, N, BN):
        cols = c + tl.arange(0, BN)
        t = tl.load(x + r * N + cols, mask=cols < N, other=float("-inf"))
        tl.store(y + r * N + cols, tl.exp(t - gm) / gz, mask=cols < N)


@triton.jit
def quant_i8(x, q, s, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    t = tl.load(x + rm[:, None] * BN + rn[None, :]).to(tl.float32)
    amax = tl.max(tl.abs(t), axis=1)
    sc = tl.maximum(amax, 1e-6) / 127.0
    qi = (t / sc[:, None] + 0.5).to(tl.int8)
    tl.store(q + rm[:, None] * BN + rn[None, :], qi)
    tl.store(s + rm, sc)


@triton.jit
def dequant_i8_mm(a, bq, bs, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    wq = tl.load(bq + rk[:, None] * BN + rn[None, :])
    ws = tl.load(bs + rn)
    wf = (wq.to(tl.float32) * ws[None, :]).to(tl.float16)
    tl.store(c + rm[:, None] * BN + rn[None, :], tl.dot(x, wf).to(tl.float16))


@triton.jit
def topk_rows(x, vals, BM: tl.constexpr, BN: tl.constexpr, K: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    t = tl.load(x + rm[:, None] * BN + rn[None, :])
    tk = tl.topk(t, K, dim=1)
    tl.store(vals + rm[:, None] * K + tl.arange(0, K)[None, :], tk)


@triton.jit
def embed_gather(ids, table, out, D: tl.constexpr, BT: tl.constexpr):
    rt = tl.program_id(0) * BT + tl.arange(0, BT)
    rd = tl.arange(0, D)
    idx = tl.load(ids + rt)
    rows = tl.load(table + idx[:, None].to(tl.int64) * D + rd[None, :])
    tl.store(out + rt[:, None] * D + rd[None, :], rows)


@triton.jit
def tl_gather_k(src, idx, out, M: tl.constexpr, N: tl.constexpr, AX: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    s = tl.load(src + rm[:, None] * N + rn[None, :])
    i = tl.load(idx + rm[:, None] * N + rn[None, :])
    tl.store(out + rm[:, None] * N + rn[None, :], tl.gather(s, i, axis=AX))


@triton.jit
def paged_decode(q, kc, vc, tables, lens, o, scale, D: tl.constexpr, PAGE: tl.constexpr, MAXP: tl.constexpr, H: tl.constexpr):
    seq = tl.program_id(0)
    rh = tl.arange(0, H)
    rd = tl.arange(0, D)
    qt = tl.load(q + seq * H * D + rh[:, None] * D + rd[None, :])
    n = tl.load(lens + seq)
    m = tl.full((H,), float("-inf"), tl.float32)
    l = tl.zeros((H,), tl.float32)
    acc = tl.zeros((H, D), tl.float32)
    for p in range(0, tl.cdiv(n, PAGE)):
        blk = tl.load(tables + seq * MAXP + p).to(tl.int64)
        rp = tl.arange(0, PAGE)
        kt = tl.load(kc + blk * PAGE * D + rp[None, :] * D + rd[:, None])
        s = tl.dot(qt, kt) * scale
        s = tl.where((p * PAGE + rp)[None, :] < n, s, float("-inf"))
        mn = tl.maximum(m, tl.max(s, 1))
        pr = tl.exp(s - mn[:, None])
        a = tl.exp(m - mn)
        l = l * a + tl.sum(pr, 1)
        vt = tl.load(vc + blk * PAGE * D + rp[:, None] * D + rd[None, :])
        acc = acc * a[:, None] + tl.dot(pr.to(tl.float16), vt)
        m = mn
    tl.store(o + seq * H * D + rh[:, None] * D + rd[None, :], acc / l[:, None])


@triton.jit
def splitk_mm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr, PREC: tl.constexpr):
    pm = tl.program_id(0)
    pk = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(pk * BK, K, BK * SPLIT):
        rk = k + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :])
        y = tl.load(b + rk[:, None] * N + rn[None, :])
        acc = tl.dot(x, y, acc, input_precision=PREC)
    tl.atomic_add(c + rm[:, None] * N + rn[None, :], acc, sem="relaxed")


@triton.jit
def shape_zoo(x, y, out, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    a = tl.load(x + rm[:, None] * N + rn[None, :])
    b = tl.load(y + rm[:, None] * N + rn[None, :])
    j = tl.join(a, b)                       # M x N x 2
    t = tl.trans(j, 2, 0, 1)                # 2 x M x N
    r = tl.reshape(t, (2 * M, N))
    u, v = tl.split(tl.reshape(tl.trans(r), (N, M, 2)))
    w = tl.cat(tl.reshape(u, (N * M,)), tl.reshape(v, (N * M,)), can_reorder=True)
    il = tl.interleave(a, b)                # M x 2N
    tl.store(out + tl.arange(0, 2 * M * N), tl.reshape(il, (2 * M * N,)))
    tl.store(out + 2 * M * N + tl.arange(0, 2 * M * N), w)


@triton.jit
def histo_atomics(x, h, cnt, N: tl.constexpr, B: tl.constexpr):
    r = tl.arange(0, N)
    v = tl.load(x + tl.program_id(0) * N + r)
    hh = tl.histogram(v, B)
    tl.atomic_add(h + tl.arange(0, B), hh)
    tl.atomic_max(cnt + (v % 4), v)
    tl.atomic_or(cnt + 4 + (r % 2), v)


@triton.jit
def batched3d(a, b, c, BB: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, BB)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    x = tl.load(a + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    y = tl.load(b + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    z = tl.dot(x, y)
    s = tl.sum(z, axis=0)
    tl.store(c + rm[:, None] * N + rn[None, :], s)
    tl.store(c + M * N + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], tl.permute(z, (0, 2, 1)).to(tl.float32).trans(0, 2, 1))


@triton.jit
def scan_sort(x, y, z, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    t = tl.load(x + rm[:, None] * N + rn[None, :])
    cs = tl.cumsum(t, axis=0)
    srt = tl.sort(t, dim=1, descending=True)
    fl = tl.flip(t, dim=0)
    am = tl.argmin(t, axis=0, keep_dims=True)
    tl.store(y + rm[:, None] * N + rn[None, :], cs + srt + fl + am)
    tl.store(z + rn, tl.max(t, axis=0))


@triton.jit
def tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ST: tl.constexpr):
    ad = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    cd = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tn = tl.cdiv(N, BN)
    for t in tl.range(tl.program_id(0), tl.cdiv(M, BM) * tn, tl.num_programs(0)):
        om = (t // tn) * BM
        on = (t % tn) * BN
        acc = tl.zeros((BM, BN), tl.float32)
        for k in tl.range(0, K, BK, num_stages=ST):
            acc = tl.dot(ad.load([om, k]), bd.load([on, k]).T, acc)
        cd.store([om, on], acc.to(tl.float16))


@triton.jit
def swiglu(x, y, N, BN: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BN)
    g = tl.load(x + r * 2 * N + c, mask=c < N)
    u = tl.load(x + r * 2 * N + N + c, mask=c < N)
    tl.store(y + r * N + c, (g * tl.sigmoid(g.to(tl.float32)) * u).to(tl.float16), mask=c < N)


def J(name, fn, sig, configs, targets=ALL, warps=(4,), stages=(None,), options=None):
    return dict(name=name, fn=fn, sig=sig, configs=configs, targets=targets, warps=warps, stages=stages,
                options=options or {})


P16 = "*fp16"
CASES = [
    J("persistent_mm", persistent_mm,
      {"a": P16, "b": P16, "c": P16, "M": "i32", "N": "i32", "K": "i32", "sam": "i32", "sbk": "i32", "scm": "i32"},
      {"b128x128x64": dict(BM=128, BN=128, BK=64, NPROG=132, ST=3), "b64x256x32": dict(BM=64, BN=256, BK=32, NPROG=132, ST=4)},
      warps=(4, 8), stages=(1, 3)),
    J("grouped_mm", grouped_mm, {"a": "*bf16", "b": "*bf16", "c": "*bf16", "M": "i32", "N": "i32", "K": "i32"},
      {"g8": dict(BM=64, BN=128, BK=32, GROUP=8)}, warps=(4, 8), stages=(2, 4)),
    J("fp8_rowscale_mm", fp8_rowscale_mm,
      {"a": "*fp8e4nv", "b": "*fp8e4nv", "sa": "*fp32", "sb": "*fp32", "c": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128": dict(BM=128, BN=128, BK=128)}, targets=("cuda:89", "cuda:90", "cuda:100", "cuda:120"), warps=(4, 8), stages=(3,)),
    J("fp8_rowscale_mm_amd", fp8_rowscale_mm,
      {"a": "*fp8e4b8", "b": "*fp8e4b8", "sa": "*fp32", "sb": "*fp32", "c": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128": dict(BM=128, BN=128, BK=64)}, targets=("hip:gfx942",), warps=(4, 8), stages=(2,)),
    J("mx_mm", mx_mm, {"a": "*u8", "b": "*u8", "sa": "*u8", "sb": "*u8", "c": "*fp32"},
      {"e2m1": dict(BM=128, BN=128, BK=128, FMT="e2m1"), "e4m3": dict(BM=128, BN=128, BK=128, FMT="e4m3")},
      targets=("cuda:100", "cuda:120", "hip:gfx950", "cuda:90"), warps=(4, 8)),
    J("causal_attn", causal_attn, {"q": "*bf16", "k": "*bf16", "v": "*bf16", "o": "*bf16", "L": "i32", "scale": "fp32"},
      {"d64": dict(D=64, BM=128, BN=64), "d128": dict(D=128, BM=64, BN=32)}, warps=(4, 8), stages=(1, 2)),
    J("ln_bwd", ln_bwd, {"x": P16, "dy": P16, "w": P16, "mean": "*fp32", "rstd": "*fp32", "dx": P16, "dw": "*fp32",
                         "db": "*fp32", "lock": "*i32", "N": "i32"},
      {"n1024": dict(ROWS_PER=4, BN=1024, GROUPS=16)}, warps=(2, 8, 16)),
    J("rmsnorm", rmsnorm, {"x": "*bf16", "w": "*bf16", "y": "*bf16", "N": "i32", "eps": "fp32"},
      {"n4096": dict(BN=4096), "n256": dict(BN=256)}, warps=(1, 4, 16)),
    J("online_softmax", online_softmax, {"x": "*fp32", "y": "*fp32", "N": "i32"}, {"c512": dict(BN=512)}, warps=(1, 2, 8)),
    J("quant_i8", quant_i8, {"x": "*bf16", "q": "*i8", "s": "*fp32"}, {"r16c512": dict(BM=16, BN=512)}, warps=(2, 4, 8)),
    J("dequant_i8_mm", dequant_i8_mm, {"a": P16, "bq": "*i8", "bs": "*fp32", "c": P16}, {"m64": dict(BM=64, BN=64, BK=64)},
      warps=(4,)),
    J("topk_rows", topk_rows, {"x": "*fp32", "vals": "*fp32"}, {"k8": dict(BM=16, BN=128, K=8)}, warps=(2, 4)),
    J("embed_gather", embed_gather, {"ids": "*i32", "table": P16, "out": P16}, {"d256": dict(D=256, BT=16)}, warps=(1, 4)),
    J("tl_gather_k", tl_gather_k, {"src": "*fp32", "idx": "*i32", "out": "*fp32"},
      {"ax0": dict(M=64, N=32, AX=0), "ax1": dict(M=32, N=64, AX=1)}, warps=(2, 4)),
    J("paged_decode", paged_decode, {"q": P16, "kc": P16, "vc": P16, "tables": "*i32", "lens": "*i32", "o": "*fp32",
                                     "scale": "fp32"},
      {"p16": dict(D=128, PAGE=16, MAXP=64, H=16)}, warps=(4,), stages=(1, 3)),
    J("splitk_mm", splitk_mm, {"a": "*fp32", "b": "*fp32", "c": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
      {"tf32": dict(BM=64, BN=64, BK=32, SPLIT=4, PREC="tf32"), "ieee": dict(BM=64, BN=64, BK=32, SPLIT=4, PREC="ieee"),
       "tf32x3": dict(BM=64, BN=64, BK=32, SPLIT=4, PREC="tf32x3")}, targets=NV + ("hip:gfx942",), warps=(4,), stages=(2,)),
    J("shape_zoo", shape_zoo, {"x": P16, "y": P16, "out": P16}, {"m16n32": dict(M=16, N=32), "m64n8": dict(M=64, N=8)},
      warps=(1, 4)),
    J("histo_atomics", histo_atomics, {"x": "*i32", "h": "*i32", "cnt": "*i32"}, {"n1024b64": dict(N=1024, B=64)}, warps=(2, 8)),
    J("batched3d", batched3d, {"a": P16, "b": P16, "c": "*fp32"}, {"b4": dict(BB=4, M=32, N=32, K=32)}, warps=(4, 8)),
    J("scan_sort", scan_sort, {"x": "*i32", "y": "*i32", "z": "*i32"}, {"m32n64": dict(M=32, N=64)}, warps=(2, 4)),
    J("tma_persistent", tma_persistent, {"a_ptr": P16, "b_ptr": P16, "c_ptr": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128": dict(BM=128, BN=128, BK=64, ST=3)}, targets=("cuda:90", "cuda:100", "cuda:120"), warps=(4, 8)),
    J("swiglu", swiglu, {"x": P16, "y": P16, "N": "i32"}, {"n2048": dict(BN=2048)}, warps=(1, 2, 16)),
]


@triton.jit
def mx_mixed(a, b, sa, sb, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # lhs e4m3 (one byte per element), rhs e2m1 (two per byte, packed along K)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rk2 = tl.arange(0, BK // 2)
    rs = tl.arange(0, BK // 32)
    x = tl.load(a + rm[:, None] * BK + rk[None, :])
    y = tl.load(b + rk2[:, None] * BN + rn[None, :])
    xs = tl.load(sa + rm[:, None] * (BK // 32) + rs[None, :])
    ys = tl.load(sb + rn[:, None] * (BK // 32) + rs[None, :])
    acc = tl.dot_scaled(x, xs, "e4m3", y, ys, "e2m1")
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def mx_mixed_tma(a_ptr, b_ptr, sa, sb, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    ad = tl.make_tensor_descriptor(a_ptr, shape=[BM, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b_ptr, shape=[BN, K // 2], strides=[K // 2, 1], block_shape=[BN, BK // 2])
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = ad.load([0, k])
        y = bd.load([0, k // 2])
        xs = tl.load(sa + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        ys = tl.load(sb + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(x, xs, "e4m3", y.T, ys, "e2m1", acc)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)


CASES += [
    J("mx_mixed", mx_mixed, {"a": "*u8", "b": "*u8", "sa": "*u8", "sb": "*u8", "c": "*fp32"},
      {"b128": dict(BM=128, BN=128, BK=128)}, targets=("cuda:100", "hip:gfx950"), warps=(4,)),
    J("mx_mixed_tma", mx_mixed_tma, {"a_ptr": "*u8", "b_ptr": "*u8", "sa": "*u8", "sb": "*u8", "c": "*fp32", "K": "i32"},
      {"b128": dict(BM=128, BN=128, BK=128)}, targets=("cuda:100",), warps=(4,), stages=(2,)),
]

CASES += [
    J("tdm_mm", tma_persistent, {"a_ptr": P16, "b_ptr": P16, "c_ptr": P16, "M": "i32", "N": "i32", "K": "i32"},
      {"b128": dict(BM=128, BN=128, BK=64, ST=2)}, targets=("hip:gfx1250",), warps=(4,)),
]
