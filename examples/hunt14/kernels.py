"""hunt14 kernels: Gluon (``triton.experimental.gluon``) kernels whose layouts are written by hand, to hunt false
verdicts of ``llverify ttgir`` on the layouts and ops Gluon users write and Triton-language kernels never produce:
DistributedLinearLayout with broadcast (zero) bases, non-default warp orders, CTA splits (num_ctas 2), 1-D and 3-D
tensors, tiles smaller than the layout's tile, MMA v2/v3 / MFMA / WMMA accumulators and dot operands, swizzled,
NVMMA, padded (several intervals) and linear shared layouts, multi-buffered shared views (index / slice / permute /
reshape), TMEM allocations, loads, stores and slices, tcgen05 / wgmma / mma.sync / mfma / wmma, TMA copies with
mbarriers, cp.async and AMD async copies, warp_specialize with several partitions, reductions, scans, histograms,
gathers; i1 / i8 / fp8 / f64 elements.

CASES has the fields of examples/hunt13/kernels.py plus ``gluon`` (compile with GluonASTSource); a Gluon layout is
written for one warp count and warp size, so every case here names exactly the warps its layouts were written for.
"""
import triton.experimental.gluon.language as gl
from triton.experimental import gluon
from triton.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout
from triton.experimental.gluon.language.amd import cdna3, cdna4
from triton.experimental.gluon.language.nvidia import ampere, hopper, blackwell
from triton.experimental.gluon.language.nvidia.ampere import async_copy as cp
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma
from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, allocate_tensor_memory

# ----------------------------------------------------------------------------------------------- kernels

@gluon.jit
def cvt2d(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    w = gl.convert_layout(v, DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)


@gluon.jit
def cvt2d_i1(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :]) > 0
    w = gl.convert_layout(v, DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w.to(gl.int8))


@gluon.jit
def cvt1d(x, y, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    r = gl.arange(0, N, layout=SRC)
    v = gl.load(x + r)
    w = gl.convert_layout(v, DST)
    gl.store(y + gl.arange(0, N, layout=DST), w)


@gluon.jit
def cvt3d(x, y, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    ra = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, SRC)))
    rb = gl.arange(0, B, layout=gl.SliceLayout(0, gl.SliceLayout(2, SRC)))
    rc = gl.arange(0, C, layout=gl.SliceLayout(0, gl.SliceLayout(1, SRC)))
    off = ra[:, None, None] * (B * C) + rb[None, :, None] * C + rc[None, None, :]
    v = gl.load(x + off)
    w = gl.convert_layout(v, DST)
    oa = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, DST)))
    ob = gl.arange(0, B, layout=gl.SliceLayout(0, gl.SliceLayout(2, DST)))
    oc = gl.arange(0, C, layout=gl.SliceLayout(0, gl.SliceLayout(1, DST)))
    gl.store(y + oa[:, None, None] * (B * C) + ob[None, :, None] * C + oc[None, None, :], w)


