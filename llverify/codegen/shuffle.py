"""Warp-shuffle conversions (seed 000, section 5.4, "Intra-warp Data Exchange").

When ``cvt`` is the identity on warps and blocks, a conversion A -> B only
moves data between the lanes of a warp, and can be done with ``shfl.sync``.
Working in the flattened tensor space ``F2^d`` (A, B without broadcasting):

* ``V``: register bases common to A and B, as many as fit in one 32-bit
  shuffle (``2^|V| * bitwidth <= 32``): each shuffle carries a vector.
* ``I = A_lane ∩ B_lane``, ``E = A_lane \\ I``, ``F = B_lane \\ I`` (``|E| == |F|``),
  ``G = {e_i ^ f_i}``: ``span(G ∪ I)`` has one element per A-lane and per B-lane.
* ``R`` completes ``V ∪ I ∪ G`` to a basis of the warp's elements.  For each
  ``k < 2^|R|`` the coset ``R(k) + span(V ∪ I ∪ G)`` holds exactly one vector
  per lane in A and in B, so round ``k`` is one shuffle: lane ``u`` reads from
  ``srcLane`` (the A-lane of the vector B wants in lane ``u``) the registers
  that lane sends, and stores them in its B registers.

Rounds: ``2^|R|`` shuffles.  Figure 3's shape (8 elements, 4 lanes x 2
registers, V = I = ∅): ``|R| = 1``, 2 rounds, one element per shuffle.

Word structure (what a kernel generator needs, :class:`WordRound`).  A
*word* is a coset ``x + span(V)``: the ``2^|V|`` elements one 32-bit
shuffle carries.  Since each ``v ∈ V`` is a register basis vector of A and
of B, A's register index splits into (word, position) bits, the position
bits being V's register bits, and likewise for B.  Let ``H = span(I ∪ G)``:
it has one vector per lane in A and in B (``α(h)`` = A-lane of h,
``β(h)`` = B-lane of h, both bijective and linear).  In round k lane u
receives the word of ``x_k(u) = R(k) ^ β^-1(u ^ β(R(k)))``; with ``y`` the
element of that word at A position 0, every quantity is affine in the lane:

* ``src_lane(u) = A-lane(y) = c_k ^ S u`` with ``S = α β^-1`` the same in
  every round (``S = 1``: ``__shfl_xor_sync`` by ``c_k``; ``c_k = 0`` too: a
  local round, no shuffle);
* ``send_word(t)`` = A word of the element sent by lane t: ``s_k ^ P_s t``;
* ``recv_word(u)`` = B word it lands in: ``r_k ^ P_r u``;
* ``word_perm(u)`` = B position of ``y``: ``q_k ^ Q u``; the element at A
  position p lands at B position ``p ^ word_perm(u)``.

The linear parts ``S, P_s, P_r, Q`` do not depend on k, so a generator can
apply ``P_s`` (and ``P_r``) once as lane-conditional word swaps before (after)
all rounds, and each round sends and receives one fixed word: no per-round
selects, no per-element candidates.  Worked example (Figure 3's shape,
``A = (reg [1] | lane [2, 4])``, ``B = (reg [2] | lane [6, 3])``, one
element per word): G = (4, 7), R = (1,), 2 rounds; ``S`` swaps the two lane
bits (``src_lane(u) = c_k ^ swap(u)``, ``c_0 = 0``, ``c_1 = 1``), lane t
sends word ``k ^ t0`` (``P_s = [1, 0]``) and lane u stores into word
``k ^ u0`` (``P_r = [1, 0]``), ``Q = 0``.  The tables ``rounds[k]`` are computed independently,
per lane, from the elements; :func:`llverify.prove.plan_shuffle.prove_shuffle_plan`
proves the tables on every (warp, lane, register) and that the affine
structure expands to exactly those tables.

Per-warp validity: the plan is computed on warp 0 and block 0.  The same
rounds are right in every warp and block iff A and B give every warp (block)
basis the same element (``warp_uniform``); the proof checks every warp.

Layouts holding copies (broadcast lanes or registers, or warps that hold
the needed elements only as copies) are planned by
:mod:`llverify.codegen.shuffle_broadcast`, which reads each element from a
copy in the receiving lane's own warp.

:func:`transposition_decomposition` gives Triton's other factorisation when
``cvt`` permutes register and lane *bits*: register<->register swaps (free
renaming), lane<->lane swaps (one shuffle each) and register<->lane swaps
(select, shuffle, select).
"""

from __future__ import annotations

from typing import Sequence

from llverify import f2
from llverify.codegen.common import flat_bases, kept_register_bits, original_register, remove_broadcast_registers
from llverify.codegen.conversion import convert
from llverify.codegen.shuffle_types import LaneMap, ShufflePlan, ShuffleRound, WordRound
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["ShuffleRound", "ShufflePlan", "shuffle_plan", "Transposition", "transposition_decomposition",
           "warp_positions", "LaneMap", "WordRound", "transposition_packing", "triton_lowering"]


