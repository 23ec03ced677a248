"""Physical lines of a TTGIR text joined into logical lines: one operation, region opener or closer, block label
or alias definition each.

Triton prints one operation per line, but MLIR is free-form: a hand-written or wrapped module may continue an op
over several lines (``tt.func @f(\n  %a: ...,\n  %b: ...) {``, ``tt.dot %a, %b, %c :\n  T * T -> T``, an alias
``#blocked = #ttg.blocked<{`` ... ``}>``, a module header ``module attributes {`` ... ``} {``).  A line is complete
when its brackets are balanced (:func:`~llverify.ttgir.syntax.max_depth_final` ``<= 0``), it does not end in a
continuation token (``,`` ``:`` ``=`` ``->`` ``(`` ``*``) and the next line does not start with one (``->``,
``* ``, ``: ``, ``{``, ``loc(``, or a bare keyword of a custom format: :func:`_leads`); a line ending in ``{`` or starting with ``}`` or ``^`` always is.  ``//`` comments
(outside strings) are dropped.

>>> [(n, c, s) for n, c, s, _ in logical_lines(["  %0 = tt.dot %a, %b, %c :", "    A * B -> C"])]
[(1, 3, '%0 = tt.dot %a, %b, %c : A * B -> C')]
"""

from __future__ import annotations

import re
from typing import Iterator, Match

from llverify.ttgir.op_line import LOC_LINE, fast_line
from llverify.ttgir.syntax import max_depth_final

__all__ = ["logical_lines", "strip_comment"]

#: the start of an attribute or type alias definition, which may be wrapped over several lines
_DEFINITION = re.compile(r"^[#!][A-Za-z_][A-Za-z0-9_$.]*\s*=")


def strip_comment(line: str) -> str:
    """The line without surrounding blanks and without a ``//`` comment (outside strings)."""
    s = line.strip()
    if s.startswith("//"):
        return ""
    if "//" in s:
        in_str = False
        prev = ""
        for i, ch in enumerate(s):
            if ch == '"' and prev != "\\":
                in_str = not in_str
            elif not in_str and ch == "/" and prev == "/" and (i < 2 or s[i - 2] in " \t"):
                return s[:i - 1].rstrip()
            prev = ch
    return s


_CONTINUES = (",", ":", "=", "->", "(", "*")
#: a line starting with one of these continues the previous op (MLIR is free-form; Triton never prints this)
_LEADS = ("->", "* ", ": ", "{", "loc(", "<{", "({")  # `<{props}>` and `({ regions` of a wrapped generic op
#: ... or with a bare keyword of an op's custom format (``resident "rhs" accumulator "transient"``): a lowercase
#: word with no dialect prefix, not an assignment, and not one of the few ops MLIR prints without their dialect
#: (``module``; ``return``, ``call``, ``call_indirect``, ``constant`` in a ``func.func`` body)
_KEYWORD_LEAD = re.compile(r"(?!(?:module|return|call|call_indirect|constant)\b)[a-z_][a-z0-9_]*(?=[\s(]|$)(?!\s*=)")


def _leads(line: str) -> bool:
    """Whether ``line`` goes on with the op of the lines before it rather than starting a new one.

    >>> _leads('resident "rhs" accumulator "transient"'), _leads("iter_args(%a = %b)"), _leads("tt.return")
    (True, True, False)
    >>> _leads("return %x : f32"), _leads("%0 = arith.addi %a, %b : i32"), _leads("} loc(#loc)")
    (False, False, False)
    """
    first = line[:1]
    if first == "%" or first == "}":  # nearly every line: an op with results, a region closer
        return False
    return line.startswith(_LEADS) or (first.islower() and _KEYWORD_LEAD.match(line) is not None)


def _attributes_open(header: str) -> bool:
    """Whether a module header's ``attributes {...}`` dictionary is still open (quoted text skipped).

    >>> _attributes_open('module attributes {'), _attributes_open('module attributes {"a" = 1 : i32} {')
    (True, False)
    """
    i = header.find("attributes")
    j = header.find("{", i) if i >= 0 else -1
    if j < 0:
        return False
    depth, quoted, k = 0, False, j
    while k < len(header):
        ch = header[k]
        if quoted:
            if ch == "\\":
                k += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return False
        k += 1
    return True


