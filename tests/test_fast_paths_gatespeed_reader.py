"""The reader's fourth round of fast paths (issue 11) agree with the general code they shortcut: the one-match split
of common op texts (``op_text.common_op``), the location alias memo with spans and the one-match file-location
definitions (``locations.Locations``), the one-match plain tensor type (``types._PLAIN_TENSOR``), the bracket
checks they rest on (``syntax.plain_balanced`` / ``plain_encloses``) - on random texts and on the whole TTGIR
corpus; each comparison is shown able to fail (a mutant of the fast path it must catch)."""

from __future__ import annotations

import re

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.ttgir import assemble, lines, locations, op_signature, op_text, reader, syntax, types
from llverify.ttgir.locations import Locations, split_loc
from llverify.ttgir.op_text import OPNAME, RESULTS, canonical_op_name, remove_dicts, signature_colon, top_dicts, uses
from llverify.ttgir.types import AliasTable, parse_typeref

_read_all = corpus_reads.read_all

# -- bracket checks --------------------------------------------------------------------------------------------------

_BRACKETY = st.lists(st.sampled_from(["(", ")", "<", ">", "{", "}", "[", "]", "->", "-", " ", "a", ",", ":"]),
                     max_size=14).map("".join)


def _final_depth(text: str) -> int:
    """The general scan's depth after ``text`` (``syntax._changes``)."""
    syntax._changes.cache_clear()
    _, after = syntax._changes(text)
    return after[-1] if after else 0


@given(_BRACKETY)
@settings(max_examples=500, deadline=None)
def test_plain_balanced_is_the_general_scan_ending_at_depth_0(text):
    assert syntax.plain_balanced(text) == (_final_depth(text) == 0)


@given(_BRACKETY)
@settings(max_examples=500, deadline=None)
def test_plain_encloses_is_the_general_matching_close(text):
    syntax._changes.cache_clear()
    expected = bool(text) and text[0] in "([{<" and syntax.matching_close(text, 0) == len(text) - 1 \
        and _final_depth(text) == 0
    assert syntax.plain_encloses(text) == expected


def test_plain_balanced_clamps_like_the_scan():
    # the mutant: counting opens minus closes (max_depth_final) says `>a<` is balanced; the scan ends at depth 1
    assert syntax.max_depth_final(">a<") == 0
    assert not syntax.plain_balanced(">a<") and _final_depth(">a<") == 1


# -- the one-match op split ------------------------------------------------------------------------------------------

_PIECE = st.sampled_from(["(", ")", "<", ">", "{", "}", "[", "]", "->", "-", " ", ",", "a", ":", " : ", "loc(",
                          "loc(#l)", "#b", "%x", "\"", "\\", "i32", "tensor<4xf32, #b>"])
_JUNK = st.lists(_PIECE, max_size=6).map("".join)
_OP = st.tuples(
    st.sampled_from(["", "%r = ", "%r, %s:2 = ", "%r =  ", "%r == ", "%r = %"]),
    st.sampled_from(["tt.op", "triton_gpu.x", "\"q.op\"", "a"]),
    st.sampled_from(["", " %a", " %a, %b#1", "  %a ,%b", " %a:", "(%a)", " %a-"]),
    st.sampled_from(["", " {k = 1 : i32}", "{k}", " {k = <}", " {a > b}", " {", " {x = \"s\"}"]),
    st.sampled_from([" : ", " :  ", ": ", " : : ", " "]),
    _JUNK,
    st.sampled_from(["", " loc(#l3)", "loc(#l)", "  loc(#a.b-1)  ", " loc(\"f\":1:2)", " loc(#l) ", " loc(#l"]),
).map("".join)


