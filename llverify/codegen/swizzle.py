"""Optimal swizzling for a conversion through shared memory (seed 000, sections 5.4 and 9.2).

Given distributed layouts A (writes) and B (reads) of one tensor (``d``
flattened bits), build a memory layout ``S: vector x bank x index -> F2^d``:

1. ``V``: register bases common to A and B (same basis vector in both), at
   most ``128 / bitwidth`` elements: every lane writes and reads whole
   vectors.  ``n = max(1, 2^|V| * bytes / 4)`` words per vector; one
   wavefront serves ``32 / n`` lanes (a *phase*).
2. ``b = log2(128 bytes / vector bytes)`` bank bases (one 128-byte row), and
   ``l = d - |V| - b`` index bases ``X``.
3. With ``U = span(V ∪ A's phase lanes)``, ``U' = span(V ∪ B's phase lanes)``,
   write and read cost ``n * 2^dim(X ∩ U)`` and ``n * 2^dim(X ∩ U')``
   wavefronts (lemma 9.4).  Any ``l``-dimensional ``X`` has
   ``dim(X ∩ U) >= l + dim U - d`` (lemma 9.5's counting), and this
   construction reaches both bounds at once: decompose
   ``F2^d = I ⊕ E ⊕ F ⊕ C`` (``I = U ∩ U'``), take ``X`` from ``C`` first,
   then ``e_i ^ f_i`` pairs, then the unpaired vectors of the larger of
   ``E``, ``F``, then ``e_i`` (costing both sides), then ``I`` outside ``V``.
4. Bank bases: unit vectors completing ``V ∪ X`` to a basis.

Worked example: A = B = one f32 element per lane along a row: V = ∅, the
lanes already cover 32 banks, so ``X`` avoids them and both sides take 1
wavefront.
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify import f2
from llverify.codegen.common import check_bitwidth, flat_bases, log2, remove_broadcast_registers
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["SwizzlePlan", "optimal_swizzle", "flat_to_layout", "phase_lanes"]


@dataclass(frozen=True)
class SwizzlePlan:
    """An optimal swizzle: the shared layout and what it achieves (flattened tensor bases)."""

    layout: LinearLayout
    bitwidth: int
    vector: tuple[int, ...]
    bank: tuple[int, ...]
    index: tuple[int, ...]
    write_wavefronts: int
    read_wavefronts: int
    write_lower_bound: int
    read_lower_bound: int
    phases: int
    lemma_applies: bool   # vectors of >= 32 bits: lemma 9.4 is exact and 9.5 bounds every swizzle

    @property
    def vector_elems(self) -> int:
        return 1 << len(self.vector)

    def to_json(self) -> dict:
        return {"bitwidth": self.bitwidth, "vector": list(self.vector), "bank": list(self.bank),
                "index": list(self.index), "vector_elems": self.vector_elems,
                "write_wavefronts": self.write_wavefronts, "read_wavefronts": self.read_wavefronts,
                "write_lower_bound": self.write_lower_bound, "read_lower_bound": self.read_lower_bound,
                "lemma_applies": self.lemma_applies,
                "offset_bases": [list(b) for b in self.layout.bases["offset"]]}


def flat_to_layout(columns: list[int], like: LinearLayout, in_dim: str = "offset") -> LinearLayout:
    """A layout ``in_dim -> like's out dims`` whose flattened columns are ``columns``."""
    outs = list(like.out_dims.items())
    bases, shift = [], []
    s = 0
    for _, size in outs:
        shift.append(s)
        s += log2(size)
    for c in columns:
        bases.append([(c >> sh) & (size - 1) for sh, (_, size) in zip(shift, outs)])
    return LinearLayout([(in_dim, bases)], outs, require_surjective=False)


