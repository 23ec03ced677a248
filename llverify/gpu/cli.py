"""``llverify gpu``: run generated kernels on a GPU (``run SPEC``, ``bench``) or just emit them (``emit``).

Without CuPy or a CUDA device, ``run`` and ``bench`` print one line saying
so and exit 2.  ``emit`` needs no GPU: it writes the generated CUDA C of
every case (and, with ``--compile``, checks that ``nvcc -arch=sm_90``
accepts it).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import click

from llverify.errors import LlverifyError

__all__ = ["gpu"]

_VARIANTS = ("unswizzled", "triton", "optimal", "shuffle")


def _select(cases: list, only: Sequence[str]) -> list:
    if not only:
        return cases
    return [c for c in cases if any(s in c.name for s in only)]


def _need_gpu() -> None:
    from llverify.gpu.runner import gpu_unavailable  # noqa: PLC0415
    why = gpu_unavailable()
    if why is not None:
        click.echo(f"llverify gpu: no GPU run possible: {why}", err=True)
        sys.exit(2)


@click.group("gpu")
def gpu() -> None:
    """Generate CUDA kernels from verified plans, run them, check them bit for bit, measure bank conflicts."""


def _echo(msg: str) -> None:
    click.echo(msg, err=True)


@gpu.command("bench")
@click.option("--out", "out_dir", default="reports/gpu", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the Markdown + JSON report.")
@click.option("--quick", is_flag=True, help="64x64 tiles only.")
@click.option("--only", multiple=True, help="Keep cases whose name contains this text (repeatable).")
@click.option("--variant", "variants", multiple=True, type=click.Choice(_VARIANTS),
              help="Variants to run (default: all).")
@click.option("--no-ncu", is_flag=True, help="Skip the Nsight Compute pass.")
@click.option("--title", default="H200 conversion suite", show_default=True)
def bench(out_dir: str, quick: bool, only: tuple[str, ...], variants: tuple[str, ...], no_ncu: bool,
          title: str) -> None:
    """Run the fixed suite of conversions (blocked/mma/dot operands/transposes/slices, f32/f16/f8)."""
    _need_gpu()
    from llverify.gpu.bench import run_cases  # noqa: PLC0415
    from llverify.gpu.cases import suite  # noqa: PLC0415
    cases = _select(suite(quick=quick, variants=variants or _VARIANTS), only)
    rep = run_cases(cases, Path(out_dir), title, use_ncu=not no_ncu, log=_echo)
    s = rep["summary"]
    click.echo(f"{s['bit_exact']}/{s['cases']} bit-exact; wavefronts as predicted in "
               f"{s['predictions_match']}/{s['predictions_checked']}; report in {out_dir}")
    sys.exit(0 if s["bit_exact"] == s["cases"] else 1)


def _spec_cases(path: str, dtype: str, variants: Sequence[str]) -> list:
    from llverify.gpu.cases import make_case  # noqa: PLC0415
    from llverify.spec.parse import load_spec  # noqa: PLC0415
    spec = load_spec(path)
    cases = []
    for chk in spec.checks:
        args = dict(chk.args)
        if chk.property == "conversion":
            src, dst = spec.layouts[args["from"]], spec.layouts[args["to"]]
            pair = f"{chk.name}"
        elif chk.property == "bank_conflicts" and "shared" in args:
            src = dst = spec.layouts[args["access"]]
            pair = f"{chk.name}"
        else:
            continue
        bits = args.get("bitwidth")
        dt = {8: "f8", 16: "f16", 32: "f32"}.get(bits, dtype) if bits else dtype
        if chk.property == "bank_conflicts":
            from llverify.gpu.cases import Case  # noqa: PLC0415
            cases.append(Case(f"{pair}.{dt}.given", pair, dt, "given", src, dst, shared=spec.layouts[args["shared"]]))
            continue
        for v in variants:
            c = make_case(pair, dt, v, src, dst)
            if c is not None:
                cases.append(c)
    return cases


@gpu.command("run")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", default="reports/gpu", show_default=True, type=click.Path(file_okay=False))
@click.option("--dtype", default="f16", type=click.Choice(["f32", "f16", "f8"]), show_default=True,
              help="Element type where a check gives no bitwidth.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(_VARIANTS))
@click.option("--no-ncu", is_flag=True, help="Skip the Nsight Compute pass.")
def run(spec: str, out_dir: str, dtype: str, variants: tuple[str, ...], no_ncu: bool) -> None:
    """Run the conversions and shared-memory accesses of SPEC on the GPU."""
    _need_gpu()
    from llverify.gpu.bench import run_cases  # noqa: PLC0415
    try:
        cases = _spec_cases(spec, dtype, variants or _VARIANTS)
    except LlverifyError as exc:
        click.echo(f"llverify gpu run: {exc}", err=True)
        sys.exit(2)
    if not cases:
        click.echo(f"llverify gpu run: {spec} has no conversion or bank_conflicts (with shared) check", err=True)
        sys.exit(2)
    rep = run_cases(cases, Path(out_dir), Path(spec).stem, use_ncu=not no_ncu, log=_echo)
    s = rep["summary"]
    click.echo(f"{s['bit_exact']}/{s['cases']} bit-exact; wavefronts as predicted in "
               f"{s['predictions_match']}/{s['predictions_checked']}; report in {out_dir}")
    sys.exit(0 if s["bit_exact"] == s["cases"] else 1)


@gpu.command("emit")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Folder for the .cu files.")
@click.option("--quick", is_flag=True, help="64x64 tiles only.")
@click.option("--only", multiple=True, help="Keep cases whose name contains this text.")
@click.option("--compile", "do_compile", is_flag=True, help="Also compile each with nvcc -arch=sm_90 -cubin.")
def emit(out_dir: str, quick: bool, only: tuple[str, ...], do_compile: bool) -> None:
    """Write the generated CUDA C of the suite (no GPU needed)."""
    from llverify.gpu.cases import suite  # noqa: PLC0415
    cases = _select(suite(quick=quick), only)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kernels = [c.kernel() for c in cases]
    for k in kernels:
        (out / f"{k.name}.cu").write_text(k.code)
    click.echo(f"wrote {len(kernels)} kernels to {out}")
    if do_compile:
        import shutil  # noqa: PLC0415
        if shutil.which("nvcc") is None:
            click.echo("llverify gpu emit: nvcc is not on PATH", err=True)
            sys.exit(2)
        from llverify.gpu.runner import build_cubins  # noqa: PLC0415
        try:
            build_cubins(kernels, out / "cubin")
        except RuntimeError as exc:
            click.echo(str(exc), err=True)
            sys.exit(1)
        click.echo(f"compiled {len(kernels)} kernels with nvcc -arch=sm_90")


@gpu.command("triton-run")
@click.option("--set", "which", type=click.Choice(["pairs", "corpus", "staging"]), default="pairs", show_default=True,
              help="pairs: the hand-written Gluon pairs (+ llverify's swizzle); corpus: every 2-D convert_layout of "
                   "the sm_90 corpus; staging: the corpus's real local_alloc + local_load pairs.")
@click.option("--only", default=None, help="One case of the pairs set, by name.")
@click.option("--no-ncu", is_flag=True, help="Skip the Nsight Compute pass (no measured wavefronts).")
@click.option("-o", "--out-dir", type=click.Path(file_okay=False), default="reports/gpu/triton_run", show_default=True)
def triton_run_cmd(which: str, only: str | None, no_ncu: bool, out_dir: str) -> None:
    """On the GPU machine: run Triton's own kernels of a set, the same once more under `ncu --clock-control
    none` for the shared-memory counters, and write the analysis (triton_conversions.{json,md}) to OUT_DIR.

    Needs torch and Triton beside the GPU (no z3); the results and ncu CSV are kept in OUT_DIR too.
    """
    import shlex
    import subprocess
    import sys as _sys

    from llverify.gpu.ncu import ncu_command, ncu_path
    from llverify.gpu.triton_cvt import analyse, staging_report, write_report

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    flag = {"pairs": [], "corpus": ["--corpus"], "staging": ["--staging"]}[which]
    extra = ["--case", only] if only and which == "pairs" else []
    program = [_sys.executable, "-m", "llverify.gpu.triton_cvt_device"]
    results = out / "cvt.json"
    done = subprocess.run([*program, str(results), *flag, *extra], capture_output=True, text=True)
    if done.returncode != 0:
        raise click.ClickException(f"the device run failed: {done.stderr.strip()[-500:]}")
    click.echo(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "ran")
    ncu_csv = ""
    exe = None if no_ncu else ncu_path()
    if exe is not None:
        ncu_csv = str(out / "ncu.csv")
        regex = {"pairs": "^cvt_", "corpus": "^cvt_probe", "staging": "^stage_probe"}[which]
        cmd = ncu_command([*program, str(out / "cvt_ncu_run.json"), *flag, *extra, "--no-time"], ncu_csv,
                          kernel_regex=regex, ncu=exe)
        prof = subprocess.run(cmd, capture_output=True, text=True)
        if prof.returncode != 0:
            click.echo(f"ncu failed ({shlex.join(cmd[:3])} ...): {prof.stderr.strip()[-300:]}", err=True)
            ncu_csv = ""
    device = _device_name()
    if which == "staging":
        staging_report(str(results), ncu_csv, out_dir)
        paths = [out / "triton_conversions.json", out / "triton_conversions.md"]
    else:
        title = {"pairs": "Triton's own conversions of the hand-written Gluon pairs",
                 "corpus": "Every 2-D convert_layout of the sm_90 corpus, lowered by Triton"}[which]
        paths = write_report(analyse(str(results), ncu_csv), out_dir, title=f"{title} on {device}, against "
                                                                            "llverify's model")
    for p in paths:
        click.echo(str(p))


def _device_name() -> str:
    """The GPU's name (torch), or "the GPU"."""
    try:
        import torch

        return torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001 - only a label
        return "the GPU"


@gpu.command("triton")
@click.argument("results", type=click.Path(dir_okay=False, exists=True))
@click.argument("ncu_csv", type=click.Path(dir_okay=False, exists=True), required=False)
@click.option("-o", "--out-dir", default="reports/gpu", show_default=True, type=click.Path(file_okay=False))
def triton_cmd(results: str, ncu_csv: str | None, out_dir: str) -> None:
    """Analyse a run of Triton's own conversions (llverify.gpu.triton_cvt_device) against llverify's model.

    On the GPU machine: `python3 -m llverify.gpu.triton_cvt_device RESULTS.json` and the same under
    `ncu --clock-control none --metrics ... --csv --log-file NCU.csv ... --no-time` (docs/gpu.md); here:
    `llverify gpu triton RESULTS.json NCU.csv` writes triton_conversions.{json,md}.
    """
    from llverify.gpu.triton_cvt import analyse, write_report

    rows = analyse(results, ncu_csv or "")
    for p in write_report(rows, out_dir):
        click.echo(str(p))
