"""MLIR forms of Triton's lit tests the reader missed, each read as Triton's own parser reads it (or refused, located,
where Triton refuses it).  Every module here is written for this file.

* two alias definitions on one line with no blank between them (``...}>#shared = ...``): MLIR's lexer needs none;
* LLVM ``split-file`` parts (``//--- name``): each part is a file of its own, with its own aliases;
* top-level ops of MLIR's implicit module: a dialect op other than ``tt.func`` (``llvm.func``), a function after a
  module's closing brace, a ``module { }`` after top-level functions (it was read as an op: its functions were lost);
* a region closer whose attribute dictionary continues on the next line (``} {a = ...,`` / ``b = ...}``);
* a result type list followed by a keyword (``scf.execute_region -> (T, U) no_inline {``);
* a value defined without a printed type (``%t = gpu.thread_id x``: the op infers it) takes the type its uses print;
* refused where Triton refuses: a backslash line continuation (located), an attribute of a dialect llverify does not
  know (``#xdl.wrapped<#inner>``: an unknown naming it, never a layout).

Layouts newly read are compared with Triton 3.9's ``to_linear_layout`` of the same module parsed by Triton's MLIR
parser (a child process: Triton may abort).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.loader import load_text
from llverify.ttgir.model import Module, TtgirError
from llverify.ttgir.reader import parse_modules

_CHILD = textwrap.dedent("""
    import json, os, sys, tempfile
    from triton._C.libtriton import gluon_ir, ir
    ctx = ir.context(); ir.load_dialects(ctx)
    builder = gluon_ir.GluonOpBuilder(ctx)
    req = json.loads(sys.stdin.read())
    path = os.path.join(tempfile.mkdtemp(), "m.mlir")
    open(path, "w").write(req["text"])
    try:
        mod = ir.parse_mlir_module(path, ctx)
    except Exception as exc:
        print(json.dumps({"ok": False, "error": str(exc)})); sys.stdout.flush(); os._exit(0)
    out = {}
    for fname, args in req.get("args", {}).items():
        fn = mod.get_function(fname)
        for i, (shape, memdesc) in args.items():
            arg = fn.args(int(i))
            g = builder.get_gluon_layout_from_memdesc(arg) if memdesc else builder.get_gluon_layout_from_tensor(arg)
            ll = builder.to_linear_layout(g._to_ir(builder), shape)
            if type(ll).__name__ == "DistributedLinearLayout":
                bases = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                         "block": ll.block_bases}
            else:
                bases = {"offset": ll.offset_bases, "block": ll.block_bases}
            out[f"{fname}:{i}"] = {k: [list(map(int, b)) for b in v] for k, v in bases.items()}
    print(json.dumps({"ok": True, "layouts": out, "text": mod.str()})); sys.stdout.flush(); os._exit(0)
""")


def _triton(text: str, args: dict[str, dict[int, tuple[list[int], bool]]] | None = None) -> dict:
    """Triton 3.9's parser on ``text`` (a child): ``ok``, and the linear layouts of the named function arguments."""
    pytest.importorskip("triton")
    req = {"text": text, "args": {f: {str(i): v for i, v in a.items()} for f, a in (args or {}).items()}}
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(req), capture_output=True, text=True,
                          timeout=300)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    assert lines, proc.stderr[-800:]
    return json.loads(lines[-1])


def _mine(mod: Module, fname: str, i: int) -> dict[str, list[list[int]]]:
    fn = next(f for f in mod.functions if f.name == fname)
    built = layout_of(fn.arguments[i].type)
    assert isinstance(built, BuiltLayout), built
    return {d: [list(b) for b in bs] for d, bs in built.layout.bases.items()}


def _statuses(mod: Module) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in check_module(mod):
        out[f.verdict.status] = out.get(f.verdict.status, 0) + 1
    return out


# -- two alias definitions on one line ----------------------------------------------------------------------------
ONE_LINE = textwrap.dedent("""\
    #acc = #ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 2], instrShape = [32, 32, 8], isTransposed = false}>#lds = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
    module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} {
      tt.func @f(%x: tensor<128x64xf32, #acc>, %m: !ttg.memdesc<64x128xf16, #lds, #ttg.shared_memory, mutable>) {
        %z = arith.constant dense<1.000000e+00> : tensor<128x64xf32, #acc>
        %s = arith.addf %x, %z : tensor<128x64xf32, #acc>
        tt.return
      }
    }
    """)


def test_two_aliases_on_one_line_are_both_read() -> None:
    (mod,) = parse_modules(ONE_LINE, "one.mlir")
    assert mod.aliases["acc"]["kind"] == "amd_mfma" and mod.aliases["acc"]["warps_per_cta"] == [4, 2]
    assert mod.aliases["lds"]["kind"] == "swizzled_shared" and mod.aliases["lds"]["vec"] == 8
    assert _statuses(mod).get("unknown", 0) == 0


