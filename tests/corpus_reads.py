"""The TTGIR corpus read whole, for the tests that compare a fast path with the general code on it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from llverify.ttgir import reader, syntax

CORPUS = Path(__file__).parent / "data" / "ttgir"


def corpus_texts() -> list[tuple[str, str]]:
    """(path, text) of every top-level corpus module."""
    files = sorted(CORPUS.glob("*.ttgir"))
    assert len(files) > 100
    return [(str(p), p.read_text()) for p in files]


def read_all(texts: list[tuple[str, str]]) -> list:
    """Each text's modules as the reader makes them now (a refused text by its message), memo cleared first."""
    out = []
    for path, text in texts:
        syntax._changes.cache_clear()
        try:
            out.append(reader.parse_modules(text, path))
        except Exception as exc:  # noqa: BLE001 - a refused module is compared by its message
            out.append(str(exc))
    return out


def read_repr(text: str, path: str = "f.mlir") -> str:
    """The ``repr`` of one text's modules as the reader makes them now (a refused text: its error's type and
    message), memo cleared first: what the fast-path tests compare between a fast and a general reading."""
    syntax._changes.cache_clear()
    try:
        return repr(reader.parse_modules(text, path))
    except Exception as exc:  # noqa: BLE001 - a refused text is compared by its message
        return f"{type(exc).__name__}: {exc}"


def fast_and_general(text: str, general: Callable[[pytest.MonkeyPatch], None]) -> tuple[str, str]:
    """``read_repr`` of ``text`` as the reader is, and again with ``general`` patching the fast path out: the two
    readings a fast-path test compares."""
    fast = read_repr(text)
    with pytest.MonkeyPatch.context() as mp:
        general(mp)
        return fast, read_repr(text)
