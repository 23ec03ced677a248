"""The third round of gate fast paths (issue 11) agree with the general code they shortcut, on random texts and on
the whole TTGIR corpus; each comparison is shown able to fail (a mutant of the fast path it must catch)."""

from __future__ import annotations

import re

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.hw.registry import build_spec
from llverify.prove.verdict import FrozenDict, Verdict, _freeze, _refreeze
from llverify.ttgir import assemble, layouts, locations, op_signature, op_text, rules, signatures, syntax
from llverify.ttgir.types import AliasTable, parse_typeref

_read_all = corpus_reads.read_all

#: op-like texts: brackets, arrows, separators, locations (no quotes: the fast paths read only those)
_OP_TEXT = st.lists(st.sampled_from(["(", ")", "<", ">", "{", "}", "[", "]", "->", "-", " : ", ":", " ", ",", "a",
                                     "%x", "loc(", "#l", "xloc(", "<{", "}>"]), max_size=16).map("".join)
_SIG_TEXT = st.lists(st.sampled_from(["(", ")", "<", ">", "{", "}", "[", "]", "->", "-", " ", ",", ", ", "a", "i32",
                                      "(a)", "<b, c>", "tensor<4xf32, #b>"]), max_size=14).map("".join)


def _general_split(text: str) -> tuple[str, str | None, int]:
    syntax._changes.cache_clear()
    body, loc = locations.split_loc(text)
    return body, loc, syntax.rfind_top(body, " : ")


def _fast_split(text: str) -> tuple[str, str | None, int] | None:
    scan = op_text.scan_op(text)
    if scan is None:
        return None
    body, loc, colons = scan
    inside = [c for c in colons if c + 3 <= len(body)]
    return body, loc, inside[-1] if inside else -1


@given(_OP_TEXT)
@settings(max_examples=600, deadline=None)
def test_one_pass_op_scan_is_the_general_split(text):
    fast = _fast_split(text)
    if fast is not None:
        assert fast == _general_split(text)


def test_one_pass_op_scan_reads_the_arrow_as_no_bracket(monkeypatch):
    # the mutant: the `>` of `->` closing a bracket; then the separator and the location after `<<a->b>` (one
    # bracket still open) would be top level
    text = "%r = x.y <<a->b> : c loc(#l)"
    assert _fast_split(text) == _general_split(text) == (text, None, -1)
    monkeypatch.setattr(op_text, "_OP_TOKENS", re.compile(r" : |loc\(|[(\[{<]|[)\]}>]"))
    assert _fast_split(text) != _general_split(text)


def _general_signature(sig: str) -> tuple[list[str], list[str] | None]:
    syntax._changes.cache_clear()
    lhs, rhs = syntax.split_arrow(sig)
    left = [t for part in syntax.split_top(syntax.strip_parens(lhs), ",") for t in syntax.split_top(part, " * ")
            if t.strip()]
    right = None if rhs is None else [t for t in syntax.split_top(syntax.strip_parens(rhs), ",") if t.strip()]
    return left, right


@given(_SIG_TEXT)
@settings(max_examples=600, deadline=None)
def test_one_pass_signature_split_is_the_general_split(sig):
    fast = signatures.split_signature_plain(sig)
    if fast is not None:
        assert fast == _general_signature(sig)


def test_one_pass_signature_split_needs_the_parenthesis_level(monkeypatch):
    # the mutant: the arrow not recognised (its `>` a close): `(A, B) -> C` would read as one side
    sig = "(tensor<4xf32, #b>, i32) -> tensor<4xf32, #b>"
    assert signatures.split_signature_plain(sig) == _general_signature(sig) == (
        ["tensor<4xf32, #b>", " i32"], ["tensor<4xf32, #b>"])
    monkeypatch.setattr(signatures, "_SIG_TOKENS", re.compile(r",|[(\[{<]|[)\]}>]"))
    assert signatures.split_signature_plain(sig) != _general_signature(sig)


