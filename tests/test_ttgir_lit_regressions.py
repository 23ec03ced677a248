"""Regressions found by running `llverify ttgir` over Triton's own lit tests (test/TritonGPU, test/Conversion,
test/TritonNvidiaGPU, test/Analysis).  Each module below is a small excerpt in the style of those tests, written
for this file: valid IR that llverify once refuted (a false refutation), or IR whose verdict changed for a
documented reason."""

from __future__ import annotations

import textwrap

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

_B1 = "#blk = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
_B2 = "#blk = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n"
_MOD = 'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {\n'


def _findings(text: str):
    return check_module(parse_module(textwrap.dedent(text), "lit.mlir"))


def _status(findings, status: str, prop: str | None = None):
    return [f for f in findings if f.verdict.status == status and (prop is None or f.verdict.property == prop)]


def _op(module, name: str):
    return next(op for _, op, _ in module.walk() if op.name == name)


# -- reader: what MLIR accepts and Triton's lit tests write ------------------------------------------------

def test_signature_colon_glued_to_the_last_operand() -> None:
    # `%y: T` and `{...}: T` (no blank before the colon) are valid MLIR; the result type used to be lost and the
    # next use of the value was refuted as a type mismatch
    m = parse_module(_B2 + _MOD + textwrap.dedent("""\
      tt.func @f(%x: tensor<16xf32, #ttg.slice<{dim = 1, parent = #blk}>>, %s: tensor<16x8xf32, #blk>) {
        %e = tt.expand_dims %x {axis = 1 : i32}: tensor<16xf32, #ttg.slice<{dim = 1, parent = #blk}>> -> tensor<16x1xf32, #blk>
        %b = tt.broadcast %e : tensor<16x1xf32, #blk> -> tensor<16x8xf32, #blk>
        %m = arith.mulf %b, %s: tensor<16x8xf32, #blk>
        %n = arith.addf %m, %m : tensor<16x8xf32, #blk>
        tt.return
      }
    }
    """))
    ops = {op.results[0].name: op for _, op, _ in m.walk() if op.results}
    assert ops["%e"].results[0].type.shape == (16, 1)
    assert ops["%m"].results[0].type.shape == (16, 8) and ops["%m"].operands == ("%b", "%s")
    fs = check_module(m)
    assert not _status(fs, "refuted")


def test_for_results_with_trailing_attributes() -> None:
    # `} {tt.num_stages = 3 : i32}` after an scf.for: the attribute dict is not part of the result types, and the
    # iter_args keep their types inside the body
    fs = _findings(_B1 + _MOD + """\
      tt.func @f(%a: tensor<128xf32, #blk>, %n: index) -> tensor<128xf32, #blk> {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<128xf32, #blk>) {
          %s = arith.addf %acc, %a : tensor<128xf32, #blk>
          scf.yield %s : tensor<128xf32, #blk>
        } {tt.num_stages = 2 : i32}
        tt.return %r : tensor<128xf32, #blk>
      }
    }
    """)
    assert not _status(fs, "refuted")
    m = parse_module(textwrap.dedent(_B1 + _MOD + """\
      tt.func @f(%a: tensor<128xf32, #blk>, %n: index) {
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<128xf32, #blk>) {
          scf.yield %acc : tensor<128xf32, #blk>
        } {tt.num_stages = 2 : i32}
        tt.return
      }
    }
    """))
    assert _op(m, "scf.for").results[0].type.kind == "tensor"


def test_values_do_not_leak_between_functions_and_partitions_type_their_arguments() -> None:
    # a partition's `partition0(%arg0: T) num_warps(2)` arguments were untyped and `%arg0` resolved to the previous
    # function's f32 argument; its layout is checked against the partition's warp count, not the module's
    text = _MOD + """\
      tt.func @first(%arg0: f32) {
        tt.return
      }
      tt.func @second(%p: !tt.ptr<i32>) {
        ttg.warp_specialize(%p)
        default {
          ttg.warp_yield
        }
        partition0(%arg0: !tt.ptr<i32>) num_warps(2) {
          %v = tt.splat %arg0 : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #w2>
          %l = tt.load %v : tensor<64x!tt.ptr<i32>, #w2>
          ttg.warp_return
        } : (!tt.ptr<i32>) -> ()
        tt.return
      }
    }
    """
    w2 = "#w2 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>\n"
    m = parse_module(textwrap.dedent(w2 + text))
    assert _op(m, "tt.splat").operand_types[0].text == "!tt.ptr<i32>"
    assert "2" in _op(m, "ttg.warp_specialize").attributes["partitionNumWarps"]
    fs = check_module(m)
    assert not _status(fs, "refuted") and _status(fs, "proved", "thread_counts")
    # a layout for the module's 4 warps inside the 2-warp partition is still refuted
    w4 = w2.replace("warpsPerCTA = [2]", "warpsPerCTA = [4]")
    bad = _status(_findings(w4 + text), "refuted", "thread_counts")
    assert bad and bad[0].op == "tt.splat"


