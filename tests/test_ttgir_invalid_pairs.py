"""An op whose operand and result are not over the same tensor (invalid IR: Triton's verifier refuses it; a fuzzed
or hand-edited module can hold it) is refuted at the op with both sides' sizes as the witness: never an ``error``
finding (which means a bug in llverify) and never a traceback."""

from __future__ import annotations

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

HEAD = """#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @k(%x: tensor<32x32xf32, #a>, %r: tensor<32xi32, #ttg.slice<{dim = 0, parent = #a}>>) {
"""
TAIL = """    tt.return
  }
}
"""


@pytest.mark.parametrize("line,rule,sizes", [
    ("%y = ttg.convert_layout %x : tensor<32x32xf32, #a> -> tensor<32x64xf32, #b>", "conversion",
     ({"dim0": 32, "dim1": 32}, {"dim0": 32, "dim1": 64})),
    ("%y = tt.expand_dims %r {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #a}>> -> "
     "tensor<1x64xi32, #a>", "shape_op", ({"dim0": 1, "dim1": 32}, {"dim0": 1, "dim1": 64})),
])
def test_an_operand_and_result_over_different_tensors_are_refuted(line: str, rule: str, sizes) -> None:
    findings = check_module(parse_module(HEAD + "    " + line + "\n" + TAIL, "m.ttgir"))
    assert not [f for f in findings if f.verdict.status == "error"], [f.verdict.message for f in findings]
    (bad,) = [f for f in findings if f.rule == rule]
    assert bad.verdict.status == "refuted" and bad.location.line == 5
    cx = bad.verdict.counterexample
    assert cx is not None and set(cx.sides) == {"operand", "result"}
    if sizes is not None:
        assert (cx.sides["operand"]["tensor"], cx.sides["result"]["tensor"]) == sizes


def test_a_shape_op_on_a_tensor_typed_with_a_memory_layout_is_no_internal_error() -> None:
    """``tt.broadcast`` of tensors whose encoding is a shared (memory) layout: the layout rule refutes each type;
    the shape-op claim has no register distribution to compare and is ``unknown`` (it was an internal error)."""
    text = (HEAD.replace("#b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                         "order = [1, 0]}>", "#b = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, "
                         "order = [1, 0]}>")
            + "    %c = arith.constant dense<1> : tensor<32x1xi32, #b>\n"
            + "    %y = tt.broadcast %c : tensor<32x1xi32, #b> -> tensor<32x4xi32, #b>\n" + TAIL)
    findings = check_module(parse_module(text, "m.ttgir"))
    assert not [f for f in findings if f.verdict.status == "error"], [f.verdict.message for f in findings]
    (shape,) = [f for f in findings if f.rule == "shape_op"]
    assert shape.verdict.status == "unknown" and "memory layout" in shape.verdict.message
    assert any(f.rule == "layout" and f.verdict.status == "refuted" for f in findings)


def test_a_conversion_between_layouts_of_a_million_lanes_is_not_costed() -> None:
    """``threadsPerWarp = [1048576]`` (a fuzzed module): the thread-count rule refutes the layout, and the
    conversion's bank cost, which walks every lane of a warp, is not computed (it took seconds)."""
    big = ("#c = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1048576], warpsPerCTA = [4], order = [0]}>\n"
           "#d = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [1048576], warpsPerCTA = [4], order = [0]}>\n")
    text = (big + HEAD + "    %z = arith.constant dense<1.0> : tensor<8388608xf32, #c>\n"
            "    %y = ttg.convert_layout %z : tensor<8388608xf32, #c> -> tensor<8388608xf32, #d>\n" + TAIL)
    findings = check_module(parse_module(text, "m.ttgir"))
    (cvt,) = [f for f in findings if f.rule == "conversion"]
    assert cvt.verdict.details.get("classification") == "shared_memory"
    assert "1048576 lanes per warp" in cvt.verdict.details["cost"]["swizzle"]
    assert any(f.verdict.property == "thread_counts" and f.verdict.status == "refuted" for f in findings)
