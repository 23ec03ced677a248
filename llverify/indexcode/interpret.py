"""The one interpreter of index code, written against an :class:`Algebra`.

Index code has one meaning (stated in :mod:`llverify.indexcode.bitvector`:
C's typed wraparound, truncating division and undefined behaviour; Python's
unbounded floor arithmetic).  :func:`interpret` walks the tree once and
applies that meaning: it types every node with C's usual arithmetic
conversions (Python values all get the algebra's ``python_type``), picks the
operation (``/`` truncates in C, ``//`` floors in Python), threads the path
condition through ``&&``/``||``/``?:`` (only the operand that is taken
counts), and asks for every undefined behaviour (C) or runtime error
(Python) a condition, kept as a :class:`Fault` where it can hold.  An
algebra only says what the operations *are* on its values:

* :class:`~llverify.indexcode.evaluate.NumpyAlgebra`: arrays of integers
  (int64 or Python ints), every point at once;
* :class:`~llverify.indexcode.bitvector.Z3Algebra`: Z3 bit-vector terms;
* :class:`~llverify.indexcode.intervals.IntervalAlgebra`: closed intervals
  (the widths of Python code's bit-vectors);
* :class:`~llverify.index.sympy_algebra.SympyAlgebra`: SymPy expressions.

A type is ``(bits, signed)``; ``bits == 0`` is an unbounded (Python)
integer.  Example, with the numpy algebra at one point: C's ``x / 2`` with
``x == -7`` an ``int32`` is ``-3``, and ``x + 1`` at ``INT_MAX`` faults:

>>> import numpy as np
>>> from llverify.indexcode.parse import parse_code
>>> from llverify.indexcode.evaluate import NumpyAlgebra
>>> r = interpret(parse_code("x / 2", "c"), {"x": np.array([-7])}, NumpyAlgebra(1), {"x": "int32"})
>>> r.value.tolist(), r.ctype, r.faults
([-3], (32, True), ())
>>> r = interpret(parse_code("x + 1", "c"), {"x": np.array([2**31 - 1])}, NumpyAlgebra(1), {"x": "int32"})
>>> [(f.what, f.col) for f in r.faults]
[("signed overflow in '+' (int32)", 3)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Mapping, Protocol, TypeVar

from llverify.indexcode.c_types import INT32, CType, common_type, resolve_types, type_name
from llverify.indexcode.parse import (
    C_TYPES, Binary, Cast, Compare, Const, IndexCodeError, Logical, MinMax, Node, ParsedCode, Ternary, Unary, Var,
)

__all__ = ["Algebra", "Fault", "Interpretation", "Unmodelled", "interpret", "PYTHON_INT", "C_OPERATORS",
           "PYTHON_OPERATORS"]

V = TypeVar("V")  # a value of the algebra (an array, a Z3 term, an interval, a SymPy expression)
B = TypeVar("B")  # a condition of the algebra (a boolean array, a Z3 Bool, ...)

#: Python's unbounded integers, as a type (an algebra may model them at a width: ``python_type``)
PYTHON_INT: CType = (0, True)
#: the binary operators each language has (the parsers produce no others)
PYTHON_OPERATORS = frozenset({"+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^"})
C_OPERATORS = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})


class Unmodelled(Exception):
    """Raised by an algebra for an operation it cannot represent; :func:`interpret` reports it located."""


@dataclass(frozen=True)
class Fault(Generic[B]):
    """A possible undefined behaviour / runtime error at column ``col``: ``when`` is its condition (path included)."""

    when: B
    what: str
    col: int


@dataclass(frozen=True)
class Interpretation(Generic[V, B]):
    """The code's value, its type (how to read the value as an integer) and its faults in evaluation order."""

    value: V
    ctype: CType
    faults: tuple[Fault[B], ...]


