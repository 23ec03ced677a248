"""A warp-shuffle conversion plan computed from the two layouts (seed 000, section 5.4).

A conversion A -> B stays inside a warp when every element a B-warp needs is
held by the same warp in A.  Then, round by round, each lane of B fetches
one 32-bit word (``vec`` elements that are consecutive registers on both
sides, the paper's V) from one lane of A with ``shfl.sync``.  Round ``j``
fills B's register vector ``j``.  Because layouts are linear, for a receiver
lane t of warp w

    source (register, lane) = Q(B(j) ^ B(t) ^ B(w) ^ A(w))

where Q is the least-squares inverse of A restricted to its register and lane
columns (free variables 0).  So the source lane is ``l0 ^ Ll(t)`` and the
source register ``r0 ^ Rl(t)`` (affine in t).  A sender serves every lane
that asks it, so the register it sends must depend on the sender alone:
``Rl = H o Ll`` for a linear H ("the plan allows" the conversion when such H
exists for every round); the sender then sends register ``r0 ^ H(s ^ l0)``,
chosen by a select tree over the lane bits where H is non-zero
(select, shuffle, as in section 5.4).

Example: transposing the 2x2 blocks of a warp ("register bit 0 <-> lane
bit 0") needs two rounds, each sender choosing its register by its lane bit.

:func:`shuffle_plan` returns None when the conversion crosses warps or H does
not exist; ``llverify.codegen.shuffle_plan`` is the codegen layer's plan and
is reported next to this one when it exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from llverify.gpu.tile import DistMap

__all__ = ["ShuffleRound", "ShufflePlan", "shuffle_plan"]


class _Solver:
    """Least-squares solves over F2 against fixed columns (free variables zero)."""

    def __init__(self, cols: Sequence[int]) -> None:
        self.rows: dict[int, tuple[int, int]] = {}   # pivot -> (vector, combination)
        for i, c in enumerate(cols):
            v, comb = self._reduce(c, 1 << i)
            if v:
                self.rows[v.bit_length() - 1] = (v, comb)

    def _reduce(self, v: int, comb: int) -> tuple[int, int]:
        for p in sorted(self.rows, reverse=True):
            if v >> p & 1:
                rv, rc = self.rows[p]
                v ^= rv
                comb ^= rc
        return v, comb

    def solve(self, target: int) -> int | None:
        """Combination (bit i = column i) whose XOR is ``target``, or None."""
        v, comb = self._reduce(target, 0)
        return None if v else comb


def _linear_factor(xs: Sequence[int], ys: Sequence[int], nbits: int) -> list[int] | None:
    """H with H(xs[i]) == ys[i] for all i, as images of unit vectors 0..nbits-1; None if none exists."""
    rows: dict[int, tuple[int, int]] = {}
    for x, y in zip(xs, ys):
        for p in sorted(rows, reverse=True):
            if x >> p & 1:
                rx, ry = rows[p]
                x ^= rx
                y ^= ry
        if x == 0:
            if y != 0:
                return None
            continue
        rows[x.bit_length() - 1] = (x, y)
    out = []
    for k in range(nbits):
        x, y = 1 << k, 0
        for p in sorted(rows, reverse=True):
            if x >> p & 1:
                rx, ry = rows[p]
                x ^= rx
                y ^= ry
        out.append(y)   # the residual (outside the image) maps to 0
    return out


@dataclass(frozen=True)
class ShuffleRound:
    """Round j: B's register vector ``dst_vec`` receives from lane ``src_lane0 ^ sum bit_k(t) src_lane_bits[k]``.

    The sender sends its register vector ``send_reg0 ^ sum bit_k(s) send_reg_bits[k]``;
    ``*_warp_bits`` add the warp-dependent parts.  Register numbers are vector indices.
    """

    dst_vec: int
    src_lane0: int
    src_lane_bits: tuple[int, ...]
    src_lane_warp_bits: tuple[int, ...]
    send_reg0: int
    send_reg_bits: tuple[int, ...]
    send_reg_warp_bits: tuple[int, ...]
    dst_vec_bits: tuple[int, ...] = ()   # receiver-side select: dst vector ^= bit_k(t) * dst_vec_bits[k]

    @property
    def local(self) -> bool:
        """True when every lane reads itself (a register move, no shfl needed)."""
        return self.src_lane0 == 0 and all(c == 1 << k for k, c in enumerate(self.src_lane_bits)) \
            and not any(self.src_lane_warp_bits)


@dataclass(frozen=True)
class TransposeGroups:
    """The select-shuffle-select structure of a transposition plan (see :func:`_transposition_plan`).

    ``groups[g] = (send_base, dst_base)`` (A / B vector indices of round z = 0
    for a lane whose paired bits are 0); ``pairs[p] = (j_p, k_p, a_p, r_p)``:
    B-register bit j_p (vector index) is A-lane bit a_p and B-lane bit k_p is
    A-register bit r_p.  Round ``z`` of a group is ``rounds[g * 2^m + z]``.
    """

    groups: tuple[tuple[int, int], ...]
    pairs: tuple[tuple[int, int, int, int], ...]


@dataclass(frozen=True)
class ShufflePlan:
    vec: int                      # elements per 32-bit shuffle word
    rounds: tuple[ShuffleRound, ...]
    transpose: TransposeGroups | None = None


def _vec_width(a: DistMap, b: DistMap, elem_bytes: int) -> int:
    v = 1
    k = 0
    while (2 * v) * elem_bytes <= 4 and k < len(a.reg) and k < len(b.reg) and a.reg[k] == b.reg[k] \
            and a.reg[k] != 0 and a.reg[k] not in a.reg[:k]:
        v *= 2
        k += 1
    return v


def shuffle_plan(a: DistMap, b: DistMap, elem_bytes: int) -> ShufflePlan | None:
    """The rounds of an intra-warp conversion, or None when the plan does not allow shuffles."""
    if a.shape != b.shape or a.n_warps != b.n_warps:
        return None
    vec = _vec_width(a, b, elem_bytes)
    while True:
        plan = _plan(a, b, vec) or _transposition_plan(a, b, vec)
        if plan is not None or vec == 1:
            return plan
        vec //= 2


def _plan(a: DistMap, b: DistMap, vec: int) -> ShufflePlan | None:
    lv = vec.bit_length() - 1
    nr, nl = len(a.reg), len(a.lane)
    q = _Solver(list(a.reg) + list(a.lane))

    def split(target: int) -> tuple[int, int] | None:
        comb = q.solve(target)
        if comb is None:
            return None
        r, ln = comb & ((1 << nr) - 1), comb >> nr
        if r & ((1 << lv) - 1):
            return None            # would break the shared vector
        return r >> lv, ln

    lane_parts = [split(c) for c in b.lane]
    warp_parts = [split(cb ^ ca) for cb, ca in zip(b.warp, a.warp)]
    if any(p is None for p in lane_parts + warp_parts):
        return None
    Ll = [p[1] for p in lane_parts]  # type: ignore[index]
    Rl = [p[0] for p in lane_parts]  # type: ignore[index]
    H = _linear_factor(Ll, Rl, nl)
    if H is None:
        return None
    rounds = []
    for j in range(b.n_reg >> lv):
        tgt = 0
        for k in range((j << lv).bit_length()):
            if (j << lv) >> k & 1:
                tgt ^= b.reg[k]
        p = split(tgt)
        if p is None:
            return None
        r0, l0 = p
        # sender s (warp w) serves receivers t with l0 ^ Ll(t) ^ Wl(w) == s; it sends r0 ^ Rl(t) ^ Wr(w)
        # = r0 ^ H(s ^ l0 ^ Wl(w)) ^ Wr(w): expand H over the constant parts.
        def h_of(x: int) -> int:
            v = 0
            for k in range(nl):
                if x >> k & 1:
                    v ^= H[k]
            return v
        rounds.append(ShuffleRound(
            dst_vec=j,
            src_lane0=l0,
            src_lane_bits=tuple(Ll),
            src_lane_warp_bits=tuple(p[1] for p in warp_parts),  # type: ignore[index]
            send_reg0=r0 ^ h_of(l0),
            send_reg_bits=tuple(H),
            send_reg_warp_bits=tuple(p[0] ^ h_of(p[1]) for p in warp_parts),  # type: ignore[index]
        ))
    return ShufflePlan(vec, tuple(rounds))


def _unit_bit(x: int) -> int | None:
    return x.bit_length() - 1 if x and not x & (x - 1) else None


def _transposition_plan(a: DistMap, b: DistMap, vec: int) -> ShufflePlan | None:
    """Select, shuffle, select (section 5.4) for permutation-like conversions.

    When every B register / lane basis lands on one A register or lane bit
    (or on nothing: broadcast), B-register bits that are A-lane bits
    (``j_p -> a_p``) pair with B-lane bits that are A-register bits
    (``k_p -> r_p``), the paper's ``G = {e_p ^ f_p}``.  Round i fixes the
    remaining B-register bits and a bit ``z_p`` per pair; receiver t takes
    B register bit ``j_p = z_p ^ t_{k_p}`` (a receiver-side select), from
    lane bit ``a_p = z_p ^ t_{k_p}``; sender s sends A register bit
    ``r_p = s_{a_p} ^ z_p`` (a sender-side select).  Each round every lane
    sends and receives exactly one vector.
    """
    lv = vec.bit_length() - 1
    nr, nl = len(a.reg), len(a.lane)
    if any(cb != ca for cb, ca in zip(b.warp, a.warp)):
        return None
    q = _Solver(list(a.reg) + list(a.lane))
    breg = list(b.reg[lv:])
    kinds_r: list[tuple[str, int | None]] = []   # per B-register bit above V: ("r", A reg bit) | ("l", A lane bit)
    for x in breg:
        comb = q.solve(x)
        if comb is None:
            return None
        r, ln = comb & ((1 << nr) - 1), comb >> nr
        if r and ln:
            return None
        if ln:
            bit = _unit_bit(ln)
            if bit is None:
                return None
            kinds_r.append(("l", bit))
        else:
            bit = _unit_bit(r) if r else None
            if r and (bit is None or bit < lv):
                return None
            kinds_r.append(("r", None if bit is None else bit - lv))
    kinds_l: list[tuple[str, int | None]] = []
    for x in b.lane:
        comb = q.solve(x)
        if comb is None:
            return None
        r, ln = comb & ((1 << nr) - 1), comb >> nr
        if r and ln:
            return None
        if r:
            bit = _unit_bit(r)
            if bit is None or bit < lv:
                return None
            kinds_l.append(("r", bit - lv))
        else:
            bit = _unit_bit(ln) if ln else None
            if ln and bit is None:
                return None
            kinds_l.append(("l", bit))
    jp = [j for j, (k, _) in enumerate(kinds_r) if k == "l"]
    kp = [k for k, (kd, _) in enumerate(kinds_l) if kd == "r"]
    if len(jp) != len(kp):
        return None
    rr = [j for j, (k, _) in enumerate(kinds_r) if k == "r"]
    rounds = []
    groups = []
    n_round_bits = len(rr) + len(jp)
    pairs = tuple((j, k, kinds_r[j][1], kinds_l[k][1]) for j, k in zip(jp, kp))
    # round index i = z (pair bits, low) + group (RR bits, high): rounds of one group are consecutive
    for i0 in range(1 << n_round_bits):
        i = ((i0 >> len(jp)) | ((i0 & ((1 << len(jp)) - 1)) << len(rr)))
        bits_rr = [(i >> t) & 1 for t in range(len(rr))]
        z = [(i >> (len(rr) + t)) & 1 for t in range(len(jp))]
        dst0 = 0
        send0 = 0
        lane0 = 0
        for t, j in enumerate(rr):
            if bits_rr[t]:
                dst0 |= 1 << j
                tgt = kinds_r[j][1]
                if tgt is not None:
                    send0 ^= 1 << tgt
        dst_bits = [0] * nl
        src_bits = [0] * nl
        send_bits = [0] * nl
        for k, (kd, tgt) in enumerate(kinds_l):
            if kd == "l" and tgt is not None:
                src_bits[k] = 1 << tgt
        for p, (j, k) in enumerate(zip(jp, kp)):
            a_p = kinds_r[j][1]
            r_p = kinds_l[k][1]
            assert a_p is not None and r_p is not None
            if z[p]:
                dst0 |= 1 << j
                lane0 ^= 1 << a_p
                send0 ^= 1 << r_p
            dst_bits[k] = 1 << j
            src_bits[k] ^= 1 << a_p
            send_bits[a_p] = 1 << r_p
        if not any(z):
            groups.append((send0, dst0))
        rounds.append(ShuffleRound(dst_vec=dst0, src_lane0=lane0, src_lane_bits=tuple(src_bits),
                                   src_lane_warp_bits=tuple(0 for _ in b.warp), send_reg0=send0,
                                   send_reg_bits=tuple(send_bits), send_reg_warp_bits=tuple(0 for _ in a.warp),
                                   dst_vec_bits=tuple(dst_bits)))
    return ShufflePlan(vec, tuple(rounds), TransposeGroups(tuple(groups), pairs))  # type: ignore[arg-type]
