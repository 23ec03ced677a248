"""Proof reports: a Markdown file for pull requests and a self-contained HTML
file with pictures, from the results of a run.

:func:`write_report` writes ``report.md``, ``report.html`` and, for verdicts
that carry an SMT-LIB query, ``smt/<spec>-<n>.smt2`` (linked from both).  Per
check the report gives the claim in words, the verdict against the expected
one, the method, the time, the solver and its version, the message, the
counterexample (as a table and as a highlighted cell) and pictures chosen by
the check kind (see :mod:`llverify.report.pictures`).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2

from llverify import __version__
from llverify.layout import LinearLayout
from llverify.prove.solver_budget import z3_version
from llverify.prove.verdict import to_jsonable
from llverify.report import pictures
from llverify.spec.kinds import KINDS
from llverify.spec.model import CheckResult, Spec
from llverify.spec.summary import conversion_text, counts, cx_table, failure_message, summary_line

__all__ = ["write_report", "render_markdown", "render_html", "claim_text", "ReportCheck"]

_TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_LAYOUT_PICTURES = 4  # per spec: families in proofs/ have hundreds of layouts


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def claim_text(result: CheckResult) -> str:
    """The check's claim in words (its ``description`` if the spec gives one)."""
    c = result.check
    if c.description:
        return c.description
    args = _Blank({k: (", ".join(map(str, v)) if isinstance(v, list) else v) for k, v in c.args.items()})
    # "[...]" marks an optional clause: kept only when every argument it names was given
    template = re.sub(
        r"\[([^\]]*)\]",
        lambda m: m.group(1) if all(k in args for k in re.findall(r"\{(\w+)\}", m.group(1))) else "",
        KINDS[c.property].claim)
    text = template.format_map(args)
    if c.expect == "refuted":
        text = "NOT: " + text + " (a negative test: this claim must be refuted)"
    return text


def solver_text(method: str | None) -> str:
    if method == "smt":
        return f"Z3 {z3_version()} (bit-vectors; unsat of the negated claim)"
    if method == "f2":
        return "F2 linear algebra (row reduction; certificate re-checked)"
    if method == "exhaustive":
        return "exhaustive enumeration (numpy, whole domain)"
    return "-"


def _find_smtlib(value: Any) -> str | None:
    value = to_jsonable(value)
    if isinstance(value, str) and re.search(r"\((declare-(fun|const)|assert|set-logic|check-sat)\b", value):
        return value
    if isinstance(value, dict):
        for k in ("smtlib", "smt2", "query"):
            if isinstance(value.get(k), str):
                return value[k]
        for v in value.values():
            found = _find_smtlib(v)
            if found:
                return found
    if isinstance(value, list):
        for v in value:
            found = _find_smtlib(v)
            if found:
                return found
    return None


@dataclass
class ReportCheck:
    """What the templates need for one check."""

    spec: str
    line: int
    name: str
    property: str
    claim: str
    status: str
    expected: str
    ok: bool
    outcome: str
    method: str
    seconds: float
    solver: str
    message: str
    cx_header: list[str] = field(default_factory=list)
    cx_rows: list[list[str]] = field(default_factory=list)
    cx_note: str = ""
    details: str = ""
    smt_file: str = ""
    pictures: list[str] = field(default_factory=list)
    anchor: str = ""


@dataclass
class ReportSpec:
    path: str
    title: str
    description: str
    checks: list[ReportCheck]
    layouts: list[dict[str, Any]]
    ok: bool
    anchor: str


def _cx_cells(result: CheckResult, layouts: Mapping[str, LinearLayout]) -> dict[str, list[tuple[int, int]]]:
    """Per layout name, the cells the counterexample's inputs land on."""
    cx = result.verdict.counterexample
    if cx is None:
        return {}
    out: dict[str, list[tuple[int, int]]] = {}
    for name in result.check.layout_names():
        L = layouts.get(name)
        if L is None:
            continue
        cell = pictures.cell_of_point(L, dict(cx.inputs))
        if cell is not None:
            out.setdefault(name, []).append(cell)
    return out


