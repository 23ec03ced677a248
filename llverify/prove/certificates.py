"""The ``f2`` method: decide linear claims by F2 algebra, and check the certificate.

Every proof here produces a certificate and then verifies it with a separate,
simpler computation (a matrix product or a membership test), so a bug in the
elimination cannot become a false ``proved``:

* surjective (seed 000, definition 4.5): a right inverse ``R`` (one input per
  out bit ``e_r``) with ``M R = I``, checked column by column;
* injective: a left inverse ``P`` (one row per in bit) with ``P M = I``,
  checked entry by entry (``<p_j, col_i> == [i == j]``);
* bijective: both;
* distributed (definition 4.10) / memory (definition 4.14): the column
  weights, the absence of repeats, plus the certificates above;
* equal / conversion: column-by-column equality of ``A`` and ``B`` (resp.
  ``B o C``), which by linearity (definition 4.1) is equality everywhere;
* in_bounds: per out dim, a reduced basis of the projected image with
  distinct leading bits; its greedy maximum is the largest value any input
  reaches, checked to lie below the bound;
* duplicates: every masked column as an XOR of unmasked ones (checked) and a
  left inverse on the unmasked columns (checked).

Worked example: ``identity_1d(4, "i", "o")`` has columns ``[1, 2]``; its right
inverse is ``R = [0b01, 0b10]`` and ``col_0 = 1 = e_0``, ``col_1 = 2 = e_1``.
A refutation hands a candidate point to :mod:`~llverify.prove.witness`,
which replays it.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify import f2
from llverify.layout import LinearLayout
from llverify.prove import witness
from llverify.prove.finding import Finding, proved, refuted
from llverify.prove.replay import replayed_counterexample
from llverify.prove.points import in_bit_names, one_hot, unflatten_in, unflatten_out

__all__ = [
    "bijective", "check_left_inverse", "check_right_inverse", "conversion", "distributed",
    "duplicates", "equal", "in_bounds", "injective", "left_inverse", "memory", "right_inverse",
    "surjective", "top_basis",
]


class CertificateError(AssertionError):
    """A certificate failed its check: an internal error, reported as such."""


def right_inverse(cols: Sequence[int], n_out: int) -> list[int] | None:
    """``R[r]`` (an input mask) with ``XOR cols[R[r]] == e_r``, or None if not surjective."""
    e = f2.Echelon.of(cols)
    out = []
    for r in range(n_out):
        res, combo = e.reduce(1 << r)
        if res:
            return None
        out.append(combo)
    return out


def check_right_inverse(cols: Sequence[int], n_out: int, R: Sequence[int]) -> bool:
    """``M R == I``: ``XOR cols[R[r]] == e_r`` for every out bit ``r`` (a single-bit ``R[r] = e_j`` selects the
    column ``cols[j]``, read directly)."""
    if len(R) != n_out:
        return False
    for r, m in enumerate(R):
        v = cols[m.bit_length() - 1] if m and not m & (m - 1) else f2.combine(cols, m)
        if v != 1 << r:
            return False
    return True


def left_inverse(cols: Sequence[int], n_out: int) -> list[int] | None:
    """``P[j]`` (an out-bit mask) with ``<P[j], cols[i]> == [i == j]``, or None if not injective."""
    rows = f2.columns_to_rows(cols, n_out)
    e = f2.Echelon.of(rows)
    out = []
    for j in range(len(cols)):
        res, combo = e.reduce(1 << j)
        if res:
            return None
        out.append(combo)
    return out


def check_left_inverse(cols: Sequence[int], P: Sequence[int]) -> bool:
    """``P M == I``: the parity of ``P[j] & cols[i]`` is ``[i == j]`` for every pair of in bits.

    Computed row by row: row ``j`` of ``P M`` (a mask over the in bits ``i``) is the XOR of the rows ``r`` of
    ``M`` (row ``r``: the in bits whose column has out bit ``r``, read here off ``cols``) over the bits ``r`` of
    ``P[j]``; it must be ``e_j``.  Its bit ``i`` is the parity of ``P[j] & cols[i]``."""
    if len(P) != len(cols):
        return False
    rows: dict[int, int] = {}  # out bit r -> the mask of in bits i with bit r set in cols[i]
    for i, c in enumerate(cols):
        if c < 0:
            return _check_left_inverse_pairwise(cols, P)  # (no layout's column) the definition
        while c:
            low = c & -c
            r = low.bit_length() - 1
            rows[r] = rows.get(r, 0) | 1 << i
            c ^= low
    for j, p in enumerate(P):
        if p < 0:
            return _check_left_inverse_pairwise(cols, P)  # (never made by left_inverse) the definition
        v = 0
        while p:
            low = p & -p
            v ^= rows.get(low.bit_length() - 1, 0)
            p ^= low
        if v != 1 << j:
            return False
    return True


def _check_left_inverse_pairwise(cols: Sequence[int], P: Sequence[int]) -> bool:
    """:func:`check_left_inverse` by its definition, pair by pair."""
    if len(P) != len(cols):
        return False
    for j, p in enumerate(P):
        for i, c in enumerate(cols):
            if ((p & c).bit_count() & 1) != (i == j):
                return False
    return True


def _named_masks(L: LinearLayout, masks: Sequence[int]) -> list[dict[str, int]]:
    """``[unflatten_in(L, m) for m in masks]``, the in dims' sizes read once."""
    dims = [(d, size - 1, size.bit_length() - 1) for d, size in L.in_dims.items()]
    out = []
    for x in masks:
        point = {}
        for d, mask, bits in dims:
            point[d] = x & mask
            x >>= bits
        out.append(point)
    return out


