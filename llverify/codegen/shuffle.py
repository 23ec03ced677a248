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

:func:`transposition_decomposition` gives Triton's other factorisation when
``cvt`` permutes register and lane *bits*: register<->register swaps (free
renaming), lane<->lane swaps (one shuffle each) and register<->lane swaps
(select, shuffle, select).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Sequence

from llverify import f2
from llverify.codegen.common import flat_bases, remove_broadcast_registers
from llverify.codegen.conversion import convert
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["ShuffleRound", "ShufflePlan", "shuffle_plan", "Transposition", "transposition_decomposition",
           "warp_positions"]


@dataclass(frozen=True)
class ShuffleRound:
    """One ``shfl.sync`` round: per lane, where it reads and which registers move.

    ``src_lane[u]``: lane ``u`` reads the value lane ``src_lane[u]`` sends.
    ``send_regs[t]``: the A registers lane ``t`` packs into its 32-bit payload.
    ``recv_regs[u]``: the B registers lane ``u`` unpacks the payload into.
    """

    src_lane: tuple[int, ...]
    send_regs: tuple[tuple[int, ...], ...]
    recv_regs: tuple[tuple[int, ...], ...]

    def to_json(self) -> dict:
        return {"src_lane": list(self.src_lane), "send_regs": [list(r) for r in self.send_regs],
                "recv_regs": [list(r) for r in self.recv_regs]}


