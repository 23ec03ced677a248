"""Algebraic laws of LinearLayout, checked on random layouts (hypothesis)."""

from __future__ import annotations

import ast
import itertools

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import layouts, out_dims

from llverify import LayoutError, LinearLayout, f2
from llverify.evaluate import evaluate, evaluate_flat, inverse_table


def all_inputs(L: LinearLayout):
    names = L.in_dim_names
    for vals in itertools.product(*(range(L.in_dim_size(d)) for d in names)):
        yield dict(zip(names, vals))


def as_function(L: LinearLayout) -> dict:
    return {tuple(sorted(x.items())): tuple(L.apply(x).items()) for x in all_inputs(L)}


@given(layouts(), layouts(), layouts())
def test_product_is_associative(a, b, c):
    try:
        left = (a * b) * c
    except LayoutError:
        left = None
    try:
        right = a * (b * c)
    except LayoutError:
        right = None
    assume(left is not None and right is not None)
    # Triton's dim supremum is not associative in the *order* of dims that only
    # one side shares (([lane] * [register]) * [lane] lists lane first,
    # [lane] * ([register] * [lane]) lists register first); the bases agree.
    aligned = right.transpose_ins(list(left.in_dim_names)).transpose_outs(list(left.out_dim_names))
    assert left == aligned


@given(layouts())
def test_product_with_empty_is_identity(a):
    e = LinearLayout.empty()
    assert a * e == a and e * a == a


def test_product_example_from_triton_docs():
    L = LinearLayout.identity_1d(4, "i", "o") * LinearLayout.zeros_1d(2, "i", "o")
    assert [L.apply(i=x)["o"] for x in range(8)] == [0, 1, 2, 3, 0, 1, 2, 3]


@st.composite
def composable_triple(draw):
    a = draw(layouts(max_bases=3))
    # B's in dims are A's out dims (same or larger sizes); C's in dims are B's out dims
    b_ins = {n: s * (1 << draw(st.integers(0, 1))) for n, s in a.out_dims.items()}
    b_outs = draw(out_dims(names=("x", "y")))
    b = LinearLayout({n: [[draw(st.integers(0, s - 1)) for s in b_outs.values()] for _ in range(s.bit_length() - 1)]
                      for n, s in b_ins.items()}, b_outs, require_surjective=False)
    c_ins = dict(b_outs)
    c_outs = draw(out_dims(names=("p", "q")))
    c = LinearLayout({n: [[draw(st.integers(0, s - 1)) for s in c_outs.values()] for _ in range(s.bit_length() - 1)]
                      for n, s in c_ins.items()}, c_outs, require_surjective=False)
    return a, b, c


@given(composable_triple())
def test_composition_is_associative_and_is_function_composition(abc):
    a, b, c = abc
    ab = a.compose(b)
    assert ab.compose(c) == a.compose(b.compose(c))
    for x in itertools.islice(all_inputs(a), 64):
        assert ab.apply(x) == b.apply(dict(a.apply(x)))


@st.composite
def conversion_pair(draw):
    outs = draw(out_dims(max_log2=3))
    src = draw(layouts(outs=outs, max_bases=3))
    dst = draw(layouts(outs=outs, max_bases=3, surjective=True))
    return src, dst


@given(conversion_pair())
def test_invert_and_compose_postcondition_everywhere(pair):
    a, b = pair
    c = a.invert_and_compose(b)
    assert c.in_dim_names == a.in_dim_names and c.out_dim_names == b.in_dim_names
    for x in all_inputs(a):
        assert dict(b.apply(dict(c.apply(x)))) == dict(a.apply(x))


