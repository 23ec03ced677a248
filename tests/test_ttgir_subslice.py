"""Subviews stay inside their allocation: ``ttg.memdesc_subslice`` with Triton 3.9's printed offsets
(``%0[0, 32]``, right after the operand; they used to be unread and every subslice ended unknown) and
``ttng.tmem_subslice`` with its column ``offset``.  Each module text is as Triton 3.9's own printer
writes it; each mutant moves the window past the allocation and must be refuted."""

from __future__ import annotations

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

SHARED = """\
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f() {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %1 = ttg.memdesc_subslice %0[0, 32] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable, 64x64>
    tt.return
  }
}
"""

TMEM = """\
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f() {
    %result = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>
    %0 = ttng.tmem_subslice %result {offset = 64 : i32} : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x128>
    tt.return
  }
}
"""


def _views(text: str):
    return [f for f in check_module(parse_module(text, "m.ttgir")) if f.rule == "view_in_bounds"]


@pytest.mark.parametrize("text", [SHARED, TMEM, SHARED.replace("%0[0, 32]", "%0 [0, 32]"),
                                  TMEM.replace("offset = 64", "N = 64")])
def test_printed_subslices_are_proved_in_bounds(text: str) -> None:
    views = _views(text)
    assert len(views) == 1 and views[0].verdict.status == "proved", views
    assert views[0].location.line == 6 if "memdesc_subslice" in text else views[0].location.line == 5


@pytest.mark.parametrize("text, reach", [
    (SHARED.replace("%0[0, 32]", "%0[0, 48]"), {"offset": 48, "view size": 32, "allocation size": 64}),
    (SHARED.replace("%0[0, 32]", "%0[8, 0]"), {"offset": 8, "view size": 64, "allocation size": 64}),
    (TMEM.replace("offset = 64", "offset = 96"), {"offset": 96, "view size": 64, "allocation size": 128}),
    (TMEM.replace("offset = 64", "N = 72"), {"offset": 72, "view size": 64, "allocation size": 128}),
])
def test_a_window_past_the_allocation_is_refuted(text: str, reach: dict) -> None:
    (v,) = _views(text)
    assert v.verdict.status == "refuted"
    sides = v.verdict.counterexample.sides
    assert {k: sides[k] for k in reach} == reach
    assert reach["offset"] + reach["view size"] > reach["allocation size"]
