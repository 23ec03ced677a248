"""Remainders of a free value by a small constant: ``urem v, C`` and the forms LLVM expands it into.

A pipelined loop indexes its buffers and barriers by ``k mod C`` (``C`` stages) of a counter ``k`` whose trip
count is not a constant, so ``k`` is a free variable of its whole width (64 bits: not enumerable).  When an
address depends on ``k`` only through ``r = k mod C``, the reduced value ``r`` is the free variable instead,
with the domain ``[0, C)``, and evaluating every ``r`` decides the address:

* **sound** (no false proof): for every value of ``k``, ``k mod C`` is some ``r`` in ``[0, C)``, so every
  address the code can form is one of those evaluated;
* **complete** (no value evaluated that cannot occur): ``r`` itself is a value of ``k`` (``r mod C = r``), so
  each ``r`` in ``[0, C)`` is reached whenever ``k`` ranges over ``[0, C)``, as a free variable of its
  whole width (``2^W >= C``) does.  A counted loop's ``phi`` (a small known range,
  :mod:`llverify.lowered.loops`) is enumerated exactly instead and is not reduced.

Recognised (:func:`reduction`: the value of ``name`` taken modulo ``2^width`` equals ``urem v, C``, for an
operand ``v`` of ``W`` bits and ``0 < C <= 256``), no ``nuw``/``nsw``/``exact`` flag anywhere (each could make
the value poison):

* ``urem iW v, C`` (``C <= 2^width``);
* ``and iW v, 2^k - 1``: ``urem v, 2^min(k, width)``;
* ``add iW (mul iW (udiv iW v, C), K), v`` (either operand order) with ``K = -C (mod 2^width)``, and
  ``sub iW v, (mul iW (udiv iW v, C), C)``: ``v - C * floor(v / C) = urem v, C`` modulo ``2^width`` (LLVM's
  expansion of a remainder whose quotient is also used; Triton's stage index and phase);
* ``trunc iW X to iN``: ``X``'s reduction modulo ``2^min(width, N)``.

The free variable of ``urem v, C`` is named ``v:W.urem<C>:<bits>`` (:attr:`Reduction.key`); one name per
``(v, C)``, so two remainders of the same counter by the same constant stay equal.

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k(i64 %n) {
...   %q = udiv i64 %n, 3
...   %m = mul i64 %q, 4294967293
...   %s = add i64 %m, %n
...   %r = trunc i64 %s to i32
... }''').functions[0]
>>> reduction(fn, "%r", 32), reduction(fn, "%s", 64)
(Reduction(base='%n', width=64, modulus=3), None)
>>> reduction(fn, "%r", 32).key, parse_key("%n:64.urem3:2")
('%n:64.urem3:2', ('%n:64', 3))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llverify.lowered.llir import LlirFunction
from llverify.lowered.decode import Decoded, Unmodelled, const_value, decoded

__all__ = ["Reduction", "reduction", "parse_key", "base_assignment", "MAX_MODULUS"]

#: the largest constant reduced (the enumeration budget of :mod:`llverify.lowered.validate` is 2^8 values)
MAX_MODULUS = 256

_KEY = re.compile(r"^(.+:\d+)\.urem(\d+):\d+$")


@dataclass(frozen=True)
class Reduction:
    """``urem base, modulus`` with ``base`` an operand of ``width`` bits."""

    base: str
    width: int
    modulus: int

    @property
    def key(self) -> str:
        """The reduced free variable's name, ``base:W.urem<C>:<bits of C - 1>`` (its domain: ``[0, C)``)."""
        return f"{self.base_key}.urem{self.modulus}:{max(1, (self.modulus - 1).bit_length())}"

    @property
    def base_key(self) -> str:
        """The name of ``base`` as a free variable of its whole width (``%n:64``)."""
        return f"{self.base}:{self.width}"


