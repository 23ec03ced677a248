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
"""

from __future__ import annotations

from llverify import f2
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["identity_dims", "invert_and_compose"]


def invert_and_compose(self: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """``C`` with ``self(x) == outer(C(x))``; see :meth:`LinearLayout.invert_and_compose`."""
    B, A0 = self, outer
    outs = list(B.out_dim_names)
    if set(outs) != set(A0.out_dim_names) or len(outs) != len(A0.out_dim_names):
        raise LayoutError(
            f"invert_and_compose: out dims {outs} and {list(A0.out_dim_names)} must be equal (ignoring order)")
    A = A0.transpose_outs(outs)
    for n in outs:
        if B.out_dim_size(n) > A.out_dim_size(n):
            raise LayoutError(
                f"invert_and_compose: out dim '{n}' has size {B.out_dim_size(n)} vs {A.out_dim_size(n)}; "
                "the outer layout must cover every value of the first")
    if any(B.out_dim_size(n) < A.out_dim_size(n) for n in outs):
        # Triton accepts a first layout on a smaller range of the same out dims: its values are values of
        # the larger dims, so it is read on the outer layout's out sizes (triton 3.9.0 returns this answer)
        B = LinearLayout({d: [list(b) for b in bs] for d, bs in B.bases.items()},
                         [(n, A.out_dim_size(n)) for n in outs], require_surjective=False)
    if not A.is_surjective():
        raise LayoutError("invert_and_compose: the outer layout must be surjective to have a (pseudo)inverse")
    ident = identity_dims(A, B)
    sol = _solve_columns(A._columns_except(ident), B._columns_except(ident))
    if sol is None and ident:
        # Mapping those dims to themselves leaves the rest unsolvable (a source
        # column needs a destination identity dim's image): solve everything.
        ident = []
        sol = _solve_columns(A._columns_except(ident), B._columns_except(ident))
    if sol is None:
        raise LayoutError("invert_and_compose: the image of the source is not contained in the image of the destination")
    a_red = [(d, 1 << len(bs)) for d, bs in A._bases if d not in ident]
    b_red = [(d, 1 << len(bs)) for d, bs in B._bases if d not in ident]
    ret = LinearLayout._from_flat(b_red, a_red, sol)
    for d in ident:
        ret = ret * LinearLayout.identity_1d(A.in_dim_size(d), d, d)
    return ret.transpose_ins(list(B.in_dim_names)).transpose_outs(list(A.in_dim_names))


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


def identity_dims(self: LinearLayout, other: LinearLayout) -> list[str]:
    """In dims a conversion from ``other`` to ``self`` maps by identity.

    A dim qualifies when its bases are identical in both layouts (same
    out-dim order) and, in each layout, the span of its bases meets the
    span of the other dims' bases only in 0 (no other dim "touches" its
    image, so mapping it to itself can never conflict with the rest).
    This reproduces the triton 3.9.0 wheel: identical broadcast (zero)
    dims stay put, identical dims entangled with others are solved.  If the
    remaining columns are then unsolvable, :func:`invert_and_compose` solves
    all dims instead (the wheel does the same; checked on ~3,000 random
    pairs with identical dims, see the tests).
    """
    ob = dict(other._bases)
    out = []
    for d, bs in self._bases:
        if d not in ob or ob[d] != bs:
            continue
        if all(
            f2.rank(L._columns_except([x for x in L.in_dim_names if x != d])) + f2.rank(L._columns_except([d]))
            == L.rank
            for L in (self, other)
        ):
            out.append(d)
    return out