def phase_lanes(layout: LinearLayout, vec_bits: int) -> list[int]:
    """Flattened lane bases of one wavefront phase (the low ``5 - log2(n)`` lanes), zeros dropped."""
    lanes = flat_bases(layout, "lane")
    drop = min(log2(max(1, vec_bits // 32)), len(lanes))
    return [b for b in lanes[:len(lanes) - drop] if b]


def _complement_in(basis: list[int], pool: list[int], most: int | None = None) -> list[int]:
    """The vectors of ``pool`` kept greedily: each one outside ``span(basis + those kept before it)`` (the first
    ``most`` of them).  One elimination pass: they are the pivot columns of ``[basis | pool]`` past ``basis`` (a
    pool vector is in the span of the basis and all earlier pool vectors iff it is in the span of the basis and
    the earlier *kept* ones, the others lying in that span)."""
    n = len(basis)
    out = [pool[j - n] for j in f2.pivot_columns(list(basis) + list(pool)) if j >= n]
    return out if most is None else out[:most]


def optimal_swizzle(A: LinearLayout, B: LinearLayout, bitwidth: int) -> SwizzlePlan:
    """The shared layout maximising vectorisation, then minimising write (A) and read (B) wavefronts."""
    check_bitwidth(bitwidth)
    if set(A.out_dim_names) != set(B.out_dim_names):
        raise LayoutError(f"optimal_swizzle: out dims differ: {list(A.out_dim_names)} vs {list(B.out_dim_names)}")
    Bt = B.transpose_outs(list(A.out_dim_names))
    for name, L in (("A", A), ("B", Bt)):
        if not L.is_surjective():
            raise LayoutError(f"optimal_swizzle: layout {name} does not cover the tensor")
        if L.out_dims != A.out_dims:
            raise LayoutError("optimal_swizzle: A and B describe tensors of different shapes")
    Ar, Br = remove_broadcast_registers(A), remove_broadcast_registers(Bt)
    d = A.total_out_bits
    a_reg, b_reg = flat_bases(Ar, "register"), flat_bases(Br, "register")
    common = [x for x in a_reg if x in b_reg]
    v = min(len(common), log2(max(1, 128 // bitwidth)))
    V = common[:v]
    vec_bits = (1 << v) * bitwidth
    phases = max(1, vec_bits // 32)
    la, lb = phase_lanes(Ar, vec_bits), phase_lanes(Br, vec_bits)
    # Sub-word vectors: pad the vector to one 4-byte word with bases K \ V
    # (elements sharing a word never conflict), preferring lanes common to
    # both sides, then directions neither side's lanes use.
    pad: list[int] = []
    if vec_bits < 32:
        s = min(log2(32 // vec_bits), d - v)
        pool = _complement_in(V, f2.intersection(f2.span_basis(V + la), f2.span_basis(V + lb)))
        pool += f2.complement(V + la + lb, d) + [1 << i for i in range(d)]
        pad = _complement_in(V, pool, s)
    K = V + pad
    n_bank = min(max(0, log2(max(1, 1024 // max(vec_bits, 32)))), d - len(K))
    ell = d - len(K) - n_bank
    U = f2.span_basis(K + la)
    Up = f2.span_basis(K + lb)
    inter = f2.intersection(U, Up)
    E = _complement_in(inter, U)
    F = _complement_in(inter, Up)
    C = [u for u in f2.complement(U + Up, d)]
    swap = len(E) > len(F)
    small, large = (F, E) if swap else (E, F)
    pairs = [s ^ t for s, t in zip(small, large)]
    order = C + pairs + large[len(small):] + small + _complement_in(K, inter)
    X = _complement_in(K, order, ell)
    if len(X) < ell:  # pragma: no cover (the pool spans F2^d)
        X += _complement_in(K + X, [1 << i for i in range(d)])[:ell - len(X)]
    bank = pad + f2.complement(K + X, d)
    S = flat_to_layout(V + bank + X, A)
    if not S.is_invertible():  # pragma: no cover
        raise LayoutError("optimal_swizzle: internal error, the constructed layout is not invertible")
    cw = f2.rank(U) + len(X) - f2.rank(U + X)
    cr = f2.rank(Up) + len(X) - f2.rank(Up + X)
    lw = max(0, ell + len(U) - d)
    lr = max(0, ell + len(Up) - d)
    return SwizzlePlan(S, bitwidth, tuple(V), tuple(bank), tuple(X), phases << cw, phases << cr,
                       phases << lw, phases << lr, phases, vec_bits >= 32)
