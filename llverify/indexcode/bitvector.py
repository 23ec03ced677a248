"""The meaning of index code, and its Z3 bit-vector encoding.

The semantics stated here has two independent implementations: this Z3
encoder and the concrete numpy evaluator of :mod:`llverify.indexcode.evaluate`,
so that a Z3 counterexample is *replayed* by code that shares nothing with
the encoder.

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

from llverify.indexcode.c_types import (
    DEFAULT_C_TYPE, INT32, MAX_PYTHON_WIDTH, CType, common_type, resolve_types, type_name,
)
from llverify.indexcode.parse import (
    C_TYPES, Binary, Cast, Compare, Const, IndexCodeError, Logical, MinMax, Node, ParsedCode, Ternary,
    Unary, Var,
)

__all__ = ["CType", "Fault", "Z3Result", "python_width", "interval_of", "encode", "DEFAULT_C_TYPE",
           "MAX_PYTHON_WIDTH", "resolve_types"]

# ---------------------------------------------------------------- intervals --
def _bits_signed(lo: int, hi: int) -> int:
    """Smallest two's-complement width holding every value of [lo, hi]."""
    return max(lo.bit_length() if lo >= 0 else (-lo - 1).bit_length(),
               hi.bit_length() if hi >= 0 else (-hi - 1).bit_length()) + 1


