"""The `llverify` command line (click).

Subcommands live beside the layer they front: `check`/`schema`/`report` in
`llverify.spec`/`llverify.report`, `show` in `llverify.triton.show`, `gpu` in
`llverify.gpu.cli`.  This module only assembles them, so importing it stays
cheap and a broken optional piece cannot take the whole CLI down.
"""

from __future__ import annotations

import importlib
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
    """Console-script entry point."""
    cli(prog_name="llverify")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
