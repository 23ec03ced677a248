"""The gate's per-op plumbing (issue 11, fourth round) computes what its definitions say, on the whole TTGIR corpus:
the walk (pre-order, warps and partitions in force), the thread-count verdict read from once-per-module rows, and
the layout rule's frozen tensor facts, ``Verdict.with_``'s one-step copy; each comparison is shown able to fail (a mutant it must catch)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.prove.verdict import FrozenDict, Verdict, _freeze
from llverify.ttgir import gate, reader, rules_values
from llverify.ttgir.model import Block, Module, Region
from llverify.ttgir.rule_support import OpContext, compared_layouts, equal_layouts, structural

CORPUS = Path(__file__).parent / "data" / "ttgir"


@pytest.fixture(scope="module")
def modules() -> list[Module]:
    """Every module of the corpus, its subdirectories (warp_specialize kernels) included."""
    out = []
    for p in sorted(CORPUS.rglob("*.ttgir")):
        try:
            out.extend(m for m in reader.parse_modules(p.read_text(), str(p)) if isinstance(m, Module))
        except Exception:  # noqa: BLE001 - a refused module has no walk
            continue
    assert len(out) > 100
    return out


# -- the walk ---------------------------------------------------------------------------------------------------

def _defined_walk(region: Region, warps: int, parent, part: bool):
    """The definition: each op, then the ops of its regions in order; a ``ttg.warp_specialize``'s region ``1 + i``
    runs with the ``i``-th of ``partitionNumWarps`` and is a partition, its other regions inherit."""
    for block in region.blocks:
        for op in block.ops:
            yield op, warps, parent, part
            counts = gate._partition_warps(op) if op.name == "ttg.warp_specialize" else []
            for j, r in enumerate(op.regions):
                if op.name == "ttg.warp_specialize" and 1 <= j <= len(counts):
                    yield from _defined_walk(r, counts[j - 1], op, True)
                else:
                    yield from _defined_walk(r, warps, op, part)


def _walks(modules, walk):
    return [[(id(op), w, id(p), part) for op, w, p, part in walk(fn, fn.body, m.num_warps, None)]
            for m in modules for fn in m.functions]


def test_walk_is_the_definition(modules):
    assert any(op.name == "ttg.warp_specialize" for m in modules for _, op, _ in m.walk())
    assert _walks(modules, gate._walk) == _walks(modules, lambda fn, r, w, p: _defined_walk(r, w, p, False))


def test_walk_comparison_catches_partitions_run_with_the_module_warps(modules, monkeypatch):
    defined = _walks(modules, lambda fn, r, w, p: _defined_walk(r, w, p, False))
    monkeypatch.setattr(gate, "_partition_warps", lambda op: [])
    assert _walks(modules, gate._walk) != defined


def test_walk_comparison_catches_ops_out_of_order(modules, monkeypatch):
    defined = _walks(modules, lambda fn, r, w, p: _defined_walk(r, w, p, False))
    real = gate._ops_of
    monkeypatch.setattr(gate, "_ops_of", lambda region: reversed(list(real(region))))
    assert _walks(modules, gate._walk) != defined


def test_walk_follows_deep_nesting_without_recursion(modules):
    op = next(op for m in modules for _, op, _ in m.walk() if not op.regions)
    inner = op
    for _ in range(5000):  # far past Python's recursion limit
        inner = dataclasses.replace(op, regions=(Region((Block((), (inner,)),)),))
    rows = gate._walk(None, Region((Block((), (inner,)),)), 4, None)
    assert len(rows) == 5001 and rows[-1][0] is op and rows[-1][2] is not None


# -- the layout rule's facts --------------------------------------------------------------------------------------

def _layout_cases(modules):
    """(context, layout, shape, subject) of every distributed tensor result type of the corpus, once per module."""
    for m in modules:
        layouts: dict = {}
        value_sets: dict = {}
        for fn in m.functions:
            for op, warps, parent, part in gate._walk(fn, fn.body, m.num_warps, None):
                ctx = OpContext(m, fn, op, warps, parent, set(), part, value_sets, layouts)
                for r in op.results:
                    t = r.type
                    if t.kind != "tensor" or not t.has_layout:
                        continue
                    built = ctx.built(t)
                    if hasattr(built, "layout") and "register" in built.layout.in_dim_names:
                        yield ctx, built.layout, built.shape, t.text


def _defined_counts(ctx, L, subject) -> Verdict:
    """The definition of the thread-count claim: warps always, lanes and CTAs where the module states them."""
    t0 = time.perf_counter()
    stated = {k.rsplit(".", 1)[-1] for k in ctx.module.attributes}
    rows = [("warp", "warps", ctx.warps, True),
            ("lane", "threads per warp", ctx.module.threads_per_warp, "threads-per-warp" in stated),
            ("block", "CTAs", ctx.module.num_ctas, "num-ctas" in stated)]
    inputs, sides, wrong = {}, {}, []
    for dim, what, want, compared in rows:
        if not compared or dim not in L.in_dim_names:
            continue
        have = L.in_dim_size(dim)
        sides[f"{what} in force"], sides[f"{what} of the layout"] = want, have
        if have != want:
            inputs[dim] = min(have, want)
            wrong.append(f"{have} {what}, the module runs {want}")
    return structural("thread_counts", subject, not wrong, inputs, sides, "the layout is for " + "; ".join(wrong), t0)


def _record(v: Verdict):
    """A verdict without its timing, with the exact types of its details (a plain dict or a list inside a frozen
    verdict is a difference)."""
    def typed(x):
        if isinstance(x, dict):
            return (type(x).__name__, tuple((k, typed(x[k])) for k in x))
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, tuple(typed(i) for i in x))
        return x
    d = v.to_json()
    d.pop("seconds")
    return d, typed(v.details)


def test_thread_counts_are_the_definition(modules):
    cases = list(_layout_cases(modules))
    assert len(cases) > 500
    assert any(c[0].module.attributes.get("ttg.threads-per-warp") for c in cases)
    for ctx, L, _, subject in cases:
        assert _record(rules_values._hardware_counts(ctx, L, subject)) == _record(_defined_counts(ctx, L, subject))


def test_thread_count_comparison_catches_unstated_rows(modules):
    # the mutant: the once-per-module rows taken as empty (lanes and CTAs never compared)
    found = False
    for ctx, L, _, subject in _layout_cases(modules):
        ctx.value_sets["#stated counts"] = ()
        found |= _record(rules_values._hardware_counts(ctx, L, subject)) != _record(_defined_counts(ctx, L, subject))
    assert found


def _defined_facts(ctx, L, shape, subject):
    """The layout rule's tensor facts, frozen by the general path (``with_`` of plain details)."""
    v = rules_values.memo_distributed(L)
    free = {d: m for d, m in L.free_variable_masks().items() if m}
    return (v.with_(subject=subject, details={**v.details, "duplicated": free, "shape": list(shape)}),
            _defined_counts(ctx, L, subject))