def _pictures(result: CheckResult, layouts: Mapping[str, LinearLayout]) -> list[str]:
    c = result.check
    a = c.args
    hl = _cx_cells(result, layouts)
    bitwidth = int(a.get("bitwidth", 16))
    pics: list[str] = []
    try:
        if c.property in ("conversion", "shuffle_plan", "optimal_swizzle"):
            src, dst = layouts[a["from"]], layouts[a["to"]]
            pics += pictures.conversion_pair(src, dst, a["from"], a["to"], highlight=hl.get(a["from"], []))
        elif c.property == "bank_conflicts" and a.get("instruction", "vector") != "vector":
            d = result.verdict.details or {}
            pics.append(f'<p class="note">{html.escape(str(a["instruction"]))}: 8x8 matrices of 16-byte rows, '
                        f'{html.escape(str(d.get("wavefronts_per_matrix", "?")))} wavefront(s) per matrix, '
                        f'{html.escape(str(d.get("matrices", "?")))} matrices per instruction (the bank chart '
                        'pictures ld/st.shared accesses and is not drawn for matrix instructions)</p>')
        elif c.property in ("bank_conflicts", "vectorization"):
            acc = layouts[a.get("access", a.get("layout"))]
            sh = layouts[a["shared"]]
            chart = pictures.bank_chart(acc, sh, bitwidth)
            if chart:
                pics.append(chart)
        elif result.verdict.counterexample is not None:
            for name, cells in hl.items():
                pics.append(pictures.layout_grid(layouts[name], title=f"{name}: counterexample cell in red",
                                                 highlight=cells, bitwidth=bitwidth))
    except Exception as exc:  # noqa: BLE001 - a picture must never break a report
        pics.append(f'<p class="note">no picture: {type(exc).__name__}: {exc}</p>')
    return pics


