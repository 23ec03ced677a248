"""Accesses behind branches (``llverify/lowered/guards.py``): an access is checked only for the threads (and free
values) that reach its block, and a refutation's witness takes the branches to it.

Hand-written IR in the style of Triton 3.9's lowering (``icmp eq tid, 0`` around a single-thread store, a
lane-split diamond, a loop, a ``switch`` on the broadcast warp id as warp-specialized kernels dispatch) and
the real samples of ``tests/data/lowered*``.  Each test that proves an access also mutates its guard and
shows the mutant refuted, the witness replayed by the scalar interpreter at a thread that takes the branch;
``_without_guards`` runs the same IR with path conditions switched off (the behaviour before issue 15's
control-flow work: every access checked at every thread) to show the false alarm it gave.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import llverify.lowered.validate as validate_module
from llverify.lowered.conditions import ControlFlow
from llverify.lowered.guards import control_flow
from llverify.lowered.launch import launch_threads, runs_on_first
from llverify.lowered.llir import parse_llir
from llverify.lowered.concrete import Concrete
from llverify.lowered.validate import validate, validate_texts
from llverify.lowered.vector import Threads
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data"
MODULE = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n}\n"

# thread 0 writes the last word of a 4096-byte buffer; every other thread's address (tid * 64 + 4092) is past it
SINGLE = """define ptx_kernel void @k(i32 %n) #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = shl i32 %1, 6
  %3 = add i32 %2, 4092
  %4 = icmp GUARD i32 %1, CONST
  br i1 %4, label %5, label %7

5:                                                ; preds = %0
  %6 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %3
  store i32 0, ptr addrspace(3) %6, align 4
  br label %7

7:                                                ; preds = %5, %0
  ret void
}

attributes #0 = { "nvvm.reqntid"="128" }
"""


def _in_bounds(text: str, shared: int) -> list:
    return [f.finding.verdict for f in validate(parse_module(MODULE, "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]


def _without_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Path conditions off: every block is taken to run at every thread (the code before this change)."""
    monkeypatch.setattr(validate_module, "control_flow", lambda fn: ControlFlow({}, "switched off by the test"))


def _replay(text: str, v, width: int = 32) -> Concrete:
    """The refutation's witness replayed by a fresh scalar interpreter (tid and every value it names)."""
    fn = parse_llir(text).functions[0]
    inputs = dict(v.counterexample.inputs)
    return Concrete(fn, inputs.pop("tid"), inputs)


def test_a_single_thread_store_is_proved_under_its_guard() -> None:
    text = SINGLE.replace("GUARD", "eq").replace("CONST", "0")
    (v,) = _in_bounds(text, 4096)
    assert v.status == "proved", v.message
    assert "path condition %4 == 1" in v.message


