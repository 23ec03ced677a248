"""Ops the gate did not relate layouts for.

* ``amdg.in_thread_transpose`` (AMD's register-only conversion) is checked for thread locality: on Triton's own
  output it is proved; a mutant result layout that gives a thread another thread's element is refuted with the
  thread and the element.
* AMD buffer stores and atomics get the broadcast-store claim (their lowering uses the same free-variable
  predicate as ``tt.store``), and buffer loads the elementwise one.
* An op no rule models whose result layout differs from an operand's is ``unknown`` (``unmodelled_op``), never
  silently passed; the same op between equal layouts gives no finding.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).parent / "data" / "ttgir"

HEADER = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#same = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k() {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #blocked>
"""
FOOTER = """\
    tt.return
  }
}
"""


def _findings(body: str, rule: str | None = None):
    found = check_module(parse_module(HEADER + body + FOOTER, "m.ttgir"))
    return [f for f in found if rule is None or f.rule == rule]


@pytest.mark.parametrize("name", ["ttg.frobnicate", "mydialect.thing"])
def test_unmodelled_op_that_changes_the_layout_is_unknown(name: str) -> None:
    found = _findings(f"    %b = {name} %cst : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked2>\n",
                      "unmodelled_op")
    assert [f.verdict.status for f in found] == ["unknown"]
    assert name in found[0].verdict.message and "not modelled" in found[0].verdict.message
    assert found[0].location.line == 7


@pytest.mark.parametrize("result", ["#blocked", "#same"])
def test_unmodelled_op_between_equal_layouts_gives_no_finding(result: str) -> None:
    # "#same" is #blocked written as a linear layout: a different text, an equal layout (proved, not assumed)
    assert _findings(f"    %b = ttg.frobnicate %cst : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, {result}>\n",
                     "unmodelled_op") == []


def test_known_ops_are_not_reported_as_unmodelled() -> None:
    found = [f for p in sorted(CORPUS.glob("*.ttgir"))[:60]
             for f in check_module(parse_module(p.read_text(), str(p))) if f.rule == "unmodelled_op"]
    assert found == []


def _in_thread_module() -> tuple[str, str]:
    path = CORPUS / "attention-q64k64d64-hip_gfx942-w4.ttgir"
    text = path.read_text()
    assert "amdg.in_thread_transpose" in text
    return text, str(path)


def test_in_thread_transpose_on_triton_output_is_proved() -> None:
    text, path = _in_thread_module()
    found = [f for f in check_module(parse_module(text, path)) if f.rule == "in_thread"]
    assert found and all(f.verdict.status == "proved" for f in found)


def test_in_thread_transpose_that_crosses_threads_is_refuted() -> None:
    text, path = _in_thread_module()
    line = next(ln for ln in text.splitlines() if ln.startswith("#linear = "))
    # swap the first register basis with the first lane basis: lane 1 now holds what register 1 of lane 0 held
    mutant_line = line.replace("register = [[1, 0]", "register = [[0, 1]").replace("lane = [[0, 1]", "lane = [[1, 0]")
    assert mutant_line != line
    found = [f for f in check_module(parse_module(text.replace(line, mutant_line), path)) if f.rule == "in_thread"]
    refuted = [f for f in found if f.verdict.status == "refuted"]
    assert refuted, [f.verdict.status for f in found]
    assert refuted[0].verdict.counterexample is not None


def test_amd_buffer_stores_get_the_broadcast_claim() -> None:
    path = CORPUS / "layer_norm-n1024-hip_gfx942-w4.ttgir"
    found = [f for f in check_module(parse_module(path.read_text(), str(path)))
             if f.op == "amdg.buffer_store" and f.rule == "broadcast_store"]
    assert found and all(f.verdict.status == "proved" for f in found)