@gluon.jit
def shape_ops(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, L: gl.constexpr):
    # reshape / permute / split / join / expand_dims / broadcast on a user layout
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    t = gl.permute(v, (1, 0))
    r = gl.permute(gl.reshape(t, (N, M // 2, 2)), (0, 2, 1))
    z = gl.reshape(r, (N, M))
    a, b = gl.split(gl.join(z, z * 2.0))
    s = gl.sum(a, axis=1)
    e = gl.expand_dims(s, 1)
    out = b + e
    o = gl.convert_layout(out, L)
    om = gl.arange(0, N, layout=gl.SliceLayout(1, L))
    on = gl.arange(0, M, layout=gl.SliceLayout(0, L))
    gl.store(y + om[:, None] * M + on[None, :], o)


@gluon.jit
def smem_rt(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [M, N], SMEM)
    buf.store(v)
    w = buf.load(DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)


@gluon.jit
def smem_views(x, y, NB: gl.constexpr, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr,
               SMEM: gl.constexpr, DT: gl.constexpr):
    # multi-buffered allocation; each buffer stored through index(i), read back through slice / permute views
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [NB, M, N], SMEM)
    for i in gl.static_range(NB):
        buf.index(i).store(gl.load(x + i * M * N + rm[:, None] * N + rn[None, :]))
    last = buf.index(NB - 1)
    half = last.slice(M // 2, M // 2, dim=0)
    w = half.load(DST)
    om = gl.arange(0, M // 2, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], w)
    tr = buf.index(0).permute((1, 0))
    wt = tr.load(DT)
    tn = gl.arange(0, N, layout=gl.SliceLayout(1, DT))
    tm = gl.arange(0, M, layout=gl.SliceLayout(0, DT))
    gl.store(y + M * N + tn[:, None] * M + tm[None, :], wt)
    col = buf.index(1).slice(N // 2, N // 2, dim=1)
    wc = col.load(DST)
    cn = gl.arange(0, N // 2, layout=gl.SliceLayout(0, DST))
    cm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    gl.store(y + 2 * M * N + cm[:, None] * (N // 2) + cn[None, :], wc)


@gluon.jit
def smem_reshape(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr,
                 SMEM3: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [M, N], SMEM)
    buf.store(gl.load(x + rm[:, None] * N + rn[None, :]))
    r = buf.reshape((M // 2, 2, N))
    w = r.load(DST)
    oa = gl.arange(0, M // 2, layout=gl.SliceLayout(1, gl.SliceLayout(2, DST)))
    ob = gl.arange(0, 2, layout=gl.SliceLayout(0, gl.SliceLayout(2, DST)))
    oc = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, DST)))
    gl.store(y + oa[:, None, None] * (2 * N) + ob[None, :, None] * N + oc[None, None, :], w)


@gluon.jit
def reduce_scan(x, y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    s0 = gl.sum(v, axis=0)
    s1 = gl.max(v, axis=1)
    c = gl.cumsum(v, axis=1)
    c0 = gl.cumsum(v, axis=0, reverse=True)
    gl.store(y + rn, s0)
    gl.store(y + N + rm, s1)
    gl.store(y + 2 * M * N + rm[:, None] * N + rn[None, :], c + c0)


@gluon.jit
def hist(x, y, N: gl.constexpr, B: gl.constexpr, L: gl.constexpr, HL: gl.constexpr):
    v = gl.load(x + gl.arange(0, N, layout=L))
    h = gl.histogram(v, B, layout=HL)
    gl.store(y + gl.arange(0, B, layout=HL), h)


@gluon.jit
def gather2d(x, idx, y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, IL: gl.constexpr, AXIS: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    im = gl.arange(0, M, layout=gl.SliceLayout(1, IL))
    inn = gl.arange(0, N, layout=gl.SliceLayout(0, IL))
    i = gl.load(idx + im[:, None] * N + inn[None, :])
    g = gl.gather(v, i, AXIS)
    gl.store(y + im[:, None] * N + inn[None, :], g)


@gluon.jit
def mma2(a, b, c, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, MMA: gl.constexpr, KW: gl.constexpr,
         SA: gl.constexpr, SB: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, L))
    rkk = gl.arange(0, K, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    sa = gl.allocate_shared_memory(a.dtype.element_ty, [M, K], SA, gl.load(a + rm[:, None] * K + rk[None, :]))
    sb = gl.allocate_shared_memory(b.dtype.element_ty, [K, N], SB, gl.load(b + rkk[:, None] * N + rn[None, :]))
    av = sa.load(gl.DotOperandLayout(0, MMA, KW))
    bv = sb.load(gl.DotOperandLayout(1, MMA, KW))
    acc = ampere.mma_v2(av, bv, gl.zeros([M, N], c.dtype.element_ty, MMA))
    om = gl.arange(0, M, layout=gl.SliceLayout(1, MMA))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, MMA))
    gl.store(c + om[:, None] * N + on[None, :], acc)


@gluon.jit
def wgmma(a, b, c, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, MMA: gl.constexpr, SA: gl.constexpr,
          SB: gl.constexpr, AREG: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, L))
    rkk = gl.arange(0, K, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    sa = gl.allocate_shared_memory(a.dtype.element_ty, [M, K], SA, gl.load(a + rm[:, None] * K + rk[None, :]))
    sb = gl.allocate_shared_memory(b.dtype.element_ty, [K, N], SB, gl.load(b + rkk[:, None] * N + rn[None, :]))
    hopper.fence_async_shared()
    if AREG:
        av = sa.load(gl.DotOperandLayout(0, MMA, 2))
        acc = hopper.warpgroup_mma(av, sb, gl.zeros([M, N], gl.float32, MMA))
    else:
        acc = hopper.warpgroup_mma(sa, sb, gl.zeros([M, N], gl.float32, MMA), is_async=True)
        acc = hopper.warpgroup_mma_wait(0, deps=[acc])
    om = gl.arange(0, M, layout=gl.SliceLayout(1, MMA))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, MMA))
    gl.store(c + om[:, None] * N + on[None, :], acc)


@gluon.jit
def tc05(a, b, c, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, SA: gl.constexpr, SB: gl.constexpr,
         TM: gl.constexpr, HALF: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, L))
    rkk = gl.arange(0, K, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    sa = gl.allocate_shared_memory(a.dtype.element_ty, [M, K], SA, gl.load(a + rm[:, None] * K + rk[None, :]))
    sb = gl.allocate_shared_memory(b.dtype.element_ty, [K, N], SB, gl.load(b + rkk[:, None] * N + rn[None, :]))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    blackwell.fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [2, M, N], TM)
    blackwell.tcgen05_mma(sa, sb, acc.index(1), use_acc=False, mbarriers=[bar])
    mbarrier.wait(bar, 0)
    mbarrier.invalidate(bar)
    if HALF:
        v = acc.index(1).slice(N // 2, N // 2)
        R: gl.constexpr = v.get_reg_layout()
        r = v.load(R)
        om = gl.arange(0, M, layout=gl.SliceLayout(1, R))
        on = gl.arange(0, N // 2, layout=gl.SliceLayout(0, R))
        gl.store(c + om[:, None] * N + N // 2 + on[None, :], r)
    else:
        R2: gl.constexpr = acc.index(1).get_reg_layout(instr_variant="16x256b") if M == 64 else acc.index(1).get_reg_layout()
        r2 = acc.index(1).load(R2)
        om2 = gl.arange(0, M, layout=gl.SliceLayout(1, R2))
        on2 = gl.arange(0, N, layout=gl.SliceLayout(0, R2))
        gl.store(c + om2[:, None] * N + on2[None, :], r2)


@gluon.jit
def tmem_rt(x, y, M: gl.constexpr, N: gl.constexpr, TM: gl.constexpr, RL: gl.constexpr):
    # store a register tile into tensor memory in a user layout, read it back in the layout Gluon computes
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, RL))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, RL))
    t = allocate_tensor_memory(x.dtype.element_ty, [M, N], TM)
    t.store(gl.load(x + rm[:, None] * N + rn[None, :]))
    R: gl.constexpr = t.get_reg_layout()
    v = t.load(R)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, R))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, R))
    gl.store(y + om[:, None] * N + on[None, :], v)


