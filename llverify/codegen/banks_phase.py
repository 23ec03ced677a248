"""Bank wavefronts in closed form for any :class:`~llverify.codegen.bank_model.BankModel` and phase rule.

Lemma 9.4 generalised from NVIDIA's "consecutive lanes" phases to a phase that is any coset of a lane
subspace ``P = span(g_1, .., g_k)`` (AMD's ``ds_read_b128`` groups, :mod:`llverify.codegen.bank_model`).

Let ``cvt = S^-1 L`` map hardware to shared offsets (linear, no padding), ``w(o)`` the bank word of an
offset (``o * bits / 8`` bytes shifted right by ``log2(bank_bytes)``: linear over F2), ``n = max(1,
vec_bytes / bank_bytes)`` the words of one lane's aligned vector, and

    W = span({w(cvt(lane = g)) : g in P} ∪ {1, 2, .., n/2})

(under a ``split_words`` rule and an access narrower than a word, ``w`` counts in units of the access and the
bank of a unit is its word's bank: ``R`` below is then the units whose bank bits are zero)

the words one phase touches (up to a translation: every phase of every instruction is a translate of
``W``, because ``cvt`` is linear).  ``banks`` is the count the rule's access sees
(:meth:`~llverify.codegen.bank_model.BankModel.banks_of`).  Two words share a bank iff their XOR is
``0 mod banks``, so every bank
a phase hits serves ``|W ∩ R|`` distinct words, ``R = {x : x mod banks == 0}``, and

    wavefronts = (lanes / |P|) * 2 ** dim(W ∩ R),   dim(W ∩ R) = rank W - rank(W mod banks).

For NVIDIA's rule (``P`` = the low ``log2(32 / n)`` lane bits) this is :func:`banks.bank_wavefronts`.
:func:`llverify.codegen.bank_sim.simulate_wavefronts` computes the same count by enumerating every
instruction; ``tests/test_bank_models_amd.py`` checks they agree on random layouts for every model.

>>> from llverify.hw import build
>>> from llverify.codegen.bank_model import AMD_CDNA4
>>> acc = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
...             order=[1, 0])
>>> sh = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
>>> [c.wavefronts for c in phase_wavefronts(acc, sh, 16, AMD_CDNA4, "load").counts]   # ds_read_b128
[4]
>>> [c.wavefronts for c in phase_wavefronts(acc, sh, 16, AMD_CDNA4, "store").counts]  # ds_write_b128
[8, 8]

(16-byte accesses of rows of 128 bytes: a read phase's 16 lanes cover 4 rows at distinct banks of 64; each of the
two write candidates, 8 consecutive lanes or dh_comms' groups ``0:3+20:23, ..``, covers 32 distinct banks of 32.)
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.bank_model import BankModel, PhaseRule
from llverify.codegen.banks import access_to_offsets
from llverify import f2
from llverify.codegen.common import check_bitwidth, log2
from llverify.codegen.vectorize import VectorPlan, largest_vectorisation
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["RuleCount", "PhaseCount", "phase_wavefronts", "rule_wavefronts"]


@dataclass(frozen=True)
class RuleCount:
    """Wavefronts of every instruction under one phase rule (``source`` names the rule's evidence)."""

    source: str
    wavefronts: int
    phases: int
    conflict_dim: int


@dataclass(frozen=True)
class PhaseCount:
    """:func:`phase_wavefronts`' answer: the vector used and one :class:`RuleCount` per candidate rule."""

    vector: VectorPlan
    counts: tuple[RuleCount, ...]

    @property
    def exact(self) -> bool:
        return len({c.wavefronts for c in self.counts}) == 1


def rule_wavefronts(lane_offsets: list[int], bitwidth: int, vec_bytes: int, model: BankModel,
                    rule: PhaseRule) -> RuleCount:
    """The closed form for one rule.  ``lane_offsets[j]`` is the shared offset of lane ``2^j`` (lane 0 at 0).

    Requires: every generator of ``rule`` is a lane id below ``2 ** len(lane_offsets)``."""
    lanes = 1 << len(lane_offsets)
    # the unit two lanes must share to be served together: a bank word, or (split_words) the sub-word access
    unit = vec_bytes if rule.split_words and vec_bytes < model.bank_bytes else model.bank_bytes
    shift = log2(unit)
    words_per_lane = max(1, vec_bytes // model.bank_bytes)
    words = []
    for g in rule.generators:
        if g >= lanes:
            raise LayoutError(f"phase generator lane {g} is beyond the wave's {lanes} lanes")
        off = 0
        for j, o in enumerate(lane_offsets):
            if g >> j & 1:
                off ^= o
        words.append((off * bitwidth // 8) >> shift)
    words += [1 << j for j in range(log2(words_per_lane))]
    # bank of unit u: bits [sub, sub + log2 banks) of u, sub = log2(bank_bytes / unit)
    bank_mask = (model.banks_of(rule) - 1) << log2(model.bank_bytes // unit)
    dim = f2.rank(words) - f2.rank([w & bank_mask for w in words])
    phases = lanes // rule.lanes_per_phase
    return RuleCount(rule.source, phases << dim, phases, dim)


def phase_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int, model: BankModel,
                     direction: str = "load", vector: VectorPlan | None = None) -> PhaseCount:
    """Wavefronts per wave-level instruction of ``access`` on ``shared`` under each candidate phase rule of
    ``model`` for the access width and ``direction`` (see the module docstring).

    Requires: ``access`` has ``model.lanes`` lanes.  The vector defaults to the largest one ``S^-1 L``
    divides (as the simulator picks it).  Raises ``LayoutError`` where the model establishes no rule."""
    check_bitwidth(bitwidth)
    cvt = access_to_offsets(access, shared)
    lanes = cvt.in_dim_size("lane") if cvt.has_in_dim("lane") else 0
    if lanes != model.lanes:
        raise LayoutError(f"the access has {lanes} lanes, the {model.name} bank model {model.lanes}")
    if vector is None:
        vector = largest_vectorisation(cvt, bitwidth, "offset")
    vec_bytes = max(1, vector.elems * bitwidth // 8)
    k = list(cvt.out_dim_names).index("offset")
    lane_offsets = [b[k] for b in cvt.bases["lane"]]
    rules = model.phase_rules(vec_bytes, direction)
    return PhaseCount(vector, tuple(rule_wavefronts(lane_offsets, bitwidth, vec_bytes, model, r) for r in rules))
