"""Concrete evaluation of index code with numpy (the replay side of :mod:`llverify.indexcode.bitvector`).

Implements the semantics stated in :mod:`llverify.indexcode.bitvector` (C's typed
wraparound and truncating division, Python's unbounded floor division) on
whole arrays of inputs, independently of the Z3 encoder: exhaustive proofs
enumerate with it, and every SMT counterexample is replayed with it.
Undefined behaviour is returned as per-point faults, not raised.

Example: ``evaluate_point(parse_code("x / 2", "c"), {"x": -7}, {"x": "int32"})``
gives ``-3`` (C truncates), while the Python ``x // 2`` gives ``-4``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from llverify.indexcode.parse import (
    C_TYPES, Binary, Cast, Compare, Const, IndexCodeError, Logical, MinMax, Node, ParsedCode, Ternary, Unary, Var,
)
from llverify.indexcode.c_types import INT32, CType, common_type, resolve_types, type_name

__all__ = ["evaluate_arrays", "evaluate_point"]
@dataclass
class _Faults:
    items: list[tuple[np.ndarray, str, int]]


def _wrap(x: np.ndarray, t: CType) -> np.ndarray:
    w, s = t
    m = x & ((1 << w) - 1) if x.dtype == object else np.bitwise_and(x, np.int64((1 << w) - 1) if w < 64 else -1)
    if s:
        half = 1 << (w - 1)
        m = np.where(m >= half, m - (1 << w), m)
    return m


def evaluate_arrays(parsed: ParsedCode, env: Mapping[str, np.ndarray], types: Mapping[str, str] | None = None,
                    use_object: bool | None = None) -> tuple[np.ndarray, list[tuple[np.ndarray, str, int]]]:
    """Evaluate the code at every point of ``env`` (arrays of equal length).

    Returns the values (mathematical integers in the result's type) and the
    faults: ``(mask, what, col)`` per possible UB / runtime error, masked by
    the path condition.  Values at faulting points are meaningless.
    Uses int64 arithmetic where that is exact (C with 32-bit types only;
    Python when the caller says so), else Python ints in object arrays.
    """
    python = parsed.lang == "python"
    tmap = resolve_types(parsed, types)
    if use_object is None:
        use_object = python or any(C_TYPES[t][0] > 32 for t in tmap.values()) or _has_wide(parsed.root)
    dt = object if use_object else np.int64
    n_pts = len(next(iter(env.values()))) if env else 1
    faults: list[tuple[np.ndarray, str, int]] = []
    PT: CType = (0, True)

    def arr(v: Any) -> np.ndarray:
        return np.full(n_pts, v, dtype=dt) if dt == object else np.full(n_pts, v, dtype=np.int64)

    def fault(mask: np.ndarray, active: np.ndarray, what: str, col: int) -> None:
        m = mask & active
        if m.any():
            faults.append((m, what, col))

    def conv(x: np.ndarray, frm: CType, to: CType) -> np.ndarray:
        if python or frm == to:
            return x
        if not to[1] and to[0] >= frm[0] and not frm[1]:
            return x
        if to[1] and to[0] > frm[0]:
            return x
        return _wrap(x, to)

    def b2i(c: np.ndarray) -> np.ndarray:
        return np.where(c, arr(1), arr(0))

    def go(n: Node, active: np.ndarray) -> tuple[np.ndarray, CType]:
        if isinstance(n, Var):
            x = np.asarray(env[n.name]).astype(dt)
            if python:
                return x, PT
            t = C_TYPES[tmap[n.name]]
            return _wrap(x, t), t
        if isinstance(n, Const):
            return arr(n.value), (PT if python else C_TYPES[n.ctype or "int32"])
        if isinstance(n, Cast):
            x, tx = go(n.operand, active)
            return (x, PT) if python else (conv(x, tx, C_TYPES[n.ctype]), C_TYPES[n.ctype])
        if isinstance(n, Unary):
            x, tx = go(n.operand, active)
            if n.op == "+":
                return x, tx
            if n.op == "not":
                return b2i(x == 0), (PT if python else INT32)
            if n.op == "~":
                return (~x if python else _wrap(~x, tx)), tx
            if python:
                return -x, tx
            if tx[1]:
                fault(x == -(1 << (tx[0] - 1)), active, "signed overflow in unary minus", n.col)
            return _wrap(-x, tx), tx
        if isinstance(n, Compare):
            (a, ta), (b, tb) = go(n.left, active), go(n.right, active)
            if not python:
                t = common_type(ta, tb)
                a, b = conv(a, ta, t), conv(b, tb, t)
            c = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[n.op]
            return b2i(np.asarray(c, dtype=bool)), (PT if python else INT32)
        if isinstance(n, Logical):
            x, tx = go(n.left, active)
            lt = np.asarray(x != 0, dtype=bool)
            y, ty = go(n.right, active & (lt if n.op == "and" else ~lt))
            if python:
                return (np.where(lt, y, x) if n.op == "and" else np.where(lt, x, y)), PT
            rt = np.asarray(y != 0, dtype=bool)
            return b2i((lt & rt) if n.op == "and" else (lt | rt)), INT32
        if isinstance(n, Ternary):
            c, _ = go(n.cond, active)
            cb = np.asarray(c != 0, dtype=bool)
            (a, ta), (b, tb) = go(n.then, active & cb), go(n.orelse, active & ~cb)
            t = PT if python else common_type(ta, tb)
            return np.where(cb, conv(a, ta, t), conv(b, tb, t)), t
        if isinstance(n, MinMax):
            acc, tacc = go(n.args[0], active)
            for arg in n.args[1:]:
                b, tb = go(arg, active)
                t = PT if python else common_type(tacc, tb)
                x, y = conv(acc, tacc, t), conv(b, tb, t)
                acc = np.where(x < y, x, y) if n.op == "min" else np.where(x < y, y, x)
                tacc = t
            return acc, tacc
        assert isinstance(n, Binary)
        (a, ta), (b, tb) = go(n.left, active), go(n.right, active)
        op = n.op
        if op in ("<<", ">>"):
            if python:
                neg = b < 0
                fault(neg, active, f"negative shift count in '{op}' (ValueError)", n.col)
                bs = np.where(neg, arr(0), b)
                return (np.left_shift(a, bs) if op == "<<" else np.right_shift(a, bs)), PT
            w = ta[0]
            bad = (b < 0) | (b >= w)
            fault(bad, active, f"shift amount outside [0, {w}) in '{op}'", n.col)
            bs = np.where(bad, arr(0), b)
            if op == ">>":
                return np.right_shift(a, bs), ta
            if ta[1]:
                ub = (~bad) & ((a < 0) | (np.left_shift(np.where(a < 0, arr(0), a), bs) >= (1 << (w - 1))))
                fault(ub, active, f"left shift of a negative or overflowing signed value in '<<' ({type_name(ta)})", n.col)
            return _wrap(np.left_shift(a, bs), ta), ta
        t = PT if python else common_type(ta, tb)
        a, b = conv(a, ta, t), conv(b, tb, t)
        if op in ("&", "|", "^"):
            r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op](a, b)
            return (r if python else _wrap(r, t)), t
        if op in ("+", "-", "*"):
            r = {"+": np.add, "-": np.subtract, "*": np.multiply}[op](a, b)
            if python:
                return r, t
            if t[1]:
                fault((r < -(1 << (t[0] - 1))) | (r >= (1 << (t[0] - 1))), active,
                      f"signed overflow in '{op}' ({type_name(t)})", n.col)
            return _wrap(r, t), t
        zero = b == 0
        bs = np.where(zero, arr(1), b)
        if python:
            fault(zero, active, f"division by zero in '{op}' (ZeroDivisionError)", n.col)
            if op == "//":
                return np.floor_divide(a, bs), t
            if op == "%":
                return np.remainder(a, bs), t
            raise IndexCodeError(f"col {n.col}: operator '{op}' is not Python")
        if op not in ("/", "%"):
            raise IndexCodeError(f"col {n.col}: operator '{op}' is not C (use '/' for division)")
        fault(zero, active, f"division by zero in '{op}'", n.col)
        if t[1]:
            ov = (a == -(1 << (t[0] - 1))) & (b == -1)
            fault(ov, active, f"signed overflow in '{op}' (INT_MIN / -1, {type_name(t)})", n.col)
            bs = np.where(ov, arr(1), bs)
        q = np.floor_divide(np.abs(a), np.abs(bs))
        q = np.where((a < 0) != (bs < 0), -q, q)
        if op == "/":
            return _wrap(q, t), t
        return _wrap(a - bs * q, t), t

    val, _ = go(parsed.root, np.ones(n_pts, dtype=bool))
    return val, faults


def _has_wide(n: Node) -> bool:
    if isinstance(n, Const):
        return n.ctype is not None and C_TYPES[n.ctype][0] > 32
    if isinstance(n, Cast):
        return C_TYPES[n.ctype][0] > 32 or _has_wide(n.operand)
    if isinstance(n, Unary):
        return _has_wide(n.operand)
    if isinstance(n, (Binary, Compare, Logical)):
        return _has_wide(n.left) or _has_wide(n.right)
    if isinstance(n, Ternary):
        return _has_wide(n.cond) or _has_wide(n.then) or _has_wide(n.orelse)
    if isinstance(n, MinMax):
        return any(_has_wide(a) for a in n.args)
    return False


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