def test_amd_buffer_load_offsets_must_match_the_result() -> None:
    body = ("    %p = tt.get_program_id x : i32\n"
            "    %o = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>\n"
            "    %x = amdg.buffer_load %arg[%o] : !tt.ptr<f32> -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>\n")
    text = HEADER.replace("@k()", "@k(%arg: !tt.ptr<f32>)") + body + FOOTER
    found = [f for f in check_module(parse_module(text, "m.ttgir")) if f.op == "amdg.buffer_load"
             and f.rule == "same_layout"]
    assert [f.verdict.status for f in found] == ["refuted"]


SCALED = CORPUS / "scaled_dot"


def _rule(path: Path, rule: str, text: str | None = None):
    text = path.read_text() if text is None else text
    return [f for f in check_module(parse_module(text, str(path))) if f.rule == rule]


@pytest.mark.parametrize("module", ["scaled_dot-e2m1-m128n128k128-cuda_80-w4", "scaled_dot-e2m1-m128n128k128-cuda_90-w4",
                                    "scaled_dot-e2m1-m128n128k128-hip_gfx942-w4"])
def test_fp4_upcasts_on_triton_output_are_proved(module: str) -> None:
    found = _rule(SCALED / f"{module}.ttgir", "fp4_upcast")
    assert len(found) == 2 and all(f.verdict.status == "proved" for f in found)


def test_fp4_upcast_into_another_threads_layout_is_refuted() -> None:
    path = SCALED / "scaled_dot-e2m1-m128n128k128-cuda_80-w4.ttgir"
    text = path.read_text()
    line = next(ln for ln in text.splitlines() if "ttg.fp4_to_fp" in ln and "axis = 1" in ln)
    # the unpacked A with kWidth 4 instead of 8: each thread's 4 bf16 per k-run would need bytes that another lane
    # holds (Triton's rule is kWidth(result) = 2 x kWidth(packed operand))
    mutant = line.replace("kWidth = 8}>> loc", "kWidth = 4}>> loc")
    assert mutant != line
    found = _rule(path, "fp4_upcast", text.replace(line, mutant))
    statuses = sorted(f.verdict.status for f in found)
    assert statuses == ["proved", "refuted"], statuses
    bad = next(f for f in found if f.verdict.status == "refuted")
    assert bad.location.line == text.splitlines().index(line) + 1
    assert bad.verdict.counterexample is not None


def test_halve_axis_drops_the_nibble_bit() -> None:
    from llverify.layout import LinearLayout
    from llverify.ttgir.rules_data import halve_axis

    R = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4]]}, ["dim0"])
    H = halve_axis(R, "dim0")
    assert dict(H.out_dims) == {"dim0": 4}
    for reg in range(2):
        for lane in range(4):
            assert H.apply({"register": reg, "lane": lane})["dim0"] == R.apply({"register": reg, "lane": lane})["dim0"] >> 1


GFX950 = SCALED / "scaled_dot-e4m3-m128n128k128-hip_gfx950-w4.ttgir"


def test_scaled_dot_operands_and_scales_on_gfx950_are_decided() -> None:
    """The operands are checked as dot operands, and both scale layouts against the scaled MFMA's (F2 equality,
    ``llverify.hw.mfma_scale``; their mutants are refuted in tests/test_dot_scaled.py): nothing is left unknown."""
    found = [f for f in check_module(parse_module(GFX950.read_text(), str(GFX950))) if f.op == "tt.dot_scaled"]
    assert found and all(f.verdict.status == "proved" for f in found), [f.verdict.message for f in found]
    assert not any(f.rule == "unmodelled_op" for f in found)
    scales = [f for f in found if "scale of" in f.verdict.subject]
    assert len(scales) == 2, [f.verdict.subject for f in found]  # A's and B's scale layouts, each proved == 2  # the two scales, named as such
    assert all("scale" in f.verdict.message for f in found if f.verdict.status == "unknown")


def test_scaled_dot_with_swapped_operand_index_is_refuted() -> None:
    text = GFX950.read_text()
    line = next(ln for ln in text.splitlines() if "tt.dot_scaled" in ln)
    mutant = line.replace("tensor<128x128xf8E4M3FN, #ttg.dot_op<{opIdx = 0", "tensor<128x128xf8E4M3FN, #ttg.dot_op<{opIdx = 1", 1)
    assert mutant != line
    found = [f for f in check_module(parse_module(text.replace(line, mutant), str(GFX950)))
             if f.op == "tt.dot_scaled" and f.verdict.status == "refuted"]
    assert found and found[0].rule in ("dot_operands", "use_type")


