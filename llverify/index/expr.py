"""Integer index expressions in SymPy: floor division, modulo, bitwise ops; printing and parsing.

SymPy has no integer ``//``-``%``-``^`` operators that stay put, so this
module defines them as functions that only fold constants
(``FloorDiv(7, 2) == 3``, ``Modulo(-7, 2) == 1``, Python's floor semantics):
rewriting is the simplifier's job (:mod:`llverify.index.simplify`), with
side conditions it proves.

* :func:`to_code` prints an expression as Python (``//``) or C (``/``) with
  the parentheses precedence needs (and around arithmetic inside bitwise
  operators, for readability);
* :func:`~llverify.index.sympy_algebra.from_code` turns parsed index code
  into SymPy (through the one interpreter of index code);
* :func:`count_ops` counts operators (LEGO's cost model, seed 004 section 4.1):
  ``count_ops(FloorDiv(x, 8) * 8 + Modulo(x, 8)) == 4``.
"""

from __future__ import annotations

from typing import Mapping

import sympy as sp

from llverify.indexcode.parse import IndexCodeError

__all__ = ["FloorDiv", "Modulo", "BitXor", "BitOr", "BitAnd", "sym", "to_code", "count_ops",
           "evaluate", "to_native"]


def sym(name: str) -> sp.Symbol:
    """An integer symbol (index variables are integers)."""
    return sp.Symbol(name, integer=True)


class FloorDiv(sp.Function):
    """``FloorDiv(x, a) = floor(x / a)`` (Python ``x // a``); folds only on integer constants."""

    nargs = 2

    @classmethod
    def eval(cls, x: sp.Expr, a: sp.Expr) -> sp.Expr | None:  # noqa: eval-ok (SymPy Function.eval hook, not Python eval)
        if x.is_Integer and a.is_Integer and a != 0:
            return sp.Integer(int(x) // int(a))
        if a == 1:
            return x
        if x == 0:
            return sp.Integer(0)
        return None


class Modulo(sp.Function):
    """``Modulo(x, a) = x - a * floor(x / a)`` (Python ``x % a``); folds only on constants."""

    nargs = 2

    @classmethod
    def eval(cls, x: sp.Expr, a: sp.Expr) -> sp.Expr | None:  # noqa: eval-ok (SymPy Function.eval hook, not Python eval)
        if x.is_Integer and a.is_Integer and a != 0:
            return sp.Integer(int(x) % int(a))
        if a == 1 or x == 0:
            return sp.Integer(0)
        return None


class _BitOp(sp.Function):
    _op = staticmethod(lambda a, b: a)

    @classmethod
    def eval(cls, *args: sp.Expr) -> sp.Expr | None:  # noqa: eval-ok (SymPy Function.eval hook, not Python eval)
        if len(args) < 2:
            return args[0] if args else None
        if all(a.is_Integer for a in args):
            v = int(args[0])
            for a in args[1:]:
                v = cls._op(v, int(a))
            return sp.Integer(v)
        return None


class BitXor(_BitOp):
    """``x ^ y ^ ...`` on integers (two's complement)."""

    _op = staticmethod(lambda a, b: a ^ b)


class BitOr(_BitOp):
    """``x | y | ...``."""

    _op = staticmethod(lambda a, b: a | b)


class BitAnd(_BitOp):
    """``x & y & ...``."""

    _op = staticmethod(lambda a, b: a & b)


def count_ops(e: sp.Basic) -> int:
    """Operators in ``e``: n-ary ``+ * ^ | &`` count n-1, ``//``, ``%``, comparisons 1, ternary 1 per branch."""
    if e.is_Atom:
        return 0
    args = e.args
    if isinstance(e, sp.Mul) and args[0] == -1:
        return 1 + count_ops(sp.Mul(*args[1:]))
    if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
        return int(e.exp) - 1 + count_ops(e.base)
    if isinstance(e, sp.Piecewise):
        return sum(count_ops(x) + (0 if c is sp.true else 1 + count_ops(c)) for x, c in e.args)
    own = max(len(args) - 1, 1) if isinstance(e, (sp.Add, sp.Mul, _BitOp, sp.Min, sp.Max)) else 1
    return own + sum(count_ops(a) for a in args)


# ----------------------------------------------------------------- printing --
_PREC = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}
_CMP = {sp.StrictLessThan: "<", sp.LessThan: "<=", sp.StrictGreaterThan: ">", sp.GreaterThan: ">=",
        sp.Equality: "==", sp.Unequality: "!="}


