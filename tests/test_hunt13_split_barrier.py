"""hunt13: RDNA4 / gfx1250's split workgroup barrier orders a conversion's shared-memory accesses.

On targets with split barriers LLVM emits ``s_barrier`` as ``llvm.amdgcn.s.barrier.signal(i32 -1)`` followed by
``llvm.amdgcn.s.barrier.wait(i16 -1)`` (signal the workgroup barrier, then wait for every wave to signal it).
Triton 3.9's gfx1200 code has exactly that pair, adjacent, between a ``ttg.convert_layout``'s stores and loads;
llverify knew only ``llvm.amdgcn.s.barrier`` and left those conversions ``unknown`` ("a barrier of a form not
modelled").  The adjacent pair is now a full barrier; a lone signal, a lone wait, or the two in the other order
are still not modelled (a wait before its signal orders nothing of this interval).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.lowered.barriers import barrier_intervals
from llverify.lowered.llir import parse_llir
from llverify.lowered.provenance import Unknown
from llverify.lowered.validate import validate
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data" / "hunt"
STEM = "tiny_dot-m32n64k16-hip_gfx1200-w4"
SIGNAL = "  tail call void @llvm.amdgcn.s.barrier.signal(i32 -1)"
WAIT = "  tail call void @llvm.amdgcn.s.barrier.wait(i16 -1)"

FN = """define void @k() {
  %1 = tail call i32 @llvm.amdgcn.workitem.id.x()
  %2 = shl i32 %1, 2
  %3 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %2
  store i32 0, ptr addrspace(3) %3, align 4
BARRIER
  %4 = load i32, ptr addrspace(3) %3, align 4
  ret void
}
"""


def _intervals(barrier: str) -> list[tuple[int, int]]:
    fn = parse_llir(FN.replace("BARRIER", barrier)).functions[0]
    got = barrier_intervals(fn, sorted(fn.accesses, key=lambda a: a.instr.line))
    return [got[a.instr.line] for a in sorted(fn.accesses, key=lambda a: a.instr.line)]


def test_the_adjacent_pair_is_one_full_barrier() -> None:
    assert _intervals(SIGNAL + "\n" + WAIT) == [(0, 0), (1, 1)]
    assert _intervals("  tail call void @llvm.amdgcn.s.barrier()") == [(0, 0), (1, 1)]  # the same as s_barrier


@pytest.mark.parametrize("barrier", [SIGNAL, WAIT, WAIT + "\n" + SIGNAL,
                                     SIGNAL + "\n  %9 = add i32 0, 0\n" + WAIT],
                         ids=["signal only", "wait only", "wait then signal", "not adjacent"])
def test_other_forms_stay_unmodelled(barrier: str) -> None:
    with pytest.raises(Unknown, match="barrier of a form not modelled"):
        _intervals(barrier)


def _convert_verdicts(llir: str) -> list:
    base = DATA / STEM
    shared = json.loads(base.with_suffix(".json").read_text())["shared"]
    found = validate(parse_module(base.with_suffix(".ttgir").read_text(), str(base) + ".ttgir"),
                     parse_llir(llir, str(base) + ".llir"), shared)
    return [f.finding.verdict for f in found if f.finding.op == "ttg.convert_layout"
            and f.finding.verdict.property == "right_elements"]


def test_real_gfx1200_conversion_is_proved() -> None:
    vs = _convert_verdicts((DATA / STEM).with_suffix(".llir").read_text())
    assert vs and all(v.status == "proved" for v in vs), [v.message for v in vs]


def test_real_gfx1200_conversion_without_the_wait_is_not_proved() -> None:
    """Mutant: drop the waits (the signals alone order nothing): never proved."""
    text = "\n".join(t for t in (DATA / STEM).with_suffix(".llir").read_text().splitlines()
                     if "s.barrier.wait" not in t)
    vs = _convert_verdicts(text)
    assert vs and all(v.status != "proved" for v in vs), [(v.status, v.message) for v in vs]