# -- the corpus: every module reads the same with the fast paths as without ---------------------------------------

@pytest.fixture(scope="module")
def corpus_texts() -> list[tuple[str, str]]:
    return corpus_reads.corpus_texts()


@pytest.fixture(scope="module")
def corpus_modules(corpus_texts) -> list:
    return _read_all(corpus_texts)


def test_corpus_reads_the_same_without_the_one_pass_scans(corpus_texts, corpus_modules, monkeypatch):
    monkeypatch.setattr(assemble, "scan_op", lambda text: None)
    monkeypatch.setattr(op_signature, "split_signature_plain", lambda sig: None)
    assert _read_all(corpus_texts) == corpus_modules


def test_corpus_comparison_catches_a_scan_that_loses_the_location(corpus_texts, corpus_modules, monkeypatch):
    real = op_text.scan_op

    def mutant(text):
        scan = real(text)
        return None if scan is None else (scan[0], None, scan[2])

    monkeypatch.setattr(assemble, "scan_op", mutant)
    assert _read_all(corpus_texts[:20]) != corpus_modules[:20]


def _corpus_ops(modules: list):
    for mods in modules:
        if isinstance(mods, str):
            continue
        for m in mods:
            for _, op, _ in m.walk():
                yield op


def test_rule_dispatch_by_name_is_every_predicate(corpus_modules):
    rules._candidates.clear()
    ops = list(_corpus_ops(corpus_modules))
    assert len({op.name for op in ops}) > 50
    for op in ops:
        assert rules.rules_for(op) == [r for r in rules.RULES if r.applies(op)], op.name


def test_rule_dispatch_comparison_catches_a_predicate_wrongly_by_name(corpus_modules, monkeypatch):
    # the mutant: use_type's predicate (printed operand types) taken as a function of the name
    monkeypatch.setattr(rules, "NAME_ONLY", rules.NAME_ONLY | {"use_type"})
    rules._candidates.clear()
    try:
        assert any(rules.rules_for(op) != [r for r in rules.RULES if r.applies(op)]
                   for op in _corpus_ops(corpus_modules))
    finally:
        rules._candidates.clear()


def test_clear_caches_forgets_the_rule_dispatch(corpus_modules):
    op = next(_corpus_ops(corpus_modules))
    rules.rules_for(op)
    assert rules._candidates
    rules.clear_caches()
    assert not rules._candidates


def _slice_types(modules: list):
    seen = set()
    for op in _corpus_ops(modules):
        for t in [r.type for r in op.results]:
            enc = t.encoding
            if enc and enc.get("kind") == "slice" and t.kind == "tensor" and (t.encoding_text, t.shape) not in seen:
                seen.add((t.encoding_text, t.shape))
                yield t


def test_slices_from_the_parents_memo_are_built_in_full(corpus_modules):
    types = list(_slice_types(corpus_modules))
    assert len(types) > 20
    for t in types:
        layouts._build.cache_clear()
        memo = layouts._build(layouts._freeze(dict(t.encoding)), tuple(t.shape))
        try:
            full = build_spec(dict(t.encoding), list(t.shape))
        except Exception as exc:  # noqa: BLE001 - the memo path words the same error
            full = str(exc) or type(exc).__name__
        assert memo == full, t.text


def test_slice_comparison_catches_a_parent_on_the_wrong_shape(corpus_modules, monkeypatch):
    # the mutant: the parent built with the 1 appended, not inserted at dim
    monkeypatch.setattr(layouts, "slice_parent_shape", lambda dim, shape: list(shape) + [1])
    differ = 0
    for t in _slice_types(corpus_modules):
        layouts._build.cache_clear()
        memo = layouts._build(layouts._freeze(dict(t.encoding)), tuple(t.shape))
        differ += memo != build_spec(dict(t.encoding), list(t.shape))
    layouts._build.cache_clear()
    assert differ


