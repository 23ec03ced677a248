"""The one-match reading of the op line Triton prints for nearly every operation.

Nearly every line of a printed module is one complete operation of one shape::

    %a_13 = arith.muli %a, %a_12 {overflowFlags = #arith.overflow<none>} : tensor<128x1xi32, #blocked1> loc(#loc33)

results (``%r``, ``%r:2``, separated by ``, ``), a bare op name, operands (uses ``%x``, ``%x#1``, indices
``%d[%i]``, keywords ``slt,`` ``deps``, literals ``0``, ``dense<...>``), at most one attribute dictionary, an optional
`` : `` and type signature of one of the printed shapes (``T``, ``T, U``, ``A -> B``, ``(T, U) -> V``,
``T * U -> V``, ``A to B``, each side a type list, parenthesised or not) and an optional location alias.  :func:`fast_line` matches such a line at once
(:data:`OP_LINE`), so the reader skips its general steps for it: joining continued lines, bracket balance, region
and block recognition (:mod:`llverify.ttgir.lines`, :mod:`llverify.ttgir.structure`) and the split into results,
name, operands, attributes, signature and location (:mod:`llverify.ttgir.assemble`).

Why the general steps read such a line the same way (what ``tests/test_fast_paths_readfast.py`` checks on the
corpus and on random lines): the grammar admits brackets only in matched pairs, nested at most four deep, with no
quote or backslash, so the bracket scan is balanced and equals the pairs matched; no ``->`` but the signature's
top-level arrow (checked: a ``->`` inside a bracket would be no closing ``>`` to the scan), so every ``>`` closes;
the signature separator is the only `` : `` at depth 0 (operands hold no ``:``, the signature's types separate at
depth 0 with ``, `` `` -> `` `` * `` `` to `` only), and the location alias is the last ``loc(`` at depth 0; the
attribute dictionary is the only ``{`` at depth 0; the operands hold no ``=`` (so the results end at the first).  A line that is not of this shape (``//`` comments, strings, regions, block labels,
continued lines, generic ``"op"(...)`` forms) is read by the general steps.

>>> m = fast_line("%0 = tt.splat %x : i32 -> tensor<4xi32, #blocked> loc(#loc3)")
>>> m.group("results"), m.group("name"), m.group("operands"), m.group("signature"), m.group("loc")
('%0', 'tt.splat', ' %x', 'i32 -> tensor<4xi32, #blocked>', 'loc(#loc3)')
"""

from __future__ import annotations

import re

__all__ = ["OP_LINE", "LOC_LINE", "fast_line", "signature_types", "argument_types", "argument_list"]

_PLAIN = r'[^<>{}()\[\]"\\]'  # no bracket, quote or backslash


def _nested(depth: int) -> str:
    """The content of a bracket pair holding pairs nested at most ``depth`` deep (possessive: no backtracking)."""
    body = _PLAIN + "*+"
    for _ in range(depth):
        body = rf"(?:{_PLAIN}++|<{body}>|\{{{body}\}}|\[{body}\])*+"
    return body


#: one type: a name (``i32``, ``tensor``, ``!tt.ptr``; empty before ``<`` as in ``-> <64xf32, #shared, ...>``) and
#: an optional ``<...>`` with pairs nested at most three deep inside (``#ttg.swizzled_shared<{order = [1, 0]}>``)
_TYPE = rf"(?=[!\w.$<])[!\w.$]*+(?:<{_nested(3)}>)?"
_LIST = rf"{_TYPE}(?:, {_TYPE})*+"
_SIDE = rf"(?:\((?:{_LIST})?\)|{_TYPE}(?:(?:, | \* ){_TYPE})*+)"  # the operand side: `A * B -> C` of tt.dot
_RESULT_SIDE = rf"(?:\((?:{_LIST})?\)|{_LIST})"
_ATTRS = rf"\{{(?:{_PLAIN}++|<{_PLAIN}*+>|\[{_PLAIN}*+\])*+\}}"
_USE = r"%[\w$.\-]+(?:#\d+)?"
_RESULT = r"%[\w$.\-]+(?::\d+)?"

#: what an operand list holds: uses, indices ``%d[%i, %j]``, keywords (``slt,`` ``deps`` ``allow_reorder``), literals
#: (``1``, ``-1.5e+00``, ``dense<0.0>``); no ``:`` ``=`` ``{`` or string, so its uses are its ``%`` names in order
_OPERAND = r'(?:[\w%#$.+\-]++|<[^<>{}()\[\]"\\:=]*+>|\[[^<>{}()\[\]"\\:=]*+\])++'

#: the common op line (stripped), with its parts as :class:`~llverify.ttgir.op_text.CommonOp` names them
OP_LINE = re.compile(
    rf"(?:(?P<results>{_RESULT}(?:, {_RESULT})*+) = )?"
    r"(?P<name>[A-Za-z_][\w.$]*+)"
    rf"(?P<operands>(?: {_OPERAND},?)*+)(?P<attributes> {_ATTRS})?"
    rf"(?: : (?P<signature>{_SIDE}(?P<arrow> -> {_RESULT_SIDE}| to {_TYPE})?))?"
    r"(?: (?P<loc>loc\(#[\w$.\-]+\)))?")


