"""Intel's DPAS layouts (llverify.hw.intel_dpas) and the gate on modules that use them.

The triton wheel has no Intel XPU backend, so there is no Triton oracle for ``#ttig.dpas``.  The expectations below
are the layouts Intel's own unit tests state for ``DPAStoLinearLayout`` (intel-xpu-backend-for-triton,
third_party/intel/unittest/Dialect/TritonIntelGPU/DPAStoLinearLayoutTest.cpp, 2026-08): each case lists the
parameters, the operand and the expected register, lane and warp bases.
"""

from __future__ import annotations

import itertools

import pytest

from llverify.errors import LayoutError
from llverify.hw.registry import build, build_spec
from llverify.prove.properties import distributed
from llverify.triton.parse import parse_attr
from llverify.ttgir.gate import gate_text


def _dpas(warps: list[int], rc: int, es: int, opc: int, cluster: list[int], tpw: int) -> dict:
    return dict(repeat_count=rc, systolic_depth=8, execution_size=es, ops_per_chan=opc, threads_per_warp=tpw,
                warps_per_cta=warps, rep_cluster=cluster)


def _build(shape: list[int], params: dict, operand: int):
    if operand == 2:
        return build("intel_dpas", shape, **params)
    opc = params["ops_per_chan"]
    kw = opc if operand == 1 or opc == 1 else opc // 2
    return build("dot_operand", shape, operand_index=operand, parent={"kind": "intel_dpas", **params}, k_width=kw)


