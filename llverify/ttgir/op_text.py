"""The pieces of one operation's text: results, name, operands, attribute dictionaries, the signature separator.

An op's text (its physical lines joined, regions cut out) reads
``%r, %s:2 = dialect.op %a, %b#1 {attr = 1 : i32} : T, U -> V loc(#loc3)``: result names, the op name (bare or
quoted), operand uses, top-level ``{...}`` attribute and ``<{...}>`` property dictionaries, the type signature
after the last top-level `` : ``, and a trailing location.  Everything here is a pure function of a text;
:func:`scan_op` finds the separators and the location in one pass for texts without strings.

>>> result_names("%a, %b:2"), uses("%x, %y#1 {k = %z}"), attr_dict("{axis = 0 : i32, flag}")
(['%a', '%b#0', '%b#1'], ['%x', '%y#1', '%z'], {'axis': '0 : i32', 'flag': 'unit'})
"""

from __future__ import annotations

import re
from typing import NamedTuple

from llverify.ttgir.syntax import (depth_at, find_top, matching_close, plain_balanced, plain_encloses, rfind_top,
                                   split_top)

__all__ = ["RESULTS", "OPNAME", "canonical_op_name", "CommonOp", "common_op", "scan_op", "signature_colon",
           "result_names", "top_dicts", "remove_dicts", "uses", "attr_dict"]

#: the result list and ``=`` at the start of an op's text (group 1: the names)
RESULTS = re.compile(r"^((?:%[\w$.\-]+(?::\d+)?)(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*(?!=)")
#: an op name, quoted (group 1) or bare (group 2)
OPNAME = re.compile(r'^(?:"([\w.$]+)"|([A-Za-z_][\w.$]*))')
_VALUE_USE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
#: a use not followed by ``:`` (a definition ``%a: T`` or ``%a:T``) unless by ``:<digit>``; atomic, so a name
#: followed by ``:`` is skipped whole, never matched shorter
_KEPT_USE = re.compile(r"(?>%[\w$.\-]+(?:#\d+)?)(?!:(?!\d))")

#: dialect names of Triton 3.0-3.2 and the short names Triton 3.3+ prints; rules match the short ones
_LEGACY_DIALECTS = {"triton_gpu": "ttg", "triton_nvidia_gpu": "ttng"}


def canonical_op_name(name: str) -> str:
    """The operation (or module attribute) name as Triton 3.3+ prints it.

    >>> canonical_op_name("triton_gpu.convert_layout"), canonical_op_name("tt.load")
    ('ttg.convert_layout', 'tt.load')
    """
    dialect, dot, rest = name.partition(".")
    return f"{_LEGACY_DIALECTS[dialect]}.{rest}" if dot and dialect in _LEGACY_DIALECTS else name



#: the tokens of an op text's one-pass scan: the signature separator, a location, and every bracket that changes the
#: depth (``->`` is no bracket), as :func:`~llverify.ttgir.syntax._plain_changes` counts them
_OP_TOKENS = re.compile(r" : |loc\(|[(\[{<]|[)\]}]|(?<!-)>")


def scan_op(text: str) -> tuple[str, str | None, list[int]] | None:
    """One regex pass over an op's text without quotes or backslashes: ``(body, loc, colons)`` where ``(body,
    loc)`` is :func:`~llverify.ttgir.locations.split_loc`'s answer and ``colons`` the positions of every `` : `` at depth 0 (in ``text``,
    which starts ``body``), in order; None where the text has quotes or backslashes (strings change the scan) or
    `` : : `` (overlapping separators, which one pass does not list): the general path reads those.

    The depth is the bracket scan's (every open +1, every close -1 but never below 0): a `` : `` or ``loc(`` is
    at depth 0 when the depth before it is 0, as :func:`~llverify.ttgir.syntax.depth_at` says."""
    if '"' in text or "\\" in text or " : : " in text:
        return None
    t = text.rstrip()
    depth = 0
    colons: list[int] = []
    loc_at = -1      # the last `loc(` at depth 0
    loc_close = -1   # where the depth first came back to 0 after it
    for m in _OP_TOKENS.finditer(t):
        tok = m.group()
        if tok == " : ":
            if not depth:
                colons.append(m.start())
            continue
        if tok == "loc(":
            if not depth:
                loc_at, loc_close = m.start(), -1
            depth += 1
        elif tok in "([{<":
            depth += 1
        elif depth:
            depth -= 1
            if not depth and loc_at >= 0 and loc_close < 0:
                loc_close = m.start()
    if (loc_at >= 0 and loc_close == len(t) - 1
            and (loc_at == 0 or not (t[loc_at - 1].isalnum() or t[loc_at - 1] == "_"))):
        return t[:len(t[:loc_at].rstrip())], t[loc_at:], colons
    return t, None, colons



