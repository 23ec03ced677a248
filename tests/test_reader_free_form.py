"""Free-form MLIR that Triton's parser accepts but Triton's printer never writes, read as the printed form reads:

* a region closed on an op's line (``tt.reduce.return %2 : f32 })``, ``scf.yield %x : f32 } else {``);
* a colon glued to the type (``%x :tensor<...>``, ``%x:tensor<...>``);
* several alias definitions on one line;
* alias definitions between the top-level ops of an implicit module (no ``module {``), and a ``// -----`` chunk
  holding only aliases (an empty module; a whole file of aliases only is still refused: a truncated module);
* ops whose assembly format leaves the result type out (``%w = ttg.warp_id``: i32; the async tokens).

Each free-form text is compared with the form Triton prints for it (the same ops, results, operands and types),
and Triton 3.9's own parser is asked (in a child process) that it accepts each text, or, for an alias used before its
definition, rejects it as the reader does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from llverify.ttgir.loader import load_text
from llverify.ttgir.model import Module, Region, TtgirError
from llverify.ttgir.reader import parse_module, parse_modules

BLOCKED = ("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
BLOCKED1 = ("#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
HEAD = 'module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {'


def _region(r: Region) -> list:
    return [([(a.name, a.type.text) for a in b.arguments], [_op(o) for o in b.ops]) for b in r.blocks]


def _op(o) -> tuple:
    return (o.name, [(v.name, v.type.text) for v in o.results], o.operands,
            [t.text if t is not None else None for t in o.operand_types], dict(o.attributes),
            [_region(r) for r in o.regions])


def summary(m: Module) -> list:
    """Everything the reader read of a module but positions: functions, arguments, ops, types, attributes."""
    return [(f.name, [(a.name, a.type.text) for a in f.arguments], [t.text for t in f.result_types], _region(f.body))
            for f in m.functions]


def unnamed(m: Module) -> list:
    """:func:`summary` with the SSA names left out (Triton's printer renames values: ``%x`` -> ``%arg0``)."""
    def strip(x):
        if isinstance(x, str):
            return "%" if x.startswith("%") else x
        if isinstance(x, (list, tuple)):
            return [strip(y) for y in x]
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items()}
        return x
    return strip(summary(m))


# -- 1. a region closed on an op's line -----------------------------------------------------------------------------

REDUCE_PRINTED = f"""\
#blocked = {BLOCKED}
{HEAD}
  tt.func @k(%x: tensor<128xf32, #blocked>) -> f32 {{
    %0 = "tt.reduce"(%x) <{{axis = 0 : i32}}> ({{
    ^bb0(%a: f32, %b: f32):
      %2 = arith.maxnumf %a, %b : f32
      tt.reduce.return %2 : f32
    }}) : (tensor<128xf32, #blocked>) -> f32
    tt.return %0 : f32
  }}
}}
"""

REDUCE_FREE = REDUCE_PRINTED.replace("tt.reduce.return %2 : f32\n    })", "tt.reduce.return %2 : f32 })")


def test_reduce_closed_on_the_return_line_reads_as_printed() -> None:
    assert "f32 })" in REDUCE_FREE
    free, printed = parse_module(REDUCE_FREE, "r.mlir"), parse_module(REDUCE_PRINTED, "r.mlir")
    assert summary(free) == summary(printed)
    ops = [op for _, op, _ in free.walk()]
    assert [o.name for o in ops] == ["tt.reduce", "arith.maxnumf", "tt.reduce.return", "tt.return"]
    reduce = ops[0]
    assert reduce.results[0].type.text == "f32" and reduce.attr_int("axis") == 0
    assert reduce.operand_types[0].encoding["kind"] == "blocked"
    assert [a.name for a in reduce.regions[0].blocks[0].arguments] == ["%a", "%b"]
    assert ops[2].operands == ("%2",) and ops[2].operand_types[0].text == "f32"
    assert ops[2].location.line == 7 and ops[2].text == "tt.reduce.return %2 : f32"


IF_PRINTED = f"""\
#blocked = {BLOCKED}
{HEAD}
  tt.func @k(%c: i1, %x: tensor<64xf32, #blocked>, %y: tensor<64xf32, #blocked>) {{
    %0 = scf.if %c -> (tensor<64xf32, #blocked>) {{
      scf.yield %x : tensor<64xf32, #blocked>
    }} else {{
      scf.yield %y : tensor<64xf32, #blocked>
    }}
    %1 = arith.addf %0, %0 : tensor<64xf32, #blocked>
    tt.return
  }}
}}
"""

