"""Index code as SymPy expressions: the :class:`~llverify.indexcode.interpret.Algebra` the simplifier reads.

:func:`from_code` turns parsed Python index code into SymPy (``//`` is
:class:`~llverify.index.expr.FloorDiv`, ``%`` is
:class:`~llverify.index.expr.Modulo`, ``^ | &`` the bit functions, ``<<``
and ``>>`` by a constant ``k`` are ``* 2**k`` and ``FloorDiv(x, 2**k)``,
``a if c else b`` a ``Piecewise``); comparisons, ``not``, ``and`` and ``or``
stay SymPy Booleans there.  The algebra also gives C its meaning (values
wrapped into their type with ``Modulo``, ``/`` truncating, comparisons 0/1,
undefined behaviour as SymPy conditions), so that the same tree can be
checked against the numpy and Z3 algebras; a C variable's symbol is taken
to hold a value of its type.

>>> from_code("(row // 2) * 8 + (col ^ row) % 8")
8*FloorDiv(row, 2) + Modulo(BitXor(col, row), 8)
"""

from __future__ import annotations

import operator
from typing import Any, Mapping

import sympy as sp
from sympy.logic.boolalg import Boolean

from llverify.index.expr import BitAnd, BitOr, BitXor, FloorDiv, Modulo, sym
from llverify.indexcode.c_types import CType
from llverify.indexcode.interpret import PYTHON_INT, Algebra, Unmodelled, interpret
from llverify.indexcode.parse import IndexCodeError, ParsedCode, parse_code

__all__ = ["SympyAlgebra", "from_code"]

_COMPARE = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge, "==": sp.Eq, "!=": sp.Ne}
_RING = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_BITWISE = {"&": BitAnd, "|": BitOr, "^": BitXor}


def _wrap(x: sp.Expr, t: CType) -> sp.Expr:
    """``x`` modulo ``2**bits`` into ``t``'s range."""
    w, signed = t
    if not signed:
        return Modulo(x, 2 ** w)
    half = 2 ** (w - 1)
    return Modulo(x + half, 2 ** w) - half


def _fit(x: sp.Expr, t: CType) -> sp.Expr:
    return x if t[0] == 0 else _wrap(x, t)


def _is_truth_value(x: Any) -> bool:
    """A SymPy Boolean (a comparison, ``And``, ...), not an integer symbol (SymPy's symbols are Booleans too)."""
    return isinstance(x, Boolean) and not isinstance(x, sp.Symbol)


#: the value of a division or remainder by the constant 0: the interpreter records the fault (its condition is the
#: divisor's ``is_zero``), and the value at a fault is arbitrary (as for a negative shift).  Not ``FloorDiv(a, 0)``:
#: SymPy cannot order such a constant, and a comparison with it in a ``Piecewise`` condition never returns
#: (``(y if 0 <= (8 % 0) else z)``)
_AT_ZERO_DIVISOR = sp.Integer(0)


def _signed_range(t: CType) -> tuple[int, int]:
    half = 1 << (t[0] - 1)
    return -half, half


