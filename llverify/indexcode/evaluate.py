"""Concrete evaluation of index code with numpy (the replay side of :mod:`llverify.indexcode.bitvector`).

:class:`NumpyAlgebra` gives the operations of the semantics stated in
:mod:`llverify.indexcode.bitvector` (C's typed wraparound and truncating
division, Python's unbounded floor division) on whole arrays of inputs, with
no code shared with the Z3 algebra; :func:`evaluate_arrays` runs the one
interpreter (:mod:`llverify.indexcode.interpret`) with it.  Exhaustive proofs
enumerate with it, and every SMT counterexample is replayed with it.
Undefined behaviour is returned as per-point faults, not raised.

Example: ``evaluate_point(parse_code("x / 2", "c"), {"x": -7}, {"x": "int32"})``
gives ``-3`` (C truncates), while the Python ``x // 2`` gives ``-4``.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Mapping

import numpy as np

from llverify.indexcode.c_types import CType, resolve_types
from llverify.indexcode.interpret import PYTHON_INT, Algebra, interpret
from llverify.indexcode.parse import C_TYPES, Cast, Const, IndexCodeError, Node, ParsedCode
from llverify.indexcode.tree import nodes

__all__ = ["NumpyAlgebra", "evaluate_arrays", "evaluate_point"]


def _wrap(x: np.ndarray, t: CType) -> np.ndarray:
    """``x`` modulo ``2**bits`` into ``t``'s range (two's complement where signed)."""
    w, s = t
    m = x & ((1 << w) - 1) if x.dtype == object else np.bitwise_and(x, np.int64((1 << w) - 1) if w < 64 else -1)
    if s:
        half = 1 << (w - 1)
        m = np.where(m >= half, m - (1 << w), m)
    return m


def _fit(x: np.ndarray, t: CType) -> np.ndarray:
    """``x`` as a ``t``: wrapped for a C type, unchanged for Python's unbounded integers."""
    return x if t[0] == 0 else _wrap(x, t)


def _signed_range(t: CType) -> tuple[int, int]:
    half = 1 << (t[0] - 1)
    return -half, half


_RING = {"+": np.add, "-": np.subtract, "*": np.multiply}
_BITWISE = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}
_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal,
            "!=": np.not_equal}


