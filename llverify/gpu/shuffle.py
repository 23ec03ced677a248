"""Warp-shuffle programs for the CUDA generator, read off ``llverify.codegen``'s plans (seed 000, section 5.4).

The planning lives in :mod:`llverify.codegen.shuffle`; this module only turns
a plan into what straight-line CUDA needs, without tables in memory:

* ``method == "plan"`` (the default): ``llverify.codegen.shuffle_plan(A, B,
  bitwidth)``.  Its round k gives, per lane, ``src_lane[u]``, the A
  registers lane t packs into one 32-bit word (``send_regs[t]``) and the B
  registers lane u unpacks it into (``recv_regs[u]``), for warp 0.  Each
  of these is fitted as an affine map of the lane bits (:class:`LaneAffine`;
  a layout is linear, so they are): the source lane becomes an XOR of
  constants selected by lane bits, the sent register a select over the few
  lane bits it depends on (sender select), the received one a predicated
  XOR into the candidates (receiver select).  The same program runs in
  every warp, which is right when A and B put the same elements in every
  warp (``A(w) == B(w)``; checked).
* ``method == "transposition"`` (used when no plan exists, or on request):
  ``llverify.codegen.transposition_decomposition(A, B)`` factors ``cvt``
  into bit transpositions.  Applied in order as data exchanges
  (``D_{k+1}[x] = D_k[sigma_k(x)]``), they leave ``D_0[cvt(x)]``:
  register <-> register is a renaming, lane <-> lane one shuffle per
  register, register bit r <-> lane bit l is select, shuffle, select (each
  lane sends its register whose bit r differs from its lane bit l to lane
  ``lane ^ 2^l`` and stores what it gets in the same register).

Example: f16 ``mma v2 -> dot operand A`` (k_width 2) at 64x64 has a plan of
16 rounds that are all local (every ``src_lane[u] == u``): register moves,
no ``shfl.sync``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from llverify.codegen import ShuffleRound, Transposition, shuffle_plan, transposition_decomposition
from llverify.errors import LayoutError
from llverify.gpu.tile import DistMap
from llverify.layout import LinearLayout

__all__ = ["LaneAffine", "RoundCode", "ShuffleProgram", "shuffle_program", "METHODS"]

METHODS = ("plan", "transposition")
LANES = 32


@dataclass(frozen=True)
class LaneAffine:
    """``f(lane) = c0 ^ XOR over set bits k of lane of cols[k]`` (5 lane bits)."""

    c0: int
    cols: tuple[int, ...]

    @staticmethod
    def fit(values: Sequence[int]) -> "LaneAffine | None":
        """The affine map through 32 values, or None when they are not affine in the lane bits."""
        if len(values) != LANES:
            raise LayoutError(f"a per-lane table needs {LANES} entries, got {len(values)}")
        c0 = int(values[0])
        f = LaneAffine(c0, tuple(int(values[1 << k]) ^ c0 for k in range(5)))
        return f if all(f.at(u) == values[u] for u in range(LANES)) else None

    def at(self, lane: int) -> int:
        v = self.c0
        for k, c in enumerate(self.cols):
            if lane >> k & 1:
                v ^= c
        return v

    @property
    def varying_bits(self) -> tuple[int, ...]:
        return tuple(k for k, c in enumerate(self.cols) if c)


@dataclass(frozen=True)
class RoundCode:
    """One codegen :class:`~llverify.codegen.ShuffleRound` as lane-affine maps (one per payload slot)."""

    src_lane: LaneAffine
    send: tuple[LaneAffine, ...]     # slot i: the A register lane t packs at element i of the word
    recv: tuple[LaneAffine, ...]     # slot i: the B register lane u unpacks element i into

    @property
    def local(self) -> bool:
        """Every lane reads itself: a register move, no ``shfl.sync``."""
        return self.src_lane.c0 == 0 and self.src_lane.cols == tuple(1 << k for k in range(5))

    @staticmethod
    def of(rnd: ShuffleRound) -> "RoundCode | None":
        src = LaneAffine.fit(rnd.src_lane)
        n = len(rnd.send_regs[0])
        send = [LaneAffine.fit([s[i] for s in rnd.send_regs]) for i in range(n)]
        recv = [LaneAffine.fit([r[i] for r in rnd.recv_regs]) for i in range(n)]
        if src is None or any(x is None for x in send + recv):
            return None
        return RoundCode(src, tuple(send), tuple(recv))  # type: ignore[arg-type]


@dataclass(frozen=True)
class ShuffleProgram:
    """What the shuffle kernel does: codegen's rounds (``plan``) or its transpositions (``transposition``)."""

    method: str
    elems_per_word: int                   # elements per 32-bit shfl (the plan's 2^|V|; 1 for transpositions)
    n_regs: int                           # registers per thread (A and B alike)
    rounds: tuple[RoundCode, ...] = ()
    steps: tuple[Transposition, ...] = ()
    source: str = ""                      # which codegen function the program came from

    @property
    def num_shuffles(self) -> int:
        """``shfl.sync`` per thread and conversion (local rounds and register renamings excluded)."""
        if self.method == "plan":
            return sum(1 for r in self.rounds if not r.local)
        per = {"register_swap": 0, "lane_swap": self.n_regs, "register_lane_swap": self.n_regs // 2}
        return sum(per[t.kind] for t in self.steps)


def shuffle_program(src: LinearLayout, dst: LinearLayout, bitwidth: int,
                    method: str | None = None) -> tuple[ShuffleProgram | None, str]:
    """(program, why): the program of ``method`` (default: ``plan``, else ``transposition``), or None and why not."""
    if method is not None and method not in METHODS:
        raise LayoutError(f"unknown shuffle method {method!r} (one of {METHODS})")
    a, b = DistMap.of(src), DistMap.of(dst)
    # codegen's plans describe warp 0; the kernel runs them in every warp, which needs A(w) == B(w)
    warp_note = "" if a.warp == b.warp else \
        "codegen's plan is for warp 0 and A, B hold different elements in other warps (A(w) != B(w))"
    reasons = []
    if method in (None, "plan"):
        try:
            plan = shuffle_plan(src, dst, bitwidth)
        except LayoutError as exc:
            reasons.append(f"shuffle_plan: {exc}")
        else:
            rounds = [RoundCode.of(r) for r in plan.rounds]
            if warp_note:
                reasons.append(f"shuffle_plan: {warp_note}")
            elif all(r is not None for r in rounds):
                return ShuffleProgram("plan", plan.elems_per_shuffle, a.n_reg, tuple(rounds),  # type: ignore[arg-type]
                                      source="llverify.codegen.shuffle_plan"), ""
            else:
                reasons.append("shuffle_plan: a round's per-lane table is not affine in the lane bits")
    if method in (None, "transposition"):
        steps = transposition_decomposition(src, dst)
        if steps is None:
            reasons.append("transposition_decomposition: cvt is not a register/lane bit permutation")
        elif warp_note or a.n_reg != b.n_reg:
            reasons.append(f"transposition_decomposition: {warp_note or 'A and B differ in registers per thread'}")
        else:
            return ShuffleProgram("transposition", 1, a.n_reg, steps=tuple(steps),
                                  source="llverify.codegen.transposition_decomposition"), ""
    return None, "; ".join(reasons)
