"""``llverify check`` and ``llverify schema``.

``llverify check [PATHS...]`` loads every spec (files, or directories searched
recursively for ``*.yaml``, ``*.yml``, ``*.json``, symlinked directories followed once
each; with no path ``specs/`` of
the current directory, else the examples bundled with llverify), validates
them all (any error: every diagnostic printed as ``path:line:col: error:
what``, exit 2, nothing run), runs the checks (``-j N`` worker processes) and
prints the results in the chosen ``--format``.  Exit codes: see
:mod:`llverify.spec.summary`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import Sequence

import click

from llverify.spec.source import Diagnostic, Pos

__all__ = ["check", "schema", "discover", "bundled_specs_dir"]

SPEC_SUFFIXES = (".yaml", ".yml", ".json")
PROGRESS_AFTER_S = 2.0


def bundled_specs_dir() -> Path:
    """The example specs shipped inside the package (``specs/`` in a checkout is a link to them)."""
    from importlib import resources

    return Path(str(resources.files("llverify").joinpath("bundled_specs")))


def discover(paths: Sequence[str]) -> tuple[list[str], list[Diagnostic]]:
    """Spec files named by ``paths`` (sorted within directories) and problems with the paths."""
    files: list[str] = []
    diags: list[Diagnostic] = []
    if not paths:
        here = Path("specs")
        paths = [str(here)] if here.is_dir() else [str(bundled_specs_dir())]
    for p in paths:
        if not p.strip():
            diags.append(Diagnostic("<command line>", Pos(), "empty path"))
            continue
        path = Path(p)
        try:
            os.stat(path)
        except FileNotFoundError:
            diags.append(Diagnostic(p, Pos(), "no such file or directory"))
            continue
        except OSError as exc:  # name too long, permission denied, a loop of links
            diags.append(Diagnostic(p[:200] + ("..." if len(p) > 200 else ""), Pos(),
                                    f"cannot read: {exc.strerror or exc}"))
            continue
        if path.is_dir():
            found, walk_diags = _walk(path)
            diags.extend(walk_diags)
            if not found and not walk_diags:
                diags.append(Diagnostic(p, Pos(), "directory contains no *.yaml, *.yml or *.json spec"))
            files.extend(found)
        elif path.exists() and path.suffix.lower() in (".ttgir", ".mlir", ".llir"):
            diags.append(Diagnostic(p, Pos(), f"this is compiler output, not a spec: run `llverify ttgir {p}`"
                                    + (" (or `llverify lowered`)" if path.suffix.lower() == ".llir" else "")))
        elif path.exists():
            files.append(p)
        else:
            diags.append(Diagnostic(p, Pos(), "no such file or directory"))
    seen: set[str] = set()
    unique = []
    for f in files:
        key = os.path.realpath(f)
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, diags


def _walk(root: Path) -> tuple[list[str], list[Diagnostic]]:
    """Spec files under directory ``root``: files of a directory before those of its subdirectories, each
    level sorted by name.  Symbolic links to directories are followed, but each directory is visited once
    (by its resolved path, the first way it is met breadth-first), so a link to an ancestor or two links to
    one directory are no loop and no duplicate.  A dangling link, a loop of links or an unreadable
    subdirectory is one located error and the rest of the tree is still searched; a dangling link whose
    name ends in a suffix other than a spec's (``notes.txt``) would never have been read and is ignored."""
    found: list[tuple[int, str]] = []
    diags: list[Diagnostic] = []
    visited = {os.path.realpath(root)}
    level = [root]
    depth = 1
    while level:
        below: list[Path] = []
        for d in level:
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                diags.append(Diagnostic(str(d), Pos(), f"cannot read directory: {exc.strerror or exc}"))
                continue
            for e in entries:
                child = d / e.name
                try:
                    is_link = e.is_symlink()
                    st = os.stat(child)  # follows links: a dangling one or a loop of links raises
                except FileNotFoundError:
                    if is_link and (Path(e.name).suffix.lower() in SPEC_SUFFIXES or not Path(e.name).suffix):
                        try:
                            target = os.readlink(child)
                        except OSError:
                            target = "?"
                        diags.append(Diagnostic(str(child), Pos(), f"dangling symbolic link (to {target})"))
                    continue  # else: removed while we looked, or a link that could never be a spec
                except OSError as exc:  # a loop of links (ELOOP), permission denied, name too long
                    diags.append(Diagnostic(str(child), Pos(), f"cannot read: {exc.strerror or exc}"))
                    continue
                if stat.S_ISDIR(st.st_mode):
                    real = os.path.realpath(child)
                    if real not in visited:  # a link to an ancestor or to a directory already searched
                        visited.add(real)
                        below.append(child)
                elif stat.S_ISREG(st.st_mode) and child.suffix.lower() in SPEC_SUFFIXES:
                    found.append((depth, str(child)))
        level = below
        depth += 1
    return [f for _, f in sorted(found)], diags


