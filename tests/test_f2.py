"""F2 algebra checked against brute force on small spaces."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from llverify import f2

vecs = st.lists(st.integers(0, 63), min_size=0, max_size=7)


def span(vs):
    out = {0}
    for v in vs:
        out |= {x ^ v for x in out}
    return out


def combo_value(cols, mask):
    v = 0
    for j, c in enumerate(cols):
        if (mask >> j) & 1:
            v ^= c
    return v


@given(vecs)
def test_rank_is_log2_of_span_size(vs):
    assert len(span(vs)) == 2 ** f2.rank(vs)


@given(vecs, st.integers(0, 63))
def test_solve_matches_brute_force_and_uses_pivots_only(cols, target):
    x = f2.solve(cols, target)
    reachable = target in span(cols)
    assert (x is not None) == reachable
    if x is not None:
        assert combo_value(cols, x) == target
        pivots = f2.pivot_columns(cols)
        assert all(((x >> j) & 1) == 0 or j in pivots for j in range(len(cols)))


@given(vecs, st.integers(0, 63))
def test_least_squares_residual_is_zero_iff_consistent(cols, target):
    x, residual = f2.least_squares(cols, target)
    assert combo_value(cols, x) == target ^ residual
    assert (residual == 0) == (target in span(cols))


@given(vecs)
def test_nullspace_is_exactly_the_kernel(cols):
    basis = f2.nullspace(cols)
    kernel = {m for m in range(1 << len(cols)) if combo_value(cols, m) == 0}
    assert span(basis) == kernel
    assert f2.rank(basis) == len(basis)


@given(vecs, vecs)
def test_intersection_and_sum(us, vs):
    assert span(f2.intersection(us, vs)) == span(us) & span(vs)
    assert span(f2.subspace_sum(us, vs)) == span(us + vs)


@given(vecs)
def test_complement_completes_the_space(vs):
    comp = f2.complement(vs, 6)
    assert all(bin(c).count("1") == 1 for c in comp)
    assert f2.rank(list(vs) + comp) == 6
    assert f2.rank(vs) + len(comp) == 6


@given(vecs, st.integers(0, 63))
def test_in_span(vs, v):
    assert f2.in_span(v, vs) == (v in span(vs))


def test_rref_example():
    rows, piv = f2.rref([0b011, 0b110, 0b101], 3)
    assert piv == [0, 1]
    assert sorted(rows) == [0b101, 0b110]


@given(st.lists(st.integers(0, 15), min_size=1, max_size=5))
def test_rref_rows_span_and_reduced(rows):
    red, piv = f2.rref(rows, 4)
    assert span(red) == span(rows)
    for k, p in enumerate(piv):
        assert (red[k] & -red[k]) == 1 << p  # leading one at the pivot
        assert all(((r >> p) & 1) == 0 for i, r in enumerate(red) if i != k)


def test_transpose_round_trip():
    cols = [0b101, 0b011, 0b000, 0b110]
    rows = f2.columns_to_rows(cols, 3)
    assert rows == [0b0011, 0b1010, 0b1001]
    assert f2.rows_to_columns(rows, 4) == cols


def test_pivot_columns_greedy_in_column_order():
    # column 2 = column 0 ^ column 1 is free; column 3 is new
    assert f2.pivot_columns([1, 2, 3, 4]) == [0, 1, 3]
    assert list(itertools.islice(f2.nullspace([1, 2, 3, 4]), 1)) == [0b0111]


@given(vecs, st.integers(0, 127))
def test_combine_is_the_xor_of_the_selected_vectors(cols, mask):
    mask &= (1 << len(cols)) - 1
    assert f2.combine(cols, mask) == combo_value(cols, mask)
