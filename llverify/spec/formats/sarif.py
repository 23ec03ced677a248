"""``--format sarif``: SARIF 2.1.0 for code-scanning UIs (GitHub code scanning).

One rule per check property; one result per check that did not end as
expected, located at the check's region of its spec file (start line/column,
end line), with level ``error`` for wrong verdicts and errors and ``warning``
for unknowns.  Checks that passed produce no result (SARIF lists findings).
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

from llverify import __version__
from llverify.spec.kinds import KINDS
from llverify.spec.model import CheckResult
from llverify.spec.summary import cx_table, failure_message

__all__ = ["render", "render_diagnostics"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str) -> str:
    p = path.replace(os.sep, "/")
    return p[2:] if p.startswith("./") else p


def render(results: Sequence[CheckResult], fail_on_unknown: bool = True, **_: Any) -> str:
    used = sorted({r.check.property for r in results})
    rules = [{
        "id": name,
        "name": name,
        "shortDescription": {"text": f"layout property '{name}'"},
        "fullDescription": {"text": KINDS[name].doc or KINDS[name].claim},
        "help": {"text": f"The claim: {KINDS[name].claim}. See docs/spec.md."},
    } for name in used]
    index = {name: i for i, name in enumerate(used)}
    out = []
    for r in results:
        outcome = r.outcome()
        if outcome == "pass" or (outcome == "unknown" and not fail_on_unknown):
            continue
        text = failure_message(r)
        cx = r.verdict.counterexample
        if cx is not None:
            header, rows = cx_table(cx)
            text += "; counterexample: " + ", ".join(f"{h}={v}" for h, v in zip(header, rows[0]))
        c = r.check
        out.append({
            "ruleId": c.property,
            "ruleIndex": index[c.property],
            "level": "warning" if outcome == "unknown" else "error",
            "message": {"text": text},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(c.spec)},
                "region": {"startLine": c.pos.line, "startColumn": c.pos.col,
                           "endLine": max(c.pos.line, c.end_line or c.pos.line)},
            }}],
            "properties": {"check": c.name, "expected": c.expect, "status": r.status,
                           "method": r.verdict.method},
        })
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "llverify", "version": __version__, "semanticVersion": __version__,
                                "informationUri": "https://github.com/llverify/llverify", "rules": rules}},
            "results": out,
        }],
    }
    return json.dumps(doc, indent=2) + "\n"


def render_diagnostics(diagnostics: Sequence[Any]) -> str:
    """SARIF for spec errors (nothing was checked): one ``spec-error`` result per diagnostic.

    So that a CI job uploading the SARIF file still shows *where* the spec is
    wrong, instead of uploading nothing.
    """
    results = [{
        "ruleId": "spec-error",
        "ruleIndex": 0,
        "level": "error",
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": _uri(d.path)},
            "region": {"startLine": max(1, d.pos.line), "startColumn": max(1, d.pos.col)},
        }}],
    } for d in diagnostics]
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "llverify", "version": __version__, "semanticVersion": __version__,
                                "rules": [{"id": "spec-error", "name": "spec-error",
                                           "shortDescription": {"text": "the spec file is malformed"},
                                           "help": {"text": "Fix the spec at the given location; see docs/spec.md."}}]}},
            "results": results,
        }],
    }
    return json.dumps(doc, indent=2) + "\n"