def _anchor(*parts: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", "-".join(str(p) for p in parts)).strip("-")


def _build(results: Sequence[CheckResult], specs: Sequence[Spec], out_dir: Path | None,
           pictures_on: bool) -> tuple[list[ReportSpec], list[Path]]:
    by_path = {s.path: s for s in specs}
    grouped: dict[str, list[CheckResult]] = {}
    for r in results:
        grouped.setdefault(r.check.spec, []).append(r)
    written: list[Path] = []
    report_specs = []
    for path, rs in grouped.items():
        spec = by_path.get(path)
        layouts = dict(spec.layouts) if spec else {}
        checks = []
        for r in rs:
            v = r.verdict
            header, rows = cx_table(v.counterexample) if v.counterexample else ([], [])
            smt = _find_smtlib(v.certificate) or _find_smtlib(v.details)
            smt_file = ""
            if smt and out_dir is not None:
                rel = Path("smt") / f"{_anchor(Path(path).stem, r.check.index)}.smt2"
                (out_dir / "smt").mkdir(parents=True, exist_ok=True)
                if not smt.lstrip().startswith(("(", ";")):  # cut inside a leading comment line
                    smt = "; ..." + smt
                if smt.count("(") != smt.count(")") or "check-sat" not in smt:
                    smt = ("; NOTE: the verdict recorded only part of this query (truncated by the prover);\n"
                           "; it is not a complete SMT-LIB script.\n" + smt)
                (out_dir / rel).write_text(smt if smt.endswith("\n") else smt + "\n", encoding="utf-8")
                written.append(out_dir / rel)
                smt_file = rel.as_posix()
            details = json.dumps(to_jsonable(v.details), sort_keys=True) if v.details else ""
            checks.append(ReportCheck(
                spec=path, line=r.check.pos.line, name=r.check.name, property=r.check.property,
                claim=claim_text(r), status=v.status, expected=r.check.expect, ok=r.ok, outcome=r.outcome(),
                method=v.method or "-", seconds=v.seconds, solver=solver_text(v.method),
                message=(failure_message(r) if not r.ok else v.message)
                + (f" [moves data by {conversion_text(v.details)}]" if conversion_text(v.details) else ""),
                cx_header=header, cx_rows=rows, cx_note=v.counterexample.note if v.counterexample else "",
                details=details if len(details) < 1500 else details[:1500] + " ...", smt_file=smt_file,
                pictures=_pictures(r, layouts) if pictures_on else [],
                anchor=_anchor(Path(path).stem, r.check.index)))
        lays = []
        if spec and pictures_on:
            for k, (name, decl) in enumerate(spec.decls.items()):
                L = spec.layouts.get(name)
                if L is None:
                    continue
                svg, leg = "", ""
                if k < MAX_LAYOUT_PICTURES:
                    try:
                        svg = pictures.layout_grid(L, title=name)
                        leg = pictures.legend(L)
                    except Exception as exc:  # noqa: BLE001
                        svg = f'<p class="note">no picture: {exc}</p>'
                elif k == MAX_LAYOUT_PICTURES:
                    svg = (f'<p class="note">pictures of the first {MAX_LAYOUT_PICTURES} layouts only; '
                           'the rest are listed</p>')
                lays.append({"name": name, "summary": decl.summary(), "description": decl.description,
                             "svg": svg, "legend": leg, "in_dims": dict(L.in_dims), "out_dims": dict(L.out_dims)})
        report_specs.append(ReportSpec(path=path, title=spec.title if spec else "",
                                       description=spec.description if spec else "", checks=checks,
                                       layouts=lays, ok=all(c.ok for c in checks), anchor=_anchor(path)))
    return report_specs, written


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
                             autoescape=lambda name: bool(name) and name.endswith(".html.j2"),
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters["ms"] = lambda s: f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"
    env.filters["md"] = lambda s: str(s).replace("|", "\\|").replace("\n", " ")
    return env


def _context(results: Sequence[CheckResult], report_specs: list[ReportSpec], title: str) -> dict[str, Any]:
    return {
        "title": title,
        "version": __version__,
        "z3": z3_version(),
        "summary": summary_line(results),
        "counts": counts(results),
        "all_ok": all(r.ok for r in results),
        "specs": report_specs,
        "marks": {"pass": "✅", "fail": "❌", "error": "⛔", "unknown": "❔"},
    }


def render_markdown(results: Sequence[CheckResult], specs: Sequence[Spec], title: str = "llverify proof report",
                    out_dir: Path | None = None) -> str:
    report_specs, _ = _build(results, specs, out_dir, pictures_on=False)
    return _env().get_template("report.md.j2").render(**_context(results, report_specs, title))


def render_html(results: Sequence[CheckResult], specs: Sequence[Spec], title: str = "llverify proof report",
                out_dir: Path | None = None) -> str:
    report_specs, _ = _build(results, specs, out_dir, pictures_on=True)
    return _env().get_template("report.html.j2").render(**_context(results, report_specs, title))


def write_report(results: Sequence[CheckResult], specs: Sequence[Spec], out_dir: str | Path,
                 title: str = "llverify proof report") -> list[Path]:
    """Write ``report.md``, ``report.html`` (and SMT-LIB files) into ``out_dir``; return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # files an earlier report wrote here (its SMT-LIB queries) must not survive into this one
    stale = out / "smt"
    if stale.is_dir():
        for f in stale.glob("*.smt2"):
            f.unlink()
    report_specs, written = _build(results, specs, out, pictures_on=True)
    ctx = _context(results, report_specs, title)
    env = _env()
    md = out / "report.md"
    md.write_text(env.get_template("report.md.j2").render(**ctx), encoding="utf-8")
    html = out / "report.html"
    html.write_text(env.get_template("report.html.j2").render(**ctx), encoding="utf-8")
    return [md, html] + written