def test_tensor_facts_are_frozen_as_the_general_path_freezes(modules):
    for ctx, L, shape, subject in _layout_cases(modules):
        fast = rules_values.tensor_facts(ctx, L, shape, subject)
        assert [_record(v) for v in fast] == [_record(v) for v in _defined_facts(ctx, L, shape, subject)]
        assert fast[0].details == _freeze(dict(fast[0].details))


def test_tensor_facts_comparison_catches_plain_details(modules, monkeypatch):
    # the mutant: the details written without freezing (a plain dict stored as it is)
    monkeypatch.setattr(rules_values, "FrozenDict", lambda d: dict(d) if "shape" not in d else FrozenDict(
        {**d, "shape": list(d["shape"])}))
    ctx, L, shape, subject = next(iter(_layout_cases(modules)))
    fast = rules_values.tensor_facts(ctx, L, shape, subject)
    assert _record(fast[0]) != _record(_defined_facts(ctx, L, shape, subject)[0])


def test_tensor_verdicts_give_each_subject_its_facts(modules):
    # decided once per (layout, shape, warps): the first subject's facts as decided, a later subject's a copy
    for ctx, L, shape, subject in list(_layout_cases(modules))[:400]:
        ctx.layouts.pop(("tensor facts", id(L), shape, ctx.warps), None)
        first = rules_values.tensor_verdicts(ctx, L, shape, subject)
        again = rules_values.tensor_verdicts(ctx, L, shape, subject + "'")
        assert [_record(v) for v in first] == [_record(v) for v in _defined_facts(ctx, L, shape, subject)]
        assert [_record(v) for v in again] == [_record(v) for v in _defined_facts(ctx, L, shape, subject + "'")]


