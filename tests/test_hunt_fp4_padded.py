"""`fp4Padded` NVMMA shared buffers (Blackwell mxfp4 operands): found on Triton 3.9's own output.

Triton 3.9 stages the packed e2m1 operand of an mxfp8 x mxfp4 `tl.dot_scaled` (cuda:100) in a buffer whose
layout pads every 8 data bytes to 16; its linear layout maps offset bit 3 to nothing (Triton's own
`to_linear_layout` of `!ttg.memdesc<64x128xi8, #nvmma_shared<{128, transposed, 8, fp4Padded}>>` has the
offset bases [1,0] [2,0] [4,0] [0,0] [8,0] ...).  The gate's `layout` claim (a memory layout, definition
4.14) refuted every such buffer of a correct kernel.  The claim is now made on the data bytes: the layout
without that padding column must be a memory layout; any other zero column is still refuted."""

from __future__ import annotations

from pathlib import Path

from llverify.layout import LinearLayout
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rule_support import memo_memory

DATA = Path(__file__).parent / "data" / "hunt"

# Triton 3.9's to_linear_layout of the buffer type above (tests/oracle_triton.py run_type_cases), offset bases
TRITON_OFFSETS = [[1, 0], [2, 0], [4, 0], [0, 0], [8, 0], [16, 0], [32, 0], [8, 1], [16, 2], [32, 4], [0, 8],
                  [0, 16], [0, 32], [0, 64], [0, 128]]


def _layout_findings(text: str):
    fs = check_module(parse_module(text, "fp4.mlir"))
    return [f for f in fs if f.op == "ttg.local_alloc" and f.verdict.property == "memory"]


def test_the_padded_buffer_is_a_memory_layout_on_its_data_bytes() -> None:
    (f,) = _layout_findings((DATA / "fp4_padded_alloc.mlir").read_text())
    assert f.verdict.status == "proved", f.verdict.message
    assert "fp4_padded" in f.verdict.details


def test_the_layout_checked_is_tritons() -> None:
    L = LinearLayout({"offset": TRITON_OFFSETS, "block": []}, {"dim0": 64, "dim1": 256}, require_surjective=False)
    assert memo_memory(L, fp4_padded=True).status == "proved"
    assert memo_memory(L).status == "refuted"  # without the flag, the padding column is a real alias


def test_a_zero_column_other_than_the_padding_is_refuted() -> None:
    moved = [list(b) for b in TRITON_OFFSETS]
    moved[3], moved[4] = moved[4], moved[3]  # the zero column at offset bit 4 (byte 16): not fp4 padding
    L = LinearLayout({"offset": moved, "block": []}, {"dim0": 64, "dim1": 256}, require_surjective=False)
    assert memo_memory(L, fp4_padded=True).status == "refuted"


def test_without_fp4_padded_the_same_gap_is_refuted() -> None:
    # a shared_linear layout with Triton's bases but no fp4Padded flag: two offsets alias one element
    bases = ", ".join(f"[{a}, {b}]" for a, b in TRITON_OFFSETS)
    text = (DATA / "fp4_padded_alloc.mlir").read_text().replace(
        "#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8, "
        "fp4Padded = true}>",
        f"#shared = #ttg.shared_linear<{{offset = [{bases}]}}, alignment = 1024>").replace(
        "64x128xi8, #shared", "64x256xi8, #shared").replace(
        "(tensor<64x128xi8, #blocked>) -> !ttg.memdesc<64x256xi8", "(tensor<64x256xi8, #blocked>) -> "
        "!ttg.memdesc<64x256xi8").replace("%y = tt.load %p : tensor<64x128x!tt.ptr<i8>, #blocked>",
                                          "%y = tt.load %p : tensor<64x256x!tt.ptr<i8>, #blocked>").replace(
        "%p: tensor<64x128x!tt.ptr<i8>, #blocked>", "%p: tensor<64x256x!tt.ptr<i8>, #blocked>")
    fs = _layout_findings(text)
    assert [f.verdict.status for f in fs] == ["refuted"]
