"""The command-line options every command that runs work units shares (``llverify ttgir``, ``llverify sweep``).

One declaration, so that ``-j``, ``--executor``, ``--ray-address``, ``--cache`` and ``--no-cache`` mean the
same thing, with the same defaults and help, wherever they appear.  The decorated command receives
``jobs``, ``executor``, ``ray_address``, ``cache_path`` and ``no_cache``.
"""

from __future__ import annotations

from typing import Any, Callable

import click

from llverify.executor import EXECUTORS

__all__ = ["executor_options"]


def executor_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared work-unit options to a click command (the first listed appears first in ``--help``)."""
    options = [
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                     help="Worker processes (or Ray workers)."),
        click.option("--executor", type=click.Choice(EXECUTORS), default="process", show_default=True),
        click.option("--ray-address", default=None,
                     help="An existing Ray cluster for --executor ray (default: a local instance)."),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
                     help="Verdict cache file (default: $LLVERIFY_CACHE or ~/.cache/llverify/verdicts.sqlite)."),
        click.option("--no-cache", is_flag=True, help="Neither read nor write the verdict cache."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