class Algebra(Protocol[V, B]):
    """What an interpretation of index code needs: values ``V``, conditions ``B``, operations at a type.

    Operations at a bounded type ``t = (bits, signed)`` wrap modulo ``2**bits`` into ``t``'s range
    (``add(2**31 - 1, 1, int32) == -2**31``); at ``bits == 0`` they are exact.  Every operation is total:
    where a fault condition holds, the value it returns is arbitrary (but defined).  Subclasses get
    ``minimum``, ``maximum`` and ``python_logical`` from ``select`` and ``compare``.
    """

    python_type: CType  # the type Python values get (PYTHON_INT, or a signed width wide enough for them)

    # values
    def true(self) -> B: ...
    def var(self, value: Any, t: CType) -> V: ...  # the environment's value of a variable, as a ``t``
    def const(self, value: int, t: CType) -> V: ...
    def convert(self, x: V, frm: CType, to: CType) -> V: ...  # C conversion (wraps into ``to``)
    def neg(self, x: V, t: CType) -> V: ...
    def invert(self, x: V, t: CType) -> V: ...  # ``~x == -x - 1``
    def ring(self, op: str, a: V, b: V, t: CType) -> V: ...  # ``+ - *``
    def bitwise(self, op: str, a: V, b: V, t: CType) -> V: ...  # ``& | ^`` (two's complement)
    def floor_div(self, a: V, b: V, t: CType) -> V: ...  # Python ``//``: ``-7 // 2 == -4``
    def floor_mod(self, a: V, b: V, t: CType) -> V: ...  # Python ``%``: ``-7 % 2 == 1``
    def trunc_div(self, a: V, b: V, t: CType) -> V: ...  # C ``/``: ``-7 / 2 == -3``
    def trunc_mod(self, a: V, b: V, t: CType) -> V: ...  # C ``%``: ``-7 % 2 == -1``
    def shl(self, a: V, b: V, t: CType, tb: CType) -> V: ...  # ``a * 2**b`` in ``t``
    def shr(self, a: V, b: V, t: CType, tb: CType) -> V: ...  # ``floor(a / 2**b)`` (arithmetic)

    # conditions
    def compare(self, op: str, a: V, b: V, t: CType) -> B: ...  # ``< <= > >= == !=``
    def truth(self, x: V, t: CType) -> B: ...  # ``x != 0``
    def is_zero(self, x: V, t: CType) -> B: ...  # ``x == 0``
    def both(self, p: B, q: B) -> B: ...
    def either(self, p: B, q: B) -> B: ...
    def negate(self, p: B) -> B: ...
    def boolean(self, c: B, t: CType) -> V: ...  # 1 where ``c``, else 0
    def select(self, c: B, a: V, b: V, t: CType) -> V: ...  # ``a`` where ``c``, else ``b``

    # undefined behaviour (C) and runtime errors (Python)
    def neg_overflows(self, x: V, t: CType) -> B: ...  # ``-INT_MIN``
    def ring_overflows(self, op: str, a: V, b: V, t: CType) -> B: ...  # exact result outside signed ``t``
    def div_overflows(self, a: V, b: V, t: CType) -> B: ...  # ``INT_MIN / -1``
    def shift_negative(self, b: V, tb: CType) -> B: ...  # Python: ``b < 0``
    def shift_out_of_range(self, b: V, tb: CType, bits: int) -> B: ...  # C: ``b`` outside ``[0, bits)``
    def shl_overflows(self, a: V, b: V, t: CType, tb: CType) -> B: ...  # C: ``a < 0`` or ``a * 2**b`` too big
    def fault_condition(self, cond: B, path: B) -> B | None: ...  # ``path and cond``; None where it cannot hold

    def minimum(self, a: V, b: V, t: CType) -> V:
        """``min(a, b)`` at ``t``."""
        return self.select(self.compare("<", a, b, t), a, b, t)

    def maximum(self, a: V, b: V, t: CType) -> V:
        """``max(a, b)`` at ``t``."""
        return self.select(self.compare("<", a, b, t), b, a, t)

    def python_logical(self, op: str, x: V, y: V, x_true: B) -> V:
        """Python's ``x and y`` (``y`` where ``x`` is true, else ``x``) and ``x or y``; ``x_true`` is ``x != 0``."""
        t = self.python_type
        return self.select(x_true, y, x, t) if op == "and" else self.select(x_true, x, y, t)


def interpret(parsed: ParsedCode, env: Mapping[str, Any], algebra: Algebra[V, B],
              types: Mapping[str, str] | None = None) -> Interpretation[V, B]:
    """The meaning of ``parsed`` in ``algebra``: ``env[name]`` is each variable's value as the algebra reads it.

    ``types`` gives C variables their type (default ``uint32``); see :mod:`llverify.indexcode.c_types`.
    """
    return _Walk(parsed, env, algebra, resolve_types(parsed, types)).run()


