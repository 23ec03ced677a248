"""``amdg.mfma_commit``: pass_through (result i is operand i) and mfma_fragments (whole native CDNA4 register
fragments on a 64-lane wave), on hand-written gfx950 modules."""

from __future__ import annotations

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

MODULE = """#acc = #ttg.amd_mfma<{{version = 4, warpsPerCTA = [1, 1], instrShape = [16, 16, 32], isTransposed = true}}>
#dep = #ttg.amd_mfma<{{version = {version}, warpsPerCTA = [1, 1], instrShape = [16, 16, {k}], isTransposed = true}}>
#rhs = #ttg.dot_op<{{opIdx = 1, parent = #dep, kWidth = 8}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32}} {{
  tt.func @commit(%r: tensor<16x16xf32, #acc>, %b: tensor<{k}x16xbf16, #rhs>) {{
    %c, %p = amdg.mfma_commit %r, %b : tensor<16x16xf32, #acc>, tensor<{k}x16xbf16, {printed}>
    tt.return
  }}
}}
"""


def _commit(version: int = 4, k: int = 32, printed: str = "#rhs") -> dict[str, list[str]]:
    text = MODULE.format(version=version, k=k, printed=printed)
    out: dict[str, list[str]] = {}
    for f in check_module(parse_module(text, "m.ttgir")):
        if f.rule == "mfma_commit":
            assert f.location.line == 6
            out.setdefault(f.verdict.property, []).append(f.verdict.status)
    return out


def test_whole_fragments_pass_through() -> None:
    # 16 x 16 f32 over 64 lanes: 4 a lane; 32 x 16 bf16 B fragment: 8 a lane = 128 bits
    assert _commit() == {"pass_through": ["proved", "proved"], "mfma_fragments": ["proved"]}


@pytest.mark.parametrize("kw,prop", [
    ({"k": 4}, "mfma_fragments"),  # a 4 x 16 B fragment is 1 bf16 a lane: half a register
    ({"version": 3}, "mfma_fragments"),  # not CDNA4
    # the result claims another layout than the operand's definition (an edited module): registers reinterpreted
    ({"printed": "#ttg.dot_op<{opIdx = 1, parent = #dep, kWidth = 4}>"}, "pass_through"),
])
def test_a_partial_or_foreign_fragment_is_refuted(kw: dict, prop: str) -> None:
    got = _commit(**kw)
    assert "refuted" in got[prop]
    assert all(s != "refuted" for p, ss in got.items() if p != prop for s in ss)
