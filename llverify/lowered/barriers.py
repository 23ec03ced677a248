"""Barrier intervals: a conversion's straight-line code in program order, cut by barriers.

Between the first and the last of a conversion's accesses, each instruction gets ``(c, w)``: ``c`` counts the
full barriers before it (``llvm.nvvm.barrier.cta.sync.aligned.all``, ``llvm.nvvm.barrier0``,
``llvm.amdgcn.s.barrier``, and RDNA4/gfx1250's split form of it, ``llvm.amdgcn.s.barrier.signal(-1)``
immediately followed by ``llvm.amdgcn.s.barrier.wait(-1)``, which LLVM emits for ``s_barrier`` on targets with split
barriers: they order every thread of the CTA), ``w`` the full and the warp barriers
(``llvm.nvvm.bar.warp.sync(-1)``, ``llvm.amdgcn.wave.barrier``: they order the threads of one warp).  Two
accesses of different threads are ordered when their ``c`` differ, or, in one warp, their ``w`` differ
(:mod:`llverify.lowered.replay`).  Control flow, a barrier of another form, or another op's store inside the
range make the intervals unknown (:class:`~llverify.lowered.provenance.Unknown` with the reason): the
replay assumes straight-line code that only the conversion writes.

Postcondition: ``c`` and ``w`` are non-decreasing in program order.
"""

from __future__ import annotations

from typing import Sequence

from llverify.lowered.llir import Access, LlirFunction
from llverify.lowered.provenance import Unknown

__all__ = ["FULL_BARRIERS", "WARP_BARRIERS", "SPLIT_BARRIER", "barrier_intervals"]


#: barriers of the whole CTA: order the accesses of all its threads
FULL_BARRIERS = ("@llvm.nvvm.barrier.cta.sync.aligned.all(", "@llvm.nvvm.barrier0(", "@llvm.amdgcn.s.barrier(")
#: barriers of one warp (all its lanes): order the accesses of that warp's threads only
WARP_BARRIERS = ("@llvm.nvvm.bar.warp.sync(i32 -1)", "@llvm.amdgcn.wave.barrier(")
#: the workgroup barrier split in two (gfx12): signal it, then wait for it; adjacent, the pair is a full barrier
SPLIT_BARRIER = ("@llvm.amdgcn.s.barrier.signal(i32 -1)", "@llvm.amdgcn.s.barrier.wait(i16 -1)")
_CONTROL = ("br", "switch", "ret", "indirectbr", "unreachable", "phi", "callbr")


def barrier_intervals(fn: LlirFunction, accesses: Sequence[Access]) -> dict[int, tuple[int, int]]:
    """``line -> (CTA interval, warp interval)`` for every instruction from the first to the last of
    ``accesses`` (sorted by line), barriers and fences excepted (module docstring); raises ``Unknown``."""
    lo, hi = accesses[0].instr.line, accesses[-1].instr.line
    mine = {id(a.instr) for a in accesses}
    others = {id(a.instr): a for a in fn.accesses}
    interval_of_line: dict[int, tuple[int, int]] = {}  # line -> (CTA interval, warp interval)
    interval = warp_interval = 0
    instrs = fn.instrs
    for k, ins in enumerate(instrs):
        if ins.line < lo or ins.line > hi:
            continue
        if ins.opcode in _CONTROL:
            raise Unknown(f"control flow ('{ins.opcode}' at line {ins.line}) inside the conversion: not modelled")
        if ins.opcode == "call" and ("barrier" in ins.body or "bar.sync" in ins.body or "bar.warp" in ins.body):
            if _split_half(instrs, k) == 0:
                continue  # the signal: the wait right after it completes the barrier
            if any(name in ins.body for name in FULL_BARRIERS) or _split_half(instrs, k) == 1:
                interval += 1
                warp_interval += 1
                continue
            if any(name in ins.body for name in WARP_BARRIERS):
                warp_interval += 1
                continue
            raise Unknown(f"a barrier of a form not modelled at line {ins.line}")
        if ins.opcode == "fence" or (ins.opcode == "call" and "fence" in ins.body):
            continue
        if id(ins) in others and id(ins) not in mine and others[id(ins)].kind != "load":
            raise Unknown(f"another op's shared-memory {others[id(ins)].kind} at line {ins.line} lies inside "
                          "the conversion")
        interval_of_line[ins.line] = (interval, warp_interval)
    return interval_of_line


def _split_half(instrs: Sequence, k: int) -> int | None:
    """0 when ``instrs[k]`` signals the workgroup barrier and the next instruction waits for it, 1 when it is
    that wait right after its signal, else None (a lone signal or wait is no barrier: it stays unmodelled)."""
    body = instrs[k].body
    if SPLIT_BARRIER[0] in body and k + 1 < len(instrs) and SPLIT_BARRIER[1] in instrs[k + 1].body:
        return 0
    if SPLIT_BARRIER[1] in body and k > 0 and SPLIT_BARRIER[0] in instrs[k - 1].body:
        return 1
    return None