def _bit_name(L: LinearLayout, j: int) -> str:
    d, i = in_bit_names(L)[j]
    return f"{d}={1 << i}"


def _out_bit_names(L: LinearLayout) -> list[str]:
    return [f"{n}:{1 << i}" for n, s in L.out_dims.items() for i in range(s.bit_length() - 1)]


def _inverse_from(where: dict[int, int], n_out: int) -> list[int] | None:
    """:func:`right_inverse` of columns that are zero or distinct unit vectors (:func:`_unit_positions` gives
    ``where``), without elimination: ``R[r] = e_j`` for ``where[e_r] = j``.  The non-zero columns are independent,
    so this is the only combination of them giving ``e_r``, the one the elimination finds; None when some ``e_r``
    is no column.  Example: columns ``[0, 4, 1, 2]`` (where ``{4: 1, 1: 2, 2: 3}``), 3 out bits -> ``[4, 8, 2]``."""
    out = []
    for r in range(n_out):
        j = where.get(1 << r)
        if j is None:
            return None
        out.append(1 << j)
    return out


def _surj(L: LinearLayout) -> Finding | dict[str, Any]:
    """Surjectivity by a checked right inverse (found by elimination), or the refutation with an output no input
    reaches."""
    cols, n_out = L.flat_columns, L.total_out_bits
    R = right_inverse(cols, n_out)
    if R is None:
        e = f2.Echelon.of(cols)
        y = next(1 << r for r in range(n_out) if e.reduce(1 << r)[0])
        cx = witness.outside_image(lambda p: {n: p[n] for n in L.out_dim_names}, unflatten_out(L, y), L,
                                   label="y", note="no input of the layout maps to the output y")
        return refuted(cx, f"not surjective: rank {e.rank} < {n_out} out bits")
    if not check_right_inverse(cols, n_out, R):
        raise CertificateError("right inverse failed its check")
    return _right_inverse_certificate(L, R)


def _right_inverse_certificate(L: LinearLayout, R: Sequence[int]) -> dict[str, Any]:
    """The certificate of a checked right inverse ``R`` of ``L``: each out bit's named input."""
    return {"kind": "right_inverse", "check": "L(R(e_r)) == e_r for every out bit e_r",
            "R": dict(zip(_out_bit_names(L), _named_masks(L, R)))}


def _inj(L: LinearLayout, cols: Sequence[int] | None = None, allowed: int | None = None) -> Finding | dict[str, Any]:
    cols = L.flat_columns if cols is None else cols
    P = left_inverse(cols, L.total_out_bits)
    if P is None:
        k = f2.nullspace(cols)[0]
        if allowed is not None:  # k indexes the allowed bits only: spread it back
            idx = [j for j in range(L.total_in_bits) if (allowed >> j) & 1]
            k = sum(1 << idx[i] for i in range(len(idx)) if (k >> i) & 1)
        cx = witness.collision(L, unflatten_in(L, 0), unflatten_in(L, k), allowed=allowed)
        return refuted(cx, f"not injective: rank {f2.rank(cols)} < {len(cols)} in bits")
    if not check_left_inverse(cols, P):
        raise CertificateError("left inverse failed its check")
    return {"kind": "left_inverse", "check": "<P_j, L(e_i)> == [i == j] for every pair of in bits",
            "P": [P[j] for j in range(len(P))]}


def surjective(L: LinearLayout) -> Finding:
    c = _surj(L)
    return c if isinstance(c, Finding) else proved(c, "surjective: a right inverse R with L R = I was checked")


def injective(L: LinearLayout) -> Finding:
    c = _inj(L)
    return c if isinstance(c, Finding) else proved(c, "injective: a left inverse P with P L = I was checked")


def bijective(L: LinearLayout) -> Finding:
    s = _surj(L)
    if isinstance(s, Finding):
        return s
    i = _inj(L)
    if isinstance(i, Finding):
        return i
    return proved({"kind": "inverse", "right": s, "left": i}, "bijective: left and right inverses were checked")