IF_FREE = (IF_PRINTED.replace("#blocked>\n    } else {", "#blocked> } else {")
           .replace("%y : tensor<64xf32, #blocked>\n    }\n", "%y : tensor<64xf32, #blocked> }\n"))


def test_yield_closed_on_its_line_and_else_read_as_printed() -> None:
    assert "} else {" in IF_FREE and "#blocked> }\n" in IF_FREE
    free = parse_module(IF_FREE, "i.mlir")
    assert summary(free) == summary(parse_module(IF_PRINTED, "i.mlir"))
    if_op = free.functions[0].body.blocks[0].ops[0]
    assert if_op.name == "scf.if" and len(if_op.regions) == 2
    assert [[o.operands for o in r.blocks[0].ops] for r in if_op.regions] == [[("%x",)], [("%y",)]]
    assert if_op.results[0].type.encoding["kind"] == "blocked"


def test_several_closers_on_one_line() -> None:
    text = IF_PRINTED.replace("#blocked>\n    }\n    %1", "#blocked> } \n    %1")
    text = text.replace("    tt.return\n  }\n}\n", "    tt.return } }\n")
    assert summary(parse_module(text, "i.mlir")) == summary(parse_module(IF_PRINTED, "i.mlir"))


def test_a_brace_inside_a_string_or_an_attribute_is_no_closer() -> None:
    text = IF_PRINTED.replace("%1 = arith.addf %0, %0 : tensor<64xf32, #blocked>",
                              '%1 = arith.addf %0, %0 {note = "}", k = {a = 1 : i32}} : tensor<64xf32, #blocked>')
    m = parse_module(text, "s.mlir")
    add = m.functions[0].body.blocks[0].ops[1]
    assert add.name == "arith.addf" and add.attributes["note"] == '"}"'
    assert add.results[0].type.text == "tensor<64xf32, #blocked>"


def test_a_stray_closer_after_an_op_is_still_refused() -> None:
    text = IF_PRINTED.replace("    tt.return\n  }\n}\n", "    tt.return } } }\n")
    with pytest.raises(TtgirError, match=r"^i\.mlir:\d+:\d+: "):
        parse_module(text, "i.mlir")


# -- 2. a colon glued to the type -----------------------------------------------------------------------------------

GLUED_PRINTED = f"""\
#blocked = {BLOCKED}
#blocked1 = {BLOCKED1}
{HEAD}
  tt.func @k(%x: tensor<64xf32, #blocked>) {{
    %0 = arith.addf %x, %x : tensor<64xf32, #blocked>
    %1 = ttg.convert_layout %0 : tensor<64xf32, #blocked> -> tensor<64xf32, #blocked1>
    %2 = arith.constant 3 : i32
    %3 = tt.reduce_glued_probe %1 {{axis = 0 : i32}} : tensor<64xf32, #blocked1> -> f32
    tt.return
  }}
}}
"""


@pytest.mark.parametrize("glue", [(" : tensor", " :tensor"), (" : tensor", ":tensor"), ("3 : i32", "3 :i32"),
                                  ("} : tensor", "}:tensor")])
def test_a_colon_glued_to_the_type_reads_as_printed(glue) -> None:
    free = GLUED_PRINTED.replace(*glue)
    assert free != GLUED_PRINTED
    m = parse_module(free, "g.mlir")
    assert summary(m) == summary(parse_module(GLUED_PRINTED, "g.mlir"))
    ops = m.functions[0].body.blocks[0].ops
    assert ops[0].results[0].type.text == "tensor<64xf32, #blocked>"
    assert ops[1].results[0].type.encoding["size_per_thread"] == [2]
    assert ops[2].results[0].type.text == "i32" and ops[3].results[0].type.text == "f32"


def test_a_nested_symbol_reference_colon_is_no_signature() -> None:
    m = parse_module(f"{HEAD}\n  tt.func @k() {{\n    tt.call @a::@b() : () -> ()\n    %0 = foo.sym @a::@b\n"
                     f"    tt.return\n  }}\n}}\n")
    call, sym = m.functions[0].body.blocks[0].ops[:2]
    assert call.name == "tt.call" and call.results == ()
    assert sym.name == "foo.sym" and sym.results[0].type.text == ""  # no type printed: unknown, not `@b`


