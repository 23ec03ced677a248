"""Physical lines of a TTGIR text joined into logical lines: one operation, region opener or closer, block label
or alias definition each.

Triton prints one operation per line, but MLIR is free-form: a hand-written or wrapped module may continue an op
over several lines (``tt.func @f(\n  %a: ...,\n  %b: ...) {``, ``tt.dot %a, %b, %c :\n  T * T -> T``, an alias
``#blocked = #ttg.blocked<{`` ... ``}>``, a module header ``module attributes {`` ... ``} {``).  A line is complete
when its brackets are balanced (:func:`~llverify.ttgir.syntax.max_depth_final` ``<= 0``), it does not end in a
continuation token (``,`` ``:`` ``=`` ``->`` ``(`` ``*``) and the next line does not start with one (``->``,
``* ``, ``: ``, ``{``); a line ending in ``{`` or starting with ``}`` or ``^`` always is.  ``//`` comments
(outside strings) are dropped.

>>> list(logical_lines(["  %0 = tt.dot %a, %b, %c :", "    tensor<4xf32> * tensor<4xf32> -> tensor<4xf32>"]))
[(1, '  %0 = tt.dot %a, %b, %c : tensor<4xf32> * tensor<4xf32> -> tensor<4xf32>')]
"""

from __future__ import annotations

import re
from typing import Iterator

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
_LEADS = ("->", "* ", ": ", "{")


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


def logical_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Physical lines joined where an op continues (unbalanced brackets, a trailing ``,`` ``:`` ``->``...):
    MLIR allows ``tt.func @f(\n  %a: ...,\n  %b: ...) {`` and ``tt.dot %a, %b, %c :\n  T * T -> T``.
    Yields (first line number, joined text with the first line's indentation)."""
    buf: list[str] = []
    start = 0
    stripped = [strip_comment(raw) for raw in lines]
    following = [""] * (len(lines) + 1)  # the next non-blank (comment-free) line after each line
    for i in range(len(lines) - 1, -1, -1):
        following[i] = stripped[i + 1] if i + 1 < len(lines) and stripped[i + 1] else following[i + 1]
    for lineno, raw in enumerate(lines, 1):
        s = stripped[lineno - 1]
        if not s:
            continue
        if not buf:
            start = lineno
            buf.append(raw[:len(raw) - len(raw.lstrip())] + s)
        else:
            buf.append(s)
        text = " ".join(buf) if len(buf) > 1 else buf[0]
        body = text.strip()
        if body.startswith("module") and _attributes_open(body):
            continue  # a hand-wrapped module header: `module attributes {` / `"ttg.num-warps" = 4 : i32,` / `} {`
        if body[:1] in "#!" and len(buf) <= 10_000 and _DEFINITION.match(body) and max_depth_final(body) > 0:
            continue  # a hand-wrapped alias: `#blocked = #ttg.blocked<{` / `sizePerThread = [1, 1],` / ... `}>`
        if (body.endswith("{") or body.startswith(("}", "^"))
                or (not body.endswith(_CONTINUES) and max_depth_final(body) <= 0)):
            if not body.endswith("{") and not body.startswith("^") and following[lineno - 1].startswith(_LEADS):
                continue  # hand-wrapped lit tests: the next line goes on with `-> T`, `* T`, `: T`, `{attrs}`
            yield start, text
            buf = []
        elif len(buf) > 10_000:
            yield start, text  # a runaway continuation: let the op parser report it
            buf = []
    if buf:
        yield start, " ".join(buf)
