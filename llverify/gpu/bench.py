"""Run a list of cases on the GPU: compile, check bit for bit, time, profile with ncu, report.

:func:`run_cases` is what ``llverify gpu run`` and ``llverify gpu bench`` call.
Steps (each case independent; a failure is recorded, never fatal):

1. generate the kernels and their predictions (:mod:`llverify.gpu.predict`);
2. compile them all (:func:`~llverify.gpu.runner.compile_kernels`);
3. measure the shared-memory peak once (:func:`~llverify.gpu.runner.measure_peak`);
4. per case: refused when ptxas reports spilling (:func:`spill_refusal`); else a bit-exact check on small
   grids, then timing on a full grid;
5. one ``ncu`` run over a child process that launches every kernel once
   (one block, one repetition), parsed into wavefronts per instruction;
6. the JSON and Markdown report (:mod:`llverify.gpu.report`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from llverify.gpu.cases import Case
from llverify.gpu.kernels import KernelSource
from llverify.gpu.ncu import ncu_command, ncu_path, parse_csv, per_instruction
from llverify.gpu.predict import predict

__all__ = ["run_cases", "kernels_to_json", "profile_with_ncu", "spill_refusal"]


def kernels_to_json(kernels: Sequence[KernelSource]) -> list[dict[str, Any]]:
    return [{"name": k.name, "code": k.code, "threads": k.threads, "smem_bytes": k.smem_bytes,
             "elem_bytes": k.elem_bytes, "n_src_regs": k.n_src_regs, "n_dst_regs": k.n_dst_regs,
             "tile_elems": k.tile_elems, "gvec": k.gvec, "ovec": k.ovec, "svec": k.svec, "lvec": k.lvec,
             "shuffle_rounds": k.shuffle_rounds} for k in kernels]


def profile_with_ncu(kernels: Sequence[KernelSource], cache: Path, log: Callable[[str], None]) -> dict[str, Any]:
    """Launch each kernel once under ncu; kernel name -> metrics (or an error)."""
    exe = ncu_path()
    if exe is None:
        return {"available": False, "error": "ncu not found on PATH or under /opt/nvidia/nsight-compute"}
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "kernels.json"
        spec.write_text(json.dumps({"cache": str(cache), "kernels": kernels_to_json(kernels)}))
        logf = Path(tmp) / "ncu.csv"
        cmd = ncu_command([sys.executable, "-m", "llverify.gpu.profile_child", str(spec)], str(logf), ncu=exe)
        log(f"ncu: {' '.join(cmd[:8])} ... ({len(kernels)} kernels)")
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
        text = logf.read_text() if logf.exists() else ""
        launches = parse_csv(text)
        res: dict[str, Any] = {"available": True, "command": " ".join(cmd[:-1]) + " KERNELS.json",
                               "seconds": round(time.time() - t0, 1), "returncode": r.returncode,
                               "raw": text, "metrics": {}}
        if r.returncode != 0 or not launches:
            res["error"] = (r.stderr or r.stdout or text)[-1500:]
        for ln in launches:
            res["metrics"].setdefault(ln.kernel, dict(ln.metrics))
        return res


def spill_refusal(usage: dict[str, int] | None) -> str | None:
    """Why a case must not be measured: ptxas reports spill stores or loads (local-memory traffic would be
    counted with the shared-memory accesses the suite measures), or None.

    >>> spill_refusal({"registers": 255, "spill_store_bytes": 628, "spill_load_bytes": 640})
    'spills (ptxas: 255 registers, 628 bytes spill stores, 640 bytes spill loads): not measured'
    >>> spill_refusal({"registers": 64}) is None
    True
    """
    if not usage:
        return None
    st, ld = usage.get("spill_store_bytes", 0), usage.get("spill_load_bytes", 0)
    if not (st or ld):
        return None
    return (f"spills (ptxas: {usage.get('registers', '?')} registers, {st} bytes spill stores, {ld} bytes spill "
            "loads): not measured")


def run_cases(cases: Sequence[Case], out_dir: Path, title: str, use_ncu: bool = True,
              log: Callable[[str], None] = print, n_blocks_per_sm: int = 8, extra_reps: int = 64) -> dict[str, Any]:
    """Run everything on the current GPU and write ``out_dir/<title>.json`` and ``.md``; returns the report."""
    import cupy  # noqa: PLC0415

    from llverify.gpu.report import build_report, write_report  # noqa: PLC0415
    from llverify.gpu.runner import (check_case, compile_kernels, device_name, measure_peak,  # noqa: PLC0415
                                     nvcc_flags, resource_usage, time_case)

    t0 = time.time()
    kernels = [c.kernel() for c in cases]
    preds = [predict(c, k) for c, k in zip(cases, kernels)]
    cache = Path(os.environ.get("LLVERIFY_GPU_CUBINS", Path(tempfile.gettempdir()) / "llverify_gpu_cubins"))
    log(f"{len(cases)} cases generated in {time.time() - t0:.1f}s; compiling")
    t1 = time.time()
    fns = compile_kernels(kernels, cache)
    usage = resource_usage(kernels, cache)
    log(f"compiled in {time.time() - t1:.1f}s; measuring the shared-memory peak")
    peak = measure_peak()
    sms = int(peak["sms"])
    log(f"peak {peak['peak_bytes_per_s'] / 1e12:.2f} TB/s on {sms} SMs")
    rows: list[dict[str, Any]] = []
    refused = {k.name: why for k in kernels if (why := spill_refusal(usage.get(k.name))) is not None}
    for i, (c, k, p) in enumerate(zip(cases, kernels, preds)):
        a, b = c.maps()
        row: dict[str, Any] = {"case": c, "kernel": k, "prediction": p, "resources": usage.get(k.name)}
        if k.name in refused:
            row["refused"] = refused[k.name]
            rows.append(row)
            continue
        try:
            chk = check_case(fns[k.name], k, b, c.dtype)
            row["check"] = chk
            tm = time_case(fns[k.name], k, b, c.dtype, n_blocks=sms * n_blocks_per_sm, extra_reps=extra_reps)
            row["timing"] = tm
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
        if (i + 1) % 20 == 0 or i + 1 == len(cases):
            log(f"  {i + 1}/{len(cases)} cases checked and timed ({time.time() - t0:.0f}s)")
        cupy.get_default_memory_pool().free_all_blocks()
    prof: dict[str, Any] = {"available": False, "error": "skipped (--no-ncu)"}
    if use_ncu:
        prof = profile_with_ncu([k for k in kernels if k.name not in refused], cache, log)
    report = build_report(rows, prof, peak, device_name(), title, time.time() - t0)
    report["nvcc_flags"] = nvcc_flags()
    write_report(report, out_dir, title, raw_ncu=prof.get("raw"))
    return report


def measured_per_instruction(prof: dict[str, Any], kernel: str) -> dict[str, float | None] | None:
    m = prof.get("metrics", {}).get(kernel)
    return None if m is None else per_instruction(m)