# -- 3. several alias definitions on one line -----------------------------------------------------------------------

def test_two_alias_definitions_on_one_line() -> None:
    lines = GLUED_PRINTED.split("\n")
    free = "\n".join([lines[0] + " " + lines[1], *lines[2:]])
    assert free.count("\n") == GLUED_PRINTED.count("\n") - 1
    m = parse_module(free, "a.mlir")
    assert set(m.aliases) == {"blocked", "blocked1"}
    assert m.aliases["blocked"]["size_per_thread"] == [1] and m.aliases["blocked1"]["size_per_thread"] == [2]
    assert summary(m) == summary(parse_module(GLUED_PRINTED, "a.mlir"))


def test_three_definitions_of_mixed_kinds_on_one_line() -> None:
    text = (f'#blocked = {BLOCKED} !t = tensor<64xf32, #blocked> #loc = loc("k.py":3:4)\n'
            f"{HEAD}\n  tt.func @k(%x: !t) {{\n    tt.return loc(#loc)\n  }}\n}}\n")
    m = parse_module(text, "a.mlir")
    arg = m.functions[0].arguments[0]
    assert arg.type.text == "tensor<64xf32, #blocked>" and arg.type.encoding["kind"] == "blocked"
    ret = m.functions[0].body.blocks[0].ops[0]
    assert (ret.source.file, ret.source.line, ret.source.col) == ("k.py", 3, 4)


def test_an_equals_sign_inside_an_alias_value_does_not_split_it() -> None:
    text = (f"#blocked = {BLOCKED}\n#s = #ttg.slice<{{dim = 0, parent = #blocked}}>\n"
            f'#loc = loc("a #b = c.py":1:2)\n#loc1 = loc(fused["d #e = f.py":3:4, #loc])\n'
            f"{HEAD}\n  tt.func @k(%x: tensor<64xf32, #s>) {{\n    tt.return loc(#loc)\n"
            f"    tt.return loc(#loc1)\n  }}\n}}\n")
    m = parse_module(text, "a.mlir")
    assert m.aliases["s"]["kind"] == "slice"
    first, second = m.functions[0].body.blocks[0].ops
    assert first.source.file == "a #b = c.py" and (second.source.file, second.source.line) == ("d #e = f.py", 3)


# -- 4. aliases after the ops of an implicit module; chunks of aliases only ------------------------------------------

SHARED = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
SHARED1 = "#ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 1, order = [0]}>"
IMPLICIT = f"""\
#shared = {SHARED}
#smem = #ttg.shared_memory
tt.func @k(%x: !ttg.memdesc<64xf32, #shared, #smem>) {{
  tt.return loc(#loc1)
}}
#shared1 = {SHARED1} !m = !ttg.memdesc<64xf32, #shared1, #smem>
tt.func @k2(%x: !m, %y: !ttg.memdesc<64xf32, #shared, #smem>) {{
  %w = ttg.warp_id
  tt.return loc(#loc1)
}}
#loc1 = loc("k.py":3:4)
"""


def test_aliases_between_and_after_the_ops_of_an_implicit_module() -> None:
    (m,) = parse_modules(IMPLICIT, "m.mlir")
    assert [f.name for f in m.functions] == ["k", "k2"] and m.line == 3
    x, y = m.functions[1].arguments
    assert x.type.kind == y.type.kind == "memdesc" and x.type.memory_space == "ttg.shared_memory"
    assert (x.type.encoding["vec"], y.type.encoding["vec"]) == (2, 1)
    assert m.functions[1].body.blocks[0].ops[0].results[0].type.text == "i32"
    assert str(m.functions[0].body.blocks[0].ops[0].source) == "k.py:3:4"


def test_a_layout_alias_used_before_its_definition_is_refused_at_the_use() -> None:
    text = IMPLICIT.replace("tt.func @k(%x: !ttg.memdesc<64xf32, #shared,", "tt.func @k(%x: !ttg.memdesc<64xf32, #shared1,")
    with pytest.raises(TtgirError, match=r"^m\.mlir:3:37: undefined alias #shared1: used before its definition "
                                         r"at line 6"):
        parse_modules(text, "m.mlir")