@gluon.jit
def mfma_k(a, b, c, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, MFMA: gl.constexpr, KW: gl.constexpr,
           SA: gl.constexpr, SB: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 8], [8, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, L))
    rkk = gl.arange(0, K, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    sa = gl.allocate_shared_memory(a.dtype.element_ty, [M, K], SA, gl.load(a + rm[:, None] * K + rk[None, :]))
    sb = gl.allocate_shared_memory(b.dtype.element_ty, [K, N], SB, gl.load(b + rkk[:, None] * N + rn[None, :]))
    av = sa.load(gl.DotOperandLayout(0, MFMA, KW))
    bv = sb.load(gl.DotOperandLayout(1, MFMA, KW))
    acc = cdna3.mfma(av, bv, gl.zeros([M, N], gl.float32, MFMA))
    om = gl.arange(0, M, layout=gl.SliceLayout(1, MFMA))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, MFMA))
    gl.store(c + om[:, None] * N + on[None, :], acc)


@gluon.jit
def wmma_k(a, b, c, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, WMMA: gl.constexpr, KW: gl.constexpr,
           VER: gl.constexpr):
    L: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, L))
    rkk = gl.arange(0, K, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    av = gl.convert_layout(gl.load(a + rm[:, None] * K + rk[None, :]), gl.DotOperandLayout(0, WMMA, KW))
    bv = gl.convert_layout(gl.load(b + rkk[:, None] * N + rn[None, :]), gl.DotOperandLayout(1, WMMA, KW))
    if VER == 3:
        acc = gl.amd.gfx1250.wmma(av, bv, gl.zeros([M, N], gl.float32, WMMA))
    elif VER == 2:
        acc = gl.amd.rdna4.wmma(av, bv, gl.zeros([M, N], gl.float32, WMMA))
    else:
        acc = gl.amd.rdna3.wmma(av, bv, gl.zeros([M, N], gl.float32, WMMA))
    om = gl.arange(0, M, layout=gl.SliceLayout(1, WMMA))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, WMMA))
    gl.store(c + om[:, None] * N + on[None, :], acc)


@gluon.jit
def tma_copy(x, y, M: gl.constexpr, N: gl.constexpr, SMEM: gl.constexpr, DST: gl.constexpr, NB: gl.constexpr):
    xd = tma.make_tensor_descriptor(x, [M * NB, N], [N, 1], [M, N], SMEM)
    yd = tma.make_tensor_descriptor(y, [M * NB, N], [N, 1], [M, N], SMEM)
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [NB, M, N], SMEM)
    bars = gl.allocate_shared_memory(gl.int64, [NB, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NB):
        mbarrier.init(bars.index(i), count=1)
    for i in gl.static_range(NB):
        mbarrier.expect(bars.index(i), M * N * x.dtype.element_ty.primitive_bitwidth // 8)
        tma.async_load(xd, [i * M, 0], bars.index(i), buf.index(i))
    for i in gl.static_range(NB):
        mbarrier.wait(bars.index(i), 0)
    v = buf.index(NB - 1).load(DST)
    buf.index(0).store(v)
    hopper.fence_async_shared()
    tma.async_store(yd, [0, 0], buf.index(0))
    tma.store_wait(0)
    for i in gl.static_range(NB):
        mbarrier.invalidate(bars.index(i))


@gluon.jit
def cpasync(x, y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr,
            NB: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [NB, M, N], SMEM)
    for i in gl.static_range(NB):
        cp.async_load(buf.index(i), x + i * M * N + rm[:, None] * N + rn[None, :])
        cp.commit_group()
    cp.wait_group(0)
    acc = buf.index(0).load(DST)
    for i in gl.static_range(1, NB):
        acc += buf.index(i).load(DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], acc)


@gluon.jit
def amd_async(x, y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr,
              BUF: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    buf = gl.allocate_shared_memory(x.dtype.element_ty, [2, M, N], SMEM)
    offs = rm[:, None] * N + rn[None, :]
    if BUF:
        cdna4.async_copy.buffer_load_to_shared(buf.index(0), x, offs)
        cdna4.async_copy.buffer_load_to_shared(buf.index(1), x + M * N, offs)
    else:
        cdna4.async_copy.global_load_to_shared(buf.index(0), x + offs)
        cdna4.async_copy.global_load_to_shared(buf.index(1), x + M * N + offs)
    cdna4.async_copy.commit_group()
    cdna4.async_copy.wait_group(0)
    a = cdna4.async_copy.load_shared_relaxed(buf.index(0), DST)
    b = cdna4.async_copy.load_shared_relaxed(buf.index(1), DST)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y + om[:, None] * N + on[None, :], a + b)


@gluon.jit
def _ws_default(x, y, M: gl.constexpr, N: gl.constexpr, buf):
    L: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    gl.store(y + rm[:, None] * N + rn[None, :], gl.load(x + rm[:, None] * N + rn[None, :]) + 1.0)


@gluon.jit
def _ws_worker(x, y, M: gl.constexpr, N: gl.constexpr, buf):
    L: gl.constexpr = gl.BlockedLayout([2, 2], [8, 4], [1, gl.num_warps()], [0, 1])
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    v = gl.load(x + rm[:, None] * N + rn[None, :])
    buf.store(v)
    D: gl.constexpr = gl.BlockedLayout([1, 1], [32, 1], [gl.num_warps(), 1], [0, 1])
    w = buf.load(D)
    om = gl.arange(0, M, layout=gl.SliceLayout(1, D))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, D))
    gl.store(y + M * N + om[:, None] * N + on[None, :], gl.sum(w, axis=1)[:, None] + w)


@gluon.jit
def _ws_tiny(x, y, M: gl.constexpr, N: gl.constexpr, buf):
    L: gl.constexpr = gl.BlockedLayout([4], [32], [gl.num_warps()], [0])
    o = gl.arange(0, 64, layout=L)
    gl.store(y + 2 * M * N + o, gl.cumsum(gl.load(x + o), 0))


