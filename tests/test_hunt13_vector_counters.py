"""hunt13: pipeline counters that LLVM's SLP vectoriser packed into one vector phi are bounded lane by lane.

Triton 3.9's Hopper fp8 TMA matmul (``tl.make_tensor_descriptor`` loads, num_stages=3) keeps four wrap-around
stage counters in one ``<4 x i32>`` phi, stepped by ``add <4 x i32>``, ``icmp sgt <4 x i32>`` and
``select <4 x i1>``; the barrier and buffer addresses read lanes of it.  ``icmp`` and ``select`` on vectors were
unmodelled and a lane of a vector phi had no orbit, so 120 ``in_bounds`` claims of 12 such modules were
``unknown``.  Now a vector ``icmp``/``select`` is lane-wise (lane ``k`` of the result reads lane ``k`` of each
vector operand, or the one ``i1`` condition), and a lane of a two-way vector phi whose step reads only that lane
gets the scalar orbit rule (``llverify.lowered.orbits``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.lowered import decode
from llverify.lowered.concrete import Concrete
from llverify.lowered.llir import parse_llir
from llverify.lowered.orbits import lane_orbit
from llverify.lowered.validate import validate
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data" / "hunt"

LANES = """define void @k(i32 %a) {
  %c = icmp sgt <4 x i32> <i32 5, i32 -3, i32 7, i32 0>, <i32 1, i32 1, i32 9, i32 0>
  %u = icmp ult <4 x i32> <i32 5, i32 -3, i32 7, i32 0>, <i32 1, i32 1, i32 9, i32 0>
  %s = select <4 x i1> %c, <4 x i32> <i32 10, i32 11, i32 12, i32 13>, <4 x i32> <i32 20, i32 21, i32 22, i32 23>
  %t = select i1 true, <2 x i32> zeroinitializer, <2 x i32> <i32 8, i32 9>
  ret void
}
"""


def test_vector_icmp_and_select_are_lane_wise() -> None:
    fn = parse_llir(LANES).functions[0]
    c = Concrete(fn, 0, {})
    # worked by hand: 5 > 1, -3 > 1 is false (signed), 7 > 9 false, 0 > 0 false; unsigned -3 is 2^32 - 3
    assert [c.value(f"%c#{k}", 1) for k in range(4)] == [1, 0, 0, 0]
    assert [c.value(f"%u#{k}", 1) for k in range(4)] == [0, 0, 1, 0]
    assert [c.value(f"%s#{k}", 32) for k in range(4)] == [10, 21, 22, 23]
    assert [c.value(f"%t#{k}", 32) for k in range(2)] == [0, 0]


# counters packed in lanes (the phi, then %nxt): lane 0 wraps at 2 (-1, 0, 1; 0, 1), lane 2 at 3 (-1..2; 0, 1, 2)
LOOP = """define void @k(i32 %n) {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %v = phi <4 x i32> [ <i32 -1, i32 1, i32 -1, i32 1>, %entry ], [ %nxt, %loop ]
  %inc = add <4 x i32> %v, splat (i32 1)
  %wrap = icmp sgt <4 x i32> %inc, <i32 1, i32 1, i32 2, i32 2>
  %nxt = select <4 x i1> %wrap, <4 x i32> zeroinitializer, <4 x i32> %inc
  %i = extractelement <4 x i32> %nxt, i64 LANE
  %o = shl i32 %i, 10
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o
  store i32 0, ptr addrspace(3) %p, align 4
  %d = icmp slt i32 %i, %n
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
"""
MODULE = 'module attributes {"ttg.num-warps" = 1 : i32, ttg.target = "cuda:90"} {\n}\n'


def _in_bounds(lane: int, shared: int) -> str:
    text = LOOP.replace("LANE", str(lane))
    (v,) = [f.finding.verdict for f in validate(parse_module(MODULE, "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]
    return v.status


@pytest.mark.parametrize("lane, values", [(0, [0, 1]), (2, [0, 1, 2])])
def test_a_lane_counter_is_bounded_by_its_orbit(lane: int, values: list[int]) -> None:
    top = max(values) * 1024
    assert _in_bounds(lane, top + 4) == "proved"
    assert _in_bounds(lane, top + 3) != "proved"  # the last buffer's word runs past: never proved


def test_the_lane_orbit_is_the_lane_s_own() -> None:
    fn = parse_llir(LOOP.replace("LANE", "0")).functions[0]
    assert (lane_orbit(fn, fn.defs["%v"], 0).lo, lane_orbit(fn, fn.defs["%v"], 0).hi) == (-1, 2)
    assert (lane_orbit(fn, fn.defs["%v"], 2).lo, lane_orbit(fn, fn.defs["%v"], 2).hi) == (-1, 3)


def test_a_step_reading_another_lane_has_no_orbit() -> None:
    """Lane 0 stepped from lane 1 (a shuffle): not a function of lane 0 alone, so no orbit (left free)."""
    text = LOOP.replace("LANE", "0").replace(
        "%inc = add <4 x i32> %v, splat (i32 1)",
        "%sh = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 1, i32 0, i32 3, i32 2>\n"
        "  %inc = add <4 x i32> %sh, splat (i32 1)")
    fn = parse_llir(text).functions[0]
    assert lane_orbit(fn, fn.defs["%v"], 0) is None


def test_swapped_select_arms_would_change_the_orbit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: a lane-wise select reading its arms the other way round gives a different (wrong) orbit, which
    the hand-worked orbit above rejects."""
    real = decode.decode_lane.__wrapped__

    def swapped(instr, k):
        d = real(instr, k)
        return decode.Decoded(d.op, d.width, d.flags, (d.args[0], d.args[2], d.args[1])) if d.op == "select" else d
    monkeypatch.setattr(decode, "decode_lane", swapped)
    fn = parse_llir(LOOP.replace("LANE", "2")).functions[0]
    o = lane_orbit(fn, fn.defs["%v"], 2)
    assert o is None or (o.lo, o.hi) != (-1, 3)


def test_real_hopper_fp8_tma_matmul_in_bounds() -> None:
    base = DATA / "fp8_tma_mm-b64x256x64-cuda_90-w4"
    shared = json.loads(base.with_suffix(".json").read_text())["shared"]
    found = validate(parse_module(base.with_suffix(".ttgir").read_text(), str(base) + ".ttgir"),
                     parse_llir(base.with_suffix(".llir").read_text(), str(base) + ".llir"), shared)
    ib = [f.finding.verdict for f in found if f.finding.verdict.property == "in_bounds"]
    assert not [v for v in ib if v.status == "refuted"]
    assert not [v for v in ib if "vector instruction" in v.message], [v.message for v in ib if v.status != "proved"]
    assert sum(v.status != "proved" for v in ib) <= 2, [v.message for v in ib if v.status != "proved"]