def warp_positions(layout: LinearLayout) -> dict[int, tuple[int, int]]:
    """Flattened element -> (register, lane) for warp 0 / block 0 (the first holder)."""
    regs = flat_bases(layout, "register")
    lanes = flat_bases(layout, "lane")
    pos: dict[int, tuple[int, int]] = {}
    for lane in range(1 << len(lanes)):
        lv = 0
        for j, b in enumerate(lanes):
            if lane >> j & 1:
                lv ^= b
        for reg in range(1 << len(regs)):
            x = lv
            for j, b in enumerate(regs):
                if reg >> j & 1:
                    x ^= b
            pos.setdefault(x, (reg, lane))
    return pos


def _span(vectors: Sequence[int]) -> list[int]:
    out = [0]
    for v in vectors:
        out += [x ^ v for x in out]
    return out


def shuffle_plan(src: LinearLayout, dst: LinearLayout, bitwidth: int = 32) -> ShufflePlan:
    """The warp-shuffle plan converting ``src`` to ``dst`` (see the module docstring).

    When A and B are injective on (register, lane) of a warp and ``cvt`` keeps
    warps, this is section 5.4's plan.  Otherwise (lane or register copies in
    either layout, or warps whose elements are held by the same warp of the
    source only as broadcast copies) the plan is
    :func:`llverify.codegen.shuffle_broadcast.broadcast_shuffle_plan`, which
    reads each element from a copy in the receiving lane's own warp.
    ``LayoutError`` when no warp-local plan exists.
    """
    if bitwidth not in (8, 16, 32):
        raise LayoutError(f"shuffle_plan: element bitwidth {bitwidth} must be 8, 16 or 32 (one 32-bit shuffle)")
    plan = convert(src, dst)
    A = remove_broadcast_registers(src).transpose_outs(list(dst.out_dim_names))
    B = dst
    a_reg, a_thr = flat_bases(A, "register"), flat_bases(A, "lane")
    b_reg, b_thr = flat_bases(B, "register"), flat_bases(B, "lane")
    if plan.classification == "shared_memory" or remove_broadcast_registers(dst) != dst or \
            not f2.is_independent(a_reg + a_thr) or not f2.is_independent(b_reg + b_thr) or \
            f2.rank(a_reg + a_thr + b_reg + b_thr) != len(a_reg) + len(a_thr):
        from llverify.codegen.shuffle_broadcast import broadcast_shuffle_plan
        return broadcast_shuffle_plan(src, dst, bitwidth)
    max_v = 32 // bitwidth
    V = [b for b in a_reg if b in b_reg][:max(0, max_v.bit_length() - 1)]
    I = [b for b in a_thr if b in b_thr]
    E = [b for b in a_thr if b not in I]
    F = [b for b in b_thr if b not in I]
    if len(E) != len(F):
        raise LayoutError("shuffle_plan: source and destination have different numbers of lanes")
    G = [e ^ f for e, f in zip(E, F)]
    pa, pb = warp_positions(A), warp_positions(B)
    n_lane_bits = len(a_thr)
    if not (_lanes_bijective(I + G, pa, n_lane_bits) and _lanes_bijective(I + G, pb, n_lane_bits)):
        # Non-unit bases: pair registers instead (lemma 9.5's construction on
        # U = span(A_reg), V' = span(B_reg)); a common complement of both
        # register spaces has one element per A-lane and per B-lane.
        I, E, F, G = _common_complement(a_reg, b_reg, a_thr + b_thr)
    base = V + I + G
    if not f2.is_independent(base):  # pragma: no cover (section 5.4 guarantees independence)
        raise LayoutError("shuffle_plan: V ∪ I ∪ G is not independent")
    R: list[int] = []
    ech = list(base)
    for cand in a_reg + a_thr:
        if not f2.in_span(cand, ech):
            R.append(cand)
            ech.append(cand)
    a_kept = kept_register_bits(src)
    a_pos = [a_reg.index(v) for v in V]           # V's register bits in A and in B
    b_pos = [b_reg.index(v) for v in V]
    a_words = _word_table(len(a_reg), a_pos, lambda r: original_register(r, a_kept))
    b_words = _word_table(len(b_reg), b_pos, lambda r: r)
    H = I + G
    n_lanes = 1 << len(a_thr)
    by_a = _lane_solver(H, pa)                      # lane -> the h in span(H) with that A-lane
    by_b = _lane_solver(H, pb)
    span_v = _span(V)

    def strip_v(x: int) -> int:
        """The element of x's word at A position 0 (V components removed in A's coordinates)."""
        r = pa[x][0]
        for i, j in enumerate(a_pos):
            if r >> j & 1:
                x ^= V[i]
        return x

    rounds, word_rounds = [], []
    for k in range(1 << len(R)):
        rk = 0
        for j, b in enumerate(R):
            if k >> j & 1:
                rk ^= b
        y_of_u = [strip_v(rk ^ by_b[u ^ pb[rk][1]]) for u in range(n_lanes)]   # what lane u receives
        y_of_t = [strip_v(rk ^ by_a[t ^ pa[rk][1]]) for t in range(n_lanes)]   # what lane t sends
        # the per-lane tables, element by element
        srcl = tuple(pa[y][1] for y in y_of_u)
        send = tuple(tuple(original_register(pa[y ^ v][0], a_kept) for v in span_v) for y in y_of_t)
        recv = tuple(tuple(pb[y ^ v][0] for v in span_v) for y in y_of_u)
        rounds.append(ShuffleRound(srcl, send, recv))
        # the same round as affine maps of the lane bits (evaluated on the lane basis; affine by linearity)
        word_rounds.append(WordRound(
            _affine(lambda u: pa[y_of_u[u]][1], len(a_thr)),
            _affine(lambda t: _split(pa[y_of_t[t]][0], a_pos)[0], len(a_thr)),
            _affine(lambda u: _split(pb[y_of_u[u]][0], b_pos)[0], len(a_thr)),
            _affine(lambda u: _split(pb[y_of_u[u]][0], b_pos)[1], len(a_thr))))
    uniform = all(flat_bases(A, d) == flat_bases(B, d) for d in ("warp", "block"))
    return ShufflePlan(src, dst, bitwidth, tuple(V), tuple(I), tuple(E), tuple(F), tuple(G), tuple(R),
                       tuple(rounds), a_words, b_words, tuple(word_rounds), uniform)


