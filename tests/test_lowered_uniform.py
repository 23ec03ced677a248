"""Uniformity of the lowered code's free variables (``llverify/lowered/uniform.py``) and what it protects: a
claim across threads (``right_elements``) is never decided by giving a per-thread value one value for all
threads.  The real case: Triton 3.9's split-K matmul for gfx950 carries per-thread swizzle offsets out of its
loop in a ``<2 x i32>`` phi; with that lane left free and set to 0 in every thread, the old code refuted a
correct ``local_load`` (a false refutation); now the vector phi is modelled lane by lane and it is proved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.lowered import divergence, guards
from llverify.lowered.guards import control_flow
from llverify.lowered.llir import parse_llir
from llverify.lowered.uniform import nonuniform
from llverify.lowered.validate import validate_texts

DATA = Path(__file__).resolve().parent / "data" / "lowered"

CFG = """define void @k(i32 %n, ptr addrspace(1) %g) {
entry:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %u = add i32 %n, %c
  %ld = load i32, ptr addrspace(1) %g, align 4
  %lt = icmp ult i32 %t, 16
  br i1 %lt, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %d = phi i32 [ 0, %a ], [ 64, %b ]
  %un = icmp ult i32 %n, 3
  br i1 %un, label %x, label %y
x:
  br label %join2
y:
  br label %join2
join2:
  %e = phi i32 [ 1, %x ], [ 2, %y ]
  %vt = insertelement <2 x i32> poison, i32 %t, i64 0
  br label %loop
loop:
  %i = phi i32 [ 0, %join2 ], [ %in, %loop ]
  %v = phi <2 x i32> [ %vt, %join2 ], [ %v, %loop ]
  %in = add i32 %i, 1
  %ex = icmp slt i32 %in, %n
  br i1 %ex, label %loop, label %out
out:
  ret void
}
"""


@pytest.fixture(scope="module")
def fn():  # noqa: ANN201 - a parsed function
    return parse_llir(CFG).functions[0]


def test_values_from_arguments_and_the_cta_id_are_uniform(fn) -> None:  # noqa: ANN001
    assert nonuniform(fn, ["%n:32", "%u:32", "%c:32"], control_flow(fn)) == []


def test_the_thread_id_a_load_and_their_users_are_not(fn) -> None:  # noqa: ANN001
    assert nonuniform(fn, ["%t:32", "%ld:32", "%lt:1"], control_flow(fn)) == ["%t:32", "%ld:32", "%lt:1"]


def test_a_join_of_a_branch_on_the_thread_id_diverges_a_join_of_a_uniform_branch_does_not(fn) -> None:  # noqa: ANN001
    assert nonuniform(fn, ["%d.choice:1", "%e.choice:1"], control_flow(fn)) == ["%d.choice:1"]


def test_a_loop_with_a_uniform_trip_count_has_a_uniform_header(fn) -> None:  # noqa: ANN001
    assert nonuniform(fn, ["%i.choice:1", "%i:32"], control_flow(fn)) == []


def test_a_vector_phi_lane_carrying_the_thread_id_is_not_uniform(fn) -> None:  # noqa: ANN001
    assert nonuniform(fn, ["%v#0:32"], control_flow(fn)) == ["%v#0:32"]


def test_a_value_carried_out_of_a_loop_that_threads_leave_at_different_iterations_diverges() -> None:
    text = CFG.replace("%ex = icmp slt i32 %in, %n", "%ex = icmp slt i32 %in, %t").replace(
        "out:\n  ret void", "out:\n  %last = phi i32 [ %i, %loop ]\n  ret void")
    f = parse_llir(text).functions[0]
    assert nonuniform(f, ["%last:32"], control_flow(f)) == ["%last:32"]
    uniform_exit = parse_llir(CFG.replace("out:\n  ret void", "out:\n  %last = phi i32 [ %i, %loop ]\n  ret void"))
    g = uniform_exit.functions[0]
    assert nonuniform(g, ["%last:32"], control_flow(g)) == []


def test_a_mutant_that_trusts_loads_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(divergence, "_source", lambda ins: ins.opcode == "call" and "tid" in ins.body)
    f = parse_llir(CFG).functions[0]
    assert nonuniform(f, ["%ld:32"], control_flow(f)) == []  # the mutant calls a loaded value uniform: the test above fails


def test_the_gfx950_split_k_local_load_is_proved_not_refuted() -> None:
    stem = DATA / "splitk_matmul-k-hip_gfx950-w4"
    shared = json.loads(stem.with_suffix(".json").read_text())["shared"]
    results = validate_texts(stem.with_suffix(".ttgir").read_text(), str(stem.with_suffix(".ttgir")),
                             stem.with_suffix(".llir").read_text(), str(stem.with_suffix(".llir")), shared)
    statuses = [r.finding.verdict.status for r in results]
    assert "refuted" not in statuses and "error" not in statuses
    line725 = [r.finding.verdict for r in results
               if r.finding.verdict.property == "right_elements" and r.lowered.line == 725]
    assert [v.status for v in line725] == ["proved"], [v.message for v in line725]


def test_validate_reads_each_functions_control_flow_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The uniformity of the right_elements claims is read from the ControlFlow that validate computed for the
    path conditions, not from a second computation (the old code ran the whole analysis again behind a cache
    in uniform.py): every run of the analysis on a function with a branch computes its dominators once."""
    stem = DATA / "splitk_matmul-k-hip_gfx950-w4"  # a loop, and right_elements claims that ask for uniformity
    runs: list[int] = []
    real = guards.dominators
    monkeypatch.setattr(guards, "dominators", lambda *args: runs.append(1) or real(*args))
    llir = stem.with_suffix(".llir").read_text()
    results = validate_texts(stem.with_suffix(".ttgir").read_text(), "m.ttgir", llir, "m.llir", 1 << 16)
    assert any(r.finding.verdict.property == "right_elements" for r in results)
    assert len(runs) == len(parse_llir(llir).functions) == 1
