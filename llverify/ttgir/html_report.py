"""``llverify ttgir --report DIR``: the gate's proof report for a code review.

:func:`write_gate_report` writes two files into ``DIR``:

* ``report.md``: the Markdown format of :mod:`llverify.ttgir.report` (summary,
  obligations not proved, conversions with class and cost, obligations per op,
  the baseline diff as a table), ready to paste into a pull request;
* ``report.html``: one self-contained page (no script, no external resource)
  with the same content laid out per kernel: verdict counts, each obligation
  not proved with its ``.ttgir`` and Python locations, message and
  counterexample table, the conversions, the baseline diff with regressions
  marked, and every obligation of every kernel in a collapsed list.

Nothing here decides anything: every verdict shown is one the gate produced,
with the counterexample it replayed.

>>> _kernel_rows([])
[]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import jinja2

from llverify import __version__
from llverify.prove.verdict import STATUSES
from llverify.spec.summary import cx_table
from llverify.ttgir.baseline import KernelDiff, render_diff
from llverify.ttgir.findings import Finding
from llverify.ttgir.report import counts, render, summary_line

__all__ = ["write_gate_report", "GateReportError"]

_TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_LISTED = 20_000  # obligations listed in the collapsed per-kernel lists (the counts are always complete)


class GateReportError(Exception):
    """The report directory cannot be created or written (message: ``DIR:1:1: error: ...``)."""


@dataclass(frozen=True)
class _KernelRow:
    kernel: str
    target: str
    stage: str
    files: tuple[str, ...]
    counts: dict[str, int]
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return self.counts["refuted"] == 0 and self.counts["error"] == 0


def _kernel_rows(findings: Sequence[Finding]) -> list[_KernelRow]:
    """Findings grouped by ``(kernel, target, stage)`` in first-seen order, failing kernels first."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.kernel, f.target, f.stage), []).append(f)
    rows = [_KernelRow(k, t, s, tuple(dict.fromkeys(f.location.file for f in fs)), counts(fs), tuple(fs))
            for (k, t, s), fs in groups.items()]
    return sorted(rows, key=lambda r: r.ok)  # stable: failing kernels first, otherwise as met


def _finding_view(f: Finding) -> dict[str, Any]:
    v = f.verdict
    cx = None
    if v.counterexample is not None:
        header, rows = cx_table(v.counterexample)
        cx = {"header": header, "rows": rows, "note": v.counterexample.note}
    low = v.details.get("lowered") if isinstance(v.details.get("lowered"), dict) else None
    return {
        "status": v.status, "expect": f.expect, "ok": f.ok, "rule": f.rule, "op": f.op, "kernel": f.kernel,
        "where": f"{f.location.file}:{f.location.line}:{f.location.col}",
        "source": None if f.source is None else f"{f.source.file}:{f.source.line}:{f.source.col}",
        "lowered": None if low is None else f"{low.get('file')}:{low.get('line')}:{low.get('col')}",
        "subject": v.subject, "message": v.message, "method": v.method, "seconds": v.seconds, "cx": cx,
        "classification": v.details.get("classification"),
        "cost": {k: c for k, c in (v.details.get("cost") or {}).items() if k != "model"},
    }


def _diff_view(diffs: Sequence[KernelDiff]) -> list[dict[str, Any]]:
    return [{"kernel": kd.kernel, "target": kd.target, "stage": kd.stage, "kind": c.kind, "key": c.key,
             "before": c.before, "after": c.after, "regression": c.regression}
            for kd in diffs for c in kd.changes]


def render_html(findings: Sequence[Finding], errors: Sequence[str], diffs: Sequence[KernelDiff] | None,
                summary: dict[str, Any]) -> str:
    """The HTML page (a string); ``diffs`` is ``None`` when no baseline was given."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    c = counts(findings)
    rows = _kernel_rows(findings)
    listed = 0
    kernels = []
    for r in rows:
        take = max(0, min(len(r.findings), MAX_LISTED - listed))
        listed += take
        kernels.append({"kernel": r.kernel, "target": r.target, "stage": r.stage, "files": r.files,
                        "counts": r.counts, "ok": r.ok,
                        "failing": [_finding_view(f) for f in r.findings if not f.ok or f.verdict.status != "proved"],
                        "all": [_finding_view(f) for f in r.findings[:take]],
                        "left_out": len(r.findings) - take})
    conversions = [_finding_view(f) for f in findings
                   if f.rule == "conversion" and "classification" in f.verdict.details]
    return env.get_template("gate.html.j2").render(
        version=__version__, summary=summary_line(findings, errors, summary), counts=c, statuses=STATUSES,
        good=c["refuted"] == 0 and c["error"] == 0 and not errors, errors=list(errors), kernels=kernels,
        conversions=conversions, diffs=None if diffs is None else _diff_view(diffs),
        per_op=summary.get("per_op") or {}, modules=summary.get("modules", 0), files=summary.get("files", 0))


def write_gate_report(directory: str, findings: Sequence[Finding], errors: Sequence[str],
                      diffs: Sequence[KernelDiff] | None, summary: dict[str, Any]) -> list[str]:
    """Write ``report.md`` and ``report.html`` into ``directory`` (created if missing); return their paths.

    Raises :class:`GateReportError` (one located line) when the directory cannot be made or written.
    """
    diff_md = "" if diffs is None else render_diff(diffs, markdown=True)
    markdown = render("markdown", findings, errors, diff_md, summary)
    html = render_html(findings, errors, diffs, summary)
    try:
        os.makedirs(directory, exist_ok=True)
        out = []
        for name, text in (("report.md", markdown), ("report.html", html)):
            path = os.path.join(directory, name)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            out.append(path)
    except OSError as exc:
        raise GateReportError(f"{directory}:1:1: error: cannot write the report: {exc.strerror or exc}") from None
    return out
