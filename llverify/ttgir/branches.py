"""The successors of MLIR's unstructured branches (``cf`` dialect) and the values each passes to its block.

Triton lowers ``scf`` loops to ``cf`` blocks (``convert-scf-to-cf``) before it lowers TTGIR to LLVM, so the late
snapshots of an ``MLIR_ENABLE_DUMP`` dump carry loops as blocks whose arguments are the loop state::

    cf.br ^bb1(%c0, %c0 : i32, i32)                 // entry edge: the initial state
  ^bb1(%it: i32, %s: i32):
    cf.cond_br %go, ^bb2, ^bb3                        // two successors, no values passed
  ^bb2:
    cf.br ^bb1(%it1, %s2 : i32, i32)                  // back edge: the next state

:func:`successors` reads, from the op's printed (custom) form, each successor's label and the values it passes,
in order.  ``cf.switch``, the generic form and anything unreadable give ``None`` (no claim built on it).

>>> from llverify.ttgir.model import Location, Op
>>> def op(name, operands, text): return Op(name, (), operands, (), {}, (), Location("m", 1, 1), None, text)
>>> successors(op("cf.br", ("%c0", "%x#1"), "cf.br ^bb1(%c0, %x#1 : i32, i32) loc(#loc3)"))
(('^bb1', ('%c0', '%x#1')),)
>>> successors(op("cf.cond_br", ("%go", "%a"), "cf.cond_br %go, ^bb2, ^bb3(%a : i32)"))
(('^bb2', ()), ('^bb3', ('%a',)))
>>> successors(op("cf.switch", ("%f",), "cf.switch %f : i32, [default: ^bb1, 0: ^bb2]")) is None
True
"""

from __future__ import annotations

import re

from llverify.ttgir.model import Op

__all__ = ["BRANCH_OPS", "successors"]

#: the branch ops whose successors are read
BRANCH_OPS = frozenset({"cf.br", "cf.cond_br"})

_SUCCESSOR = re.compile(r"\^([\w$.\-]+)\s*(?:\(([^()]*)\))?")
_VALUE = re.compile(r"%[\w$.\-]+(?:#\d+)?$")


def successors(op: Op) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """``((label, passed values), ...)`` of a ``cf.br`` (one successor) or ``cf.cond_br`` (two: true, false), as
    printed; ``None`` for any other op or a form not read (the generic ``"cf.br"(...)[^bb1]``).

    The passed values are the op's operands (``cf.br``: all of them; ``cf.cond_br``: after the condition, the true
    successor's then the false one's), split where the printed successor lists say; the op's kept text may end
    before the lists do (a long one), and then only a ``cf.br``, whose one list is every operand, is read."""
    if op.name not in BRANCH_OPS:
        return None
    text = op.text.strip()
    if not text.startswith(op.name):
        return None
    body = text[len(op.name):]
    loc = body.find(" loc(")
    if loc >= 0:
        body = body[:loc]
    found = list(_SUCCESSOR.finditer(body))
    if op.name == "cf.br":
        if not found or not all(_VALUE.match(n) for n in op.operands):
            return None
        return (("^" + found[0].group(1), tuple(op.operands)),)
    if len(found) != 2:
        return None
    counts = []
    for m in found:
        names = [] if m.group(2) is None else [n for n in m.group(2).split(":", 1)[0].split(",") if n.strip()]
        counts.append(len(names))
    passed = op.operands[1:]
    if sum(counts) != len(passed) or not all(_VALUE.match(n) for n in passed):
        return None
    return (("^" + found[0].group(1), tuple(passed[:counts[0]])), ("^" + found[1].group(1), tuple(passed[counts[0]:])))
