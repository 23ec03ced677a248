"""Loop phis bounded by their trip counts (``llverify/lowered/loops.py``): a counted loop's induction variable
takes only the values of its range, so an access indexed by it is proved in bounds where its whole range stays
inside the allocation; a bound one step too far, or a bound that is not a constant, is not proved."""

from __future__ import annotations

import pytest

from llverify.lowered.llir import parse_llir
from llverify.lowered.loops import CountedPhi, counted_phi
from llverify.lowered.concrete import Concrete
from llverify.lowered.validate import validate
from llverify.ttgir.reader import parse_module

MODULE = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n}\n"

LOOP = """define void @k(i32 %K) {
entry:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = shl i32 %t, 2
  br label %loop

loop:                                             ; preds = %entry, %loop
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %a = mul i32 %i, STRIDE
  %c = add i32 %a, %b
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %c
  store i32 0, ptr addrspace(3) %p, align 4
  %n = add nuw nsw i32 %i, 1
  %e = icmp PRED i32 %n, BOUND
  br i1 %e, label %loop, label %exit

exit:                                             ; preds = %loop
  ret void
}
"""


def _in_bounds(pred: str, bound: str, shared: int, stride: int = 512) -> tuple[str, str]:
    text = LOOP.replace("PRED", pred).replace("BOUND", bound).replace("STRIDE", str(stride))
    (f,) = [f for f in validate(parse_module(MODULE, "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]
    return f.finding.verdict.status, f.finding.verdict.message


def test_a_counted_loop_index_is_proved_in_bounds() -> None:
    status, msg = _in_bounds("ult", "4", 2048)  # i in [0, 4): 3 * 512 + 127 * 4 + 4 = 2048
    assert status == "proved", msg
    assert "%i:32" in msg


def test_one_step_too_far_is_not_proved() -> None:
    """Mutant: the loop runs to 5 (i = 4 reaches 2048 + ...): not proved (unknown: the loop may never get there)."""
    status, msg = _in_bounds("ult", "5", 2048)
    assert status == "unknown", msg
    assert "in [0, 5)" in msg


def test_a_bound_that_is_not_a_constant_leaves_the_phi_free() -> None:
    status, msg = _in_bounds("ult", "%K", 2048)
    assert status == "unknown", msg
    assert "loop-carried" in msg


def test_a_large_range_is_proved_by_z3_with_the_range() -> None:
    status, msg = _in_bounds("slt", "1000", 999 * 4 + 128 * 4, stride=4)
    assert status == "proved", msg
    status, msg = _in_bounds("slt", "1001", 999 * 4 + 128 * 4, stride=4)
    assert status == "unknown", msg


def _phi(pred: str, bound: str, start: str = "0", step: str = "1", swap: bool = False) -> CountedPhi | None:
    targets = "label %exit, label %loop" if swap else "label %loop, label %exit"
    text = (f"define void @k() {{\nentry:\n  br label %loop\nloop:\n  %i = phi i8 [ {start}, %entry ], [ %n, %loop ]\n"
            f"  %n = add i8 %i, {step}\n  %e = icmp {pred} i8 %n, {bound}\n  br i1 %e, {targets}\nexit:\n  ret void\n}}\n")
    fn = parse_llir(text).functions[0]
    return counted_phi(fn, fn.defs["%i"])


@pytest.mark.parametrize("pred,bound,start,step,swap,want", [
    ("ult", "10", "0", "1", False, (0, 10, False)),
    ("ule", "10", "2", "3", False, (2, 11, False)),
    ("uge", "10", "0", "1", True, (0, 10, False)),  # exit when n >= 10: back edge while n < 10
    ("eq", "12", "0", "4", True, (0, 12, False)),  # exit when n == 12, stepping by 4 from 0
    ("slt", "100", "-5", "1", False, (-5, 100, True)),
    ("ult", "3", "7", "1", False, (7, 8, False)),  # starts past the bound: runs once
])
def test_counted_phi_ranges(pred: str, bound: str, start: str, step: str, swap: bool, want: tuple) -> None:
    got = _phi(pred, bound, start, step, swap)
    assert got is not None and (got.lo, got.hi, got.signed) == want


@pytest.mark.parametrize("pred,bound,start,step,swap", [
    ("ult", "255", "0", "2", False),  # 254 + 2 wraps an i8
    ("slt", "127", "0", "1", False),  # 126 + 1 fits, 127 would not: sle 127 is the wrap
    ("eq", "13", "0", "4", True),  # 13 is never hit stepping by 4: the phi wraps around
    ("ult", "10", "0", "0", False),  # no progress
    ("ult", "10", "0", "-1", False),  # counts down
    ("ugt", "10", "0", "1", False),  # back edge while n > 10: not an upper bound
])
def test_loops_that_are_not_recognised(pred: str, bound: str, start: str, step: str, swap: bool) -> None:
    if pred == "slt" and bound == "127":
        assert _phi("sle", "127", start, step, swap) is None
        return
    assert _phi(pred, bound, start, step, swap) is None


def test_the_interpreter_replays_a_counted_phi_value() -> None:
    fn = parse_llir(LOOP.replace("PRED", "ult").replace("BOUND", "4").replace("STRIDE", "512")).functions[0]
    assert Concrete(fn, 3, {"%i:32": 2}).value("%c", 32) == 2 * 512 + 12