@given(conversion_pair())
def test_invert_and_compose_is_identity_on_shared_identical_dims(pair):
    a, b = pair
    c = a.invert_and_compose(b)
    def decoupled(L, d):
        mine = [L.get_basis(d, i) for i in range(L.in_dim_size_log2(d))]
        rest = [bb for e in L.in_dim_names if e != d for bb in L.bases[e]]
        flat = lambda v: sum(x << (4 * k) for k, x in enumerate(v))  # noqa: E731
        return not f2.intersection([flat(v) for v in mine], [flat(v) for v in rest])

    for d in a.in_dim_names:
        if b.has_in_dim(d) and a.bases[d] == b.transpose_outs(list(a.out_dim_names)).bases[d] \
                and decoupled(a, d) and decoupled(b, d):
            assert all(c.get_basis(d, i, d) == 1 << i for i in range(a.in_dim_size_log2(d)))


@given(layouts(surjective=True))
def test_pseudoinvert_is_a_right_inverse_on_the_image(L):
    r = L.pseudoinvert()
    for y in all_inputs(r):
        assert dict(L.apply(dict(r.apply(y)))) == y


@given(layouts(surjective=True))
def test_invert_round_trips_when_invertible(L):
    if not L.is_invertible():
        try:
            L.invert()
        except LayoutError as e:
            assert "not invertible" in str(e)
        else:  # pragma: no cover - must not happen
            raise AssertionError("invert of a non-invertible layout must fail")
        return
    inv = L.invert()
    assert L.compose(inv).flatten_ins().flatten_outs().bases == \
        LinearLayout.identity_1d(L.total_in_size, L.in_dim_names[0], L.in_dim_names[0]).bases
    table = inverse_table(L)
    flat = evaluate_flat(L)
    assert np.array_equal(flat[table], np.arange(flat.size))


@given(layouts(), layouts())
def test_divide_left_and_right_undo_the_product(a, b):
    try:
        p = a * b
    except LayoutError:
        assume(False)
        return
    # the quotient has p's dims in p's order; when a and b disagree on a dim order, the product of the
    # divisor and the quotient lists the dims in another order (Triton's supremum), so compare up to it
    def same(x, y):
        return x.transpose_ins(y.in_dim_names).transpose_outs(y.out_dim_names) == y

    q = p.divide_left(a)
    assert q is not None and same(a * q, p)
    assert q.in_dim_names == p.in_dim_names and q.out_dim_names == p.out_dim_names
    r = p.divide_right(b)
    assert r is not None and same(r * b, p)
    assert r.in_dim_names == p.in_dim_names and r.out_dim_names == p.out_dim_names


def test_divide_left_returns_the_quotient_exactly():
    """The quotient has the dividend's dims, size-1 ones included (Triton's divideLeft/divideRight)."""
    a = LinearLayout.identity_1d(4, "register", "dim0")
    b = LinearLayout.identity_1d(8, "lane", "dim0") * LinearLayout.identity_1d(2, "lane", "dim1")
    assert (a * b).divide_left(a) == LinearLayout.identity_1d(1, "register", "dim0") * b
    assert (a * b).divide_right(b) == a * LinearLayout.zeros_1d(1, "lane", "dim1")
    # no quotient: the divisor's bases are not at the bottom
    assert (b * a).divide_left(a) is None


@given(layouts())
def test_reshape_and_transpose_round_trips(L):
    ins = list(L.in_dims.items())
    outs = list(L.out_dims.items())
    assert L.flatten_ins().reshape_ins(ins) == L
    assert L.flatten_outs().reshape_outs(outs) == L
    rev_in = list(reversed(L.in_dim_names))
    rev_out = list(reversed(L.out_dim_names))
    assert L.transpose_ins(rev_in).transpose_ins(list(L.in_dim_names)) == L
    assert L.transpose_outs(rev_out).transpose_outs(list(L.out_dim_names)) == L
    # transposing out dims does not change the function, only the naming order
    t = L.transpose_outs(rev_out)
    for x in itertools.islice(all_inputs(L), 32):
        assert dict(t.apply(x)) == dict(L.apply(x))


@given(layouts())
def test_free_variable_masks_empty_iff_injective(L):
    masks = L.free_variable_masks()
    assert (all(m == 0 for m in masks.values())) == L.is_injective()
    # a free bit's basis is in the span of the earlier bases: flipping it is invisible
    # on some input, i.e. the number of free bits is the nullity
    assert sum(bin(m).count("1") for m in masks.values()) == L.total_in_bits - L.rank