# -- verdicts and encodings -----------------------------------------------------------------------------------

_VALUES = st.recursive(st.one_of(st.integers(), st.text(max_size=3), st.none()),
                       lambda inner: st.one_of(st.lists(inner, max_size=3),
                                               st.dictionaries(st.text(max_size=2), inner, max_size=3)),
                       max_leaves=8)


@given(st.dictionaries(st.text(max_size=3), _VALUES, max_size=4),
       st.dictionaries(st.text(max_size=3), _VALUES, max_size=4), st.data())
@settings(max_examples=300, deadline=None)
def test_refreeze_is_freeze(old, new, data):
    frozen = _freeze(dict(old))
    kept = data.draw(st.lists(st.sampled_from(sorted(frozen)), unique=True)) if frozen else []
    details = {**{k: frozen[k] for k in kept}, **new}
    assert _refreeze(details, frozen) == _freeze(dict(details))
    v = Verdict("proved", "p", "s", "f2", details=old)
    assert v.with_(details=details).details == _freeze(dict(details))


def test_refreeze_comparison_catches_a_value_kept_by_key():
    # the mutant: keeping every value whose key the frozen details have (not only the frozen value itself)
    frozen = _freeze({"shape": [1, 2]})
    details = {"shape": [4, 8]}
    assert _refreeze(details, frozen)["shape"] == (4, 8)
    mutant = FrozenDict({k: v if k in frozen else _freeze(v) for k, v in details.items()})
    assert mutant != _freeze(details)


def test_encoding_memo_is_forgotten_by_a_definition():
    table = AliasTable()
    before = parse_typeref("tensor<4xf32, #b>", table)
    assert before.encoding is None and before.encoding_error
    stale = dict(table.encodings)
    table.define("b", "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    after = parse_typeref("tensor<4xf32, #b>", table)
    assert after.encoding is not None and after.encoding["kind"] == "blocked"
    table.encodings.update(stale)  # the mutant: the memo kept across the definition answers the stale error
    assert parse_typeref("tensor<4xf32, #b>", table).encoding is None


def _corpus_conversions(modules: list):
    from llverify.ttgir.layouts import BuiltLayout, layout_of

    seen = set()
    for op in _corpus_ops(modules):
        if op.name != "ttg.convert_layout" or not op.operand_types or op.operand_types[0] is None:
            continue
        a, b = layout_of(op.operand_types[0]), layout_of(op.results[0].type)
        if isinstance(a, BuiltLayout) and isinstance(b, BuiltLayout) and (a.layout, b.layout) not in seen:
            seen.add((a.layout, b.layout))
            yield a.layout, b.layout


def test_conversion_lowering_from_the_rules_plan_is_the_recomputed_one(corpus_modules):
    from llverify.codegen.conversion import convert
    from llverify.codegen.shuffle_triton import triton_lowering
    from llverify.errors import LlverifyError

    pairs = list(_corpus_conversions(corpus_modules))
    assert len(pairs) > 20
    kinds = set()
    for A, B in pairs:
        try:
            plan = convert(A, B)
        except LlverifyError:
            continue
        kinds.add(triton_lowering(A, B))
        assert triton_lowering(A, B, plan) == triton_lowering(A, B)
    assert {"noop", "warp_shuffle", "shared_memory"} <= kinds


def test_conversion_lowering_comparison_catches_another_pairs_plan(corpus_modules):
    # the mutant: the plan of another conversion (the source to itself, a no-op) handed over
    from llverify.codegen.conversion import convert
    from llverify.codegen.shuffle_triton import triton_lowering
    from llverify.errors import LlverifyError

    differ = 0
    for A, B in _corpus_conversions(corpus_modules):
        try:
            differ += triton_lowering(A, B, convert(A, A)) != triton_lowering(A, B)
        except LlverifyError:
            continue
    assert differ
