"""Which shared-memory bank rule a target follows: one :class:`BankModel` value per hardware family.

A model says how many banks of how many bytes serve a wave, how many lanes the wave has, and which lanes
one *phase* serves for each access width (a :class:`PhaseRule`).  A phase costs the largest number of
distinct ``bank_bytes`` words one bank must serve (lemma 9.4's wavefronts); the phases of an instruction
add up.  Lanes touching the same word share it (broadcast).

Phase rules are F2 subspaces of lane ids: lanes ``l, l'`` share a phase iff ``l XOR l'`` lies in the span
of the rule's ``generators``.  "Consecutive k lanes" is the span of ``1, 2, .., k/2``; AMD's ``ds_read_b128``
groups are not consecutive (below).  :func:`llverify.codegen.bank_sim.simulate_wavefronts` applies a rule
by enumeration, :func:`llverify.codegen.banks_phase.phase_wavefronts` in closed form.

Where two public sources disagree on the lanes of a phase, the model keeps both rules as *candidates*;
a count is then claimed only as the range over the candidates (exact when they agree).  Where no public
source states the rule for an access width, :meth:`BankModel.phase_rules` raises (an ``unknown``, never a
guess).

* ``NVIDIA``: 32 banks x 4 bytes, 32 lanes; a vector of ``n >= 1`` words per lane is served ``32 / n``
  consecutive lanes at a time (sm_80 .. sm_100; measured on the H200, docs/gpu.md).
* ``AMD_CDNA3`` (gfx90a, gfx940-942): 32 banks x 4 bytes, 64 lanes.  ``_b32`` and narrower: half waves of 32
  consecutive lanes; ``_b64``: 16 consecutive lanes; ``ds_read_b128``: the 8-lane groups ``0:3+20:23, 4:7+16:19,
  8:11+28:31, 12:15+24:27`` (``span(1, 2, 20)``: measured on MI300X by shark-ai and pyhip, stated by CK, AMD's
  dh_comms and Triton PR #11365, which replaced Triton's older tile ``{0, 1, 4}``); ``ds_write_b128``: 8
  consecutive lanes (CK, rocRoller) **or** the read groups (dh_comms states them for every 16-byte access): both
  candidates.
* ``AMD_CDNA4`` (gfx950): 64 banks x 4 bytes, 64 lanes, but not every access sees 64 banks (rules carry their
  own count).  ``ds_read_b128``: 16-lane groups ``span(1, 2, 12, 20)`` on 64 banks (measured by HipKittens and
  shark-ai, stated by Triton PR #11365); ``ds_read_b64``: 32 consecutive lanes on 64 banks (HipKittens,
  shark-ai, rocRoller); ``ds_read_b32`` and narrower: the whole wave in one phase (shark-ai measured the b32
  phase), on 64 **or** 32 banks (shark-ai infers 64 from its b64 sweep, rocRoller states 32): both candidates;
  writes as CDNA3 on 32 banks (HipKittens measured ``ds_write_b64``: 16 lanes, bank wrap at 32; rocRoller states
  gfx950 writes are gfx942's).  The transposed ``ds_read_b64_tr_b*`` reads are not modelled
  (:mod:`llverify.codegen.lds_transpose` says when Triton may emit them).
* Sub-word accesses (1 and 2 bytes, CDNA3 and CDNA4): AMD's dh_comms counts distinct words (two lanes on the two
  halves of one word are served together); the CK slide deck's rule "R2" serves them apart.  Both are kept
  (:func:`with_split_words`; ``PhaseRule.split_words``).
* ``AMD_RDNA3`` (gfx1100) and ``AMD_RDNA4`` (gfx1201): 32 banks x 4 bytes, wave32, reads only (shark-ai measured
  ``ds_read_b32``: 32 lanes, ``_b64``: 16 consecutive, ``_b128``: RDNA3 the CDNA3 groups, RDNA4 8 consecutive
  lanes); writes and sub-dword reads, other RDNA chips and gfx1250 raise.

>>> bank_model_for_target("hip:gfx942").lanes, bank_model_for_target("cuda:90").lanes
(64, 32)
>>> AMD_CDNA3.lanes_per_phase(16), NVIDIA.lanes_per_phase(8)
(8, 16)
>>> [r.phase_of(20) for r in AMD_CDNA3.phase_rules(16, "load")]   # measured: lane 20 reads with lane 0
[0]
>>> [AMD_CDNA4.banks_of(r) for r in AMD_CDNA4.phase_rules(8, "load") + AMD_CDNA4.phase_rules(8, "store")]
[64, 32]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from llverify.errors import LayoutError

__all__ = ["PhaseRule", "BankModel", "NVIDIA", "AMD_CDNA3", "AMD_CDNA4", "AMD_RDNA3", "AMD_RDNA4", "consecutive",
           "with_split_words", "bank_model_for_target", "DIRECTIONS"]

DIRECTIONS = ("load", "store")


@lru_cache(maxsize=256)
def _echelon(generators: tuple[int, ...]) -> tuple[int, ...]:
    """A reduced basis of ``span(generators)`` over F2, one vector per distinct leading bit (descending)."""
    basis: list[int] = []
    for g in generators:
        for b in basis:
            g = min(g, g ^ b)
        if g:
            basis.append(g)
            basis.sort(reverse=True)
    return tuple(basis)


@dataclass(frozen=True)
class PhaseRule:
    """Lanes ``l, l'`` share a phase iff ``l ^ l'`` is in ``span(generators)``; ``source`` says who states it.

    ``split_words``: for accesses narrower than a bank word, two lanes reading different bytes of one word are
    served as different words (the CK slide deck's rule "R2"; AMD's dh_comms counts distinct words instead).

    ``banks``, when set, is the number of banks this access sees (gfx950's 64-bank LDS serves ``ds_read_b64`` and
    ``ds_read_b128`` over 64 banks but its writes over 32: measured, see the module docstring); None means the
    model's own count (:meth:`BankModel.banks_of`).

    Postcondition of :meth:`phase_of`: equal ids exactly for lanes of one coset of the span, ids numbered
    ``0, 1, ..`` in the order of the cosets' smallest lanes."""

    generators: tuple[int, ...]
    source: str
    banks: int | None = None
    split_words: bool = False   # sub-word accesses share a bank word only at the same address (CK's "R2")

    @property
    def lanes_per_phase(self) -> int:
        return 1 << len(_echelon(self.generators))

    def representative(self, lane: int) -> int:
        """The smallest lane of ``lane``'s phase (its coset reduced by the span)."""
        for b in _echelon(self.generators):
            lane = min(lane, lane ^ b)
        return lane

    def phase_of(self, lane: int) -> int:
        """Index of ``lane``'s phase (cosets ordered by their smallest lane)."""
        rep = self.representative(lane)
        return sum(1 for r in range(rep) if self.representative(r) == r)

    def phase_ids(self, lanes: int) -> np.ndarray:
        """:meth:`phase_of` for lanes ``0 .. lanes-1`` (a read-only int64 array, computed once per rule and count)."""
        return _phase_ids(self, lanes)