def to_code(e: sp.Basic, lang: str = "python") -> str:
    """Print ``e`` as a Python (``//``, ``a if c else b``) or C (``/``, ``c ? a : b``) expression."""
    c = lang.lower() in ("c", "cuda")
    div = "/" if c else "//"

    def wrap(s: str, prec: int, parent: int, strict: bool = False, parent_op: str = "") -> str:
        need = prec < parent or (strict and prec == parent)
        # readability: arithmetic inside bitwise operators gets parentheses
        if parent_op in ("^", "|", "&") and prec in (5, 6):
            need = True
        return f"({s})" if need else s

    def go(e: sp.Basic) -> tuple[str, int]:
        if e.is_Integer:
            v = int(e)
            return (str(v), 9) if v >= 0 else (f"-{-v}", 7)
        if e.is_Symbol:
            return e.name, 9
        if isinstance(e, sp.Add):
            terms = list(e.as_ordered_terms())
            out = ""
            for i, t in enumerate(terms):
                neg = t.could_extract_minus_sign() and not (t.is_Integer and i == 0)
                s, p = go(-t if neg else t)
                s = wrap(s, p, 5, strict=i > 0 and neg, parent_op="+")
                if i == 0:
                    out = ("-" + wrap(s, p, 7) if neg else s)
                else:
                    out += (" - " if neg else " + ") + s
            return out, 5
        if isinstance(e, sp.Mul):
            coeff, rest = e.as_coeff_Mul()
            if coeff == -1:
                s, p = go(rest)
                return "-" + wrap(s, p, 7), 7
            factors = ([coeff] if coeff != 1 else []) + list(sp.Mul.make_args(rest))
            # put constants last: "x * 8" reads like index code
            factors = [f for f in factors if not f.is_Integer] + [f for f in factors if f.is_Integer]
            parts = []
            for i, f in enumerate(factors):
                s, p = go(f)
                parts.append(wrap(s, p, 6, strict=i > 0, parent_op="*"))
            return " * ".join(parts), 6
        if isinstance(e, sp.Pow) and e.exp.is_Integer and e.exp > 0:
            return go(sp.Mul(*([e.base] * int(e.exp)), evaluate=False))
        if isinstance(e, FloorDiv) or isinstance(e, Modulo):
            op = div if isinstance(e, FloorDiv) else "%"
            (a, pa), (b, pb) = go(e.args[0]), go(e.args[1])
            return f"{wrap(a, pa, 6)} {op} {wrap(b, pb, 6, strict=True)}", 6
        if isinstance(e, _BitOp):
            op = {BitXor: "^", BitOr: "|", BitAnd: "&"}[type(e)]
            parts = [wrap(*go(a), _PREC[op], parent_op=op) for a in e.args]
            return f" {op} ".join(parts), _PREC[op]
        if isinstance(e, (sp.Min, sp.Max)):
            name = "min" if isinstance(e, sp.Min) else "max"
            return f"{name}({', '.join(go(a)[0] for a in e.args)})", 9
        if type(e) in _CMP:
            (a, pa), (b, pb) = go(e.args[0]), go(e.args[1])
            return f"{wrap(a, pa, 1)} {_CMP[type(e)]} {wrap(b, pb, 1)}", 0
        if isinstance(e, (sp.And, sp.Or)):
            op = ("&&" if isinstance(e, sp.And) else "||") if c else ("and" if isinstance(e, sp.And) else "or")
            return f" {op} ".join(f"({go(a)[0]})" for a in e.args), -1
        if isinstance(e, sp.ITE):
            e = sp.Piecewise((e.args[1], e.args[0]), (e.args[2], True), evaluate=False)
        if e is sp.true or e is sp.false:
            return ("1" if e is sp.true else "0"), 9
        if isinstance(e, sp.Not):
            s, _ = go(e.args[0])
            return (f"!({s})" if c else f"not ({s})"), 7
        if isinstance(e, sp.Piecewise):
            pieces = list(e.args)
            if pieces[-1][1] is not sp.true:
                raise IndexCodeError(f"cannot print a Piecewise without an otherwise branch: {e}")
            s, _ = go(pieces[-1][0])
            for val, cond in reversed(pieces[:-1]):
                v, _ = go(val)
                cs, _ = go(cond)
                s = f"({cs} ? {v} : {s})" if c else f"({v} if {cs} else {s})"
            return s, 9
        raise IndexCodeError(f"cannot print {type(e).__name__} as index code: {e}")

    return go(sp.sympify(e))[0]


def evaluate(e: sp.Basic, values: Mapping[str, int]) -> int:
    """Concrete value of ``e`` at ``values`` (symbols by name)."""
    subs = {s: sp.Integer(int(values[s.name])) for s in e.free_symbols}
    v = e.xreplace(subs)
    v = v.doit() if not v.is_Integer else v
    if not v.is_Integer:
        raise IndexCodeError(f"expression did not evaluate to an integer: {v}")
    return int(v)


def to_native(e: sp.Basic) -> sp.Expr:
    """Replace our functions by SymPy's own ``floor``/``Mod`` (for ``sympy.simplify`` comparisons).

    Bitwise operators have no SymPy equivalent and stay.
    """
    return e.replace(lambda x: isinstance(x, FloorDiv), lambda x: sp.floor(x.args[0] / x.args[1])) \
            .replace(lambda x: isinstance(x, Modulo), lambda x: sp.Mod(x.args[0], x.args[1]))
