"""Output formats of `llverify check`: text (rich), json, junit, sarif, markdown.

Each module exposes ``render(results, **options) -> str``; :data:`FORMATS`
maps the ``--format`` name to it.  A format's module is imported when its name is
first looked up, so a run pays only for the format it prints (the text format's
rich, about 50 ms, is not loaded by a JSON run, nor the other four by a text run).

>>> sorted(FORMATS)
['json', 'junit', 'markdown', 'sarif', 'text']
>>> FORMATS["json"].__module__
'llverify.spec.formats.jsonout'
"""

from __future__ import annotations

from typing import Callable, Iterator, Mapping

__all__ = ["FORMATS", "FORMAT_NAMES", "renderer"]

FORMAT_NAMES = ("text", "json", "junit", "sarif", "markdown")


def renderer(name: str) -> Callable[..., str]:
    """The ``render`` function of format ``name`` (``KeyError`` for an unknown name)."""
    if name == "text":
        from llverify.spec.formats import text as module
    elif name == "json":
        from llverify.spec.formats import jsonout as module  # type: ignore[no-redef]
    elif name == "junit":
        from llverify.spec.formats import junit as module  # type: ignore[no-redef]
    elif name == "sarif":
        from llverify.spec.formats import sarif as module  # type: ignore[no-redef]
    elif name == "markdown":
        from llverify.spec.formats import markdown as module  # type: ignore[no-redef]
    else:
        raise KeyError(name)
    return module.render


class _Formats(Mapping[str, Callable[..., str]]):
    """``{name: render}`` whose values are imported on first lookup."""

    def __getitem__(self, name: str) -> Callable[..., str]:
        return renderer(name)

    def __iter__(self) -> Iterator[str]:
        return iter(FORMAT_NAMES)

    def __len__(self) -> int:
        return len(FORMAT_NAMES)


FORMATS: Mapping[str, Callable[..., str]] = _Formats()
