"""The check-phase fast paths of the checkfast round give what the definitions give (each comparison can fail).

* ``f2``: the unit-vector shortcuts of ``rank``, ``pivot_columns`` and ``Echelon.of`` against brute force
  (span enumeration) and against the characterisation of the reduced echelon form;
* ``bank_sim``: the per-bank count by shifts and masks, and the phase rows without a gather, against the
  definition computed point by point in plain Python;
* ``Verdict`` / ``Finding``: the hand-written constructors validate and freeze as the dataclass ones did, and
  ``with_`` re-validates exactly when a validated field changes.
"""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import f2
from llverify.codegen import bank_sim
from llverify.codegen.bank_model import AMD_CDNA3, AMD_CDNA4, NVIDIA, consecutive
from llverify.prove.verdict import Counterexample, FrozenDict, Verdict
from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Location


# -- f2 -------------------------------------------------------------------------------------------------------

def _span(vectors: list[int]) -> set[int]:
    span = {0}
    for v in vectors:
        span |= {s ^ v for s in span}
    return span


def _vectors(width: int) -> st.SearchStrategy[list[int]]:
    unit = st.integers(0, width - 1).map(lambda i: 1 << i)
    return st.lists(st.one_of(unit, st.just(0), st.integers(0, (1 << width) - 1)), max_size=9)


_UNITS = st.lists(st.one_of(st.integers(0, 7).map(lambda i: 1 << i), st.just(0)), max_size=10)


@given(st.one_of(_UNITS, _vectors(6)))
@settings(max_examples=400, deadline=None)
def test_rank_is_the_span_dimension(vs):
    """``f2.rank`` (with its unit-vector fast path) is the dimension of the span enumerated element by element."""
    assert 1 << f2.rank(vs) == len(_span(vs))
    assert f2.rank(iter(vs)) == f2.rank(vs)


def test_span_comparison_catches_a_unit_fast_path_counting_repeats(monkeypatch):
    """The mutant: ``f2.rank``'s unit-vector fast path counting a repeated unit vector twice; the property test
    above, run against it, fails."""
    real = f2.rank

    def counting_repeats(vs):
        vs = list(vs)
        return sum(1 for v in vs if v) if all(not v & (v - 1) for v in vs) else real(vs)

    monkeypatch.setattr(f2, "rank", counting_repeats)
    with pytest.raises(AssertionError):
        test_rank_is_the_span_dimension()


@given(st.one_of(_UNITS, _vectors(6)))
@settings(max_examples=400, deadline=None)
def test_pivot_columns_are_the_columns_outside_the_earlier_span(vs):
    assert f2.pivot_columns(vs) == [j for j, v in enumerate(vs) if v not in _span(vs[:j])]


@given(st.one_of(_UNITS, _vectors(6)))
@settings(max_examples=400, deadline=None)
def test_echelon_is_the_fully_reduced_form_with_its_combinations(vs):
    e = f2.Echelon.of(vs)
    pivots_in = [j for j, v in enumerate(vs) if v not in _span(vs[:j])]
    assert list(e.pivot_inputs) == pivots_in
    assert len(e.vectors) == len(pivots_in) == f2.rank(vs)
    allowed = sum(1 << j for j in pivots_in)
    for k, (v, p, c) in enumerate(zip(e.vectors, e.pivots, e.combos)):
        assert v and (v & -v) == 1 << p  # the pivot is the lowest bit
        assert all(not (w >> p) & 1 for i, w in enumerate(e.vectors) if i != k)  # cleared everywhere else
        assert c & ~allowed == 0  # made of pivot inputs only (so the combination is unique)
        assert f2.combine(vs, c) == v
    assert _span(list(e.vectors)) == _span(vs)
    for x in range(64):
        residual, combo = e.reduce(x)
        assert residual ^ f2.combine(vs, combo) == x and (residual == 0) == (x in _span(vs))


@given(st.lists(st.integers(0, 1 << 12), min_size=1, max_size=14), st.data())
@settings(max_examples=400, deadline=None)
def test_combine_is_the_xor_of_the_selected_vectors(vs, data):
    # sparse masks (one step per set bit) and dense ones (one step per position) alike
    mask = data.draw(st.one_of(st.integers(0, len(vs) - 1).map(lambda i: 1 << i), st.integers(0, (1 << len(vs)) - 1)))
    want = 0
    for j, v in enumerate(vs):
        if mask >> j & 1:
            want ^= v
    assert f2.combine(vs, mask) == want