def _load_all(files: Sequence[str]) -> tuple[list, list[Diagnostic]]:
    from llverify.spec.parse import load_spec
    from llverify.spec.source import SpecErrors

    specs, diags = [], []
    for f in files:
        try:
            specs.append(load_spec(f))
        except SpecErrors as exc:
            diags.extend(exc.diagnostics)
        except RecursionError:
            diags.append(Diagnostic(f, Pos(), "spec nested too deeply"))
        except Exception as exc:  # noqa: BLE001 - never a traceback for a spec, whatever breaks below
            diags.append(Diagnostic(f, Pos(), f"internal error while loading: {type(exc).__name__}: {exc}"))
    return specs, diags


def _fail_on(diags: Sequence[Diagnostic], fmt: str = "text", output: str | None = None) -> None:
    if fmt == "sarif":  # a CI job uploading SARIF still sees where the spec is wrong
        from llverify.spec.formats.sarif import render_diagnostics

        text = render_diagnostics(diags)
        if output:
            try:
                Path(output).write_text(text, encoding="utf-8")
            except OSError:
                pass
        else:
            click.echo(text, nl=False)
    for d in diags:
        click.echo(str(d), err=True)
    click.echo(f"{len(diags)} error{'s' if len(diags) != 1 else ''} in spec files; nothing was checked", err=True)
    sys.exit(2)


class _Progress:
    """A transient progress bar on stderr, shown only once a run passes a couple of seconds."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.start = time.perf_counter()
        self.bar = None
        self.task = None

    def __call__(self, done: int, total: int, result: object) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.perf_counter() - self.start < PROGRESS_AFTER_S:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("checks", total=total)
        self.bar.update(self.task, completed=done)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


class _ListsKinds(click.Command):
    """A command whose help ends with the declared check kinds and layout kinds, read when the help is
    printed (a kind declared after start-up is listed too; the tables load only for ``--help``)."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        from llverify.hw.registry import declared  # every kind declared (the registry's are, on import)
        from llverify.spec.kinds import KINDS

        layouts = [k.name + (f" ({', '.join(k.aliases)})" if k.aliases else "") for k in declared()]
        for heading, names in (("Check kinds", list(KINDS)), ("Layout kinds", layouts)):
            with formatter.section(heading):
                formatter.write_text(", ".join(names))


@click.command(cls=_ListsKinds)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "sarif", "markdown"]),
              default="text", show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None,
              help="Write the output to FILE instead of standard output.")
@click.option("--report", "report_dir", type=click.Path(file_okay=False), default=None,
              help="Also write a Markdown and a self-contained HTML proof report into DIR.")
@click.option("--timeout", type=click.FloatRange(min=0, max=1e6, min_open=True), default=None,
              callback=lambda ctx, param, v: _finite(v),
              help="Default per-check time limit in seconds (a check's own `timeout` wins).")
@click.option("--rlimit", type=click.IntRange(min=1), default=None,
              help="Default Z3 resource limit per query (deterministic budget).")
@click.option("--method", type=click.Choice(["auto", "f2", "exhaustive", "smt"]), default="auto",
              show_default=True, help="Default proof method (a check's own `method` wins).")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=1, show_default=True,
              help="Worker processes (0: one per CPU). Results are identical to -j 1.")
@click.option("--fail-on-unknown/--allow-unknown", default=True, show_default=True,
              help="Whether a check left unknown fails the run (exit 3).")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary line.")
@click.option("-v", "--verbose", is_flag=True, help="Print each verdict's message and details.")
@click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
              help="Remember proved verdicts in this SQLite file and serve them to identical checks "
                   "(keyed by claim, layouts, budget, llverify's code and Z3's version).  Off by default for "
                   "`check`.")
@click.option("--no-cache", is_flag=True,
              help="Use no verdict cache (the default for `check`; wins over --cache, as in `llverify ttgir`).")
@click.option("--paranoid", is_flag=True,
              help="Re-count proved bank wavefronts with the brute-force simulator up to 2^22 points (default 2^16).")