def interval_of(parsed: ParsedCode, ranges: Mapping[str, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """Sound closed intervals ``[lo, hi]`` of every node under Python semantics.

    ``ranges`` gives each variable's closed range.  Keys are ``id(node)``.
    """
    out: dict[int, tuple[int, int]] = {}

    def mag(iv: tuple[int, int]) -> int:
        return max(abs(iv[0]), abs(iv[1]))

    def bitspan(*ivs: tuple[int, int]) -> tuple[int, int]:
        k = max(max(iv[0].bit_length() if iv[0] >= 0 else (-iv[0] - 1).bit_length(),
                    iv[1].bit_length() if iv[1] >= 0 else (-iv[1] - 1).bit_length()) for iv in ivs)
        if all(iv[0] >= 0 for iv in ivs):
            return (0, (1 << k) - 1)
        return (-(1 << k), (1 << k) - 1)

    def go(n: Node) -> tuple[int, int]:
        if isinstance(n, Var):
            r = ranges[n.name]
        elif isinstance(n, Const):
            r = (n.value, n.value)
        elif isinstance(n, Cast):
            r = go(n.operand)
        elif isinstance(n, Unary):
            a = go(n.operand)
            r = {"-": (-a[1], -a[0]), "+": a, "~": (-a[1] - 1, -a[0] - 1), "not": (0, 1)}[n.op]
        elif isinstance(n, (Compare,)):
            go(n.left), go(n.right)
            r = (0, 1)
        elif isinstance(n, Logical):
            a, b = go(n.left), go(n.right)
            r = (min(a[0], b[0], 0), max(a[1], b[1], 0))
        elif isinstance(n, Ternary):
            go(n.cond)
            a, b = go(n.then), go(n.orelse)
            r = (min(a[0], b[0]), max(a[1], b[1]))
        elif isinstance(n, MinMax):
            ivs = [go(x) for x in n.args]
            f = min if n.op == "min" else max
            r = (f(iv[0] for iv in ivs), f(iv[1] for iv in ivs))
        elif isinstance(n, Binary):
            a, b = go(n.left), go(n.right)
            op = n.op
            if op == "+":
                r = (a[0] + b[0], a[1] + b[1])
            elif op == "-":
                r = (a[0] - b[1], a[1] - b[0])
            elif op == "*":
                ps = [x * y for x in a for y in b]
                r = (min(ps), max(ps))
            elif op in ("//", "/"):
                if b[0] > 0 or b[1] < 0:
                    qs = [x // y for x in a for y in b]
                    r = (min(qs), max(qs))
                else:
                    m = mag(a) + 1
                    r = (-m, m)
            elif op == "%":
                if b[0] > 0:
                    r = (0, b[1] - 1) if a[0] < 0 else (0, min(a[1], b[1] - 1))
                elif b[1] < 0:
                    r = (b[0] + 1, 0)
                else:
                    m = mag(b)
                    r = (-m, m)
            elif op == "<<":
                s = max(b[1], 0)
                if s > 4 * MAX_PYTHON_WIDTH:
                    raise IndexCodeError(f"col {n.col}: shift amount up to {b[1]} is too large to model")
                r = (min(a[0] << s, a[0], 0), max(a[1] << s, a[1], 0))
            elif op == ">>":
                r = (min(a[0], 0), max(a[1], 0))
            elif op == "&":
                if a[0] >= 0 or b[0] >= 0:
                    hi = min(x[1] for x in (a, b) if x[0] >= 0)
                    r = (0, hi)
                else:
                    r = bitspan(a, b)
            else:  # | ^
                r = bitspan(a, b)
        else:  # pragma: no cover
            raise TypeError(n)
        out[id(n)] = r
        return r

    go(parsed.root)
    return out


def python_width(parsed: ParsedCode, ranges: Mapping[str, tuple[int, int]], extra: int = 0) -> int:
    """A bit-vector width in which every intermediate value of the Python code fits (signed).

    ``extra`` is a value bound the caller also needs (e.g. the other side of a comparison).
    Raises :class:`IndexCodeError` above ``MAX_PYTHON_WIDTH``.
    """
    ivs = interval_of(parsed, ranges)
    w = max(_bits_signed(lo, hi) for lo, hi in ivs.values())
    w = max(w, _bits_signed(0, max(extra, 0)), 2) + 1
    if w > MAX_PYTHON_WIDTH:
        raise IndexCodeError(f"Python index code needs {w}-bit integers for the declared ranges, "
                             f"above the modelling limit of {MAX_PYTHON_WIDTH}")
    return w


# ------------------------------------------------------------------- Z3 --
@dataclass(frozen=True)
class Fault:
    """A possible undefined behaviour / runtime error: ``when`` is its Z3 condition."""

    when: Any
    what: str
    col: int


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
    if to[0] > frm[0]:
        return z3.SignExt(to[0] - frm[0], t) if frm[1] else z3.ZeroExt(to[0] - frm[0], t)
    if to[0] < frm[0]:
        return z3.Extract(to[0] - 1, 0, t)
    return t


def encode(parsed: ParsedCode, var_terms: Mapping[str, tuple[Any, bool]],
           types: Mapping[str, str] | None = None, py_width: int | None = None) -> Z3Result:
    """Translate parsed code to a Z3 bit-vector term.

    ``var_terms[name] = (bitvector, signed)`` gives each variable's value
    (it is converted to the variable's type: C declared type, or the Python
    width ``py_width``).  Faults carry their path condition.
    """
    python = parsed.lang == "python"
    tmap = resolve_types(parsed, types)
    faults: list[Fault] = []
    if python:
        if py_width is None:
            raise ValueError("python code needs py_width")
        PT: CType = (py_width, True)

    def fault(cond: Any, path: Any, what: str, col: int) -> None:
        c = z3.simplify(z3.And(path, cond))
        if not z3.is_false(c):
            faults.append(Fault(c, what, col))

    def boolv(c: Any, t: CType) -> tuple[Any, CType]:
        return z3.If(c, z3.BitVecVal(1, t[0]), z3.BitVecVal(0, t[0])), t

    def truth(x: tuple[Any, CType]) -> Any:
        return x[0] != 0

    def go(n: Node, path: Any) -> tuple[Any, CType]:
        if isinstance(n, Var):
            term, signed = var_terms[n.name]
            to = PT if python else C_TYPES[tmap[n.name]]
            return _conv(term, (term.size(), signed), to), to
        if isinstance(n, Const):
            t = PT if python else C_TYPES[n.ctype or "int32"]
            return z3.BitVecVal(n.value, t[0]), t
        if isinstance(n, Cast):
            a, ta = go(n.operand, path)
            to = PT if python else C_TYPES[n.ctype]
            return _conv(a, ta, to), to
        if isinstance(n, Unary):
            a, ta = go(n.operand, path)
            if n.op == "+":
                return a, ta
            if n.op == "~":
                return ~a, ta
            if n.op == "not":
                return boolv(a == 0, PT if python else INT32)
            if ta[1] and not python:
                fault(a == z3.BitVecVal(1 << (ta[0] - 1), ta[0]), path, "signed overflow in unary minus", n.col)
            return -a, ta
        if isinstance(n, Compare):
            (a, ta), (b, tb) = go(n.left, path), go(n.right, path)
            t = PT if python else common_type(ta, tb)
            a, b = _conv(a, ta, t), _conv(b, tb, t)
            s = t[1]
            c = {"<": (lambda: a < b) if s else (lambda: z3.ULT(a, b)),
                 "<=": (lambda: a <= b) if s else (lambda: z3.ULE(a, b)),
                 ">": (lambda: a > b) if s else (lambda: z3.UGT(a, b)),
                 ">=": (lambda: a >= b) if s else (lambda: z3.UGE(a, b)),
                 "==": lambda: a == b, "!=": lambda: a != b}[n.op]()
            return boolv(c, PT if python else INT32)
        if isinstance(n, Logical):
            left = go(n.left, path)
            lt = truth(left)
            right = go(n.right, z3.And(path, lt if n.op == "and" else z3.Not(lt)))
            if python:  # Python returns an operand, not a bool
                return (z3.If(lt, right[0], left[0]) if n.op == "and" else z3.If(lt, left[0], right[0])), PT
            c = z3.And(lt, truth(right)) if n.op == "and" else z3.Or(lt, truth(right))
            return boolv(c, INT32)
        if isinstance(n, Ternary):
            c = truth(go(n.cond, path))
            (a, ta), (b, tb) = go(n.then, z3.And(path, c)), go(n.orelse, z3.And(path, z3.Not(c)))
            t = PT if python else common_type(ta, tb)
            return z3.If(c, _conv(a, ta, t), _conv(b, tb, t)), t
        if isinstance(n, MinMax):
            acc, tacc = go(n.args[0], path)
            for arg in n.args[1:]:
                b, tb = go(arg, path)
                t = PT if python else common_type(tacc, tb)
                x, y = _conv(acc, tacc, t), _conv(b, tb, t)
                lt = (x < y) if t[1] else z3.ULT(x, y)
                acc = z3.If(lt, x, y) if n.op == "min" else z3.If(lt, y, x)
                tacc = t
            return acc, tacc
        assert isinstance(n, Binary)
        (a, ta), (b, tb) = go(n.left, path), go(n.right, path)
        op = n.op
        if op in ("<<", ">>"):
            return shift(op, a, ta, b, tb, path, n)
        t = PT if python else common_type(ta, tb)
        a, b = _conv(a, ta, t), _conv(b, tb, t)
        w, s = t
        if python:
            if op == "+":
                return a + b, t
            if op == "-":
                return a - b, t
            if op == "*":
                return a * b, t
            if op in ("&", "|", "^"):
                return {"&": a & b, "|": a | b, "^": a ^ b}[op], t
            fault(b == 0, path, f"division by zero in '{op}' (ZeroDivisionError)", n.col)
            q, r = a / b, z3.SRem(a, b)  # truncating
            adjust = z3.And(r != 0, (r < 0) != (b < 0))
            if op == "//":
                return z3.If(adjust, q - 1, q), t
            if op == "%":
                return z3.If(adjust, r + b, r), t
            raise IndexCodeError(f"col {n.col}: operator '{op}' is not Python")
        # C
        if op in ("&", "|", "^"):
            return {"&": a & b, "|": a | b, "^": a ^ b}[op], t
        if op in ("+", "-", "*"):
            if s:
                ok = {"+": lambda: z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b)),
                      "-": lambda: z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True)),
                      "*": lambda: z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b))}[op]()
                fault(z3.Not(ok), path, f"signed overflow in '{op}' ({type_name(t)})", n.col)
            return {"+": a + b, "-": a - b, "*": a * b}[op], t
        if op in ("/", "%"):
            fault(b == 0, path, f"division by zero in '{op}'", n.col)
            if s:
                fault(z3.And(a == z3.BitVecVal(1 << (w - 1), w), b == z3.BitVecVal(-1, w)), path,
                      f"signed overflow in '{op}' (INT_MIN / -1, {type_name(t)})", n.col)
                return (a / b if op == "/" else z3.SRem(a, b)), t
            return (z3.UDiv(a, b) if op == "/" else z3.URem(a, b)), t
        raise IndexCodeError(f"col {n.col}: operator '{op}' is not C (use '/' for division)")

    def shift(op: str, a: Any, ta: CType, b: Any, tb: CType, path: Any, n: Binary) -> tuple[Any, CType]:
        t = PT if python else ta
        a = _conv(a, ta, t)
        w = t[0]
        bw = b.size()
        neg = (b < 0) if tb[1] else z3.BoolVal(False)
        if python:
            fault(neg, path, f"negative shift count in '{op}' (ValueError)", n.col)
            b = _conv(b, tb, t)
            return (a << b if op == "<<" else a >> b), t
        too_big = z3.UGE(b, z3.BitVecVal(w, bw)) if w < (1 << bw) else z3.BoolVal(False)
        fault(z3.Or(neg, z3.And(z3.Not(neg), too_big)), path,
              f"shift amount outside [0, {w}) in '{op}'", n.col)
        bb = _conv(b, tb, (w, False))
        if op == ">>":
            return (a >> bb if t[1] else z3.LShR(a, bb)), t
        if t[1]:
            wide = z3.ZeroExt(w, a) << z3.ZeroExt(w, bb)
            bad = z3.Or(a < 0, z3.UGE(wide, z3.BitVecVal(1 << (w - 1), 2 * w)))
            fault(z3.And(z3.Not(neg), z3.Not(too_big), bad), path,
                  f"left shift of a negative or overflowing signed value in '<<' ({type_name(t)})", n.col)
        return a << bb, t

    term, ctype = go(parsed.root, z3.BoolVal(True))
    return Z3Result(term, ctype, tuple(faults))
