"""An op's types from its printed signature (``llverify.ttgir.op_signature``), one printed shape or implicit rule
per case, the expected types written from MLIR's and Triton's printers (what the op's result *is*); and each
typing rule shown load-bearing: with it removed (a mutant) some case reads a wrong type."""

from __future__ import annotations

import re

import pytest

from llverify.ttgir import op_signature
from llverify.ttgir.op_signature import OpTyping

# (op name, text after the name, signature, result count, operand count, operand text) -> result type texts
CASES = [
    (("arith.addf", "", "f32", 1, 2, "%a, %b"), ["f32"]),
    (("arith.extf", "", "f16 to f32", 1, 1, "%a"), ["f32"]),
    (("arith.select", "", "i1, f32", 1, 3, "%c, %a, %b"), ["f32"]),
    (("tt.make_tensor_descriptor", "", "<bf16>, <1x64xbf16>", 1, 5, "%p, [%n, %n], [%s, %s]"),
     ["!tt.tensordesc<1x64xbf16>"]),
    (("ttg.warp_id", "", "", 1, 0, ""), ["i32"]),
    (("ttg.async_wait", "", "", 1, 1, "%t"), ["!ttg.async.token"]),
    (("arith.cmpi", "", "tensor<4xi32>", 1, 2, "slt, %a, %b"), ["tensor<4xi1>"]),
    (("tt.load", "", "tensor<4x!tt.ptr<f16>>", 1, 1, "%p"), ["tensor<4xf16>"]),
    (("arith.constant", "", "", 1, 1, "true"), ["i1"]),
    (("ttng.tmem_load", "", "i32 -> tensor<4xf32>", 2, 1, "%m"), ["tensor<4xf32>", "!ttg.async.token"]),
    (("scf.for", " %i = %a to %b step %c iter_args(%x = %y) -> (f32) : i32", "i32", 1, 4, "%a to %b step %c"),
     ["f32"]),
    (("scf.execute_region", " -> (f32, i32) no_inline", "", 2, 0, ""), ["f32", "i32"]),
    (("scf.execute_region", " -> tensor<4xf32> no_inline", "", 1, 0, ""), ["tensor<4xf32>"]),
    (("tt.split", "", "tensor<4x2xf32> -> tensor<4xf32>", 2, 1, "%a"), ["tensor<4xf32>", "tensor<4xf32>"]),
]


def _typing() -> OpTyping:
    return OpTyping({}, {})


def _results(typing: OpTyping, args) -> list[str]:
    name, rest, sig, n_results, n_operands, operand_text = args
    return [t.text for t in typing.types(name, rest, sig, None, n_results, n_operands, operand_text)[2]]


@pytest.mark.parametrize("args, expected", CASES, ids=[c[0][0] for c in CASES])
def test_result_types(args, expected) -> None:
    assert _results(_typing(), args) == expected


def test_region_header_argument_types() -> None:
    typing = _typing()
    f32 = typing.typeref("f32")
    assert [t.text for t in typing.region_arg_types("scf.for", "i32", [f32])] == ["i32", "f32"]
    assert [t.text for t in typing.region_arg_types("scf.for", "", [f32])] == ["index", "f32"]
    assert [t.text for t in typing.region_arg_types("scf.while", "(i32, f32) -> (i32)", [])] == ["i32", "f32"]


def test_printed_operand_types() -> None:
    """One printed type per operand only where the signature has an arrow; ``tt.dot``'s accumulator is typed as
    its result (``A * B -> C``)."""
    typing = _typing()
    dot = typing.types("tt.dot", "", "tensor<4x4xf16> * tensor<4x4xf16> -> tensor<4x4xf32>", None, 1, 3,
                       "%a, %b, %c")
    assert [t.text for t in dot[3]] == ["tensor<4x4xf16>", "tensor<4x4xf16>", "tensor<4x4xf32>"]
    assert typing.types("arith.addf", "", "f32", None, 1, 2, "%a, %b")[3] == ()
    cast = typing.types("arith.extf", "", "f16 to f32", None, 1, 1, "%a")[3]
    assert [t.text for t in cast] == ["f16"]


def test_the_common_line_memo_is_keyed_by_what_the_types_depend_on() -> None:
    typing = _typing()
    cmp = typing.common_types("arith.cmpi", "i32", None, 1, 2, "slt, %a, %b")
    add = typing.common_types("arith.addi", "i32", None, 1, 2, "%a, %b")
    assert [t.text for t in cmp[2]] == ["i1"] and [t.text for t in add[2]] == ["i32"]
    bare = typing.common_types("arith.constant", "", None, 1, 1, "true")
    other = typing.common_types("arith.constant", "", None, 1, 1, "1")
    assert [t.text for t in bare[2]] == ["i1"] and [t.text for t in other[2]] != ["i1"]


# -- each rule is load-bearing: without it some case above reads a wrong type ------------------------------------

MUTANTS = {
    "_LAST_TYPE_IS_RESULT": (),
    "_UNQUALIFIED_RESULT_TYPES": {},
    "_IMPLIED_RESULT_TYPES": {},
    "_IMPLIED_ELEMENT_OPS": frozenset(),
    "_BARE_I1": re.compile(r"(?!)"),
    "REGION_RESULT_OPS": (),
    "_TRAILING_KEYWORD": re.compile(r"(?!)"),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_rule_is_needed(name, monkeypatch) -> None:
    monkeypatch.setattr(op_signature, name, MUTANTS[name])
    wrong = [args[0] for args, expected in CASES if _results(_typing(), args) != expected]
    assert wrong, f"no case needs {name}"


def test_the_tmem_token_rule_is_needed(monkeypatch) -> None:
    real = op_signature._result_types
    monkeypatch.setattr(op_signature, "_result_types",
                        lambda name, *a: real("other" if name == "ttng.tmem_load" else name, *a))
    [(args, expected)] = [c for c in CASES if c[0][0] == "ttng.tmem_load"]
    assert _results(_typing(), args) != expected