@given(layouts())
def test_evaluate_agrees_with_apply_everywhere(L):
    vals = evaluate(L)
    for flat, x in enumerate(all_inputs_flat_order(L)):
        out = L.apply(x)
        assert all(int(vals[n][flat]) == out[n] for n in L.out_dim_names)


def all_inputs_flat_order(L):
    """Inputs in flattened order: first in dim least significant."""
    names = L.in_dim_names
    sizes = [L.in_dim_size(d) for d in names]
    for flat in range(L.total_in_size):
        x, rem = {}, flat
        for d, s in zip(names, sizes):
            x[d] = rem % s
            rem //= s
        yield x


@given(layouts())
def test_str_round_trips_and_repr_describes_the_layout(L):
    assert LinearLayout.from_string(str(L)) == L
    # repr is constructor syntax: its arguments are literals that rebuild L
    call = ast.parse(repr(L), mode="eval").body
    assert isinstance(call, ast.Call) and call.func.id == "LinearLayout"
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    assert LinearLayout(*args, **kwargs) == L


@given(layouts())
def test_equality_and_hash(L):
    same = LinearLayout(dict(L.bases), dict(L.out_dims), require_surjective=False)
    assert same == L and hash(same) == hash(L)
    assert len({L, same}) == 1


@given(layouts(), st.data())
def test_sublayout_and_quotient(L, data):
    k = data.draw(st.integers(0, L.num_in_dims))
    ins = list(L.in_dim_names[:k])
    sub = L.sublayout(ins, list(L.out_dim_names))
    assert sub.in_dim_names == tuple(ins)
    # quotient by a dim that is an identity block decoupled from the rest
    block = LinearLayout.identity_1d(4, "cta", "cta")  # a dim L does not have
    prod = L * block
    assert prod.is_trivial_over(["cta"])
    assert prod.quotient(["cta"]) == L


def test_quotient_refuses_coupled_dims():
    L = LinearLayout({"lane": [[1, 0], [0, 1]], "block": [[0, 1]]}, {"dim0": 2, "block": 2}, require_surjective=False)
    assert not L.is_trivial_over(["block"])
    assert L.quotient(["block"]) is None


def test_resize_concat_rename_remove_zero():
    L = LinearLayout({"register": [[1], [0], [2]]}, {"dim0": 4})
    assert L.resize_in_dim("register", 2).bases["register"] == ((1,),)
    assert L.resize_in_dim("register", 16).bases["register"][-1] == (0,)
    assert L.remove_zero_bases_along_dim("register").bases["register"] == ((1,), (2,))
    assert L.resize_out_dim("dim0", 2).bases["register"] == ((1,), (0,), (0,))
    lanes = LinearLayout({"lane": [[2]]}, {"dim0": 4}, require_surjective=False)
    both = L.concat_ins(lanes)
    assert both.in_dim_names == ("register", "lane") and both.apply(register=1, lane=1)["dim0"] == 3
    other = LinearLayout({"register": [[1], [1], [0]]}, {"dim1": 2})
    cat = L.concat_outs(other)
    assert dict(cat.apply(register=3)) == {"dim0": 1, "dim1": 0}
    assert L.rename_in_dim("register", "offset").in_dim_names == ("offset",)
    assert L.rename_out_dim("dim0", "x").out_dim_names == ("x",)


def test_num_consecutive_in_out_and_contiguity():
    # registers hold 4 consecutive dim0 elements, then lanes continue at 4
    L = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[4, 0], [0, 1]]}, {"dim0": 8, "dim1": 2})
    assert L.num_consecutive_in_out() == 4
    assert L.contiguous_elems_along_out_dim("dim0") == 4
    # a lane basis that hits bit 1 of dim0 caps it at 2
    M = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[2, 1]]}, {"dim0": 4, "dim1": 2}, require_surjective=False)
    assert M.num_consecutive_in_out() == 2
    assert M.contiguous_elems_along_out_dim("dim1") == 1
