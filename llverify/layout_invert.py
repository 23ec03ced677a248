"""Solving a conversion: Triton's ``invertAndCompose`` (seed 000, section 5.2).

``invert_and_compose(A, B)`` returns ``C`` with ``A(x) == B(C(x))`` for every
hardware index ``x`` of the source layout ``A``: the conversion
``cvt = B^-1 A``.  Columns are solved one by one over F2 with free variables
set to 0 (:func:`llverify.f2.Echelon.reduce`), which is Triton's ``lstsq``
choice of the minimal destination index when ``B`` broadcasts; in dims that
are identical and decoupled in both layouts map by identity, so no data moves
along them.

Worked example: for ``A = B`` (any surjective layout) ``C`` is the identity
on every in dim.

The functions here work on plain data (out dims as (name, size) pairs, in
dims as (name, flat columns) pairs); :meth:`LinearLayout.invert_and_compose
<llverify.layout.LinearLayout.invert_and_compose>` aligns the two layouts and
builds the result (so this module does not import :mod:`llverify.layout`).
"""

from __future__ import annotations

from typing import Sequence

from llverify import f2
from llverify.errors import LayoutError

__all__ = ["check_out_dims", "identity_dims", "solve"]

DimColumns = Sequence[tuple[str, Sequence[int]]]


def check_out_dims(first: Sequence[tuple[str, int]], outer: Sequence[tuple[str, int]]) -> bool:
    """Check that ``outer`` has ``first``'s out dims (any order), each at least as large.

    Raises :class:`LayoutError` otherwise.  True when some out dim of
    ``outer`` is larger: Triton accepts a first layout on a smaller range of
    the same out dims (its values are values of the larger dims), and it is
    then read on ``outer``'s out sizes (triton 3.9.0 returns this answer).
    """
    outs = [n for n, _ in first]
    sizes = dict(outer)
    if set(outs) != set(sizes) or len(outs) != len(outer):
        raise LayoutError(
            f"invert_and_compose: out dims {outs} and {[n for n, _ in outer]} must be equal (ignoring order)")
    for n, s in first:
        if s > sizes[n]:
            raise LayoutError(
                f"invert_and_compose: out dim '{n}' has size {s} vs {sizes[n]}; "
                "the outer layout must cover every value of the first")
    return any(s < sizes[n] for n, s in first)


def solve(outer: DimColumns, first: DimColumns) -> tuple[list[str], list[int]]:
    """The in dims mapped by identity and, per column of ``first``'s other dims, its combination of ``outer``'s.

    Both layouts are given per in dim by their flat columns on the same out
    dims (same order and sizes), ``outer`` surjective.  Raises
    :class:`LayoutError` when a column of ``first`` is outside ``outer``'s image.
    """
    ident = identity_dims(outer, first)
    sol = _solve_columns(_columns_except(outer, ident), _columns_except(first, ident))
    if sol is None and ident:
        # Mapping those dims to themselves leaves the rest unsolvable (a source
        # column needs a destination identity dim's image): solve everything.
        ident = []
        sol = _solve_columns(_columns_except(outer, ident), _columns_except(first, ident))
    if sol is None:
        raise LayoutError("invert_and_compose: the image of the source is not contained in the image of the destination")
    return ident, sol


def _columns_except(layout: DimColumns, dims: Sequence[str]) -> list[int]:
    return [c for d, cols in layout if d not in dims for c in cols]


def _solve_columns(a_cols: list[int], b_cols: list[int]) -> list[int] | None:
    """Per column ``c`` of B, the combination of A's columns (free variables 0) giving ``c``; None if one is unreachable."""
    ech = f2.Echelon.of(a_cols)
    sol = []
    for c in b_cols:
        residual, combo = ech.reduce(c)
        if residual:
            return None
        sol.append(combo)
    return sol


def identity_dims(first: DimColumns, second: DimColumns) -> list[str]:
    """In dims a conversion from ``second`` to ``first`` maps by identity.

    Both are given per in dim by their flat columns on the same out dims (same
    order and sizes), so equal columns are equal bases.  A dim qualifies
    when its bases are identical in both layouts and, in each layout, the
    span of its bases meets the span of the other dims' bases only in 0 (no
    other dim "touches" its image, so mapping it to itself can never
    conflict with the rest).  This reproduces the triton 3.9.0 wheel:
    identical broadcast (zero) dims stay put, identical dims entangled with
    others are solved.  If the remaining columns are then unsolvable,
    :func:`solve` solves all dims instead (the wheel does the same; checked on
    ~3,000 random pairs with identical dims, see the tests).
    """
    other = {d: tuple(cols) for d, cols in second}
    return [d for d, cols in first
            if other.get(d) == tuple(cols) and _decoupled(first, d) and _decoupled(second, d)]


def _decoupled(layout: DimColumns, dim: str) -> bool:
    """The span of ``dim``'s columns meets the span of the other dims' only in 0."""
    mine = [c for d, cols in layout if d == dim for c in cols]
    rest = _columns_except(layout, [dim])
    return f2.rank(mine) + f2.rank(rest) == f2.rank(mine + rest)
