"""Index code vs layouts and vs code: swizzle family (definition 4.11), mutants, UB, C vs Python."""

import itertools

import pytest

from llverify.layout import LinearLayout
from llverify.prove.code import (
    IndexCodeError, bijective, code_equals_code, code_equals_layout, in_range, injective,
)
from llverify.indexcode.evaluate import evaluate_point
from llverify.indexcode.parse import parse_code


def swizzled_from_bases(rows, cols, vec, per_phase, max_phase):
    """triton-conventions.md 'Swizzled shared', order [1, 0], built from bases here."""
    off = [[0, 1 << k] for k in range(cols.bit_length() - 1)]
    for k in range(rows.bit_length() - 1):
        r = 1 << k
        off.append([r, (vec * ((r // per_phase) % max_phase)) % cols])
    return LinearLayout([("offset", off), ("block", [])], [("dim0", rows), ("dim1", cols)])


def swizzled(rows, cols, vec, per_phase, max_phase):
    try:
        from llverify.hw import build
        return build("swizzled_shared", [rows, cols], vec=vec, per_phase=per_phase, max_phase=max_phase,
                     order=[1, 0])
    except ImportError:
        return swizzled_from_bases(rows, cols, vec, per_phase, max_phase)


# definition 4.11, plus the row-major row offset
DEF_4_11 = "(((row / {pp}) % {mp}) ^ (col / {vec})) * {vec} + col % {vec} + row * {cols}"
MAP = {"row": "dim0", "col": "dim1"}


def swizzle_code(rows, cols, vec, pp, mp):
    return DEF_4_11.format(pp=pp, mp=mp, vec=vec, cols=cols)


FAMILY = [(r, c, v, pp, mp) for r, c in [(16, 32), (64, 64), (32, 128)]
          for v, pp, mp in itertools.product([1, 2, 8], [1, 2, 4], [1, 4, 8]) if v * mp <= c]


def test_hw_swizzle_matches_bases_when_available():
    pytest.importorskip("llverify.hw")
    for r, c, v, pp, mp in FAMILY[:10]:
        assert swizzled(r, c, v, pp, mp) == swizzled_from_bases(r, c, v, pp, mp)


@pytest.mark.parametrize("r, c, v, pp, mp", FAMILY)
def test_definition_4_11_swizzle_code_proved(r, c, v, pp, mp):
    L = swizzled(r, c, v, pp, mp)
    verdict = code_equals_layout(swizzle_code(r, c, v, pp, mp), L, MAP, "offset")
    assert verdict.status == "proved", verdict.message


@pytest.mark.parametrize("r, c, v, pp, mp", [(64, 64, 8, 1, 8), (32, 128, 4, 2, 8)])
def test_swizzle_smt_and_exhaustive_agree(r, c, v, pp, mp):
    L = swizzled(r, c, v, pp, mp)
    code = swizzle_code(r, c, v, pp, mp)
    for lang_code, lang in ((code, "c"), (code.replace("/", "//"), "python")):
        a = code_equals_layout(lang_code, L, MAP, "offset", lang=lang, method="smt")
        b = code_equals_layout(lang_code, L, MAP, "offset", lang=lang, method="exhaustive")
        assert a.status == b.status == "proved" and (a.method, b.method) == ("smt", "exhaustive")


@pytest.mark.parametrize("method", ["smt", "exhaustive"])
def test_vec_times_max_phase_above_columns_refuted(method):
    # vec * max_phase = 32 > 16 columns: the XOR field carries into the row
    r, c, v, pp, mp = 16, 16, 8, 1, 4
    L = swizzled(r, c, v, pp, mp)
    verdict = code_equals_layout(swizzle_code(r, c, v, pp, mp), L, MAP, "offset", method=method)
    assert verdict.status == "refuted"
    cex = verdict.counterexample
    row, col = cex.inputs["dim0"], cex.inputs["dim1"]
    # replay independently: the code's value vs the inverse layout's
    got = ((row // pp % mp) ^ (col // v)) * v + col % v + row * c
    assert cex.sides["code"] == got
    assert L.apply(offset=cex.sides["layout^-1"], block=0) == {"dim0": row, "dim1": col}
    assert got >= c * (row + 1)  # the carry into the next row
    # the smallest such input: row 2 is the first whose phase (2 % 4) * 8 = 16 >= 16 columns
    assert (row, col) == (2, 0)


MUTANTS = [
    ("off-by-one column", "(((row / 1) % 8) ^ (col / 8)) * 8 + col % 8 + row * 64 + 1"),
    ("off-by-one row stride", "(((row / 1) % 8) ^ (col / 8)) * 8 + col % 8 + row * 63"),
    ("wrong shift", "((row % 8) ^ (col >> 2)) * 8 + col % 8 + (row << 6)"),
    ("wrong shift 2", "((row % 8) ^ (col >> 3)) * 8 + col % 8 + (row << 5)"),
    ("wrong mask", "((row % 4) ^ (col / 8)) * 8 + col % 8 + row * 64"),
    ("and for xor", "((row % 8) | (col / 8)) * 8 + col % 8 + row * 64"),
]


@pytest.mark.parametrize("name, code", MUTANTS)
@pytest.mark.parametrize("method", ["smt", "exhaustive"])
def test_mutants_refuted_and_replay(name, code, method):
    L = swizzled(64, 64, 8, 1, 8)
    good = code_equals_layout("((row % 8) ^ (col >> 3)) * 8 + col % 8 + (row << 6)", L, MAP, "offset",
                              method=method)
    assert good.proved  # sanity: the right code proves
    v = code_equals_layout(code, L, MAP, "offset", method=method)
    assert v.status == "refuted", name
    pt = v.counterexample.inputs
    got, fault = evaluate_point(parse_code(code, "c"), {"row": pt["dim0"], "col": pt["dim1"]})
    assert fault is None and got == v.counterexample.sides["code"]
    assert L.apply(offset=v.counterexample.sides["layout^-1"], block=0) == {"dim0": pt["dim0"], "dim1": pt["dim1"]}
    assert got != v.counterexample.sides["layout^-1"]


def test_smt_and_exhaustive_find_the_same_smallest_counterexample():
    L = swizzled(64, 64, 8, 1, 8)
    for _, code in MUTANTS:
        a = code_equals_layout(code, L, MAP, "offset", method="smt")
        b = code_equals_layout(code, L, MAP, "offset", method="exhaustive")
        assert dict(a.counterexample.inputs) == dict(b.counterexample.inputs)


def test_forward_map_of_distributed_layout():
    # blocked-like: register bits -> dim1, lane -> (dim1, dim0)
    L = LinearLayout.from_bases({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                                 "warp": [[8, 0]]}, ["dim0", "dim1"])
    inputs = {"reg": "register", "lane": "lane", "warp": "warp"}
    assert code_equals_layout("lane / 4 + warp * 8", L, inputs, "dim0").proved
    assert code_equals_layout("(lane % 4) * 4 + reg", L, inputs, "dim1").proved
    v = code_equals_layout("(lane % 4) * 4 + reg + warp", L, inputs, "dim1")
    assert v.refuted and dict(v.counterexample.inputs) == {"register": 0, "lane": 0, "warp": 1}


def test_c_vs_python_division_on_negative_operands():
    rng = {"x": (-8, 8)}
    # C truncates, Python floors: they differ exactly on negative non-multiples
    v = code_equals_code("x / 4", "x // 4", rng, lang="c", lang_b="python", types={"x": "int32"}, types_b={})
    assert v.refuted and v.counterexample.inputs["x"] == -7
    assert dict(v.counterexample.sides) == {"a": -1, "b": -2}
    v = code_equals_code("x % 4", "x % 4", rng, lang="c", lang_b="python", types={"x": "int32"}, types_b={})
    assert v.refuted and dict(v.counterexample.sides) == {"a": -3, "b": 1}
    # on non-negative operands they agree
    assert code_equals_code("x / 4", "x // 4", {"x": 100}, lang="c", lang_b="python", types_b={}).proved
    # point evaluation of each semantics
    assert evaluate_point(parse_code("x / 2", "c"), {"x": -7}, {"x": "int32"}) == (-3, None)
    assert evaluate_point(parse_code("x % 2", "c"), {"x": -7}, {"x": "int32"}) == (-1, None)
    assert evaluate_point(parse_code("x // 2", "python"), {"x": -7}) == (-4, None)
    assert evaluate_point(parse_code("x % 2", "python"), {"x": -7}) == (1, None)


@pytest.mark.parametrize("method", ["smt", "exhaustive"])
def test_signed_overflow_is_its_own_refutation(method):
    L = swizzled(64, 64, 8, 1, 8)
    # row * 2^27 overflows int32 for row >= 16 and wraps uint32 for row >= 32; / 2^21 makes it row * 64
    code = "((row % 8) ^ (col / 8)) * 8 + col % 8 + row * 134217728 / 2097152"
    v = code_equals_layout(code, L, MAP, "offset", types={"row": "int32", "col": "int32"}, method=method)
    assert v.refuted and v.details["kind"] == "undefined_behaviour"
    assert dict(v.counterexample.inputs) == {"dim0": 16, "dim1": 0}
    assert "signed overflow" in v.counterexample.sides["code"]
    # unsigned: wraps, no UB, but the value is wrong there
    v = code_equals_layout(code, L, MAP, "offset", method=method)
    assert v.refuted and v.details["kind"] == "mismatch" and v.counterexample.inputs["dim0"] == 64 // 2


def test_shift_amount_ub_and_python_runtime_errors():
    assert in_range("1 << s", {"s": 40}, 2**40, types={"s": "uint32"}).details["kind"] == "undefined_behaviour"
    v = in_range("1 << s", {"s": (-2, 3)}, 8, lang="python")
    assert v.refuted and v.details["kind"] == "runtime_error" and v.counterexample.inputs["s"] == -2
    v = code_equals_code("x // (y - 1)", "0", {"x": 4, "y": 4}, lang="python")
    assert v.refuted and v.details["kind"] == "runtime_error" and dict(v.counterexample.inputs) == {"x": 0, "y": 1}
    # INT_MIN / -1
    v = in_range("x / y", {"x": (-2**31, -2**31 + 1), "y": (-1, 0)}, (-2**32, 2**32), types={"x": "int32", "y": "int32"},
                 method="smt")
    assert v.refuted and v.details["kind"] == "undefined_behaviour"


def test_ub_in_untaken_branch_does_not_count():
    v = in_range("x > 0 ? 100 / x : 0", {"x": (-4, 4)}, (-200, 200), types={"x": "int32"}, method="smt")
    assert v.proved
    v = in_range("x >= 0 ? 100 / x : 0", {"x": (-4, 4)}, (-200, 200), types={"x": "int32"}, method="smt")
    assert v.refuted and v.counterexample.inputs["x"] == 0


def test_usual_arithmetic_conversions():
    # -1 < 0u is false in C: -1 converts to UINT_MAX
    assert code_equals_code("(int)x - 1 < 0u", "0", {"x": 1}, types={"x": "uint32"}).proved
    assert code_equals_code("(int)x - 1 < 0", "1", {"x": 1}, types={"x": "uint32"}).proved
    # uint32 wraps
    assert code_equals_code("x - 1u", "4294967295", {"x": 1}).proved
    assert code_equals_code("(long long)x - 1", "-1", {"x": 1}).proved


def test_python_width_handles_large_values():
    assert code_equals_code("x << 70 >> 70", "x", {"x": (-5, 5)}, lang="python", method="smt").proved
    v = code_equals_code("(x << 70) % 3", "x % 3", {"x": (-5, 5)}, lang="python", method="smt")
    assert v.proved  # 2^70 = 1 mod 3


def test_injective_bijective_in_range():
    assert bijective("r * 8 + c", {"r": 4, "c": 8}).proved
    assert bijective("r * 8 + (c ^ r)", {"r": 8, "c": 8}, method="smt").proved
    v = bijective("r * 7 + c", {"r": 4, "c": 8})
    assert v.refuted
    v = injective("r * 7 + c", {"r": 4, "c": 8}, method="smt")
    assert v.refuted and v.details["kind"] == "collision"
    ci = dict(v.counterexample.inputs)
    assert ci["r"] * 7 + ci["c"] == ci["r'"] * 7 + ci["c'"] and (ci["r"], ci["c"]) != (ci["r'"], ci["c'"])
    ve = injective("r * 7 + c", {"r": 4, "c": 8}, method="exhaustive")
    assert ve.refuted
    assert in_range("r * 8 + c", {"r": 4, "c": 8}, 32).proved
    v = in_range("r * 8 + c + 1", {"r": 4, "c": 8}, 32, method="smt")
    assert v.refuted and dict(v.counterexample.inputs) == {"r": 3, "c": 7}


def test_sanity_self_equal_and_broken_copy():
    code = "((row % 8) ^ (col / 8)) * 8 + col % 8"
    assert code_equals_code(code, code, {"row": 2**16, "col": 2**16}, method="smt").proved
    assert code_equals_code(code, code + " + (row == 12345)", {"row": 2**16, "col": 2**16}, method="smt").refuted


def test_bad_mappings_raise_and_noninvertible_is_error():
    L = swizzled(16, 16, 1, 1, 1)
    with pytest.raises(IndexCodeError, match="does not map"):
        code_equals_layout("row + col", L, {"row": "dim0"}, "offset")
    with pytest.raises(IndexCodeError, match="one side"):
        code_equals_layout("row", L, {"row": "dim0"}, "dim1")
    B = LinearLayout.from_bases({"register": [[1], [0]]}, ["dim0"])
    v = code_equals_layout("x", B, {"x": "dim0"}, "register")
    assert v.status == "error" and "invertible" in v.message
    v = code_equals_layout("x", LinearLayout.identity_1d(2**40, "i", "o"), {"x": "i"}, "o")
    assert v.status == "error" and "cannot hold" in v.message


def test_index_code_spec_example_from_issue():
    L = swizzled(64, 64, 8, 1, 8)
    v = code_equals_layout("((row % 8) ^ (col / 8)) * 8 + col % 8 + row * 64", L, {"row": "dim0", "col": "dim1"},
                           "offset", lang="c", types={"row": "uint32", "col": "uint32"})
    assert v.proved and v.details["direction"] == "inverse"


def test_32_bit_swizzle_smt_under_a_second():
    import time
    L = swizzled(2**16, 2**16, 8, 1, 8)
    t = time.perf_counter()
    v = code_equals_layout(swizzle_code(2**16, 2**16, 8, 1, 8), L, MAP, "offset", method="smt", types={
        "row": "uint64", "col": "uint64"})
    assert v.proved
    assert time.perf_counter() - t < 5  # target 1 s; slack for a loaded 2-core machine
