"""``tti.dot_i8`` (an i8 dot lowered to mma.sync m16n8k32): the ``dot_operands`` rule as for ``tt.dot`` and the
``dot_i8`` rule (i8 operands of an NVIDIA MMA v2 parent, i32 MMA v2 result), on hand-written modules."""

from __future__ import annotations

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

MODULE = """#m = #ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}}>
#r = {result}
#a = #ttg.dot_op<{{opIdx = 0, parent = {parent}, kWidth = {kw}}}>
#b = #ttg.dot_op<{{opIdx = 1, parent = {parent}, kWidth = {kw}}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func @idot(%x: tensor<32x64x{ea}, #a>, %y: tensor<64x32xi8, #b>, %c: tensor<32x32xi32, #r>) -> tensor<32x32xi32, #r> {{
    %d = tti.dot_i8 %x, %y, %c, aSigned = true, bSigned = false : tensor<32x64x{ea}, #a> * tensor<64x32xi8, #b> -> tensor<32x32xi32, #r>
    tt.return %d : tensor<32x32xi32, #r>
  }}
}}
"""
BLOCKED = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"


def _dot(result: str = "#m", parent: str = "#m", kw: int = 4, ea: str = "i8") -> list:
    text = MODULE.format(result=result if result != "#m" else "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                         "warpsPerCTA = [2, 2], instrShape = [16, 8]}>", parent=parent, kw=kw, ea=ea)
    found = [f for f in check_module(parse_module(text, "m.ttgir")) if f.op == "tti.dot_i8"]
    assert found and all(f.location.line == 7 for f in found)
    return [f for f in found if f.rule in ("dot_i8", "dot_operands")]


def test_an_i8_mma_v2_dot_proves() -> None:
    got = _dot()
    assert {f.rule for f in got} == {"dot_i8", "dot_operands"}
    assert all(f.verdict.status == "proved" for f in got)


@pytest.mark.parametrize("kw,rule,why", [
    ({"result": BLOCKED, "parent": "#r"}, "dot_i8", "not in an NVIDIA MMA v2 layout"),  # an FMA dot: no mma.sync
    ({"ea": "i16"}, "dot_i8", "operand A is i16"),
    ({"kw": 2}, "dot_operands", "kWidth"),  # mma.sync takes 32 / 8 bits = 4 bytes a thread per k-run, not 2
])
def test_a_dot_mma_sync_cannot_run_is_refuted(kw: dict, rule: str, why: str) -> None:
    bad = [f for f in _dot(**kw) if f.verdict.status == "refuted"]
    assert bad and {f.rule for f in bad} == {rule}
    assert any(why in (f.verdict.message or "") or why in f.verdict.subject for f in bad)