def _general_pieces(text: str):
    """What ``Assembler._split`` and the attribute/operand reading compute, by the general functions; None where
    the general path reads no op name."""
    syntax._changes.cache_clear()
    body, loc = split_loc(text)
    m = RESULTS.match(body)
    results = m.group(1) if m else ""
    body = body[m.end():] if m else body
    nm = OPNAME.match(body)
    if not nm:
        return None
    rest = body[nm.end():]
    at, end = signature_colon(rest)
    before = rest if at < 0 else rest[:at]
    sig = "" if at < 0 else rest[end:]
    return (results, canonical_op_name(nm.group(1) or nm.group(2)), rest, before, sig, loc, top_dicts(before),
            uses(remove_dicts(before)))


def _common_pieces(text: str):
    c = op_text.common_op(text, {})
    if c is None:
        return None
    before = c.operands + c.attributes
    return (c.results, canonical_op_name(c.name), before + " : " + c.signature, before, c.signature, c.loc,
            [c.attributes.lstrip()] if c.attributes else [], uses(c.operands))


@given(_OP)
@settings(max_examples=800, deadline=None)
def test_common_op_split_is_the_general_split(text):
    fast = _common_pieces(text)
    if fast is not None:
        assert fast == _general_pieces(text)


def test_common_op_reads_the_usual_shapes():
    text = "%1 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked> loc(#loc3)"
    assert _common_pieces(text) == _general_pieces(text) != None  # noqa: E711
    text = "tt.store %a, %b : tensor<128x!tt.ptr<f32>, #blocked>"
    assert _common_pieces(text) == _general_pieces(text) != None  # noqa: E711


@pytest.mark.parametrize("check, text", [
    # the signature's scan not at depth 0 before the location: the general split reads no location
    ("plain_balanced", "%r = x.y %a : tensor<4xf32 loc(#l)"),
    # the attribute dictionary closing before its `}` (`>` closes the `{`): the separator is not at top level
    ("plain_encloses", "%r = x.y %a {a >} : f32 loc(#l)"),
])
def test_common_op_needs_its_bracket_checks(monkeypatch, check, text):
    assert op_text.common_op(text, {}) is None
    monkeypatch.setattr(op_text, check, lambda t: True)  # the mutant: the check skipped
    assert _common_pieces(text) != _general_pieces(text)


def test_common_op_leaves_a_signature_with_a_location_to_the_general_split(monkeypatch):
    # `loc(` in a signature without a trailing `loc(#alias)`: the general split takes `loc(fused[...])`
    text = "%r = x.y %a : f32 loc(fused[#a, #b])"
    assert op_text.common_op(text, {}) is None
    real = op_text.common_op

    def mutant(t, memo):  # the mutant: the `loc(` test dropped (as if no location were matched)
        return real(t.replace("loc(", "LOC("), memo)

    monkeypatch.setattr(op_text, "common_op", mutant)
    assert _common_pieces(text) is not None and _common_pieces(text)[5] != _general_pieces(text)[5]


# -- locations -------------------------------------------------------------------------------------------------------

class _Reference(Locations):
    """The resolution without the span memo or the file-definition match: an alias's definition resolved at each
    level it is met at (kept per (alias, level), of which the answer is a function, so cycles stay polynomial)."""

    def __init__(self, defs):
        super().__init__(defs)
        self.plain: dict = {}

    def resolve(self, text, depth=0):
        return self._resolve(text, depth)

    def _alias(self, name, depth):
        if (name, depth) not in self.plain:
            self.plain[(name, depth)] = self.resolve(self.defs.get(name), depth + 1)
        return self.plain[(name, depth)]


_LOC_FORMS = ['loc("f.py":{n}:1)', 'loc(#{a})', 'loc("nm"(#{a}))', 'loc(callsite(#{a} at #{b}))',
              'loc(fused[#{a}, #{b}])', 'loc(unknown)', ' loc( "g.py":{n}:2 x) ', 'loc("h.py":{n}:3']


