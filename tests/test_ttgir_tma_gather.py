"""TMA gather / scatter (``ttng.async_tma_gather`` / ``async_tma_scatter``): the box footprint (``tma_box``)
and the shared buffer's layout against the descriptor's (``tma_buffer``), on Triton 3.9's own cuda:100
output of examples/kernels/tma_gather.py, and mutants of it that must be refuted at the op."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

DATA = sorted((Path(__file__).resolve().parents[1] / "tests" / "data" / "ttgir" / "tma_gather").glob("*.ttgir"))
BIG = next(p for p in DATA if "r32n128" in p.name)  # 32 rows of 128 bf16, 128-byte swizzle
SMALL = next(p for p in DATA if "r8n64" in p.name)  # 8 rows of 64 bf16
SWIZZLED = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"


def _tma(text: str) -> list:
    findings = check_module(parse_module(text, "m.ttgir"))
    return [f for f in findings if f.op in ("ttng.async_tma_gather", "ttng.async_tma_scatter")]


def _line(text: str, op: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if ln.lstrip().startswith(op))


def test_real_gathers_and_scatters_prove() -> None:
    assert len(DATA) == 2
    for path in DATA:
        findings = check_module(parse_module(path.read_text(), path.name))
        assert all(f.verdict.status == "proved" for f in findings), path.name
        tma = [f for f in findings if f.op in ("ttng.async_tma_gather", "ttng.async_tma_scatter")]
        assert sorted((f.op, f.verdict.property) for f in tma) == [
            ("ttng.async_tma_gather", "target_isa"), ("ttng.async_tma_gather", "tma_box"),
            ("ttng.async_tma_gather", "tma_buffer"), ("ttng.async_tma_scatter", "target_isa"),
            ("ttng.async_tma_scatter", "tma_box"), ("ttng.async_tma_scatter", "tma_buffer")]


def test_the_box_is_one_row_per_index() -> None:
    text = SMALL.read_text()
    (box,) = [f for f in _tma(text) if f.op == "ttng.async_tma_gather" and f.verdict.property == "tma_box"]
    assert box.verdict.certificate["compared"]["buffer"] == [8, 64]
    assert box.verdict.certificate["compared"]["descriptor block"] == [1, 64]


def _gather_buffer_def(text: str) -> str:
    gather = next(ln for ln in text.splitlines() if ln.lstrip().startswith("ttng.async_tma_gather"))
    result = gather.split("]")[1].split(",")[0].strip()
    return next(ln for ln in text.splitlines() if ln.lstrip().startswith(f"{result} = ttg.local_alloc"))


@pytest.mark.parametrize("mutate,prop,why", [
    (lambda t, d: t.replace(d, d.replace("memdesc<32x128xbf16", "memdesc<32x64xbf16")), "tma_box", "columns"),
    (lambda t, d: t.replace(d, d.replace("memdesc<32x128xbf16", "memdesc<16x128xbf16")), "tma_box", "one row per"),
    (lambda t, d: t.replace(d, d.replace("#shared,", SWIZZLED.replace("128", "64", 1) + ",")), "tma_buffer", ""),
])
def test_a_gather_into_a_wrong_buffer_is_refuted_at_the_gather(mutate, prop: str, why: str) -> None:
    text = BIG.read_text()
    mutant = mutate(text, _gather_buffer_def(text))
    assert mutant != text
    bad = [f for f in _tma(mutant) if f.verdict.status == "refuted"]
    assert [(f.op, f.verdict.property) for f in bad] == [("ttng.async_tma_gather", prop)]
    assert bad[0].location.line == _line(text, "ttng.async_tma_gather") and why in bad[0].verdict.message
    if prop == "tma_buffer":  # an F2 witness: one offset holds different elements in the two layouts
        assert bad[0].verdict.counterexample is not None and bad[0].verdict.method in ("f2", "exhaustive")


def test_a_descriptor_block_of_two_rows_is_refuted() -> None:
    text = BIG.read_text()
    mutant = text.replace("!tt.tensordesc<1x128xbf16, #shared> loc(#loc15)", "!tt.tensordesc<2x64xbf16, #shared> loc(#loc15)")
    assert mutant != text
    bad = [f for f in _tma(mutant) if f.verdict.status == "refuted"]
    assert [(f.op, f.verdict.property) for f in bad] == [("ttng.async_tma_gather", "tma_box")]
    assert "one row [1, N]" in bad[0].verdict.message


def test_the_same_layout_spelled_inline_proves_by_f2() -> None:
    text = BIG.read_text()
    d = _gather_buffer_def(text)
    mutant = text.replace(d, d.replace("#shared,", SWIZZLED + ","))
    found = [f for f in _tma(mutant) if f.op == "ttng.async_tma_gather" and f.verdict.property == "tma_buffer"]
    assert [f.verdict.status for f in found] == ["proved"] and found[0].verdict.method == "f2"