@gluon.jit
def ws3(x, y, M: gl.constexpr, N: gl.constexpr, SMEM: gl.constexpr, W1: gl.constexpr, W2: gl.constexpr):
    buf = gl.allocate_shared_memory(gl.float32, [M, N], SMEM)
    gl.warp_specialize([(_ws_default, (x, y, M, N, buf)), (_ws_worker, (x, y, M, N, buf)),
                        (_ws_tiny, (x, y, M, N, buf))], [W1, W2], [80, 48])


# ----------------------------------------------------------------------------------------------- layouts

def B(spt, tpw, wpc, order, cga=None):
    return gl.BlockedLayout(spt, tpw, wpc, order, cga or [])


def LL(reg, lane, warp, shape, block=None):
    return gl.DistributedLinearLayout(reg, lane, warp, block or [], shape)


def pow2s(n):
    out, k = [], 1
    while k < n:
        out.append(k)
        k *= 2
    return out


def cvt_pairs(T, W):
    """(name, M, N, SRC, DST) conversions for W warps of T lanes."""
    t0, t1 = (4, 8) if T == 32 else (8, 8)
    lane_log = 5 if T == 32 else 6
    warp_log = len(pow2s(W))
    out = []
    # non-default warp order, warps split over both dims
    wa, wb = (W // 2, 2) if W >= 2 else (1, 1)
    out.append(("warporder", 64, 64, B([1, 4], [t0, t1], [wa, wb], [1, 0]), B([2, 1], [t1, t0], [wb, wa], [0, 1])))
    # tile smaller than the layout's tile (wrap / broadcast)
    out.append(("tiny", 4, 8, B([1, 4], [t0, t1], [W, 1], [1, 0]), B([1, 1], [t1, t0], [1, W], [0, 1])))
    out.append(("tiny1x16", 1, 16, B([1, 2], [1, T], [1, W], [1, 0]), B([1, 1], [T, 1], [W, 1], [0, 1])))
    # linear layouts with broadcast (zero) bases: lanes 0/16 (T=32) hold the same element, a zero warp basis
    lane = [[0, 1], [0, 2], [0, 4], [1, 0]] + ([[2, 0]] if T == 64 else []) + [[0, 0]]
    r0 = 2 if T == 32 else 4
    warp = [[r0 * 2 ** i, 0] for i in range(warp_log - 1)] + ([[0, 0]] if W >= 2 else [])
    reg = [[0, 8], [0, 16]]
    m = r0 * 2 ** max(warp_log - 1, 0)
    shape = [m, 32]
    bc = LL(reg, lane, warp, shape)
    out.append(("bcast_to_blocked", m, 32, bc, B([1, 1], [t0, t1], [W, 1], [1, 0])))
    out.append(("blocked_to_bcast", m, 32, B([1, 2], [t0, t1], [1, W], [0, 1]), bc))
    # a permuting linear layout (lanes take a non-monotone order, registers own a stride-2 column set)
    lane2 = [[0, 2], [1, 0], [0, 1], [2, 0], [0, 8]] + ([[4, 0]] if T == 64 else [])
    reg2 = [[0, 4], [0, 16]]
    warp2 = [[4 * 2 ** i if T == 32 else 8 * 2 ** i, 0] for i in range(warp_log)]
    rows = (4 if T == 32 else 8) * W
    perm = LL(reg2, lane2, warp2, [rows, 32])
    out.append(("perm_to_blocked", rows, 32, perm, B([1, 4], [t0, t1], [W, 1], [1, 0])))
    # register-only broadcast: a repeated register basis means a register holds a duplicate
    reg3 = [[0, 1], [0, 0], [0, 2]]
    lane3 = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]] + ([[4, 0]] if T == 64 else [])
    warp3 = [[(4 if T == 32 else 8) * 2 ** i, 0] for i in range(warp_log)]
    rl = LL(reg3, lane3, warp3, [rows, 32])
    out.append(("regdup_to_blocked", rows, 32, rl, B([1, 1], [t0, t1], [1, W], [1, 0])))
    if T == 32:
        mw = [W, 1] if W <= 4 else [4, W // 4]
        mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=mw, instr_shape=[16, 8])
        out.append(("mma2_to_bcast", 16 * mw[0], 32, mma, bc if 16 * mw[0] == m else B([1, 1], [t0, t1], [W, 1], [1, 0])))
        out.append(("dot_op0_to_blocked", 16 * mw[0], 32, gl.DotOperandLayout(0, mma, 2), B([1, 8], [8, 4], [W, 1], [1, 0])))
        out.append(("dot_op1_kw4_to_blocked", 32, 8 * mw[1] * 2, gl.DotOperandLayout(1, mma, 4), B([1, 4], [8, 4], [1, W], [1, 0])))
        out.append(("dot_op0_kw8_i8", 16 * mw[0], 64, gl.DotOperandLayout(0, mma, 8), B([1, 8], [8, 4], [W, 1], [1, 0])))
        if W in (4, 8):
            wg = [4, W // 4]
            v3 = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=wg, instr_shape=[16, 64, 16])
            out.append(("mma3_to_blocked", 64, 64 * wg[1], v3, B([1, 4], [4, 8], [W, 1], [1, 0])))
            out.append(("mma3_tiny_n", 64, 32 * wg[1], gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=wg,
                                                                                  instr_shape=[16, 32, 16]),
                        B([1, 1], [32, 1], [1, W], [0, 1])))
    return out


