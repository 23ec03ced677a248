"""``llverify ttgir``: the CI gate over Triton's TTGIR (see docs/ttgir.md).

``llverify ttgir PATHS... [--format text|json|junit|sarif|markdown] [--output F] [--report DIR] [--policy FILE]
[--baseline PATHS]... [--target T] [-j N] [--cache PATH | --no-cache] [--list-rules]``

PATHS are modules (``*.ttgir``, ``*.mlir``), directories (searched
recursively; a Triton cache directory is one), or ``MLIR_ENABLE_DUMP`` output
(one module per pass snapshot, validated pass by pass: see
:mod:`llverify.ttgir.passes`).  Exit codes as ``llverify check``: 0 every
obligation proved (and no policy violation or baseline regression), 1 a
refutation, violation or regression, 2 a module could not be read or the
command line is wrong, 3 only unknowns remain (0 with ``--allow-unknown``).

Unless ``--no-cache``, a module whose text, options and llverify code are unchanged since a run that
proved it (or left only deterministic unknowns) is served from the module cache
(:mod:`llverify.ttgir.modcache`, docs/scale.md) without being read as TTGIR; modules with a refutation
or an error are checked on every run.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Sequence

import click

from llverify.executor.options import executor_options
from llverify.ttgir.runner import ModuleRunner, default_cache

__all__ = ["ttgir"]

FORMATS = ("text", "json", "junit", "sarif", "markdown")
# llverify.spec.summary's exit codes (equal by a test), not imported: a warm run loads no spec front end
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3
def _warn(message: str) -> None:
    """A runner's warning (an unusable module cache), on standard error."""
    click.echo(message, err=True)


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
@click.option("--target", "default_target", default=None, metavar="TARGET",
              help="The target of modules without ttg.target (cuda:90, hip:gfx942, ...); a module's own "
                   "ttg.target is kept.  Without it, the one target a file's // RUN: lines name (Triton's lit "
                   "tests) is used.")