def _split(reg: int, pos_bits: Sequence[int]) -> tuple[int, int]:
    """(word index, position) of a register: position = the bits ``pos_bits`` (in order), word = the others."""
    word, pos, wj = 0, 0, 0
    n = max([reg.bit_length()] + [j + 1 for j in pos_bits])
    for j in range(n):
        bit = reg >> j & 1
        if j in pos_bits:
            pos |= bit << pos_bits.index(j)
        else:
            word |= bit << wj
            wj += 1
    return word, pos


def _word_table(n_bits: int, pos_bits: Sequence[int], name) -> tuple[tuple[int, ...], ...]:
    """``table[w][p]`` = the register (renamed by ``name``) with word index w and position p."""
    n_pos = 1 << len(pos_bits)
    table = [[0] * n_pos for _ in range(1 << (n_bits - len(pos_bits)))]
    for r in range(1 << n_bits):
        w, p = _split(r, pos_bits)
        table[w][p] = name(r)
    return tuple(tuple(t) for t in table)


def _lane_solver(H: Sequence[int], pos: dict[int, tuple[int, int]]) -> dict[int, int]:
    """lane -> the unique h in span(H) whose lane (in ``pos``) is that lane."""
    out: dict[int, int] = {}
    for h in _span(H):
        out[pos[h][1]] = h
    if len(out) != 1 << len(H):  # pragma: no cover (section 5.4: H has one vector per lane)
        raise LayoutError("shuffle_plan: span(I ∪ G) does not have one vector per lane")
    return out


def _affine(f, n_bits: int) -> LaneMap:
    c0 = f(0)
    return LaneMap(c0, tuple(f(1 << j) ^ c0 for j in range(n_bits)))


def _lanes_bijective(vectors: list[int], pos: dict[int, tuple[int, int]], n_lane_bits: int) -> bool:
    return len(vectors) == n_lane_bits and f2.rank([pos[v][1] for v in vectors]) == n_lane_bits


def _common_complement(a_reg: list[int], b_reg: list[int], pool: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """``(C, E', F', G')`` with ``span(C ∪ G')`` complementing both ``span(a_reg)`` and ``span(b_reg)``."""
    inter = f2.intersection(a_reg, b_reg)
    e_p: list[int] = []
    for v in a_reg:
        if not f2.in_span(v, inter + e_p):
            e_p.append(v)
    f_p: list[int] = []
    for v in b_reg:
        if not f2.in_span(v, inter + f_p):
            f_p.append(v)
    c: list[int] = []
    for v in pool:
        if not f2.in_span(v, a_reg + b_reg + c):
            c.append(v)
    return c, e_p, f_p, [e ^ f for e, f in zip(e_p, f_p)]






# Triton's bit-transposition view and its lowering rule (kept in their own module, re-exported here)
from llverify.codegen.shuffle_triton import (Transposition, transposition_decomposition,  # noqa: E402
                                             transposition_packing, triton_lowering)
