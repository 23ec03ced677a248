"""Buffer indices whose names are reused in sibling regions (found on Triton 3.9's own output).

MLIR scopes value names by region, and Triton 3.9 prints e.g. ``%acc_33`` both as a pipelined loop's stage
index (an ``arith.select`` in the ``scf.for`` body) and as a ``ttg.memdesc_index`` in the ``scf.if`` that
runs the peeled last iteration.  The scalar evaluator indexed names per function, took the two definitions
for an invalid redefinition and gave up: every buffer index of such a kernel was ``unknown`` ("not
enumerable"), six of them in an mxfp4 TMA matmul for cuda:100.  Each use now resolves to the definition
visible from it."""

from __future__ import annotations

from pathlib import Path

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).parent / "data" / "hunt"


def _index_findings(text: str):
    fs = check_module(parse_module(text, "sibling.mlir"))
    return sorted(((f.location.line, f.verdict) for f in fs if f.op == "ttg.memdesc_index" and f.verdict.property == "view_in_bounds"), key=lambda x: x[0])


def test_each_use_sees_the_definition_of_its_own_region() -> None:
    text = (DATA / "sibling_region_names.mlir").read_text()
    (loop_line, in_loop), (if_line, in_if) = _index_findings(text)
    assert loop_line < if_line
    # the loop's counter takes 0, 1, 2: index 2 is outside the 2 buffers once the loop runs long enough
    assert in_loop.status == "unknown" and "reachable values [0, 1, 2]" in in_loop.message
    # the scf.if's own %nx is the constant 1
    assert in_if.status == "proved"


def test_a_bad_constant_in_the_sibling_region_is_refuted() -> None:
    text = (DATA / "sibling_region_names.mlir").read_text().replace(
        "%nx = arith.constant 1 : i32", "%nx = arith.constant 2 : i32")
    (_, in_loop), (_, in_if) = _index_findings(text)
    assert in_if.status == "refuted" and in_if.counterexample.inputs["index"] == 2
    assert in_loop.status == "unknown" and "reachable values [0, 1, 2]" in in_loop.message


def test_a_good_loop_counter_is_proved_beside_a_sibling_of_the_same_name() -> None:
    # wrap at 2 instead of 3: the counter takes 0 and 1 only
    text = (DATA / "sibling_region_names.mlir").read_text().replace(
        "%w = arith.cmpi sge, %i, %c3 : i32", "%w = arith.cmpi sge, %i, %c2 : i32").replace(
        "%c3 = arith.constant 3 : i32", "%c2 = arith.constant 2 : i32")
    (_, in_loop), (_, in_if) = _index_findings(text)
    assert in_loop.status == "proved" and in_if.status == "proved"


def test_a_redefinition_visible_from_the_use_stays_unresolved() -> None:
    # the same name defined in the loop body and again in the function body after it would be visible from
    # the scf.if: not valid MLIR, and the evaluator must not pick either definition
    text = (DATA / "sibling_region_names.mlir").read_text().replace(
        "    %p = arith.cmpi sgt, %n, %c0 : i32\n",
        "    %p = arith.cmpi sgt, %n, %c0 : i32\n    %s2 = arith.constant 5 : i32\n").replace(
        "%v = ttg.memdesc_index %buf[%nx] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> "
        "!ttg.memdesc<64xf32, #shared, #smem, mutable>\n    }",
        "%v = ttg.memdesc_index %buf[%nx] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> "
        "!ttg.memdesc<64xf32, #shared, #smem, mutable>\n      %c1 = arith.constant 0 : i32\n"
        "      %v2 = ttg.memdesc_index %buf[%c1] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> "
        "!ttg.memdesc<64xf32, #shared, #smem, mutable>\n    }")
    found = _index_findings(text)
    # %c1 in the scf.if redefines the function's %c1 (visible there): its use is not decided from either
    assert found[-1][1].status == "unknown"


def _with_result_index(text: str) -> str:
    # the scf.if indexes with the loop's result (the peeled last iteration's stage index, as Triton 3.9 does)
    return text.replace("      %nx = arith.constant 1 : i32\n      %v = ttg.memdesc_index %buf[%nx]",
                        "      %v = ttg.memdesc_index %buf[%r]")


def test_an_index_from_a_loop_result_takes_the_loop_states() -> None:
    # a result is the init (no iteration) or a state the body yielded: the orbit 0, 1, 2 here
    text = _with_result_index((DATA / "sibling_region_names.mlir").read_text())
    assert "%buf[%r]" in text
    (_, in_loop), (_, after) = _index_findings(text)
    assert after.status == "unknown" and "reachable values [0, 1, 2]" in after.message


def test_an_index_from_a_loop_result_in_range_is_proved() -> None:
    text = _with_result_index((DATA / "sibling_region_names.mlir").read_text()).replace(
        "%w = arith.cmpi sge, %i, %c3 : i32", "%w = arith.cmpi sge, %i, %c2 : i32").replace(
        "%c3 = arith.constant 3 : i32", "%c2 = arith.constant 2 : i32")
    (_, in_loop), (_, after) = _index_findings(text)
    assert in_loop.status == "proved" and after.status == "proved"


def test_a_bad_init_reaches_the_result_without_an_iteration() -> None:
    # init 2 with 2 buffers: a loop that runs no iteration hands 2 to the scf.if
    text = _with_result_index((DATA / "sibling_region_names.mlir").read_text()).replace(
        "%w = arith.cmpi sge, %i, %c3 : i32", "%w = arith.cmpi sge, %i, %c2 : i32").replace(
        "%c3 = arith.constant 3 : i32", "%c2 = arith.constant 2 : i32").replace(
        "iter_args(%s = %c0)", "iter_args(%s = %c2)")
    (_, in_loop), (_, after) = _index_findings(text)
    assert after.status == "unknown" and "2" in after.message and "reachable values [0, 1, 2]" in after.message