@st.composite
def _loc_tables(draw):
    n = draw(st.integers(1, 12))
    names = [f"l{i}" for i in range(n)]
    defs = {}
    for i, name in enumerate(names):
        form = draw(st.sampled_from(_LOC_FORMS))
        defs[name] = form.format(n=i, a=draw(st.sampled_from(names)), b=draw(st.sampled_from(names)))
    queries = draw(st.lists(st.sampled_from([f"loc(#{x})" for x in names] + [f"#{x}" for x in names]
                                            + ["loc( #l0)", "loc(#missing)"]), max_size=12))
    return defs, queries


@given(_loc_tables())
@settings(max_examples=400, deadline=None)
def test_location_memos_are_the_plain_resolution(table):
    defs, queries = table
    memo = Locations(defs)
    assert [memo.resolve(q) for q in queries] == [_Reference(defs).resolve(q) for q in queries]


def _deep_chains() -> dict[str, str]:
    """``#c0 -> ... -> #c60 -> file`` and ``#d0 -> ... -> #d39 -> #c30``: ``#c30`` resolves alone (31 levels below
    it) but not 40 levels down (past the 64-level cut-off)."""
    defs = {f"c{i}": f"loc(#c{i + 1})" for i in range(60)}
    defs["c60"] = 'loc("deep.py":7:1)'
    defs.update({f"d{i}": f"loc(#d{i + 1})" for i in range(39)})
    defs["d39"] = "loc(#c30)"
    return defs


def test_alias_memo_keeps_the_cut_off(monkeypatch):
    defs = _deep_chains()
    memo = Locations(defs)
    assert str(memo.resolve("loc(#c30)")) == "deep.py:7:1"
    assert memo.resolve("loc(#d0)") is None is _Reference(defs).resolve("loc(#d0)")

    class Forgetful(dict):  # the mutant: spans forgotten (every memo entry reused at any level)
        def get(self, key, default=None):
            hit = super().get(key, default)
            return None if hit is None else (hit[0], 0)

    mutant = Locations(defs)
    monkeypatch.setattr(mutant, "alias_memo", Forgetful())
    assert str(mutant.resolve("loc(#c30)")) == "deep.py:7:1"
    assert mutant.resolve("loc(#d0)") is not None


def test_a_cyclic_location_costs_few_resolutions(monkeypatch):
    # hostile input: each level tries both sides of the call site, down to the 64-level cut-off (2^64 paths)
    defs = {"a": "loc(callsite(#a at #b))", "b": "loc(fused[#a, #b])"}
    calls = []
    real = Locations._resolve

    def counted(self, text, depth):
        calls.append(depth)
        if len(calls) > 20_000:
            raise RuntimeError("too many resolutions")
        return real(self, text, depth)

    monkeypatch.setattr(Locations, "_resolve", counted)
    assert Locations(defs).resolve("loc(#a)") is None
    assert len(calls) < 1000
    calls.clear()

    class Forgetting(dict):  # the mutant: nothing kept per level
        def __setitem__(self, key, value):
            pass

    mutant = Locations(defs)
    mutant.level_memo = Forgetting()
    with pytest.raises(RuntimeError):
        mutant.resolve("loc(#a)")


# -- plain tensor types ----------------------------------------------------------------------------------------------

_DIMS = st.lists(st.sampled_from(["4", "16", "?", "1"]), max_size=3).map(lambda d: "".join(x + "x" for x in d))
_TENSOR = st.tuples(_DIMS,
                    st.sampled_from(["f32", "i1", "bf16", "!tt.ptr<f16>", "8", "x", "4xf32", "f8E4M3FN",
                                     "!tt.ptr<f32, 1>"]),
                    st.sampled_from([", #blocked", ", #ttg.slice<{dim = 0, parent = #b}>", "", ", #mma, 2", ", #b1"]),
                    ).map(lambda p: f"tensor<{p[0]}{p[1]}{p[2]}>")


def _aliases() -> AliasTable:
    table = AliasTable()
    table.define("blocked", "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                            "order = [1, 0]}>")
    return table


