"""Loop phis with a small orbit (``llverify/lowered/orbits.py``): the pipeliner's wrap-around buffer counters.

A buffer slot index ``%nxt = select(%i + 1 > S - 1, 0, %i + 1)`` with ``%i = phi [c0], [%nxt]`` only ever holds
the values of its orbit from ``c0``; an access at ``slot * SIZE + tid * 4`` is in bounds exactly when every slot
of the orbit is.  Mutants: a wrap one slot too late (the orbit reaches a slot past the allocation), a step that
depends on the thread id, a step that never closes, a poison step; each must leave the access unproved."""

from __future__ import annotations

import pytest

from llverify.lowered import orbits
from llverify.lowered.llir import parse_llir
from llverify.lowered.loops import CountedPhi
from llverify.lowered.orbits import orbit_phi, phi_range
from llverify.lowered.llir import Instr
from llverify.lowered.concrete import Concrete
from llverify.lowered.decode import INTEGER_OPCODES, LANE_MOVES, PURE_INTEGER, decoded
from llverify.lowered.validate import validate
from llverify.ttgir.reader import parse_module

MODULE = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:80\"} {\n}\n"

PIPELINE = """define void @k(i32 %K) {
entry:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = shl i32 %t, 2
  br label %loop

loop:                                             ; preds = %entry, %loop
  %j = phi i32 [ 0, %entry ], [ %jn, %loop ]
  %i = phi i32 [ START, %entry ], [ %nxt, %loop ]
  %inc = add i32 %i, 1
  %wrap = icmp sgt i32 %inc, LAST
  %nxt = select i1 %wrap, i32 0, i32 %inc
  %off = shl i32 %nxt, 9
  %c = add i32 %off, %b
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %c
  store i32 0, ptr addrspace(3) %p, align 4
  %jn = add i32 %j, 1
  %e = icmp slt i32 %jn, %K
  br i1 %e, label %loop, label %exit

exit:                                             ; preds = %loop
  ret void
}
"""


def _verdict(text: str, shared: int) -> tuple[str, str]:
    (f,) = [f for f in validate(parse_module(MODULE, "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]
    return f.finding.verdict.status, f.finding.verdict.message


def _pipeline(start: int = -1, last: int = 2) -> str:
    return PIPELINE.replace("START", str(start)).replace("LAST", str(last))


def test_three_buffers_are_proved_in_bounds() -> None:
    """Slots 0..2 of 512 bytes, 128 threads x 4 bytes each: 1536 bytes exactly."""
    status, msg = _verdict(_pipeline(last=2), 1536)
    assert status == "proved", msg


def test_a_wrap_one_slot_late_is_not_proved() -> None:
    """Mutant: the counter wraps after slot 3, which lies past the 1536 bytes."""
    status, msg = _verdict(_pipeline(last=3), 1536)
    assert status != "proved", msg


def test_the_orbit_is_the_exact_value_set_and_its_hull() -> None:
    fn = parse_llir(_pipeline(start=-1, last=2)).functions[0]
    assert orbit_phi(fn, fn.defs["%i"]) == CountedPhi(-1, 3, True, 32)
    # every value of the hull maps into the hull (the invariant the rule relies on), by the independent interpreter
    for v in range(-1, 3):
        nxt = Concrete(fn, 0, {"%i:32": v % (1 << 32)}).value("%nxt", 32)
        assert nxt is not None and 0 <= nxt <= 2


def test_a_step_that_reads_the_thread_id_is_not_an_orbit() -> None:
    text = _pipeline().replace("%inc = add i32 %i, 1", "%inc = add i32 %i, %t")
    fn = parse_llir(text).functions[0]
    assert orbit_phi(fn, fn.defs["%i"]) is None
    assert _verdict(text, 1536)[0] != "proved"


def test_a_step_that_reads_an_argument_is_not_an_orbit() -> None:
    text = _pipeline().replace("%inc = add i32 %i, 1", "%inc = add i32 %i, %K")
    fn = parse_llir(text).functions[0]
    assert orbit_phi(fn, fn.defs["%i"]) is None


def test_an_orbit_larger_than_the_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    fn = parse_llir(_pipeline(last=9)).functions[0]  # 11 values: -1 .. 9
    assert orbit_phi(fn, fn.defs["%i"]) == CountedPhi(-1, 10, True, 32)
    monkeypatch.setattr(orbits, "MAX_ORBIT", 8)
    assert orbit_phi(fn, fn.defs["%i"]) is None


def test_a_poison_step_is_refused() -> None:
    text = _pipeline(start=1).replace("%inc = add i32 %i, 1", "%inc = add nsw i32 %i, 2147483647")
    fn = parse_llir(text).functions[0]
    assert orbit_phi(fn, fn.defs["%i"]) is None


def test_a_counted_induction_variable_keeps_its_counted_range() -> None:
    text = _pipeline().replace("%e = icmp slt i32 %jn, %K", "%e = icmp slt i32 %jn, 7")
    fn = parse_llir(text).functions[0]
    assert phi_range(fn, fn.defs["%j"]) == CountedPhi(0, 7, True, 32)


def test_a_mutant_rule_that_stops_before_the_orbit_closes_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the rule kept only ``c0`` and ``f(c0)`` (an orbit not closed), the late wrap would be proved."""
    real = orbits.orbit_phi

    def forgetful(fn, phi):  # noqa: ANN001, ANN202 - test double
        r = real(fn, phi)
        return None if r is None else CountedPhi(r.lo, r.lo + 2, r.signed, r.width)

    monkeypatch.setattr(orbits, "orbit_phi", forgetful)
    status, _ = _verdict(_pipeline(last=3), 1536)
    assert status == "proved"  # the mutant proves a false claim; the real rule does not (test above)


def test_the_pure_integer_operations_are_what_the_declared_opcodes_decode_to() -> None:
    """The operations a step function may use (PURE_INTEGER) and guards' uniform-preserving opcodes derive from
    one declaration: each opcode of INTEGER_OPCODES decodes to an operation of its own name, a lane of a lane
    move to ``copy``; the thread id, a warp broadcast, a phi and a pointer computation are not among them."""
    forms = {"select": "select i1 %c, i32 %a, i32 %b", "icmp": "icmp eq i32 %a, %b", "zext": "zext i8 %a to i32",
             "sext": "sext i8 %a to i32", "trunc": "trunc i32 %a to i8"}
    for op in sorted(INTEGER_OPCODES):
        d = decoded(Instr("%r", op, forms.get(op, f"{op} i32 %a, %b"), None, 1), "")
        assert d.op == op and d.op in PURE_INTEGER
    moves = {"extractelement": ("extractelement <2 x i32> %v, i32 1", ""),
             "insertelement": ("insertelement <2 x i32> %v, i32 %a, i32 0", "1"),
             "shufflevector": ("shufflevector <2 x i32> %v, <2 x i32> %w, <2 x i32> <i32 3, i32 0>", "0")}
    assert set(moves) == LANE_MOVES
    for op, (body, lane) in moves.items():
        assert decoded(Instr("%r", op, body, None, 1), lane).op == "copy"
    tid = decoded(Instr("%t", "call", "call i32 @llvm.nvvm.read.ptx.sreg.tid.x()", None, 1), "")
    phi = decoded(Instr("%p", "phi", "phi i32 [ 0, %a ], [ %q, %b ]", None, 1), "")
    gep = decoded(Instr("%g", "getelementptr", "getelementptr i8, ptr addrspace(3) @global_smem, i32 %a", None, 1), "")
    assert not {tid.op, phi.op, gep.op} & PURE_INTEGER