class _Walk(Generic[V, B]):
    """One walk of one tree: the tree's types and the faults found so far."""

    def __init__(self, parsed: ParsedCode, env: Mapping[str, Any], algebra: Algebra[V, B],
                 tmap: Mapping[str, str]) -> None:
        self.parsed, self.env, self.al, self.tmap = parsed, env, algebra, tmap
        self.python = parsed.lang == "python"
        self.faults: list[Fault[B]] = []

    def run(self) -> Interpretation[V, B]:
        value, ctype = self.go(self.parsed.root, self.al.true())
        return Interpretation(value, ctype, tuple(self.faults))

    # -- helpers
    def fault(self, cond: B, path: B, what: str, col: int) -> None:
        when = self.al.fault_condition(cond, path)
        if when is not None:
            self.faults.append(Fault(when, what, col))

    def typed(self, t: CType) -> CType:
        """Python's one type, or the C type ``t``."""
        return self.al.python_type if self.python else t

    def common(self, a: tuple[V, CType], b: tuple[V, CType]) -> tuple[V, V, CType]:
        (x, tx), (y, ty) = a, b
        t = self.typed(common_type(tx, ty))
        return self.al.convert(x, tx, t), self.al.convert(y, ty, t), t

    def truth_type(self) -> CType:
        return self.typed(INT32)

    # -- the walk
    def go(self, n: Node, path: B) -> tuple[V, CType]:
        al = self.al
        if isinstance(n, Var):
            t = al.python_type if self.python else C_TYPES[self.tmap[n.name]]
            return al.var(self.env[n.name], t), t
        if isinstance(n, Const):
            t = self.typed(C_TYPES[n.ctype or "int32"])
            return al.const(n.value, t), t
        if isinstance(n, Cast):
            x, tx = self.go(n.operand, path)
            to = self.typed(C_TYPES[n.ctype])
            return al.convert(x, tx, to), to
        if isinstance(n, Unary):
            return self.unary(n, path)
        if isinstance(n, Compare):
            a, b, t = self.common(self.go(n.left, path), self.go(n.right, path))
            return al.boolean(al.compare(n.op, a, b, t), self.truth_type()), self.truth_type()
        if isinstance(n, Logical):
            return self.logical(n, path)
        if isinstance(n, Ternary):
            c = al.truth(*self.go(n.cond, path))
            a, b, t = self.common(self.go(n.then, al.both(path, c)), self.go(n.orelse, al.both(path, al.negate(c))))
            return al.select(c, a, b, t), t
        if isinstance(n, MinMax):
            args = [self.go(arg, path) for arg in n.args]
            acc = args[0]
            for arg in args[1:]:
                x, y, t = self.common(acc, arg)
                acc = (al.minimum(x, y, t) if n.op == "min" else al.maximum(x, y, t)), t
            return acc
        assert isinstance(n, Binary)
        try:
            return self.binary(n, path)
        except Unmodelled as e:
            raise IndexCodeError(f"col {n.col}: {e}") from None

    def unary(self, n: Unary, path: B) -> tuple[V, CType]:
        al = self.al
        x, t = self.go(n.operand, path)
        if n.op == "+":
            return x, t
        if n.op == "not":
            return al.boolean(al.is_zero(x, t), self.truth_type()), self.truth_type()
        if n.op == "~":
            return al.invert(x, t), t
        if not self.python and t[1]:
            self.fault(al.neg_overflows(x, t), path, "signed overflow in unary minus", n.col)
        return al.neg(x, t), t

    def logical(self, n: Logical, path: B) -> tuple[V, CType]:
        al = self.al
        x, tx = self.go(n.left, path)
        x_true = al.truth(x, tx)
        y, ty = self.go(n.right, al.both(path, x_true if n.op == "and" else al.negate(x_true)))
        if self.python:  # Python returns an operand, not a truth value
            return al.python_logical(n.op, x, y, x_true), al.python_type
        both = al.both if n.op == "and" else al.either
        return al.boolean(both(x_true, al.truth(y, ty)), INT32), INT32

    def binary(self, n: Binary, path: B) -> tuple[V, CType]:
        al, op = self.al, n.op
        left, right = self.go(n.left, path), self.go(n.right, path)
        if op not in (PYTHON_OPERATORS if self.python else C_OPERATORS):
            raise IndexCodeError(f"col {n.col}: operator '{op}' is not Python" if self.python else
                                 f"col {n.col}: operator '{op}' is not C (use '/' for division)")
        if op in ("<<", ">>"):
            return self.shift(n, left, right, path)
        a, b, t = self.common(left, right)
        if op in ("&", "|", "^"):
            return al.bitwise(op, a, b, t), t
        if op in ("+", "-", "*"):
            if not self.python and t[1]:
                self.fault(al.ring_overflows(op, a, b, t), path, f"signed overflow in '{op}' ({type_name(t)})", n.col)
            return al.ring(op, a, b, t), t
        if self.python:
            self.fault(al.is_zero(b, t), path, f"division by zero in '{op}' (ZeroDivisionError)", n.col)
            return (al.floor_div(a, b, t) if op == "//" else al.floor_mod(a, b, t)), t
        self.fault(al.is_zero(b, t), path, f"division by zero in '{op}'", n.col)
        if t[1]:
            self.fault(al.div_overflows(a, b, t), path, f"signed overflow in '{op}' (INT_MIN / -1, {type_name(t)})",
                       n.col)
        return (al.trunc_div(a, b, t) if op == "/" else al.trunc_mod(a, b, t)), t

    def shift(self, n: Binary, left: tuple[V, CType], right: tuple[V, CType], path: B) -> tuple[V, CType]:
        """C: the result has the left operand's type, the amount must be in ``[0, bits)``; Python: ``>= 0``."""
        al, op = self.al, n.op
        (a, ta), (b, tb) = left, right
        t = self.typed(ta)
        a = al.convert(a, ta, t)
        if self.python:
            self.fault(al.shift_negative(b, tb), path, f"negative shift count in '{op}' (ValueError)", n.col)
        else:
            self.fault(al.shift_out_of_range(b, tb, t[0]), path, f"shift amount outside [0, {t[0]}) in '{op}'",
                       n.col)
            if op == "<<" and t[1]:
                self.fault(al.shl_overflows(a, b, t, tb), path,
                           f"left shift of a negative or overflowing signed value in '<<' ({type_name(t)})", n.col)
        return (al.shl(a, b, t, tb) if op == "<<" else al.shr(a, b, t, tb)), t
