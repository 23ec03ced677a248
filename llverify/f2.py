"""Linear algebra over F2 on bit-packed vectors.

A vector of F2^n is a Python ``int`` whose bit ``i`` is coordinate ``i``.  A
matrix is given either by its *columns* (a sequence of ints, column ``j`` being
the image of the unit vector ``e_j``) or by its *rows* (bit ``j`` of row ``r``
is entry ``(r, j)``).  Layouts (``llverify.layout``) hand their bases to these
routines as columns: column ``j`` is the flattened image of input bit ``j``.

Everything here is pure and works for any width (Python ints are unbounded).

Conventions that matter for bit-exact agreement with Triton (seed 000, section
4; Triton's ``f2reduce``-based code):

* Pivots are chosen greedily in column order: column ``j`` is a pivot column iff
  it is not in the span of columns ``0 .. j-1``.
* ``solve`` returns the solution whose free (non-pivot) variables are all 0.
  This is the solution Triton reads off its reduced row echelon form, i.e. the
  "minimal" solution of ``invertAndCompose``.

Worked example: columns ``[0b01, 0b10, 0b11]`` (the 2x3 matrix
``[[1,0,1],[0,1,1]]``).  Pivot columns are 0 and 1; column 2 is free.
``solve(cols, 0b11) == 0b011`` (use columns 0 and 1, not column 2), and
``nullspace(cols) == [0b111]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

__all__ = [
    "Echelon",
    "bit_count",
    "combine",
    "columns_to_rows",
    "complement",
    "in_span",
    "intersection",
    "is_independent",
    "least_squares",
    "nullspace",
    "pivot_columns",
    "rank",
    "rows_to_columns",
    "rref",
    "solve",
    "span_basis",
    "subspace_sum",
]


def bit_count(v: int) -> int:
    """Number of set bits (the Hamming weight) of ``v >= 0``."""
    return v.bit_count()


def combine(vectors: Sequence[int], mask: int) -> int:
    """``XOR of vectors[j]`` over the set bits ``j`` of ``mask``: the matrix-vector product.

    With ``vectors`` the columns of a matrix ``M``, this is ``M x`` for the
    bit vector ``x = mask``.  ``combine([0b01, 0b10, 0b11], 0b101) == 0b10``.
    """
    v = 0
    if mask.bit_count() * 3 < mask.bit_length():  # sparse (a unit mask, a few bits): one step per set bit
        while mask:
            low = mask & -mask
            v ^= vectors[low.bit_length() - 1]
            mask ^= low
        return v
    j = 0
    while mask:
        if mask & 1:
            v ^= vectors[j]
        mask >>= 1
        j += 1
    return v


@dataclass(frozen=True)
class Echelon:
    """A span in reduced echelon form, remembering how each vector was made.

    ``vectors[k]`` has lowest set bit ``pivots[k]`` and that bit is clear in
    every other vector (fully reduced).  ``combos[k]`` is the set (bitmask) of
    *input* indices whose XOR equals ``vectors[k]``.  ``pivot_inputs`` lists the
    inputs that were independent of their predecessors (the pivot columns).
    """

    vectors: tuple[int, ...]
    pivots: tuple[int, ...]
    combos: tuple[int, ...]
    pivot_inputs: tuple[int, ...]

    @staticmethod
    def of(vectors: Iterable[int]) -> "Echelon":
        """Reduce ``vectors`` in order (greedy pivots, as Triton does).

        Fast path while the vectors are zero or unit vectors: a unit vector is reduced to 0 exactly by an earlier
        copy of itself, and a new unit pivot has no bit in common with the others (nothing to clear), so the
        form is the first occurrence of each distinct unit vector, made of itself alone."""
        vectors = vectors if isinstance(vectors, (list, tuple)) else list(vectors)
        first: dict[int, int] = {}
        for i, v in enumerate(vectors):
            if v & (v - 1):  # neither zero nor a power of two (negatives included): general elimination
                break
            if v and v not in first:
                first[v] = i
        else:
            units = tuple(first)
            return Echelon(units, tuple(v.bit_length() - 1 for v in units), tuple(1 << i for i in first.values()),
                           tuple(first.values()))
        vecs: list[int] = []
        pivs: list[int] = []
        combos: list[int] = []
        pivot_inputs: list[int] = []
        at: dict[int, int] = {}  # pivot bit (as a power of two) -> index into vecs
        mask = 0                 # every pivot bit
        for i, v in enumerate(vectors):
            if v < 0:
                raise ValueError("F2 vectors are non-negative ints")
            combo = 1 << i
            # the form is fully reduced: vecs[k] holds pivot bit k and no other pivot bit, so each pivot
            # bit of v is cleared by exactly one XOR that touches no other pivot bit
            m = v & mask
            while m:
                low = m & -m
                k = at[low]
                v ^= vecs[k]
                combo ^= combos[k]
                m ^= low
            if v == 0:
                continue
            low = v & -v
            # keep the form fully reduced: clear bit p from the other vectors
            for k in range(len(vecs)):
                if vecs[k] & low:
                    vecs[k] ^= v
                    combos[k] ^= combo
            at[low] = len(vecs)
            mask |= low
            vecs.append(v)
            pivs.append(low.bit_length() - 1)
            combos.append(combo)
            pivot_inputs.append(i)
        return Echelon(tuple(vecs), tuple(pivs), tuple(combos), tuple(pivot_inputs))

    @property
    def rank(self) -> int:
        return len(self.vectors)

    def reduce(self, v: int) -> tuple[int, int]:
        """Return ``(residual, combo)`` with ``v == residual ^ XOR(inputs in combo)``.

        ``residual == 0`` iff ``v`` lies in the span.  The residual has no bit
        at any pivot position, so it is the canonical representative of
        ``v`` modulo the span.
        """
        index = self.__dict__.get("_index")
        if index is None:
            index = {1 << p: (vec, c) for p, vec, c in zip(self.pivots, self.vectors, self.combos)}
            object.__setattr__(self, "_index", index)
            object.__setattr__(self, "_mask", sum(index))
        # each pivot bit of v is cleared by its own vector, which has no other pivot bit (fully reduced)
        combo = 0
        m = v & self.__dict__["_mask"]
        while m:
            low = m & -m
            vec, c = index[low]
            v ^= vec
            combo ^= c
            m ^= low
        return v, combo


def _pivot_flags(vectors: Iterable[int]) -> list[bool]:
    """Per vector, whether it is outside the span of the vectors before it (greedy pivots).

    The span so far is kept as one vector per leading (highest) bit, so reducing a vector is one XOR per
    leading bit it still has: ``_pivot_flags([1, 2, 3]) == [True, True, False]``.
    """
    lead: dict[int, int] = {}
    flags = []
    for v in vectors:
        if v < 0:
            raise ValueError("F2 vectors are non-negative ints")
        while v:
            h = v.bit_length()
            b = lead.get(h)
            if b is None:
                lead[h] = v
                break
            v ^= b
        flags.append(v != 0)
    return flags


def rank(vectors: Iterable[int]) -> int:
    """Dimension of the span of ``vectors``.  ``rank([1, 2, 3]) == 2``.

    Fast path: when every non-zero vector is a unit vector (a power of two, as the columns of distributed layouts
    are), distinct unit vectors are independent, so the rank is their number.  A negative vector is never a power
    of two (``v & (v - 1) != 0``), so it still reaches the elimination, which rejects it."""
    vs = vectors if isinstance(vectors, (list, tuple)) else list(vectors)
    nonzero = set(vs)
    nonzero.discard(0)
    for v in nonzero:
        if v & (v - 1):
            return sum(_pivot_flags(vs))
    return len(nonzero)


def span_basis(vectors: Iterable[int]) -> list[int]:
    """A basis of span(vectors): the fully reduced echelon vectors, sorted by pivot."""
    e = Echelon.of(vectors)
    return [v for _, v in sorted(zip(e.pivots, e.vectors))]


def is_independent(vectors: Sequence[int]) -> bool:
    """True iff ``vectors`` are linearly independent (no zero, no repeats)."""
    return rank(vectors) == len(vectors)


def in_span(v: int, vectors: Iterable[int]) -> bool:
    """True iff ``v`` is an XOR of some subset of ``vectors`` (0 always is)."""
    return Echelon.of(vectors).reduce(v)[0] == 0


def pivot_columns(columns: Sequence[int]) -> list[int]:
    """Indices ``j`` of the columns not in the span of columns ``0..j-1``.

    Fast path while the columns are zero or unit vectors: a unit vector lies in the span of earlier unit vectors
    exactly when it is one of them, so the pivots are the first occurrences of the non-zero columns."""
    seen: set[int] = set()
    out = []
    for j, c in enumerate(columns):
        if c & (c - 1):  # neither zero nor a power of two (negatives included): general elimination
            return [j for j, f in enumerate(_pivot_flags(columns)) if f]
        if c and c not in seen:
            seen.add(c)
            out.append(j)
    return out


def solve(columns: Sequence[int], target: int) -> int | None:
    """Solve ``XOR_{j in x} columns[j] == target`` for the bitmask ``x``.

    Returns the unique solution supported on the pivot columns (free variables
    set to 0), or ``None`` when ``target`` is not in the column span.

    >>> solve([0b01, 0b10, 0b11], 0b11)
    3
    """
    residual, combo = Echelon.of(columns).reduce(target)
    return combo if residual == 0 else None


def least_squares(columns: Sequence[int], target: int) -> tuple[int, int]:
    """Best F2 approximation: ``(x, residual)`` with ``A x == target ^ residual``.

    ``x`` is supported on pivot columns (free variables 0) and ``residual`` is
    the canonical representative of ``target`` modulo the column span, so
    ``residual == 0`` iff the system is consistent; then ``x == solve(...)``.
    Over F2 there is no norm to minimise in the real sense; "least squares"
    here is Triton's ``lstsq`` reading of the reduced echelon form.
    """
    residual, combo = Echelon.of(columns).reduce(target)
    return combo, residual


def nullspace(columns: Sequence[int]) -> list[int]:
    """A basis (bitmasks over column indices) of ``{x : A x == 0}``.

    One vector per free column ``j``: ``e_j`` plus the pivot columns that
    reproduce column ``j``.  Empty iff the columns are independent.
    """
    e = Echelon.of(columns)
    pivots = set(e.pivot_inputs)
    basis = []
    for j, col in enumerate(columns):
        if j in pivots:
            continue
        residual, combo = e.reduce(col)
        assert residual == 0
        basis.append(combo ^ (1 << j))
    return basis


def intersection(us: Sequence[int], vs: Sequence[int]) -> list[int]:
    """A basis of span(us) ∩ span(vs) (Zassenhaus-free: via a nullspace).

    For each null vector ``(a, b)`` of ``[U | V]``, ``U a == V b`` lies in both.
    """
    joint = list(us) + list(vs)
    n = len(us)
    out = []
    for x in nullspace(joint):
        w = 0
        for j in range(n):
            if (x >> j) & 1:
                w ^= us[j]
        out.append(w)
    return span_basis(out)


def subspace_sum(us: Iterable[int], vs: Iterable[int]) -> list[int]:
    """A basis of span(us) + span(vs)."""
    return span_basis(list(us) + list(vs))


def complement(vectors: Iterable[int], n_bits: int) -> list[int]:
    """Unit vectors ``e_k`` that complete span(vectors) to all of F2^n_bits.

    Chooses the lowest-index unit vectors first (basis completion), so
    ``span(vectors) ⊕ span(result) == F2^n_bits`` and the result is as
    "aligned" as possible.  ``complement([0b011], 2) == [0b10]``.
    """
    vectors = list(vectors)
    if any(v >> n_bits for v in vectors if v > 0):
        raise ValueError(f"vector wider than {n_bits} bits")
    # greedy: e_k is kept iff it is outside the span of the vectors and the units kept before it, i.e. iff it is
    # a pivot column of [vectors | e_0 .. e_{n-1}] (one elimination pass)
    n = len(vectors)
    return [1 << (j - n) for j in pivot_columns(vectors + [1 << k for k in range(n_bits)]) if j >= n]


def rref(rows: Sequence[int], ncols: int) -> tuple[list[int], list[int]]:
    """Reduced row echelon form of a matrix given by rows.

    Returns ``(reduced_rows, pivot_cols)``: the non-zero rows of the RREF, row
    ``k`` having its leading (lowest-index) 1 in column ``pivot_cols[k]``,
    pivot columns increasing, and every pivot column zero in the other rows.
    """
    work = [r & ((1 << ncols) - 1) for r in rows]
    out_rows: list[int] = []
    pivots: list[int] = []
    for c in range(ncols):
        bit = 1 << c
        sel = next((i for i, r in enumerate(work) if r & bit), None)
        if sel is None:
            continue
        prow = work.pop(sel)
        work = [r ^ prow if r & bit else r for r in work]
        out_rows = [r ^ prow if r & bit else r for r in out_rows]
        out_rows.append(prow)
        pivots.append(c)
    return out_rows, pivots


def columns_to_rows(columns: Sequence[int], nrows: int) -> list[int]:
    """Transpose: row ``r`` has bit ``j`` set iff column ``j`` has bit ``r``."""
    rows = [0] * nrows
    for j, col in enumerate(columns):
        r = 0
        while col:
            if col & 1:
                rows[r] |= 1 << j
            col >>= 1
            r += 1
    return rows


def rows_to_columns(rows: Sequence[int], ncols: int) -> list[int]:
    """Inverse of :func:`columns_to_rows`."""
    return columns_to_rows(rows, ncols)
