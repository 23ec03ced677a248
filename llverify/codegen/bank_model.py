"""Which shared-memory bank rule a target follows: one :class:`BankModel` value per hardware family.

A model says how many banks of how many bytes serve one wavefront and how many lanes a warp (wave)
has; a vector access of ``v`` bytes per lane is split into phases of ``banks * bank_bytes / max(v,
bank_bytes)`` consecutive lanes, and each phase costs the largest number of distinct words one bank must
serve (lemma 9.4's wavefronts).  :func:`llverify.codegen.bank_sim.simulate_wavefronts` implements exactly
this rule for any lane count, so it decides the count for every model by enumerating every instruction.

* ``NVIDIA``: 32 banks x 4 bytes, 32 lanes (sm_80 .. sm_100; measured on the H200, docs/gpu.md).
* ``AMD_CDNA3``: the LDS of gfx90a / gfx942: 32 banks x 4 bytes, 64 lanes; a wave64 access is served
  in phases of 128 bytes: 32 lanes for ``ds_read/write_b32``, 16 for ``_b64``, 8 for ``_b128``
  (AMD's OpenCL optimisation guide: conflicts are checked per half wavefront for 32-bit accesses;
  ROCm Composable Kernel's LDS bank-conflict notes: ``ds_write_b128`` runs in 8 phases of 8 lanes).
* gfx950 (CDNA4) is not modelled: ROCm's notes say LDS has "32 or 64 banks depending on the
  architecture" without saying which for gfx950, and nothing was measured here, so a count for it would
  be a guess; :func:`bank_model_for_target` refuses it.

>>> bank_model_for_target("hip:gfx942").lanes, bank_model_for_target("cuda:90").lanes
(64, 32)
>>> AMD_CDNA3.lanes_per_phase(16), NVIDIA.lanes_per_phase(8)
(8, 16)
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.errors import LayoutError

__all__ = ["BankModel", "NVIDIA", "AMD_CDNA3", "bank_model_for_target"]


@dataclass(frozen=True)
class BankModel:
    """``banks`` banks of ``bank_bytes`` bytes serving a warp of ``lanes`` lanes (see the module docstring)."""

    name: str
    banks: int
    bank_bytes: int
    lanes: int
    source: str

    def lanes_per_phase(self, vec_bytes: int) -> int:
        """Lanes served together by one phase for a ``vec_bytes``-byte access per lane."""
        return max(1, min(self.lanes, self.banks * self.bank_bytes // max(vec_bytes, self.bank_bytes)))


NVIDIA = BankModel("nvidia", 32, 4, 32, "CUDA programming guide; H200 Nsight Compute counters (docs/gpu.md)")
AMD_CDNA3 = BankModel("amd-cdna3-lds", 32, 4, 64, "AMD OpenCL optimisation guide (half-wavefront checks for 32-bit "
                      "accesses); ROCm Composable Kernel LDS bank-conflict notes (ds_write_b128: 8 phases of 8 lanes)")


def bank_model_for_target(target: str) -> BankModel:
    """The bank model of a ``ttg.target`` string (``"cuda:90"``, ``"hip:gfx942"``)."""
    backend, _, arch = target.partition(":")
    if backend == "cuda":
        return NVIDIA
    if backend == "hip" and arch.split(":")[0] in ("gfx90a", "gfx940", "gfx941", "gfx942"):
        return AMD_CDNA3
    raise LayoutError(f"no bank model for target {target!r}: modelled are NVIDIA (cuda:*) and CDNA3 LDS "
                      "(hip:gfx90a, hip:gfx942); gfx950's LDS bank count is not established")
