"""Counted loops: the range of a loop ``phi`` that steps by a constant up to a constant bound.

A loop header's ``%P = phi iW [ C0, %pre ], [ %N, %latch ]`` with ``%N = add iW %P, S`` (``S > 0`` constant)
and the latch ending in ``br i1 %c, label %H, label %X`` (or the targets swapped), ``%c = icmp pred iW %N,
B`` (``B`` constant), holds ``C0`` on entry and afterwards only values ``%N`` for which the branch went back
to the header ``%H``.  So, when the back edge is taken only while

* ``N < B'`` (``ult``/``ule``, or a negated ``uge``/``ugt``; ``B' = B`` or ``B + 1``) and ``B' - 1 + S`` does
  not wrap: by induction ``C0 <= P < max(B', C0 + 1)`` (no step wraps, so ``N > P >= C0``); likewise signed
  (``slt``/``sle``) without signed overflow;
* ``N != B`` (a negated ``eq``) with ``C0 < B`` and ``S`` dividing ``B - C0`` (unsigned): ``P`` runs
  through ``C0, C0 + S, ..., B - S``, so ``C0 <= P < B``.

Anything else (a bound that is not a constant, another step, another exit shape, a third predecessor) is
not recognised and the ``phi`` stays a free variable of its whole width.

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k() {
... entry:
...   br label %loop
... loop:
...   %i = phi i32 [ 0, %entry ], [ %n, %loop ]
...   %n = add nuw nsw i32 %i, 1
...   %e = icmp ult i32 %n, 4
...   br i1 %e, label %loop, label %exit
... exit:
...   ret void
... }''').functions[0]
>>> counted_phi(fn, fn.defs["%i"])
CountedPhi(lo=0, hi=4, signed=False, width=32)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llverify.lowered.llir import INT_LITERAL, Instr, LlirFunction, as_signed

__all__ = ["CountedPhi", "counted_phi", "PHI2"]

_INCOMING = r"\[\s*([^,\]]+?)\s*,\s*(%[\w$.\-]+)\s*\]"
#: a two-way integer ``phi``: width, then (value, predecessor label) twice
PHI2 = re.compile(rf"^phi\s+i(\d+)\s+{_INCOMING},\s*{_INCOMING}$")
_ADD = re.compile(r"^add\s+(?:nuw\s+|nsw\s+)*i(\d+)\s+(\S+),\s*(\S+)$")
_ICMP = re.compile(r"^icmp\s+(?:samesign\s+)?(\w+)\s+i(\d+)\s+(\S+),\s*(\S+)$")
_BR = re.compile(r"^br\s+i1\s+(%[\w$.\-]+),\s*label\s+(%[\w$.\-]+),\s*label\s+(%[\w$.\-]+)$")
_SWAP = {"ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule", "slt": "sgt", "sle": "sge", "sgt": "slt",
         "sge": "sle", "eq": "eq", "ne": "ne"}
_NOT = {"ult": "uge", "ule": "ugt", "ugt": "ule", "uge": "ult", "slt": "sge", "sle": "sgt", "sgt": "sle",
        "sge": "slt", "eq": "ne", "ne": "eq"}


@dataclass(frozen=True)
class CountedPhi:
    """Every value the ``phi`` holds lies in ``[lo, hi)`` (signed or unsigned integers of ``width`` bits)."""

    lo: int
    hi: int
    signed: bool
    width: int

    def values(self) -> range:
        return range(self.lo, self.hi)


def counted_phi(fn: LlirFunction, phi: Instr) -> CountedPhi | None:
    """The range of ``phi`` when it is a counted loop's induction variable (module docstring), else None."""
    m = PHI2.match(phi.body)
    if m is None or phi.result is None or not phi.block:
        return None
    w = int(m.group(1))
    (v0, l0), (v1, l1) = (m.group(2), m.group(3)), (m.group(4), m.group(5))
    if INT_LITERAL.match(v1) and not INT_LITERAL.match(v0):
        (v0, l0), (v1, l1) = (v1, l1), (v0, l0)
    if not INT_LITERAL.match(v0) or not v1.startswith("%"):
        return None
    c0, nxt, latch = int(v0), v1, l1
    add = fn.defs.get(nxt)
    a = _ADD.match(add.body) if add is not None and add.opcode == "add" else None
    if a is None or int(a.group(1)) != w:
        return None
    ops = (a.group(2), a.group(3))
    if phi.result not in ops:
        return None
    step_text = ops[1] if ops[0] == phi.result else ops[0]
    if not INT_LITERAL.match(step_text):
        return None
    step = as_signed(int(step_text), w)
    if step <= 0:
        return None
    term = next((i for i in reversed(fn.instrs) if i.block == latch), None)
    b = _BR.match(term.body) if term is not None and term.opcode == "br" else None
    if b is None or phi.block not in (b.group(2), b.group(3)) or b.group(2) == b.group(3):
        return None
    cmp = fn.defs.get(b.group(1))
    c = _ICMP.match(cmp.body) if cmp is not None and cmp.opcode == "icmp" else None
    if c is None or int(c.group(2)) != w:
        return None
    pred, x, y = c.group(1), c.group(3), c.group(4)
    if x != nxt:
        x, y, pred = y, x, _SWAP.get(pred, "?")
    if x != nxt or not INT_LITERAL.match(y) or pred == "?":
        return None
    if b.group(3) == phi.block:  # the back edge is taken when the compare is false
        pred = _NOT[pred]
    bound = int(y)
    mask = (1 << w) - 1
    if pred in ("ult", "ule"):
        hi = (bound & mask) + (pred == "ule")
        lo = c0 & mask
        if hi - 1 + step > mask:
            return None  # a step past the bound could wrap
        return CountedPhi(lo, max(hi, lo + 1), False, w)
    if pred in ("slt", "sle"):
        hi = as_signed(bound, w) + (pred == "sle")
        lo = as_signed(c0, w)
        if hi - 1 + step > (1 << (w - 1)) - 1:
            return None
        return CountedPhi(lo, max(hi, lo + 1), True, w)
    if pred == "ne":
        lo, hi = c0 & mask, bound & mask
        if lo < hi and (hi - lo) % step == 0:
            return CountedPhi(lo, hi, False, w)
    return None
