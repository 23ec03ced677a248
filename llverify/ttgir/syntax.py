"""Bracket-aware scanning of MLIR text: the small pieces the TTGIR reader is built from.

MLIR nests ``()``, ``[]``, ``{}`` and ``<>`` and quotes strings; ``->`` is an
arrow, not a closing angle bracket.  Every function here walks the text once,
iteratively (no recursion, so hostile nesting cannot overflow Python's stack),
and treats a separator as *top level* only at bracket depth 0 outside strings.

>>> split_top("tensor<4x4xf32, #blocked>, i32", ",")
['tensor<4x4xf32, #blocked>', ' i32']
>>> find_top("(%a) : (tensor<4xf32>) -> tensor<4xf32>", " : ")
4
>>> split_arrow("(tensor<4xf32>) -> tensor<4xf32>")
('(tensor<4xf32>)', 'tensor<4xf32>')
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import Iterator

__all__ = ["MAX_DEPTH", "max_depth", "max_depth_final", "depth_at", "scan_depths", "split_top", "find_top", "rfind_top", "split_arrow",
           "strip_parens", "matching_close"]

#: deepest bracket nesting accepted anywhere in a module (Triton prints < 10)
MAX_DEPTH = 256

_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = {")", "]", "}", ">"}


_SPECIAL = re.compile(r'[()\[\]{}<>"\\]')
#: a bracket that changes the depth when the text has no quotes or backslashes (``->`` is no bracket)
_BRACKET = re.compile(r'[()\[\]{}<]|(?<!-)>')


@lru_cache(maxsize=1024)
def _changes(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Positions where the depth changes and the depth *after* each (strings count as one level)."""
    if '"' not in text and "\\" not in text:
        return _plain_changes(text)
    return _quoted_changes(text)


def _quoted_changes(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`_changes` of any text (quoted strings, backslash escapes)."""
    pos: list[int] = []
    after: list[int] = []
    depth = 0
    in_str = False
    skip = -1
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i == skip:
            continue
        ch = m.group()
        if ch == "\\":
            skip = i + 1
            continue
        if in_str:
            if ch == '"':
                in_str = False
                depth -= 1
                pos.append(i + 1)
                after.append(depth)
            continue
        if ch == '"':
            in_str = True
            depth += 1
        elif ch in _OPEN:
            depth += 1
        elif ch == ">" and i > 0 and text[i - 1] == "-":
            continue
        else:
            depth = max(0, depth - 1)
        pos.append(i + 1 if ch in _CLOSE or ch == '"' and not in_str else i + 1)
        after.append(depth)
    return tuple(pos), tuple(after)


def _plain_changes(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`_changes` of a text without quotes or backslashes (no strings, no escapes): the same positions
    and depths, one regex match per bracket.  ``_plain_changes("a<b>->c") == ((2, 4), (1, 0))``."""
    pos: list[int] = []
    after: list[int] = []
    depth = 0
    for m in _BRACKET.finditer(text):
        i = m.end()
        if m.group() in "([{<":
            depth += 1
        elif depth:
            depth -= 1
        pos.append(i)
        after.append(depth)
    return tuple(pos), tuple(after)


def depth_at(text: str, i: int) -> int:
    """Bracket depth just before character ``i``."""
    pos, after = _changes(text)
    k = bisect_right(pos, i) - 1
    return after[k] if k >= 0 else 0


def scan_depths(text: str) -> tuple[int, ...]:
    """Depth *before* each character (strings count as depth + 1 inside the quotes)."""
    return tuple(depth_at(text, i) for i in range(len(text)))


def max_depth_final(text: str) -> int:
    """The bracket depth after the last character (0 when every bracket is closed; may be negative)."""
    if '"' not in text:
        # no strings: opens minus closes, where the '>' of each '->' is no close (a backslash outside a string
        # escapes nothing here: only the string state reads the previous character)
        return (text.count("(") + text.count("[") + text.count("{") + text.count("<") - text.count(")")
                - text.count("]") - text.count("}") - text.count(">") + text.count("->"))
    if "\\" not in text:
        # quotes toggle strings (no escapes): the text outside them, each string replaced by a blank (so a '-'
        # before a string and a '>' after it make no arrow), counted as above
        return max_depth_final(" ".join(text.split('"')[0::2]))
    return _scanned_final_depth(text)


def _scanned_final_depth(text: str) -> int:
    """:func:`max_depth_final` of any text, character by character (strings skipped)."""
    depth = 0
    in_str = False
    prev = ""
    for m in _SPECIAL.finditer(text):
        ch = m.group()
        i = m.start()
        if in_str:
            if ch == '"' and prev != "\\":
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and not (ch == ">" and i > 0 and text[i - 1] == "-"):
            depth -= 1
        prev = ch
    return depth


def max_depth(text: str) -> int:
    """The deepest bracket nesting in ``text``."""
    return max(_changes(text)[1], default=0)


def _occurrences(text: str, token: str, start: int = 0) -> Iterator[int]:
    i = text.find(token, start)
    while i >= 0:
        yield i
        i = text.find(token, i + 1)


def _top(text: str, i: int, token: str) -> bool:
    """The token starts at depth 0 (``find_top``: ``<{`` opens at top level)."""
    return depth_at(text, i) == 0


def _top_all(text: str, i: int, token: str) -> bool:
    """Every character of the token is at depth 0 (a separator that opens or closes nothing)."""
    if len(token) == 1:
        return depth_at(text, i) == 0
    return all(depth_at(text, j) == 0 for j in range(i, i + len(token)))


def split_top(text: str, sep: str) -> list[str]:
    """Split ``text`` at every top-level occurrence of ``sep``."""
    out, start = [], 0
    for i in _occurrences(text, sep):
        if i >= start and _top_all(text, i, sep):
            out.append(text[start:i])
            start = i + len(sep)
    out.append(text[start:])
    return out


def find_top(text: str, token: str, start: int = 0) -> int:
    """Index of the first top-level ``token`` at or after ``start``, or -1."""
    for i in _occurrences(text, token, start):
        if _top(text, i, token):
            return i
    return -1


def rfind_top(text: str, token: str) -> int:
    """Index of the last top-level ``token``, or -1."""
    i = text.rfind(token)
    while i >= 0:
        if _top(text, i, token):
            return i
        i = text.rfind(token, 0, i)
    return -1


def split_arrow(text: str) -> tuple[str, str | None]:
    """``"A -> B"`` -> ``("A", "B")``; no top-level arrow -> ``(text, None)``."""
    i = find_top(text, "->")
    if i < 0:
        return text.strip(), None
    return text[:i].strip(), text[i + 2:].strip()


def strip_parens(text: str) -> str:
    """``"(a, b)"`` -> ``"a, b"`` when the parentheses enclose the whole text."""
    t = text.strip()
    if t.startswith("(") and matching_close(t, 0) == len(t) - 1:
        return t[1:-1]
    return t


def matching_close(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at ``open_index``, or -1."""
    base = depth_at(text, open_index)
    pos, after = _changes(text)
    k = bisect_right(pos, open_index)
    while k < len(pos):
        if after[k] == base:
            i = pos[k] - 1
            return i if text[i] in _CLOSE or text[i] == '"' else -1
        k += 1
    return -1
