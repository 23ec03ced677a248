"""``dot_k_once``: each K element of an MMA v2 dot operand reaches the instruction from one lane.

The data are Triton 3.6's own TTGIR of a Gluon bf16 mma v2 dot whose operands state their kWidth
(``examples/gpu/small_k_kwidth.py``), and what each computed on an H200 (``h200_results.json``): with K = 16 and
kWidth = 8 the four lanes of a quad span 32 K positions, lanes 2 and 3 repeat lanes 0 and 1, and the kernel's result
is wrong; every other configuration, kWidth 4 on K = 16 included (a register bit repeats K, and Triton's lowering
drops repeated registers), is exact.  The gate must refute exactly the wrong one (triton-lang/triton PR 11691;
Triton 3.9's Gluon verifier now refuses that operand: "MMA operand layout requires K >= 4 * kWidth")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.hw.registry import build_spec
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_dot_k import WIDE_K, k_repeats

DATA = Path(__file__).resolve().parent / "data" / "ttgir_smallk"
RUNS = {r["config"]: r for r in json.loads((DATA / "h200_results.json").read_text())["runs"]}


def _k_once(path: Path) -> list:
    findings = check_module(parse_module(path.read_text(), path.name))
    return [f for f in findings if f.rule == "dot_operands" and f.verdict.property == "dot_k_once"]


@pytest.mark.parametrize("config", sorted(RUNS))
def test_refuted_exactly_where_the_gpu_computed_wrong(config: str) -> None:
    found = _k_once(DATA / f"{config}.ttgir")
    assert len(found) == 2  # operands A and B
    wrong_on_gpu = not RUNS[config]["exact"]
    assert all(f.verdict.status == ("refuted" if wrong_on_gpu else "proved") for f in found), config
    if wrong_on_gpu:
        text = (DATA / f"{config}.ttgir").read_text().splitlines()
        assert all("tt.dot" in text[f.location.line - 1] for f in found)
        ce = found[0].verdict.counterexample
        assert ce.inputs["lane"] == 2 and ce.sides["element"] == ce.sides["element at lane 0"]


def test_the_witness_is_two_lanes_holding_one_element() -> None:
    """Replayed on the operand layout itself: lane 2 and lane 0 hold the same A element, at K positions 16 and 0
    of the tile (the layout on a K wide enough that nothing is cut)."""
    mma = {"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 1], "instr_shape": [16, 8]}
    spec = {"kind": "dot_operand", "operand_index": 0, "parent": mma, "k_width": 8}
    L, T = build_spec(spec, [16, 16]), build_spec(spec, [16, WIDE_K])
    at = {"register": 0, "lane": 2, "warp": 0, "block": 0}
    assert L.apply(at) == L.apply({**at, "lane": 0})
    assert T.apply(at)["dim1"] == 16 and T.apply({**at, "lane": 0})["dim1"] == 0
    assert ("lane", 1) in k_repeats(L, T, 1)


def test_operand_b_is_read_along_its_first_dim() -> None:
    """For B (K x N) the K dim is the second last: a B operand of kWidth 8 on K = 16 repeats a lane bit along dim 0,
    and one of kWidth 2 repeats nothing."""
    mma = {"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 1], "instr_shape": [16, 8]}
    B = lambda kw, k: build_spec({"kind": "dot_operand", "operand_index": 1, "parent": mma, "k_width": kw}, [k, 8])
    assert any(d == "lane" for d, _ in k_repeats(B(8, 16), B(8, WIDE_K), 0))
    assert k_repeats(B(2, 16), B(2, WIDE_K), 0) == []


def _mfma_dot(k: int, k_width: int) -> str:
    a = f"tensor<16x{k}xf16, #ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = {k_width}}}>>"
    b = f"tensor<{k}x16xf16, #ttg.dot_op<{{opIdx = 1, parent = #mma, kWidth = {k_width}}}>>"
    return (
        "#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [16, 16, 16], isTransposed = true}>\n"
        'module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} {\n'
        f"  tt.func @k(%a: {a}, %b: {b}, %c: tensor<16x16xf32, #mma>) {{\n"
        f"    %d = tt.dot %a, %b, %c : {a} * {b} -> tensor<16x16xf32, #mma>\n"
        "    tt.return\n  }\n}\n")


@pytest.mark.parametrize("k,k_width,status", [(16, 8, "refuted"), (32, 8, "proved"), (16, 4, "proved")])
def test_an_mfma_operand_packed_past_k_is_refuted(k: int, k_width: int, status: str) -> None:
    """MFMA 16x16x16: the four 16-lane groups of a wave hold K runs of kWidth each, so kWidth 8 (kPack 2) spans 32 K
    elements; on K = 16 lanes 32-63 repeat lanes 0-31 (the configuration triton-lang/triton PR 10290 stopped
    AccelerateAMDMatmul from choosing; Triton's own amd-block-pingpong lit input has it).  Decided from the MFMA
    operand fragment, not run on AMD hardware."""
    found = [f for f in check_module(parse_module(_mfma_dot(k, k_width), "mfma.mlir"))
             if f.verdict.property == "dot_k_once"]
    assert [f.verdict.status for f in found] == [status, status]
    if status == "refuted":
        assert found[0].verdict.counterexample.inputs["lane"] == 32 and "MFMA" in found[0].verdict.message