#: the common shape of an op's text before its signature: results, a bare name, plain operand uses, at most one
#: ``{...}`` attribute dictionary without nested braces or strings, and the separator `` : ``
_COMMON_HEAD = re.compile(
    r"(?:(%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*(?!=))?"  # results
    r"([A-Za-z_][\w.$]*)"                                                     # name
    r"((?:\s+%[\w$.\-]+(?:#\d+)?(?:\s*,\s*%[\w$.\-]+(?:#\d+)?)*)?)"           # operands
    r"(\s*\{[^{}\"\\]*\})?"                                                   # attributes
    r" : ")
#: a location alias as a whole text
_LOC_ALIAS = re.compile(r"loc\(#[\w$.\-]+\)")


class CommonOp(NamedTuple):
    """An op text split by :func:`common_op`: ``text`` is ``results = name operands attributes : signature loc``
    (each part as printed, blanks included; ``results``, ``attributes`` and ``loc`` may be empty or None)."""
    results: str
    name: str
    operands: str
    attributes: str
    signature: str
    loc: str | None


def common_op(text: str, balanced: dict[str, bool]) -> CommonOp | None:
    """``text`` split in one match when it has the common shape (above) and the general split
    (:func:`~llverify.ttgir.locations.split_loc`, :data:`RESULTS`, :data:`OPNAME`, the last top-level `` : `` as
    :func:`signature_colon`, :func:`top_dicts`) reads it the same way; None otherwise (the caller reads it the
    general way).

    The general split agrees when the attribute dictionary's bracket scan closes first at its ``}`` (then the
    separator is at depth 0), the signature holds no other `` : `` and does not start with ``:`` (the separator
    matched is the last top-level one), with a trailing ``loc(#alias)`` the signature's scan ends at depth 0 (the
    location is at depth 0, the last there) and without one the signature holds no ``loc(`` (the general split
    would take one).  ``balanced``: a memo of those bracket checks per text (attribute and signature texts repeat
    within a module).

    Postcondition: ``operands`` holds no ``:``, so its uses are ``%name`` matches in order."""
    t = text.rstrip()
    loc = None
    if t.endswith(")"):
        i = t.rfind("loc(#")
        if i > 0 and t[i - 1].isspace() and _LOC_ALIAS.fullmatch(t, i):
            loc = t[i:]
            t = t[:i].rstrip()
    m = _COMMON_HEAD.match(t)
    if m is None:
        return None
    results, name, operands, attributes = m.groups()
    signature = t[m.end():]
    if (not signature or signature[0].isspace() or signature[0] == ":" or " : " in signature or '"' in signature
            or "\\" in signature or (loc is None and "loc(" in signature)):
        return None
    if loc is not None:
        ok = balanced.get(signature)
        if ok is None:
            ok = balanced[signature] = plain_balanced(signature)
        if not ok:
            return None
    if attributes:
        ok = balanced.get(attributes)
        if ok is None:
            ok = balanced[attributes] = plain_encloses(attributes.lstrip())
        if not ok:
            return None
    return CommonOp(results or "", name, operands, attributes or "", signature, loc)