# (shape, parameters, operand: 0 A / 1 B / 2 C, register bases, lane bases, warp bases), from Intel's unit tests
INTEL_EXPECTATIONS = [
    ([8, 16], _dpas([1, 1], 8, 16, 2, [1, 1], 32), 2, [[2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], []),
    ([8, 16], _dpas([1, 1], 8, 16, 1, [1, 1], 16), 2, [[1, 0], [2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8]], []),
    ([8, 32], _dpas([1, 1], 8, 16, 4, [1, 1], 32), 0, [[0, 1], [2, 0], [4, 0]],
     [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]], []),
    ([8, 16], _dpas([1, 1], 8, 16, 2, [1, 1], 32), 0, [[2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], []),
    ([8, 8], _dpas([1, 1], 8, 16, 1, [1, 1], 32), 0, [[4, 0]], [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], []),
    ([32, 16], _dpas([1, 1], 8, 16, 4, [1, 1], 32), 1, [[1, 0], [2, 0], [8, 0], [16, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0]], []),
    ([16, 16], _dpas([1, 1], 8, 16, 2, [1, 1], 32), 1, [[1, 0], [4, 0], [8, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]], []),
    ([8, 16], _dpas([1, 1], 8, 16, 1, [1, 1], 32), 1, [[2, 0], [4, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], []),
    ([32, 32], _dpas([1, 1], 8, 16, 2, [4, 2], 16), 2, [[1, 0], [2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8]], []),
    ([32, 16], _dpas([1, 1], 8, 16, 2, [4, 2], 32), 0, [[2, 0], [4, 0], [8, 0], [16, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], []),
    ([16, 32], _dpas([1, 1], 8, 16, 2, [4, 2], 32), 1, [[1, 0], [4, 0], [8, 0], [0, 16]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]], []),
    ([32, 32], _dpas([1, 1], 8, 16, 1, [4, 2], 16), 2, [[1, 0], [2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8]], []),
    ([32, 32], _dpas([4, 1], 8, 16, 2, [1, 2], 16), 2, [[1, 0], [2, 0], [4, 0], [0, 16]],
     [[0, 1], [0, 2], [0, 4], [0, 8]], [[8, 0], [16, 0]]),
    ([64, 64], _dpas([2, 2], 8, 16, 1, [4, 2], 32), 2, [[2, 0], [4, 0], [0, 16], [8, 0], [16, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[0, 32], [32, 0]]),
    ([64, 64], _dpas([2, 2], 8, 16, 2, [4, 2], 32), 0, [[2, 0], [4, 0], [8, 0], [16, 0], [0, 16], [0, 32]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[0, 0], [32, 0]]),
    ([64, 64], _dpas([2, 2], 8, 16, 2, [4, 2], 32), 1, [[1, 0], [4, 0], [8, 0], [0, 16], [16, 0], [32, 0]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [2, 0]], [[0, 32], [0, 0]]),
    ([64, 64], _dpas([2, 1], 8, 16, 2, [4, 2], 32), 2, [[2, 0], [4, 0], [0, 16], [8, 0], [16, 0], [0, 32]],
     [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[32, 0]]),
    ([128, 128], _dpas([2, 2], 8, 16, 2, [2, 2], 32), 2,
     [[2, 0], [4, 0], [0, 16], [8, 0], [0, 64], [32, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]],
     [[0, 32], [16, 0]]),
]


@pytest.mark.parametrize("shape,params,operand,regs,lanes,warps", INTEL_EXPECTATIONS)
def test_layout_equals_intels_unit_test_expectation(shape, params, operand, regs, lanes, warps):
    L = _build(shape, params, operand)
    assert [list(b) for b in L.bases["register"]] == regs
    assert [list(b) for b in L.bases["lane"]] == lanes
    assert [list(b) for b in L.bases["warp"]] == warps
    assert L.bases["block"] == ()
    assert L.out_dims == {"dim0": shape[0], "dim1": shape[1]}


def test_attribute_text_reads_as_the_constructor_builds():
    text = ("#ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, threadsPerWarp = 16, "
            "warpsPerCTA = [4, 1], repCluster = [1, 2], A = [8, 16], B = [16, 32], C = [8, 32]}>")
    spec = parse_attr(text)
    assert spec["kind"] == "intel_dpas" and spec["rep_cluster"] == [1, 2]
    assert build_spec(spec, [32, 32]) == _build([32, 32], _dpas([4, 1], 8, 16, 2, [1, 2], 16), 2)
    dot = parse_attr(f"#ttg.dot_op<{{opIdx = 1, parent = {text}, kWidth = 2}}>")
    assert build_spec(dot, [16, 32]) == _build([16, 32], _dpas([4, 1], 8, 16, 2, [1, 2], 16), 1)


@pytest.mark.parametrize("tpw,opc,rc,warps,cluster", list(itertools.product(
    (16, 32), (1, 2, 4), (2, 4, 8), ([1, 1], [2, 2], [4, 1], [1, 8]), ([1, 1], [2, 1], [4, 2]))))
def test_every_operand_is_a_distributed_layout_of_the_subgroup(tpw, opc, rc, warps, cluster):
    """Definition 4.10 for C, A and B over a sweep of valid parameters and shapes, each on exactly the sub-group's
    lanes (Triton's verifier compares the lane count with the module's threads-per-warp) and the warps."""
    params = _dpas(warps, rc, 16, opc, cluster, tpw)
    k = 8 * opc
    for operand, shape in ((2, [64, 64]), (0, [64, 2 * k]), (1, [2 * k, 64]), (2, [8, 16])):
        if operand == 0 and rc * (8 if opc == 1 else 16) < tpw:
            with pytest.raises(LayoutError, match="do not fill"):
                _build(shape, params, operand)
            continue
        L = _build(shape, params, operand)
        assert distributed(L).status == "proved", (operand, shape, params)
        assert L.in_dim_size("lane") == tpw and L.in_dim_size("warp") == warps[0] * warps[1]


@pytest.mark.parametrize("field,value,message", [
    ("repeat_count", 16, "repeat_count = 16 must be in"), ("systolic_depth", 4, "systolic_depth = 4 must be 8"),
    ("ops_per_chan", 3, "must be 1, 2 or 4"), ("threads_per_warp", 8, "smaller than execution_size"),
    ("rep_cluster", [1, 1, 1], "rep_cluster"), ("repeat_count", 6, "power of two")])
def test_what_intels_verifier_refuses_is_refused(field, value, message):
    params = {**_dpas([2, 2], 8, 16, 2, [1, 1], 16), field: value}
    with pytest.raises(LayoutError, match=message):
        build("intel_dpas", [32, 32], **params)


def test_a_dot_operand_with_the_wrong_k_width_is_refused():
    params = _dpas([2, 2], 8, 16, 2, [1, 1], 16)
    with pytest.raises(LayoutError, match="kWidth = 2 must be 1"):
        build("dot_operand", [32, 32], operand_index=0, parent={"kind": "intel_dpas", **params}, k_width=2)


def test_a_parent_with_a_field_dpas_does_not_have_is_refused():
    params = {**_dpas([2, 2], 8, 16, 2, [1, 1], 16), "instr_shape": [8, 16]}
    with pytest.raises(LayoutError, match="unknown parameter.*instr_shape"):
        build("dot_operand", [32, 32], operand_index=1, parent={"kind": "intel_dpas", **params}, k_width=2)


# A small matmul as the Intel backend's TTGIR has it after its AccelerateMatmul (our own module): f16 A and B in
# DPAS dot-operand layouts, an f32 accumulator in the DPAS layout, converted to a blocked layout to be stored
MODULE = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
#dpas = #ttig.dpas<{repeatCount = 8, systolicDepth = 8, executionSize = 16, opsPerChan = 2, threadsPerWarp = 16, \
warpsPerCTA = [2, 2], repCluster = [2, 1], A = [16, 16], B = [16, 16], C = [16, 16]}>
#dot_a = #ttg.dot_op<{opIdx = 0, parent = #dpas, kWidth = KA}>
#dot_b = #ttg.dot_op<{opIdx = 1, parent = #dpas, kWidth = KB}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 16 : i32} {
  tt.func public @dpas_mm(%a: tensor<32x16xf16, #dot_a>, %b: tensor<16x32xf16, #dot_b>, \
%out: tensor<32x32x!tt.ptr<f32>, #blocked>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #dpas>
    %acc = tt.dot %a, %b, %zero : tensor<32x16xf16, #dot_a> * tensor<16x32xf16, #dot_b> -> tensor<32x32xf32, #dpas>
    %c = ttg.convert_layout %acc : tensor<32x32xf32, #dpas> -> tensor<32x32xf32, #blocked>
    tt.store %out, %c : tensor<32x32x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""


def _module(ka: int = 1, kb: int = 2) -> str:
    return MODULE.replace("KA", str(ka)).replace("KB", str(kb))


def test_the_gate_decides_a_dpas_matmul():
    findings = gate_text(_module(), "dpas_mm.ttgir")
    statuses = {(f.rule, f.verdict.status) for f in findings}
    assert not [f for f in findings if f.verdict.status in ("refuted", "error")], \
        [(f.rule, f.verdict.message) for f in findings if f.verdict.status != "proved"]
    assert ("dot_operands", "proved") in statuses and ("conversion", "proved") in statuses
    layouts = [f for f in findings if f.rule == "layout" and "#dpas" in f.verdict.subject]
    assert layouts and all(f.verdict.status == "proved" for f in layouts)


@pytest.mark.parametrize("ka,kb,wrong", [(2, 2, "A"), (1, 1, "B")])
def test_a_mutated_dpas_k_width_is_refuted_at_the_dot(ka, kb, wrong):
    findings = gate_text(_module(ka, kb), "dpas_mm.ttgir")
    refuted = [f for f in findings if f.verdict.status == "refuted" and f.rule == "dot_operands"]
    dot_line = next(n for n, line in enumerate(_module(ka, kb).splitlines(), 1) if "= tt.dot" in line)
    assert refuted and refuted[0].op == "tt.dot" and refuted[0].location.line == dot_line
    assert f"kWidth of {wrong} is not" in refuted[0].verdict.message


def test_ops_per_chan_that_does_not_fill_a_channel_is_refuted_at_the_dot():
    """Intel's DPAS verifier: opsPerChan values of the operands' element type fill 32 bits (f16: 2).  With
    opsPerChan = 1 and kWidths 1 (the kWidth rule then holds) the f16 dot is refuted on the element width."""
    text = _module(1, 1).replace("opsPerChan = 2", "opsPerChan = 1")
    refuted = [f for f in gate_text(text, "dpas_mm.ttgir") if f.verdict.status == "refuted"]
    assert [f.rule for f in refuted] == ["dot_operands"] and "32-bit channel" in refuted[0].verdict.message
    assert "A and B" in refuted[0].verdict.message


def test_a_use_printed_without_its_type_prefix_is_the_same_type():
    """MLIR's custom formats may print a type without its ``!dialect.name`` (``: <64x32xf16>`` for a
    ``!tt.tensordesc<64x32xf16>``): the same type, not an unread one."""
    text = """\
module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @f(%p: !tt.ptr<f16>, %n: i32, %s: i64) {
    %d = tt.make_tensor_descriptor %p, [%n, %n], [%s, %s] : <f16>, <64x32xf16>
    %0 = ttig.extract_desc %d[0] : <64x32xf16> -> i64
    tt.return
  }
}
"""
    findings = gate_text(text, "desc.ttgir")
    assert not [f for f in findings if f.rule == "use_type"], [f.verdict.message for f in findings]
    mutated = gate_text(text.replace(": <64x32xf16> -> i64", ": <64x16xf16> -> i64"), "desc.ttgir")
    assert [f for f in mutated if f.rule == "use_type" and f.verdict.status != "proved"]
