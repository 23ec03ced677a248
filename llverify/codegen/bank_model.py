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
* ``AMD_CDNA3`` (gfx90a, gfx940-942): 32 banks x 4 bytes, 64 lanes.  ``ds_read/write_b32`` and narrower:
  half waves of 32 consecutive lanes (AMD OpenCL optimisation guide, LDS section: conflicts are checked per
  half wavefront); ``_b64``: 16 consecutive lanes (128 bytes); ``ds_write_b128``: 8 consecutive lanes (ROCm
  Composable Kernel docs, ``docs/conceptual/ck_tile/hardware/lds_bank_conflicts.rst``, "lane0~lane7, ...").
  ``ds_read_b128``: the same CK page lists the 8-lane groups ``0:3+20:23, 4:7+16:19, 8:11+28:31, ...``,
  i.e. ``span(1, 2, 20)``; Triton's AMD backend (``third_party/amd/lib/TritonAMDGPUToLLVM/TargetInfo.cpp``,
  ``getSharedLdStTiles``: CDNA3 128-bit load tile lane bits ``{0, 1, 4}``) uses ``span(1, 2, 16)``.  Both are
  candidates.
* ``AMD_CDNA4`` (gfx950): 64 banks x 4 bytes, 64 lanes (Triton ``TargetInfo::getSharedMemoryBanks``: 64 for
  CDNA4 and GFX1250; HipKittens' microbenchmarks on an MI355X, ``analysis/paper_experiments/phases/*/
  bank_results.txt``: first wrap-around at bank 64).  Phases measured by HipKittens
  (``phases/*/phase_results.txt``): ``ds_read_b64`` 32 consecutive lanes; ``ds_write_b64`` 16 consecutive
  lanes; ``ds_read_b128`` 16-lane groups ``span(1, 2, 12, 20)`` (``0:3+12:15+20:23+24:27``, ...); Triton's
  CDNA4 128-bit load tile lane bits ``{0, 1, 3, 4}`` give ``span(1, 2, 8, 16)`` instead: both candidates.
  Not established (raise): ``_b32`` and narrower, ``ds_write_b128`` (no measurement, no AMD document), and
  the transposed ``ds_read_b64_tr_b*`` (CDNA4 ISA section 11.4 describes the data movement, not the banks).
* RDNA (gfx10xx-gfx12xx) and gfx1250 are refused: the RDNA ISA guides describe 64 dword banks per WGP in two
  sets of 32, one set per SIMD pair, without saying how a wave32 access in WGP mode maps onto them, and no
  public source states gfx1250's phases (Triton's 64-bank count alone does not give them).

>>> bank_model_for_target("hip:gfx942").lanes, bank_model_for_target("cuda:90").lanes
(64, 32)
>>> AMD_CDNA3.lanes_per_phase(16), NVIDIA.lanes_per_phase(8)
(8, 16)
>>> [r.phase_of(20) for r in AMD_CDNA3.phase_rules(16, "load")]   # CK: with lane 0; Triton: with lane 4
[0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from llverify.errors import LayoutError

__all__ = ["PhaseRule", "BankModel", "NVIDIA", "AMD_CDNA3", "AMD_CDNA4", "consecutive", "bank_model_for_target",
           "DIRECTIONS"]

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

    Postcondition of :meth:`phase_of`: equal ids exactly for lanes of one coset of the span, ids numbered
    ``0, 1, ..`` in the order of the cosets' smallest lanes."""

    generators: tuple[int, ...]
    source: str

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
        """:meth:`phase_of` for lanes ``0 .. lanes-1`` (an int64 array)."""
        reps = np.array([self.representative(x) for x in range(lanes)], dtype=np.int64)
        _, ids = np.unique(reps, return_inverse=True)
        return ids.astype(np.int64)


def consecutive(k: int, source: str) -> PhaseRule:
    """``k`` consecutive lanes per phase (``k`` a power of two): ``span(1, 2, .., k/2)``."""
    return PhaseRule(tuple(1 << i for i in range(max(k, 1).bit_length() - 1)), source)


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

_CK = "ROCm Composable Kernel docs, conceptual/ck_tile/hardware/lds_bank_conflicts.rst"
_TRITON = "Triton AMD backend, TargetInfo.cpp getSharedLdStTiles"
_HK = "HipKittens microbenchmarks on MI355X (analysis/paper_experiments/phases)"

AMD_CDNA3 = BankModel(
    "amd-cdna3-lds", 32, 4, 64,
    "AMD OpenCL optimisation guide (half-wavefront checks for 32-bit accesses); " + _CK + " (ds_write_b128: 8 "
    "phases of 8 consecutive lanes)",
    rules=(("load", 16, (PhaseRule((1, 2, 20), _CK + " (ds_read_b128 groups 0:3+20:23, ..)"),
                         PhaseRule((1, 2, 16), _TRITON + " (CDNA3 128-bit load tile lane bits 0, 1, 4)"))),))

AMD_CDNA4 = BankModel(
    "amd-cdna4-lds", 64, 4, 64,
    "Triton AMD backend TargetInfo::getSharedMemoryBanks (64 for CDNA4); " + _HK + " (64 banks)",
    rules=(("load", 8, (consecutive(32, _HK + " (ds_read_b64: 32 consecutive lanes)"),)),
           ("store", 8, (consecutive(16, _HK + " (ds_write_b64: 16 consecutive lanes)"),)),
           ("load", 16, (PhaseRule((1, 2, 12, 20), _HK + " (ds_read_b128 groups 0:3+12:15+20:23+24:27, ..)"),
                         PhaseRule((1, 2, 8, 16), _TRITON + " (CDNA4 128-bit load tile lane bits 0, 1, 3, 4)")))),
    generic=False,
    unestablished="no AMD document or public measurement gives gfx950's phases for this width; known are "
                  "ds_read_b64, ds_write_b64 and ds_read_b128 (a narrow 8/16-bit load may also be lowered as "
                  "ds_read_b64_tr_b8/_b16, whose phases are not documented either)")

_CDNA3_ARCHS = ("gfx90a", "gfx940", "gfx941", "gfx942")
_RDNA_WHY = ("RDNA's LDS has 64 dword banks per WGP in two sets of 32, one per SIMD pair (RDNA ISA guides, "
             "'Local Data Share'); how a wave32 access in WGP mode maps onto them, and the per-width phases, "
             "are not documented")


def bank_model_for_target(target: str) -> BankModel:
    """The bank model of a ``ttg.target`` string (``"cuda:90"``, ``"hip:gfx942"``, ``"hip:gfx950"``).

    Raises ``LayoutError`` with the reason for a target without an established model."""
    backend, _, arch = target.partition(":")
    arch = arch.split(":")[0]
    if backend == "cuda":
        return NVIDIA
    if backend == "hip" and arch in _CDNA3_ARCHS:
        return AMD_CDNA3
    if backend == "hip" and arch == "gfx950":
        return AMD_CDNA4
    if backend == "hip" and arch == "gfx1250":
        raise LayoutError(f"no bank model for target {target!r}: gfx1250 has 64 LDS banks (Triton's AMD "
                          "TargetInfo) and wave32, but no public source states its per-width phase rule")
    if backend == "hip" and arch.startswith(("gfx10", "gfx11", "gfx12")):
        raise LayoutError(f"no bank model for target {target!r}: {_RDNA_WHY}")
    raise LayoutError(f"no bank model for target {target!r}: modelled are NVIDIA (cuda:*), CDNA3 "
                      "(hip:gfx90a, hip:gfx942) and CDNA4 (hip:gfx950) LDS")
