"""Runs on the GPU machine (Triton + torch there; no llverify import): Triton's own ``convert_layout``.

For each case (a pair of Gluon layouts of a 64 x 64 tile), a Gluon kernel loads element ids
``x[r, c] = r * 64 + c`` in layout SRC, converts them to DST with Triton's ``gl.convert_layout``, and
stores, at each element's place, the value (``y``) and the thread id that holds it (``tid``, read with
``mov.u32 %tid.x`` per element in DST), so the placement Triton chose can be compared with llverify's
model of DST.  The kernel's TTGIR and LLVM IR (as this Triton lowers them) are kept for the analysis.

    python3 -m llverify.gpu.triton_cvt_device OUT.json            # run every case, write results
    python3 -m llverify.gpu.triton_cvt_device OUT.json --no-time   # one launch per case (under ncu)
    python3 -m llverify.gpu.triton_cvt_device OUT.json --throughput  # many tiles, many round trips each
    python3 -m llverify.gpu.triton_cvt_device OUT.json --corpus      # every convert_layout of the sm_90 corpus
    python3 -m llverify.gpu.triton_cvt_device OUT.json --staging     # real local_alloc/local_load pairs
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

M = N = 64
SWIZZLES = __file__.rsplit("/", 1)[0] + "/triton_cvt_swizzles.json"
CORPUS = __file__.rsplit("/", 1)[0] + "/triton_cvt_corpus.json"
STAGING = __file__.rsplit("/", 1)[0] + "/triton_cvt_staging.json"


def _pairs(gl, warps: int) -> list[tuple[str, object, object]]:
    """The conversions of examples/kernels/gluon_convert.py (NVIDIA, 32 lanes)."""
    b = gl.BlockedLayout
    w, wt = [warps, 1], [1, warps]
    mma = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, warps // 2], instr_shape=[16, 8])
    return [
        ("rowmajor_to_colmajor", b([1, 4], [8, 4], w, [1, 0]), b([4, 1], [4, 8], wt, [0, 1])),
        ("vec4_to_vec1", b([1, 4], [8, 4], w, [1, 0]), b([1, 1], [8, 4], w, [1, 0])),
        ("lane_swap", b([1, 1], [8, 4], w, [1, 0]), b([1, 1], [4, 8], w, [1, 0])),
        ("warp_swap", b([1, 4], [8, 4], w, [1, 0]), b([1, 4], [8, 4], wt, [1, 0])),
        ("register_reorder", b([2, 2], [8, 4], w, [1, 0]), b([2, 2], [8, 4], w, [0, 1])),
        ("mma_to_blocked", mma, b([1, 8], [4, 8], w, [1, 0])),
        ("blocked_to_mma", b([1, 8], [4, 8], w, [1, 0]), mma),
    ]


def cases():
    from triton.experimental.gluon import language as gl

    out = []
    for warps in (4, 8):
        for name, src, dst in _pairs(gl, warps):
            out.append((f"{name}_w{warps}", warps, src, dst))
    return out


def corpus_cases():
    """The corpus's own conversions (``triton_cvt_corpus.json``, made on the CPU by
    ``llverify.gpu.triton_cvt.corpus_conversions``) as Gluon linear layouts: (name, warps, src, dst, shape)."""
    from triton.experimental.gluon import language as gl

    with open(CORPUS) as fh:
        items = json.load(fh)

    def layout(side, shape):
        return gl.DistributedLinearLayout(reg_bases=side["register"], lane_bases=side["lane"],
                                          warp_bases=side["warp"], block_bases=[], shape=shape)

    return [(it["name"], it["warps"], layout(it["src"], it["shape"]), layout(it["dst"], it["shape"]), it["shape"])
            for it in items]


def _staging_kernels():
    """A real kernel's operand staging: element ids loaded in SRC, ``local_alloc`` into SMEM, ``local_load``
    in DST (probe: values and holding threads out; loop: many tiles, there through shared memory and back by
    Triton's convert_layout, ``reps`` times)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def stage_probe(x, y, tid, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SMEM: gl.constexpr,
                    DST: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * N + rn[None, :])
        buf = gl.allocate_shared_memory(v.dtype, [M, N], SMEM, v)
        w = buf.load(DST)
        t = gl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [w.to(gl.int32)], dtype=gl.int32,
                                      is_pure=False, pack=1)
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * N + on[None, :], w)
        gl.store(tid + om[:, None] * N + on[None, :], t)

    @gluon.jit
    def stage_loop(x, y, reps, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SMEM: gl.constexpr,
                   DST: gl.constexpr):
        base = gl.program_id(0) * (M * N)
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        offs = base + rm[:, None] * N + rn[None, :]
        v = gl.load(x + offs)
        buf = gl.allocate_shared_memory(v.dtype, [M, N], SMEM)
        for _ in range(reps):
            buf.store(v)
            w = buf.load(DST)
            v = gl.convert_layout(w + 1, SRC)
        gl.store(y + offs, v)

    return stage_probe, stage_loop


