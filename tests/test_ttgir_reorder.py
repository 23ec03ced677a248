"""tt.cat and tt.reshape {allow_reorder}: each thread keeps its registers (the op leaves the order free)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

MORE = Path(__file__).resolve().parent / "data" / "ttgir" / "more_kernels"
MODULES = sorted(MORE.glob("cat_reorder-*.ttgir"))


def _shape(text: str, name: str) -> list:
    return [f for f in check_module(parse_module(text, name))
            if f.rule == "shape_op" and f.op in ("tt.cat", "tt.reshape")]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_real_cat_and_reorder_reshape_prove(path: Path) -> None:
    found = _shape(path.read_text(), path.name)
    assert {f.op for f in found} == {"tt.cat", "tt.reshape"}
    assert all(f.verdict.status == "proved" for f in found), [f.verdict.message for f in found]


def test_a_broadcasting_result_needs_other_threads_data() -> None:
    """Mutant: the reshape's result layout re-declared so each thread holds 16 registers (warps broadcast
    along dim0) where the operand gives it 4: refuted, with both counts."""
    path = next(p for p in MODULES if "cuda_90" in p.name)
    text = path.read_text()
    old = "#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>"
    assert old in text
    mutant = text.replace(old, "#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], "
                               "warpsPerCTA = [4, 1], order = [1, 0]}>")
    found = _shape(mutant, "mutant.ttgir")
    bad = [f for f in found if f.verdict.status == "refuted"]
    assert [f.op for f in bad] == ["tt.reshape"]
    sides = bad[0].verdict.counterexample.sides
    assert sides["registers per thread (operands)"] == 4 and sides["registers per thread (result)"] == 16
    assert all(f.verdict.status == "proved" for f in found if f.op == "tt.cat")
