"""The layout-rule fast paths of issue 11's fourth speed pass (layfast2) agree with the general code they shortcut,
on random layouts and on every tensor layout of the TTGIR corpus; each comparison is shown able to fail (a mutant of
the fast path it must catch)."""

from __future__ import annotations

import itertools

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.layout import LinearLayout
from llverify.prove import certificates
from llverify.ttgir import layouts


def _general_distributed(L: LinearLayout, monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as m:
        m.setattr(certificates, "_unit_positions", lambda cols: None)
        return certificates.distributed(L)


def _same(a, b) -> bool:
    return (a.status, a.message, a.certificate, a.counterexample, dict(a.details)) == \
        (b.status, b.message, b.certificate, b.counterexample, dict(b.details))


#: layouts register x lane -> dim0 x dim1 whose columns are drawn from zero, unit vectors (often repeated) and a few
#: two-bit vectors: proved, refuted by a repeat, by a heavy column and by a missing out bit all occur
_COLUMN = st.sampled_from([0, 1, 2, 4, 8, 16, 32, 3, 12, 1, 2, 4])


@st.composite
def _layouts(draw) -> LinearLayout:
    n_reg, n_lane = draw(st.integers(0, 4)), draw(st.integers(0, 4))
    cols = draw(st.lists(_COLUMN, min_size=n_reg + n_lane, max_size=n_reg + n_lane))
    bits0 = draw(st.integers(0, 3))
    out = [("dim0", 1 << bits0), ("dim1", 1 << (6 - bits0))]
    mask0 = (1 << bits0) - 1

    def basis(c: int) -> list[int]:
        return [c & mask0, c >> bits0]

    return LinearLayout({"register": [basis(c) for c in cols[:n_reg]], "lane": [basis(c) for c in cols[n_reg:]]},
                        dict(out), require_surjective=False)


@given(_layouts())
@settings(max_examples=400, deadline=None)
def test_unit_column_distributed_is_the_general_certificate(L):
    with pytest.MonkeyPatch.context() as mp:
        general = _general_distributed(L, mp)
    assert _same(certificates.distributed(L), general)
    if certificates._unit_positions(L.flat_columns) is not None:  # the one-pass rules accept what the worded accept
        assert certificates._column_rules(L, lambda k: k > 1, "", True) is None


def _corpus_tensor_layouts() -> list[LinearLayout]:
    out, seen = [], set()
    for mods in corpus_reads.read_all(corpus_reads.corpus_texts()):
        if isinstance(mods, str):
            continue
        for m in mods:
            for _, op, _ in m.walk():
                for t in [r.type for r in op.results]:
                    if t.kind != "tensor" or not t.has_layout:
                        continue
                    built = layouts.layout_of(t)
                    if (isinstance(built, layouts.BuiltLayout) and "register" in built.layout.in_dim_names
                            and built.layout not in seen):
                        seen.add(built.layout)
                        out.append(built.layout)
    return out


@pytest.fixture(scope="module")
def corpus_layouts() -> list[LinearLayout]:
    return _corpus_tensor_layouts()


def test_corpus_distributed_certificates_are_the_general_ones(corpus_layouts, monkeypatch):
    assert len(corpus_layouts) > 200
    fast_taken = 0
    for L in corpus_layouts:
        general = _general_distributed(L, monkeypatch)
        assert _same(certificates.distributed(L), general), L
        fast_taken += certificates._unit_positions(L.flat_columns) is not None
    assert fast_taken > len(corpus_layouts) // 2  # the fast path is the common one


def _mutant_without_repeat_check(cols):
    """The mutant: the one-pass column rules forgetting the no-repeat rule (a later repeat overwrites)."""
    if any(c & (c - 1) for c in cols):
        return None
    return {c: j for j, c in enumerate(cols) if c}


def test_distributed_comparison_catches_a_fast_path_without_the_repeat_rule(monkeypatch):
    repeated = LinearLayout({"register": [[1], [2]], "lane": [[1]]}, {"dim0": 4}, require_surjective=False)
    layouts_ = [repeated] + [LinearLayout({"register": [[c] for c in cols]}, {"dim0": 4}, require_surjective=False)
                             for cols in itertools.product([0, 1, 2], repeat=3)]
    general = [_general_distributed(L, monkeypatch) for L in layouts_]
    assert general[0].status == "refuted"
    monkeypatch.setattr(certificates, "_unit_positions", _mutant_without_repeat_check)
    assert not all(_same(certificates.distributed(L), g) for L, g in zip(layouts_, general))


# -- the layout rule's verdicts on a tensor, decided once per (layout, shape, warps) in a module ---------------------

def _layout_findings(modules) -> list:
    """Every layout-rule verdict of ``modules`` as JSON, its timing left out."""
    from llverify.ttgir import gate, rules

    out = []
    for m in modules:
        rules.clear_caches()
        for f in gate.check_module(m):
            if f.rule == "layout":
                doc = f.verdict.to_json()
                doc.pop("seconds")
                out.append((f.op, f.location, doc))
    return out


@pytest.fixture(scope="module")
def corpus_modules() -> list:
    mods = [m for ms in corpus_reads.read_all(corpus_reads.corpus_texts()) if not isinstance(ms, str) for m in ms]
    return mods[::3]  # a third of the corpus (every kind of module, a third of the time)


def test_tensor_verdicts_memo_is_each_type_decided_alone(corpus_modules, monkeypatch):
    from llverify.ttgir import rules_values

    memoised = _layout_findings(corpus_modules)
    assert len(memoised) > 500
    monkeypatch.setattr(rules_values, "tensor_verdicts", rules_values.tensor_facts)
    assert _layout_findings(corpus_modules) == memoised


def test_tensor_verdicts_comparison_catches_a_memo_keyed_by_the_thread_counts(corpus_modules, monkeypatch):
    from llverify.ttgir import rules_values

    def mutant(ctx, L, shape, subject):
        # the mutant: the facts keyed by what the thread counts read (the in-dim sizes), not by the layout
        key = ("mutant facts", tuple(L.in_dims.items()), shape, ctx.warps)
        if key not in ctx.layouts:
            ctx.layouts[key] = rules_values.tensor_facts(ctx, L, shape, subject)
        return tuple(v.with_(subject=subject) for v in ctx.layouts[key])

    general = (monkeypatch.setattr(rules_values, "tensor_verdicts", rules_values.tensor_facts),
               _layout_findings(corpus_modules))[1]
    monkeypatch.setattr(rules_values, "tensor_verdicts", mutant)
    assert _layout_findings(corpus_modules) != general


# -- the certificate checks, against their definitions --------------------------------------------------------------

def _right_by_definition(cols, n_out, R) -> bool:
    from llverify import f2
    return len(R) == n_out and all(f2.combine(cols, R[r]) == 1 << r for r in range(n_out))


def _left_by_definition(cols, P) -> bool:
    from llverify import f2
    return len(P) == len(cols) and all(f2.bit_count(P[j] & c) % 2 == (1 if i == j else 0)
                                       for j in range(len(cols)) for i, c in enumerate(cols))


_MASKS = st.lists(st.sampled_from([0, 1, 2, 4, 8, 3, 5, 6, 7, 12, 15]), min_size=0, max_size=5)


@given(_MASKS, _MASKS, st.integers(0, 4))
@settings(max_examples=600, deadline=None)
def test_certificate_checks_are_their_definitions(cols, inverse, n_out):
    cols = cols or [0]
    inverse = [m & ((1 << len(cols)) - 1) for m in inverse]
    assert certificates.check_right_inverse(cols, n_out, inverse) == _right_by_definition(cols, n_out, inverse)
    assert certificates.check_left_inverse(cols, inverse) == _left_by_definition(cols, inverse)


def test_certificate_checks_are_their_definitions_on_true_inverses():
    # permutations (the unit shortcut) and a swizzle-like matrix: true inverses pass, and one flipped bit fails
    for cols in ([1, 2, 4], [4, 1, 2], [1, 3, 4], [5, 2, 4]):
        R = certificates.right_inverse(cols, 3)
        P = certificates.left_inverse(cols, 3)
        assert certificates.check_right_inverse(cols, 3, R) and _right_by_definition(cols, 3, R)
        assert certificates.check_left_inverse(cols, P) and _left_by_definition(cols, P)
        assert not certificates.check_right_inverse(cols, 3, [R[0] ^ 1, *R[1:]])
        assert not certificates.check_left_inverse(cols, [P[0] ^ 2, *P[1:]])


def test_certificate_check_comparison_catches_a_unit_shortcut_taken_for_every_mask(monkeypatch):
    # the mutant: the single-bit shortcut applied to any mask (its top bit's column only)
    def mutant(cols, n_out, R):
        return len(R) == n_out and all(m and cols[m.bit_length() - 1] == 1 << r for r, m in enumerate(R))
    cases = [([1, 3], 2, [3, 2]), ([1, 2], 2, [1, 2]), ([3, 1], 2, [2, 3])]
    assert [certificates.check_right_inverse(*c) for c in cases] == [_right_by_definition(*c) for c in cases]
    monkeypatch.setattr(certificates, "check_right_inverse", mutant)
    assert [certificates.check_right_inverse(*c) for c in cases] != [_right_by_definition(*c) for c in cases]
