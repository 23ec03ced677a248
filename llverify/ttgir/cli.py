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
import sqlite3
import sys
import time
from typing import Any, Iterator, Sequence

import click

from llverify.executor.options import executor_options

__all__ = ["ttgir"]

FORMATS = ("text", "json", "junit", "sarif", "markdown")
# llverify.spec.summary's exit codes (equal by a test), not imported: a warm run loads no spec front end
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3
#: a pool costs each worker's fork and its own import of the gate (in parallel with the other's: a few
#: milliseconds more than -j 1 on idle cores, more on a loaded machine): modules expected to cost less than
#: this in all (:func:`llverify.ttgir.units.unit_cost`'s bytes of text: about 0.15 s of checking), or fewer
#: than two, are checked in process whatever -j says
_MIN_PARALLEL_COST = 100_000


def _worth_a_pool(costs: Sequence[int]) -> bool:
    """Whether modules of these expected costs are checked faster by a pool than in process."""
    return len(costs) >= 2 and sum(costs) >= _MIN_PARALLEL_COST


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
    cache_file = None if no_cache else str(cache_path or _default_cache())
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
    with _Runner(cache_file, jobs, executor, ray_address, default_target) as runner:
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


def _default_cache() -> str:
    from llverify.executor.store import default_cache_file

    return default_cache_file()


