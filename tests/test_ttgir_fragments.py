"""Fragments as bug reports and reviews paste them: alias definitions and ops written outside any function, and
modules that state no warp count.

Triton's issue tracker holds such snippets (a ``ttg.convert_layout`` line under its two aliases, triton-lang/triton
PR 7899); Triton's own lit tests hold functions outside any ``module attributes {"ttg.num-warps" = ...}``.  The ops of
a fragment are checked as the body of one function named ``(top level)``, typed by their printed signatures; where
no warp count is stated, none is compared with the layouts' (Triton's verifiers use ``maybeLookupNumWarps`` and skip
the check there)."""

from __future__ import annotations

import textwrap

from llverify.ttgir.assemble import TOP_LEVEL
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

ALIASES = textwrap.dedent("""\
    #b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]}>
    #t = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>
    #mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
    #blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
    """)


def _findings(text: str) -> list:
    return check_module(parse_module(text, "fragment.mlir"))


def _by_rule(findings: list, rule: str) -> list:
    return [f for f in findings if f.rule == rule]


def test_a_pasted_conversion_is_checked() -> None:
    """PR 7899's snippet: an f8 MMA accumulator converted to a blocked layout, both for one warp."""
    text = ALIASES + "%4 = ttg.convert_layout %3 : tensor<16x8xf8E5M2, #mma> -> tensor<16x8xf8E5M2, #blocked2>\n"
    module = parse_module(text, "fragment.mlir")
    assert [f.name for f in module.functions] == [TOP_LEVEL]
    findings = check_module(module)
    conv = _by_rule(findings, "conversion")
    assert len(conv) == 1 and conv[0].verdict.status == "proved"
    assert conv[0].kernel == TOP_LEVEL and (conv[0].location.line, conv[0].location.col) == (5, 1)
    assert all(f.verdict.status == "proved" for f in findings)


def test_a_fragment_that_moves_data_is_refuted() -> None:
    """A ``tt.trans`` whose declared result is the operand's layout (not its transpose) moves elements between
    threads: refuted, located at the fragment's line; the right result layout is proved."""
    right = ALIASES + "%1 = tt.trans %0 {order = array<i32: 1, 0>} : tensor<32x16xf32, #b> -> tensor<16x32xf32, #t>\n"
    wrong = right.replace("tensor<16x32xf32, #t>", "tensor<16x32xf32, #b>")
    assert [f.verdict.status for f in _by_rule(_findings(right), "shape_op")] == ["proved"]
    refuted = [f for f in _findings(wrong) if f.verdict.status == "refuted"]
    assert refuted and all(f.location.line == 5 for f in refuted)
    assert any(f.rule == "shape_op" for f in refuted)


def test_no_warp_count_is_compared_where_none_is_stated() -> None:
    """Layouts for 2 warps in a fragment (no ``ttg.num-warps``): no thread-count refutation; the same function in a
    module of 4 warps is refuted for it, and in a module of 2 proved."""
    body = textwrap.dedent("""\
        tt.func @k(%x: tensor<32x16xf32, #b>) {
          %y = arith.addf %x, %x : tensor<32x16xf32, #b>
          tt.return
        }
        """)
    assert not [f for f in _findings(ALIASES + body) if f.verdict.status == "refuted"]

    def in_module(warps: int) -> list:
        return _findings(ALIASES + f'module attributes {{"ttg.num-warps" = {warps} : i32}} {{\n' + body + "}\n")

    refuted = [f for f in in_module(4) if f.verdict.status == "refuted"]
    assert refuted and all("the module runs 4" in f.verdict.message for f in refuted)
    assert not [f for f in in_module(2) if f.verdict.status == "refuted"]


def test_symbols_of_other_dialects_are_no_fragment() -> None:
    """An LLVM-dialect function or global, or another project's module op, at the top level is not read as a fragment
    of a function's body."""
    text = ALIASES + textwrap.dedent("""\
        llvm.mlir.global external @global_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
        llvm.func @helper(%a: i32) -> i32 {
          llvm.return %a : i32
        }
        cuda_tile.module @kernels {
          cuda_tile.entry @bitcast() {
            %c = constant <i8: [1, 2, 3, 4]> : !cuda_tile.tile<4xi8>
          }
        }
        """)
    assert parse_module(text, "fragment.mlir").functions == ()


def test_a_gluon_placeholder_layout_is_unknown_with_its_reason() -> None:
    """Gluon's frontend prints ``#gluon.auto_encoding`` (and ``#gluon.coalesced_encoding``) where a later pass picks
    the layout: every obligation on such a value is unknown and says the layout is not chosen yet, never refuted."""
    text = textwrap.dedent("""\
        module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
          tt.func @k() {
            %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #gluon.auto_encoding>
            %1 = arith.addi %0, %0 : tensor<256xi32, #gluon.auto_encoding>
            tt.return
          }
        }
        """)
    found = [f for f in _findings(text) if f.rule == "layout"]
    assert found and all(f.verdict.status == "unknown" for f in found)
    assert all("placeholder" in f.verdict.message and "no layout yet" in f.verdict.message for f in found)