def parse_key(key: str) -> tuple[str, int] | None:
    """``(base free variable, C)`` of a reduced variable's name (:attr:`Reduction.key`), else None."""
    m = _KEY.match(key)
    return (m.group(1), int(m.group(2))) if m else None


def base_assignment(frees: dict[str, int]) -> dict[str, int]:
    """``frees`` with each remainder ``v:W.urem<C>:b = r`` also given as ``v:W = r`` (``r mod C = r``: the value
    of ``v`` that realises it), for an interpreter that evaluates the remainder as written; a base given
    already, or by two remainders, keeps its first value.

    >>> base_assignment({"%n:64.urem3:2": 2, "%c.choice:1": 1})
    {'%n:64.urem3:2': 2, '%c.choice:1': 1, '%n:64': 2}
    """
    out = dict(frees)
    for key, r in frees.items():
        parsed = parse_key(key)
        if parsed is not None:
            out.setdefault(parsed[0], r % parsed[1])
    return out


def _decode(fn: LlirFunction, name: str) -> Decoded | None:
    ins = fn.defs.get(name)
    if ins is None:
        return None
    try:
        return decoded(ins, "")
    except Unmodelled:
        return None


def _const(text: str, width: int) -> int | None:
    return const_value(text, width)


def _udiv_of(fn: LlirFunction, name: str, w: int) -> tuple[str, int] | None:
    """``(v, C)`` when ``name`` is ``udiv iw v, C`` (no ``exact``) with a constant ``C`` in ``(0, 256]``."""
    d = _decode(fn, name)
    if d is None or d.op != "udiv" or d.width != w or d.flags:
        return None
    c = _const(d.args[1], w)
    if c is None or not 0 < c <= MAX_MODULUS or _const(d.args[0], w) is not None:
        return None
    return d.args[0], c


def reduction(fn: LlirFunction, name: str, width: int) -> Reduction | None:
    """The :class:`Reduction` that ``name`` modulo ``2^width`` equals (module docstring), or None."""
    d = _decode(fn, name)
    if d is None or d.flags or width > d.width or width <= 0:
        return None
    w = d.width
    if d.op == "trunc":
        return reduction(fn, d.args[0], min(width, w)) if d.extra and d.extra[0] >= w else None
    if d.op in ("urem", "and"):
        c = _const(d.args[1], w)
        v = d.args[0]
        if c is None and d.op == "and":
            c, v = _const(d.args[0], w), d.args[1]
        if c is None or _const(v, w) is not None:
            return None
        if d.op == "and":
            if c & (c + 1) or c == 0:
                return None  # not a mask 2^k - 1
            c = min(c + 1, 1 << width)
        if not 0 < c <= min(MAX_MODULUS, 1 << width):
            return None
        return _found(v, w, c)
    mod = 1 << width
    if d.op == "add":
        for mul_name, v in ((d.args[0], d.args[1]), (d.args[1], d.args[0])):
            m = _decode(fn, mul_name)
            if m is None or m.op != "mul" or m.width != w or m.flags:
                continue
            for q_name, k_text in ((m.args[0], m.args[1]), (m.args[1], m.args[0])):
                k = _const(k_text, w)
                q = _udiv_of(fn, q_name, w)
                if k is not None and q is not None and q[0] == v and (k + q[1]) % mod == 0 and q[1] <= mod:
                    return _found(v, w, q[1])
        return None
    if d.op == "sub":
        v, m = d.args[0], _decode(fn, d.args[1])
        if m is None or m.op != "mul" or m.width != w or m.flags:
            return None
        for q_name, k_text in ((m.args[0], m.args[1]), (m.args[1], m.args[0])):
            k = _const(k_text, w)
            q = _udiv_of(fn, q_name, w)
            if k is not None and q is not None and q[0] == v and (k - q[1]) % mod == 0 and q[1] <= mod:
                return _found(v, w, q[1])
    return None


def _found(base: str, width: int, modulus: int) -> Reduction | None:
    return None if base.startswith("@") else Reduction(base, width, modulus)
