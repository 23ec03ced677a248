"""``llverify report [PATHS...] -o DIR``: run the checks of spec files and
write the proof report (``report.md`` + self-contained ``report.html``).

The same as ``llverify check PATHS --report DIR`` without printing the
results table; it exits with the same status as ``check`` would (0 when every
check ended as expected).  ``llverify report proofs -o reports`` regenerates
the committed report of the paper's claims.
"""

from __future__ import annotations

import os
import sys

import click

__all__ = ["report"]


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--output-dir", "-o", "out_dir", type=click.Path(file_okay=False), default="reports",
              show_default=True, help="Directory to write report.md and report.html into.")
@click.option("--title", default="llverify proof report", show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None)
@click.option("--rlimit", type=click.IntRange(min=1), default=None)
@click.option("--method", type=click.Choice(["auto", "f2", "exhaustive", "smt"]), default="auto", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--fail-on-unknown/--allow-unknown", default=True, show_default=True)
def report(paths: tuple[str, ...], out_dir: str, title: str, timeout: float | None, rlimit: int | None,
           method: str, jobs: int, fail_on_unknown: bool) -> None:
    """Run spec files and write a Markdown + HTML proof report."""
    from llverify.report.build import write_report
    from llverify.spec.cli import _load_all, discover
    from llverify.spec.runner import Budget, run_specs
    from llverify.spec.summary import exit_code, summary_line

    files, diags = discover(paths)
    specs, more = _load_all(files)
    diags += more
    if diags:
        for d in diags:
            click.echo(str(d), err=True)
        sys.exit(2)
    results = run_specs(specs, Budget(timeout=timeout, rlimit=rlimit, method=method),
                        jobs=jobs or (os.cpu_count() or 1))
    try:
        written = write_report(results, specs, out_dir, title=title)
    except OSError as exc:
        click.echo(f"{out_dir}: error: cannot write report: {exc.strerror or exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - never a traceback
        click.echo(f"{out_dir}: error: internal error while writing the report: {type(exc).__name__}: {exc}",
                   err=True)
        sys.exit(2)
    click.echo(summary_line(results))
    for p in written[:2]:
        click.echo(f"wrote {p}")
    sys.exit(exit_code(results, fail_on_unknown))
