"""The meaning of index code, and its Z3 bit-vector encoding.

One walker, :func:`llverify.indexcode.interpret.interpret`, applies the
semantics stated here (types, which operation, where a fault can arise) to
any :class:`~llverify.indexcode.interpret.Algebra`; this module's
:class:`Z3Algebra` says what the operations are on bit-vectors, and the
numpy algebra of :mod:`llverify.indexcode.evaluate`, written separately,
what they are on integers, so a Z3 counterexample is *replayed* by
operations that share no code with the encoder's.  The walker itself is
checked against gcc's UBSan (``tests/test_c_ub_differential.py``) and the
algebras against each other (``tests/test_index_algebras.py``).

**C** (``lang == "c"``): every value has a type among ``int32``, ``uint32``,
``int64``, ``uint64`` (``long`` is 64 bits).  Variables have their declared
type (default ``uint32``); literals take C11's literal types (``8`` is
``int32``, ``8u`` is ``uint32``, ``0xFFFFFFFF`` is ``uint32``, ``8ll`` is
``int64``).  Binary operators apply the usual arithmetic conversions (the
wider type wins; at equal width unsigned wins; ``int64`` vs ``uint32`` is
``int64``).  Unsigned arithmetic wraps modulo ``2^bits``; ``/`` truncates
toward zero and ``%`` takes the dividend's sign (``-7 / 2 == -3``,
``-7 % 2 == -1``).  Undefined behaviour, reported as such: signed ``+ - *``
or unary ``-`` overflow, division or modulo by zero, ``INT_MIN / -1``, a
shift amount outside ``[0, bits)``, and a left shift of a negative signed
value or one whose result is not representable.  ``>>`` of a negative
signed value is arithmetic (implementation-defined in C; every CUDA/GCC/
Clang target does this).  Casts to a signed type wrap (GCC's definition).
Comparisons and ``&& || !`` yield ``int32`` 0/1 and ``&&``/``||``/``?:``
only evaluate the operand that is taken (UB elsewhere does not count).

**Python** (``lang == "python"``): unbounded integers, ``//`` and ``%``
floor (``-7 // 2 == -4``, ``-7 % 2 == 1``), ``>>`` arithmetic, bitwise
operators on infinite two's complement.  Z3 models them with signed
bit-vectors of one width ``W`` chosen by interval analysis over the
declared input ranges (:func:`python_width`): every intermediate value fits
in ``W`` bits, so no bit-vector operation wraps and the model is exact.
``ZeroDivisionError`` and a negative shift count are runtime errors,
reported like C's undefined behaviour.

Example: ``(x + 1) * 2`` with ``x`` an ``int32`` in ``[0, 2^31)`` has UB
at ``x == 2^31 - 1`` (``x + 1`` overflows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import z3

from llverify.indexcode.c_types import DEFAULT_C_TYPE, MAX_PYTHON_WIDTH, CType, resolve_types
from llverify.indexcode.interpret import Algebra, Fault, interpret
from llverify.indexcode.intervals import interval_of, python_width
from llverify.indexcode.parse import ParsedCode

__all__ = ["CType", "Fault", "Z3Algebra", "Z3Result", "python_width", "interval_of", "encode", "DEFAULT_C_TYPE",
           "MAX_PYTHON_WIDTH", "resolve_types"]


@dataclass(frozen=True)
class Z3Result:
    term: Any          # z3 BitVecRef
    ctype: CType       # (bits, signed): how to read term as an integer
    faults: tuple[Fault, ...]

    def as_int_bv(self, width: int) -> Any:
        """The result as a mathematical integer in a (wider) signed bit-vector."""
        w = self.term.size()
        if width < w + 1:
            raise ValueError("comparison width too small")
        return z3.SignExt(width - w, self.term) if self.ctype[1] else z3.ZeroExt(width - w, self.term)


def _conv(t: Any, frm: CType, to: CType) -> Any:
    """``t`` (a ``frm``) as a ``to``: extended by ``frm``'s signedness, or truncated."""
    if to[0] > frm[0]:
        return z3.SignExt(to[0] - frm[0], t) if frm[1] else z3.ZeroExt(to[0] - frm[0], t)
    if to[0] < frm[0]:
        return z3.Extract(to[0] - 1, 0, t)
    return t


def _min_signed(t: CType) -> Any:
    return z3.BitVecVal(1 << (t[0] - 1), t[0])


_UNSIGNED_COMPARE = {"<": z3.ULT, "<=": z3.ULE, ">": z3.UGT, ">=": z3.UGE}
_SIGNED_COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
                   ">=": lambda a, b: a >= b}
_NO_SIGNED_OVERFLOW = {
    "+": lambda a, b: z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)),
    "-": lambda a, b: z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)),
    "*": lambda a, b: z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b)),
}


