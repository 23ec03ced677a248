"""``--format markdown``: a table of every check and a section per failure,
ready to paste into a pull request (``llverify report`` writes a longer one).
"""

from __future__ import annotations

from typing import Any, Sequence

from llverify.spec.model import CheckResult
from llverify.spec.summary import conversion_text, cx_table, failure_message, summary_line

__all__ = ["render", "md_escape", "STATUS_MARK"]

STATUS_MARK = {"pass": "✅", "fail": "❌", "error": "⛔", "unknown": "❔"}


def md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(results: Sequence[CheckResult], **_: Any) -> str:
    lines = ["# llverify check", "", f"**{summary_line(results)}**", "",
             "| | spec | check | property | status | expected | method | time |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        v = r.verdict
        lines.append(f"| {STATUS_MARK[r.outcome()]} | `{md_escape(r.check.spec)}:{r.check.pos.line}` | "
                     f"{md_escape(r.check.name)} | {r.check.property}"
                     f"{' (' + conversion_text(v.details) + ')' if conversion_text(v.details) else ''} | "
                     f"**{v.status}** | {r.check.expect} | "
                     f"{v.method or '-'} | {v.seconds * 1000:.1f} ms |")
    bad = [r for r in results if not r.ok]
    if bad:
        lines += ["", "## Not as expected", ""]
        for r in bad:
            lines += [f"### `{md_escape(r.check.spec)}:{r.check.pos.line}` {md_escape(r.check.name)}", "",
                      md_escape(failure_message(r)), ""]
            cx = r.verdict.counterexample
            if cx is not None:
                header, rows = cx_table(cx)
                lines += ["| " + " | ".join(map(md_escape, header)) + " |",
                          "|" + "---|" * len(header)]
                lines += ["| " + " | ".join(map(md_escape, row)) + " |" for row in rows]
                lines.append("")
    return "\n".join(lines).rstrip() + "\n"
