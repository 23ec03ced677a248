"""Which matrix, copy and tensor-memory instructions a GPU target has: one declaration per instruction family.

A layout or op that only one instruction family can execute is wrong on a target without that family, whatever
its layouts: Triton's backends pick the instruction from the target (AccelerateMatmul's MMA version from the
compute capability, the AMD backend's MFMA / WMMA version from the gfx architecture), so a module whose ops ask
for an instruction its ``ttg.target`` lacks was made by a pass that chose wrongly, and it cannot be lowered.

Each :class:`Feature` states the targets that have it, from the vendor's instruction-set reference:

* ``mma.sync`` (Triton's ``#nvidia_mma`` version 2): sm_75 and later (PTX ISA: ``m16n8k8`` from sm_75,
  ``m16n8k16`` from sm_80); on fp8 operands (``.e4m3`` / ``.e5m2``, ``m16n8k32``) sm_89 and later (on sm_80 Triton
  converts fp8 operands to f16 before the dot).
* ``wgmma`` (version 3, ``ttng.warp_group_dot``): sm_90a only (PTX ISA: ``wgmma.mma_async`` requires sm_90a).
* ``tcgen05`` (``ttng.tc_gen5_mma``, tensor memory): the sm_100 family (sm_100a, sm_101a/110a, sm_103a), not
  sm_90 and not the consumer sm_120 family (PTX ISA: ``tcgen05.*`` requires sm_100a / sm_101a / sm_103a / sm_110a).
* block-scaled ``mma.sync`` (``tt.dot_scaled`` with an ``#nvidia_mma`` result): sm_120a / sm_121a.
* ``cp.async.bulk.tensor`` (TMA): sm_90 and later.  ``cp.async`` (LDGSTS): sm_80 and later.
* MFMA (``#amd_mfma``): the CDNA architectures, each up to its MFMA version (gfx908: 1, gfx90a: 2,
  gfx940-942: 3, gfx950: 4; AMD CDNA ISA references; Triton's ``getMfmaVersion``).
* WMMA (``#amd_wmma``): RDNA3 (gfx11*, version 1), RDNA4 (gfx1200/gfx1201, version 2), gfx1250 (version 3); the
  versions' register layouts differ, so a layout of one version is wrong on another's target.

A family that runs in one warp size only states it (``Feature.lanes``): every NVIDIA family in 32-lane warps, MFMA in
64-lane waves (CDNA has no wave32).  WMMA states none: RDNA runs it in wave32 and wave64.

Anything a declaration does not cover (an unknown gfx name, a compute capability below 70) is ``None``: no claim.

>>> sm80, sm90 = parse_target("cuda:80"), parse_target("cuda:90")
>>> has(sm80, "wgmma"), has(sm90, "wgmma"), has(sm90, "tcgen05"), has(parse_target("cuda:103"), "tcgen05")
(False, True, False, True)
>>> has(parse_target("hip:gfx942"), "mfma", 3), has(parse_target("hip:gfx942"), "mfma", 4)
(True, False)
>>> has(parse_target("hip:gfx1201"), "wmma", 2), has(parse_target("hip:gfx1100"), "wmma", 2), has(sm80, "wmma", 1)
(True, False, False)
>>> has(parse_target("hip:gfx1036"), "wmma", 1), has(parse_target("hip:gfx906"), "mfma", 1)  # RDNA2, Vega 20
(False, False)
>>> has(parse_target("hip:gfx1300"), "wmma", 3) is None  # an architecture the table does not name: no claim
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

__all__ = ["Target", "Feature", "FEATURES", "parse_target", "has"]


@dataclass(frozen=True)
class Target:
    """A ``ttg.target``: ``cuda`` with its compute capability (``cuda:90`` -> 90) or ``hip`` with its gfx name."""

    backend: str
    capability: int | None = None
    arch: str = ""


_CUDA = re.compile(r"cuda:([1-9][0-9]{1,2})")
_HIP = re.compile(r"hip:(gfx[0-9][0-9a-z]{0,5})")


def parse_target(text: str) -> Target | None:
    """The target ``text`` spells as Triton prints a ``ttg.target``, or None: ``cuda:N`` with N a compute
    capability of 2 or 3 digits without a leading zero (``cuda:80``, ``cuda:120``), ``hip:gfxX`` with X one to six
    lower-case letters or digits beginning with a digit (``hip:gfx90a``, ``hip:gfx1250``)."""
    m = _CUDA.fullmatch(text)
    if m:
        return Target("cuda", int(m.group(1)))
    m = _HIP.fullmatch(text)
    if m:
        return Target("hip", None, m.group(1))
    return None


#: CDNA architectures and the highest MFMA version each executes
_MFMA_VERSION = {"gfx908": 1, "gfx90a": 2, "gfx940": 3, "gfx941": 3, "gfx942": 3, "gfx950": 4}


def _wmma_version(arch: str) -> int | None:
    """The WMMA version of an AMD architecture: 0 where it has none, None where the table does not know it."""
    if arch in _MFMA_VERSION:
        return 0
    if arch == "gfx1250":
        return 3
    if arch in ("gfx1200", "gfx1201"):
        return 2
    if re.fullmatch(r"gfx11[0-9a-z]{2}", arch):
        return 1
    if re.fullmatch(r"gfx10[0-9a-z]{2}", arch) or re.fullmatch(r"gfx90[0-79c]", arch):
        return 0  # RDNA1/2 and GCN5 (Vega): no matrix instructions
    return None


def _cuda(lo: int, hi: int = 1000) -> Callable[[Target, int | None], bool | None]:
    def available(t: Target, version: int | None) -> bool | None:
        if t.backend != "cuda":
            return False
        assert t.capability is not None
        if t.capability < 70:
            return None
        return lo <= t.capability < hi
    return available


def _mfma(t: Target, version: int | None) -> bool | None:
    if t.backend != "hip":
        return False
    top = _MFMA_VERSION.get(t.arch)
    if top is None:
        return None if _wmma_version(t.arch) is None else False
    return version is None or 1 <= version <= top


def _wmma(t: Target, version: int | None) -> bool | None:
    if t.backend != "hip":
        return False
    own = _wmma_version(t.arch)
    if own is None:
        return None
    return own > 0 and (version is None or version == own)


@dataclass(frozen=True)
class Feature:
    """An instruction family: what it is and, for a target and (where the family has versions) a version,
    whether the target executes it (None: the table does not say)."""

    name: str
    description: str
    available: Callable[[Target, int | None], bool | None]
    lanes: int | None = None  # the warp (wave) size the instructions execute in, where they have only one


FEATURES: dict[str, Feature] = {f.name: f for f in (
    Feature("mma_v2", "mma.sync (#nvidia_mma version 2): sm_75 and later", _cuda(75), 32),
    Feature("mma_v2_fp8", "mma.sync on e4m3 / e5m2 operands (m16n8k32): sm_89 and later", _cuda(89), 32),
    Feature("wgmma", "wgmma.mma_async (#nvidia_mma version 3, warp_group_dot): sm_90a only", _cuda(90, 100), 32),
    Feature("tcgen05", "tcgen05 MMA and tensor memory: the sm_100 family (sm_100a-sm_110a)", _cuda(100, 120), 32),
    Feature("mma_block_scale", "block-scaled mma.sync (tt.dot_scaled on #nvidia_mma): sm_120a / sm_121a",
            _cuda(120, 130), 32),
    Feature("tma", "cp.async.bulk.tensor (TMA): sm_90 and later", _cuda(90), 32),
    Feature("cp_async", "cp.async (LDGSTS): sm_80 and later", _cuda(80), 32),
    Feature("mfma", "MFMA (#amd_mfma): CDNA (wave64 only), up to the architecture's MFMA version", _mfma, 64),
    Feature("wmma", "WMMA (#amd_wmma): RDNA3 v1, RDNA4 v2, gfx1250 v3", _wmma),
)}


def has(target: Target | None, feature: str, version: int | None = None) -> bool | None:
    """Whether ``target`` executes the instruction family ``feature`` (at ``version``, where it has versions);
    None when the target is unknown or the table does not cover it."""
    if target is None:
        return None
    return FEATURES[feature].available(target, version)
