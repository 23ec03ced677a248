"""Loops after ``convert-scf-to-cf`` (the late TTGIR snapshots of an MLIR_ENABLE_DUMP dump): the loop state is the
arguments of a labelled block, fed by ``cf.br`` / ``cf.cond_br``; a buffer index carried there is enumerated over
the orbit of the values the branches pass (llverify.ttgir.scalars, llverify.ttgir.branches).  Until this was read,
every pipelined loop's ``ttg.memdesc_index`` was unknown in those snapshots (80 per warp-specialized matmul dump)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import gate_text
from llverify.ttgir.reader import parse_module
from llverify.ttgir.scalars import ValueSets

HUNT = Path(__file__).resolve().parent / "data" / "hunt"
SMALL = (HUNT / "cf_loop_buffer_index.ttgir").read_text()
REAL = HUNT / "cf_pipelined_matmul_cuda100.mlir"  # Triton 3.9's snapshot before GluonInline, cuda:100


def _buffer_index(text: str) -> list:
    return [f.verdict for f in gate_text(text, "m.ttgir") if f.rule == "buffer_index"]


def _sets(text: str) -> ValueSets:
    return ValueSets(parse_module(text, "m.ttgir").functions[0])


def test_a_counter_carried_by_a_block_argument_is_proved_in_bounds() -> None:
    (v,) = _buffer_index(SMALL)
    assert v.status == "proved" and v.method == "exhaustive"
    assert v.certificate["compared"]["reachable index values"] == [0, 1, 2]


def test_value_sets_of_block_arguments() -> None:
    vs = _sets(SMALL)
    assert vs.value_set("%s") == frozenset({0, 1, 2}) and vs.value_set("%s2") == frozenset({0, 1, 2})
    assert vs.value_set("%it") is None  # counts up to a kernel argument: not enumerable


def test_a_counter_that_wraps_one_too_late_is_not_proved() -> None:
    mutant = SMALL.replace("%w = arith.cmpi eq, %s1, %c3 : i32", "%w = arith.cmpi eq, %s1, %c4 : i32").replace(
        "%c3 = arith.constant 3 : i32", "%c3 = arith.constant 3 : i32\n    %c4 = arith.constant 4 : i32")
    assert mutant != SMALL
    (v,) = _buffer_index(mutant)
    # index 3 of 3 buffers is reached after three iterations: real, but only for a long enough loop, as for scf.for
    assert v.status == "unknown" and "3" in v.message and "once the loop runs long enough" in v.message


def test_a_state_entering_from_a_kernel_argument_is_not_enumerated() -> None:
    text = SMALL.replace("cf.br ^bb1(%c0, %c0 : i32, i32)", "cf.br ^bb1(%c0, %n : i32, i32)")
    assert _sets(text).value_set("%s") is None
    assert [v.status for v in _buffer_index(text)] != ["proved"] or \
        _buffer_index(text)[0].method == "smt"  # only Z3 may still bound it, never the enumeration


def test_an_unread_branch_in_the_region_gives_no_value_set() -> None:
    text = SMALL.replace("cf.cond_br %go, ^bb2, ^bb3",
                         "cf.switch %it : i32, [\n      default: ^bb2,\n      5: ^bb1(%c0, %c1 : i32, i32)\n    ]")
    assert _sets(text).value_set("%s") is None


def test_a_branch_passing_another_blocks_argument_gives_no_value_set() -> None:
    text = SMALL.replace("cf.br ^bb1(%it1, %s2 : i32, i32)", "cf.br ^bb4(%s2 : i32)\n  ^bb4(%t: i32):\n"
                         "    cf.br ^bb1(%it1, %t : i32, i32)")
    vs = _sets(text)
    # ^bb1's back edge passes ^bb4's argument, whose one edge passes ^bb1's state: a state spread over two blocks
    # is not enumerated (no claim), nor is either half alone
    assert vs.value_set("%s") is None and vs.value_set("%t") is None
    assert vs.value_set("%s2") is None


def test_every_branch_is_taken_from_every_state() -> None:
    # a second back edge that resets the counter to 7: the orbit holds 7 (a superset of one run's states) and so
    # the index is not proved in bounds
    text = SMALL.replace("cf.cond_br %go, ^bb2, ^bb3", "cf.cond_br %go, ^bb2, ^bb5\n  ^bb5:\n"
                         "    %c7 = arith.constant 7 : i32\n    cf.cond_br %go, ^bb1(%it, %c7 : i32, i32), ^bb3")
    assert 7 in (_sets(text).value_set("%s") or {7})
    assert [v.status for v in _buffer_index(text)] == ["unknown"]


@pytest.mark.parametrize("path", [REAL], ids=lambda p: p.name)
def test_a_real_late_snapshot_proves_every_buffer_index(path: Path) -> None:
    found = [f for f in gate_text(path.read_text(), path.name) if f.rule == "buffer_index"]
    assert found and all(f.verdict.status == "proved" for f in found), [f.verdict.message for f in found]
