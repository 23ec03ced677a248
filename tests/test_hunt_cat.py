"""`tt.cat` whose layouts repeat register bases (found by running the gate over Triton's lit tests).

Triton 3.9 lowers `tt.cat` on the distinct registers: it drops each operand's broadcast registers (zero
register bases), concatenates the rest in order, and duplicates them again for the result's zero register
bases; its verifier requires the result's non-broadcast register count to equal the operands' sum.  The gate
used to compare register counts with the duplicates included (16 against 4 + 4), a false refutation of IR
Triton accepts and lowers (checked with the wheel: each thread stores its 4 + 4 values).  The mutant moves the
zero basis from register to warp, so the result needs 16 distinct registers: Triton rejects it ("requires 16
non-broadcast register values, but operands provide 8") and the gate must refute it."""

from __future__ import annotations

from pathlib import Path

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).parent / "data" / "hunt"


def _cat_findings(name: str):
    module = parse_module((DATA / name).read_text(), name)
    return [f for f in check_module(module) if f.op == "tt.cat" and f.verdict.property == "shape_op"]


def test_cat_into_a_result_with_a_zero_register_basis_is_proved() -> None:
    fs = _cat_findings("cat_broadcast_result.mlir")
    assert [f.verdict.status for f in fs] == ["proved"]
    everything = check_module(parse_module((DATA / "cat_broadcast_result.mlir").read_text(), "c.mlir"))
    assert not [f for f in everything if f.verdict.status != "proved"]


def test_cat_needing_more_distinct_registers_is_refuted() -> None:
    fs = _cat_findings("cat_broadcast_result_mutant.mlir")
    assert [f.verdict.status for f in fs] == ["refuted"]
    sides = fs[0].verdict.counterexample.sides
    assert sides["registers per thread (operands)"] == 8
    assert sides["registers per thread (result)"] == 16
