"""``--format junit``: JUnit XML, one ``<testsuite>`` per spec file and one
``<testcase>`` per check.

A check decided the wrong way is a ``<failure>`` (with the counterexample in
the body), an ``error`` verdict an ``<error>``, an unexpected ``unknown`` a
``<failure type="unknown">`` (or ``<skipped>`` with ``--allow-unknown``).
CI systems (GitHub, GitLab, Jenkins) render this as a test report.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any, Sequence

from llverify.spec.model import CheckResult
from llverify.spec.summary import cx_table, failure_message

__all__ = ["render"]


def _body(r: CheckResult) -> str:
    lines = [f"{r.check.spec}:{r.check.pos.line}:{r.check.pos.col}: {failure_message(r)}"]
    cx = r.verdict.counterexample
    if cx is not None:
        header, rows = cx_table(cx)
        lines.append("counterexample: " + ", ".join(f"{h}={v}" for h, v in zip(header, rows[0])))
    return "\n".join(lines)


def render(results: Sequence[CheckResult], fail_on_unknown: bool = True, **_: Any) -> str:
    root = ET.Element("testsuites", name="llverify")
    by_spec: dict[str, list[CheckResult]] = {}
    for r in results:
        by_spec.setdefault(r.check.spec, []).append(r)
    tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for spec, rs in by_spec.items():
        suite = ET.SubElement(root, "testsuite", name=spec)
        n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        t_suite = 0.0
        for r in rs:
            t_suite += r.verdict.seconds
            classname = spec.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            case = ET.SubElement(suite, "testcase", name=r.check.name, classname=classname,
                                 time=f"{r.verdict.seconds:.6f}", file=spec, line=str(r.check.pos.line))
            n["tests"] += 1
            outcome = r.outcome()
            if outcome == "fail":
                n["failures"] += 1
                el = ET.SubElement(case, "failure", message=failure_message(r), type=r.verdict.status)
                el.text = _body(r)
            elif outcome == "error":
                n["errors"] += 1
                el = ET.SubElement(case, "error", message=failure_message(r), type="error")
                el.text = _body(r)
            elif outcome == "unknown":
                if fail_on_unknown:
                    n["failures"] += 1
                    el = ET.SubElement(case, "failure", message=failure_message(r), type="unknown")
                    el.text = _body(r)
                else:
                    n["skipped"] += 1
                    ET.SubElement(case, "skipped", message=failure_message(r))
            out = ET.SubElement(case, "system-out")
            out.text = f"{r.verdict.status} by {r.verdict.method or '-'}: {r.verdict.message}".rstrip(": ")
        for k, v in n.items():
            suite.set(k, str(v))
            tot[k] += v
        suite.set("time", f"{t_suite:.6f}")
        total_time += t_suite
    for k, v in tot.items():
        root.set(k, str(v))
    root.set("time", f"{total_time:.6f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
