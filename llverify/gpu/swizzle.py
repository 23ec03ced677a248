"""A local optimal swizzle (seed 000, section 5.4 / 9.2), used until ``llverify.codegen`` provides one.

For distributed layouts A and B over a d-bit tile (element ids, see
:mod:`llverify.gpu.tile`) and elements of ``w`` bytes, the shared layout
``S: Vec x Bank x Idx -> ids`` is built as in the paper:

* ``S_Vec`` (v bits): the register bases A and B share *at the same
  positions* (so both sides keep ``2^v``-element vectors without a register
  permutation), at most 16 bytes;
* ``S_Idx`` (``l = d - v - b`` bits, ``b = log2(128 / (2^v w))``): first
  unit vectors outside ``span(V u A_Thr u B_Thr)`` (the complement C of P),
  then ``e_i ^ f_i`` for ``e_i`` in ``A_Thr \\ B_Thr``, ``f_i`` in ``B_Thr \\
  A_Thr`` (the set G), then lanes of other phases, and only then lanes of
  one phase (unavoidable conflicts).  One refinement of the paper: Thr is
  the lanes of one *phase* (the first ``5 - log2 n`` lane bases for vectors
  of n words), since lemma 9.4's hardware serves 128 bytes at a time; lanes
  of different phases never conflict, so they are free Idx bits;
* ``S_Bank``: unit vectors completing a basis.

Lemma 9.5/9.6 make ``span(S_Idx)`` meet ``P`` minimally, so reads and writes
are both as conflict-free as the vector width allows.  Example: blocked
(1x8 per thread, row-major) to its transpose at 64x64 f16 gets 8-element
vectors on neither side (v = 0 there) and conflict-free 2-byte accesses.
"""

from __future__ import annotations

from typing import Sequence

from llverify.gpu.tile import DistMap
from llverify.layout import LinearLayout

__all__ = ["optimal_swizzle"]


def _reduce(v: int, basis: dict[int, int]) -> int:
    for p in sorted(basis, reverse=True):
        if v >> p & 1:
            v ^= basis[p]
    return v


def _add(v: int, basis: dict[int, int]) -> bool:
    r = _reduce(v, basis)
    if r == 0:
        return False
    basis[r.bit_length() - 1] = r
    return True


def optimal_swizzle(src: LinearLayout, dst: LinearLayout, bits: int) -> LinearLayout:
    """The shared layout (offset -> dims) of the paper's optimal swizzling for ``src -> dst``."""
    a, b = DistMap.of(src), DistMap.of(dst)
    eb = max(1, bits // 8)
    d = (a.n_elems).bit_length() - 1
    vec: list[int] = []
    for x, y in zip(a.reg, b.reg):
        if x != y or x == 0 or (2 << len(vec)) * eb > 16:
            break
        vec.append(x)
    nv = len(vec)
    nb = max(0, min(d - nv, ((128 // eb) >> nv).bit_length() - 1))
    nl = d - nv - nb
    # only the lanes of one phase can conflict (32 / n lanes for n-word vectors, lemma 9.4)
    n_words = max(1, ((1 << nv) * eb) // 4)
    phase = 5 - (n_words.bit_length() - 1)
    a_thr, b_thr = list(a.lane[:phase]), list(b.lane[:phase])
    span_p: dict[int, int] = {}
    for x in vec + a_thr + b_thr:
        _add(x, span_p)
    taken: dict[int, int] = {}
    for x in vec:
        _add(x, taken)
    idx: list[int] = []

    def take(x: int) -> None:
        if len(idx) < nl and x and _add(x, taken):
            idx.append(x)

    for k in range(d):                                   # C: unit vectors outside span(P)
        if _reduce(1 << k, span_p):
            probe = dict(span_p)
            if _add(1 << k, probe):
                take(1 << k)
                span_p = probe
    ea = [x for x in a_thr if x and x not in b_thr]
    fb = [x for x in b_thr if x and x not in a_thr]
    for e, f in zip(ea, fb):                             # G: XOR pairs
        take(e ^ f)
    for x in list(a.lane[phase:]) + list(b.lane[phase:]):  # lanes of other phases: free
        take(x)
    for x in reversed(a_thr + b_thr):                    # unavoidable conflicts, fewest first
        take(x)
    for k in range(d):                                   # anything left (broadcast layouts)
        take(1 << k)
    bank: list[int] = []
    for k in range(d):                                   # S_Bank completes the basis
        if len(bank) < nb and _add(1 << k, taken):
            bank.append(1 << k)
    cols = vec + bank + idx
    return _ids_to_layout(cols, a.shape)


def _ids_to_layout(cols: Sequence[int], shape: Sequence[int]) -> LinearLayout:
    bases = []
    for c in cols:
        coord = []
        for s in reversed(shape):
            coord.append(c % s)
            c //= s
        bases.append(tuple(reversed(coord)))
    return LinearLayout([("offset", bases), ("block", [])], [(f"dim{i}", s) for i, s in enumerate(shape)])
