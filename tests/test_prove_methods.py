"""Method agreement: f2, exhaustive and smt decide every property the same way."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify import f2
from llverify import prove as P
from llverify.layout import LinearLayout
from llverify.prove.points import flatten_in
from prove_strategies import flip_bit, layouts

METHODS = ("f2", "exhaustive", "smt")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _agree(fn, *args, **kw):
    vs = {m: fn(*args, method=m, **kw) for m in METHODS}
    statuses = {m: v.status for m, v in vs.items()}
    assert len(set(statuses.values())) == 1, statuses
    for m, v in vs.items():
        assert v.method == m
        assert v.status in ("proved", "refuted"), (m, v.message)
        if v.refuted:
            assert v.counterexample is not None and v.certificate is None
        else:
            assert v.certificate is not None
    return vs["f2"]


@FAST
@given(layouts())
def test_single_layout_properties_agree(L: LinearLayout) -> None:
    for fn in (P.surjective, P.injective, P.bijective, P.distributed, P.memory):
        v = _agree(fn, L)
        # the verdict agrees with the plain rank facts (independent of the prover)
        if fn is P.surjective:
            assert v.proved == L.is_surjective()
        if fn is P.injective:
            assert v.proved == L.is_injective()
        if fn is P.bijective:
            assert v.proved == L.is_invertible()


@FAST
@given(layouts(structured=True), st.data())
def test_equal_agrees_on_copies_and_mutants(L: LinearLayout, data) -> None:
    assert _agree(P.equal, L, L).proved
    if L.total_in_bits and L.total_out_bits:
        j = data.draw(st.integers(0, L.total_in_bits - 1))
        r = data.draw(st.integers(0, L.total_out_bits - 1))
        M = flip_bit(L, j, r)
        v = _agree(P.equal, L, M)
        assert v.refuted
        cx = v.counterexample
        assert L.apply(dict(cx.inputs)) != M.apply(dict(cx.inputs))


@FAST
@given(layouts(structured=True, out_bits=(2, 2)), layouts(out_bits=(2, 2)))
def test_conversion_agrees(A: LinearLayout, B: LinearLayout) -> None:
    v = _agree(P.conversion, A, B)
    # a conversion exists iff A's image lies in B's image
    contained = all(f2.in_span(c, B.flat_columns) for c in A.flat_columns)
    assert v.proved == contained
    if v.proved:
        C = LinearLayout(dict(v.details["C"]), list(B.in_dims.items()), require_surjective=False)
        for x in range(A.total_in_size):
            p = {d: (x >> o) & (A.in_dim_size(d) - 1) for d, o in A.flat_in_offsets().items()}
            assert B.apply(C.apply(p)) == A.apply(p)


@FAST
@given(layouts(), st.data())
def test_explicit_conversion_agrees(A: LinearLayout, data) -> None:
    B = LinearLayout.identity_1d(A.out_dim_size("dim0"), "u", "dim0") * LinearLayout.identity_1d(
        A.out_dim_size("dim1"), "v", "dim1")
    C = A.invert_and_compose(B)
    assert _agree(P.conversion, A, B, C).proved
    if C.total_in_bits and B.total_in_bits:
        j = data.draw(st.integers(0, C.total_in_bits - 1))
        r = data.draw(st.integers(0, C.total_out_bits - 1))
        assert _agree(P.conversion, A, B, flip_bit(C, j, r)).refuted


@FAST
@given(layouts(), st.integers(1, 9), st.integers(1, 9))
def test_in_bounds_agrees(L: LinearLayout, b0: int, b1: int) -> None:
    v = _agree(P.in_bounds, L, [b0, b1])
    brute = all(L.apply(dict(p))["dim0"] < b0 and L.apply(dict(p))["dim1"] < b1 for p in _points(L))
    assert v.proved == brute


@FAST
@given(layouts(), st.data())
def test_duplicates_agree(L: LinearLayout, data) -> None:
    dims = list(L.in_dim_names)
    v = _agree(P.duplicates, L, dims)
    assert v.proved  # Triton's free-variable masks always describe a basis of the image
    assert dict(v.details["masks"]) == dict(L.free_variable_masks())
    expected = {d: data.draw(st.integers(0, L.in_dim_size(d) - 1)) for d in dims}
    _agree(P.duplicates, L, dims, expected=expected)
    mx = data.draw(st.integers(0, 9))
    w = _agree(P.duplicates, L, ["lane", "warp"], max=mx)
    sub = L.sublayout(["lane", "warp"], list(L.out_dim_names))
    assert w.details["copies"] == 2 ** (sub.total_in_bits - f2.rank(sub.flat_columns))
    assert w.proved == (w.details["copies"] <= mx + 1)


def _points(L: LinearLayout):
    offs = L.flat_in_offsets()
    for x in range(L.total_in_size):
        yield {d: (x >> offs[d]) & (L.in_dim_size(d) - 1) for d in L.in_dim_names}


def test_points_helper_roundtrip() -> None:
    L = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(8, "lane", "dim0")
    assert [flatten_in(L, p) for p in _points(L)] == list(range(32))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(layouts(max_in_bits=9, max_out_bits=8))
def test_single_layout_properties_agree_many(L: LinearLayout) -> None:
    for fn in (P.surjective, P.injective, P.bijective, P.distributed, P.memory):
        _agree(fn, L)