def test_local_atomic_scatter_operands_follow_the_operand_order() -> None:
    # printed `%dst[%idx], %vals, %mask` but typed as (dst, vals, idx, mask)
    fs = _findings(_B1 + _MOD + """\
      tt.func @f(%idx: tensor<128xi32, #blk>, %vals: tensor<128xf32, #blk>, %mask: tensor<128xi1, #blk>) {
        %buf = ttg.local_alloc : () -> !ttg.memdesc<128xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>
        %r = ttg.local_atomic_scatter_rmw fadd, %buf[%idx], %vals, %mask {axis = 0 : i32} : (!ttg.memdesc<128xf32, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>, tensor<128xf32, #blk>, tensor<128xi32, #blk>, tensor<128xi1, #blk>) -> tensor<128xf32, #blk>
        tt.return
      }
    }
    """)
    assert not _status(fs, "refuted")


def test_pointer_default_address_space_is_the_same_type() -> None:
    fs = _findings(_B1 + _MOD + """\
      tt.func @f(%p: !tt.ptr<f16>) {
        %t = tt.splat %p : !tt.ptr<f16, 1> -> tensor<128x!tt.ptr<f16>, #blk>
        tt.return
      }
    }
    """)
    assert not _status(fs, "refuted")


def test_unread_definition_type_is_unknown_not_refuted() -> None:
    # a definition whose type the reader cannot read (here an op without any signature) must not refute its use
    fs = _findings(_B1 + _MOD + """\
      tt.func @f() {
        %x = "some.op"() : () -> !some.opaque<thing>
        %y = ttg.convert_layout %x : tensor<128xf32, #blk> -> tensor<128xf32, #blk>
        tt.return
      }
    }
    """)
    assert not _status(fs, "refuted")
    assert _status(fs, "unknown", "use_type")


# -- dot operands -------------------------------------------------------------------------------------------

_MMA = "#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>\n"