@given(_TENSOR)
@settings(max_examples=400, deadline=None)
def test_plain_tensor_match_is_the_general_tensor_reading(text):
    fast = parse_typeref(text, _aliases())
    syntax._changes.cache_clear()
    general = _general_typeref(text)
    assert fast == general


def _general_typeref(text: str):
    real = types._PLAIN_TENSOR
    types._PLAIN_TENSOR = re.compile(r"(?!)")
    try:
        return parse_typeref(text, _aliases())
    finally:
        types._PLAIN_TENSOR = real


def test_plain_tensor_match_splits_the_dims_greedily(monkeypatch):
    text = "tensor<4x8xf32, #blocked>"
    assert parse_typeref(text, _aliases()).shape == (4, 8) == _general_typeref(text).shape
    # the mutant: dims matched lazily (the element swallows them)
    monkeypatch.setattr(types, "_PLAIN_TENSOR", re.compile(types._PLAIN_TENSOR.pattern.replace(")*)", ")*?)", 1)))
    assert parse_typeref(text, _aliases()) != _general_typeref(text)


# -- the corpus: every module reads the same with the fast paths as without -------------------------------------------

@pytest.fixture(scope="module")
def corpus_texts() -> list[tuple[str, str]]:
    return corpus_reads.corpus_texts()


def _no_one_match(monkeypatch) -> None:
    """The later one-match readings of whole lines (``op_line``, ``test_fast_paths_readfast.py``) off, so that the
    comparisons here go through this round's fast paths (which those readings otherwise preempt)."""
    monkeypatch.setattr(lines, "fast_line", lambda s: None)
    monkeypatch.setattr(lines, "LOC_LINE", re.compile(r"(?!)"))
    monkeypatch.setattr(assemble, "argument_types", lambda text: None)
    monkeypatch.setattr(assemble, "argument_list", lambda text, start: None)


@pytest.fixture(scope="module")
def corpus_modules(corpus_texts) -> list:
    with pytest.MonkeyPatch.context() as mp:
        _no_one_match(mp)
        return _read_all(corpus_texts)


def _general(monkeypatch, *, scans: bool) -> None:
    """The fast paths of this round off (and with ``scans`` False, the one-pass scans of the earlier round too)."""
    _no_one_match(monkeypatch)
    monkeypatch.setattr(assemble, "common_op", lambda text, memo: None)
    monkeypatch.setattr(types, "_PLAIN_TENSOR", re.compile(r"(?!)"))
    monkeypatch.setattr(reader, "Locations", _Reference)
    if not scans:
        monkeypatch.setattr(assemble, "scan_op", lambda text: None)
        monkeypatch.setattr(op_signature, "split_signature_plain", lambda sig: None)


@pytest.mark.parametrize("scans", [True, False])
def test_corpus_reads_the_same_without_the_fast_paths(corpus_texts, corpus_modules, monkeypatch, scans):
    _general(monkeypatch, scans=scans)
    assert _read_all(corpus_texts) == corpus_modules


def test_corpus_comparison_catches_a_common_split_that_drops_the_attributes(corpus_texts, corpus_modules,
                                                                             monkeypatch):
    real = op_text.common_op

    def mutant(text, memo):
        c = real(text, memo)
        return None if c is None else c._replace(attributes="")

    _no_one_match(monkeypatch)
    monkeypatch.setattr(assemble, "common_op", mutant)
    assert _read_all(corpus_texts[:40]) != corpus_modules[:40]


def test_corpus_comparison_catches_a_wrong_file_location(corpus_texts, corpus_modules, monkeypatch):
    # the mutant: the file-definition match reads the column as the line and the line as the column
    monkeypatch.setattr(locations, "_LOC_FILE", re.compile(r'loc\(\s*"((?:[^"\\]|\\.)*)":(?=\d+:(\d+))(\d+):\d+.*\)',
                                                           re.S))
    _no_one_match(monkeypatch)
    assert _read_all(corpus_texts[:20]) != corpus_modules[:20]
