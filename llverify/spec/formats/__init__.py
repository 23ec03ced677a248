"""Output formats of `llverify check`: text (rich), json, junit, sarif, markdown.

Each module exposes ``render(results, **options) -> str``; :data:`FORMATS`
maps the ``--format`` name to it.
"""

from __future__ import annotations

from typing import Callable

from llverify.spec.formats import jsonout, junit, markdown, sarif, text

__all__ = ["FORMATS"]

FORMATS: dict[str, Callable[..., str]] = {
    "text": text.render,
    "json": jsonout.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "markdown": markdown.render,
}