def test_a_type_alias_used_before_its_definition_is_refused_at_the_use() -> None:
    with pytest.raises(TtgirError, match=r"^m\.mlir:3:16: undefined alias !m: used before its definition at line 6"):
        parse_modules(IMPLICIT.replace("tt.func @k(%x: !ttg.memdesc<64xf32, #shared, #smem>)", "tt.func @k(%x: !m)"),
                      "m.mlir")
    # after an explicit module as well (MLIR's rule; the alias was left unexpanded before)
    with pytest.raises(TtgirError, match=r"^l\.mlir:2:18: undefined alias !later"):
        parse_modules("module {\n  tt.func @f(%x: !later) {\n    tt.return\n  }\n}\n!later = tensor<4xf32>\n",
                      "l.mlir")


def test_a_chunk_of_aliases_only_is_an_empty_module() -> None:
    text = f"#blocked = {BLOCKED}\n// -----\n#blocked = {BLOCKED1}\n{HEAD}\n  tt.func @k(%x: tensor<64xf32, " \
           f"#blocked>) {{\n    tt.return\n  }}\n}}\n"
    first, second = load_text(text, "c.mlir")
    assert isinstance(first, Module) and first.functions == () and first.line == 1
    assert first.aliases["blocked"]["size_per_thread"] == [1]
    assert isinstance(second, Module) and second.line == 4
    assert second.functions[0].arguments[0].type.encoding["size_per_thread"] == [2]
    only = f"// aliases\n\n#loc = loc(\"k.py\":1:1)\n#blocked = {BLOCKED}\n"
    (empty,) = parse_modules(only, "c.mlir", aliases_only=True)
    assert empty.functions == () and empty.line == 3
    # a whole file of aliases only is more likely a module cut short (a truncated cache file): still refused
    with pytest.raises(TtgirError, match="no 'module' found"):
        parse_modules(only, "c.mlir")
    assert isinstance(load_text(only, "c.mlir")[0], TtgirError)


def test_an_empty_text_is_still_no_module() -> None:
    with pytest.raises(TtgirError, match="no 'module' found"):
        parse_modules("// nothing\n\n", "e.mlir")


# -- 5. ops printed without their result type -----------------------------------------------------------------------

def test_ops_whose_format_leaves_the_result_type_out() -> None:
    text = textwrap.dedent(f"""\
        #blocked = {BLOCKED}
        #shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
        #smem = #ttg.shared_memory
        {HEAD}
          tt.func @k(%p: tensor<64x!tt.ptr<f32>, #blocked>) {{
            %w = ttg.warp_id
            %v = ttg.warp_id loc(#loc1)
            %s = arith.addi %w, %v : i32
            %a = ttg.local_alloc : () -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
            %t = ttg.async_copy_global_to_local %p, %a : tensor<64x!tt.ptr<f32>, #blocked> -> <64xf32, #shared, #smem, mutable>
            %g = ttg.async_commit_group tokens %t
            %d = ttg.async_wait %g {{num = 0 : i32}}
            %e = ttg.async_commit_group
            tt.return
          }}
        }}
        #loc1 = loc("k.py":3:4)
        """)
    ops = parse_module(text, "w.mlir").functions[0].body.blocks[0].ops
    types = {o.results[0].name: o.results[0].type for o in ops if o.results}
    assert types["%w"].text == types["%v"].text == "i32" and types["%w"].kind == "scalar"
    assert ops[2].operand_types[0].text == ops[2].operand_types[1].text == "i32"
    assert ops[1].source is not None and ops[1].source.line == 3
    assert {types[n].text for n in ("%t", "%g", "%d", "%e")} == {"!ttg.async.token"}
    assert ops[4].operand_types[1].kind == "memdesc"  # the buffer operand keeps its own type


# -- 6. an op whose custom-format keywords start the continuation lines ----------------------------------------------

KEYWORDS_PRINTED = textwrap.dedent(f"""\
    #blocked = {BLOCKED}
    #shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
    #smem = #ttg.shared_memory
    {HEAD}
      tt.func @k(%p: tensor<64x!tt.ptr<f32>, #blocked>, %m: tensor<64xi1, #blocked>, %o: tensor<64xf32, #blocked>) {{
        %c0 = arith.constant 0 : i32
        %c4 = arith.constant 4 : i32
        %c1 = arith.constant 1 : i32
        %a = ttg.local_alloc : () -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
        %t = ttg.async_copy_global_to_local %p, %a mask %m other %o : tensor<64x!tt.ptr<f32>, #blocked> -> <64xf32, #shared, #smem, mutable>
        %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %o) -> (tensor<64xf32, #blocked>)  : i32 {{
          %s = arith.addf %acc, %o : tensor<64xf32, #blocked>
          scf.yield %s : tensor<64xf32, #blocked>
        }}
        %u = arith.addf %r, %o : tensor<64xf32, #blocked> loc(#loc1)
        tt.return
      }}
    }}
    #loc1 = loc("k.py":3:4)
    """)

