"""Placeholder `llverify check` until the spec runner lands (issue 7)."""

from __future__ import annotations

import click


@click.command()
@click.argument("paths", nargs=-1)
def check(paths: tuple[str, ...]) -> None:
    """Check layout spec files (not implemented yet)."""
    click.echo("no specs yet")
