"""MLIR forms Triton's lit tests use and real dumps may carry, read as MLIR reads them:

* an attribute alias wrapped over several lines (``#blocked = #ttg.blocked<{`` / ``sizePerThread = ...`` / ``}>``);
* type aliases (``!desc = !ttg.memdesc<...>``; a dotted ``!tt.ptr`` is a dialect type, not an alias);
* several top-level modules in one file without ``// -----`` (each read, with its own attributes and lines).

Each was an unreadable module on Triton's own lit tests (the reader stopped at the first such line).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.loader import load_text
from llverify.ttgir.model import TtgirError
from llverify.ttgir.reader import parse_module, parse_modules

ONE_LINE = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
            "order = [1, 0]}>")

WRAPPED = textwrap.dedent("""\
    #blocked = #ttg.blocked<{
        sizePerThread=[1, 4],
        threadsPerWarp=[8, 4],
        warpsPerCTA=[4, 1],
        order=[1, 0]
    }>
    #shared = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
    !buf = !ttg.memdesc<2x32x32xf16, #shared, #ttg.shared_memory, mutable>
    !tile = tensor<32x32xf16, #blocked>
    module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
      tt.func @first(%p: !tt.ptr<f16>, %x: !tile) {
        %a = ttg.local_alloc : () -> !buf
        %c0 = arith.constant 0 : i32
        %v = ttg.memdesc_index %a[%c0] : !buf -> !ttg.memdesc<32x32xf16, #shared, #ttg.shared_memory, mutable>
        ttg.local_store %x, %v : !tile -> !ttg.memdesc<32x32xf16, #shared, #ttg.shared_memory, mutable>
        tt.return
      }
    }

    module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:80"} {
      tt.func @second(%x: tensor<64x32xf16, #blocked>) {
        %c = arith.constant dense<0.000000e+00> : tensor<64x32xf16, #blocked>
        tt.return
      }
    }
    """)


def test_wrapped_alias_reads_as_the_one_line_alias() -> None:
    first = parse_modules(WRAPPED, "w.mlir")[0]
    single = parse_module(f"#blocked = {ONE_LINE}\nmodule {{\n  tt.func @f() {{\n    tt.return\n  }}\n}}\n", "s.mlir")
    assert first.aliases["blocked"] == single.aliases["blocked"]
    # line numbers stay the file's: the function header is on line 11
    assert first.functions[0].location.line == 11


def test_type_aliases_expand_to_their_definitions() -> None:
    first = parse_modules(WRAPPED, "w.mlir")[0]
    fn = first.functions[0]
    tile = fn.arguments[1].type
    assert tile.kind == "tensor" and tile.shape == (32, 32) and tile.encoding["kind"] == "blocked"
    ops = {op.name: op for op in fn.body.blocks[0].ops}
    buf = ops["ttg.local_alloc"].results[0].type
    assert buf.kind == "memdesc" and buf.shape == (2, 32, 32) and buf.mutable
    assert buf.encoding["kind"] == "swizzled_shared"
    assert fn.arguments[0].type.kind != "tensor"  # !tt.ptr<f16> is the dialect type, not an alias
    # the expanded type is the inline one
    first_only = WRAPPED.split("\n\nmodule")[0].replace("!tile = tensor<32x32xf16, #blocked>\n", "")
    inline = parse_module(first_only.replace("!tile", "tensor<32x32xf16, #blocked>"), "i.mlir")
    assert inline.functions[0].arguments[1].type == tile


def test_several_top_level_modules_are_each_read() -> None:
    mods = parse_modules(WRAPPED, "w.mlir")
    assert [(m.functions[0].name, m.num_warps, m.target, m.line) for m in mods] == [
        ("first", 4, "cuda:90", 10), ("second", 8, "cuda:80", 20)]
    assert len(load_text(WRAPPED, "w.mlir")) == 2
    with pytest.raises(TtgirError, match=r"w\.mlir:20:1: a second top-level module"):
        parse_module(WRAPPED, "w.mlir")


def test_findings_of_the_second_module_are_its_own() -> None:
    """The 4-warp #blocked is proved in the 4-warp module and refuted, at its own line, in the 8-warp one."""
    first, second = parse_modules(WRAPPED, "w.mlir")
    ok = [f for f in check_module(first) if f.verdict.status != "proved"]
    bad = [f for f in check_module(second) if f.verdict.status == "refuted"]
    assert not ok, [(f.rule, f.verdict.message) for f in ok]
    assert bad and all(f.location.line == 22 for f in bad)
    assert any("warps" in (f.verdict.message or "") for f in bad)


