"""TMA copies: the shared buffer has the descriptor's block shape, element type and shared layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.types import parse_typeref

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
TMA = sorted(p for p in CORPUS.rglob("*.ttgir") if "async_tma_copy" in p.read_text())
NVMMA = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"


@pytest.mark.parametrize("text", [f"!tt.tensordesc<128x64xf16, {NVMMA}>", f"!tt.tensordesc<tensor<128x64xf16, {NVMMA}>>"])
def test_tensordesc_is_read_in_both_spellings(text: str) -> None:
    t = parse_typeref(text, {})
    assert (t.kind, t.shape, t.element) == ("tensordesc", (128, 64), "f16")
    assert t.encoding is not None and t.encoding["swizzle_byte_width"] == 128


def _tma_findings(text: str, name: str) -> list:
    return [f for f in check_module(parse_module(text, name)) if f.rule == "tma_buffer"]


def test_corpus_tma_copies_use_the_descriptor_layout() -> None:
    assert len(TMA) >= 4
    n = 0
    for path in TMA:
        for f in _tma_findings(path.read_text(), str(path)):
            assert f.verdict.status == "proved", (path.name, f.verdict.message)
            n += 1
    assert n >= 20


def _matmul() -> str:
    return next(p for p in TMA if p.name == "tma_matmul-cuda_90.ttgir").read_text()


def test_a_descriptor_with_another_swizzle_is_refuted() -> None:
    """Mutant: the A descriptor is declared with a 64-byte swizzle while its buffer keeps 128 bytes."""
    text = _matmul()
    alias = "#sharedX = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>\n"
    mutant = alias + text.replace("!tt.tensordesc<128x64xf16, #shared>", "!tt.tensordesc<128x64xf16, #sharedX>")
    found = _tma_findings(mutant, "mutant.ttgir")
    refuted = [f for f in found if f.verdict.status == "refuted"]
    assert refuted and all("128x64" in f.verdict.subject or "#sharedX" in f.verdict.subject for f in refuted)
    assert all(f.verdict.counterexample is not None for f in refuted)
    # the B copies (64x128, untouched) still prove
    assert any(f.verdict.status == "proved" for f in found)


def test_a_descriptor_with_another_block_shape_is_refuted() -> None:
    text = _matmul()
    mutant = text.replace("!tt.tensordesc<64x128xf16, #shared>", "!tt.tensordesc<32x128xf16, #shared>")
    refuted = [f for f in _tma_findings(mutant, "mutant.ttgir") if f.verdict.status == "refuted"]
    assert refuted and all("shape" in f.verdict.message for f in refuted)
