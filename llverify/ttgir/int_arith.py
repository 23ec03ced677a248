"""Two's-complement semantics of the integer ``arith`` ops the gate evaluates on constants (MLIR's ``arith``
dialect: a value of type ``iN`` is an N-bit pattern; signed ops read it in two's complement).

Values are Python ints held *signed at their width*: ``wrap(v, w)`` is the integer in ``[-2^(w-1), 2^(w-1))``
congruent to ``v`` modulo ``2^w`` (``i1`` is 0 or 1, never -1).  Each op below returns its result in that form
or raises :class:`NotComputable` where MLIR leaves it undefined (division by zero, ``INT_MIN / -1``, a shift
by the width or more) or the op is not modelled: the caller then makes no claim.

>>> wrap(255, 8), wrap(128, 8), wrap(3, 1)
(-1, -128, 1)
>>> binary("arith.addi", 127, 1, 8), binary("arith.divui", -1, 2, 8), binary("arith.remsi", -7, 2, 32)
(-128, 127, -1)
>>> binary("arith.shrsi", -1, 1, 32), binary("arith.shrui", -1, 28, 32), binary("arith.maxui", -1, 1, 8)
(-1, 15, -1)
>>> compare("ult", -1, 1, 8), compare("slt", -1, 1, 8), cast("arith.extui", -1, 8, 32)
(0, 1, 255)
>>> cast("arith.extsi", 1, 1, 32), compare("slt", 1, 0, 1), binary("arith.minsi", 0, 1, 1)   # i1 1 is -1 signed
(-1, 1, 1)
"""

from __future__ import annotations

from typing import Callable

__all__ = ["NotComputable", "INT_WIDTHS", "int_width", "wrap", "signed", "binary", "compare", "cast", "CASTS"]


class NotComputable(Exception):
    """A value that enumeration cannot compute (a kernel argument, a load, a set too large, an undefined or
    unmodelled op): no claim."""


#: the bit width of each integer type (``index`` taken as 64 bits, as Triton's lowering does)
INT_WIDTHS = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64}

#: the casts :func:`cast` evaluates
CASTS = frozenset({"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui"})

_UNSIGNED_AS_SIGNED = {"ult": "slt", "ule": "sle", "ugt": "sgt", "uge": "sge"}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b}
_WRAPPED: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.minsi": min, "arith.maxsi": max}


def int_width(type_text: str) -> int | None:
    """The bit width of an integer or ``index`` type (``i32`` -> 32); None for any other type."""
    return INT_WIDTHS.get(type_text.strip())


def wrap(v: int, w: int) -> int:
    """``v`` modulo ``2^w``, read signed (two's complement) for ``w > 1``; ``i1`` stays 0 or 1."""
    v &= (1 << w) - 1
    return v - (1 << w) if w > 1 and v >> (w - 1) else v


def signed(v: int, w: int) -> int:
    """The value of the ``w``-bit pattern of ``v`` read in two's complement (an ``i1`` holding 1 is -1): what
    the signed ops and comparisons operate on."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def cast(name: str, value: int, source_width: int, width: int) -> int:
    """An integer cast (:data:`CASTS`) of ``value`` (a ``source_width``-bit value) to ``width`` bits: the zero
    extensions read the source unsigned, the others signed (``extsi`` of an ``i1`` 1 is -1; a truncation keeps
    the low bits)."""
    if name in ("arith.extui", "arith.index_castui"):
        return wrap(value & ((1 << source_width) - 1), width)
    return wrap(signed(value, source_width), width)


def compare(predicate: str, a: int, b: int, width: int) -> int:
    """``arith.cmpi predicate, a, b`` on ``width``-bit operands: 1 or 0; the ``u`` predicates compare the bit
    patterns unsigned."""
    if predicate in _UNSIGNED_AS_SIGNED:
        mask = (1 << width) - 1
        a, b, predicate = a & mask, b & mask, _UNSIGNED_AS_SIGNED[predicate]
    elif predicate not in ("eq", "ne"):
        a, b = signed(a, width), signed(b, width)
    fn = _COMPARE.get(predicate)
    if fn is None:
        raise NotComputable(f"cmpi {predicate}")
    return int(fn(a, b))


def binary(name: str, a: int, b: int, width: int) -> int:
    """The binary op ``name`` on ``width``-bit operands ``a``, ``b``: division truncates toward zero (``remsi``
    takes the dividend's sign); raises :class:`NotComputable` where the result is undefined or the op is not
    modelled."""
    if name in ("arith.divsi", "arith.remsi", "arith.divui", "arith.remui"):
        if name.endswith("ui"):
            a, b = a & ((1 << width) - 1), b & ((1 << width) - 1)
        else:
            a, b = signed(a, width), signed(b, width)
        if b == 0 or (name == "arith.divsi" and a == -(1 << (width - 1)) and b == -1):
            raise NotComputable("division by zero or overflow")
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return wrap(q if "div" in name else a - q * b, width)
    if name in ("arith.shli", "arith.shrsi", "arith.shrui"):
        b &= (1 << width) - 1  # the shift amount is read unsigned
        if b >= width:
            raise NotComputable("shift past the width")
        if name == "arith.shli":
            return wrap(a << b, width)
        if name == "arith.shrsi":
            return wrap(signed(a, width) >> b, width)
        return wrap((a & ((1 << width) - 1)) >> b, width)
    if name in ("arith.minui", "arith.maxui"):
        mask = (1 << width) - 1
        pick = min if name == "arith.minui" else max
        return wrap(pick(a & mask, b & mask), width)
    fn = _WRAPPED.get(name)
    if fn is None:
        raise NotComputable(f"{name} not evaluated")
    if name in ("arith.minsi", "arith.maxsi"):
        a, b = signed(a, width), signed(b, width)
    return wrap(fn(a, b), width)