def _column_rules(L: LinearLayout, bad: Any, what: str, check_repeats: bool) -> Finding | None:
    seen: dict[int, int] = {}
    for j, c in enumerate(L.flat_columns):
        if bad(c.bit_count()):
            names = in_bit_names(L)  # only a broken rule is worded
            d, i = names[j]
            cx = witness.bad_column(L, j, bad, note=f"column {d}={1 << i} has {f2.bit_count(c)} non-zero bits")
            return refuted(cx, f"column {d}={1 << i} -> {tuple(unflatten_out(L, c).values())} has "
                           f"{f2.bit_count(c)} non-zero bits; {what}", column=f"{d}={1 << i}")
        if check_repeats and c:
            if c in seen:
                names = in_bit_names(L)
                (d0, i0), (d1, i1) = names[seen[c]], names[j]
                cx = witness.repeated_column(L, seen[c], j)
                return refuted(cx, f"columns {d0}={1 << i0} and {d1}={1 << i1} are the same non-zero column",
                               column=f"{d1}={1 << i1}")
            seen[c] = j
    return None


def _unit_positions(cols: Sequence[int]) -> dict[int, int] | None:
    """Each non-zero column's position, when every column is zero or a unit vector and no two non-zero are alike
    (the column rules of a distributed layout, definition 4.10); None when a rule breaks.  Decided in one pass
    without wording a refutation (:func:`_column_rules` words one)."""
    where: dict[int, int] = {}
    for j, c in enumerate(cols):
        if c:
            if c & (c - 1) or c in where:
                return None
            where[c] = j
    return where


def distributed(L: LinearLayout) -> Finding:
    cols, n_out = L.flat_columns, L.total_out_bits
    where = _unit_positions(cols)
    R = None if where is None else _inverse_from(where, n_out)
    s: Finding | dict[str, Any]
    if R is None:  # a column rule broken, or an out bit that is no column: the general path words the refutation
        bad = _column_rules(L, lambda k: k > 1, "a distributed layout has at most one per column", True)
        if bad:
            return bad
        s = _surj(L)
    else:  # the column rules hold, and the unit columns are independent: R is read off them (one pass), checked
        if not check_right_inverse(cols, n_out, R):
            raise CertificateError("right inverse failed its check")
        s = _right_inverse_certificate(L, R)
    if isinstance(s, Finding):
        return s
    return proved({"kind": "distributed", "columns": "each has at most one non-zero bit, no non-zero repeats",
                   "surjective": s}, "distributed: column rules hold and a right inverse was checked")


def memory(L: LinearLayout) -> Finding:
    bad = _column_rules(L, lambda k: k not in (1, 2), "a memory layout has 1 or 2 per column", False)
    if bad:
        return bad
    b = bijective(L)
    if b.status != "proved":
        return b
    return proved({"kind": "memory", "columns": "each has 1 or 2 non-zero bits", "invertible": b.certificate},
                  "memory layout: column rules hold and the inverse was checked")


def _columnwise(A: LinearLayout, image_cols: Sequence[int], sides: Mapping[str, Any],
                extra: Mapping[str, Any] | None, what: str) -> Finding:
    """Compare ``A(e_j)`` with the other side's flat image of ``e_j`` for every in bit ``e_j``."""
    for j, (a, b) in enumerate(zip(A.flat_columns, image_cols)):
        if a != b:
            cx = replayed_counterexample(sides, one_hot(A, j), extra=extra)
            d, i = in_bit_names(A)[j]
            return refuted(cx, f"{what} differ on basis {d}={1 << i}")
    return proved({"kind": "columns_equal", "columns": A.total_in_bits,
                   "check": "equal on every basis input, hence everywhere (linearity)"},
                  f"{what} agree on all {A.total_in_bits} basis inputs")


def equal(A: LinearLayout, B: LinearLayout) -> Finding:
    """``B`` already aligned with ``A`` (same dim names, sizes and orders)."""
    return _columnwise(A, B.flat_columns, {"A(x)": A.apply, "B(x)": B.apply}, None, "the layouts")


def conversion(A: LinearLayout, B: LinearLayout, C: LinearLayout) -> Finding:
    """``C``'s in dims aligned with ``A``'s, ``C``'s out dims equal to ``B``'s in dims (names, sizes, order),
    ``B``'s out dims aligned with ``A``'s; so flat encodings line up and ``B(C(e_j))`` is
    ``B.apply_flat(C.flat_columns[j])``."""
    def bc(p: dict[str, int]) -> Any:
        return B.apply(C.apply(p))
    images = [B.apply_flat(c) for c in C.flat_columns]
    return _columnwise(A, images, {"A(x)": A.apply, "B(C(x))": bc}, {"C(x)": C.apply}, "A and B o C")