def test_two_aliases_on_one_line_equal_triton() -> None:
    (mod,) = parse_modules(ONE_LINE, "one.mlir")
    got = _triton(ONE_LINE, {"f": {0: ([128, 64], False), 1: ([64, 128], True)}})
    assert got["ok"], got
    assert _mine(mod, "f", 0) == got["layouts"]["f:0"]
    assert _mine(mod, "f", 1) == got["layouts"]["f:1"]


# -- split-file parts ---------------------------------------------------------------------------------------------
SPLIT_FILE = textwrap.dedent("""\
    // RUN: split-file %s %t
    //--- four.mlir
    #row = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
    module attributes {"ttg.num-warps" = 4 : i32} {
      tt.func @four(%x: tensor<64x64xf32, #row>) {
        tt.return
      }
    }
    //--- eight.mlir
    #row = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 4], order = [0, 1]}>
    module attributes {"ttg.num-warps" = 8 : i32} {
      tt.func @eight(%x: tensor<64x64xf32, #row>) {
        tt.return
      }
    }
    """)


def test_split_file_parts_are_separate_sources() -> None:
    mods = load_text(SPLIT_FILE, "s.mlir")
    assert all(not isinstance(m, TtgirError) for m in mods), mods
    assert [(m.functions[0].name, m.num_warps, m.line) for m in mods] == [("four", 4, 4), ("eight", 8, 11)]
    assert [m.aliases["row"]["warps_per_cta"] for m in mods] == [[4, 1], [2, 4]]
    assert all(_statuses(m).get("refuted", 0) == 0 for m in mods)


def test_split_file_parts_equal_triton() -> None:
    parts = SPLIT_FILE.split("//--- ")[1:]
    for part, mod in zip(parts, load_text(SPLIT_FILE, "s.mlir")):
        text = part.split("\n", 1)[1]
        name = mod.functions[0].name
        got = _triton(text, {name: {0: ([64, 64], False)}})
        assert got["ok"], got
        assert _mine(mod, name, 0) == got["layouts"][f"{name}:0"]


def test_the_whole_split_file_is_refused_by_triton() -> None:
    """Read as one source, the two `#row` definitions clash: the parts are meant to be read apart."""
    assert not _triton(SPLIT_FILE)["ok"]


# -- top-level ops of MLIR's implicit module ------------------------------------------------------------------------
TOP_LEVEL = textwrap.dedent("""\
    #w8 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
    llvm.func @helper(%a: i32) -> i32 {
      %0 = llvm.add %a, %a : i32
      llvm.return %0 : i32
    }
    module attributes {"ttg.num-warps" = 8 : i32, "ttg.threads-per-warp" = 32 : i32} {
      tt.func @inside(%x: tensor<32x32xf32, #w8>) {
        %y = arith.addf %x, %x : tensor<32x32xf32, #w8>
        tt.return
      }
    }
    tt.func @after(%x: tensor<32x32xf32, #w8>) {
      %y = arith.mulf %x, %x : tensor<32x32xf32, #w8>
      tt.return
    }
    """)


def test_top_level_ops_around_a_module_are_read() -> None:
    mods = parse_modules(TOP_LEVEL, "t.mlir")
    assert [([f.name for f in m.functions], m.num_warps, m.line) for m in mods] == [
        ([], 4, 2), (["inside"], 8, 6), (["after"], 4, 12)]
    inside, after = mods[1], mods[2]
    assert inside.states_num_warps and not after.states_num_warps
    # the 8-warp layout is right in its 8-warp module; outside it no warp count is stated, so none is compared
    # (Triton's verifiers use maybeLookupNumWarps and skip the check; test_triton_reads_the_top_level_ops_the_same)
    assert _statuses(inside).get("refuted", 0) == 0 and _statuses(inside).get("proved", 0) > 0
    assert _statuses(after).get("refuted", 0) == 0 and _statuses(after).get("proved", 0) > 0


def test_triton_reads_the_top_level_ops_the_same() -> None:
    got = _triton(TOP_LEVEL)
    assert got["ok"], got
    printed = got["text"]
    # Triton nests the module in its implicit one, with its own attributes, beside the two functions
    assert "llvm.func @helper" in printed and "tt.func @after" in printed
    assert '"ttg.num-warps" = 8 : i32' in printed
    # (Triton looks functions up in the outer module only: the nested one's layout is asked of it alone)
    nested = TOP_LEVEL.split("\n")
    alone = "\n".join([nested[0], *nested[5:11]]) + "\n"
    got = _triton(alone, {"inside": {0: ([32, 32], False)}})
    assert _mine(parse_modules(TOP_LEVEL, "t.mlir")[1], "inside", 0) == got["layouts"]["inside:0"]


