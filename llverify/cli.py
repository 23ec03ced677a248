"""The `llverify` command line (click).

Subcommands live beside the layer they front: `check`/`schema`/`report` in
`llverify.spec`/`llverify.report`, `show` in `llverify.triton.show`, `ttgir`,
`lowered` and `sweep` in their packages, `gpu` in `llverify.gpu.cli`.  This
module only assembles them with plain imports (each keeps its heavy imports
inside the command), except `gpu`, the layer above, found by name.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from llverify import __version__
from llverify.lowered.cli import lowered
from llverify.report.cli import report
from llverify.spec.cli import check, schema
from llverify.sweep.cli import sweep
from llverify.triton.show import show
from llverify.ttgir.cli import ttgir


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="llverify")
def cli() -> None:
    """Prove properties of GPU tensor layouts (Linear Layouts over F2)."""


for _command in (check, schema, report, show, ttgir, lowered, sweep):
    cli.add_command(_command)

# `llverify gpu` fronts the GPU harness, the one layer above this module (DESIGN.md): it is the only
# subcommand found by name, so that the layering test keeps every other edge visible.
GPU_COMMAND = ("llverify.gpu.cli", "gpu")


def _register_gpu() -> None:
    module = importlib.import_module(GPU_COMMAND[0])
    cli.add_command(getattr(module, GPU_COMMAND[1]))


_register_gpu()


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