@lru_cache(maxsize=256)
def _phase_ids(rule: PhaseRule, lanes: int) -> np.ndarray:
    reps = np.array([rule.representative(x) for x in range(lanes)], dtype=np.int64)
    _, ids = np.unique(reps, return_inverse=True)
    ids = ids.astype(np.int64).reshape(-1)
    ids.flags.writeable = False
    return ids


def consecutive(k: int, source: str, banks: int | None = None, split_words: bool = False) -> PhaseRule:
    """``k`` consecutive lanes per phase (``k`` a power of two): ``span(1, 2, .., k/2)``, over ``banks`` banks
    (None: the model's)."""
    return PhaseRule(tuple(1 << i for i in range(max(k, 1).bit_length() - 1)), source, banks, split_words)


def with_split_words(rules: tuple[PhaseRule, ...], source: str) -> tuple[PhaseRule, ...]:
    """``rules`` and, for each, its twin under which sub-word accesses to different bytes of one word conflict
    (both kept as candidates: the sources disagree, see the module docstring)."""
    return rules + tuple(PhaseRule(r.generators, r.source + "; sub-word bytes of one word served apart: " + source,
                                   r.banks, True) for r in rules)


@dataclass(frozen=True)
class BankModel:
    """``banks`` banks of ``bank_bytes`` bytes serving a wave of ``lanes`` lanes (see the module docstring).

    ``rules`` lists ``(direction, vec_bytes, candidates)`` exceptions; other widths follow the generic rule
    (consecutive lanes filling ``banks * bank_bytes`` bytes) when ``generic`` holds, and are not established
    (``unestablished`` says why) otherwise."""

    name: str
    banks: int
    bank_bytes: int
    lanes: int
    source: str
    rules: tuple[tuple[str, int, tuple[PhaseRule, ...]], ...] = ()
    generic: bool = True
    unestablished: str = ""

    def banks_of(self, rule: PhaseRule) -> int:
        """The bank count ``rule``'s access sees: its own where it states one, else the model's."""
        return self.banks if rule.banks is None else rule.banks

    def lanes_per_phase(self, vec_bytes: int) -> int:
        """Lanes of one phase under the generic rule for a ``vec_bytes``-byte access per lane."""
        return max(1, min(self.lanes, self.banks * self.bank_bytes // max(vec_bytes, self.bank_bytes)))

    def phase_rules(self, vec_bytes: int, direction: str = "load") -> tuple[PhaseRule, ...]:
        """The candidate phase rules of a ``vec_bytes``-byte per lane ``direction`` access (``load``/``store``).

        Raises ``LayoutError`` where no public source establishes the rule."""
        if direction not in DIRECTIONS:
            raise LayoutError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
        for d, v, candidates in self.rules:
            if d == direction and v == vec_bytes:
                return candidates
        if self.generic:
            return (consecutive(self.lanes_per_phase(vec_bytes), self.source),)
        instr = {"load": "ds_read", "store": "ds_write"}[direction]
        raise LayoutError(f"{self.name}: the LDS phase rule of {instr}_b{8 * vec_bytes} is not established "
                          f"({self.unestablished})")


NVIDIA = BankModel("nvidia", 32, 4, 32, "CUDA programming guide; H200 Nsight Compute counters (docs/gpu.md)")

# Sources (docs/hw.md, "LDS bank models", says what each one measured or stated):
_CK = "ROCm Composable Kernel docs, conceptual/ck_tile/hardware/lds_bank_conflicts.rst (stated)"
# (no word the module cache takes for a passing condition, such as "memory", in a source: verdicts quote them)
_DH = ("AMD dh_comms (AMDResearch/dh_comms, its LDS analysis handler's conflict_set): stated for 32-bank CDNA "
       "by access size, any direction")
_ROCROLLER = ("AMD rocRoller (ROCm/rocm-libraries shared/rocroller, Scheduling/LDSModel: getThreadsPerClock, "
              "getNumLDSBanks): stated")
_TRITON_11365 = "Triton PR #11365 (AMD, 2026-08, DS_READ_B128 phase groups for MI300 and MI350): stated"
_SHARK = "nod-ai/amd-shark-ai docs/empirical-lds (latency, rocprof counters): measured"
_PYHIP = "pyhip 'Measuring bank-conflict behaviour' README (MI300 timings): measured"
_HK = "HipKittens analysis/paper_experiments/phases on MI355X (SQ_LDS_BANK_CONFLICT): measured"

_CK_READ_B128 = (1, 2, 20)        # 0:3+20:23, 4:7+16:19, 8:11+28:31, 12:15+24:27 (and +32)

_CK_SLIDES = ("CK slide deck 'LDS Bank Conflicts on CDNA' (A. H. Ghamarian, 2026-04-21, composable_kernel branch "
              "aghamari/ua-on-develop-v2, bank_conflict_slides.html), rule R2: stated, MI300 totals ambiguous")
_CDNA3_HALF_WAVE = consecutive(32, "b8/b16 in half waves, distinct words count: " + _DH + "; AMD OpenCL guide")

AMD_CDNA3 = BankModel(
    "amd-cdna3-lds", 32, 4, 64,
    "32 banks (shark-ai MI300X sweep; pyhip MI300); b32 and narrower: half waves (AMD OpenCL optimisation "
    "guide; dh_comms; shark-ai measured ds_read_b32); b64: 16 lanes (dh_comms; pyhip and shark-ai measured "
    "ds_read_b64)",
    rules=(("load", 16, (PhaseRule(_CK_READ_B128, "ds_read_b128 groups 0:3+20:23, ..: " + "; ".join(
                (_SHARK + " on MI300X", _PYHIP, _CK, _DH, _TRITON_11365))),)),
           ("store", 16, (consecutive(8, "ds_write_b128: 8 consecutive lanes: " + _CK + "; " + _ROCROLLER),
                          PhaseRule(_CK_READ_B128, "16-byte accesses in the read groups 0:3+20:23, ..: " + _DH))),
           *((d, v, with_split_words((_CDNA3_HALF_WAVE,), _CK_SLIDES)) for d in DIRECTIONS for v in (1, 2))))

# gfx950 (CDNA4): 64 banks serve ds_read_b64 / ds_read_b128 (HipKittens: first wrap at bank 64; shark-ai: b64
# latency saturates at a 256-byte stride; rocRoller: 64 banks only for those); writes stay on 32-bank CDNA3
# phases (HipKittens ds_write_b64: conflict at banks 32, 64 and 96; rocRoller: gfx950 writes as gfx942).
_CDNA4_NARROW_READ = (
    consecutive(64, "b32 and narrower reads: the whole wave in one phase (" + _SHARK + " on MI350X: ds_read_b32 "
                    "T0-T63), 64 banks (shark-ai's inference from its b64 sweep)", banks=64),
    consecutive(64, "b32 and narrower reads: the whole wave in one phase (" + _SHARK + " on MI350X), 32 banks ("
                    + _ROCROLLER + ": 64 banks for ds_read_b64/b128 only)", banks=32))
_CDNA4_WRITE_B128 = (consecutive(8, "ds_write_b128: 8 consecutive lanes on 32 banks: " + _ROCROLLER + "; " + _CK,
                                 banks=32),
                     PhaseRule(_CK_READ_B128, "16-byte accesses in the read groups, 32 banks: " + _DH + "; "
                               + _ROCROLLER + " (gfx950 writes as gfx942)", banks=32))

AMD_CDNA4 = BankModel(
    "amd-cdna4-lds", 64, 4, 64,
    "64 banks: Triton AMD TargetInfo (64 for CDNA4), HipKittens, shark-ai; per width and direction below",
    rules=(("load", 16, (PhaseRule((1, 2, 12, 20), "ds_read_b128 groups 0:3+12:15+20:23+24:27, .., 64 banks: "
                                   + "; ".join((_HK, _SHARK + " on MI350X", _TRITON_11365)), banks=64),)),
           ("load", 8, (consecutive(32, "ds_read_b64: 32 consecutive lanes, 64 banks: " + "; ".join(
                (_HK, _SHARK + " on MI350X", _ROCROLLER)), banks=64),)),
           ("load", 4, _CDNA4_NARROW_READ),
           ("load", 2, with_split_words(_CDNA4_NARROW_READ, _CK_SLIDES)),
           ("load", 1, with_split_words(_CDNA4_NARROW_READ, _CK_SLIDES)),
           ("store", 16, _CDNA4_WRITE_B128),
           ("store", 8, (consecutive(16, "ds_write_b64: 16 consecutive lanes, 32 banks: " + _HK + " (phases; "
                                     "bank wrap at 32); " + _ROCROLLER, banks=32),)),
           ("store", 4, (consecutive(32, "ds_write_b32: half waves on 32 banks: " + _ROCROLLER, banks=32),)),
           ("store", 2, with_split_words((consecutive(32, "ds_write_b16: as b32 (" + _ROCROLLER + " rounds "
                                                      "sub-dword accesses to a dword; " + _DH + ")", banks=32),),
                                         _CK_SLIDES)),
           ("store", 1, with_split_words((consecutive(32, "ds_write_b8: as b32 (" + _ROCROLLER + " rounds "
                                                      "sub-dword accesses to a dword; " + _DH + ")", banks=32),),
                                         _CK_SLIDES))),
    generic=False,
    unestablished="no AMD document or public measurement gives gfx950's phases for this width")

# RDNA: wave32, 32 banks seen by a wave (shark-ai: ds_read_b32/b64/b128 latency saturates at a 128-byte stride).
# Only reads were measured; writes and sub-dword reads stay unknown.
AMD_RDNA3 = BankModel(
    "amd-rdna3-lds", 32, 4, 32, _SHARK + " on W7900 (gfx1100)",
    rules=(("load", 4, (consecutive(32, "ds_read_b32: one phase of 32 lanes: " + _SHARK + " on gfx1100"),)),
           ("load", 8, (consecutive(16, "ds_read_b64: 16 consecutive lanes: " + _SHARK + " on gfx1100"),)),
           ("load", 16, (PhaseRule(_CK_READ_B128, "ds_read_b128 groups 0:3+20:23, 4:7+16:19, ..: " + _SHARK
                                   + " on gfx1100"),))),
    generic=False,
    unestablished="measured on gfx1100 are only ds_read_b32, ds_read_b64 and ds_read_b128 (nod-ai/amd-shark-ai "
                  "docs/empirical-lds); no source gives RDNA3's write or sub-dword phases")

AMD_RDNA4 = BankModel(
    "amd-rdna4-lds", 32, 4, 32, _SHARK + " on RX 9070 XT (gfx1201)",
    rules=(("load", 4, (consecutive(32, "ds_read_b32: one phase of 32 lanes: " + _SHARK + " on gfx1201"),)),
           ("load", 8, (consecutive(16, "ds_read_b64: 16 consecutive lanes: " + _SHARK + " on gfx1201"),)),
           ("load", 16, (consecutive(8, "ds_read_b128: 8 consecutive lanes: " + _SHARK + " on gfx1201"),))),
    generic=False,
    unestablished="measured on gfx1201 are only ds_read_b32, ds_read_b64 and ds_read_b128 (nod-ai/amd-shark-ai "
                  "docs/empirical-lds); no source gives RDNA4's write or sub-dword phases")

_CDNA3_ARCHS = ("gfx90a", "gfx940", "gfx941", "gfx942")


def bank_model_for_target(target: str) -> BankModel:
    """The bank model of a ``ttg.target`` string (``"cuda:90"``, ``"hip:gfx942"``, ``"hip:gfx950"``,
    ``"hip:gfx1100"``, ``"hip:gfx1201"``).

    Raises ``LayoutError`` with the reason for a target without an established model."""
    backend, _, arch = target.partition(":")
    arch = arch.split(":")[0]
    if backend == "cuda":
        return NVIDIA
    if backend == "hip" and arch in _CDNA3_ARCHS:
        return AMD_CDNA3
    if backend == "hip" and arch == "gfx950":
        return AMD_CDNA4
    if backend == "hip" and arch == "gfx1100":
        return AMD_RDNA3
    if backend == "hip" and arch == "gfx1201":
        return AMD_RDNA4
    if backend == "hip" and arch == "gfx1250":
        raise LayoutError(f"no bank model for target {target!r}: gfx1250 has 64 LDS banks (Triton's AMD "
                          "TargetInfo) and wave32, but no public source states its per-width phase rule")
    if backend == "hip" and arch.startswith(("gfx10", "gfx11", "gfx12")):
        raise LayoutError(f"no bank model for target {target!r}: RDNA LDS phases are measured only on gfx1100 "
                          "and gfx1201 (nod-ai/amd-shark-ai docs/empirical-lds)")
    raise LayoutError(f"no bank model for target {target!r}: modelled are NVIDIA (cuda:*), CDNA3 "
                      "(hip:gfx90a, hip:gfx942), CDNA4 (hip:gfx950) and RDNA (hip:gfx1100, hip:gfx1201) LDS")