def contained(A: LinearLayout, B: LinearLayout) -> Finding:
    """Every ``A(x)`` lies in ``B``'s image (``B``'s out dims aligned with ``A``'s): column by column."""
    e = f2.Echelon.of(B.flat_columns)
    combos = []
    for j, c in enumerate(A.flat_columns):
        res, combo = e.reduce(c)
        if res:
            cx = witness.outside_image(A.apply, one_hot(A, j), B, label="A(x)",
                                       note="no input of B holds the element A(x): no conversion exists")
            return refuted(cx, "no conversion exists: A reaches an element that B never holds")
        if f2.combine(B.flat_columns, combo) != c:
            raise CertificateError("preimage failed its check")
        combos.append(combo)
    return proved({"kind": "preimages", "B_inputs": combos}, "every basis of A has a checked preimage under B")


def top_basis(vectors: Sequence[int]) -> list[tuple[int, int]]:
    """Reduced basis ``(vector, combo)`` of span(vectors), distinct leading (highest) bits, descending."""
    basis: list[tuple[int, int]] = []
    for j, v in enumerate(vectors):
        combo = 1 << j
        for bv, bc in basis:
            if (v >> (bv.bit_length() - 1)) & 1:
                v ^= bv
                combo ^= bc
        if v:
            top = v.bit_length() - 1
            basis = [((bv ^ v, bc ^ combo) if (bv >> top) & 1 else (bv, bc)) for bv, bc in basis]
            basis.append((v, combo))
            basis.sort(key=lambda t: -t[0])
    return basis


def _check_top_basis(vectors: Sequence[int], basis: Sequence[tuple[int, int]]) -> bool:
    leads = [bv.bit_length() - 1 for bv, _ in basis]
    if len(set(leads)) != len(leads) or any(f2.combine(vectors, bc) != bv for bv, bc in basis):
        return False
    for v in vectors:  # same span: every vector reduces to 0
        for bv, _ in basis:
            if (v >> (bv.bit_length() - 1)) & 1:
                v ^= bv
        if v:
            return False
    return True


def in_bounds(L: LinearLayout, bounds: Mapping[str, int]) -> Finding:
    """Every ``L(x)[d] < bounds[d]``: the greedy maximum over the image, per out dim."""
    cert = {}
    shifts = L.flat_out_shifts()
    for d, b in bounds.items():
        size = L.out_dim_size(d)
        comps = [(c >> shifts[d]) & (size - 1) for c in L.flat_columns]
        basis = top_basis(comps)
        if not _check_top_basis(comps, basis):
            raise CertificateError("reduced basis failed its check")
        m, mc = 0, 0
        for bv, bc in basis:
            if m ^ bv > m:
                m, mc = m ^ bv, mc ^ bc
        if m >= b:
            cx = witness.out_of_bounds(L, unflatten_in(L, mc), bounds)
            return refuted(cx, f"out dim '{d}' reaches {m} >= bound {b}", max={d: m})
        cert[d] = {"max": m, "bound": b, "basis": [bv for bv, _ in basis]}
    return proved({"kind": "max_over_image", "dims": cert},
                  "every output is inside the bounds (maximum over the image checked per dim)")


def duplicates(L: LinearLayout, masked: int) -> Finding:
    """The unmasked input bits form a basis of the image (see :func:`llverify.prove.duplicates`)."""
    n = L.total_in_bits
    cols = L.flat_columns
    keep = [j for j in range(n) if not (masked >> j) & 1]
    allowed = ((1 << n) - 1) & ~masked
    e = f2.Echelon.of([cols[j] for j in keep])
    combos = {}
    for j in range(n):
        if (masked >> j) & 1:
            res, combo = e.reduce(cols[j])
            if res:
                cx = witness.outside_image(L.apply, one_hot(L, j), L, allowed=allowed, label="L(x)",
                                           note="no input with the masked bits zero holds this data")
                d, i = in_bit_names(L)[j]
                return refuted(cx, f"masked bit {d}={1 << i} holds data that no unmasked input holds")
            full = sum(1 << keep[k] for k in range(len(keep)) if (combo >> k) & 1)
            if f2.combine(cols, full) != cols[j]:
                raise CertificateError("duplicate combination failed its check")
            combos[j] = full
    inj = _inj(L, [cols[j] for j in keep], allowed)
    if isinstance(inj, Finding):
        return inj
    return proved({"kind": "free_variables",
                   "masked_as_unmasked": {_bit_name(L, j): unflatten_in(L, c) for j, c in combos.items()},
                   "unmasked_left_inverse": inj["P"]},
                  "the unmasked inputs reach every datum exactly once (certificates checked)")