def test_unit_fast_paths_see_duplicates_zeros_and_non_units():
    # mutants: counting repeats, counting zero, taking 3 for a unit vector
    assert f2.rank([4, 4, 0, 1]) == 2 and f2.pivot_columns([4, 4, 0, 1]) == [0, 3]
    assert f2.rank([1, 2, 3]) == 2 and f2.pivot_columns([1, 2, 3]) == [0, 1]
    e = f2.Echelon.of([2, 0, 2, 8])
    assert (e.vectors, e.pivots, e.combos, e.pivot_inputs) == ((2, 8), (1, 3), (1, 8), (0, 3))


@pytest.mark.parametrize("fn", [f2.rank, f2.pivot_columns, f2.Echelon.of])
@pytest.mark.parametrize("vs", [[-1], [1, -4], [0, -8]])
def test_negative_vectors_are_refused_on_the_fast_paths_too(fn, vs):
    with pytest.raises(ValueError):
        fn(vs)


# -- bank_sim -------------------------------------------------------------------------------------------------

def _max_words_reference(rows: np.ndarray, unit: int, bank_bytes: int, banks: int) -> list[int]:
    out = []
    for row in rows.tolist():
        per: dict[int, set[int]] = {}
        for u in row:
            per.setdefault((u * unit // bank_bytes) % banks, set()).add(u)
        out.append(max(len(s) for s in per.values()))
    return out


@given(st.sampled_from([1, 2, 4, 8, 16, 3, 12]), st.sampled_from([4, 8]), st.sampled_from([32, 64, 48]),
       st.integers(-300, 3000), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_max_words_per_bank_is_the_definition(unit, bank_bytes, banks, low, rnd):
    rows = np.array([[rnd.randrange(low, low + 200) for _ in range(16)] for _ in range(5)], dtype=np.int64)
    got = bank_sim._max_words_per_bank(rows, unit, bank_bytes, banks)
    assert got.tolist() == _max_words_reference(rows, unit, bank_bytes, banks)


def _simulate_reference(addr: np.ndarray, vec_bytes: int, model, rule) -> list[int]:
    words_per_lane = max(1, vec_bytes // model.bank_bytes)
    unit = vec_bytes if rule.split_words and vec_bytes < model.bank_bytes else model.bank_bytes
    banks = model.banks_of(rule)
    out = []
    for instr in addr.tolist():
        phases: dict[int, list[int]] = {}
        for lane, a in enumerate(instr):
            phases.setdefault(rule.phase_of(lane), []).extend(a // unit + k for k in range(words_per_lane))
        out.append(sum(_max_words_reference(np.array([units]), unit, model.bank_bytes, banks)[0]
                       for units in phases.values()))
    return out


def _cases():
    out = []
    for m in (NVIDIA, AMD_CDNA3, AMD_CDNA4):
        for v in (1, 2, 4, 8, 16):
            for d in ("load", "store"):
                try:
                    rules = m.phase_rules(v, d)
                except Exception:  # noqa: BLE001 - a width the model does not establish
                    rules = (consecutive(m.lanes_per_phase(v), "generic"),)
                out.extend((m, v, r) for r in rules)
    return out


@pytest.mark.parametrize("model,vec_bytes,rule", _cases())
def test_simulate_addresses_is_the_definition(model, vec_bytes, rule):
    rng = np.random.default_rng(vec_bytes * 7 + model.lanes)
    for span in (8, 64, 4096):
        addr = rng.integers(0, span, size=(6, model.lanes)) * vec_bytes
        got = bank_sim.simulate_addresses(addr, vec_bytes, model, rule)
        assert got.tolist() == _simulate_reference(addr, vec_bytes, model, rule)


def test_non_consecutive_phases_are_gathered():
    # AMD's ds_read_b128 phases are lanes 0:3+20:23, ...: rows built without the gather (the mutant) mix phases
    rule = AMD_CDNA3.phase_rules(16, "load")[0]
    addr = (np.arange(64, dtype=np.int64) * 16 * 8)[None, :]  # every lane on bank 0 of a different row
    ref = _simulate_reference(addr, 16, AMD_CDNA3, rule)
    assert bank_sim.simulate_addresses(addr, 16, AMD_CDNA3, rule).tolist() == ref
    lanes = np.zeros((1, 64), dtype=np.int64)
    lanes[0, :4] = 16 * 8 * np.arange(4)  # lanes 0-3 conflict; lanes 4-7 (another phase) broadcast one word
    assert bank_sim.simulate_addresses(lanes, 16, AMD_CDNA3, rule).tolist() == \
        _simulate_reference(lanes, 16, AMD_CDNA3, rule)


# -- Verdict and Finding --------------------------------------------------------------------------------------

def test_verdict_constructor_validates_and_freezes():
    v = Verdict("proved", "p", "s", "f2", details={"a": [1, {"b": [2]}]})
    assert type(v.details) is FrozenDict and v.details == {"a": (1, {"b": (2,)})}
    assert Verdict("unknown", "p", "s", None).details == {} and type(Verdict("error", "p", "s", None).details) is \
        FrozenDict
    for bad in ({"status": "maybe"}, {"method": "guess"}, {"status": "refuted"},
                {"counterexample": Counterexample({"x": 1})}):
        args = {"status": "proved", "property": "p", "subject": "s", "method": "f2", **bad}
        with pytest.raises(ValueError):
            Verdict(**args)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.status = "refuted"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(v)) == v and dataclasses.replace(v, subject="t").subject == "t"


def test_with_revalidates_exactly_the_validated_fields():
    v = Verdict("proved", "p", "s", "f2", certificate={"c": 1}, details={"a": 1})
    w = v.with_(subject="t", details={**v.details, "shape": [2, 3]})
    assert (w.subject, w.details, type(w.details)) == ("t", {"a": 1, "shape": (2, 3)}, FrozenDict)
    assert v.subject == "s" and w.certificate == {"c": 1}
    with pytest.raises(ValueError):  # the mutant that never re-validates accepts a refutation without a witness
        v.with_(status="refuted")
    with pytest.raises(ValueError):
        v.with_(method="guess")
    with pytest.raises(TypeError):
        v.with_(colour="red")


def test_finding_constructor_is_the_dataclass_one():
    v = Verdict("proved", "p", "s", "f2")
    loc = Location("m.ttgir", 3, 5)
    f = Finding(v, "rule", "tt.op", loc, None, "k", "cuda:90", index=2)
    assert [getattr(f, x.name) for x in dataclasses.fields(Finding)] == \
        [v, "rule", "tt.op", loc, None, "k", "cuda:90", "", 2, "proved"]
    assert Finding(verdict=v, rule="rule", op="tt.op", location=loc, source=None, kernel="k", target="cuda:90",
                   index=2) == f
    assert pickle.loads(pickle.dumps(f)) == f and dataclasses.replace(f, expect="refuted").expect == "refuted"
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.index = 3  # type: ignore[misc]


# -- thread locality's register solver ------------------------------------------------------------------------

@given(st.one_of(_UNITS, _vectors(5)))
@settings(max_examples=300, deadline=None)
def test_register_solver_gives_the_solution_on_the_independent_columns(cols):
    from llverify.prove.locality import _reducer

    solve = _reducer(cols)
    independent = sum(1 << j for j in f2.pivot_columns(cols))
    for target in range(32):
        r = solve(target)
        if target not in _span(cols):
            assert r is None
        else:  # the certificate's register: reaches the target using independent columns only (so it is unique)
            assert r is not None and f2.combine(cols, r) == target and r & ~independent == 0


# -- the int-only layout constructor ----------------------------------------------------------------------------

@given(st.lists(st.lists(st.integers(-1, 9), min_size=1, max_size=3), max_size=5),
       st.lists(st.integers(-1, 9), min_size=2, max_size=4), st.lists(st.sampled_from([1, 2, 3, 4, 8, 6, 16]),
                                                                      min_size=2, max_size=2))
@settings(max_examples=400, deadline=None)
def test_checked_constructor_is_the_constructor_without_conversions(regs, lanes, sizes):
    from llverify.errors import LayoutError
    from llverify.layout import LinearLayout

    bases = {"register": [b[:2] for b in regs], "lane": [lanes[:2]]}
    out = [("dim0", sizes[0]), ("dim1", sizes[1])]
    try:
        want = LinearLayout(bases, out, require_surjective=False)
    except LayoutError as exc:  # the same error, word for word (a malformed basis, a bad size)
        with pytest.raises(LayoutError) as got:
            LinearLayout._checked(bases.items(), out)
        assert str(got.value) == str(exc)
        return
    assert LinearLayout._checked(bases.items(), out) == want