@click.option("--list-rules", is_flag=True, help="List the obligations the gate checks and exit.")
@click.option("-v", "--verbose", is_flag=True, help="Show every obligation, not only the failing ones.")
def ttgir(paths: tuple[str, ...], fmt: str, output: str | None, report_dir: str | None, policy_path: str | None,
          baseline_paths: tuple[str, ...], jobs: int, executor: str, ray_address: str | None,
          cache_path: str | None, no_cache: bool, allow_unknown: bool, lowered: bool, default_target: str | None,
          list_rules: bool, verbose: bool) -> None:
    """Gate Triton's TTGIR: prove every layout-bearing op of every module under PATHS."""
    from llverify.ttgir.loader import discover
    from llverify.errors import TtgirError

    if list_rules:
        from llverify.ttgir.rules import RULES

        for r in RULES:
            click.echo(f"{r.name:16} {r.claim} [{r.paper}]")
        return
    if not paths:
        click.echo("error: give at least one TTGIR module, directory or dump (llverify ttgir --help)", err=True)
        sys.exit(EXIT_USAGE)
    if default_target is not None:
        from llverify.ttgir.run_lines import TARGET_SPELLING, parse_target

        if parse_target(default_target) is None:
            click.echo(f"<command line>:1:1: error: --target {default_target[:80]!r} is not a target: give "
                       f"{TARGET_SPELLING}", err=True)
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
    cache_file = None if no_cache else str(cache_path or default_cache())
    # text without -v, json and sarif are assembled from each module's lines, JSON fragments or SARIF results
    # (stored in the module cache, or made by the worker); everything else needs the findings themselves
    want = fmt in ("junit", "markdown") or (verbose and fmt == "text") or policy is not None \
        or bool(baseline_paths) or bool(report_dir)
    need = "findings" if want else fmt
    t0 = time.perf_counter()
    files = discover(list(paths))
    errors = [str(f) for f in files if isinstance(f, TtgirError)]
    names = [f for f in files if isinstance(f, str)]
    modules = cached = n = 0
    c = {"proved": 0, "refuted": 0, "unknown": 0, "error": 0}
    findings: list[Any] = []
    body: list[str] = []  # the text report's lines before its conversions and summary (when not streamed)
    conv: list[str] = []
    # the text report goes to the terminal module by module, in the order of the paths, as each is ready
    stream = need == "text" and not output
    if need == "text":
        from llverify.ttgir.report import as_error_line

        body = [as_error_line(e) for e in errors]
        if stream and body:
            click.echo("\n".join(body))
            body = []
    with ModuleRunner(cache_file, jobs, executor, ray_address, default_target, warn=_warn) as runner:
        outcomes = []
        for o in runner.gate_iter(names, need, lowered):
            errors.extend(o.errors)
            modules += o.modules
            cached += o.cached
            n += o.n
            for k, v in o.counts.items():
                c[k] += v
            if want:
                findings.extend(o.findings)
            elif need == "text":
                lines = [as_error_line(e) for e in o.errors] + o.diag
                conv.extend(o.conv)
                if stream:
                    if lines:
                        click.echo("\n".join(lines))
                else:
                    body.extend(lines)
                continue  # text needs nothing more of the outcome
            outcomes.append(o)
        base_outcomes = runner.gate([f for f in discover(list(baseline_paths)) if isinstance(f, str)], "findings",
                                    False) if baseline_paths else []
    if not names and not errors:
        errors.append(f"{paths[0]}:1:1: no *.ttgir or *.mlir module found")
        if need == "text":
            body.append(as_error_line(errors[-1]))
    summary: dict[str, Any] = {"modules": modules, "files": len(names), "cached_files": cached, "obligations": n}
    statuses = {k for k, v in c.items() if v}
    if want:
        extra: list[Any] = []
        diff_text = ""
        diffs = None
        if baseline_paths:
            from llverify.ttgir.baseline import diff_findings, regressions, render_diff

            base = [f for o in base_outcomes for f in o.findings]
            diffs = diff_findings(base, findings)
            extra.extend(regressions(diffs))
            diff_text = render_diff(diffs, markdown=fmt == "markdown")
        if policy is not None:
            from llverify.ttgir.policy import apply_policy

            extra.extend(apply_policy(policy, findings))
        from llverify.ttgir.gate import op_counts

        everything = findings + extra
        summary["per_op"] = op_counts(findings)
        summary["seconds"] = round(time.perf_counter() - t0, 3)
        text = _render(fmt, everything, errors, diff_text, summary, allow_unknown, verbose)
        statuses = {f.verdict.status for f in everything}
        if report_dir:
            from llverify.ttgir.html_report import GateReportError, write_gate_report

            try:
                write_gate_report(report_dir, everything, errors, diffs, summary)
            except GateReportError as exc:
                click.echo(str(exc), err=True)
                sys.exit(EXIT_USAGE)
    elif need == "json":
        from llverify.ttgir.report import assemble_json

        summary["per_op"] = _merge_per_op(outcomes)
        summary["seconds"] = round(time.perf_counter() - t0, 3)
        text = assemble_json([x for o in outcomes for x in o.fragments], c, errors, "", summary)
    elif need == "sarif":
        from llverify.ttgir.report import sarif_document

        rules: dict[str, str] = {}
        for o in outcomes:
            rules.update(o.rules)
        text = sarif_document([x for o in outcomes for x in o.sarif], rules, errors, not allow_unknown)
    else:
        from llverify.ttgir.report import assemble_text

        summary["seconds"] = round(time.perf_counter() - t0, 3)
        text = assemble_text(body, conv, c, n, errors, "", summary)
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
    if "refuted" in statuses:
        sys.exit(EXIT_FAIL)
    if errors or "error" in statuses:
        sys.exit(EXIT_USAGE)
    if "unknown" in statuses and not allow_unknown:
        sys.exit(EXIT_UNKNOWN)
    sys.exit(EXIT_OK)


def _merge_per_op(outcomes: Sequence[Any]) -> dict[str, dict[str, int]]:
    """:func:`llverify.ttgir.gate.op_counts` of the whole run, from each module's."""
    out: dict[str, dict[str, int]] = {}
    for o in outcomes:
        for op, row in o.per_op.items():
            mine = out.setdefault(op, {"proved": 0, "refuted": 0, "unknown": 0, "error": 0})
            for k, v in row.items():
                mine[k] += v
    return dict(sorted(out.items()))