def check(paths: tuple[str, ...], fmt: str, output: str | None, report_dir: str | None, timeout: float | None,
          rlimit: int | None, method: str, jobs: int, fail_on_unknown: bool, quiet: bool, verbose: bool,
          cache_path: str | None, no_cache: bool, paranoid: bool) -> None:
    """Check layout spec files (default: ./specs, else the bundled examples).

    Exit status: 0 every check ended as expected, 1 a check was decided the
    other way, 2 a spec or the command line is wrong, 3 only unknowns stand
    in the way.
    """
    from llverify.spec.formats import FORMATS
    from llverify.spec.runner import Budget, run_files, run_specs

    if paranoid:
        import os

        os.environ["LLVERIFY_PARANOID"] = "1"  # read by the provers, inherited by -j workers
    from llverify.spec.summary import exit_code, summary_line

    if output and not Path(output).resolve().parent.is_dir():
        click.echo(f"{output}:1:1: error: the output directory {Path(output).resolve().parent} does not exist",
                   err=True)
        sys.exit(2)
    files, diags = discover(paths)
    if jobs == 0:
        jobs = os.cpu_count() or 1
    budget = Budget(timeout=timeout, rlimit=rlimit, method=method, cache=None if no_cache else cache_path)
    progress = _Progress(enabled=sys.stderr.isatty() and not quiet)
    specs: list = []
    try:
        # a malformed file is reported (exit 2) but never hides the results of the others
        if jobs > 1 and len(files) > 1:
            file_diags, results = run_files(files, budget, jobs=jobs, progress=progress)
            if report_dir:
                specs, _ = _load_all(files)
        else:
            specs, file_diags = _load_all(files)
            results = run_specs(specs, budget, jobs=jobs, progress=progress)
    finally:
        progress.stop()
    diags = list(diags) + list(file_diags)
    color = fmt == "text" and output is None and sys.stdout.isatty()
    text = FORMATS[fmt](results, quiet=quiet, verbose=verbose, color=color, fail_on_unknown=fail_on_unknown,
                        width=max(100, _term_width()) if color else 240)
    text = _with_diagnostics(fmt, text, diags)
    for d in diags:
        click.echo(str(d), err=True)
    if diags:
        click.echo(f"{len(diags)} error{'s' if len(diags) != 1 else ''} in spec files (the other files were "
                   "checked)", err=True)
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            click.echo(f"{output}: error: cannot write output: {exc.strerror or exc}", err=True)
            sys.exit(2)
        click.echo(summary_line(results), err=True)
    else:
        click.echo(text, nl=False)
    if report_dir:
        from llverify.report.build import write_report

        try:
            written = write_report(results, specs, report_dir)
        except OSError as exc:
            click.echo(f"{report_dir}: error: cannot write report: {exc.strerror or exc}", err=True)
            sys.exit(2)
        except Exception as exc:  # noqa: BLE001 - never a traceback
            click.echo(f"{report_dir}: error: internal error while writing the report: "
                       f"{type(exc).__name__}: {exc}", err=True)
            sys.exit(2)
        if not quiet:
            click.echo("report: " + ", ".join(str(p) for p in written), err=True)
    sys.exit(2 if diags else exit_code(results, fail_on_unknown))


def _with_diagnostics(fmt: str, text: str, diags: Sequence[Diagnostic]) -> str:
    """The rendered results plus the spec errors, in the same format (so an output file always has both)."""
    if not diags:
        return text
    if fmt == "json":
        doc = json.loads(text)
        doc["errors"] = [{"file": d.path, "line": d.pos.line, "col": d.pos.col, "message": d.message} for d in diags]
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "sarif":
        from llverify.spec.formats.sarif import render_diagnostics

        doc, extra = json.loads(text), json.loads(render_diagnostics(diags))
        run, other = doc["runs"][0], extra["runs"][0]
        offset = len(run["tool"]["driver"]["rules"])
        run["tool"]["driver"]["rules"].extend(other["tool"]["driver"]["rules"])
        for r in other["results"]:
            r["ruleIndex"] = r.get("ruleIndex", 0) + offset
            run["results"].append(r)
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "markdown":
        return text + "\n## Spec errors\n\n" + "".join(f"- `{d}`\n" for d in diags)
    if fmt == "junit":
        from xml.sax.saxutils import escape, quoteattr

        cases = "".join(f'<testcase classname="spec-errors" name={quoteattr(d.path)}><error message='
                        f'{quoteattr(d.message)}>{escape(str(d))}</error></testcase>' for d in diags)
        suite = f'<testsuite name="spec-errors" tests="{len(diags)}" errors="{len(diags)}">{cases}</testsuite>'
        return text.replace("</testsuites>", suite + "</testsuites>") if "</testsuites>" in text else text + suite
    return text


def _finite(value: float | None) -> float | None:
    if value is not None and value != value:
        raise click.BadParameter("must be a number of seconds, not NaN")
    return value


def _term_width() -> int:
    try:
        return os.get_terminal_size().columns
    except OSError:
        return 120


@click.command()
@click.option("--indent", type=click.IntRange(min=0), default=2, show_default=True)
def schema(indent: int) -> None:
    """Print the JSON Schema of spec files."""
    from llverify.spec.schema import spec_schema

    click.echo(json.dumps(spec_schema(), indent=indent or None))
