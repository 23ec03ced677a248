"""The value types of a warp-shuffle plan (seed 000, section 5.4): rounds, affine lane maps, the plan.

Kept apart from the planners (:mod:`llverify.codegen.shuffle`, :mod:`llverify.codegen.shuffle_broadcast`) so
both build plans without importing each other; :mod:`llverify.codegen.shuffle` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from llverify import f2
from llverify.layout import LinearLayout

__all__ = ["ShuffleRound", "LaneMap", "WordRound", "ShufflePlan"]


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
class LaneMap:
    """An affine map of the lane bits: ``f(u) = c0 ^ XOR over set bits j of u of cols[j]``.

    Example: ``LaneMap(1, (0, 2)).at(3) == 1 ^ 2 == 3``.
    """

    c0: int
    cols: tuple[int, ...]

    def at(self, u: int) -> int:
        return self.c0 ^ f2.combine(self.cols, u & ((1 << len(self.cols)) - 1))

    @property
    def is_identity(self) -> bool:
        return self.c0 == 0 and self.cols == tuple(1 << j for j in range(len(self.cols)))

    def to_json(self) -> dict:
        return {"c0": self.c0, "cols": list(self.cols)}


@dataclass(frozen=True)
class WordRound:
    """Round k at word granularity (see the module docstring), each an affine :class:`LaneMap`.

    ``src_lane(u)``: the lane u reads.  ``send_word(t)``: the A word
    (index into ``ShufflePlan.a_words``) lane t sends.  ``recv_word(u)``: the B
    word (``ShufflePlan.b_words``) lane u stores it in.  ``word_perm(u)``: the
    element at sent position p goes to position ``p ^ word_perm(u)``.
    """

    src_lane: LaneMap
    send_word: LaneMap
    recv_word: LaneMap
    word_perm: LaneMap

    def to_json(self) -> dict:
        return {"src_lane": self.src_lane.to_json(), "send_word": self.send_word.to_json(),
                "recv_word": self.recv_word.to_json(), "word_perm": self.word_perm.to_json()}


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
    a_words: tuple[tuple[int, ...], ...] = ()     # A word w, position p -> src register
    b_words: tuple[tuple[int, ...], ...] = ()     # B word w, position p -> dst register
    word_rounds: tuple[WordRound, ...] = ()
    warp_uniform: bool = True                     # A and B agree on every warp/block basis
    # broadcast-aware plans (llverify.codegen.shuffle_broadcast): per warp / block bit, the (register XOR,
    # lane XOR) that moves warp 0's source slots to that warp's copies; dst_copy[r] = the register that
    # register r copies after the rounds (() = none); psi = the lane -> register map of the rounds
    warp_shifts: tuple[tuple[int, int], ...] = ()
    block_shifts: tuple[tuple[int, int], ...] = ()
    dst_copy: tuple[int, ...] = ()
    broadcast: bool = False
    psi: tuple[int, ...] = ()
    serialised_lanes: tuple[int, ...] = ()

    def shift(self, warp: int, block: int) -> tuple[int, int]:
        """(register XOR, lane XOR) of the source slots in ``warp``/``block`` relative to warp 0, block 0."""
        r = l = 0
        for v, sh in ((warp, self.warp_shifts), (block, self.block_shifts)):
            for j, (rj, lj) in enumerate(sh):
                if v >> j & 1:
                    r, l = r ^ rj, l ^ lj
        return r, l

    @property
    def elems_per_word(self) -> int:
        return 1 << len(self.V)

    def linear_part(self, field: str) -> tuple[int, ...] | None:
        """The lane-linear part of ``word_rounds[k].<field>`` if it is the same in every round, else None."""
        parts = {getattr(w, field).cols for w in self.word_rounds}
        return next(iter(parts)) if len(parts) == 1 else None

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
        return replace(self, rounds=tuple(rounds))

    def with_word_round(self, k: int, wr: WordRound) -> "ShufflePlan":
        """A copy with word round ``k`` replaced (mutants in tests)."""
        wrs = list(self.word_rounds)
        wrs[k] = wr
        return replace(self, word_rounds=tuple(wrs))

    def to_json(self) -> dict:
        return {"bitwidth": self.bitwidth, "V": list(self.V), "I": list(self.I), "E": list(self.E),
                "F": list(self.F), "G": list(self.G), "R": list(self.R), "num_rounds": self.num_rounds,
                "elems_per_shuffle": self.elems_per_shuffle, "warp_uniform": self.warp_uniform,
                "a_words": [list(w) for w in self.a_words], "b_words": [list(w) for w in self.b_words],
                "word_rounds": [w.to_json() for w in self.word_rounds], "broadcast": self.broadcast,
                "warp_shifts": [list(p) for p in self.warp_shifts], "block_shifts": [list(p) for p in self.block_shifts],
                "dst_copy": list(self.dst_copy), "psi": list(self.psi),
                "serialised_lanes": list(self.serialised_lanes),
                "rounds": [r.to_json() for r in self.rounds]}