#: a location alias definition (``#loc3 = loc("k.py":4:9)``, ``#loc9 = loc(callsite(#loc3 at #loc4))``): parentheses
#: nested at most two deep, no other bracket outside strings, strings without backslashes (group 1: the name,
#: group 2: the ``loc(...)``); complete and balanced, as the general steps read it (strings are opaque to both)
_LOC_ITEM = r'[^"()\\<>{}\[\]]++|"[^"\\]*+"'
LOC_LINE = re.compile(rf"#([A-Za-z_][A-Za-z0-9_$.]*+) = (loc\((?:{_LOC_ITEM}|\((?:{_LOC_ITEM})*+\))*+\))")


def fast_line(s: str) -> re.Match[str] | None:
    """:data:`OP_LINE`'s match of a stripped line when the general steps read it the same way (see the module
    docstring), else None.

    Postcondition: a match's brackets are balanced, its only ``->`` is the signature's arrow, it has no quote,
    backslash or ``//``, it does not start with ``module`` and does not end with ``,`` (which continues it)."""
    m = OP_LINE.fullmatch(s)
    if m is None or "//" in s or s.startswith("module") or s.endswith(","):  # `,`: the op goes on (lines.py)
        return None
    arrow = m.group("arrow")
    if s.count("->") != (1 if arrow is not None and arrow.startswith(" ->") else 0):
        return None
    return m


_TYPE_RE = re.compile(_TYPE)


def signature_types(m: re.Match[str]) -> tuple[list[str], list[str] | None]:
    """The operand and result type texts of a :func:`fast_line` match's signature: every type of the side before
    the arrow (or `` to ``), every type after it (None without one), in order.

    The general reading (``split_signature_plain``, or ``split_arrow`` / the cast split / ``split_top`` at ``,``
    then `` * ``) cuts each side at its top-level separators and drops enclosing parentheses; in the grammar every
    type starts a side or follows a separator and a ``(`` or ``)`` at depth 0 is a side's enclosing pair, so the
    types found one after the other are those pieces (stripped, as the assembler reads them)."""
    sig = m.group("signature")
    if sig is None:
        return [], None
    arrow = m.group("arrow")
    if arrow is None:
        return _TYPE_RE.findall(sig), None
    cut = m.start("arrow") - m.start("signature")
    return _TYPE_RE.findall(sig, 0, cut), _TYPE_RE.findall(sig, cut + 4)


#: one block or function argument as Triton prints it: ``%x: T``, argument attributes, a location
_ARGUMENT = re.compile(rf"(%[\w$.\-]+): ({_TYPE})(?: {_ATTRS})?"
                       rf"(?: loc\((?:{_LOC_ITEM}|\((?:{_LOC_ITEM})*+\))*+\))?")


def argument_types(text: str) -> list[tuple[str, str]] | None:
    """(name, type text) of each argument of an argument list printed as Triton prints it (``%a: T {attrs}
    loc(...), %b: U``), or None for any other list (the general reading reads it).

    The general reading cuts the list at top-level commas, each piece's trailing top-level ``loc(...)``, its name at
    the first ``:`` and its type before a top-level ``{``; in the grammar every comma, ``{`` and quote but the
    separators is inside a bracket pair or a string, so each match is one piece and its groups are those parts."""
    if "->" in text:  # (a `>` that closes nothing to the bracket scan: see the module docstring)
        return None
    out: list[tuple[str, str]] = []
    i, end = 0, len(text)
    while i < end:
        m = _ARGUMENT.match(text, i)
        if m is None:
            return None
        out.append((m.group(1), m.group(2)))
        i = m.end()
        if i < end:
            if not text.startswith(", ", i):
                return None
            i += 2
            if i == end:
                return None
    return out


def argument_list(text: str, start: int) -> tuple[list[tuple[str, str]], int] | None:
    """:func:`argument_types` of the parenthesised argument list opening at ``text[start]`` (``(%a: T, %b: U)``) and
    the index of its closing ``)``, or None when the list is not of the printed form.  Every bracket of an argument
    is matched inside it, so that ``)`` is the one that closes the list (what ``matching_close`` finds)."""
    if not text.startswith("(", start):
        return None
    out: list[tuple[str, str]] = []
    i = start + 1
    if text.startswith(")", i):
        return out, i
    while True:
        m = _ARGUMENT.match(text, i)
        if m is None:
            return None
        out.append((m.group(1), m.group(2)))
        i = m.end()
        if text.startswith(")", i):
            return (out, i) if "->" not in text[start:i] else None  # (as in argument_types)
        if not text.startswith(", ", i):
            return None
        i += 2