# -- a closer's attribute dictionary over two lines, a keyword after region results -----------------------------------
FREE_FORM = textwrap.dedent("""\
    #v = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    module attributes {"ttg.num-warps" = 4 : i32} {
      tt.func @g(%lb: i32, %ub: i32, %st: i32, %x: tensor<128xf32, #v>) {
        scf.for %i = %lb to %ub step %st : i32 {
          %a = arith.addi %i, %i : i32
        } {tt.first_attr = 3 : i32,
           tt.second_attr = [1, 2]}
        %r:2 = scf.execute_region -> (tensor<128xf32, #v>, i32) no_inline {
          %c = arith.constant 7 : i32
          scf.yield %x, %c : tensor<128xf32, #v>, i32
        }
        %s = arith.addf %r#0, %x : tensor<128xf32, #v>
        tt.return
      }
    }
    """)


def test_closer_dictionary_and_region_keyword() -> None:
    (mod,) = parse_modules(FREE_FORM, "f.mlir")
    ops = {op.name: op for _, op, _ in mod.walk()}
    assert set(ops["scf.for"].attributes) >= {"tt.first_attr", "tt.second_attr"}
    region = ops["scf.execute_region"]
    assert [r.type.text for r in region.results] == ["tensor<128xf32, #v>", "i32"]
    assert ops["arith.addf"].operand_types[0].encoding["kind"] == "blocked"
    assert "unknown" not in _statuses(mod)
    assert _triton(FREE_FORM)["ok"]


# -- a value whose definition prints no type ---------------------------------------------------------------------------
UNTYPED = textwrap.dedent("""\
    module attributes {"ttg.num-warps" = 4 : i32} {
      tt.func @h() {
        %t = gpu.thread_id x
        %i = arith.index_cast %t : index to i32
        tt.return
      }
    }
    """)


def test_an_untyped_definition_takes_its_uses_type() -> None:
    (mod,) = parse_modules(UNTYPED, "u.mlir")
    ops = {op.name: op for _, op, _ in mod.walk()}
    assert ops["arith.index_cast"].operand_types[0].text == "index"
    assert "unknown" not in _statuses(mod)
    assert _triton(UNTYPED)["ok"]
    # MLIR gives a value one type: a use printing another is refused by Triton
    assert not _triton(UNTYPED.replace(": index to i32", ": i32 to i64"))["ok"]


# -- refused where Triton refuses ----------------------------------------------------------------------------------------
def test_backslash_continuation_is_refused_where_it_stands() -> None:
    text = ("#x = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], \\\n"
            "      warpsPerCTA = [4], order = [0]}>\n"
            "module {\n  tt.func @k() {\n    tt.return\n  }\n}\n")
    with pytest.raises(TtgirError, match=r"^b\.mlir:1:64: unexpected character '\\'"):
        parse_modules(text, "b.mlir")
    # a backslash in a comment is no continuation
    assert parse_modules("// a note \\\nmodule {\n  tt.func @k() {\n    tt.return\n  }\n}\n", "c.mlir")
    assert not _triton(text)["ok"]


UNKNOWN_DIALECT = textwrap.dedent("""\
    #inner = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
    #wrapped = #xdl.wrapped<#inner>
    module attributes {"ttg.num-warps" = 4 : i32} {
      tt.func @u() {
        %m = ttg.local_alloc : () -> !ttg.memdesc<32x32xf16, #wrapped, #ttg.shared_memory, mutable>
        tt.return
      }
    }
    """)


def test_an_unknown_dialect_attribute_is_named_never_read() -> None:
    (mod,) = parse_modules(UNKNOWN_DIALECT, "d.mlir")
    (alloc,) = [op for _, op, _ in mod.walk() if op.name == "ttg.local_alloc"]
    assert alloc.results[0].type.encoding is None
    assert "'#xdl.wrapped'" in alloc.results[0].type.encoding_error
    found = list(check_module(mod))
    assert found and all(f.verdict.status == "unknown" for f in found)
    assert any("#xdl.wrapped" in (f.verdict.message or "") for f in found)
    assert not _triton(UNKNOWN_DIALECT)["ok"]


# -- a module with an empty body on one line (`module attributes {...} {}`: Intel's lit tests have one) ------------------
EMPTY_BODIES = textwrap.dedent("""\
    module attributes {"ttg.threads-per-warp" = 16 : i32, "ttg.num-warps" = 2 : i32} {}
    module {}
    module attributes {"ttg.num-warps" = 8 : i32} {
      tt.func @f() {
        tt.return
      }
    }
    """)


def test_a_module_with_an_empty_body_on_one_line_is_read() -> None:
    mods = parse_modules(EMPTY_BODIES, "e.mlir")
    assert [(m.line, m.num_warps, m.threads_per_warp, [f.name for f in m.functions]) for m in mods] == [
        (1, 2, 16, []), (2, 4, 32, []), (3, 8, 32, ["f"])]
    got = _triton(EMPTY_BODIES)
    assert got["ok"], got  # Triton's parser reads the same text
    with pytest.raises(TtgirError, match="1:1"):
        parse_modules("module {} tail\n", "e.mlir")