def logical_lines(lines: list[str]) -> Iterator[tuple[int, int, str, Match[str] | None]]:
    """Physical lines joined where an op continues (unbalanced brackets, a trailing ``,`` ``:`` ``->``...):
    MLIR allows ``tt.func @f(\n  %a: ...,\n  %b: ...) {`` and ``tt.dot %a, %b, %c :\n  T * T -> T``.
    Yields (first line number, its 1-based column, the joined text stripped, and the match of :func:`fast_line`
    or :data:`LOC_LINE` when the line is one common op line or location definition, which is complete: balanced,
    ending in no continuation token).

    >>> [(n, c, s) for n, c, s, _ in logical_lines(["  %0 = tt.dot %a, %b, %c :", "    T * T -> T"])]
    [(1, 3, '%0 = tt.dot %a, %b, %c : T * T -> T')]
    """
    buf: list[str] = []
    start = col = 0
    stripped = [strip_comment(raw) if "/" in raw else raw.strip() for raw in lines]
    count = len(lines)
    lineno = 0
    for s in stripped:
        lineno += 1
        if not s:
            continue
        if not buf:
            start, col = lineno, lines[lineno - 1].find(s[0]) + 1  # s[0]: the line's first non-blank character
            m = fast_line(s) if s[0] == "%" or s[0].isalpha() else LOC_LINE.fullmatch(s) if s[0] == "#" else None
            if m is not None:
                after = (stripped[lineno] if lineno < count else "") or _next(stripped, lineno, count)
                if not _leads(after):
                    yield lineno, col, s, m
                    continue
        buf.append(s)
        body = " ".join(buf) if len(buf) > 1 else s
        if body.startswith("module") and _attributes_open(body):
            continue  # a hand-wrapped module header: `module attributes {` / `"ttg.num-warps" = 4 : i32,` / `} {`
        if body[:1] in "#!" and len(buf) <= 10_000 and _DEFINITION.match(body) and max_depth_final(body) > 0:
            continue  # a hand-wrapped alias: `#blocked = #ttg.blocked<{` / `sizePerThread = [1, 1],` / ... `}>`
        if (body.endswith("{") or body.startswith("^") or (body.startswith("}") and not _closer_continues(body))
                or (not body.endswith(_CONTINUES) and max_depth_final(body) <= 0)):
            if (not body.endswith("{") and not body.startswith("^")
                    and _leads(_next(stripped, lineno, count))):
                continue  # hand-wrapped lit tests: the next line goes on with `-> T`, `* T`, `: T`, `{attrs}`
            yield start, col, body, None
            buf = []
        elif len(buf) > 10_000:
            yield start, col, body, None  # a runaway continuation: let the op parser report it
            buf = []
    if buf:
        yield start, col, " ".join(buf), None


def _closer_continues(body: str) -> bool:
    """Whether a line that closes regions goes on with an unfinished attribute dictionary or signature on the next
    line (``} {ttg.partition.stages = [0, 0],`` / ``ttg.partition = array<i32: 0, 1>}``: MLIR is free-form): the
    text after its leading ``}``/``)`` ends in a continuation token or leaves a bracket open.

    >>> _closer_continues("} {a = 1,"), _closer_continues("}) : (f32) -> f32"), _closer_continues("} else {")
    (True, False, False)
    """
    rest = body.lstrip("}) \t")
    return bool(rest) and not rest.endswith("{") and (rest.endswith(_CONTINUES) or max_depth_final(rest) > 0)


def _next(stripped: list[str], lineno: int, count: int) -> str:
    """The first non-blank (comment-free) line after line ``lineno`` (1-based), or ""."""
    while lineno < count:
        if stripped[lineno]:
            return stripped[lineno]
        lineno += 1
    return ""