# -- the comparison a rule asks before wording its subject ---------------------------------------------------------

def test_compared_layouts_is_when_equal_layouts_decides(modules):
    pairs = 0
    for m in modules[:60]:
        layouts: dict = {}
        for fn in m.functions:
            for op, warps, parent, part in gate._walk(fn, fn.body, m.num_warps, None):
                if not op.results:
                    continue
                ctx = OpContext(m, fn, op, warps, parent, set(), part, {}, layouts)
                res = op.results[0].type
                for t in op.operand_types:
                    pairs += 1
                    assert compared_layouts(t, res) == (equal_layouts(ctx, t, res, "p", "s") is not None)
    assert pairs > 1000


def test_compared_layouts_refuses_what_needs_no_proof(modules):
    t = next(r.type for m in modules for _, op, _ in m.walk() for r in op.results
             if r.type.kind == "tensor" and r.type.encoding_text)
    assert not compared_layouts(t, t)  # the same attribute text
    assert not compared_layouts(t, None)


# -- Verdict.with_'s one-step copy ----------------------------------------------------------------------------------

_VALUES = st.recursive(st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none()),
                       lambda inner: st.one_of(st.lists(inner, max_size=3),
                                               st.dictionaries(st.text(max_size=2), inner, max_size=3)),
                       max_leaves=8)
_CHANGES = st.fixed_dictionaries({}, optional={
    "subject": st.text(max_size=4), "property": st.text(max_size=4), "message": st.text(max_size=4),
    "seconds": st.floats(0, 1), "certificate": _VALUES,
    "details": st.one_of(st.dictionaries(st.text(max_size=2), _VALUES, max_size=3),
                         st.dictionaries(st.text(max_size=2), _VALUES, max_size=3).map(_freeze))})


def _general_with(v: Verdict, changes: dict) -> Verdict:
    """The definition: ``dataclasses.replace`` (a new verdict, validated, its details frozen)."""
    return dataclasses.replace(v, **changes)


@given(st.dictionaries(st.text(max_size=2), _VALUES, max_size=3), _CHANGES)
@settings(max_examples=300, deadline=None)
def test_with_is_replace(details, changes):
    v = Verdict("proved", "p", "s", "f2", 0.5, "m", certificate={"c": [1]}, details=details)
    fast = v.with_(**dict(changes))
    assert _record(fast) == _record(_general_with(v, changes))
    assert type(fast.details) is FrozenDict and fast.details == _freeze(dict(fast.details))
    assert fast.counterexample is None and fast.status == "proved"


def test_with_comparison_catches_a_copy_that_drops_the_changes(monkeypatch):
    v = Verdict("proved", "p", "s", "f2", 0.5, details={"k": [1, 2]})
    real = Verdict.with_

    def mutant(self, **changes):  # the one-step copy taking only the current fields
        if changes.keys() <= {"subject"}:
            new = object.__new__(Verdict)
            object.__setattr__(new, "__dict__", dict(self.__dict__))
            return new
        return real(self, **changes)

    monkeypatch.setattr(Verdict, "with_", mutant)
    assert _record(v.with_(subject="t")) != _record(_general_with(v, {"subject": "t"}))
