"""A type signature's operand and result type texts in one pass, for the signatures nearly every op prints.

The general reading (``split_arrow``, ``strip_parens``, ``split_top`` of :mod:`llverify.ttgir.syntax`) scans the
text once per split; :func:`split_signature_plain` answers all of them from one scan of a signature without quotes,
backslashes, casts (`` to ``) or `` * `` (``None`` for any other: the caller reads those the general way).

>>> split_signature_plain("(tensor<4xf32, #b>, i32) -> tensor<4xf32, #b>")
(['tensor<4xf32, #b>', ' i32'], ['tensor<4xf32, #b>'])
"""

from __future__ import annotations

import re

__all__ = ["split_signature_plain"]

#: the tokens of a type signature's one-pass scan: the arrow (whose ``>`` closes nothing), commas, brackets
_SIG_TOKENS = re.compile(r"->|,|[(\[{<]|[)\]}>]")


def split_signature_plain(sig: str) -> tuple[list[str], list[str] | None] | None:
    """The operand and result type texts of a signature without quotes, backslashes, casts (`` to ``) or `` * ``
    (nearly every op's), in one regex pass: what the assembler's general ``split_arrow`` / ``strip_parens`` /
    ``split_top`` compute (``A -> B`` at the first top-level arrow, a side's enclosing parentheses dropped, each
    side split at its top-level commas, blank parts left out); None for any other signature.

    Every piece starts at depth 0 of the whole text (after the arrow, after a top-level comma) or 1 (inside
    parentheses that close at the piece's end, where the depth never falls to 0), so its own scan is the whole
    text's, shifted: one scan answers every split."""
    if '"' in sig or "\\" in sig or " to " in sig or " * " in sig:
        return None
    depth = 0
    marks: list[tuple[int, str, int]] = []  # (position, token, depth before it)
    arrow = -1
    for m in _SIG_TOKENS.finditer(sig):
        tok = m.group()
        i = m.start()
        if tok == "->":
            if not depth and arrow < 0:
                arrow = i
            continue
        marks.append((i, tok, depth))
        if tok in "([{<":
            depth += 1
        elif tok != "," and depth:
            depth -= 1
    if arrow < 0:
        return _signature_side(sig, 0, len(sig), marks), None
    return _signature_side(sig, 0, arrow, marks), _signature_side(sig, arrow + 2, len(sig), marks)


def _signature_side(sig: str, a: int, b: int, marks: list[tuple[int, str, int]]) -> list[str]:
    """``[t for t in split_top(strip_parens(sig[a:b]), ",") if t.strip()]`` from the scan ``marks`` of ``sig``
    (``sig[a:b]`` starts at depth 0; see :func:`split_signature_plain`)."""
    text = sig[a:b]
    a += len(text) - len(text.lstrip())
    b = a + len(text.strip())
    level = 0
    if b > a and sig[a] == "(":
        # strip_parens: the `(` at a closes at b - 1 when the depth first returns to 0 there
        close = next((i for i, tok, d in marks if a < i < b and d == 1 and tok not in "([{<,"), -1)
        if close == b - 1:
            a, b, level = a + 1, b - 1, 1
    parts, start = [], a
    for i, tok, d in marks:
        if a <= i < b and tok == "," and d == level:
            parts.append(sig[start:i])
            start = i + 1
    parts.append(sig[start:b])
    return [p for p in parts if p.strip()]

