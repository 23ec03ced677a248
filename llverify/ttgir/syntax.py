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
from typing import Iterator

__all__ = ["MAX_DEPTH", "max_depth", "max_depth_final", "depth_at", "scan_depths", "split_top", "find_top", "rfind_top",
           "split_arrow", "strip_parens", "matching_close", "sub", "plain_balanced", "plain_encloses"]

#: deepest bracket nesting accepted anywhere in a module (Triton prints < 10)
MAX_DEPTH = 256

_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = {")", "]", "}", ">"}


_SPECIAL = re.compile(r'[()\[\]{}<>"\\]')
#: a bracket that changes the depth when the text has no quotes or backslashes (``->`` is no bracket)
_BRACKET = re.compile(r'[()\[\]{}<]|(?<!-)>')


#: a scanned text's view: (positions, depths after, offset, first, end); the text's character ``i`` is character
#: ``i + offset`` of the text that was scanned, whose changes ``positions[first:end]`` fall inside this text
_View = tuple[tuple[int, ...], tuple[int, ...], int, int, int]
#: most views kept (cleared wholesale past this: the reader's texts are short-lived)
_MAX_VIEWS = 8192


class _Scans:
    """Memo of bracket scans, with substrings of scanned texts derived from their parent's scan.

    A substring ``T[s:e]`` of a scanned ``T`` has the same depth changes as ``T`` restricted to ``(s, e]``
    (shifted by ``s``) when the scan of ``T`` is at depth 0 just before ``s`` (so outside any string), with no
    escape pending (no backslash at ``s - 1``) and no ``->`` split at ``s``: the scan is a left-to-right state
    machine whose state at ``s`` is then the initial state.  A prefix (``s = 0``) always qualifies.
    :meth:`sub` records such a substring (derived on its first use), so the reader's slices of one op's text
    (body, operands, signature) pay one scan.  ``cache_clear`` forgets everything (the benchmark calls it per
    repeat)."""

    def __init__(self) -> None:
        self.views: dict[str, _View] = {}
        self.parents: dict[str, tuple[str, int, int]] = {}

    def cache_clear(self) -> None:
        self.views.clear()
        self.parents.clear()

    def view(self, text: str) -> _View:
        v = self.views.get(text)
        if v is not None:
            return v
        rel = self.parents.get(text)
        if rel is not None:
            parent, start, end = rel
            pos, after, off, a, b = self.view(parent)
            v = (pos, after, off + start, bisect_right(pos, off + start, a, b), bisect_right(pos, off + end, a, b))
        else:
            pos, after = _plain_changes(text) if '"' not in text and "\\" not in text else _quoted_changes(text)
            v = (pos, after, 0, 0, len(pos))
        if len(self.views) >= _MAX_VIEWS:
            self.cache_clear()
        self.views[text] = v
        return v

    def __call__(self, text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Positions where the depth changes and the depth *after* each (strings count as one level)."""
        pos, after, off, a, b = self.view(text)
        if off == 0 and a == 0 and b == len(pos):
            return pos, after
        return tuple(p - off for p in pos[a:b]), after[a:b]

    def sub(self, text: str, start: int, end: int) -> str:
        """``text[start:end]`` (``0 <= start <= end <= len(text)``), recorded as derived from ``text`` (which is
        scanned now if it was not) when the conditions above hold."""
        s = text[start:end]
        if len(s) == len(text) or not s or s in self.views or s in self.parents:
            return s
        if start > 0:
            pos, after, off, a, b = self.view(text)
            k = bisect_right(pos, off + start, a, b) - 1
            if (k >= a and after[k]) or text[start - 1] == "\\" or (text[start] == ">" and text[start - 1] == "-"):
                return s
        if len(self.parents) >= _MAX_VIEWS:
            self.cache_clear()
            return s
        self.parents[s] = (text, start, end)
        return s


_changes = _Scans()
#: ``sub(text, start, end)``: ``text[start:end]`` whose bracket scan is derived from ``text``'s
sub = _changes.sub


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


def plain_balanced(text: str) -> bool:
    """Whether the bracket scan of ``text`` (no quotes or backslashes) ends at depth 0: the depth before any
    text that follows it is the depth before it.

    Requires: no ``"`` or ``\\`` in ``text``.  >>> plain_balanced("a<b, c>-> d"), plain_balanced("a<b->")
    (True, False)"""
    depth = 0
    for tok in _BRACKET.findall(text):
        if tok in "([{<":
            depth += 1
        elif depth:
            depth -= 1
    return depth == 0


def plain_encloses(text: str) -> bool:
    """Whether ``text`` (no quotes or backslashes) opens a bracket at its first character that the scan closes
    first at its last: ``matching_close(text, 0) == len(text) - 1`` and the scan ends at depth 0.

    Requires: no ``"`` or ``\\`` in ``text``."""
    pos, after = _plain_changes(text)
    return (text[:1] in ("(", "[", "{", "<") and pos[0] == 1 and pos[-1] == len(text) and after[-1] == 0
            and 0 not in after[:-1])


def depth_at(text: str, i: int) -> int:
    """Bracket depth just before character ``i``."""
    pos, after, off, a, b = _changes.view(text)
    k = bisect_right(pos, i + off, a, b) - 1
    return after[k] if k >= a else 0


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
    _, after, _, a, b = _changes.view(text)
    return max(after[a:b], default=0)


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
    return _strip(text, 0, i), _strip(text, i + 2, len(text))


def strip_parens(text: str) -> str:
    """``"(a, b)"`` -> ``"a, b"`` when the parentheses enclose the whole text."""
    t = _strip(text, 0, len(text))
    if t.startswith("(") and matching_close(t, 0) == len(t) - 1:
        return sub(t, 1, len(t) - 1)
    return t


def _strip(text: str, start: int, end: int) -> str:
    """``text[start:end].strip()``, its scan derived from ``text``'s (:func:`sub`)."""
    t = text[start:end]
    lead = len(t) - len(t.lstrip())
    return sub(text, start + lead, start + len(t.rstrip()))


def matching_close(text: str, open_index: int) -> int:
    """Index of the bracket closing the one at ``open_index``, or -1."""
    pos, after, off, a, b = _changes.view(text)
    k = bisect_right(pos, open_index + off, a, b)
    base = after[k - 1] if k > a else 0
    while k < b:
        if after[k] == base:
            i = pos[k] - 1 - off
            return i if text[i] in _CLOSE or text[i] == '"' else -1
        k += 1
    return -1