def signature_colon(rest: str) -> tuple[int, int]:
    """Where an op's type signature starts: the last top-level `` : ``, else a ``:`` glued to the operand before
    it (``%b: tensor<...>``, ``{axis = 1 : i32}: tensor<...>``, ``%d[%i]: !tt.tensordesc<...>``), else one glued to
    the type after it (``%x :tensor<...>``, ``%x:tensor<...>``), all of which MLIR's lexer reads as the same colon
    token (a ``::`` of a nested symbol reference is no separator); (start, end of the separator), or (-1, -1)."""
    i = rfind_top(rest, " : ")
    if i >= 0:
        return i, i + 3
    j = rfind_top(rest, ": ")
    if j > 0 and not rest[j - 1].isspace():
        return j, j + 2
    j = rest.rfind(":")
    while j >= 0:
        if rest[j + 1:j + 2] != ":" and rest[j - 1:j] != ":" and depth_at(rest, j) == 0:
            return (j - 1 if j > 0 and rest[j - 1] == " " else j), j + 1
        j = rest.rfind(":", 0, j)
    return -1, -1



def result_names(text: str) -> list[str]:
    out: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ":" in part:
            base, count = part.split(":", 1)
            out.extend(f"{base}#{i}" for i in range(int(count)))
        else:
            out.append(part)
    return out


def top_dicts(text: str) -> list[str]:
    """Top-level ``{...}`` attribute dicts and ``<{...}>`` property dicts of an op's text."""
    out: list[str] = []
    if "{" not in text:
        return out
    i = 0
    while True:
        j = find_top(text, "{", i)
        k = find_top(text, "<{", i)
        if k >= 0 and (j < 0 or k < j):
            close = matching_close(text, k)
            if close < 0:
                return out
            out.append(text[k:close + 1])
            i = close + 1
            continue
        if j < 0:
            return out
        close = matching_close(text, j)
        if close < 0:
            return out
        out.append(text[j:close + 1])
        i = close + 1


def remove_dicts(text: str) -> str:
    for d in top_dicts(text):
        text = text.replace(d, " ", 1)
    return text


def uses(text: str) -> list[str]:
    """SSA uses in order: ``%name`` / ``%name#i``, excluding block-argument definitions ``%a: type``."""
    if ":" not in text:
        return _VALUE_USE.findall(text)
    if text.isascii():  # (``str.isdigit`` and ``\\d`` agree on ASCII only)
        return _KEPT_USE.findall(text)
    out = []
    for m in _VALUE_USE.finditer(text):
        after = text[m.end():m.end() + 2]
        if after.startswith(":") and not after.startswith(": ") and not after[1:2].isdigit():
            continue
        if after.startswith(": "):
            continue  # `%arg: type` in an argument list
        out.append(m.group())
    return out



_NESTING = ("(", "[", "{", "<", ")", "]", "}", ">", '"', "\\")


def attr_dict(text: str) -> dict[str, str]:
    """``{a = 1 : i32, "b.c" = "x", flag}`` -> ``{"a": "1 : i32", "b.c": '"x"', "flag": "unit"}``."""
    t = text.strip()
    if t.startswith("<{") and t.endswith("}>"):
        t = t[1:-1]
    if not (t.startswith("{") and t.endswith("}")):
        return {}
    out: dict[str, str] = {}
    inner = t[1:-1]
    if not any(c in inner for c in _NESTING):  # no bracket or string inside: every `,` and `=` is at the top level
        for part in inner.split(","):
            part = part.strip()
            if not part:
                continue
            eq = part.find("=")
            if eq < 0:
                out[part.strip('"')] = "unit"
            else:
                out[part[:eq].strip().strip('"')] = part[eq + 1:].strip()
        return out
    for part in split_top(inner, ","):
        part = part.strip()
        if not part:
            continue
        eq = find_top(part, "=")
        if eq < 0:
            out[part.strip('"')] = "unit"
        else:
            out[part[:eq].strip().strip('"')] = part[eq + 1:].strip()
    return out

