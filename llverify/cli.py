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

# name -> (module, attribute) of each subcommand; each attribute is a click.Command.
_SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "check": ("llverify.spec.cli", "check"),
    "schema": ("llverify.spec.cli", "schema"),
    "report": ("llverify.report.cli", "report"),
    "show": ("llverify.triton.show", "show"),
    "ttgir": ("llverify.ttgir.cli", "ttgir"),
    "lowered": ("llverify.lowered.cli", "lowered"),
    "sweep": ("llverify.sweep.cli", "sweep"),
    "gpu": ("llverify.gpu.cli", "gpu"),
}


class _LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand runs (or ``--help`` lists them all), so
    ``llverify ttgir`` does not load the spec front end, the GPU runner or YAML."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n in _SUBCOMMANDS if self.get_command(ctx, n) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        where = _SUBCOMMANDS.get(cmd_name)
        if where is None:
            return None
        module_name, attr = where
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # not written yet
                return None
            raise
        command = getattr(module, attr, None)
        if command is not None:
            self.add_command(command, cmd_name)
        return command


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
