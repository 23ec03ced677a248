"""Warp-shuffle programs for the CUDA generator, read off ``llverify.codegen``'s plans (seed 000, section 5.4).

The planning lives in :mod:`llverify.codegen.shuffle`; this module only turns
a plan into straight-line steps on whole 32-bit words:

* ``method == "plan"`` (the default): ``llverify.codegen.shuffle_plan(A, B,
  bitwidth)`` and its word structure (``a_words``, ``b_words``,
  ``word_rounds``: per round k, ``src_lane(u) = c_k ^ S u``, sent word
  ``s_k ^ P_s t``, received word ``r_k ^ P_r u``, in-word position XOR
  ``q_k ^ Q u``, with ``S, P_s, P_r, Q`` the same in every round).  The
  kernel (i) packs A's registers into words (``a_words``: 2^|V| elements per
  word), (ii) applies ``P_s`` once as lane-conditional word swaps
  (:class:`Stage`: when ``parity(lane & cond)``, word j <-> word ``j ^
  xor``), so that afterwards word ``s_k`` of every lane is what it sends in
  round k, (iii) per round one ``__shfl_xor_sync`` (``S = 1``) or
  ``__shfl_sync`` to lane ``S(lane) ^ c_k`` of that fixed word, stored
  into fixed word ``r_k`` (constant in-word permutation ``q_k`` applied with
  ``__byte_perm``), (iv) applies ``P_r`` as word swaps and ``Q`` as
  lane-conditional byte permutations, (v) unpacks each B word once
  (``b_words``).  Selects act on whole words, never on candidates of single
  elements.  The same program runs in every warp, which the plan's
  ``warp_uniform`` says is right (``A(w) == B(w)``; checked).
* ``method == "transposition"`` (on request or when no plan exists):
  ``llverify.codegen.transposition_decomposition(A, B)`` as data exchanges
  (``D_{k+1}[x] = D_k[sigma_k(x)]``): register <-> register is a renaming,
  lane <-> lane one shuffle per register, register bit r <-> lane bit l is
  select, shuffle, select.

Example: f16 ``rowblocked -> mma v2`` at 64x64 (4 warps): 32 registers = 16
words, 16 rounds of ``__shfl_sync`` (``S`` moves lane bit 2 to 4), one
send stage (``P_s``: lane bit 4 swaps words j, j^1) and one receive stage
(lane bit 2): 16 shuffles and 32 word selects per conversion.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from llverify import f2
from llverify.codegen.shuffle import ShufflePlan, Transposition, shuffle_plan, transposition_decomposition
from llverify.errors import LayoutError
from llverify.gpu.tile import DistMap
from llverify.layout import LinearLayout

__all__ = ["Stage", "WordStep", "ShuffleProgram", "shuffle_program", "stages_of", "METHODS"]

METHODS = ("plan", "transposition")
LANES = 32
LANE_BITS = 5


@dataclass(frozen=True)
class Stage:
    """When ``parity(lane & cond)`` is 1: exchange word j with word ``j ^ xor`` (or element positions, for Q)."""

    cond: int
    xor: int

    def active(self, lane: int) -> bool:
        return bin(lane & self.cond).count("1") & 1 == 1


@dataclass(frozen=True)
class WordStep:
    """One round: read word ``send`` of lane ``S(lane) ^ src_xor``, permute positions by ``perm``, store in ``recv``."""

    src_xor: int
    send: int
    recv: int
    perm: int


def stages_of(cols: Sequence[int]) -> tuple[Stage, ...]:
    """A lane-linear XOR map ``f(u) = XOR_j u_j cols[j]`` as rank(cols) conditional stages.

    With ``b_i`` a basis of the image and ``cols[j] = XOR_i m_ij b_i``:
    ``f(u) = XOR_i parity(u & L_i) b_i`` with ``L_i = {j : m_ij = 1}``.
    Example: cols ``(0, 2, 2)`` -> one stage, cond ``0b110``, xor 2.
    """
    basis = [cols[j] for j in f2.pivot_columns(list(cols))]
    conds = [0] * len(basis)
    for j, c in enumerate(cols):
        combo = f2.solve(basis, c) if c else 0
        assert combo is not None
        for i in range(len(basis)):
            if combo >> i & 1:
                conds[i] |= 1 << j
    return tuple(Stage(m, b) for m, b in zip(conds, basis))


@dataclass(frozen=True)
class ShuffleProgram:
    """What the shuffle kernel does: codegen's word rounds (``plan``) or its transpositions (``transposition``)."""

    method: str
    elems_per_word: int                   # elements per 32-bit shfl (the plan's 2^|V|; 1 for transpositions)
    n_regs: int                           # registers per thread (A and B alike)
    lane_map: tuple[int, ...] = ()        # S: src_lane(u) = S(u) ^ src_xor
    a_words: tuple[tuple[int, ...], ...] = ()
    b_words: tuple[tuple[int, ...], ...] = ()
    send_stages: tuple[Stage, ...] = ()
    recv_stages: tuple[Stage, ...] = ()
    perm_stages: tuple[Stage, ...] = ()
    rounds: tuple[WordStep, ...] = ()
    steps: tuple[Transposition, ...] = ()
    source: str = ""                      # which codegen function the program came from

    @property
    def xor_shuffles(self) -> bool:
        return self.lane_map == tuple(1 << k for k in range(LANE_BITS))

    def local(self, rd: WordStep) -> bool:
        """Every lane reads itself: a register move, no ``shfl.sync``."""
        return self.xor_shuffles and rd.src_xor == 0

    @property
    def n_words(self) -> int:
        return len(self.a_words)

    @property
    def num_shuffles(self) -> int:
        """``shfl.sync`` per thread and conversion (local rounds and register renamings excluded)."""
        if self.method == "plan":
            return sum(1 for r in self.rounds if not self.local(r))
        per = {"register_swap": 0, "lane_swap": self.n_regs, "register_lane_swap": self.n_regs // 2}
        return sum(per[t.kind] for t in self.steps)

    @property
    def num_word_selects(self) -> int:
        """Lane-conditional word selects per thread and conversion (2 per swapped pair, 1 per permuted word)."""
        return self.n_words * (len(self.send_stages) + len(self.recv_stages) + len(self.perm_stages))


def _program_of_plan(plan: ShufflePlan, n_reg: int) -> ShuffleProgram | str:
    """The word program of a plan, or why not."""
    if not plan.word_rounds:
        return "the plan has no word structure"
    if not plan.warp_uniform:
        return "codegen's plan is for warp 0 and A, B hold different elements in other warps (A(w) != B(w))"
    if len(plan.src.bases.get("lane", ())) != LANE_BITS:
        return "the warp needs 32 lanes"
    lin = {f: plan.linear_part(f) for f in ("src_lane", "send_word", "recv_word", "word_perm")}
    if any(v is None for v in lin.values()):  # pragma: no cover (section 5.4: same linear part in every round)
        return "the rounds' affine maps do not share their linear parts"
    steps = tuple(WordStep(w.src_lane.c0, w.send_word.c0, w.recv_word.c0, w.word_perm.c0) for w in plan.word_rounds)
    n_words = len(plan.a_words)
    if sorted(s.send for s in steps) != list(range(n_words)) or sorted(s.recv for s in steps) != list(range(n_words)):
        return "the rounds do not send and receive every word once"
    if len(plan.b_words) != n_words or n_words * plan.elems_per_word != n_reg:
        return "A and B differ in words per thread"
    return ShuffleProgram("plan", plan.elems_per_word, n_reg, tuple(lin["src_lane"]),  # type: ignore[arg-type]
                          plan.a_words, plan.b_words, stages_of(lin["send_word"]),  # type: ignore[arg-type]
                          stages_of(lin["recv_word"]), stages_of(lin["word_perm"]),  # type: ignore[arg-type]
                          steps, source="llverify.codegen.shuffle_plan")


def shuffle_program(src: LinearLayout, dst: LinearLayout, bitwidth: int,
                    method: str | None = None) -> tuple[ShuffleProgram | None, str]:
    """(program, why): the program of ``method`` (default: ``plan``, else ``transposition``), or None and why not."""
    if method is not None and method not in METHODS:
        raise LayoutError(f"unknown shuffle method {method!r} (one of {METHODS})")
    a, b = DistMap.of(src), DistMap.of(dst)
    warp_note = "" if a.warp == b.warp else \
        "codegen's plan is for warp 0 and A, B hold different elements in other warps (A(w) != B(w))"
    reasons = []
    if method in (None, "plan"):
        try:
            plan = shuffle_plan(src, dst, bitwidth)
        except LayoutError as exc:
            reasons.append(f"shuffle_plan: {exc}")
        else:
            prog = _program_of_plan(plan, a.n_reg)
            if isinstance(prog, ShuffleProgram) and not warp_note:
                return prog, ""
            reasons.append(f"shuffle_plan: {warp_note or prog}")
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