def _dot_module(elem: str, kw_a: int, kw_b: int) -> str:
    a = f"tensor<64x32x{elem}, #ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = {kw_a}}}>>"
    b = f"tensor<32x64x{elem}, #ttg.dot_op<{{opIdx = 1, parent = #mma, kWidth = {kw_b}}}>>"
    return _MMA + 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80"} {\n' + f"""\
      tt.func @f(%a: {a}, %b: {b}, %c: tensor<64x64xf32, #mma>) {{
        %d = tt.dot %a, %b, %c : {a} * {b} -> tensor<64x64xf32, #mma>
        tt.return
      }}
    }}
    """


def test_mma_v2_kwidth_multiple_of_the_register_width_is_not_refuted() -> None:
    # f32 (tf32) operands with kWidth = 2: Triton's verifier accepts it and its MMAv2 lowering handles a kWidth that
    # is a multiple of 32 / bits (remove-layout-conversion tests use it)
    fs = _findings(_dot_module("f32", 2, 2))
    assert not _status(fs, "refuted")
    assert _status(fs, "unknown", "dot_operands") and _status(fs, "proved", "dot_operands")
    # the exact width still proves, a kWidth below one 32-bit register and an A/B mismatch are still refuted
    assert not _status(_findings(_dot_module("f16", 2, 2)), "refuted")
    assert _status(_findings(_dot_module("f16", 1, 1)), "refuted", "dot_operands")
    bad = _status(_findings(_dot_module("f16", 4, 2)), "refuted", "dot_operands")
    assert bad and "kWidth A" in str(bad[0].verdict.counterexample.sides)


# -- tt.gather {efficient_layout} ---------------------------------------------------------------------------

def test_efficient_layout_gather_across_warps_is_not_refuted() -> None:
    # warps split along the gather axis: not warp-local, so Triton's lowering goes through shared memory; the IR
    # is valid (Triton's lit tests carry such gathers through remove-layout-conversions)
    src = "#src = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>\n"
    fs = _findings(src + _MOD + """\
      tt.func @f(%s: tensor<256x4xf32, #src>, %i: tensor<256x4xi32, #src>) {
        %g = tt.gather %s[%i] {axis = 0 : i32, efficient_layout} : (tensor<256x4xf32, #src>, tensor<256x4xi32, #src>) -> tensor<256x4xf32, #src>
        tt.return
      }
    }
    """)
    assert not _status(fs, "refuted")
    flagged = _status(fs, "unknown", "gather_warp_local")
    assert flagged and "shared memory" in flagged[0].verdict.message


# -- TMA ----------------------------------------------------------------------------------------------------

_NV = ("#nv = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8}>\n"
       "#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n")


def _tma(block: str, buf: str) -> str:
    return _NV + 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {\n' + f"""\
      tt.func @f(%d: !tt.tensordesc<{block}xf8E5M2, #nv>, %x: i32, %p: i1) {{
        %buf = ttg.local_alloc : () -> !ttg.memdesc<{buf}xf8E5M2, #nv, #ttg.shared_memory, mutable>
        %bar = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #bar, #ttg.shared_memory, mutable>
        ttng.async_tma_copy_global_to_local %d[%x, %x, %x] %buf, %bar, %p : !tt.tensordesc<{block}xf8E5M2, #nv>, !ttg.memdesc<1xi64, #bar, #ttg.shared_memory, mutable> -> !ttg.memdesc<{buf}xf8E5M2, #nv, #ttg.shared_memory, mutable>
        tt.return
      }}
    }}
    """


def test_rank_reducing_tma_copy_is_not_refuted() -> None:
    # a 1x128x64 block loaded into a 128x64 buffer: Triton's verifier only asks for equal element counts
    fs = _findings(_tma("1x128x64", "128x64"))
    assert not _status(fs, "refuted") and _status(fs, "proved", "tma_buffer")
    # a different box is still refuted
    assert _status(_findings(_tma("1x64x64", "128x64")), "refuted", "tma_buffer")


# -- shared layouts over several CTAs ----------------------------------------------------------------------------

def test_shared_layout_broadcast_over_ctas_is_not_refuted() -> None:
    # CGALayout = [[0, 0]]: both CTAs of the pair hold the whole buffer (valid; Triton's ops.mlir subslices one)
    enc = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CGALayout = [[0, 0]]}>"
    text = f"#sh = {enc}\n" + """\
    module attributes {"ttg.num-warps" = 1 : i32, "ttg.num-ctas" = 2 : i32, ttg.target = "cuda:90"} {
      tt.func @f(%m: !ttg.memdesc<8x16xf32, #sh, #ttg.shared_memory>) {
        %s = ttg.memdesc_subslice %m [0, 0] : !ttg.memdesc<8x16xf32, #sh, #ttg.shared_memory> -> !ttg.memdesc<4x16xf32, #sh, #ttg.shared_memory>
        tt.return
      }
    }
    """
    fs = _findings(text)
    assert not _status(fs, "refuted") and _status(fs, "proved", "memory")
    # a CTA split along dim 0 is still checked as a bijection (and holds)
    assert not _status(_findings(text.replace("[[0, 0]]", "[[1, 0]]")), "refuted")


# -- hand-wrapped ops ----------------------------------------------------------------------------------------

def test_ops_wrapped_before_arrow_star_colon_or_attributes_are_read() -> None:
    # lit tests wrap long ops with the next line starting `-> T`, `* T`, `: T` or `{attrs}`; this used to be a
    # reader error ("expected an operation")
    m = parse_module(textwrap.dedent(_MMA + 'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80"} {\n' + """\
      tt.func @f(%a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>,
                 %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>,
                 %c: tensor<64x64xf32, #mma>)
          -> tensor<64x64xf32, #mma> {
        %d = tt.dot %a, %b, %c
          {inputPrecision = 0 : i32}
          : tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
          * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>>
          -> tensor<64x64xf32, #mma>
        tt.return %d : tensor<64x64xf32, #mma>
      }
    }
    """))
    dot = _op(m, "tt.dot")
    assert dot.results[0].type.shape == (64, 64) and dot.attributes.get("inputPrecision") == "0 : i32"
    assert m.functions[0].result_types[0].shape == (64, 64)
    fs = check_module(m)
    assert not _status(fs, "refuted") and _status(fs, "proved", "dot_operands")


def test_tma_descriptor_with_a_signed_element_type_moves_signless_data() -> None:
    # `!tt.tensordesc<...xsi8>` into an `i8` buffer: Triton's verifier compares the signless block type
    text = _tma("128x64", "128x64").replace("xf8E5M2, #nv>", "xsi8, #nv>").replace("xf8E5M2, #nv, #ttg", "xi8, #nv, #ttg")
    text = text.replace("%d[%x, %x, %x]", "%d[%x, %x]")
    assert "xsi8, #nv>" in text and "128x64xi8, #nv, #ttg" in text
    fs = _findings(text)
    assert not _status(fs, "refuted") and _status(fs, "proved", "tma_buffer")


def test_a_hand_wrapped_module_header_is_read() -> None:
    """``module attributes {`` with one attribute per line and ``} {`` (Triton's lit tests write it so); the
    counts it states are the ones the layouts are checked against."""
    text = textwrap.dedent("""\
        #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
        module attributes {
            "ttg.num-warps" = 2 : i32,
            "ttg.num-ctas" = 1 : i32,
            "ttg.threads-per-warp" = 32 : i32,
            ttg.target = "cuda:90"
        } {
          tt.func @f(%p: !tt.ptr<f32>) {
            %0 = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
            tt.return
          }
        }
        """)
    m = parse_module(text)
    assert (m.num_warps, m.threads_per_warp, m.num_ctas, m.target) == (2, 32, 1, "cuda:90")
    assert not _status(check_module(m), "refuted") and _status(check_module(m), "proved", "thread_counts")
    four = parse_module(text.replace('"ttg.num-warps" = 2', '"ttg.num-warps" = 4'))
    assert _status(check_module(four), "refuted", "thread_counts")


def test_a_generic_op_wrapped_before_its_properties_is_read() -> None:
    """Triton's lit tests (Hopper warp specialization, 2026) wrap a generic op with its properties ``<{...}>`` and
    its signature on lines of their own; this was "expected an operation, found '<{operandSegmentSizes'"."""
    text = textwrap.dedent("""\
        module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
          tt.func public @f(%t: !ttg.async.token, %i: i32) {
            "ttng.some_wait"(%t, %i, %i)
                <{operandSegmentSizes = array<i32: 1, 1, 1>}>
                : (!ttg.async.token, i32, i32) -> ()
            %r = "scf.execute_region"()
                ({
                  %c = arith.constant 1 : i32
                  scf.yield %c : i32
                }) : () -> i32
            tt.return
          }
        }
        """)
    m = parse_module(text)
    wait = _op(m, "ttng.some_wait")
    assert wait.operands == ("%t", "%i", "%i") and "operandSegmentSizes" in wait.attributes
    region = _op(m, "scf.execute_region")
    assert region.results[0].type.text == "i32" and len(region.regions) == 1


_TWO_CTA = """\
#a = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#b = #ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16}>
#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttng.two-ctas" = true} {
  tt.func public @f(%a: !ttg.memdesc<128x128xf16, #a, #ttg.shared_memory>, %b: !ttg.memdesc<128xBNxf16, #b, #ttg.shared_memory>,
                    %d: !ttg.memdesc<128x64xf32, #t, #ttng.tensor_memory, mutable>, %p: i1,
                    %bar: !ttg.memdesc<1xi64, #bar, #ttg.shared_memory>) {
    ttng.tc_gen5_mma %a, %b, %d, %p, %p, %bar[%p] {is_async ATTR} : !ttg.memdesc<128x128xf16, #a, #ttg.shared_memory>, !ttg.memdesc<128xBNxf16, #b, #ttg.shared_memory>, !ttg.memdesc<128x64xf32, #t, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #bar, #ttg.shared_memory>
    tt.return
  }
}
"""


@pytest.mark.parametrize("bn, attr, want", [
    ("32", ", two_ctas", "proved"),   # TLX's two-CTA form: B is this CTA's half of N (Hopper/TwoCTA lit tests)
    ("64", ", two_ctas", "proved"),   # Triton's form: B typed whole
    ("32", "", "refuted"),            # one CTA: D's N must be B's
    ("16", ", two_ctas", "refuted"),  # a quarter is neither
])
def test_a_two_cta_mma_may_type_b_as_its_half(bn: str, attr: str, want: str) -> None:
    found = _findings(_TWO_CTA.replace("BN", bn).replace("ATTR", attr))
    shapes = [f.verdict.status for f in found if f.verdict.property == "dot_operands" and " x " in f.verdict.subject
              and "accumulator" not in f.verdict.subject]
    assert shapes == [want]
