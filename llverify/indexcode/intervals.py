"""Interval analysis of Python index code: how wide its bit-vectors must be for Z3 to model it exactly.

Python's integers are unbounded; :mod:`llverify.indexcode.bitvector` models
them as signed bit-vectors of one width ``W``.  :class:`IntervalAlgebra`
interprets the code on closed intervals ``[lo, hi]`` (every operation
returns an interval holding every value it can take when its operands range
over theirs), and :func:`python_width` takes the widest intermediate value:
then no bit-vector operation wraps and the model is exact.  Example:
``row * 64 + col`` with ``row`` in ``[0, 63]`` and ``col`` in ``[0, 63]``
ranges over ``[0, 4095]``, 13 signed bits, so ``W == 14``:

>>> from llverify.indexcode.parse import parse_code
>>> interval_of(parse_code("row * 64 + col", "python"), {"row": (0, 63), "col": (0, 63)})[-1]
(0, 4095)
>>> python_width(parse_code("row * 64 + col", "python"), {"row": (0, 63), "col": (0, 63)})
14
"""

from __future__ import annotations

from typing import Mapping

from llverify.indexcode.c_types import MAX_PYTHON_WIDTH, CType
from llverify.indexcode.interpret import PYTHON_INT, Algebra, Unmodelled, interpret
from llverify.indexcode.parse import IndexCodeError, ParsedCode

__all__ = ["IntervalAlgebra", "interval_of", "python_width"]

Interval = tuple[int, int]  # closed: lo <= x <= hi


def _bits(v: int) -> int:
    return v.bit_length() if v >= 0 else (-v - 1).bit_length()


def _bits_signed(lo: int, hi: int) -> int:
    """Smallest two's-complement width holding every value of [lo, hi]."""
    return max(_bits(lo), _bits(hi)) + 1


def _bitspan(*ivs: Interval) -> Interval:
    """Every value with no more bits than the widest bound (non-negative if every interval is)."""
    k = max(max(_bits(lo), _bits(hi)) for lo, hi in ivs)
    if all(lo >= 0 for lo, _ in ivs):
        return (0, (1 << k) - 1)
    return (-(1 << k), (1 << k) - 1)


def _hull(*ivs: Interval) -> Interval:
    return (min(lo for lo, _ in ivs), max(hi for _, hi in ivs))


