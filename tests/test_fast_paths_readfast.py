"""The reader's one-match readings (``llverify.ttgir.op_line``, issue 11) agree with the general steps they skip:
the common op line (``OP_LINE`` / ``fast_line``), the location definition line (``LOC_LINE``), the one-pass
signature split (``signature_types``), the argument lists (``argument_types``, ``argument_list``) and the flat layout
attributes (``flat_attrs``) - on the whole TTGIR corpus and on random lines built from the pieces that can fool
them; each comparison is shown able to fail (the ``test_*_catches_*`` tests: a mutant of the fast path it must
catch)."""

from __future__ import annotations

import re

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.ttgir import assemble, flat_attrs, lines, op_line, op_signature, reader, structure
from llverify.ttgir.signatures import split_signature_plain

_NEVER = re.compile(r"(?!)")


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every one-match reading off: the reader takes its general steps for every line."""
    monkeypatch.setattr(lines, "fast_line", lambda s: None)
    monkeypatch.setattr(lines, "LOC_LINE", _NEVER)
    monkeypatch.setattr(assemble, "argument_types", lambda text: None)
    monkeypatch.setattr(assemble, "argument_list", lambda text, start: None)


_read = corpus_reads.read_repr


# -- the corpus ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, str]]:
    return corpus_reads.corpus_texts()


def test_the_corpus_reads_the_same_with_and_without_the_one_match_readings(corpus, monkeypatch) -> None:
    fast = corpus_reads.read_all(corpus)
    results = [s for _, text in corpus for s in (raw.strip() for raw in text.split("\n")) if s.startswith("%")]
    assert sum(1 for s in results if op_line.fast_line(s)) > 0.8 * len(results)  # the fast path is the common one
    _general(monkeypatch)
    general = corpus_reads.read_all(corpus)
    assert len(fast) == len(general)
    for (path, _), a, b in zip(corpus, fast, general):
        assert repr(a) == repr(b), path


def test_signature_types_is_the_general_split_on_every_corpus_signature(corpus) -> None:
    checked = 0
    for _, text in corpus:
        for raw in text.split("\n"):
            m = op_line.fast_line(raw.strip())
            if m is None or m.group("signature") is None:
                continue
            sig = m.group("signature")
            lhs, rhs = op_line.signature_types(m)
            plain = split_signature_plain(sig)
            if plain is not None:
                expected = ([t.strip() for t in plain[0]], None if plain[1] is None else [t.strip() for t in plain[1]])
                assert (lhs, rhs) == expected, sig
                checked += 1
    assert checked > 5000


# -- random lines ----------------------------------------------------------------------------------------------------

_TYPE = st.sampled_from(["i32", "f16", "tensor<4xf32, #b>", "tensor<4x!tt.ptr<f16>, #b>", "!tt.ptr<f32>",
                         "tensor<2xi32, #ttg.slice<{dim = 0, parent = #b}>>", "<4xf32, #s, #m>", "!ttg.memdesc<4xf32, #s>",
                         "tensor<4xf32, #ttg.x<{a = [1, 0]}>>", "tensor<a->b>", "t<x<a->>", "t<{x}", "t<(a)>",
                         "t<\"q\">", "t<a : b>", "t<4 to 5>", ""])
_SEP = st.sampled_from([", ", " -> ", " * ", " to ", ",", " ->", " : ", " "])
_SIG = st.lists(st.tuples(_TYPE, _SEP), min_size=1, max_size=4).map(
    lambda ps: "".join(t + s for t, s in ps[:-1]) + ps[-1][0]).flatmap(
    lambda s: st.sampled_from([s, f"({s})", f"({s}) -> i32", f"{s} -> ({s})"]))
_OPERANDS = st.lists(st.sampled_from(["%a", "%b#1", "%c[%a]", "slt,", "deps", "1", "-2.5e+00", "dense<0.0>",
                                      "dense<a->", "%a:", "x=y", "<", "{", "\"s\"", "%a,", "[%a, %b]", "//"]),
                     max_size=4).map(lambda xs: "".join(" " + x for x in xs))
_ATTRS = st.sampled_from(["", " {a = 1 : i32}", " {a = [1, 2], b = <c>}", " {a = {b}}", " {a = \"}\"}", " {a = (1)}",
                          " {}", " {a->b}", " {a = 1 : i32} {b}"])
_LOC = st.sampled_from(["", " loc(#l)", " loc(#l1)", " loc(#l) loc(#l)", " loc(\"f.py\":1:2)", " loc(#l", "loc(#l)"])
_RESULTS = st.sampled_from(["", "%r = ", "%r, %s = ", "%r:2 = ", "%r=", "%r = %s = "])
_NAME = st.sampled_from(["tt.splat", "arith.addi", "module", "tt.dot", "triton_gpu.convert_layout", "scf.yield",
                         "arith.constant", "ttg.warp_id", "a"])

PRELUDE = ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
           "#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n#m = #ttg.shared_memory\n"
           'module attributes {"ttg.num-warps" = 4 : i32} {\n'
           "  tt.func @k(%a: i32, %b: f16, %c: tensor<4xf32, #b>) {\n")
POSTLUDE = "    tt.return\n  }\n}\n#l = loc(\"k.py\":1:2)\n#l1 = loc(callsite(#l at #l))\n"


def _op_line(parts) -> str:
    results, name, operands, attrs, sig, loc = parts
    return f"{results}{name}{operands}{attrs}{' : ' + sig if sig is not None else ''}{loc}"


_LINE = st.tuples(_RESULTS, _NAME, _OPERANDS, _ATTRS, st.none() | _SIG, _LOC).map(_op_line)


def _both(text: str) -> tuple[str, str]:
    return corpus_reads.fast_and_general(text, _general)


@given(st.lists(_LINE, min_size=1, max_size=3))
@settings(max_examples=600, deadline=None)
def test_random_op_lines_read_as_the_general_steps_read_them(body) -> None:
    text = PRELUDE + "".join(f"    {line}\n" for line in body) + POSTLUDE
    fast, general = _both(text)
    assert fast == general


_ARG = st.tuples(st.sampled_from(["%x", "%y_1", "%z:", "x"]), st.sampled_from([": ", ":", " : ", ": : "]), _TYPE,
                 st.sampled_from(["", " {tt.divisibility = 16 : i32}", " {a = \"{\"}", " {a}"]),
                 st.sampled_from(["", ' loc("x"(#l))', " loc(callsite(#l at #l1))", " loc(#l)", ' loc("a,b":1:2)',
                                  " loc(fused[#l, #l1])", " loc(#l"])).map("".join)


@given(st.lists(_ARG, max_size=3), st.sampled_from([", ", ",", " , ", ", , "]))
@settings(max_examples=400, deadline=None)
def test_random_argument_lists_read_as_the_general_steps_read_them(args, sep) -> None:
    listed = sep.join(args)
    text = PRELUDE.replace("tt.func @k(%a: i32, %b: f16, %c: tensor<4xf32, #b>)", f"tt.func @k({listed})")
    text += f"    ^bb1({listed}):\n" + POSTLUDE
    fast, general = _both(text)
    assert fast == general


_LOC_VALUE = st.lists(st.sampled_from(['"k.py"', ":1:2", "(", ")", "callsite", " at ", "#l", '"a(b"', "[", "]",
                                       "unknown", "fused", ", ", '"\\"', "<", ">", "{"]), max_size=6).map("".join)


@given(st.lists(_LOC_VALUE, min_size=1, max_size=3))
@settings(max_examples=400, deadline=None)
def test_random_location_definitions_read_as_the_general_steps_read_them(values) -> None:
    defs = "".join(f"#x{i} = loc({v})\n" for i, v in enumerate(values))
    text = (PRELUDE + "    %0 = arith.addi %a, %a : i32 loc(#x0)\n" + POSTLUDE + defs)
    fast, general = _both(text)
    assert fast == general


# -- each comparison catches a wrong fast path -----------------------------------------------------------------------

def test_a_line_with_an_arrow_inside_a_type_is_not_common() -> None:
    # the mutant that drops the arrow count: `t<x<a->>` is balanced to the regex, open to the bracket scan
    line = "%0 = tt.splat %a : t<x<a->> loc(#l)"
    assert op_line.OP_LINE.fullmatch(line) is not None and op_line.fast_line(line) is None
    fast, general = _both(PRELUDE + f"    {line}\n" + POSTLUDE)
    assert fast == general
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lines, "fast_line", op_line.OP_LINE.fullmatch)
        assert _read(PRELUDE + f"    {line}\n" + POSTLUDE) != general


def test_the_corpus_comparison_catches_a_wrong_signature_split(corpus, monkeypatch) -> None:
    good = corpus_reads.read_all(corpus[:40])

    def shifted(m):  # the mutant: the result side cut one character late (`-> tensor<...>` loses its first letter)
        lhs, rhs = op_line.signature_types(m)
        return lhs, None if rhs is None else [t[1:] for t in rhs]
    monkeypatch.setattr(op_signature, "signature_types", shifted)
    assert [repr(x) for x in corpus_reads.read_all(corpus[:40])] != [repr(x) for x in good]


def test_the_corpus_comparison_catches_a_wrong_argument_reading(corpus, monkeypatch) -> None:
    good = corpus_reads.read_all(corpus[:40])
    real = op_line.argument_types
    monkeypatch.setattr(assemble, "argument_types", lambda text: (real(text) or [])[1:] or None)  # the first dropped
    assert [repr(x) for x in corpus_reads.read_all(corpus[:40])] != [repr(x) for x in good]


def test_the_corpus_comparison_catches_a_wrong_location_definition(corpus, monkeypatch) -> None:
    good = corpus_reads.read_all(corpus[:40])
    # the mutant: the definition's name read one character short (`#loc12` defines `loc1`)
    mutant = re.compile(r"#([A-Za-z_][A-Za-z0-9_$.]*?)[0-9] = (loc\(.*\))")
    monkeypatch.setattr(lines, "LOC_LINE", mutant)
    monkeypatch.setattr(structure, "LOC_LINE", mutant)
    assert [repr(x) for x in corpus_reads.read_all(corpus[:40])] != [repr(x) for x in good]


# -- flat layout attributes ------------------------------------------------------------------------------------------

def _general_attr(text: str, specs) -> str:
    from llverify.triton.parse import parse_value
    try:
        return repr(parse_value(text, specs))
    except Exception as exc:  # noqa: BLE001 - compared by message
        return f"{type(exc).__name__}: {exc}"


def _flat_attr(text: str, specs) -> str | None:
    try:
        value = flat_attrs.flat_attribute(text, specs)
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"
    return None if value is None else repr(value)


def _corpus_attributes(corpus) -> list[tuple[str, dict]]:
    """Every alias definition and inline encoding of the corpus, with the specs of the aliases before it."""
    out = []
    for path, text in corpus:
        (module, *_) = reader.parse_modules(text, path)
        specs: dict = {}
        for raw in text.split("\n"):
            m = re.match(r"#(\w+) = (#.*)$", raw.strip())
            if m and not m.group(2).startswith("loc("):
                out.append((m.group(2), dict(specs)))
                if m.group(1) in module.aliases:
                    specs[m.group(1)] = module.aliases[m.group(1)]
        for inline in set(re.findall(r"#ttg\.\w+<\{[^{}<>]*\}>", text)):
            out.append((inline, dict(specs)))
    return out


def test_flat_attributes_are_the_general_reading_on_the_corpus(corpus) -> None:
    attributes = _corpus_attributes(corpus)
    flat = 0
    for text, specs in attributes:
        got = _flat_attr(text, specs)
        if got is not None:
            flat += 1
            assert got == _general_attr(text, specs), text
    assert flat > 0.9 * len(attributes)


_FIELD_TEXT = st.sampled_from(["sizePerThread = [1, 4]", "threadsPerWarp = [8, 4]", "warpsPerCTA = [4, 1]",
                               "order = [1, 0]", "dim = 1", "parent = #b", "parent = #nope", "opIdx = 0",
                               "kWidth = 2", "versionMajor = 2", "versionMinor = 0", "instrShape = [16, 8]",
                               "vec = 8 : i32", "perPhase = 1", "maxPhase = 8", "transposed = true",
                               "register = [[0, 1], [0, 2]]", "lane = []", "order = [1,]", "order = [01]",
                               "bogus = 1", "x = mnThenK", 'x = "s"', "order=[1, 0]", "order = [ 1 , 0 ]",
                               "dim = -1", "dim = 1 : i32 : i32"])
_KIND = st.sampled_from(["#ttg.blocked", "#ttg.slice", "#ttg.dot_op", "#ttg.nvidia_mma", "#ttg.swizzled_shared",
                         "#ttg.linear", "#ttg.padded_shared", "#ttg.nope", "#blocked", "#ttg.shared_memory"])


@given(_KIND, st.lists(_FIELD_TEXT, max_size=5), st.sampled_from([", ", ",", " , "]))
@settings(max_examples=1500, deadline=None)
def test_random_attributes_read_as_the_general_reader_reads_them(kind, fields, sep) -> None:
    specs = {"b": {"kind": "blocked", "size_per_thread": [1], "threads_per_warp": [32], "warps_per_cta": [4],
                   "order": [0]}}
    text = f"{kind}<{{{sep.join(fields)}}}>"
    got = _flat_attr(text, specs)
    if got is not None:
        assert got == _general_attr(text, specs)


def test_the_attribute_comparison_catches_a_wrong_field_reading(corpus, monkeypatch) -> None:
    # the mutant: an integer's `: type` read as part of a list's last element (a list read one element short)
    real = flat_attrs.json.loads
    monkeypatch.setattr(flat_attrs.json, "loads", lambda raw: real(raw)[:-1] if real(raw) else real(raw))
    with pytest.raises(AssertionError):
        test_flat_attributes_are_the_general_reading_on_the_corpus(corpus)


@pytest.mark.parametrize("line", ["%r = tt.splat %a : i32 -> i32 * i32 loc(#l)", "tt.splat slt,",
                                  "%r = tt.splat %a : (i32, i32) * i32 -> i32"])
def test_the_cases_the_random_comparison_found(line) -> None:
    # a `*` after the arrow is no type separator (`i32 * i32` is one type to the general split), a trailing `,`
    # continues the op on the next line, parentheses then `*` are no printed shape: none is a common line
    assert op_line.fast_line(line) is None
    fast, general = _both(PRELUDE + f"    {line}\n" + POSTLUDE)
    assert fast == general


def test_an_arrow_inside_an_argument_type_is_left_to_the_general_steps() -> None:
    # found by the random comparison: `t<x<a->>` is balanced to the argument grammar, open to the bracket scan
    assert op_line.argument_types("%x: t<x<a->>") is None and op_line.argument_list("(%x: t<x<a->>)", 0) is None
    assert op_line.argument_list("(%x: i32) -> i32", 0) == ([("%x", "i32")], 8)
    text = PRELUDE.replace("tt.func @k(%a: i32, %b: f16, %c: tensor<4xf32, #b>)", "tt.func @k(%x: t<x<a->>)")
    fast, general = _both(text + "    ^bb1(%y: t<x<a->>):\n" + POSTLUDE)
    assert fast == general
