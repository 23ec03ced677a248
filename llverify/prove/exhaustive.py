"""The ``exhaustive`` method: evaluate every point of the domain (numpy).

Complete for finite domains: a claim quantified over all inputs is proved by
looking at all of them (``llverify.evaluate``'s doubling trick makes the whole
table cost one XOR per point).  Nothing here uses linearity, so it checks the
F2 method independently.  Domains above the size guard
(:func:`llverify.evaluate.max_points`) are refused with an ``unknown``
finding naming the size, never sampled.

Example: ``injective(identity_1d(8, "i", "o") * zeros_1d(2, "i", "o"))``
evaluates 16 inputs, finds ``L(0) == L(8)`` and refutes with that pair.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from llverify.errors import LayoutError, SizeGuardError
from llverify.evaluate import evaluate, evaluate_flat, max_points
from llverify.layout import LinearLayout
from llverify.prove import witness
from llverify.prove.finding import Finding, proved, refuted, unknown
from llverify.prove.points import in_bit_names, unflatten_in, unflatten_out
from llverify.prove.replay import replayed_counterexample

__all__ = ["bijective", "conversion", "distributed", "duplicates", "equal", "in_bounds", "injective",
           "memory", "surjective"]


class _TooBig(Exception):
    pass


def _table(L: LinearLayout) -> np.ndarray:
    try:
        return evaluate_flat(L)
    except SizeGuardError as e:
        raise _TooBig(str(e)) from e
    except LayoutError as e:
        raise _TooBig(f"cannot enumerate: {e}") from e


def _guarded(fn):  # type: ignore[no-untyped-def]
    def run(*args, **kw):  # type: ignore[no-untyped-def]
        try:
            return fn(*args, **kw)
        except _TooBig as e:
            return unknown(f"exhaustive enumeration refused: {e}", refused="size guard")
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


def _points(n: int) -> dict[str, object]:
    return {"kind": "enumeration", "points": int(n)}


def _missing_output(L: LinearLayout, T: np.ndarray) -> Finding | None:
    n_out = 1 << L.total_out_bits
    if n_out > max_points():
        raise _TooBig(f"out space has {n_out} points, above the size guard of {max_points()}")
    seen = np.zeros(n_out, dtype=bool)
    seen[T] = True
    if seen.all():
        return None
    y = int(np.flatnonzero(~seen)[0])
    cx = witness.outside_image(lambda p: {k: p[k] for k in L.out_dim_names}, unflatten_out(L, y), L,
                               label="y", note="no input of the layout maps to the output y")
    return refuted(cx, f"not surjective: {int(seen.sum())} of {n_out} outputs are reached")


def _first_repeat(vals: np.ndarray, n_out: int) -> tuple[int, int] | None:
    """Positions ``(a, b)``, ``a < b``, of the first value of ``vals`` that repeats (``b`` the least such
    position), or None.  Memory: one byte per output point plus a chunk, never a sort of the whole table
    (2^26 points take about 64 MiB where ``argsort`` took gigabytes)."""
    seen = np.zeros(n_out, dtype=bool)
    seen[vals] = True
    if int(np.count_nonzero(seen)) == vals.size:
        return None
    seen[:] = False
    chunk = 1 << 20
    for start in range(0, vals.size, chunk):
        part = vals[start:start + chunk]
        _, first = np.unique(part, return_index=True)
        inside = np.ones(part.size, dtype=bool)
        inside[first] = False                      # repeats within the chunk
        hits = np.flatnonzero(inside | seen[part])  # or of a value an earlier chunk holds
        if hits.size:
            b = start + int(hits[0])
            a = int(np.flatnonzero(vals[:b] == vals[b])[0])
            return a, b
        seen[part] = True
    return None  # pragma: no cover - the count above said a value repeats


def _collision(L: LinearLayout, T: np.ndarray, mask: np.ndarray | None = None,
               allowed: int | None = None) -> Finding | None:
    vals = T if mask is None else T[mask]
    n_out = 1 << L.total_out_bits
    if n_out <= max_points():
        pair = _first_repeat(vals, n_out)
        if pair is None:
            return None
        a, b = pair
    else:
        order = np.argsort(vals, kind="stable")
        s = vals[order]
        eq = np.flatnonzero(s[1:] == s[:-1])
        if eq.size == 0:
            return None
        a, b = int(order[eq[0]]), int(order[eq[0] + 1])
    if mask is not None:
        where = np.flatnonzero(mask)
        a, b = int(where[a]), int(where[b])
    cx = witness.collision(L, unflatten_in(L, a), unflatten_in(L, b), allowed=allowed)
    return refuted(cx, f"not injective: inputs {a} and {b} (flat) have the same output")


@_guarded
def surjective(L: LinearLayout) -> Finding:
    T = _table(L)
    return _missing_output(L, T) or proved(_points(T.size), f"all {1 << L.total_out_bits} outputs reached")


@_guarded
def injective(L: LinearLayout) -> Finding:
    T = _table(L)
    return _collision(L, T) or proved(_points(T.size), f"all {T.size} outputs are distinct")


@_guarded
def bijective(L: LinearLayout) -> Finding:
    T = _table(L)
    return (_missing_output(L, T) or _collision(L, T)
            or proved(_points(T.size), f"every one of the {T.size} outputs is reached exactly once"))


def _columns_from_table(L: LinearLayout, T: np.ndarray) -> list[int]:
    return [int(T[1 << j]) for j in range(L.total_in_bits)]


def _column_rules(L: LinearLayout, T: np.ndarray, bad, repeats: bool) -> Finding | None:  # type: ignore[no-untyped-def]
    seen: dict[int, int] = {}
    names = in_bit_names(L)
    for j, c in enumerate(_columns_from_table(L, T)):
        k = bin(c).count("1")
        if bad(k):
            d, i = names[j]
            return refuted(witness.bad_column(L, j, bad, note=f"column {d}={1 << i} has {k} non-zero bits"),
                           f"column {d}={1 << i} has {k} non-zero bits", column=f"{d}={1 << i}")
        if repeats and c:
            if c in seen:
                d, i = names[j]
                return refuted(witness.repeated_column(L, seen[c], j),
                               f"column {d}={1 << i} repeats an earlier non-zero column", column=f"{d}={1 << i}")
            seen[c] = j
    return None


@_guarded
def distributed(L: LinearLayout) -> Finding:
    T = _table(L)
    return (_column_rules(L, T, lambda k: k > 1, True) or _missing_output(L, T)
            or proved(_points(T.size), "column rules hold and every output is reached"))


@_guarded
def memory(L: LinearLayout) -> Finding:
    T = _table(L)
    return (_column_rules(L, T, lambda k: k not in (1, 2), False) or _missing_output(L, T) or _collision(L, T)
            or proved(_points(T.size), "column rules hold and every output is reached exactly once"))


def _first_difference(A: LinearLayout, TA: np.ndarray, TB: np.ndarray, sides, extra, what: str) -> Finding:  # type: ignore[no-untyped-def]
    diff = np.flatnonzero(TA != TB)
    if diff.size == 0:
        return proved(_points(TA.size), f"{what} agree on all {TA.size} inputs")
    x = unflatten_in(A, int(diff[0]))
    cx = replayed_counterexample(sides, x, extra=extra)
    return refuted(cx, f"{what} differ on {diff.size} of {TA.size} inputs")


@_guarded
def equal(A: LinearLayout, B: LinearLayout) -> Finding:
    return _first_difference(A, _table(A), _table(B), {"A(x)": A.apply, "B(x)": B.apply}, None, "the layouts")


@_guarded
def conversion(A: LinearLayout, B: LinearLayout, C: LinearLayout) -> Finding:
    TA, TB, TC = _table(A), _table(B), _table(C)
    def bc(p):  # type: ignore[no-untyped-def]
        return B.apply(C.apply(p))
    return _first_difference(A, TA, TB[TC], {"A(x)": A.apply, "B(C(x))": bc}, {"C(x)": C.apply}, "A and B o C")


@_guarded
def contained(A: LinearLayout, B: LinearLayout) -> Finding:
    """Every ``A(x)`` is some ``B(y)`` (out dims aligned)."""
    TA, TB = _table(A), _table(B)
    n_out = 1 << B.total_out_bits
    if n_out > max_points():
        raise _TooBig(f"out space has {n_out} points, above the size guard of {max_points()}")
    seen = np.zeros(n_out, dtype=bool)
    seen[TB] = True
    bad = np.flatnonzero(~seen[TA])
    if bad.size == 0:
        return proved(_points(TA.size + TB.size), "every element A reaches is held by B")
    cx = witness.outside_image(A.apply, unflatten_in(A, int(bad[0])), B, label="A(x)",
                               note="no input of B holds the element A(x): no conversion exists")
    return refuted(cx, f"no conversion exists: {bad.size} inputs of A reach elements B never holds")


@_guarded
def in_bounds(L: LinearLayout, bounds: Mapping[str, int]) -> Finding:
    try:
        vals = evaluate(L)
    except SizeGuardError as e:
        raise _TooBig(str(e)) from e
    n = L.total_in_size
    bad = np.zeros(n, dtype=bool)
    for d, b in bounds.items():
        bad |= vals[d] >= b
    if not bad.any():
        return proved(_points(n), f"all {n} outputs are inside the bounds",
                      max={d: int(vals[d].max()) if n else 0 for d in bounds})
    x = unflatten_in(L, int(np.flatnonzero(bad)[0]))
    return refuted(witness.out_of_bounds(L, x, bounds), f"{int(bad.sum())} of {n} inputs land outside the bounds")


@_guarded
def duplicates(L: LinearLayout, masked: int) -> Finding:
    T = _table(L)
    dtype = np.uint32 if T.size <= 1 << 32 else np.uint64
    mask = (np.arange(T.size, dtype=dtype) & dtype(masked)) == 0
    allowed = (T.size - 1) & ~masked
    col = _collision(L, T, mask, allowed)
    if col:
        return col
    n_out = 1 << L.total_out_bits
    if n_out <= max_points():
        held = np.zeros(n_out, dtype=bool)  # the data the unmasked inputs hold: a bitmap, not a sort
        held[T[mask]] = True
        reach = held[T]
    else:
        reach = np.isin(T, T[mask])
    n_kept = int(np.count_nonzero(mask))
    if not reach.all():
        x = unflatten_in(L, int(np.flatnonzero(~reach)[0]))
        cx = witness.outside_image(L.apply, x, L, allowed=allowed, label="L(x)",
                                   note="no input with the masked bits zero holds this data")
        return refuted(cx, "some data is held by no input with the masked bits zero")
    return proved(_points(T.size), f"the {n_kept} inputs with masked bits zero hold each of the "
                  f"{n_kept} distinct data exactly once")