@dataclass(frozen=True)
class ShufflePlan:
    """The section-5.4 plan: bases V, I, E, F, G, R (flattened tensor coordinates) and the rounds."""

    src: LinearLayout
    dst: LinearLayout
    bitwidth: int
    V: tuple[int, ...]
    I: tuple[int, ...]
    E: tuple[int, ...]
    F: tuple[int, ...]
    G: tuple[int, ...]
    R: tuple[int, ...]
    rounds: tuple[ShuffleRound, ...]

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)

    @property
    def elems_per_shuffle(self) -> int:
        return 1 << len(self.V)

    @property
    def bits_per_shuffle(self) -> int:
        return self.elems_per_shuffle * self.bitwidth

    def with_round(self, k: int, rnd: ShuffleRound) -> "ShufflePlan":
        """A copy with round ``k`` replaced (used to build mutants in tests)."""
        rounds = list(self.rounds)
        rounds[k] = rnd
        return ShufflePlan(self.src, self.dst, self.bitwidth, self.V, self.I, self.E, self.F, self.G, self.R,
                           tuple(rounds))

    def to_json(self) -> dict:
        return {"bitwidth": self.bitwidth, "V": list(self.V), "I": list(self.I), "E": list(self.E),
                "F": list(self.F), "G": list(self.G), "R": list(self.R), "num_rounds": self.num_rounds,
                "elems_per_shuffle": self.elems_per_shuffle, "rounds": [r.to_json() for r in self.rounds]}


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

    Preconditions (``LayoutError`` otherwise): the conversion is warp-local
    (``convert(src, dst)`` is ``warp_shuffle``, ``register_permutation`` or
    ``noop``), lanes do not broadcast, ``dst`` has no broadcast registers.
    """
    if bitwidth not in (8, 16, 32):
        raise LayoutError(f"shuffle_plan: element bitwidth {bitwidth} must be 8, 16 or 32 (one 32-bit shuffle)")
    plan = convert(src, dst)
    if plan.classification == "shared_memory":
        raise LayoutError("shuffle_plan: the conversion moves data across warps or blocks; it needs shared memory")
    if remove_broadcast_registers(dst) != dst:
        raise LayoutError("shuffle_plan: the destination has broadcast registers; give it without them")
    A = remove_broadcast_registers(src).transpose_outs(list(dst.out_dim_names))
    B = dst
    a_reg, a_thr = flat_bases(A, "register"), flat_bases(A, "lane")
    b_reg, b_thr = flat_bases(B, "register"), flat_bases(B, "lane")
    for name, bases in (("source", a_reg + a_thr), ("destination", b_reg + b_thr)):
        if not f2.is_independent(bases):
            raise LayoutError(f"shuffle_plan: the {name} layout broadcasts within a warp (lane or register copies)")
    if f2.rank(a_reg + a_thr + b_reg + b_thr) != len(a_reg) + len(a_thr):
        raise LayoutError("shuffle_plan: source and destination warps hold different elements")
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
    a_kept = _kept_register_bits(src)
    span_v = _span(V)
    span_rest = _span(I + G)
    n_lanes = 1 << len(a_thr)
    rounds = []
    for k in range(1 << len(R)):
        rk = 0
        for j, b in enumerate(R):
            if k >> j & 1:
                rk ^= b
        send: list[tuple[int, ...] | None] = [None] * n_lanes
        recv: list[tuple[int, ...] | None] = [None] * n_lanes
        srcl = [0] * n_lanes
        for g in span_rest:
            coset = [rk ^ g ^ s for s in span_v]
            rep = min(coset)
            elems = [rep ^ s for s in span_v]
            a_lane = pa[rep][1]
            b_lane = pb[rep][1]
            send[a_lane] = tuple(_orig_reg(pa[x][0], a_kept) for x in elems)
            recv[b_lane] = tuple(pb[x][0] for x in elems)
            srcl[b_lane] = a_lane
        if any(s is None for s in send) or any(r is None for r in recv):  # pragma: no cover
            raise LayoutError("shuffle_plan: a round does not cover every lane")
        rounds.append(ShuffleRound(tuple(srcl), tuple(send), tuple(recv)))  # type: ignore[arg-type]
    return ShufflePlan(src, dst, bitwidth, tuple(V), tuple(I), tuple(E), tuple(F), tuple(G), tuple(R),
                       tuple(rounds))


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


def _kept_register_bits(layout: LinearLayout) -> list[int]:
    """Indices of the register bases :func:`remove_broadcast_registers` keeps."""
    kept, seen = [], set()
    for i, b in enumerate(layout.bases.get("register", ())):
        if any(b) and b not in seen:
            kept.append(i)
            seen.add(b)
    return kept


def _orig_reg(reduced: int, kept: list[int]) -> int:
    return sum(1 << kept[j] for j in range(len(kept)) if reduced >> j & 1)


@dataclass(frozen=True)
class Transposition:
    """Swap of two hardware bits: ``kind`` is register_swap, lane_swap or register_lane_swap."""

    kind: str
    a: tuple[str, int]
    b: tuple[str, int]


def transposition_decomposition(src: LinearLayout, dst: LinearLayout) -> tuple[Transposition, ...] | None:
    """Factor ``cvt`` into bit transpositions when it permutes register and lane bits.

    Returns None when ``cvt`` restricted to registers and lanes is not a bit
    permutation (then only :func:`shuffle_plan` applies).  Applying the
    transpositions in order to the identity gives ``cvt``'s permutation.
    """
    plan = convert(src, dst)
    if plan.classification == "shared_memory":
        return None
    cvt = plan.cvt
    slots = [("register", i) for i in range(cvt.in_dim_size_log2("register"))] + \
            [("lane", i) for i in range(cvt.in_dim_size_log2("lane"))]
    index = {s: j for j, s in enumerate(slots)}
    target: list[int] = []
    for d, i in slots:
        b = cvt.bases[d][i]
        hits = [(o, c) for o, c in zip(cvt.out_dim_names, b) if c]
        if len(hits) != 1 or hits[0][0] not in ("register", "lane") or hits[0][1] & (hits[0][1] - 1):
            return None
        target.append(index[(hits[0][0], hits[0][1].bit_length() - 1)])
    if sorted(target) != list(range(len(slots))):
        return None
    cur = list(range(len(slots)))
    steps: list[Transposition] = []
    for j in range(len(slots)):
        if cur[j] == target[j]:
            continue
        k = cur.index(target[j])
        cur[j], cur[k] = cur[k], cur[j]
        a, b = slots[j], slots[k]
        kind = "register_swap" if a[0] == b[0] == "register" else "lane_swap" if a[0] == b[0] == "lane" \
            else "register_lane_swap"
        steps.append(Transposition(kind, a, b))
    return tuple(steps)
