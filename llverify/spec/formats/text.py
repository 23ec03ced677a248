"""``--format text`` (the default): a rich table of every check, then each
check that did not end as expected as a compiler-style diagnostic
(``path:line:col: error: ...``) with its counterexample as a small table (one
column per hardware index, one per side of the claim), then the Alive2-style
summary line.  ``quiet`` prints only diagnostics and the summary; ``verbose``
adds each verdict's message and details.
"""

from __future__ import annotations

import io
import json
from typing import Any, Sequence

from llverify.prove.verdict import to_jsonable
from llverify.spec.model import CheckResult
from llverify.spec.summary import conversion_text, cx_table, failure_message, summary_line

__all__ = ["render", "STATUS_STYLE"]

STATUS_STYLE = {"proved": "green", "refuted": "red", "unknown": "yellow", "error": "magenta"}


def _fmt_time(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def render(results: Sequence[CheckResult], quiet: bool = False, verbose: bool = False,
           color: bool = False, width: int = 120, **_: Any) -> str:
    if quiet and not color and all(r.ok for r in results):
        # nothing but the summary line, uncoloured: what rich would print, without loading it (~50 ms)
        return summary_line(results) + "\n"
    from rich import box  # noqa: PLC0415
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width,
                      highlight=False, soft_wrap=False)
    if not quiet and results:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("spec:line", overflow="fold")
        table.add_column("check", overflow="fold")
        table.add_column("property")
        table.add_column("status")
        table.add_column("method")
        table.add_column("time", justify="right")
        for r in results:
            v = r.verdict
            status = Text(v.status, style=STATUS_STYLE[v.status])
            if r.check.expect != "proved":
                status.append(f" (expected {r.check.expect})", style="dim")
            if not r.ok:
                status.append("  ✗", style="bold red")
            prop = r.check.property
            how = conversion_text(v.details)
            if how:
                prop += f" [{how}]"  # how a conversion moves its data
            # Text, not str: rich would read "[shared_memory]" (or a check name's brackets) as console markup
            table.add_row(Text(f"{r.check.spec}:{r.check.pos.line}"), Text(r.check.name), Text(prop), status,
                          v.method or "-", _fmt_time(v.seconds))
        console.print(table)
        if verbose:
            for r in results:
                v = r.verdict
                console.print(Text(f"{r.check.spec}:{r.check.pos.line}: {r.check.name}: ", style="bold")
                              + Text(v.message or v.status))
                if v.details:
                    console.print(Text("  details: " + json.dumps(to_jsonable(v.details), sort_keys=True)[:2000],
                                       style="dim"))
            console.print()
    for r in results:
        if r.ok:
            continue
        kind = "warning" if r.outcome() == "unknown" else "error"
        console.print(Text(f"{r.check.spec}:{r.check.pos.line}:{r.check.pos.col}: ", style="bold")
                      + Text(f"{kind}: ", style="bold red" if kind == "error" else "bold yellow")
                      + Text(failure_message(r)), soft_wrap=True)
        cx = r.verdict.counterexample
        if cx is not None:
            header, rows = cx_table(cx)
            t = Table(box=box.ROUNDED, title="counterexample", title_justify="left", pad_edge=True)
            for h in header:
                t.add_column(h, justify="right" if h in cx.inputs else "left")
            for row in rows:
                t.add_row(*row)
            console.print(t)
            if cx.note:
                console.print(Text("  " + cx.note, style="dim"), soft_wrap=True)
    c_bad = sum(1 for r in results if not r.ok)
    console.print(Text(summary_line(results), style="bold red" if c_bad else "bold green"), soft_wrap=True)
    return buf.getvalue()