def run_staging(timing: bool = True, tiles: int = 132 * 16, reps: tuple[int, int] = (1, 129)) -> list[dict]:
    """Per real staging pair: the kernel's own shared layout and llverify's optimal swizzle (probe: bit-exact,
    placement, TTGIR/LLVM IR; with ``timing`` the loop's time per round trip per tile)."""
    import torch
    import triton
    from triton.experimental.gluon import language as gl

    probe, loop = _staging_kernels()
    with open(STAGING) as fh:
        items = json.load(fh)
    dtype = {16: torch.int16, 32: torch.int32}
    out = []
    for it in items:
        m, n = it["shape"]

        def dist(side):
            return gl.DistributedLinearLayout(reg_bases=side["register"], lane_bases=side["lane"],
                                              warp_bases=side["warp"], block_bases=[], shape=[m, n])

        src, dst = dist(it["src"]), dist(it["dst"])
        x = torch.arange(m * n, device="cuda").to(dtype[it["bits"]])
        variants = [("kernel_layout", it["smem"])] + ([("llverify_swizzle", it["swizzle"])] if it["swizzle"] else [])
        for variant, offs in variants:
            smem = gl.SharedLinearLayout(offset_bases=offs)
            rec = _launch_and_time(lambda y, tid: probe[(1,)](x, y, tid, M=m, N=n, SRC=src, SMEM=smem, DST=dst,
                                                              num_warps=it["warps"]),
                                   x, {"name": f"{it['name']}+{variant}", "variant": variant, "warps": it["warps"],
                                       "triton": triton.__version__, "shape": [m, n]}, False)
            if timing and "error" not in rec:
                xs = torch.arange(tiles * m * n, device="cuda").to(dtype[it["bits"]])
                ys = torch.empty_like(xs)
                per = {}
                for r in reps:
                    loop[(tiles,)](xs, ys, r, M=m, N=n, SRC=src, SMEM=smem, DST=dst, num_warps=it["warps"])
                    torch.cuda.synchronize()
                    rec[f"loop_exact_reps{r}"] = bool(torch.equal(ys, xs + r))
                    times = []
                    for _ in range(5):
                        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        s.record()
                        for _ in range(10):
                            loop[(tiles,)](xs, ys, r, M=m, N=n, SRC=src, SMEM=smem, DST=dst, num_warps=it["warps"])
                        e.record()
                        torch.cuda.synchronize()
                        times.append(s.elapsed_time(e) * 1000 / 10)
                    per[r] = sorted(times)[2]
                rec["round_trip_ns_per_tile"] = (per[reps[1]] - per[reps[0]]) * 1000 / (reps[1] - reps[0]) / tiles
            out.append(rec)
    return out


def _shaped_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def cvt_probe_mn(x, y, tid, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * N + rn[None, :])
        w = gl.convert_layout(v, DST)
        t = gl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [w], dtype=gl.int32, is_pure=False, pack=1)
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * N + on[None, :], w)
        gl.store(tid + om[:, None] * N + on[None, :], t)

    return cvt_probe_mn


def run_corpus(timing: bool = True) -> list[dict]:
    """Triton's own conversion of every corpus layout pair (element ids in, each element's value and holding
    thread out), as :func:`run` does for the hand-written pairs."""
    import torch
    import triton

    kernel = _shaped_kernel()
    results = []
    for name, warps, src, dst, shape in corpus_cases():
        m, n = shape
        x = torch.arange(m * n, dtype=torch.int32, device="cuda")
        base = {"name": name, "warps": warps, "triton": triton.__version__, "shape": shape}
        results.append(_launch_and_time(
            lambda y, tid: kernel[(1,)](x, y, tid, M=m, N=n, SRC=src, DST=dst, num_warps=warps), x, base, timing))
    return results


