"""``llverify ttgir``: the CI gate over Triton's TTGIR (see docs/ttgir.md).

``llverify ttgir PATHS... [--format text|json|junit|sarif|markdown] [--output F] [--report DIR] [--policy FILE]
[--baseline PATHS]... [-j N] [--cache PATH | --no-cache] [--list-rules]``

PATHS are modules (``*.ttgir``, ``*.mlir``), directories (searched
recursively; a Triton cache directory is one), or ``MLIR_ENABLE_DUMP`` output
(one module per pass snapshot, validated pass by pass: see
:mod:`llverify.ttgir.passes`).  Exit codes as ``llverify check``: 0 every
obligation proved (and no policy violation or baseline regression), 1 a
refutation, violation or regression, 2 a module could not be read or the
command line is wrong, 3 only unknowns remain (0 with ``--allow-unknown``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Any, Sequence

import click

from llverify.executor.options import executor_options

__all__ = ["ttgir"]

FORMATS = ("text", "json", "junit", "sarif", "markdown")


def _cache_key(path: str) -> str | None:
    from llverify.executor.cache import obligation_key

    try:
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read(64 << 20)).hexdigest()
    except OSError:
        return None
    return obligation_key({"ttgir_module": digest, "path": path})


def _lowered_findings(path: str) -> tuple[list[Any], list[str]]:
    """Lowered-code findings for a ``.ttgir`` whose ``.llir`` (and Triton's ``.json`` metadata, for the shared
    size) sit beside it, as in a Triton cache directory; nothing when they do not."""
    from dataclasses import replace

    from llverify.lowered.llir import LlirError, parse_llir
    from llverify.lowered.validate import validate
    from llverify.ttgir.loader import read_text
    from llverify.ttgir.model import TtgirError
    from llverify.ttgir.reader import parse_module

    stem = os.path.splitext(path)[0]
    if not (path.endswith(".ttgir") and os.path.isfile(stem + ".llir") and os.path.isfile(stem + ".json")):
        return [], []
    try:
        with open(stem + ".json", encoding="utf-8") as fh:
            shared = int(json.load(fh).get("shared") or 0)
        found = validate(parse_module(read_text(path), path), parse_llir(read_text(stem + ".llir"), stem + ".llir"),
                         shared)
    except (TtgirError, LlirError, OSError, ValueError, TypeError, AttributeError) as exc:
        return [], [f"{stem}.llir:1:1: lowered code not validated: {exc}"]
    out = []
    for lf in found:
        low = lf.lowered
        v = lf.finding.verdict
        out.append(replace(lf.finding, verdict=v.with_(details={**v.details, "lowered": {
            "file": low.file, "line": low.line, "col": low.col}}),
                           rule=v.property if v.property.startswith("lowered") else f"lowered_{v.property}"))
    return out, []


def _gate_unit(unit: tuple[str, str | None, bool]) -> Any:
    """Worker: gate one path, consulting the module cache (proved-only modules are cached)."""
    from llverify.prove.verdict import Verdict
    from llverify.ttgir.findings import finding_from_json
    from llverify.ttgir.gate import GateResult, gate_file

    path, cache_path, lowered = unit
    if lowered:
        low, low_errors = _lowered_findings(path)
        res, cached = _gate_unit((path, cache_path, False))
        return GateResult(res.path, res.findings + tuple(low), res.errors + tuple(low_errors), res.modules,
                          res.seconds), cached
    cache = _open_cache(cache_path) if cache_path else None
    key = _cache_key(path) if cache is not None else None
    if cache is not None and key:
        hit = cache.get(key)
        if hit is not None and not hit.replay_needed and isinstance(hit.verdict.certificate, dict):
            cert = hit.verdict.certificate
            findings = tuple(finding_from_json(d) for d in cert.get("findings", []))
            return GateResult(path, findings, tuple(cert.get("errors", [])), int(cert.get("modules", 0)), 0.0), True
    result = gate_file(path)
    if cache is not None and key and not result.errors and all(f.verdict.status == "proved" for f in result.findings):
        docs = []
        for f in result.findings:
            d = f.to_json()
            d["certificate"] = f.verdict.to_json().get("certificate")
            d["index"] = f.index
            docs.append(d)
        cache.put(key, Verdict("proved", "ttgir_module", path, "f2",
                               certificate={"findings": docs, "errors": [], "modules": result.modules}))
    return result, False


_CACHES: dict[str, Any] = {}


def _open_cache(path: str) -> Any:
    """One connection per process and cache file (workers of a pool each open their own)."""
    from llverify.executor.cache import VerdictCache

    key = f"{os.getpid()}:{path}"
    if key not in _CACHES:
        _CACHES[key] = VerdictCache(path)
    return _CACHES[key]


def _render(fmt: str, findings: Sequence[Any], errors: Sequence[str], diff_text: str, summary: dict[str, Any],
            allow_unknown: bool, verbose: bool) -> str:
    from llverify.ttgir import report

    return report.render(fmt, findings, errors, diff_text, summary, fail_on_unknown=not allow_unknown,
                         verbose=verbose)


@click.command("ttgir")
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report here instead of standard output.")
@click.option("--policy", "policy_path", type=click.Path(dir_okay=False), default=None,
              help="A policy file (docs/ttgir.md): thresholds the gate fails on.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None,
              help="Also write report.md and report.html (per kernel, failures with counterexamples, conversions, "
                   "the baseline diff) into this directory.")
@click.option("--baseline", "baseline_paths", multiple=True,
              help="Modules or directories of the baseline compiler; repeat for several.")
@executor_options
@click.option("--allow-unknown", is_flag=True, help="Exit 0 when only unknowns remain.")
@click.option("--lowered", is_flag=True,
              help="Also prove the lowered code: for a .ttgir with its .llir and Triton's .json beside it (a Triton "
                   "cache directory), every shared-memory access (docs/lowered.md).")
@click.option("--list-rules", is_flag=True, help="List the obligations the gate checks and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Show every obligation, not only the failing ones.")
def ttgir(paths: tuple[str, ...], fmt: str, output: str | None, report_dir: str | None, policy_path: str | None,
          baseline_paths: tuple[str, ...], jobs: int, executor: str, ray_address: str | None,
          cache_path: str | None, no_cache: bool, allow_unknown: bool, lowered: bool, list_rules: bool,
          verbose: bool) -> None:
    """Gate Triton's TTGIR: prove every layout-bearing op of every module under PATHS."""
    from llverify.spec.summary import EXIT_FAIL, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE
    from llverify.ttgir.loader import discover
    from llverify.ttgir.model import TtgirError
    from llverify.ttgir.rules import RULES

    if list_rules:
        for r in RULES:
            click.echo(f"{r.name:16} {r.claim} [{r.paper}]")
        return
    if not paths:
        click.echo("error: give at least one TTGIR module, directory or dump (llverify ttgir --help)", err=True)
        sys.exit(EXIT_USAGE)
    policy = None
    if policy_path:
        from llverify.ttgir.policy import PolicyError, load_policy

        try:
            policy = load_policy(policy_path)
        except PolicyError as exc:
            click.echo(f"{exc}", err=True)
            sys.exit(EXIT_USAGE)
    if output:
        parent = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(parent):
            click.echo(f"{output}:1:1: error: the output directory {parent} does not exist", err=True)
            sys.exit(EXIT_USAGE)
    cache_file = None if no_cache else str(cache_path or _default_cache())
    t0 = time.perf_counter()
    files = discover(list(paths))
    errors = [str(f) for f in files if isinstance(f, TtgirError)]
    units = [(f, cache_file, lowered) for f in files if isinstance(f, str)]
    results = _run_units(units, jobs, executor, ray_address)
    findings = []
    modules = cached = 0
    for res in results:
        if isinstance(res, str):
            errors.append(res)
            continue
        gr, was_cached = res
        findings.extend(gr.findings)
        errors.extend(gr.errors)
        modules += gr.modules
        cached += was_cached
    if not units and not errors:
        errors.append(f"{paths[0]}:1:1: no *.ttgir or *.mlir module found")
    extra = []
    diff_text = ""
    diffs = None
    if baseline_paths:
        from llverify.ttgir.baseline import diff_findings, regressions, render_diff

        base_files = [f for f in discover(list(baseline_paths)) if isinstance(f, str)]
        base_results = _run_units([(f, cache_file, False) for f in base_files], jobs, executor, ray_address)
        base = [f for r in base_results if not isinstance(r, str) for f in r[0].findings]
        diffs = diff_findings(base, findings)
        extra.extend(regressions(diffs))
        diff_text = render_diff(diffs, markdown=fmt == "markdown")
    if policy is not None:
        from llverify.ttgir.policy import apply_policy

        extra.extend(apply_policy(policy, findings))
    from llverify.ttgir.gate import op_counts

    everything = findings + extra
    summary = {"modules": modules, "files": len(units), "cached_files": cached, "obligations": len(findings),
               "per_op": op_counts(findings), "seconds": round(time.perf_counter() - t0, 3)}
    text = _render(fmt, everything, errors, diff_text, summary, allow_unknown, verbose)
    if report_dir:
        from llverify.ttgir.html_report import GateReportError, write_gate_report

        try:
            write_gate_report(report_dir, everything, errors, diffs, summary)
        except GateReportError as exc:
            click.echo(str(exc), err=True)
            sys.exit(EXIT_USAGE)
    if errors and (output or fmt != "text"):
        # the report carries them; the terminal must see them too when the report is a file or JSON
        from llverify.ttgir.report import as_error_line

        for e in errors:
            click.echo(as_error_line(e), err=True)
    if output:
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            click.echo(f"{output}:1:1: error: cannot write: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
    else:
        click.echo(text, nl=False)
    statuses = [f.verdict.status for f in everything]
    if "refuted" in statuses:
        sys.exit(EXIT_FAIL)
    if errors or "error" in statuses:
        sys.exit(EXIT_USAGE)
    if "unknown" in statuses and not allow_unknown:
        sys.exit(EXIT_UNKNOWN)
    sys.exit(EXIT_OK)


def _default_cache() -> str:
    from llverify.executor.cache import default_cache_path

    return str(default_cache_path())


def _run_units(units: list[tuple[str, str | None, bool]], jobs: int, executor: str, ray_address: str | None) -> list[Any]:
    from llverify.executor.pool import UnitExecutor, WorkerFailure

    with UnitExecutor(jobs=jobs, executor=executor, ray_address=ray_address, min_parallel=4) as ex:
        out = ex.map(_gate_unit, units)
    return [f"{u[0]}:1:1: {r.message}" if isinstance(r, WorkerFailure) else r for u, r in zip(units, out)]
