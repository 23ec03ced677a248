"""Parser/printer: round trips over every kind, positioned errors, fuzzing, types and aliases."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from llverify.errors import LayoutError
from llverify.hw import build, build_spec
from llverify.hw.kinds import lookup
from llverify.hw.sampling import SAMPLED_KINDS, random_case

#: the sampled kinds that have a Triton attribute (a declared mnemonic): the ones with text to round-trip
ATTRIBUTE_KINDS = [k for k in SAMPLED_KINDS if lookup(k).mnemonic]
from llverify.triton import AttrParseError, format_attr, parse_aliases, parse_attr, parse_type

MODULE = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#nvmma = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32} {
}
"""


def _spec(case):
    return {"kind": case["kind"], **case["params"]}


@pytest.mark.parametrize("kind", ATTRIBUTE_KINDS)
def test_round_trip_every_kind(kind):
    rng = random.Random(kind)
    for _ in range(25):
        spec = _spec(random_case(kind, rng))
        try:
            text = format_attr(spec)
        except LayoutError as exc:  # rank-3 WMMA without bases: Triton's text cannot say the rank
            assert "no attribute text" in str(exc)
            continue
        assert text.startswith("#ttng." if kind in ("tensor_memory", "tensor_memory_scales") else "#ttg.")
        again = parse_attr(text)
        assert format_attr(again) == text
        # the layout built from the parsed text is the one built from the parameters
        case_shape = random_case(kind, random.Random(1))["shape"]
        try:
            want = build_spec(spec, case_shape)
        except LayoutError:
            continue
        assert build_spec(again, case_shape) == want


def test_round_trip_shared_linear_and_rotating():
    for spec in ({"kind": "shared_linear", "offset_bases": [[0, 1], [1, 0]], "block_bases": [], "alignment": 16},
                 {"kind": "amd_rotating_shared", "vec": 4, "per_phase": 1, "max_phase": 4, "order": [1, 0]}):
        assert parse_attr(format_attr(spec)) == spec


def test_linear_attribute_text():
    text = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>"
    spec = parse_attr(text)
    L = build_spec(spec, [16, 8])
    assert [list(b) for b in L.bases["register"]] == [[0, 1], [8, 0]]
    assert format_attr(spec) == text


def test_aliases_and_types():
    aliases = parse_aliases(MODULE)
    assert set(aliases) >= {"blocked", "mma", "dot", "shared", "nvmma"}
    assert aliases["dot"]["parent"] == aliases["mma"]
    L, shape, dtype = parse_type("tensor<16x64xf16, #dot>", aliases)
    assert (shape, dtype) == ([16, 64], "f16")
    assert L == build("dot_operand", [16, 64], operand_index=0, k_width=2, parent=aliases["mma"])
    L2, shape2, _ = parse_type("!ttg.memdesc<64x64xf16, #nvmma, #smem, mutable>", aliases)
    assert shape2 == [64, 64] and "offset" in L2.in_dims
    # elementBitWidth comes from the text here; from the dtype when absent
    L3, _, _ = parse_type("!ttg.memdesc<8x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128}>, #smem>", aliases)
    assert L3 == build("nvmma_shared", [8, 64], swizzle_byte_width=128, element_bitwidth=16)


@pytest.mark.parametrize("text,column,expected", [
    ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8 4]}>", 59, "']'"),
    ("#ttg.blocked<{sizePerThread = [1, 4]", 37, "'}'"),
    ("#ttg.blocked<{sizePerThread = }>", 31, "a value"),
    ("#undefined", 1, "known alias"),
    ("#ttg.bogus<{a = 1}>", 2, "a layout attribute"),
])
def test_errors_have_column_and_expectation(text, column, expected):
    with pytest.raises(AttrParseError) as info:
        parse_attr(text)
    assert info.value.column == column
    assert expected in str(info.value)
    assert str(info.value).startswith(f"column {column}:")


def test_unknown_field_is_named():
    with pytest.raises(AttrParseError, match="sizePerThreads"):
        parse_attr("#ttg.blocked<{sizePerThreads = [1]}>")


_ALPHABET = st.sampled_from(list("#ttg.blocked<{}>[]=, 0123456789abcdefxyz_-\"") +
                            ["sizePerThread", "order", "#ttg.", "parent", "true", "tensor<", "x"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=30).map("".join))
def test_fuzzed_text_only_raises_parse_errors(text):
    try:
        parse_attr(text)
    except AttrParseError:
        pass
    try:
        parse_type(text)
    except LayoutError:  # AttrParseError, or a LayoutError from building a parsed layout
        pass


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000))
def test_fuzzed_mutations_of_valid_text(seed):
    rng = random.Random(seed)
    text = format_attr(_spec(random_case(rng.choice(ATTRIBUTE_KINDS), rng)))
    i = rng.randrange(len(text))
    mutated = text[:i] + rng.choice(["", "]", "{", ",", "=", "#", "9", " x"]) + text[i + 1:]
    try:
        spec = parse_attr(mutated)
    except AttrParseError:
        return
    try:
        build_spec(spec, [16, 16])
    except LayoutError:
        pass


def test_show_cli():
    from llverify.cli import cli

    runner = CliRunner()
    r = runner.invoke(cli, ["show", "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], "
                                    "warpsPerCTA = [1, 1], order = [1, 0]}>", "--shape", "8x8"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith(" - register=1 -> (0, 1)")
    # lane 4 points along dim1 by 0 here (broadcast): every cell has two owners
    assert "T0:0|T4:0" in r.output
    r = runner.invoke(cli, ["show", "tensor<8x16xf16, #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, "
                                    "order = [1, 0]}>>", "--format", "table"])
    assert r.exit_code == 0
    assert r.output.splitlines()[1].split()[:4] == ["18", "19", "16", "17"]
    r = runner.invoke(cli, ["show", "{kind: blocked, size_per_thread: [1], threads_per_warp: [32], "
                                    "warps_per_cta: [1], order: [0]}", "--shape", "32", "--format", "json"])
    assert r.exit_code == 0 and '"lane": [[1], [2], [4], [8], [16]]' in r.output
    r = runner.invoke(cli, ["show", "#ttg.blocked<{sizePerThread = [1, 2]", "--shape", "8x8"])
    assert r.exit_code == 2
    assert "column 37" in r.output and "Traceback" not in r.output
    r = runner.invoke(cli, ["show", "{kind: blocked, size_per_thread: [3], threads_per_warp: [32], "
                                    "warps_per_cta: [1], order: [0]}", "--shape", "32"])
    assert r.exit_code == 2 and "size_per_thread" in r.output


def test_show_reads_alias_lines_as_the_spec_key_does() -> None:
    """`llverify show` accepts the alias lines a spec's `triton:` key accepts (issue 13)."""
    from llverify.triton.show import resolve_layout

    text = ("#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>\n"
            "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>")
    L, shape, _ = resolve_layout(text, [32, 32])
    inline = ("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
              "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>")
    L2, _, _ = resolve_layout(inline, [32, 32])
    assert L == L2 and shape == [32, 32]
