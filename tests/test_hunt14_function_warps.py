"""hunt14: a function's own ``"ttg.num-warps"`` is the warp count in force inside it.

Gluon compiles each ``warp_specialize`` partition's callee as a separate ``tt.func`` carrying its partition's warp
count (``attributes {..., "ttg.num-warps" = 1 : i32}``); ``GluonInline`` later inlines it into the partition region.
In the dump stage before that pass (``tests/data/hunt14/ws3_before_gluon_inline-cuda_90-w4.ttgir``: the hunt14
kernel ``ws3`` with partitions of 4 and 1 warps, ``MLIR_ENABLE_DUMP=1``, Triton 3.9) the 1-warp partition's
function holds 1-warp layouts in a 4-warp module.  The gate took the module's 4 warps as in force there and
refuted three ``layout`` obligations ("the layout is for 1 warps, the module runs 4") on Triton's correct output.
"""

from __future__ import annotations

from pathlib import Path

from llverify.ttgir.gate import gate_text
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).parent / "data" / "hunt14"
REAL = DATA / "ws3_before_gluon_inline-cuda_90-w4.ttgir"
TINY = "kernels._ws_tiny__Pfp32_Pfp32_c64_c32_MDfp32S64_32SLSSS_4_2_4_1_0__SSSLAS64_32ASMD_NW1"


def _module(fn_attrs: str, warps_per_cta: int = 1) -> str:
    """A 4-warp module whose private function (what a 1-warp partition calls) loads and stores a 64-element
    vector in a blocked layout of ``warps_per_cta`` warps; ``fn_attrs`` is the function's attribute text."""
    return f"""#blocked = #ttg.blocked<{{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [{warps_per_cta}], order = [0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func private @part(%x: !tt.ptr<f32>) {fn_attrs} {{
    %o = tt.make_range {{end = 64 : i32, start = 0 : i32}} : tensor<64xi32, #blocked>
    %p = tt.splat %x : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %q = tt.addptr %p, %o : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %v = tt.load %q : tensor<64x!tt.ptr<f32>, #blocked>
    tt.store %q, %v : tensor<64x!tt.ptr<f32>, #blocked>
    tt.return
  }}
}}
"""


def _layout_statuses(text: str) -> list[str]:
    return [f.verdict.status for f in gate_text(text) if f.rule == "layout" and f.verdict.property == "thread_counts"]


def test_reader_keeps_the_function_warp_count() -> None:
    m = parse_module(REAL.read_text(), str(REAL))
    warps = {f.name: f.num_warps for f in m.functions}
    assert warps["ws3"] is None  # the kernel prints no count of its own: the module's 4
    assert warps[TINY] == 1
    assert warps["kernels._ws_worker__Pfp32_Pfp32_c64_c32_MDfp32S64_32SLSSS_4_2_4_1_0__SSSLAS64_32ASMD_NW4"] == 4


def test_real_stage_before_gluon_inline_is_not_refuted() -> None:
    findings = gate_text(REAL.read_text(), str(REAL))
    assert not [f for f in findings if f.verdict.status == "refuted"]
    tiny = [f for f in findings if f.kernel == TINY and f.rule == "layout"]
    assert len(tiny) >= 6 and all(f.verdict.status == "proved" for f in tiny)


def test_one_warp_function_proves_one_warp_layout() -> None:
    got = _layout_statuses(_module('attributes {noinline = false, "ttg.num-warps" = 1 : i32}'))
    assert got and set(got) == {"proved"}


def test_mutants_are_refuted() -> None:
    # the function states 2 warps: a 1-warp layout is wrong there
    assert "refuted" in _layout_statuses(_module('attributes {"ttg.num-warps" = 2 : i32}'))
    # no count of its own: the module's 4 warps are in force
    assert "refuted" in _layout_statuses(_module("attributes {noinline = false}"))
    # a 4-warp layout in a 1-warp function
    assert "refuted" in _layout_statuses(_module('attributes {"ttg.num-warps" = 1 : i32}', warps_per_cta=4))
    # and the module's own count still decides a 4-warp layout in a function without one
    assert set(_layout_statuses(_module("attributes {noinline = false}", warps_per_cta=4))) == {"proved"}