ASYNC = Path(__file__).parent / "data" / "lowered" / "pipelined_tf32x3-cuda_80-w4.ttgir"


def test_async_copies_are_checked_and_their_wavefronts_unknown() -> None:
    found = [f for f in check_module(parse_module(ASYNC.read_text(), str(ASYNC)))
             if f.op == "ttg.async_copy_global_to_local"]
    structural = [f for f in found if f.verdict.property == "async_copy"]
    banks = [f for f in found if f.verdict.property == "bank_conflicts"]
    assert structural and all(f.verdict.status == "proved" for f in structural)
    assert banks and all(f.verdict.status == "unknown" and "cp.async" in f.verdict.message for f in banks)


def test_async_copy_into_a_buffer_of_another_element_type_is_refuted() -> None:
    text = ASYNC.read_text()
    # every f32 buffer of the module becomes f16: the copies' pointers still address f32
    mutant = text.replace("xf32, #shared", "xf16, #shared")
    assert mutant != text
    found = [f for f in check_module(parse_module(mutant, str(ASYNC)))
             if f.op == "ttg.async_copy_global_to_local" and f.verdict.property == "async_copy"]
    assert found and all(f.verdict.status == "refuted" for f in found)
    assert found[0].verdict.counterexample is not None


def test_a_wgmma_wait_passing_operands_of_two_layouts_through_is_not_unmodelled() -> None:
    body = ("    %c2 = ttg.convert_layout %cst : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked2>\n"
            "    %w:2 = ttng.warp_group_dot_wait %cst, %c2 {pendings = 0 : i32} : tensor<32x32xf32, #blocked>, "
            "tensor<32x32xf32, #blocked2>\n")
    assert _findings(body, "unmodelled_op") == []


def test_scaled_dot_operands_need_not_have_the_results_parent() -> None:
    # as in Triton's lit input for accelerate-matmul (sm120): dot operands of one parent, a result of another;
    # Triton's verifier checks the parent for tt.dot only
    text = GFX950.read_text()
    line = next(ln for ln in text.splitlines() if "tt.dot_scaled" in ln)
    res = line.rsplit("-> ", 1)[1].split(" loc(")[0]
    mutant = line.replace("-> " + res, "-> " + res.replace("#mma", "#blocked"))
    assert mutant != line
    text = text.replace(line, mutant)
    found = [f for f in check_module(parse_module(text, str(GFX950))) if f.op == "tt.dot_scaled"]
    operands = [f for f in found if f.rule == "dot_operands" and " operand " in f.verdict.subject]
    assert operands and not any(f.verdict.status == "refuted" for f in operands)
    # the accumulator must still have the result's layout: that one is refuted
    assert any(f.verdict.status == "refuted" and "accumulator" in f.verdict.subject for f in found)


def test_invalid_ir_is_refuted_not_an_error() -> None:
    # Triton's verifier rejects both ("requires a distributed tensor encoding"; an in-thread transpose between
    # different warp counts): the gate refutes them with the compared sizes, it does not report a tool error
    text = """\
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#one = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @f(%p: !tt.ptr<bf16>, %o: tensor<64xi32, #shared>, %x: tensor<64x64xf16, #blocked>) {
    %0 = amdg.buffer_load %p[%o] : tensor<64xbf16, #shared>
    %1 = amdg.in_thread_transpose %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #one>
    tt.return
  }
}
"""
    found = check_module(parse_module(text, "m.ttgir"))
    assert not [f for f in found if f.verdict.status == "error"]
    bad = {(f.rule, f.op) for f in found if f.verdict.status == "refuted"}
    assert ("layout", "amdg.buffer_load") in bad and ("in_thread", "amdg.in_thread_transpose") in bad
    assert all(f.verdict.counterexample is not None for f in found if f.verdict.status == "refuted")
