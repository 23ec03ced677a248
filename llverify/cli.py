"""The `llverify` command line (click).

Subcommands live beside the layer they front: `check`/`schema`/`report` in
`llverify.spec`/`llverify.report`, `show` in `llverify.triton.show`, `ttgir`,
`lowered` and `sweep` in their packages, `cache` in `llverify.executor`, `gpu` in `llverify.gpu.cli`.  This
module only assembles them: each is loaded when it runs (or when `--help`
lists them), so `llverify ttgir` does not import the spec front end, the GPU
runner or YAML.  The loaders are plain function-level imports, visible to the
layering test, except `gpu`, the layer above this one, found by name.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Callable

import click

from llverify import __version__


def _check() -> click.Command:
    from llverify.spec.cli import check

    return check


def _schema() -> click.Command:
    from llverify.spec.cli import schema

    return schema


def _report() -> click.Command:
    from llverify.report.cli import report

    return report


def _show() -> click.Command:
    from llverify.triton.show import show

    return show


def _ttgir() -> click.Command:
    from llverify.ttgir.cli import ttgir

    return ttgir


def _lowered() -> click.Command:
    from llverify.lowered.cli import lowered

    return lowered


def _sweep() -> click.Command:
    from llverify.sweep.cli import sweep

    return sweep


def _cache() -> click.Command:
    from llverify.executor.cache_cli import cache

    return cache


def _gpu() -> click.Command:
    # the GPU harness is the one layer above the command line (DESIGN.md): the only subcommand found by name
    return importlib.import_module("llverify.gpu.cli").gpu


#: subcommand name -> its loader
SUBCOMMANDS: dict[str, Callable[[], click.Command]] = {
    "check": _check, "schema": _schema, "report": _report, "show": _show, "ttgir": _ttgir,
    "lowered": _lowered, "sweep": _sweep, "cache": _cache, "gpu": _gpu,
}


class _LazyGroup(click.Group):
    """Loads a subcommand only when it runs (or ``--help`` lists them all)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            load = SUBCOMMANDS.get(cmd_name)
            if load is None:
                return None
            self.add_command(load(), cmd_name)
        return self.commands[cmd_name]


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="llverify")
def cli() -> None:
    """Prove properties of GPU tensor layouts (Linear Layouts over F2)."""


def main() -> None:
    """Console-script entry point.

    Errors in the input are reported by each command as ``path:line:col: error: ...`` lines.  An
    exception that escapes a command is a bug in llverify: it is reported as one line and exit code 2
    (``LLVERIFY_TRACEBACK=1`` shows the traceback), never as a verdict.
    """
    try:
        cli(prog_name="llverify")
    except KeyboardInterrupt:
        sys.stderr.write("llverify: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the last line of defence against a traceback
        if os.environ.get("LLVERIFY_TRACEBACK"):
            raise
        sys.stderr.write(f"llverify: internal error: {type(exc).__name__}: {exc} "
                         "(a bug in llverify; LLVERIFY_TRACEBACK=1 shows where)\n")
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
