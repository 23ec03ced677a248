"""Compile, launch, check and time generated kernels with CuPy.

* :func:`gpu_unavailable` says (one line) why no GPU run is possible, or None.
* :func:`compile_kernels` builds every kernel: ``nvcc -cubin -arch=sm_90`` in
  parallel when ``nvcc`` is on the PATH (cubins cached by a hash of the
  source), else NVRTC through ``cupy.RawModule(code=...)``; both are loaded
  as ``cupy.RawModule``.
* :func:`check_case` launches a kernel on input sets that name every element
  (:func:`~llverify.gpu.reference.id_planes`), for 1 and 3 repetitions, and
  compares every (block, warp, lane, register) with the numpy reference.
* :func:`time_case` times it with CUDA events on a grid that fills the chip
  (warm-up, median of many launches, three rotating random input sets), at
  ``reps`` 1, ``lo`` and ``lo + extra`` repetitions; the slope between the
  last two is the time of one conversion of every tile, free of the global
  load and store.
* :func:`measure_peak` measures the shared-memory bandwidth ceiling with a
  conflict-free 16-byte ``ld.shared``/``st.shared`` kernel.

CuPy is imported lazily: importing this module never needs a GPU.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from llverify.gpu.kernels import KernelSource
from llverify.gpu.reference import DTYPES, expected, first_mismatch, id_planes, random_inputs
from llverify.gpu.tile import DistMap

__all__ = ["gpu_unavailable", "compile_kernels", "check_case", "time_case", "measure_peak", "Timing", "Check"]


def gpu_unavailable() -> str | None:
    """None when CuPy and a CUDA GPU are usable, else a one-line reason."""
    try:
        import cupy  # noqa: PLC0415
    except Exception as exc:  # noqa: BLE001  (ImportError or a broken CUDA install)
        return f"CuPy is not importable ({type(exc).__name__}: {exc}); install the 'gpu' extra on a machine with CUDA"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return f"no CUDA device is usable ({type(exc).__name__}: {exc})"
    if n < 1:
        return "no CUDA device found"
    return None


def device_name() -> str:
    import cupy  # noqa: PLC0415
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def nvcc_flags() -> list[str]:
    """Extra nvcc flags from ``LLVERIFY_NVCC_FLAGS`` (e.g. ``-maxrregcount=64`` for experiments)."""
    return os.environ.get("LLVERIFY_NVCC_FLAGS", "").split()


def _nvcc_cubin(src: KernelSource, cache: Path) -> Path:
    flags = nvcc_flags()
    digest = hashlib.sha256((src.code + " ".join(flags)).encode()).hexdigest()[:16]
    out = cache / f"{src.name}.{digest}.cubin"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / f"{src.name}.cu"
        cu.write_text(src.code)
        tmp_out = Path(tmp) / "k.cubin"
        r = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-O3", "-Xptxas", "-v", *flags, "-o", str(tmp_out), str(cu)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"nvcc failed on {src.name}:\n{r.stderr[-2000:]}")
        Path(str(out) + ".ptxas.txt").write_text(r.stderr + r.stdout)
        shutil.move(str(tmp_out), out)
    return out


def ptxas_usage(text: str) -> dict[str, int]:
    """Registers, stack frame and spill bytes from ``ptxas -v`` output (missing fields are absent)."""
    import re  # noqa: PLC0415
    out: dict[str, int] = {}
    for key, pat in (("registers", r"Used (\d+) registers"), ("stack_bytes", r"(\d+) bytes stack frame"),
                     ("spill_store_bytes", r"(\d+) bytes spill stores"), ("spill_load_bytes", r"(\d+) bytes spill loads")):
        m = re.search(pat, text)
        if m:
            out[key] = int(m.group(1))
    return out


def resource_usage(kernels: Sequence[KernelSource], cache: Path) -> dict[str, dict[str, int]]:
    """Kernel name -> ptxas usage, for kernels built by :func:`build_cubins` into ``cache``."""
    res = {}
    for k in kernels:
        digest = hashlib.sha256((k.code + " ".join(nvcc_flags())).encode()).hexdigest()[:16]
        f = cache / f"{k.name}.{digest}.cubin.ptxas.txt"
        if f.exists():
            res[k.name] = ptxas_usage(f.read_text())
    return res


def build_cubins(kernels: Sequence[KernelSource], cache: Path, jobs: int | None = None) -> dict[str, Path]:
    """``nvcc -cubin`` every kernel into ``cache`` (parallel, cached by source hash)."""
    cache.mkdir(parents=True, exist_ok=True)
    jobs = jobs or max(1, (os.cpu_count() or 2))
    with ThreadPoolExecutor(jobs) as ex:
        paths = list(ex.map(lambda k: _nvcc_cubin(k, cache), kernels))
    return {k.name: p for k, p in zip(kernels, paths)}


def compile_kernels(kernels: Sequence[KernelSource], cache: Path | None = None) -> dict[str, Any]:
    """name -> ``cupy.RawKernel`` (cubins through nvcc when available, else NVRTC)."""
    import cupy  # noqa: PLC0415
    out: dict[str, Any] = {}
    if shutil.which("nvcc") is not None or (cache is not None and cache.exists()):
        cache = cache or Path(tempfile.gettempdir()) / "llverify_gpu_cubins"
        try:
            paths = build_cubins(kernels, cache)
        except (RuntimeError, FileNotFoundError):
            paths = {}
        for k in kernels:
            if k.name in paths:
                out[k.name] = cupy.RawModule(path=str(paths[k.name])).get_function(k.name)
    for k in kernels:
        if k.name not in out:
            mod = cupy.RawModule(code=k.code)
            out[k.name] = mod.get_function(k.name)
    for k in kernels:
        if k.smem_bytes > 48 * 1024:
            out[k.name].max_dynamic_shared_size_bytes = k.smem_bytes
    return out


def _launch(fn: Any, k: KernelSource, inp: Any, out: Any, n_blocks: int, reps: int) -> None:
    fn((n_blocks,), (k.threads,), (inp, out, np.int32(reps), np.uint32(0)), shared_mem=k.smem_bytes)


@dataclass(frozen=True)
class Check:
    bit_exact: bool
    mismatch: str | None
    input_sets: int


def check_case(fn: Any, k: KernelSource, dst: DistMap, dtype: str, n_blocks: int = 3) -> Check:
    """Bit-exact check on every (block, warp, lane, register), reps 1 and 3 (see the module docstring)."""
    import cupy  # noqa: PLC0415
    np_t = DTYPES[dtype][1]
    sets = id_planes(n_blocks, k.tile_elems, dtype)
    for reps in (1, 3):
        for inp in sets:
            d_in = cupy.asarray(inp)
            d_out = cupy.zeros(n_blocks * k.threads * k.n_dst_regs, dtype=np_t)
            _launch(fn, k, d_in, d_out, n_blocks, reps)
            got = cupy.asnumpy(d_out).reshape(n_blocks, k.threads, k.n_dst_regs)
            bad = first_mismatch(got, expected(dst, inp, n_blocks))
            if bad is not None:
                return Check(False, f"reps={reps}: {bad}", len(sets))
    return Check(True, None, len(sets))


@dataclass(frozen=True)
class Timing:
    n_blocks: int
    extra_reps: int
    kernel_us: float          # median of one launch at reps = 1
    kernel_us_extra: float    # median of one launch at the largest repetition count
    conversion_us: float      # slope between two large repetition counts: one conversion of every tile
    spread: float             # (max - min) / median of the reps = 1 + extra launches
    bit_exact_large: bool     # the timed output equals the reference too


def _median_time(fn: Any, k: KernelSource, ins: Sequence[Any], out: Any, n_blocks: int, reps: int,
                 warmup: int, iters: int) -> tuple[float, float]:
    import cupy  # noqa: PLC0415
    for i in range(warmup):
        _launch(fn, k, ins[i % len(ins)], out, n_blocks, reps)
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for i in range(iters):
        start.record()
        _launch(fn, k, ins[i % len(ins)], out, n_blocks, reps)
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end) * 1000.0)
    med = float(np.median(times))
    return med, (max(times) - min(times)) / med if med else 0.0


def time_case(fn: Any, k: KernelSource, dst: DistMap, dtype: str, n_blocks: int, extra_reps: int = 64,
              warmup: int = 3, iters: int = 15) -> Timing:
    """Median launch times at 1, ``lo = 1 + extra/4`` and ``lo + extra`` repetitions (odd counts).

    The conversion time is the slope ``(t(lo + extra) - t(lo)) / extra``: both
    launches are dominated by conversions, so the global load and store, and
    how much of them overlaps with shared-memory work, cancel.
    """
    import cupy  # noqa: PLC0415
    np_t = DTYPES[dtype][1]
    host = random_inputs(n_blocks, k.tile_elems, dtype, 3, seed=zlib.crc32(k.name.encode()))
    ins = [cupy.asarray(h) for h in host]
    out = cupy.zeros(n_blocks * k.threads * k.n_dst_regs, dtype=np_t)
    extra = extra_reps + (extra_reps % 2)
    lo = 1 + 2 * (extra // 8)
    t1, _ = _median_time(fn, k, ins, out, n_blocks, 1, warmup, iters)
    t_lo, _ = _median_time(fn, k, ins, out, n_blocks, lo, warmup, iters)
    t_hi, spread = _median_time(fn, k, ins, out, n_blocks, lo + extra, warmup, iters)
    last = (iters - 1) % len(ins)
    got = cupy.asnumpy(out).reshape(n_blocks, k.threads, k.n_dst_regs)
    ok = first_mismatch(got, expected(dst, host[last], n_blocks)) is None
    return Timing(n_blocks, extra, t1, t_hi, (t_hi - t_lo) / extra, spread, ok)


_PEAK_SRC = r"""
extern "C" __global__ void __launch_bounds__(1024) llv_peak_ld(unsigned* out, int iters) {
    __shared__ uint4 buf[1024];
    buf[threadIdx.x] = make_uint4(threadIdx.x, threadIdx.x + 1, threadIdx.x + 2, threadIdx.x + 3);
    __syncthreads();
    uint4 acc = make_uint4(0, 0, 0, 0);
    unsigned i = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
        #pragma unroll
        for (int u = 0; u < 8; ++u) {
            const uint4 v = buf[(i + u * 32) & 1023u];
            acc.x ^= v.x; acc.y ^= v.y; acc.z ^= v.z; acc.w ^= v.w;
        }
        i += acc.x & 1u;   // keep the loop honest without breaking the conflict-free pattern
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
extern "C" __global__ void __launch_bounds__(1024) llv_peak_stld(unsigned* out, int iters) {
    __shared__ uint4 buf[1024];
    uint4 acc = make_uint4(threadIdx.x, 1, 2, 3);
    for (int it = 0; it < iters; ++it) {
        #pragma unroll
        for (int u = 0; u < 4; ++u) {
            buf[(threadIdx.x + u * 32) & 1023u] = acc;
            const uint4 v = buf[(threadIdx.x + u * 32 + 256) & 1023u];
            acc.x ^= v.y; acc.y ^= v.z; acc.z ^= v.w; acc.w ^= v.x + it;
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc.x ^ acc.y ^ acc.z ^ acc.w;
}
"""


def measure_peak(iters: int = 4096) -> dict[str, float]:
    """Shared-memory bytes/s of conflict-free 16-byte accesses (loads only, and stores+loads)."""
    import cupy  # noqa: PLC0415
    mod = cupy.RawModule(code=_PEAK_SRC)
    sms = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]
    blocks, threads = sms * 2, 1024
    out = cupy.zeros(blocks * threads, dtype=cupy.uint32)
    res: dict[str, float] = {"sms": float(sms)}
    for name, per_iter in (("llv_peak_ld", 8 * 16), ("llv_peak_stld", 4 * 32)):
        fn = mod.get_function(name)
        for _ in range(3):
            fn((blocks,), (threads,), (out, np.int32(iters)))
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        ts = []
        for _ in range(7):
            start.record()
            fn((blocks,), (threads,), (out, np.int32(iters)))
            end.record()
            end.synchronize()
            ts.append(cupy.cuda.get_elapsed_time(start, end) / 1000.0)
        t = float(np.median(ts))
        res[name.replace("llv_peak_", "") + "_bytes_per_s"] = blocks * threads * per_iter * iters / t
    res["peak_bytes_per_s"] = max(res["ld_bytes_per_s"], res["stld_bytes_per_s"])
    return res