class Z3Algebra(Algebra[Any, Any]):
    """Index code as Z3 bit-vector terms: a value of type ``(bits, signed)`` is a ``bits``-wide bit-vector.

    Bit-vector arithmetic wraps, which is C's unsigned arithmetic and (where no fault holds) its signed
    arithmetic; Python's integers are signed bit-vectors ``py_width`` wide, enough for every value.

    >>> al = Z3Algebra()
    >>> z3.simplify(al.trunc_div(z3.BitVecVal(-7, 32), z3.BitVecVal(2, 32), (32, True))).as_signed_long()
    -3
    """

    def __init__(self, py_width: int | None = None) -> None:
        self.python_type: CType = (py_width or 0, True)

    def true(self) -> Any:
        return z3.BoolVal(True)

    def var(self, value: tuple[Any, bool], t: CType) -> Any:
        term, signed = value
        return _conv(term, (term.size(), signed), t)

    def const(self, value: int, t: CType) -> Any:
        return z3.BitVecVal(value, t[0])

    def convert(self, x: Any, frm: CType, to: CType) -> Any:
        return _conv(x, frm, to)

    def neg(self, x: Any, t: CType) -> Any:
        return -x

    def invert(self, x: Any, t: CType) -> Any:
        return ~x

    def ring(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return {"+": a + b, "-": a - b, "*": a * b}[op]

    def bitwise(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return {"&": a & b, "|": a | b, "^": a ^ b}[op]

    def _floor(self, a: Any, b: Any) -> tuple[Any, Any, Any]:
        q, r = a / b, z3.SRem(a, b)  # truncating
        return q, r, z3.And(r != 0, (r < 0) != (b < 0))

    def floor_div(self, a: Any, b: Any, t: CType) -> Any:
        q, _, adjust = self._floor(a, b)
        return z3.If(adjust, q - 1, q)

    def floor_mod(self, a: Any, b: Any, t: CType) -> Any:
        _, r, adjust = self._floor(a, b)
        return z3.If(adjust, r + b, r)

    def trunc_div(self, a: Any, b: Any, t: CType) -> Any:
        return a / b if t[1] else z3.UDiv(a, b)

    def trunc_mod(self, a: Any, b: Any, t: CType) -> Any:
        return z3.SRem(a, b) if t[1] else z3.URem(a, b)

    def shl(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        return a << _conv(b, tb, t)

    def shr(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        bb = _conv(b, tb, t)
        return a >> bb if t[1] else z3.LShR(a, bb)

    def compare(self, op: str, a: Any, b: Any, t: CType) -> Any:
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        return (_SIGNED_COMPARE if t[1] else _UNSIGNED_COMPARE)[op](a, b)

    def truth(self, x: Any, t: CType) -> Any:
        return x != 0

    def is_zero(self, x: Any, t: CType) -> Any:
        return x == 0

    both, either, negate = staticmethod(z3.And), staticmethod(z3.Or), staticmethod(z3.Not)

    def boolean(self, c: Any, t: CType) -> Any:
        return z3.If(c, z3.BitVecVal(1, t[0]), z3.BitVecVal(0, t[0]))

    def select(self, c: Any, a: Any, b: Any, t: CType) -> Any:
        return z3.If(c, a, b)

    def neg_overflows(self, x: Any, t: CType) -> Any:
        return x == _min_signed(t)

    def ring_overflows(self, op: str, a: Any, b: Any, t: CType) -> Any:
        return z3.Not(_NO_SIGNED_OVERFLOW[op](a, b))

    def div_overflows(self, a: Any, b: Any, t: CType) -> Any:
        return z3.And(a == _min_signed(t), b == z3.BitVecVal(-1, t[0]))

    def shift_negative(self, b: Any, tb: CType) -> Any:
        return (b < 0) if tb[1] else z3.BoolVal(False)

    def _too_big(self, b: Any, bits: int) -> Any:
        bw = b.size()
        return z3.UGE(b, z3.BitVecVal(bits, bw)) if bits < (1 << bw) else z3.BoolVal(False)

    def shift_out_of_range(self, b: Any, tb: CType, bits: int) -> Any:
        neg = self.shift_negative(b, tb)
        return z3.Or(neg, z3.And(z3.Not(neg), self._too_big(b, bits)))

    def shl_overflows(self, a: Any, b: Any, t: CType, tb: CType) -> Any:
        w = t[0]
        wide = z3.ZeroExt(w, a) << z3.ZeroExt(w, _conv(b, tb, t))
        bad = z3.Or(a < 0, z3.UGE(wide, z3.BitVecVal(1 << (w - 1), 2 * w)))
        return z3.And(z3.Not(self.shift_negative(b, tb)), z3.Not(self._too_big(b, w)), bad)

    def fault_condition(self, cond: Any, path: Any) -> Any:
        c = z3.simplify(z3.And(path, cond))
        return None if z3.is_false(c) else c


def encode(parsed: ParsedCode, var_terms: Mapping[str, tuple[Any, bool]],
           types: Mapping[str, str] | None = None, py_width: int | None = None) -> Z3Result:
    """Translate parsed code to a Z3 bit-vector term.

    ``var_terms[name] = (bitvector, signed)`` gives each variable's value
    (it is converted to the variable's type: C declared type, or the Python
    width ``py_width``).  Faults carry their path condition.
    """
    if parsed.lang == "python" and py_width is None:
        raise ValueError("python code needs py_width")
    r = interpret(parsed, var_terms, Z3Algebra(py_width), types)
    return Z3Result(r.value, r.ctype, r.faults)
