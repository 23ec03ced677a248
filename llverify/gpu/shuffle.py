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


@dataclass(frozen=True)
class ShufflePlan:
    vec: int                      # elements per 32-bit shuffle word
    rounds: tuple[ShuffleRound, ...]


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
        plan = _plan(a, b, vec)
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