class IntervalAlgebra(Algebra[Interval, None]):
    """Python index code on closed intervals; conditions are not tracked (``None``), faults never raised.

    Every interval it returns is also kept in ``seen``, in evaluation order.

    >>> IntervalAlgebra().floor_mod((-5, 20), (8, 8), PYTHON_INT)
    (0, 7)
    """

    python_type = PYTHON_INT

    def __init__(self) -> None:
        self.seen: list[Interval] = []

    def _keep(self, iv: Interval) -> Interval:
        self.seen.append(iv)
        return iv

    def true(self) -> None:
        return None

    def var(self, value: Interval, t: CType) -> Interval:
        return self._keep(value)

    def const(self, value: int, t: CType) -> Interval:
        return self._keep((value, value))

    def convert(self, x: Interval, frm: CType, to: CType) -> Interval:
        return x

    def neg(self, x: Interval, t: CType) -> Interval:
        return self._keep((-x[1], -x[0]))

    def invert(self, x: Interval, t: CType) -> Interval:
        return self._keep((-x[1] - 1, -x[0] - 1))

    def ring(self, op: str, a: Interval, b: Interval, t: CType) -> Interval:
        if op == "+":
            return self._keep((a[0] + b[0], a[1] + b[1]))
        if op == "-":
            return self._keep((a[0] - b[1], a[1] - b[0]))
        return self._keep(_hull(*((x * y, x * y) for x in a for y in b)))

    def bitwise(self, op: str, a: Interval, b: Interval, t: CType) -> Interval:
        if op == "&" and (a[0] >= 0 or b[0] >= 0):  # a non-negative operand bounds the result
            return self._keep((0, min(x[1] for x in (a, b) if x[0] >= 0)))
        return self._keep(_bitspan(a, b))

    def floor_div(self, a: Interval, b: Interval, t: CType) -> Interval:
        if b[0] > 0 or b[1] < 0:
            return self._keep(_hull(*((x // y, x // y) for x in a for y in b)))
        m = max(abs(a[0]), abs(a[1])) + 1
        return self._keep((-m, m))

    def floor_mod(self, a: Interval, b: Interval, t: CType) -> Interval:
        if b[0] > 0:
            return self._keep((0, b[1] - 1) if a[0] < 0 else (0, min(a[1], b[1] - 1)))
        if b[1] < 0:
            return self._keep((b[0] + 1, 0))
        m = max(abs(b[0]), abs(b[1]))
        return self._keep((-m, m))

    def trunc_div(self, a: Interval, b: Interval, t: CType) -> Interval:
        raise Unmodelled("interval analysis is for Python index code")

    trunc_mod = trunc_div

    def shl(self, a: Interval, b: Interval, t: CType, tb: CType) -> Interval:
        s = max(b[1], 0)
        if s > 4 * MAX_PYTHON_WIDTH:
            raise Unmodelled(f"shift amount up to {b[1]} is too large to model")
        return self._keep((min(a[0] << s, a[0], 0), max(a[1] << s, a[1], 0)))

    def shr(self, a: Interval, b: Interval, t: CType, tb: CType) -> Interval:
        return self._keep((min(a[0], 0), max(a[1], 0)))

    def compare(self, op: str, a: Interval, b: Interval, t: CType) -> None:
        return None

    def truth(self, x: Interval, t: CType) -> None:
        return None

    is_zero = truth

    def both(self, p: None, q: None) -> None:
        return None

    either = both

    def negate(self, p: None) -> None:
        return None

    def boolean(self, c: None, t: CType) -> Interval:
        return self._keep((0, 1))

    def select(self, c: None, a: Interval, b: Interval, t: CType) -> Interval:
        return self._keep(_hull(a, b))

    def minimum(self, a: Interval, b: Interval, t: CType) -> Interval:
        return self._keep((min(a[0], b[0]), min(a[1], b[1])))

    def maximum(self, a: Interval, b: Interval, t: CType) -> Interval:
        return self._keep((max(a[0], b[0]), max(a[1], b[1])))

    def python_logical(self, op: str, x: Interval, y: Interval, x_true: None) -> Interval:
        return self._keep(_hull(x, y, (0, 0)))

    def neg_overflows(self, x: Interval, t: CType) -> None:
        return None

    def ring_overflows(self, op: str, a: Interval, b: Interval, t: CType) -> None:
        return None

    def div_overflows(self, a: Interval, b: Interval, t: CType) -> None:
        return None

    def shift_negative(self, b: Interval, tb: CType) -> None:
        return None

    def shift_out_of_range(self, b: Interval, tb: CType, bits: int) -> None:
        return None

    def shl_overflows(self, a: Interval, b: Interval, t: CType, tb: CType) -> None:
        return None

    def fault_condition(self, cond: None, path: None) -> None:
        return None


def interval_of(parsed: ParsedCode, ranges: Mapping[str, Interval]) -> tuple[Interval, ...]:
    """Sound closed intervals of every intermediate value of Python code, the code's value last.

    ``ranges`` gives each variable's closed range.
    """
    if parsed.lang != "python":
        raise IndexCodeError("interval analysis is for Python index code")
    algebra = IntervalAlgebra()
    interpret(parsed, ranges, algebra)
    return tuple(algebra.seen)


def python_width(parsed: ParsedCode, ranges: Mapping[str, Interval], extra: int = 0) -> int:
    """A bit-vector width in which every intermediate value of the Python code fits (signed).

    ``extra`` is a value bound the caller also needs (e.g. the other side of a comparison).
    Raises :class:`IndexCodeError` above ``MAX_PYTHON_WIDTH``.
    """
    w = max(_bits_signed(lo, hi) for lo, hi in interval_of(parsed, ranges))
    w = max(w, _bits_signed(0, max(extra, 0)), 2) + 1
    if w > MAX_PYTHON_WIDTH:
        raise IndexCodeError(f"Python index code needs {w}-bit integers for the declared ranges, "
                             f"above the modelling limit of {MAX_PYTHON_WIDTH}")
    return w