def amd_pairs(W, ver):
    out = []
    mw = [W // 2, 2] if W >= 2 else [1, 1]
    for name, instr, tr, tpw in (("mfma32", [32, 32, 8], False, None), ("mfma16t", [16, 16, 16], True, None),
                                 ("mfma32_tiles", [32, 32, 8], False, [2, 1]), ("mfma16_k32", [16, 16, 32], False, None)):
        if instr[2] == 32 and ver == 3:
            continue
        lay = AMDMFMALayout(ver, instr, tr, mw, tiles_per_warp=tpw)
        m = instr[0] * mw[0] * (tpw[0] if tpw else 1)
        n = instr[1] * mw[1]
        out.append((f"{name}_to_blocked", m, n, lay, B([1, 4], [8, 8], [W, 1], [1, 0])))
        out.append((f"{name}_dot0", m, 64, gl.DotOperandLayout(0, lay, 4 if instr[2] <= 16 else 8),
                    B([1, 8], [8, 8], [W, 1], [1, 0])))
    return out


def smem_layouts(T, W, bits):
    """(name, M, N, SRC, DST, SMEM)."""
    t0, t1 = (4, 8) if T == 32 else (8, 8)
    vec = 128 // bits
    src = B([1, vec], [t0 * t1 // 8, 8], [W, 1], [1, 0])
    dst = B([vec, 1], [8, t0 * t1 // 8], [1, W], [0, 1])
    out = [
        ("swz_v8_o10", 64, 64, src, dst, gl.SwizzledSharedLayout(vec, 2, 4, [1, 0])),
        ("swz_v4_o01", 64, 64, dst, src, gl.SwizzledSharedLayout(max(vec // 2, 1), 1, 8, [0, 1])),
        ("swz_tiny", 8, 16, B([1, 1], [t0, t1], [W, 1], [1, 0]), B([1, 2], [t1, t0], [1, W], [0, 1]),
         gl.SwizzledSharedLayout(2, 1, 4, [1, 0])),
        ("pad_two", 64, 64, src, dst, gl.PaddedSharedLayout.with_identity_for([[32, 4], [256, 8]], [64, 64], [1, 0])),
        ("pad_three_col", 64, 64, dst, src,
         gl.PaddedSharedLayout.with_identity_for([[64, 1], [128, 2], [1024, 16]], [64, 64], [0, 1])),
        ("shlin", 32, 64, src, dst, gl.SharedLinearLayout([[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0],
                                                           [2, 0], [4, 0], [8, 0], [16, 0]][:11])),
        ("shlin_xor", 32, 32, src, dst, gl.SharedLinearLayout([[0, 1], [0, 2], [0, 4], [1, 8], [2, 16], [0, 8], [0, 16],
                                                               [4, 0], [8, 0], [16, 1]])),
    ]
    if T == 32:
        for sw in (32, 64, 128):
            out.append((f"nvmma{sw}", 64, 64, src, dst, gl.NVMMASharedLayout(sw, bits, 2, False)))
        out.append(("nvmma128t", 64, 64, dst, src, gl.NVMMASharedLayout(128, bits, 2, True)))
    return out


def cases():
    out = []
    NV = ("cuda:80", "cuda:90", "cuda:100", "cuda:120")
    AM = ("hip:gfx942", "hip:gfx950")
    for T, targets in ((32, NV), (64, AM)):
        for W in (1, 4, 8):
            cfgs = {n: dict(M=m, N=nn, SRC=s, DST=d) for n, m, nn, s, d in cvt_pairs(T, W)}
            for dt in ("fp16", "i8"):
                mine = {k: v for k, v in cfgs.items() if (dt == "i8") == k.endswith("_i8")}
                if dt == "fp32":
                    mine = {k: v for k, v in mine.items() if "dot_op" not in k}
                out.append(J(f"cvt2d_{dt}_t{T}_w{W}", cvt2d, {"x": f"*{dt}", "y": f"*{dt}"}, mine, targets, (W,)))
            small = {k: v for k, v in cfgs.items() if k in ("warporder", "tiny", "bcast_to_blocked", "perm_to_blocked")}
            out.append(J(f"cvt2d_f64_t{T}_w{W}", cvt2d, {"x": "*fp64", "y": "*fp64"}, small, targets[:2], (W,)))
            out.append(J(f"cvt2d_fp8_t{T}_w{W}", cvt2d, {"x": "*fp8e4nv" if T == 32 else "*fp8e4b8",
                                                          "y": "*fp8e4nv" if T == 32 else "*fp8e4b8"},
                         small, targets[1:3] if T == 32 else ("hip:gfx942",), (W,)))
            out.append(J(f"cvt2d_i1_t{T}_w{W}", cvt2d_i1, {"x": "*i8", "y": "*i8"}, small, targets[1:2], (W,)))
            # 1-D
            one = {
                "blk_to_blk": dict(N=256, SRC=B([2], [T], [W], [0]), DST=B([4], [T], [W], [0])),
                "slice_to_blk": dict(N=64, SRC=gl.SliceLayout(1, B([1, 4], [T // 4, 4], [W, 1], [1, 0])),
                                     DST=B([1], [T], [W], [0])),
                "slice0_to_slice1": dict(N=32, SRC=gl.SliceLayout(0, B([2, 2], [T // 8, 8], [1, W], [0, 1])),
                                         DST=gl.SliceLayout(1, B([1, 1], [T, 1], [W, 1], [0, 1]))),
                "lin_bcast": dict(N=16, SRC=LL([[1]], [[2], [4], [8], [0], [0]] + ([[0]] if T == 64 else []),
                                               [[0]] * len(pow2s(W)), [16]), DST=B([1], [T], [W], [0])),
                "tiny": dict(N=8, SRC=B([4], [T], [W], [0]), DST=B([1], [T], [W], [0])),
            }
            out.append(J(f"cvt1d_t{T}_w{W}", cvt1d, {"x": "*fp32", "y": "*fp32"}, one, targets[:3], (W,)))
            # 3-D
            wl = len(pow2s(W))
            three = {
                "blk_perm": dict(A=4, B=8, C=32, SRC=B([1, 1, 4], [1, T // 8, 8], [W, 1, 1], [2, 1, 0]),
                                 DST=B([2, 1, 1], [2, T // 2, 1], [1, 1, W], [0, 1, 2])),
                "blk_tiny": dict(A=2, B=2, C=4, SRC=B([1, 1, 1], [2, 2, T // 4], [1, W, 1], [2, 0, 1]),
                                 DST=B([1, 2, 2], [1, 1, T], [W, 1, 1], [1, 2, 0])),
                "lin_bcast3": dict(A=2, B=4, C=16, SRC=LL([[0, 0, 1], [1, 0, 0]],
                                                          [[0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 1, 0], [0, 2, 0]]
                                                          + ([[0, 0, 0]] if T == 64 else []),
                                                          [[0, 0, 0]] * wl, [2, 4, 16]),
                                   DST=B([1, 1, 2], [1, 4, T // 4], [W, 1, 1], [2, 1, 0])),
            }
            out.append(J(f"cvt3d_t{T}_w{W}", cvt3d, {"x": "*fp16", "y": "*fp16"}, three, targets[1:2], (W,)))
            # shape ops
            out.append(J(f"shape_ops_t{T}_w{W}", shape_ops, {"x": "*fp32", "y": "*fp32"},
                         {"blk": dict(M=32, N=64, SRC=B([1, 2], [T // 8, 8], [1, W], [0, 1]), L=B([1, 1], [1, T], [W, 1], [1, 0])),
                          "lin": dict(M=32, N=64, SRC=perm_for(T, W, cols=64), L=B([1, 1], [1, T], [W, 1], [1, 0]))},
                         targets[1:2], (W,)))
            # shared memory round trips
            for dt, bits in (("fp16", 16), ("i8", 8), ("fp32", 32)):
                sm = {n: dict(M=m, N=nn, SRC=s, DST=d, SMEM=sh) for n, m, nn, s, d, sh in smem_layouts(T, W, bits)}
                tg = targets if dt == "fp16" else targets[1:2]
                out.append(J(f"smem_rt_{dt}_t{T}_w{W}", smem_rt, {"x": f"*{dt}", "y": f"*{dt}"}, sm, tg, (W,)))
            vw = {n: dict(NB=4, M=m, N=nn, SRC=s, DST=d, SMEM=sh, DT=B([1, 1], [T, 1], [1, W], [0, 1]))
                  for n, m, nn, s, d, sh in smem_layouts(T, W, 16) if n.startswith(("swz_v", "nvmma", "pad_two"))}
            out.append(J(f"smem_views_t{T}_w{W}", smem_views, {"x": "*fp16", "y": "*fp16"}, vw, targets[1:2], (W,)))
            out.append(J(f"smem_reshape_t{T}_w{W}", smem_reshape, {"x": "*fp16", "y": "*fp16"},
                         {"swz": dict(M=32, N=64, SRC=B([1, 8], [T // 8, 8], [W, 1], [1, 0]),
                                      DST=B([1, 1, 4], [1, 2, T // 2], [W, 1, 1], [2, 1, 0]),
                                      SMEM=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
                                      SMEM3=gl.SwizzledSharedLayout(1, 1, 1, [2, 1, 0]))}, targets[1:2], (W,)))
            # reductions / scans
            rs = {"blk": dict(M=32, N=64, L=B([1, 2], [T // 8, 8], [1, W], [0, 1])),
                  "lin": dict(M=32, N=32, L=perm_for(T, W, rows=32)),
                  "bcast": dict(M=8, N=16, L=B([2, 2], [T // 4, 4], [W, 1], [1, 0]))}
            out.append(J(f"reduce_scan_t{T}_w{W}", reduce_scan, {"x": "*fp32", "y": "*fp32"}, rs, targets[1:2], (W,)))
            out.append(J(f"hist_t{T}_w{W}", hist, {"x": "*i32", "y": "*i32"},
                         {"n512b64": dict(N=512, B=64, L=B([4], [T], [W], [0]), HL=B([1], [T], [W], [0])),
                          "n32b128": dict(N=32, B=128, L=B([1], [T], [W], [0]), HL=B([2], [T], [W], [0]))},
                         targets[1:2], (W,)))
            gl_l = B([1, 4], [T // 8, 8], [W, 1], [1, 0])
            out.append(J(f"gather_t{T}_w{W}", gather2d, {"x": "*fp32", "idx": "*i32", "y": "*fp32"},
                         {"ax1": dict(M=16, N=32, L=gl_l, IL=gl_l, AXIS=1), "ax0": dict(M=32, N=16, L=gl_l, IL=gl_l, AXIS=0),
                          "ax1_other": dict(M=16, N=32, L=gl_l, IL=B([1, 2], [T // 8, 8], [W, 1], [1, 0]), AXIS=1)},
                         targets[1:2], (W,)))
        if T == 64:
            for W in (1, 4, 8):
                for ver, tg in ((3, "hip:gfx942"), (4, "hip:gfx950")):
                    cfgs = {n: dict(M=m, N=nn, SRC=s, DST=d) for n, m, nn, s, d in amd_pairs(W, ver)}
                    out.append(J(f"cvt_mfma_v{ver}_w{W}", cvt2d, {"x": "*fp16", "y": "*fp16"}, cfgs, (tg,), (W,)))
    # --- MMA kernels
    for W in (4, 8):
        mw = [W, 1] if W == 4 else [4, 2]
        mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=mw, instr_shape=[16, 8])
        nv = lambda bits, sw=128: gl.NVMMASharedLayout(sw, bits, 2, False)
        sw = lambda v, p, mp: gl.SwizzledSharedLayout(v, p, mp, [1, 0])
        out.append(J(f"mma2_w{W}", mma2, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m64n64k32": dict(M=64, N=64, K=32, MMA=mma, KW=2, SA=sw(8, 1, 8), SB=sw(8, 1, 8)),
                      "m128n32k64_nvmma": dict(M=128, N=32, K=64, MMA=mma, KW=2, SA=nv(16), SB=nv(16, 64))},
                     ("cuda:80", "cuda:90", "cuda:120"), (W,)))
        out.append(J(f"mma2_i8_w{W}", mma2, {"a": "*i8", "b": "*i8", "c": "*i32"},
                     {"m64n64k64": dict(M=64, N=64, K=64, MMA=mma, KW=4, SA=sw(16, 1, 8), SB=sw(16, 1, 8))},
                     ("cuda:80", "cuda:90"), (W,)))
        wg = [4, W // 4]
        v3 = lambda n: gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=wg, instr_shape=[16, n, 16])
        out.append(J(f"wgmma_w{W}", wgmma, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m64n128k64_ss": dict(M=64, N=128 * wg[1], K=64, MMA=v3(128), SA=nv(16), SB=nv(16), AREG=False),
                      "m64n64k32_rs": dict(M=64, N=64 * wg[1], K=32, MMA=v3(64), SA=nv(16, 64), SB=nv(16, 128), AREG=True),
                      "m128n32k16_ss": dict(M=128, N=32 * wg[1], K=16, MMA=v3(32), SA=nv(16, 32), SB=nv(16, 64), AREG=False)},
                     ("cuda:90",), (W,)))
        tl_ = lambda m, n: TensorMemoryLayout([m, n], col_stride=1)
        out.append(J(f"tc05_w{W}", tc05, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m128n128k64": dict(M=128, N=128, K=64, SA=nv(16), SB=nv(16), TM=tl_(128, 128), HALF=False),
                      "m128n64k32_half": dict(M=128, N=64, K=32, SA=nv(16, 64), SB=nv(16, 128), TM=tl_(128, 64), HALF=True),
                      "m64n64k64": dict(M=64, N=64, K=64, SA=nv(16), SB=nv(16), TM=tl_(64, 64), HALF=False)},
                     ("cuda:100",), (W,)))
        out.append(J(f"tmem_rt_w{W}", tmem_rt, {"x": "*fp32", "y": "*fp32"},
                     {"m128n64_blk": dict(M=128, N=64, TM=tl_(128, 64), RL=B([1, 64], [32, 1], [4, W // 4], [0, 1])),
                      "m64n128": dict(M=64, N=128, TM=tl_(64, 128), RL=B([1, 4], [4, 8], [W, 1], [1, 0])),
                      "m128n32_b64": dict(M=128, N=32, TM=tl_(64, 32), RL=B([1, 1], [32, 1], [4, W // 4], [0, 1]))},
                     ("cuda:100",), (W,)))
        out.append(J(f"tmem_rt_f16_w{W}", tmem_rt, {"x": "*fp16", "y": "*fp16"},
                     {"m128n64_cs2": dict(M=128, N=64, TM=TensorMemoryLayout([128, 64], col_stride=2),
                                          RL=B([1, 8], [4, 8], [W, 1], [1, 0])),
                      "m128n64_cs1": dict(M=128, N=64, TM=TensorMemoryLayout([128, 64], col_stride=1),
                                          RL=B([1, 8], [4, 8], [W, 1], [1, 0]))},
                     ("cuda:100",), (W,)))
        for ver, tg in ((3, "hip:gfx942"), (4, "hip:gfx950")):
            mfw = [W // 2, 2]
            cf = {"m32x32": dict(M=32 * mfw[0], N=64, K=32, MFMA=AMDMFMALayout(ver, [32, 32, 8], False, mfw), KW=4,
                                 SA=sw(4, 1, 16), SB=sw(4, 1, 16)),
                  "m16x16t": dict(M=16 * mfw[0], N=32, K=64, MFMA=AMDMFMALayout(ver, [16, 16, 16], True, mfw), KW=4,
                                  SA=gl.PaddedSharedLayout.with_identity_for([[64, 4]], [16 * mfw[0], 64], [1, 0]),
                                  SB=sw(8, 2, 4))}
            if ver == 4:
                cf["m16x16k32"] = dict(M=16 * mfw[0], N=32, K=64, MFMA=AMDMFMALayout(4, [16, 16, 32], False, mfw), KW=8,
                                       SA=sw(8, 1, 8), SB=sw(8, 1, 8))
            out.append(J(f"mfma_v{ver}_w{W}", mfma_k, {"a": "*fp16", "b": "*fp16", "c": "*fp32"}, cf, (tg,), (W,)))
        # wmma
        wb = [[1, 0], [2, 0]][:len(pow2s(W)) - 1] + [[0, 1]]
        out.append(J(f"wmma1250_w{W}", wmma_k, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m64n32k32": dict(M=16 * (W // 2), N=32, K=32, WMMA=AMDWMMALayout(3, True, wb, [], [16, 16, 32]),
                                        KW=8, VER=3)}, ("hip:gfx1250",), (W,)))
        out.append(J(f"wmma_rdna4_w{W}", wmma_k, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m64n32k16": dict(M=16 * (W // 2), N=32, K=16, WMMA=AMDWMMALayout(2, False, wb, [], [16, 16, 16]),
                                        KW=8, VER=2)}, ("hip:gfx1200",), (W,)))
        out.append(J(f"wmma_rdna3_w{W}", wmma_k, {"a": "*fp16", "b": "*fp16", "c": "*fp32"},
                     {"m64n32k16": dict(M=16 * (W // 2), N=32, K=16, WMMA=AMDWMMALayout(1, False, wb, [], [16, 16, 16]),
                                        KW=16, VER=1)}, ("hip:gfx1100",), (W,)))
        # TMA
        out.append(J(f"tma_copy_w{W}", tma_copy, {"x": "*fp16", "y": "*fp16"},
                     {"m64n64nb3": dict(M=64, N=64, SMEM=nv(16), DST=B([1, 8], [4, 8], [W, 1], [1, 0]), NB=3),
                      "m32n32nb2_sw64": dict(M=32, N=32, SMEM=nv(16, 64), DST=B([2, 2], [8, 4], [1, W], [0, 1]), NB=2)},
                     ("cuda:90", "cuda:100"), (W,)))
        out.append(J(f"tma_copy_fp8_w{W}", tma_copy, {"x": "*fp8e4nv", "y": "*fp8e4nv"},
                     {"m64n128nb2": dict(M=64, N=128, SMEM=nv(8), DST=B([1, 16], [8, 4], [W, 1], [1, 0]), NB=2)},
                     ("cuda:90", "cuda:100"), (W,)))
        # cp.async
        cl = B([1, 8], [4, 8], [W, 1], [1, 0])
        out.append(J(f"cpasync_w{W}", cpasync, {"x": "*fp16", "y": "*fp16"},
                     {"swz": dict(M=64, N=64, L=cl, DST=B([1, 1], [32, 1], [1, W], [0, 1]), SMEM=sw(8, 1, 8), NB=3),
                      "nvmma": dict(M=32, N=64, L=cl, DST=gl.DotOperandLayout(0, mma, 2), SMEM=nv(16), NB=2)},
                     ("cuda:80", "cuda:90"), (W,)))
        al = B([1, 8], [8, 8], [W, 1], [1, 0])
        out.append(J(f"amd_async_w{W}", amd_async, {"x": "*fp16", "y": "*fp16"},
                     {"glb_swz": dict(M=64, N=64, L=al, DST=B([4, 1], [16, 4], [1, W], [0, 1]),
                                      SMEM=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), BUF=False),
                      "glb_v2": dict(M=64, N=64, L=B([1, 2], [8, 8], [W, 1], [1, 0]), DST=B([4, 1], [16, 4], [1, W], [0, 1]),
                                     SMEM=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), BUF=False),
                      "buf_pad": dict(M=64, N=64, L=al, DST=B([1, 4], [16, 4], [W, 1], [1, 0]),
                                      SMEM=gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0]),
                                      BUF=True)},
                     ("hip:gfx950",), (W,)))
        out.append(J(f"ws3_w{W}", ws3, {"x": "*fp32", "y": "*fp32"},
                     {"w1w2": dict(M=32, N=32, SMEM=gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), W1=2, W2=1),
                      "w4w1": dict(M=64, N=32, SMEM=gl.SwizzledSharedLayout(4, 2, 4, [1, 0]), W1=4, W2=1)},
                     ("cuda:90", "cuda:100"), (W,)))
    # CTA splits (num_ctas = 2): a blocked layout whose CTA basis splits rows, a conversion that keeps it
    for W in (4,):
        c0 = B([1, 4], [4, 8], [W, 1], [1, 0], cga=[[1, 0]])
        c1 = B([4, 1], [8, 4], [1, W], [0, 1], cga=[[1, 0]])
        c2 = B([1, 4], [4, 8], [W, 1], [1, 0], cga=[[0, 1]])
        out.append(J(f"cga_cvt_w{W}", cvt2d, {"x": "*fp16", "y": "*fp16"},
                     {"rows": dict(M=64, N=64, SRC=c0, DST=c1), "rows_to_cols": dict(M=64, N=64, SRC=c0, DST=c2)},
                     ("cuda:90", "cuda:100"), (W,), options={"num_ctas": 2}))
        out.append(J(f"cga_smem_w{W}", smem_rt, {"x": "*fp16", "y": "*fp16"},
                     {"swz": dict(M=64, N=64, SRC=c0, DST=c1, SMEM=gl.SwizzledSharedLayout(8, 1, 8, [1, 0], [[1, 0]])),
                      "nvmma": dict(M=64, N=64, SRC=c0, DST=c1, SMEM=gl.NVMMASharedLayout(128, 16, 2, False, cga_layout=[[1, 0]]))},
                     ("cuda:90", "cuda:100"), (W,), options={"num_ctas": 2}))
    return out


def perm_for(T, W, rows=32, cols=32):
    lane = [[0, 2], [1, 0], [0, 1], [2, 0], [0, 8]] + ([[4, 0]] if T == 64 else [])
    rl = 4 if T == 32 else 8
    warp = []
    r = rl
    for _ in pow2s(W):
        warp.append([r % rows, 0] if r < rows else [0, 0])
        r *= 2
    reg = [[0, 4], [0, 16]] + ([[0, 32]] if cols == 64 else [])
    # cover the remaining rows in registers
    while r < rows:
        reg.append([r, 0])
        r *= 2
    return LL(reg, lane, warp, [rows, cols])


def J(name, fn, sig, configs, targets, warps=(4,), stages=(None,), options=None, env=None):
    return dict(name=name, fn=fn, sig=sig, configs=configs, targets=targets, warps=warps, stages=stages,
                options=options or {}, env=env or {}, gluon=True)


CASES = cases()
