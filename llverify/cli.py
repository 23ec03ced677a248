"""The `llverify` command line (click).

Subcommands live beside the layer they front: `check`/`schema`/`report` in
`llverify.spec`/`llverify.report`, `show` in `llverify.triton.show`, `gpu` in
`llverify.gpu.cli`.  This module only assembles them, so importing it stays
cheap and a broken optional piece cannot take the whole CLI down.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from llverify import __version__

# (module, attribute) of each subcommand; each attribute is a click.Command.
_SUBCOMMANDS: tuple[tuple[str, str], ...] = (
    ("llverify.spec.cli", "check"),
    ("llverify.spec.cli", "schema"),
    ("llverify.report.cli", "report"),
    ("llverify.triton.show", "show"),
    ("llverify.ttgir.cli", "ttgir"),
    ("llverify.lowered.cli", "lowered"),
    ("llverify.sweep.cli", "sweep"),
    ("llverify.gpu.cli", "gpu"),
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="llverify")
def cli() -> None:
    """Prove properties of GPU tensor layouts (Linear Layouts over F2)."""


def _register() -> None:
    for module_name, attr in _SUBCOMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # not written yet
                continue
            raise
        command = getattr(module, attr, None)
        if command is not None:
            cli.add_command(command)


_register()


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