KEYWORDS_FREE = (KEYWORDS_PRINTED
                 .replace("%a mask %m other %o :", "%a\n        mask %m\n        other %o\n        :")
                 .replace("= %c0 to %c4 step %c1 iter_args", "= %c0\n        to %c4\n        step %c1\n        iter_args")
                 .replace("#blocked> loc(#loc1)", "#blocked>\n        loc(#loc1)"))


def test_keyword_and_location_continuation_lines_read_as_printed() -> None:
    """A line starting with a bare keyword of the op's format (``mask``, ``other``, ``to``, ``step``,
    ``iter_args``) or with ``loc(`` goes on with the op before it; it is no op of its own."""
    assert "\n        mask %m\n" in KEYWORDS_FREE and "\n        step %c1\n" in KEYWORDS_FREE
    free = parse_module(KEYWORDS_FREE, "k.mlir")
    assert summary(free) == summary(parse_module(KEYWORDS_PRINTED, "k.mlir"))
    ops = [op for _, op, _ in free.walk()]
    assert [o.name for o in ops] == ["arith.constant"] * 3 + ["ttg.local_alloc", "ttg.async_copy_global_to_local",
                                                              "scf.for", "arith.addf", "scf.yield", "arith.addf",
                                                              "tt.return"]
    assert ops[4].operands == ("%p", "%a", "%m", "%o") and ops[5].results[0].type.encoding["kind"] == "blocked"
    assert ops[8].source is not None and ops[8].source.line == 3


# -- Triton's own parser on the same texts --------------------------------------------------------------------------

_ACCEPTED = {"reduce": REDUCE_FREE, "if": IF_FREE, "glued": GLUED_PRINTED.replace(" : tensor", ":tensor")
             .replace("tt.reduce_glued_probe %1 {axis = 0 : i32}:tensor<64xf32, #blocked1> -> f32", "ttg.warp_id"),
             "two_aliases": GLUED_PRINTED.replace("}>\n#blocked1", "}> #blocked1", 1)
             .replace("    %3 = tt.reduce_glued_probe %1 {axis = 0 : i32} : tensor<64xf32, #blocked1> -> f32\n", ""),
             "implicit": IMPLICIT, "aliases_only": f"#blocked = {BLOCKED}\n", "keywords": KEYWORDS_FREE}
_REFUSED = {"used_before": IMPLICIT.replace("tt.func @k(%x: !ttg.memdesc<64xf32, #shared,",
                                            "tt.func @k(%x: !ttg.memdesc<64xf32, #shared1,")}


def test_triton_accepts_the_free_forms_and_refuses_a_use_before_definition() -> None:
    pytest.importorskip("triton")
    child = textwrap.dedent("""
        import json, os, sys, tempfile
        from triton._C.libtriton import ir
        ctx = ir.context(); ir.load_dialects(ctx)
        out = {}
        for name, text in json.loads(sys.stdin.read()).items():
            path = os.path.join(tempfile.mkdtemp(), name + ".mlir")
            open(path, "w").write(text)
            try:
                out[name] = ir.parse_mlir_module(path, ctx).str()
            except RuntimeError:
                out[name] = None
        print(json.dumps(out))
    """)
    texts = {**_ACCEPTED, **_REFUSED}
    proc = subprocess.run([sys.executable, "-c", child], input=json.dumps(texts), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-500:]
    printed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert all(printed[k] is not None for k in _ACCEPTED), {k: v for k, v in printed.items() if v is None}
    assert all(printed[k] is None for k in _REFUSED)
    for name in _ACCEPTED:  # and the reader reads Triton's printing of each as it reads the free form
        ours = [unnamed(m) for m in parse_modules(texts[name], name, aliases_only=True)]
        assert ours == [unnamed(m) for m in parse_modules(printed[name], name)], name
    with pytest.raises(TtgirError):
        parse_modules(_REFUSED["used_before"], "used_before")
