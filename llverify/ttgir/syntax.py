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

__all__ = ["MAX_DEPTH", "max_depth", "scan_depths", "split_top", "find_top", "rfind_top", "split_arrow",
           "strip_parens", "matching_close"]

#: deepest bracket nesting accepted anywhere in a module (Triton prints < 10)
MAX_DEPTH = 256

_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = {")", "]", "}", ">"}


def scan_depths(text: str) -> list[int]:
    """Depth *before* each character (strings count as depth + 1 inside the quotes).

    Postcondition: ``len(result) == len(text)``; a closing bracket that has no
    opener leaves the depth at 0 (callers validate balance separately).
    """
    depths = []
    depth = 0
    in_str = False
    prev = ""
    for ch in text:
        depths.append(depth + (1 if in_str else 0))
        if in_str:
            if ch == '"' and prev != "\\":
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and not (ch == ">" and prev == "-"):
            depth = max(0, depth - 1)
        prev = ch if not (prev == "\\" and ch == "\\") else ""
    return depths


def max_depth(text: str) -> int:
    """The deepest bracket nesting in ``text``."""
    return max(scan_depths(text), default=0)


def split_top(text: str, sep: str) -> list[str]:
    """Split ``text`` at every top-level occurrence of ``sep``."""
    depths = scan_depths(text)
    out, start, i = [], 0, 0
    while i <= len(text) - len(sep):
        if depths[i] == 0 and text.startswith(sep, i) and _top_token(text, depths, i, sep):
            out.append(text[start:i])
            i += len(sep)
            start = i
        else:
            i += 1
    out.append(text[start:])
    return out


def _top_token(text: str, depths: list[int], i: int, sep: str) -> bool:
    # the separator itself must not open or close a bracket at this position
    return all(depths[j] == 0 for j in range(i, min(len(text), i + len(sep))))


def find_top(text: str, token: str, start: int = 0) -> int:
    """Index of the first top-level ``token`` at or after ``start``, or -1."""
    depths = scan_depths(text)
    for i in range(start, len(text) - len(token) + 1):
        if depths[i] == 0 and text.startswith(token, i):
            return i
    return -1


def rfind_top(text: str, token: str) -> int:
    """Index of the last top-level ``token``, or -1."""
    depths = scan_depths(text)
    for i in range(len(text) - len(token), -1, -1):
        if depths[i] == 0 and text.startswith(token, i):
            return i
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
    depths = scan_depths(text)
    base = depths[open_index]
    for i in range(open_index + 1, len(text)):
        if depths[i] == base + 1 and text[i] in _CLOSE and not (text[i] == ">" and text[i - 1] == "-"):
            if i + 1 >= len(text) or depths[i] >= 0:
                # the depth after this character returns to base
                after = depths[i + 1] if i + 1 < len(text) else base
                if after == base:
                    return i
    return -1