class _Runner:
    """Serves what the module cache holds, runs the rest as units (one pool for the whole command), and
    writes the new records when the command is done with it."""

    def __init__(self, cache_file: str | None, jobs: int, executor: str, ray_address: str | None,
                 target: str | None = None) -> None:
        self.cache_file, self.jobs, self.executor_kind, self.ray_address = cache_file, jobs, executor, ray_address
        self.target = target  # --target: the target of modules without ttg.target (baseline modules too)
        self.cache: Any = None
        self.executor: Any = None
        self.records: list[tuple[Any, ...]] = []
        self.outputs: list[tuple[str, bytes]] = []  # JSON fragments added to records stored by other formats

    def __enter__(self) -> "_Runner":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.close()
        if self.cache is not None:
            try:
                self.cache.store(self.records)
                self.cache.add_outputs(self.outputs)
                self.cache.close()
            except (OSError, sqlite3.Error) as exc:  # the report stands; the next run checks again
                click.echo(f"{self.cache_file}:1:1: warning: verdict cache not written: {exc}", err=True)

    def gate(self, names: list[str], need: str, lowered: bool) -> list[Any]:
        """One outcome per path of ``names``, in order, with what ``need`` asks for
        (:func:`llverify.ttgir.units.run_unit`)."""
        return list(self.gate_iter(names, need, lowered))

    def gate_iter(self, names: list[str], need: str, lowered: bool) -> Iterator[Any]:
        """:meth:`gate`'s outcomes, yielded in the order of ``names`` as soon as each is ready (served from the
        module cache at once, checked ones as the executor streams them back)."""
        outcomes: list[Any] = [None] * len(names)
        context = None
        if self.cache_file and names:
            from llverify.ttgir.modcache import ModuleCache, key_context

            if self.cache is None:
                try:
                    self.cache = ModuleCache(self.cache_file)
                except (OSError, sqlite3.Error) as exc:  # an unusable cache only costs time
                    click.echo(f"{self.cache_file}:1:1: warning: verdict cache not used: {exc}", err=True)
                    self.cache_file = None
            if self.cache is not None:
                context = key_context(lowered, self.target)
                self._serve(names, outcomes, context, need, lowered)
        todo = [i for i, o in enumerate(outcomes) if o is None]
        checked: Iterator[Any] = iter(())
        if todo:
            from llverify.executor.pool import WorkerFailure
            from llverify.ttgir.units import failed_outcome, preload, run_unit, unit_cost

            units = [(names[i], need, lowered, context, self.target) for i in todo]
            # only a pool schedules by cost (an inline run reads no file twice), and only a worthwhile one starts
            inline = self.jobs == 1 and self.executor_kind == "process"
            weights = None if inline else [unit_cost(names[i]) for i in todo]
            if inline or (self.executor_kind == "process" and not _worth_a_pool(weights or [])):
                checked = map(run_unit, units)
            else:
                if self.executor is None:
                    from llverify.executor.pool import UnitExecutor

                    # the workers inherit the gate, imported once here (docs/scale.md: it saves a second import
                    # in CPU and the workers' collections over it, and costs no wall time on idle cores)
                    self.executor = UnitExecutor(jobs=self.jobs, executor=self.executor_kind,
                                                 ray_address=self.ray_address, min_parallel=2, prepare=preload)
                checked = self.executor.imap(run_unit, units, weights=weights)
        for name, o in zip(names, outcomes):
            if o is None:  # the next checked one: todo is in the order of names, and so is imap
                r = next(checked)
                o = failed_outcome(name, r.message) if isinstance(r, WorkerFailure) else r
                if o.record is not None:
                    self.records.append(o.record)
            yield o

    def _fragments_from_findings(self, key: str, name: str) -> list[str] | None:
        """A record stored by a run of another format has no JSON fragments: render them from its findings
        (once: they are added to the record when the command is done), or None when they do not check out."""
        from llverify.ttgir.modcache import JSON_PLACEHOLDER, PLACEHOLDER, encode_fragments, json_path
        from llverify.ttgir.report import json_fragment

        placed = self.cache.findings(key, PLACEHOLDER)
        if placed is None:
            return None
        frags = [json_fragment(f) for f in placed]
        whole = f'"{JSON_PLACEHOLDER}"'
        if not all(x.count(JSON_PLACEHOLDER) == x.count(whole) for x in frags):
            return None
        self.outputs.append((key, encode_fragments(frags)))
        where = json_path(name)
        return [x.replace(JSON_PLACEHOLDER, where) for x in frags]

    def _serve(self, names: list[str], outcomes: list[Any], context: str, need: str, lowered: bool) -> None:
        import hashlib

        from llverify.ttgir.loader import read_bytes
        from llverify.ttgir.modcache import module_key, side_digests
        from llverify.errors import TtgirError

        digests: list[str | None] = []
        for name in names:
            try:
                digests.append(hashlib.sha256(read_bytes(name)).hexdigest())
            except TtgirError:
                digests.append(None)  # the unit reports it
        if lowered:
            self._serve_keys({i: module_key(context, d, side_digests(names[i])) for i, d in enumerate(digests)
                              if d is not None}, names, outcomes, need)
            return
        # a record is bound to its path only when it mentions it elsewhere than in locations (rare): those keys
        # are computed and asked for only for the modules the path-free keys did not serve
        self._serve_keys({i: module_key(context, d, None) for i, d in enumerate(digests) if d is not None},
                         names, outcomes, need)
        bound = {i: module_key(context, d, {"path": names[i]}) for i, d in enumerate(digests)
                 if d is not None and outcomes[i] is None}
        if bound:
            self._serve_keys(bound, names, outcomes, need)

    def _serve_keys(self, keys: dict[int, str], names: list[str], outcomes: list[Any], need: str) -> None:
        """Serves ``outcomes[i]`` from the record of ``keys[i]`` where it is stored and checks out."""
        rows = self.cache.lookup(list(keys.values()), outputs=need == "json")
        for i, key in keys.items():
            name = names[i]
            if key in rows:
                o = self.cache.serve(key, rows[key], name, need)
                if o is not None and need == "findings":
                    o.findings = self.cache.findings(key, name)
                    if o.findings is None:
                        o = None
                elif o is not None and need == "json":
                    o.fragments = self.cache.fragments(key, rows[key], name, o.n)
                    if o.fragments is None:
                        o.fragments = self._fragments_from_findings(key, name)
                        if o.fragments is None:
                            o = None
                if o is not None:
                    outcomes[i] = o


def _merge_per_op(outcomes: Sequence[Any]) -> dict[str, dict[str, int]]:
    """:func:`llverify.ttgir.gate.op_counts` of the whole run, from each module's."""
    out: dict[str, dict[str, int]] = {}
    for o in outcomes:
        for op, row in o.per_op.items():
            mine = out.setdefault(op, {"proved": 0, "refuted": 0, "unknown": 0, "error": 0})
            for k, v in row.items():
                mine[k] += v
    return dict(sorted(out.items()))

