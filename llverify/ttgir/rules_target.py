"""The target has the instruction an op asks for (:mod:`llverify.hw.target_isa`).

An MMA, a TMA or cp.async copy, or a tensor-memory op runs on exactly one instruction family; a module whose
``ttg.target`` lacks that family was produced by a pass that chose the wrong instruction for the target (a
wgmma ``#nvidia_mma`` version 3 on sm_80, an MFMA layout on an RDNA target, a WMMA version of another
generation) and cannot be lowered.  Claim per op: every instruction family it needs is available on the module's
target.  Decided by the table (proved / refuted, the compared target and family as the witness); an op on a
target or architecture the table does not cover is ``unknown``.  A module that names no target (a lit test
without ``ttg.target``, ``--target`` or RUN line) has nothing to check against: no finding.

>>> from llverify.ttgir.reader import parse_module
>>> m = parse_module('''
... #mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80"} {
...   tt.func @f(%a: tensor<64x64xf32, #mma>) {
...     %c = ttg.convert_layout %a : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
...     %d = tt.dot %a, %a, %a : tensor<64x64xf32, #mma> * tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
...     tt.return
...   }
... }''')
>>> [needs(op) for op in m.functions[0].body.blocks[0].ops[:2]]
[[], [('wgmma', 3)]]
"""

from __future__ import annotations

import time
from typing import Iterable

from llverify.hw.target_isa import FEATURES, has, parse_target
from llverify.prove.verdict import Verdict
from llverify.ttgir.memory_ops import TMEM_ACCESS_OPS
from llverify.ttgir.model import Op
from llverify.ttgir.rule_support import OpContext, op_names, structural, unknown
from llverify.ttgir.rules_async_copy import ASYNC_COPY_OPS
from llverify.ttgir.rules_memory import TMA_COPIES

__all__ = ["TARGET_ISA_OPS", "needs", "target_isa"]

_MMA_OPS = ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot")
_TCGEN05_OPS = ("ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled", "ttng.tmem_copy", "ttng.tmem_subslice",
                *TMEM_ACCESS_OPS)
#: the fp8 element types mma.sync multiplies itself (``.e4m3`` / ``.e5m2``)
_FP8_MMA = frozenset({"f8E4M3FN", "f8E5M2"})
#: the ops whose instruction family depends on the target
TARGET_ISA_OPS = frozenset({*_MMA_OPS, *_TCGEN05_OPS, *TMA_COPIES, *ASYNC_COPY_OPS})


def _major(version: object) -> int | None:
    if isinstance(version, (list, tuple)) and version:
        version = version[0]
    return version if isinstance(version, int) else None


def needs(op: Op, backend: str = "cuda") -> list[tuple[str, int | None]]:
    """The instruction families ``op`` needs, each with its version where the family has versions."""
    name = op.name
    if name in _TCGEN05_OPS:
        return [("tcgen05", None)]
    if name in TMA_COPIES:
        return [("tma", None)]
    if name in ASYNC_COPY_OPS:
        return [("cp_async", None)] if backend == "cuda" else []  # AMD: direct-to-LDS loads, another family
    if name not in _MMA_OPS or not op.results:
        return []
    enc = op.results[0].type.encoding
    kind = enc.get("kind") if enc else None
    if name == "ttng.warp_group_dot":
        return [("wgmma", 3)]
    if kind == "nvidia_mma":
        major = _major(enc.get("version"))
        if major == 3:
            return [("wgmma", 3)]
        if major == 2:
            if name == "tt.dot_scaled":
                return [("mma_block_scale", 2)]
            fp8 = any(t is not None and t.element in _FP8_MMA for t in op.operand_types[:2])
            return [("mma_v2_fp8" if fp8 else "mma_v2", 2)]
        return []
    if kind in ("amd_mfma", "amd_wmma"):
        return [("mfma" if kind == "amd_mfma" else "wmma", _major(enc.get("version")))]
    return []


def _states_lanes(ctx: OpContext) -> bool:
    """Whether the module states ``ttg.threads-per-warp`` (a missing one is read as 32 whatever the target, as
    Triton reads it; the warp size is then the reader's default, not the module's claim, and is not compared)."""
    return any(k.endswith("threads-per-warp") for k in ctx.module.attributes)


def target_isa(ctx: OpContext) -> Iterable[Verdict]:
    stated = ctx.module.target
    if not stated:
        return
    t0 = time.perf_counter()
    target = parse_target(stated)
    for feature, version in needs(ctx.op, target.backend if target else ""):
        what = feature + (f" v{version}" if version is not None else "")
        subject = f"{op_names(ctx.op)} needs {what} on {stated}"
        ok = has(target, feature, version)
        if ok is None:
            yield unknown("target_isa", subject, f"the instruction table does not cover target '{stated}' "
                                                 f"({FEATURES[feature].description})")
            continue
        lanes, want = ctx.module.threads_per_warp, FEATURES[feature].lanes
        message = f"{stated} has no {what}: {FEATURES[feature].description}"
        if ok and want is not None and lanes != want and _states_lanes(ctx):
            ok, message = False, f"{what} runs in {want}-lane warps; the module has ttg.threads-per-warp = {lanes}"
        yield structural("target_isa", subject, ok, {"target": stated, "instruction": what, "lanes": lanes},
                         {"target": stated, "instruction": what, "available": ok, "lanes": lanes}, message, t0)
