"""The gate's output formats: text, json, junit, sarif, markdown.

* ``text``: one compiler-style diagnostic per obligation that is not proved
  (``module.ttgir:57:5: error: conversion: ... [ttg.convert_layout in
  matmul_kernel] (python: kernel.py:42:17)``) with its counterexample table,
  a table of the conversions (class and cost), any baseline diff, and a
  summary line; ``-v`` lists every obligation.
* ``json``: ``llverify check``'s schema (``llverify``, ``results``,
  ``summary``), each result with ``rule``, ``op``, ``location``, ``source``,
  ``kernel``, ``target`` (and ``stage`` for dump snapshots); ``summary``
  counts per verdict, per op, modules and files; ``errors`` lists modules
  that could not be read.
* ``junit``: ``llverify check``'s JUnit renderer over the same results.
* ``sarif``: SARIF 2.1.0, each result at the ``.ttgir`` line with the Python
  source as a related location.
* ``markdown``: summary, failures, conversions and the baseline diff, for a
  pull request.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from llverify import __version__

if TYPE_CHECKING:  # pragma: no cover
    from llverify.ttgir.findings import Finding

# the prover's, spec front end's and findings' modules load on first need: a warm cached run renders the
# text report from stored lines (:func:`assemble_text`) without them

__all__ = ["render", "counts", "summary_line", "summary_text", "text_lines", "assemble_text", "as_error_line",
           "json_fragment", "assemble_json", "sarif_result", "sarif_document", "rule_text"]

STATUSES: tuple[str, ...] = ("proved", "refuted", "unknown", "error")  # llverify.prove.verdict's (a test)

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    out = {s: 0 for s in STATUSES}
    for f in findings:
        out[f.verdict.status] += 1
    return out


def summary_line(findings: Sequence[Finding], errors: Sequence[str], summary: dict[str, Any]) -> str:
    return summary_text(counts(findings), len(findings), errors, summary)


def summary_text(c: dict[str, int], n: int, errors: Sequence[str], summary: dict[str, Any]) -> str:
    """The summary line from the verdict counts ``c`` of ``n`` obligations."""
    return (f"{c['proved']} proved, {c['refuted']} refuted, {c['unknown']} unknown, {c['error']} errors "
            f"({n} obligations in {summary.get('modules', 0)} modules of {summary.get('files', 0)} files"
            + (f", {summary['cached_files']} from the cache" if summary.get("cached_files") else "")
            + (f"; {len(errors)} unreadable" if errors else "") + ")")


def _where(f: Finding) -> str:
    return f"{f.location.file}:{f.location.line}:{f.location.col}"


def _source(f: Finding) -> str:
    return "" if f.source is None else f" (python: {f.source.file}:{f.source.line}:{f.source.col})"


def _diagnostic(f: Finding) -> list[str]:
    v = f.verdict
    kind = "warning" if v.status == "unknown" else "error"
    head = (f"{_where(f)}: {kind}: {f.rule}: {v.status}: {v.message or v.subject} "
            f"[{f.op} in {f.kernel}{', ' + f.stage if f.stage else ''}]{_source(f)}")
    lines = [head, f"    subject: {v.subject}"]
    cx = v.counterexample
    if cx is not None:
        from llverify.spec.summary import cx_table

        header, rows = cx_table(cx)
        lines.append("    counterexample: " + ", ".join(f"{h}={x}" for h, x in zip(header, rows[0])))
        if cx.note:
            lines.append(f"    ({cx.note})")
    return lines


def _conversions(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.rule == "conversion" and "classification" in f.verdict.details]


def _cost_text(f: Finding) -> str:
    cost = f.verdict.details.get("cost") or {}
    return ", ".join(f"{k}={v}" for k, v in cost.items() if k != "model") or "-"


def render(fmt: str, findings: Sequence[Finding], errors: Sequence[str], diff_text: str, summary: dict[str, Any],
           fail_on_unknown: bool = True, verbose: bool = False) -> str:
    if fmt == "json":
        return _json(findings, errors, diff_text, summary)
    if fmt == "sarif":
        return _sarif(findings, errors, fail_on_unknown)
    if fmt == "junit":
        from llverify.spec.formats import junit

        return junit.render([f.to_check_result() for f in findings], fail_on_unknown=fail_on_unknown)
    if fmt == "markdown":
        return _markdown(findings, errors, diff_text, summary)
    return _text(findings, errors, diff_text, summary, verbose)


def _text(findings: Sequence[Finding], errors: Sequence[str], diff_text: str, summary: dict[str, Any],
          verbose: bool) -> str:
    diag, conv = text_lines(findings, verbose)
    return assemble_text([as_error_line(e) for e in errors] + diag, conv, counts(findings), len(findings), errors,
                         diff_text, summary)


def text_lines(findings: Sequence[Finding], verbose: bool = False) -> tuple[list[str], list[str]]:
    """The text report's lines for ``findings``: the per-obligation lines (diagnostics of those not proved;
    every obligation with ``verbose``) and the conversion table's rows.  Each finding contributes its own
    lines, in order, so the lines of a run are the concatenation of its modules' lines (the module cache
    stores them per module)."""
    diag: list[str] = []
    for f in findings:
        if verbose or f.verdict.status != "proved":
            if f.verdict.status == "proved":
                diag.append(f"{_where(f)}: proved: {f.rule}: {f.verdict.subject} [{f.op} in {f.kernel}]")
            else:
                diag.extend(_diagnostic(f))
    conv = [f"  {_where(f)}  {f.kernel}  {f.verdict.details.get('classification')}  {_cost_text(f)}"
            for f in _conversions(findings)]
    return diag, conv


def assemble_text(head: Sequence[str], conv: Sequence[str], c: dict[str, int], n: int, errors: Sequence[str],
                  diff_text: str, summary: dict[str, Any]) -> str:
    """The text report from its parts: ``head`` (each module's error lines and :func:`text_lines` diagnostics,
    module by module; empty when they were already printed as they came), the conversion rows, the verdict
    counts ``c`` of ``n`` obligations and the file-level ``errors`` (counted in the summary line)."""
    lines: list[str] = list(head)
    if conv:
        lines.append("")
        lines.append(f"conversions ({len(conv)}):")
        lines.extend(conv)
    if diff_text:
        lines.append("")
        lines.append(diff_text.rstrip())
    lines.append(summary_text(c, n, errors, summary))
    return "\n".join(lines) + "\n"


def as_error_line(message: str) -> str:
    """``path:line:col: error: text`` for a file-level error message (unchanged if it already is one)."""
    if ": error:" in message:
        return message
    head, sep, rest = message.partition(": ")
    parts = head.rsplit(":", 2)
    if sep and len(parts) == 3:
        return f"{head}: error: {rest}"
    return f"error: {message}"


def _json(findings: Sequence[Finding], errors: Sequence[str], diff_text: str, summary: dict[str, Any]) -> str:
    from llverify.prove.verdict import to_jsonable

    return assemble_json([json_fragment(f) for f in findings], counts(findings), errors, diff_text,
                         to_jsonable(summary))


#: where the results go in :func:`assemble_json`'s document before they are spliced in
_SLOT = "\x01results\x01"


def json_fragment(f: Finding) -> str:
    """One result of the JSON report exactly as it appears in it: ``json.dumps(result, indent=2)`` indented for
    its place in the ``results`` list (two levels deep; strings never hold a raw newline, JSON escapes it)."""
    return json.dumps(f.to_json(), indent=2).replace("\n", "\n    ")


def assemble_json(fragments: Sequence[str], c: dict[str, int], errors: Sequence[str], diff_text: str,
                  summary: dict[str, Any]) -> str:
    """The JSON report from its results' :func:`json_fragment` texts (fresh or stored in the module cache),
    the verdict counts ``c`` and a plain-JSON ``summary``: the same bytes as ``json.dumps(doc, indent=2)``
    of the whole document, without re-encoding every result."""
    doc: dict[str, Any] = {"llverify": __version__, "results": [_SLOT] if fragments else [],
                           "summary": {**c, **summary}, "errors": list(errors)}
    if diff_text:
        doc["baseline"] = diff_text
    text = json.dumps(doc, indent=2) + "\n"
    if fragments:
        text = text.replace(json.dumps(_SLOT), ",\n    ".join(fragments), 1)
    return text


def _sarif(findings: Sequence[Finding], errors: Sequence[str], fail_on_unknown: bool) -> str:
    results = [(f.verdict.status, r) for f in findings if (r := sarif_result(f)) is not None]
    return sarif_document(results, {f.rule: "" for f in findings}, errors, fail_on_unknown)


def sarif_result(f: Finding) -> dict[str, Any] | None:
    """The SARIF result of a finding that is not proved (None for a proved one); its ``ruleIndex`` is set by
    :func:`sarif_document`, which knows every rule of the run."""
    v = f.verdict
    if v.status == "proved":
        return None
    text = f"{f.rule}: {v.status}: {v.message or v.subject} ({f.op} in {f.kernel})"
    if v.counterexample is not None:
        from llverify.spec.summary import cx_table

        header, rows = cx_table(v.counterexample)
        text += "; counterexample: " + ", ".join(f"{h}={x}" for h, x in zip(header, rows[0]))
    res: dict[str, Any] = {
        "ruleId": f.rule, "ruleIndex": 0,
        "level": "warning" if v.status == "unknown" else "error",
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": f.location.file},
                                            "region": {"startLine": f.location.line,
                                                       "startColumn": f.location.col}}}],
        "properties": {"op": f.op, "kernel": f.kernel, "target": f.target, "status": v.status,
                       "method": v.method},
    }
    if f.source is not None:
        res["relatedLocations"] = [{"id": 1, "message": {"text": "Python source"}, "physicalLocation": {
            "artifactLocation": {"uri": f.source.file},
            "region": {"startLine": max(1, f.source.line), "startColumn": max(1, f.source.col)}}}]
    return res


def sarif_document(results: Sequence[tuple[str, dict[str, Any]]], rules: dict[str, str], errors: Sequence[str],
                   fail_on_unknown: bool) -> str:
    """The SARIF log of ``results`` (``(status, sarif_result)`` pairs, in order), the run's rules
    (``{name: claim}``; an empty claim is looked up) and the unreadable inputs."""
    names = sorted(set(rules) | ({"ttgir-error"} if errors else set()))
    index = {r: i for i, r in enumerate(names)}
    out = []
    for status, res in results:
        if status == "unknown" and not fail_on_unknown:
            continue
        res = dict(res)
        res["ruleIndex"] = index[res["ruleId"]]
        out.append(res)
    for e in errors:
        path, line, col = _split_location(e)
        out.append({"ruleId": "ttgir-error", "ruleIndex": index["ttgir-error"], "level": "error",
                    "message": {"text": e}, "locations": [{"physicalLocation": {
                        "artifactLocation": {"uri": path}, "region": {"startLine": line, "startColumn": col}}}]})
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "llverify", "version": __version__, "semanticVersion": __version__,
                            "informationUri": "https://github.com/llverify/llverify",
                            "rules": [{"id": r, "name": r, "shortDescription": {"text": rules.get(r) or _rule_text(r)}}
                                      for r in names]}},
        "results": out}]}
    return json.dumps(doc, indent=2) + "\n"


def _rule_text(name: str) -> str:
    """The claim of rule ``name`` (the gate's rules are loaded only for a name that is not one of the report's)."""
    fixed = {"policy": "a policy threshold", "baseline": "no regression against the baseline",
             "ttgir-error": "the module could be read"}
    if name in fixed:
        return fixed[name]
    from llverify.ttgir.rules import RULES

    for r in RULES:
        if r.name == name:
            return r.claim
    return {"policy": "a policy threshold", "baseline": "no regression against the baseline",
            "ttgir-error": "the module could be read"}.get(name, name)


def rule_text(name: str) -> str:
    """The claim shown for rule ``name`` in the SARIF log."""
    return _rule_text(name)


def _split_location(message: str) -> tuple[str, int, int]:
    head = message.split(": ", 1)[0]
    parts = head.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1]), int(parts[2])
    return head, 1, 1


def _markdown(findings: Sequence[Finding], errors: Sequence[str], diff_text: str, summary: dict[str, Any]) -> str:
    lines = ["# llverify ttgir", "", f"**{summary_line(findings, errors, summary)}**", ""]
    bad = [f for f in findings if f.verdict.status != "proved"]
    if errors:
        lines += ["## Unreadable modules", ""] + [f"- `{e}`" for e in errors] + [""]
    if bad:
        lines += ["## Not proved", "", "| status | where | rule | op | kernel | message |", "|---|---|---|---|---|---|"]
        for f in bad:
            lines.append(f"| **{f.verdict.status}** | `{_where(f)}` | {f.rule} | `{f.op}` | `{f.kernel}` | "
                         f"{(f.verdict.message or f.verdict.subject).replace('|', '/')} |")
        lines.append("")
    conv = _conversions(findings)
    if conv:
        lines += ["## Conversions", "", "| where | kernel | class | cost |", "|---|---|---|---|"]
        for f in conv:
            lines.append(f"| `{_where(f)}` | `{f.kernel}` | {f.verdict.details.get('classification')} | "
                         f"{_cost_text(f)} |")
        lines.append("")
    per_op = summary.get("per_op") or {}
    if per_op:
        lines += ["## Obligations per op", "", "| op | proved | refuted | unknown | error |", "|---|---|---|---|---|"]
        for op, row in per_op.items():
            lines.append(f"| `{op}` | {row['proved']} | {row['refuted']} | {row['unknown']} | {row['error']} |")
        lines.append("")
    if diff_text:
        lines += [diff_text.rstrip(), ""]
    return "\n".join(lines)