class NumpyAlgebra(Algebra[np.ndarray, np.ndarray]):
    """Index code on ``points`` inputs at once: a value is an array of integers in its type's range.

    ``dtype`` is ``np.int64`` where that is exact (C with 32-bit types; Python with small values) and
    ``object`` (Python ints) elsewhere; a condition is a boolean array (the points where it holds).

    >>> al = NumpyAlgebra(2)
    >>> al.trunc_div(np.array([-7, 7]), np.array([2, 2]), (32, True)).tolist()
    [-3, 3]
    >>> al.ring_overflows("+", np.array([2**31 - 1, 5]), np.array([1, 1]), (32, True)).tolist()
    [True, False]
    """

    python_type = PYTHON_INT

    def __init__(self, points: int, dtype: Any = object) -> None:
        self.points, self.dtype = points, dtype

    def _full(self, v: int) -> np.ndarray:
        return np.full(self.points, v, dtype=self.dtype)

    def true(self) -> np.ndarray:
        return np.ones(self.points, dtype=bool)

    def var(self, value: Any, t: CType) -> np.ndarray:
        return _fit(np.asarray(value).astype(self.dtype), t)

    def const(self, value: int, t: CType) -> np.ndarray:
        return self._full(value)

    def convert(self, x: np.ndarray, frm: CType, to: CType) -> np.ndarray:
        if frm == to or (not to[1] and not frm[1] and to[0] >= frm[0]) or (to[1] and to[0] > frm[0]):
            return x  # every value of ``frm`` is a value of ``to``
        return _wrap(x, to)

    def neg(self, x: np.ndarray, t: CType) -> np.ndarray:
        return _fit(-x, t)

    def invert(self, x: np.ndarray, t: CType) -> np.ndarray:
        return _fit(~x, t)

    def ring(self, op: str, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return _fit(_RING[op](a, b), t)

    def bitwise(self, op: str, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return _fit(_BITWISE[op](a, b), t)

    def _divisor(self, b: np.ndarray) -> np.ndarray:
        return np.where(b == 0, self._full(1), b)

    def floor_div(self, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return np.floor_divide(a, self._divisor(b))

    def floor_mod(self, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return np.remainder(a, self._divisor(b))

    def _trunc(self, a: np.ndarray, b: np.ndarray, t: CType) -> tuple[np.ndarray, np.ndarray]:
        bs = self._divisor(b)
        if t[1]:
            bs = np.where(self.div_overflows(a, b, t), self._full(1), bs)
        q = np.floor_divide(np.abs(a), np.abs(bs))
        return np.where((a < 0) != (bs < 0), -q, q), bs

    def trunc_div(self, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return _wrap(self._trunc(a, b, t)[0], t)

    def trunc_mod(self, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        q, bs = self._trunc(a, b, t)
        return _wrap(a - bs * q, t)

    def _amount(self, b: np.ndarray, t: CType) -> np.ndarray:
        """The shift amount, 0 where it is out of range (the value there is arbitrary anyway)."""
        bad = (b < 0) if t[0] == 0 else (b < 0) | (b >= t[0])
        return np.where(bad, self._full(0), b)

    def shl(self, a: np.ndarray, b: np.ndarray, t: CType, tb: CType) -> np.ndarray:
        return _fit(np.left_shift(a, self._amount(b, t)), t)

    def shr(self, a: np.ndarray, b: np.ndarray, t: CType, tb: CType) -> np.ndarray:
        return np.right_shift(a, self._amount(b, t))

    def compare(self, op: str, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return np.asarray(_COMPARE[op](a, b), dtype=bool)

    def truth(self, x: np.ndarray, t: CType) -> np.ndarray:
        return np.asarray(x != 0, dtype=bool)

    def is_zero(self, x: np.ndarray, t: CType) -> np.ndarray:
        return np.asarray(x == 0, dtype=bool)

    both, either, negate = staticmethod(operator.and_), staticmethod(operator.or_), staticmethod(operator.invert)

    def boolean(self, c: np.ndarray, t: CType) -> np.ndarray:
        return np.where(c, self._full(1), self._full(0))

    def select(self, c: np.ndarray, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return np.where(c, a, b)

    def neg_overflows(self, x: np.ndarray, t: CType) -> np.ndarray:
        return np.asarray(x == _signed_range(t)[0], dtype=bool)

    def ring_overflows(self, op: str, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        lo, hi = _signed_range(t)
        r = _RING[op](a, b)
        return np.asarray((r < lo) | (r >= hi), dtype=bool)

    def div_overflows(self, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
        return np.asarray((a == _signed_range(t)[0]) & (b == -1), dtype=bool)

    def shift_negative(self, b: np.ndarray, tb: CType) -> np.ndarray:
        return np.asarray(b < 0, dtype=bool)

    def shift_out_of_range(self, b: np.ndarray, tb: CType, bits: int) -> np.ndarray:
        return np.asarray((b < 0) | (b >= bits), dtype=bool)

    def shl_overflows(self, a: np.ndarray, b: np.ndarray, t: CType, tb: CType) -> np.ndarray:
        valid = ~self.shift_out_of_range(b, tb, t[0])
        shifted = np.left_shift(np.where(a < 0, self._full(0), a), self._amount(b, t))
        return valid & np.asarray((a < 0) | (shifted >= _signed_range(t)[1]), dtype=bool)

    def fault_condition(self, cond: np.ndarray, path: np.ndarray) -> np.ndarray | None:
        m = cond & path
        return m if m.any() else None


def evaluate_arrays(parsed: ParsedCode, env: Mapping[str, np.ndarray], types: Mapping[str, str] | None = None,
                    use_object: bool | None = None) -> tuple[np.ndarray, list[tuple[np.ndarray, str, int]]]:
    """Evaluate the code at every point of ``env`` (arrays of equal length).

    Returns the values (mathematical integers in the result's type) and the
    faults: ``(mask, what, col)`` per possible UB / runtime error, masked by
    the path condition.  Values at faulting points are meaningless.
    Uses int64 arithmetic where that is exact (C with 32-bit types only;
    Python when the caller says so), else Python ints in object arrays.
    """
    tmap = resolve_types(parsed, types)
    if use_object is None:
        use_object = parsed.lang == "python" or any(C_TYPES[t][0] > 32 for t in tmap.values()) \
            or _has_wide(parsed.root)
    n_pts = len(next(iter(env.values()))) if env else 1
    r = interpret(parsed, env, NumpyAlgebra(n_pts, object if use_object else np.int64), types)
    return r.value, [(f.when, f.what, f.col) for f in r.faults]


def _has_wide(root: Node) -> bool:
    """Whether a literal or a cast has a 64-bit type (then int64 arithmetic is not exact)."""
    return any(isinstance(n, (Const, Cast)) and n.ctype is not None and C_TYPES[n.ctype][0] > 32
               for n in nodes(root))


def evaluate_point(parsed: ParsedCode, values: Mapping[str, int],
                   types: Mapping[str, str] | None = None) -> tuple[int | None, str | None]:
    """Evaluate at one point with exact Python integers.

    Returns ``(value, None)``, or ``(None, "col N: what")`` when the first
    fault (in evaluation order) fires there.
    """
    env = {k: np.array([int(v)], dtype=object) for k, v in values.items()}
    missing = [v for v in parsed.variables if v not in env]
    if missing:
        raise IndexCodeError(f"no value for variable(s) {missing}")
    val, faults = evaluate_arrays(parsed, env, types, use_object=True)
    for mask, what, col in faults:
        if bool(mask[0]):
            return None, f"col {col}: {what}"
    return int(val[0]), None


Evaluator = Callable[[Mapping[str, np.ndarray]], np.ndarray]