def test_without_the_path_condition_it_was_a_false_alarm(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_guards(monkeypatch)
    (v,) = _in_bounds(SINGLE.replace("GUARD", "eq").replace("CONST", "0"), 4096)
    assert v.status == "refuted" and v.counterexample.inputs["tid"] == 1


@pytest.mark.parametrize("guard,const,tid", [("ne", "0", 1), ("eq", "1", 1), ("eq", "5", 5), ("ult", "2", 1)])
def test_a_mutated_guard_is_refuted_at_a_thread_that_takes_the_branch(guard: str, const: str, tid: int) -> None:
    text = SINGLE.replace("GUARD", guard).replace("CONST", const)
    (v,) = _in_bounds(text, 4096)
    assert v.status == "refuted", v.message
    assert v.counterexample.inputs["tid"] == tid  # the least thread that reaches the store
    replay = _replay(text, v)
    assert replay.value("%4", 1) == 1  # the witness takes the branch to the store
    assert replay.value("%6", 32) == v.counterexample.sides["address"] == tid * 64 + 4092


# lanes 0..15 write 8-byte slots [0, 128), lanes 16..31 4-byte slots [128, 192); after the join every lane
# writes a word of [0, 128)
DIAMOND = """define ptx_kernel void @k() #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = and i32 %1, 31
  %3 = icmp ult i32 %2, 16
  br i1 %3, label %4, label %7

4:                                                ; preds = %0
  %5 = shl nuw nsw i32 %2, THEN
  %6 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %5
  store <2 x i32> zeroinitializer, ptr addrspace(3) %6, align 8
  br label %11

7:                                                ; preds = %0
  %8 = shl nuw nsw i32 %2, 2
  %9 = add nuw nsw i32 %8, 64
  %10 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %9
  store i32 0, ptr addrspace(3) %10, align 4
  br label %11

11:                                               ; preds = %7, %4
  %12 = shl nuw nsw i32 %2, 2
  %13 = add nuw nsw i32 %12, 0
  %14 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %13
  store i32 0, ptr addrspace(3) %14, align 4
  ret void
}

attributes #0 = { "nvvm.reqntid"="128" }
"""


def test_a_diamond_proves_both_sides_and_the_join() -> None:
    text = DIAMOND.replace("THEN", "3")
    flow = control_flow(parse_llir(text).functions[0])
    assert (flow.block("%4").describe(), flow.block("%7").describe(), flow.block("%11").describe()) == \
        ("%3 == 1", "%3 == 0", "true")
    then, other, join = _in_bounds(text, 192)
    assert then.status == other.status == join.status == "proved"
    assert "path condition %3 == 1" in then.message  # the else side is in bounds at every lane anyway


def test_without_path_conditions_the_diamond_was_a_false_alarm(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_guards(monkeypatch)
    then, other, join = _in_bounds(DIAMOND.replace("THEN", "3"), 192)
    assert then.status == "refuted" and then.counterexample.inputs["tid"] == 24  # a lane of the else side
    assert other.status == "proved" and join.status == "proved"


def test_a_diamond_whose_taken_side_is_wrong_is_refuted_there_only() -> None:
    text = DIAMOND.replace("THEN", "4")  # lanes 0..15 write 16 bytes apart: lane 12 writes [192, 200)
    then, other, join = _in_bounds(text, 192)
    assert then.status == "refuted", then.message
    assert other.status == join.status == "proved"
    assert then.counterexample.inputs["tid"] == 12
    replay = _replay(text, then)
    assert replay.value("%3", 1) == 1  # lane 12 takes the then side
    assert replay.value("%6", 32) == 192
    # every lane sent to the then side: the else side runs on no thread, the then side fails at lane 12
    everyone = _in_bounds(text.replace("%2, 16", "%2, 32"), 192)
    assert everyone[0].status == "refuted" and everyone[1].status == "proved"


LOOP = """define ptx_kernel void @k(i32 %K) #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = icmp sgt i32 %K, 0
  br i1 %2, label %.lr.ph, label %._crit_edge

.lr.ph:                                           ; preds = %0
  br label %3

3:                                                ; preds = %.lr.ph, %9
  %4 = phi i32 [ 0, %.lr.ph ], [ %10, %9 ]
  %5 = icmp GUARD i32 %1, 4
  br i1 %5, label %6, label %9

6:                                                ; preds = %3
  %7 = shl nuw nsw i32 %1, 10
  %8 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %7
  store i32 %4, ptr addrspace(3) %8, align 4
  br label %9

9:                                                ; preds = %6, %3
  %10 = add nuw nsw i32 %4, 1
  %11 = icmp slt i32 %10, BOUND
  br i1 %11, label %3, label %._crit_edge

._crit_edge:                                      ; preds = %9, %0
  %12 = shl nuw nsw i32 %1, 2
  %13 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %12
  store i32 0, ptr addrspace(3) %13, align 4
  ret void
}

attributes #0 = { "nvvm.reqntid"="128" }
"""


def test_a_guard_inside_a_loop() -> None:
    text = LOOP.replace("GUARD", "ult").replace("BOUND", "%K")
    fn = parse_llir(text).functions[0]
    flow = control_flow(fn)
    assert flow.block("%3").describe() == "%2 == 1"  # the header: its entry condition (the back edge untracked)
    assert flow.block("%6").describe() == "%2 == 1 and %5 == 1"
    assert flow.block("%._crit_edge").trivial  # post-dominates the entry: every thread gets there
    # the loop's branches are thread-uniform (a kernel argument, a counter): all threads iterate alike
    assert flow.block("%3").uniform and not flow.block("%6").uniform and flow.block("%6").exact
    body, after = _in_bounds(text, 4096)
    assert body.status == "proved" and "%5 == 1" in body.message
    assert after.status == "proved"


def test_a_mutated_guard_inside_a_loop_is_refuted_with_the_launch_that_enters_it() -> None:
    text = LOOP.replace("GUARD", "ule").replace("BOUND", "%K")  # thread 4 writes [4096, 4100)
    body, _ = _in_bounds(text, 4096)
    assert body.status == "refuted", body.message
    assert body.counterexample.inputs["tid"] == 4
    k = body.counterexample.inputs["%K:32"]  # the witness's kernel argument: the loop is entered
    assert 0 < k < 1 << 31
    replay = _replay(text, body)
    assert replay.value("%2", 1) == 1 and replay.value("%5", 1) == 1


def test_a_loop_whose_trip_count_depends_on_the_thread_is_not_exact() -> None:
    fn = parse_llir(LOOP.replace("GUARD", "ult").replace("BOUND", "%1")).functions[0]
    flow = control_flow(fn)
    assert not flow.block("%3").exact and not flow.block("%6").exact  # later iterations: fewer threads
    assert flow.block("%._crit_edge").exact  # every thread leaves the loop
    # the counter starts at the thread id: divergence reaches the exit test through the phi's cycle
    fn = parse_llir(LOOP.replace("GUARD", "ult").replace("BOUND", "8").replace("[ 0, %.lr.ph ]", "[ %1, %.lr.ph ]"))
    flow = control_flow(fn.functions[0])
    assert not flow.block("%3").exact and not flow.block("%3").uniform
    uniform = control_flow(parse_llir(LOOP.replace("GUARD", "ult").replace("BOUND", "8")).functions[0])
    assert uniform.block("%3").uniform  # the same loop counted from 0


# warp-specialized dispatch: a switch on the broadcast warp id
SWITCH = """define ptx_kernel void @k() #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = lshr i32 %1, 5
  %3 = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %2, i32 0, i32 31)
  switch i32 %3, label %13 [
    i32 0, label %4
    i32 CASE, label %7
  ]

4:                                                ; preds = %0
  %5 = shl nuw nsw i32 %1, 2
  %6 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %5
  store i32 0, ptr addrspace(3) %6, align 4
  br label %12

7:                                                ; preds = %0
  %9 = shl nuw nsw i32 %1, 3
  %10 = sub nuw nsw i32 %9, 128
  %11 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %10
  store <2 x i32> zeroinitializer, ptr addrspace(3) %11, align 8
  br label %12

13:                                               ; preds = %0
  %14 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %1
  store i8 0, ptr addrspace(3) %14, align 1
  br label %12

12:                                               ; preds = %7, %4, %13
  ret void
}

attributes #0 = { "nvvm.reqntid"="128" }
"""


def test_a_switch_on_the_warp_id() -> None:
    text = SWITCH.replace("CASE", "1")  # warp 1 (tids 32..63) writes [128, 384)
    flow = control_flow(parse_llir(text).functions[0])
    assert flow.block("%4").describe() == "%3 == 0" and flow.block("%7").describe() == "%3 == 1"
    assert flow.block("%13").describe() == "%3 not in {0, 1}" and flow.block("%12").trivial
    warp0, warp1, rest = _in_bounds(text, 384)
    assert warp0.status == warp1.status == rest.status == "proved", (warp0.message, warp1.message)


def test_a_switch_case_that_sends_another_warp_is_refuted() -> None:
    text = SWITCH.replace("CASE", "2")  # warp 2 (tids 64..95) takes the case: tid 64 writes [384, 392)
    _, case, _ = _in_bounds(text, 384)
    assert case.status == "refuted", case.message
    assert case.counterexample.inputs["tid"] == 64
    replay = _replay(text, case)
    assert replay.value("%3", 32) == 2 and replay.value("%11", 32) == 384


def test_the_default_of_a_switch_excludes_every_case() -> None:
    fn = parse_llir(SWITCH.replace("CASE", "1")).functions[0]
    pc = control_flow(fn).block("%13")
    maybe, sure = pc.threads(Threads(fn, 128))
    assert (maybe == sure).all() and (np.flatnonzero(maybe) == np.arange(64, 128)).all()  # warps 2 and 3


# -- real lowered code ----------------------------------------------------------------------------------------

MATMUL = DATA / "lowered" / "matmul-t64s1-cuda_80-w4"


def _real(stem: Path, llir: str) -> list:
    shared = json.loads(stem.with_suffix(".json").read_text())["shared"]
    return validate_texts(stem.with_suffix(".ttgir").read_text(), "m.ttgir", llir, "m.llir", shared)


def test_a_real_loop_guard_is_a_uniform_condition_on_the_kernel_argument() -> None:
    fn = parse_llir(MATMUL.with_suffix(".llir").read_text()).functions[0]
    flow = control_flow(fn)
    assert flow.block("%174").describe() == "%99 == 1" and flow.block("%174").uniform  # K > 0
    assert flow.block("%._crit_edge").trivial


def test_a_real_loop_access_mutated_out_of_bounds_names_a_launch_that_enters_the_loop() -> None:
    llir = MATMUL.with_suffix(".llir").read_text()
    mutant = llir.replace("%103 = xor i32 %102, %100", "%103 = add i32 %102, 8192")
    assert mutant != llir
    bad = [f.finding.verdict for f in _real(MATMUL, mutant)
           if f.finding.verdict.property == "in_bounds" and f.finding.verdict.status == "refuted"]
    assert bad
    loop = [v for v in bad if "%3:32" in v.counterexample.inputs]  # the store in the loop body (block %174)
    assert loop
    cx = loop[0].counterexample
    fn = parse_llir(mutant).functions[0]
    replay = Concrete(fn, cx.inputs["tid"], {k: v for k, v in cx.inputs.items() if k != "tid"})
    assert replay.value("%99", 1) == 1  # K > 0: the witness enters the loop
    assert cx.sides["address"] + cx.sides["bytes"] > cx.sides["shared"]


def test_the_warp_specialized_dispatch_of_a_real_kernel() -> None:
    """``ws_matmul`` (Triton 3.9, 4 + 8 warps: ``nvvm.reqntid`` 384): warps 0-3 run the default partition
    (block %1132), the others loop on a state byte their ``switch`` reads (blocks %17 and %574)."""
    stem = DATA / "lowered_tma" / "ws_tma_matmul-t128-cuda_90-w4"
    module = parse_llir(stem.with_suffix(".llir").read_text())
    fn = module.functions[0]
    assert launch_threads(fn, module.attributes, 128) == 384
    flow = control_flow(fn)
    assert flow.block("%1132").describe() == "%12 == 1"
    assert flow.block("%17").describe() == "%12 == 0 and %15 == 0"
    assert flow.block("%16").describe() == "%12 == 0 and %15 not in {0, 1, 2}"
    assert flow.block("%37").describe() == "%12 == 0 and %15 == 0 and %36 == 1"  # tid & 127 == 0
    assert flow.block("%common.ret").trivial
    launch = Threads(fn, 384)
    assert runs_on_first(flow.block("%1132"), launch, 128)  # exactly threads 0..127: the TTGIR's claims hold
    assert not runs_on_first(flow.block("%17"), launch, 128)  # a loaded byte decides: not claimed
    maybe, sure = flow.block("%.preheader").threads(launch)
    assert (np.flatnonzero(maybe) == np.arange(128, 384)).all()


def test_a_branch_on_an_unreadable_terminator_falls_back_to_every_thread() -> None:
    text = SINGLE.replace("GUARD", "eq").replace("CONST", "0").replace(
        "br i1 %4, label %5, label %7", "indirectbr ptr blockaddress(@k, %5), [label %5, label %7]")
    flow = control_flow(parse_llir(text).functions[0])
    assert flow.reason and flow.block("%5").trivial and not flow.block("%5").exact
    (v,) = _in_bounds(text, 4096)
    assert v.status == "refuted"  # every thread: the old, conservative reading


# one elected lane per warp initialises its warp's 8-byte barrier (the address is the warp's, not the lane's)
ELECT = """define ptx_kernel void @k() #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = lshr i32 %1, 5
  %3 = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %2, i32 0, i32 31)
  %4 = tail call { i32, i1 } @llvm.nvvm.elect.sync(i32 -1)
  %5 = extractvalue { i32, i1 } %4, 1
  br i1 %5, label %6, label %9

6:                                                ; preds = %0
  %7 = shl nuw nsw i32 INDEX, SHIFT
  %8 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %7
  store i64 0, ptr addrspace(3) %8, align 8
  br label %9

9:                                                ; preds = %6, %0
  ret void
}

attributes #0 = { "nvvm.reqntid"="128" }
"""


def test_an_elected_lane_per_warp() -> None:
    text = ELECT.replace("INDEX", "%3").replace("SHIFT", "3")
    flow = control_flow(parse_llir(text).functions[0])
    assert flow.block("%6").describe() == "%5 == 1" and not flow.block("%6").uniform
    (v,) = _in_bounds(text, 32)
    assert v.status == "proved", v.message


def test_a_mutated_elected_store_is_refuted_whichever_lane_is_elected() -> None:
    text = ELECT.replace("INDEX", "%3").replace("SHIFT", "4")  # warps 2 and 3 write at 32 and 48
    (v,) = _in_bounds(text, 32)
    assert v.status == "refuted", v.message
    assert v.counterexample.inputs["%5:1"] == 1 and v.counterexample.inputs["tid"] >= 64
    fn = parse_llir(text).functions[0]
    warp = v.counterexample.inputs["tid"] // 32
    for lane in range(32):  # every lane of the warp, were it elected, writes past the end
        replay = Concrete(fn, warp * 32 + lane, {"%5:1": 1})
        assert replay.value("%8", 32) + 8 > 32


def test_an_elected_store_whose_address_depends_on_the_lane_is_not_refuted() -> None:
    """Lane 31 of warp 0 would write past the end, but only if elect.sync picks it: unknown, not refuted."""
    text = ELECT.replace("INDEX", "%1").replace("SHIFT", "3")  # tid * 8: lanes >= 4 of warp 0 are past 32
    (v,) = _in_bounds(text, 32)
    assert v.status == "unknown" and "%5:1" in v.message, v.message


TRANSPOSE = DATA / "lowered" / "transpose-m64n64-cuda_90-w4"


def _behind_a_branch(llir: str, bound: int) -> str:
    """The real kernel's whole body moved into a block that threads ``tid < bound`` enter."""
    head, sep, body = llir.partition(" {\n")
    return (head + sep + "  %g.t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
            f"  %g.c = icmp ult i32 %g.t, {bound}\n  br i1 %g.c, label %g.body, label %g.exit\n\n"
            "g.exit:\n  ret void\n\ng.body:\n" + body)


@pytest.mark.parametrize("bound", [128, 64])
def test_exact_claims_only_where_the_branch_selects_every_thread(bound: int) -> None:
    """``right_elements`` and the wavefronts quantify over threads 0..127 as the executing set: the real
    transpose behind ``tid < 128`` keeps them; behind ``tid < 64`` (half the threads) they are not claimed,
    while ``in_bounds`` (for every thread that runs the access) stays proved."""
    llir = TRANSPOSE.with_suffix(".llir").read_text()
    base = {(f.finding.verdict.property, f.lowered.line): f.finding.verdict.status for f in _real(TRANSPOSE, llir)}
    got = _real(TRANSPOSE, _behind_a_branch(llir, bound))
    by = {}
    for f in got:
        by.setdefault(f.finding.verdict.property, []).append(f.finding.verdict)
    assert by["in_bounds"] and all(v.status == "proved" for v in by["in_bounds"])
    assert sum(p == "right_elements" for p, _ in base) == len(by["right_elements"]) > 0
    if bound == 128:  # exactly threads 0..127 enter: every claim as before
        assert all(v.status == "proved" for v in by["right_elements"] + by["lowered_wavefronts"])
        assert len(by["lowered_wavefronts"]) == sum(p == "lowered_wavefronts" for p, _ in base)
    else:
        assert all(v.status == "unknown" and "not claimed" in v.message for v in by["right_elements"])
        assert "lowered_wavefronts" not in by


# a lane-split diamond, then a loop whose counter and trip count are the same at every thread
RECONVERGED = """define ptx_kernel void @k(i32 %K) #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = icmp ult i32 %1, 16
  br i1 %2, label %3, label %4

3:                                                ; preds = %0
  br label %4

4:                                                ; preds = %3, %0
  %5 = phi i32 [ 1, %3 ], [ 0, %0 ]
  br label %6

6:                                                ; preds = %4, %LATCH
  %7 = phi i32 [ 0, %4 ], [ %8, %9 ], [ STEP, %10 ]
  %8 = add i32 %7, 1
  %c = icmp ult i32 %1, 64
  br i1 %c, label %9, label %10

9:                                                ; preds = %6
  %e = icmp slt i32 %8, %K
  br i1 %e, label %6, label %11

10:                                               ; preds = %6
  %f = icmp slt i32 %8, %K
  br i1 %f, label %6, label %11

11:                                               ; preds = %9, %10
  ret void
}
"""


def test_divergence_stops_where_the_branch_reconverges() -> None:
    """The diamond's join phi ``%5`` is divergent; a loop after it is not (every path from the diamond to
    the loop passes the join).  A loop whose two back edges come from the arms of the lane branch ``%c`` with
    different values (``%8`` and 5) has a divergent header phi, so its exit tests diverge: not exact."""
    fn = parse_llir(RECONVERGED.replace("STEP", "5").replace("%LATCH", "%9, %10")).functions[0]
    flow = control_flow(fn)
    assert flow.block("%6").describe() == "true"
    assert not flow.block("%9").exact  # lanes >= 64 restart at 5, the others count on: they iterate differently
    one_latch = RECONVERGED.replace("STEP", "%8").replace("br i1 %c, label %9, label %10",
                                                          "br label %9").replace(", [ %8, %10 ]", "")
    flow = control_flow(parse_llir(one_latch).functions[0])
    assert flow.block("%9").exact and flow.block("%9").uniform  # the diamond before the loop does not leak in