def test_a_type_alias_used_before_its_definition_is_refused() -> None:
    text = textwrap.dedent("""\
        module {
          tt.func @f(%x: !later) {
            tt.return
          }
        }
        !later = tensor<4xf32>
        """)
    # MLIR reads an alias only after its definition (Triton's parser: "undefined symbol alias id 'later'")
    with pytest.raises(TtgirError, match=r"^l\.mlir:2:18: undefined alias !later"):
        parse_modules(text, "l.mlir")


def test_triton_reads_the_same_text() -> None:
    """The forms above are MLIR that Triton 3.9's own parser accepts (the oracle, in a child: it may abort)."""
    pytest.importorskip("triton")
    child = textwrap.dedent("""
        import json, sys, tempfile, os
        from triton._C.libtriton import ir
        ctx = ir.context(); ir.load_dialects(ctx)
        path = os.path.join(tempfile.mkdtemp(), "m.mlir")
        open(path, "w").write(sys.stdin.read())
        mod = ir.parse_mlir_module(path, ctx)
        print(json.dumps({"ok": True, "text": mod.str()}))
    """)
    # Triton parses one module per file: the first module with its aliases
    text = WRAPPED.split("\n\nmodule")[0] + "\n"
    proc = subprocess.run([sys.executable, "-c", child], input=text, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    printed = json.loads(proc.stdout.strip().splitlines()[-1])["text"]
    assert "@first" in printed and "2x32x32xf16" in printed


# -- MLIR's generic form of the module and its functions (`--mlir-print-op-generic`) -----------------------

_CUSTOM = textwrap.dedent("""\
    #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
    #blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
    module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
      tt.func public @k(%arg0: !tt.ptr<f32>) {
        %0 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #blocked>
        %1 = tt.load %0 : tensor<32x32x!tt.ptr<f32>, #blocked>
        %2 = ttg.convert_layout %1 : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
        %3 = ttg.convert_layout %0 : tensor<32x32x!tt.ptr<f32>, #blocked> -> tensor<32x32x!tt.ptr<f32>, #blocked1>
        tt.store %3, %2 : tensor<32x32x!tt.ptr<f32>, #blocked1>
        tt.return
      }
    }
    """)

_GENERIC = textwrap.dedent("""\
    #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
    #blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
    "builtin.module"() ({
      "tt.func"() <{function_type = (!tt.ptr<f32>) -> (), sym_name = "k", sym_visibility = "public"}> ({
      ^bb0(%arg0: !tt.ptr<f32>):
        %0 = "tt.splat"(%arg0) : (!tt.ptr<f32>) -> tensor<32x32x!tt.ptr<f32>, #blocked>
        %1 = "tt.load"(%0) <{cache = 1 : i32, evict = 1 : i32, isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<32x32x!tt.ptr<f32>, #blocked>) -> tensor<32x32xf32, #blocked>
        %2 = "ttg.convert_layout"(%1) : (tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked1>
        %3 = "ttg.convert_layout"(%0) : (tensor<32x32x!tt.ptr<f32>, #blocked>) -> tensor<32x32x!tt.ptr<f32>, #blocked1>
        "tt.store"(%3, %2) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<32x32x!tt.ptr<f32>, #blocked1>, tensor<32x32xf32, #blocked1>) -> ()
        "tt.return"() : () -> ()
      }) : () -> ()
    }) {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} : () -> ()
    """)


def _outcomes(text: str) -> list[tuple[str, str, str]]:
    return sorted((f.rule, f.op, f.verdict.status) for f in check_module(parse_module(text, "m.mlir")))


def test_generic_module_and_function_read_as_the_printed_form() -> None:
    # before: the generic `"builtin.module"` hid its function, and the gate passed the module with 0 obligations
    generic, custom = parse_module(_GENERIC, "g.mlir"), parse_module(_CUSTOM, "c.mlir")
    (fn,) = generic.functions
    assert (fn.name, fn.public, [a.name for a in fn.arguments]) == ("k", True, ["%arg0"])
    assert (generic.target, generic.num_warps) == ("cuda:90", 4)
    outcomes = _outcomes(_GENERIC)
    assert len(outcomes) > 5 and outcomes == _outcomes(_CUSTOM)
    assert not fn.body.blocks[0].arguments and len(fn.body.blocks[0].ops) == len(custom.functions[0].body.blocks[0].ops)


def test_generic_form_mutant_is_refuted() -> None:
    # the store's pointers read through another layout than their definition's: refuted in the generic form too
    mutated = _GENERIC.replace('"tt.store"(%3, %2) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<32x32x!tt.ptr<f32>, '
                               '#blocked1>', '"tt.store"(%3, %2) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<32x32x'
                               '!tt.ptr<f32>, #blocked>')
    assert mutated != _GENERIC
    assert "refuted" in {s for _, _, s in _outcomes(mutated)}


def test_generic_function_without_a_name_is_a_located_error() -> None:
    broken = _GENERIC.replace('sym_name = "k", ', "")
    with pytest.raises(TtgirError, match=r"g\.mlir:4:\d+: .*sym_name"):
        parse_module(broken, "g.mlir")


_GENERIC_LOOP = textwrap.dedent("""\
    #blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
    #blocked1 = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
    "builtin.module"() ({
      "tt.func"() <{function_type = (!tt.ptr<f32>) -> (), sym_name = "k", sym_visibility = "public"}> ({
      ^bb0(%arg0: !tt.ptr<f32>):
        %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
        %c1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
        %c4 = "arith.constant"() <{value = 4 : i32}> : () -> i32
        %cst = "arith.constant"() <{value = dense<0.000000e+00> : tensor<32x32xf32, #blocked>}> : () -> tensor<32x32xf32, #blocked>
        %0 = "tt.splat"(%arg0) : (!tt.ptr<f32>) -> tensor<32x32x!tt.ptr<f32>, #blocked>
        %r = "scf.for"(%c0, %c4, %c1, %cst) ({
        ^bb0(%iv: i32, %acc: tensor<32x32xf32, #blocked>):
          %1 = "tt.load"(%0) <{cache = 1 : i32, evict = 1 : i32, isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<32x32x!tt.ptr<f32>, #blocked>) -> tensor<32x32xf32, #blocked>
          %2 = "arith.addf"(%acc, %1) <{fastmath = #arith.fastmath<none>}> : (tensor<32x32xf32, #blocked>, tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked>
          "scf.yield"(%2) : (tensor<32x32xf32, #blocked>) -> ()
        }) : (i32, i32, i32, tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked>
        %s = "tt.reduce"(%r) <{axis = 1 : i32}> ({
        ^bb0(%a: f32, %b: f32):
          %m = "arith.maxnumf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
          "tt.reduce.return"(%m) : (f32) -> ()
        }) : (tensor<32x32xf32, #blocked>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
        %3 = "ttg.convert_layout"(%r) : (tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked1>
        %4 = "ttg.convert_layout"(%0) : (tensor<32x32x!tt.ptr<f32>, #blocked>) -> tensor<32x32x!tt.ptr<f32>, #blocked1>
        "tt.store"(%4, %3) <{cache = 1 : i32, evict = 1 : i32}> : (tensor<32x32x!tt.ptr<f32>, #blocked1>, tensor<32x32xf32, #blocked1>) -> ()
        "tt.return"() : () -> ()
      }) : () -> ()
    }) {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} : () -> ()
    """)


def test_generic_loop_and_reduce_are_typed_from_their_signatures() -> None:
    # a generic scf.for's results are typed from `: (i32, i32, i32, T) -> T` (the printed form's `-> (T)` header
    # is absent); its iter_arg is its entry block's labelled argument
    m = parse_module(_GENERIC_LOOP, "g.mlir")
    (loop,) = [op for op in m.functions[0].body.blocks[0].ops if op.name == "scf.for"]
    assert [r.type.text for r in loop.results] == ["tensor<32x32xf32, #blocked>"]
    assert loop.operands == ("%c0", "%c4", "%c1", "%cst")
    assert [a.name for a in loop.regions[0].blocks[0].arguments] == ["%iv", "%acc"]
    assert "refuted" not in {s for _, _, s in _outcomes(_GENERIC_LOOP)}


def test_generic_loop_yielding_another_layout_is_refuted() -> None:
    # before: the generic loop's result was untyped, so a yield in another layout passed unchecked
    mutated = _GENERIC_LOOP.replace(
        '"scf.yield"(%2) : (tensor<32x32xf32, #blocked>) -> ()',
        '%q = "ttg.convert_layout"(%2) : (tensor<32x32xf32, #blocked>) -> tensor<32x32xf32, #blocked1>\n'
        '          "scf.yield"(%q) : (tensor<32x32xf32, #blocked1>) -> ()')
    assert mutated != _GENERIC_LOOP
    bad = [f for f in check_module(parse_module(mutated, "g.mlir")) if f.verdict.status == "refuted"]
    assert [(f.rule, f.op) for f in bad] == [("region_boundary", "scf.yield")]