class SympyAlgebra(Algebra[Any, Any]):
    """Values are SymPy integer expressions (a C value lies in its type's range); conditions SymPy Booleans.

    >>> x = sym("x")
    >>> SympyAlgebra().trunc_div(x, sp.Integer(2), (32, True)).subs(x, -7)
    -3
    """

    python_type = PYTHON_INT

    def true(self) -> Any:
        return sp.true

    def var(self, value: Any, t: CType) -> Any:
        return value

    def const(self, value: int, t: CType) -> Any:
        return sp.Integer(value)

    def convert(self, x: Any, frm: CType, to: CType) -> Any:
        if frm == to or (not to[1] and not frm[1] and to[0] >= frm[0]) or (to[1] and to[0] > frm[0]):
            return x
        return _wrap(x, to)

    def neg(self, x: Any, t: CType) -> Any:
        return _fit(-x, t)

    def invert(self, x: Any, t: CType) -> Any:
        return _fit(-x - 1, t)

    def ring(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return _fit(_RING[op](a, b), t)

    def bitwise(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return _BITWISE[op](a, b)  # two values of a type's range combine to one in it

    def floor_div(self, a: Any, b: Any, t: CType) -> Any:
        return _AT_ZERO_DIVISOR if b == 0 else FloorDiv(a, b)

    def floor_mod(self, a: Any, b: Any, t: CType) -> Any:
        return _AT_ZERO_DIVISOR if b == 0 else Modulo(a, b)

    def _trunc(self, a: Any, b: Any) -> Any:
        return sp.sign(a) * sp.sign(b) * FloorDiv(sp.Abs(a), sp.Abs(b))

    def trunc_div(self, a: Any, b: Any, t: CType) -> Any:
        if b == 0:
            return _AT_ZERO_DIVISOR
        return _wrap(self._trunc(a, b), t) if t[1] else FloorDiv(a, b)

    def trunc_mod(self, a: Any, b: Any, t: CType) -> Any:
        if b == 0:
            return _AT_ZERO_DIVISOR
        return _wrap(a - b * self._trunc(a, b), t) if t[1] else Modulo(a, b)

    def _amount(self, b: Any, t: CType) -> int:
        if not b.is_Integer or (int(b) < 0 and t[0] == 0):
            raise Unmodelled("only shifts by a non-negative constant have a SymPy form")
        return max(int(b), 0)  # C: a negative amount is a fault, the value there arbitrary

    def shl(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        return _fit(a * 2 ** self._amount(b, t), t)

    def shr(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        return FloorDiv(a, 2 ** self._amount(b, t))

    def compare(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return _COMPARE[op](a, b)

    def truth(self, x: Any, t: CType) -> Any:
        return x if _is_truth_value(x) else sp.Ne(x, 0)

    def is_zero(self, x: Any, t: CType) -> Any:
        return sp.Not(x) if _is_truth_value(x) else sp.Eq(x, 0)

    both, either, negate = staticmethod(sp.And), staticmethod(sp.Or), staticmethod(sp.Not)

    def boolean(self, c: Any, t: CType) -> Any:
        """Python keeps a truth value a SymPy Boolean (the simplifier's form); C's is an int 0 or 1."""
        return c if t[0] == 0 else sp.Piecewise((sp.Integer(1), c), (sp.Integer(0), True))

    def select(self, c: Any, a: Any, b: Any, t: CType) -> Any:
        return sp.Piecewise((a, c), (b, True))

    def minimum(self, a: Any, b: Any, t: CType) -> Any:
        return sp.Min(a, b)

    def maximum(self, a: Any, b: Any, t: CType) -> Any:
        return sp.Max(a, b)

    def python_logical(self, op: str, x: Any, y: Any, x_true: Any) -> Any:
        return sp.And(x, y) if op == "and" else sp.Or(x, y)

    def neg_overflows(self, x: Any, t: CType) -> Any:
        return sp.Eq(x, _signed_range(t)[0])

    def ring_overflows(self, op: str, a: Any, b: Any, t: CType) -> Any:
        lo, hi = _signed_range(t)
        r = self.ring(op, a, b, PYTHON_INT)
        return sp.Or(sp.Lt(r, lo), sp.Ge(r, hi))

    def div_overflows(self, a: Any, b: Any, t: CType) -> Any:
        return sp.And(sp.Eq(a, _signed_range(t)[0]), sp.Eq(b, -1))

    def shift_negative(self, b: Any, tb: CType) -> Any:
        self._amount(b, (1, True))  # a constant, or no SymPy form
        return sp.Lt(b, 0)

    def shift_out_of_range(self, b: Any, tb: CType, bits: int) -> Any:
        self._amount(b, tb)
        return sp.Or(sp.Lt(b, 0), sp.Ge(b, bits))

    def shl_overflows(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        valid = sp.Not(self.shift_out_of_range(b, tb, t[0]))
        return sp.And(valid, sp.Or(sp.Lt(a, 0), sp.Ge(a * 2 ** b, _signed_range(t)[1])))

    def fault_condition(self, cond: Any, path: Any) -> Any:
        c = sp.And(path, cond)
        return None if c is sp.false else c


def from_code(code: str | ParsedCode, lang: str = "python", symbols: Mapping[str, sp.Symbol] | None = None) -> sp.Expr:
    """SymPy expression of parsed Python index code (``//`` floor, ``%``, bit ops, ternaries).

    ``symbols`` gives some variables their symbol; the others get an integer symbol of their name.
    """
    p = code if isinstance(code, ParsedCode) else parse_code(code, lang)
    if p.lang != "python":
        raise IndexCodeError("from_code takes Python index code (C division truncates, SymPy's floors)")
    syms = dict(symbols or {})
    env = {v: syms.get(v) or sym(v) for v in p.variables}
    return interpret(p, env, SympyAlgebra()).value