def _kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def cvt_probe(x, y, tid, SRC: gl.constexpr, DST: gl.constexpr):
        rm = gl.arange(0, 64, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, 64, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * 64 + rn[None, :])
        w = gl.convert_layout(v, DST)
        t = gl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [w], dtype=gl.int32, is_pure=False, pack=1)
        om = gl.arange(0, 64, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, 64, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * 64 + on[None, :], w)
        gl.store(tid + om[:, None] * 64 + on[None, :], t)

    return cvt_probe


def _swizzle_kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def cvt_swizzled(x, y, tid, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr):
        rm = gl.arange(0, 64, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, 64, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * 64 + rn[None, :])
        buf = gl.allocate_shared_memory(gl.int32, [64, 64], SMEM, v)  # llverify's optimal swizzle
        w = buf.load(DST)
        t = gl.inline_asm_elementwise("mov.u32 $0, %tid.x;", "=r,r", [w], dtype=gl.int32, is_pure=False, pack=1)
        om = gl.arange(0, 64, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, 64, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * 64 + on[None, :], w)
        gl.store(tid + om[:, None] * 64 + on[None, :], t)

    return cvt_swizzled


def _loop_kernels():
    """Throughput kernels: every program converts its own 64 x 64 tile ``reps`` times, there and back
    (A -> B by Triton's convert_layout, or through a buffer in llverify's swizzle; B -> A by Triton in both
    variants), so the launch overhead is amortised and only the forward leg differs."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def cvt_loop(x, y, reps, SRC: gl.constexpr, DST: gl.constexpr):
        base = gl.program_id(0) * 4096
        rm = gl.arange(0, 64, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, 64, layout=gl.SliceLayout(0, SRC))
        offs = base + rm[:, None] * 64 + rn[None, :]
        v = gl.load(x + offs)
        for _ in range(reps):
            w = gl.convert_layout(v, DST)
            v = gl.convert_layout(w + 1, SRC)
        gl.store(y + offs, v)

    @gluon.jit
    def cvt_loop_swizzled(x, y, reps, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr):
        base = gl.program_id(0) * 4096
        rm = gl.arange(0, 64, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, 64, layout=gl.SliceLayout(0, SRC))
        offs = base + rm[:, None] * 64 + rn[None, :]
        v = gl.load(x + offs)
        buf = gl.allocate_shared_memory(gl.int32, [64, 64], SMEM)
        for _ in range(reps):
            buf.store(v)
            w = buf.load(DST)
            v = gl.convert_layout(w + 1, SRC)
        gl.store(y + offs, v)

    return cvt_loop, cvt_loop_swizzled


def throughput(only: str | None, tiles: int = 132 * 16, reps: tuple[int, int] = (1, 129)) -> list[dict]:
    """Per case and variant: the time of one round trip per tile, from two launches of ``reps`` iterations
    (median of 5 batches of 20 launches each, CUDA events), and whether ``y == x + reps`` (bit-exact)."""
    import torch
    from triton.experimental.gluon import language as gl

    plain, swizzled = _loop_kernels()
    try:
        with open(SWIZZLES) as fh:
            swizzles = json.load(fh)
    except OSError:
        swizzles = {}
    x = torch.arange(tiles * 4096, dtype=torch.int32, device="cuda")
    y = torch.empty_like(x)
    out = []
    for name, warps, src, dst in cases():
        if (only and name != only) or name not in swizzles:
            continue  # the comparison needs llverify's swizzle (the shared-memory conversions)
        smem = gl.SharedLinearLayout(offset_bases=swizzles[name])
        variants = {"triton": lambda r: plain[(tiles,)](x, y, r, SRC=src, DST=dst, num_warps=warps),
                    "llverify_swizzle": lambda r: swizzled[(tiles,)](x, y, r, SRC=src, DST=dst, SMEM=smem,
                                                                      num_warps=warps)}
        for variant, launch in variants.items():
            rec: dict[str, Any] = {"name": name, "variant": variant, "warps": warps, "tiles": tiles}
            try:
                per = {}
                for r in reps:
                    launch(r)
                    torch.cuda.synchronize()
                    rec[f"bit_exact_reps{r}"] = bool(torch.equal(y, x + r))
                    times = []
                    for _ in range(5):
                        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        s.record()
                        for _ in range(20):
                            launch(r)
                        e.record()
                        torch.cuda.synchronize()
                        times.append(s.elapsed_time(e) * 1000 / 20)
                    per[r] = sorted(times)[2]
                rec["kernel_us"] = per
                rec["round_trip_ns_per_tile"] = (per[reps[1]] - per[reps[0]]) * 1000 / (reps[1] - reps[0]) / tiles
            except Exception as exc:  # noqa: BLE001 - reported, the other cases run
                rec["error"] = f"{type(exc).__name__}: {exc}"[:1000]
            out.append(rec)
    return out


def layout_text(layout) -> str:
    return repr(layout)


def run(only: str | None, timing: bool = True) -> list[dict]:
    import torch
    import triton

    kernel = _kernel()
    swizzled = _swizzle_kernel()
    swizzles = {}
    try:
        with open(SWIZZLES) as fh:
            swizzles = json.load(fh)  # case name -> offset bases of llverify's optimal swizzle (made on the CPU)
    except OSError:
        pass
    results = []
    for name, warps, src, dst in cases():
        if only and name != only:
            continue
        x = torch.arange(M * N, dtype=torch.int32, device="cuda")
        base = {"name": name, "warps": warps, "triton": triton.__version__}
        results.append(_launch_and_time(lambda y, tid: kernel[(1,)](x, y, tid, SRC=src, DST=dst, num_warps=warps),
                                        x, base, timing))
        if name in swizzles:
            from triton.experimental.gluon import language as gl

            smem = gl.SharedLinearLayout(offset_bases=swizzles[name])
            results.append(_launch_and_time(
                lambda y, tid: swizzled[(1,)](x, y, tid, SRC=src, DST=dst, SMEM=smem, num_warps=warps),
                x, {**base, "name": name + "+llverify_swizzle", "variant": "llverify_swizzle"}, timing))
    return results


def _launch_and_time(launch: Any, x: Any, record: dict, timing: bool) -> dict:
    """Run ``launch(y, tid)`` once into fresh buffers, record bit-exactness (``y == x``), the per-element thread
    ids, TTGIR and LLVM IR, then (``timing``) the median of 5 batches of 200 launches by CUDA events.
    A case Triton cannot build is recorded with its error; the others still run."""
    import torch

    rec = dict(record)
    y = torch.full_like(x, -1)
    tid = torch.full_like(x, -1)
    try:
        k = launch(y, tid)
        torch.cuda.synchronize()
        rec["bit_exact"] = bool(torch.equal(x, y))
        rec["tid"] = tid.cpu().tolist()
        rec["ttgir"] = k.asm.get("ttgir", "")
        rec["llir"] = k.asm.get("llir", "")
        times = []
        for _ in range(5 if timing else 0):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(200):
                launch(y, tid)
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e) * 1000 / 200)
        rec["time_us"] = sorted(times)[2] if times else None
    except Exception as exc:  # noqa: BLE001 - a case Triton cannot build is reported, the others run
        rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
    return rec


def main() -> None:
    args = sys.argv[1:]
    out = args[0]
    only = args[args.index("--case") + 1] if "--case" in args else None
    t0 = time.time()
    if "--throughput" in args:
        res = throughput(only)
        with open(out, "w") as fh:
            json.dump({"throughput": res, "seconds": time.time() - t0}, fh)
        print(f"{len(res)} throughput runs, {sum(1 for r in res if 'error' in r)} errors")
        return
    if "--corpus" in args:
        res = run_corpus(timing="--no-time" not in args)
    elif "--staging" in args:
        res = run_staging(timing="--no-time" not in args)
    else:
        res = run(only, timing="--no-time" not in args)
    with open(out, "w") as fh:
        json.dump({"cases": res, "seconds": time.time() - t0}, fh)
    print(f"{len(res)} cases, {sum(1 for r in res if r.get('bit_exact'))} bit-exact, "
          f"{sum(1 for r in res if 'error' in r)} errors")


if __name__ == "__main__":
    main()
