"""The fast paths of the gate (issue 11's benchmark work) agree with the general algorithms they shortcut.

Each fast path is compared with the general code on random inputs, and each comparison is shown able to fail.
"""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify import f2
from llverify.layout import LinearLayout
from llverify.prove.locality import thread_local
from llverify.ttgir import syntax
from llverify.ttgir.rule_support import clear_caches, memo_shape_op

from strategies import layouts

_BRACKETY = st.text(alphabet="()[]{}<>-a ,:", max_size=40)


@given(_BRACKETY)
@settings(max_examples=300, deadline=None)
def test_plain_scan_is_the_general_scan_without_quotes(text):
    assert syntax._plain_changes(text) == syntax._quoted_changes(text)
    assert syntax.max_depth_final(text) == syntax._scanned_final_depth(text)


def test_plain_scan_differs_where_quotes_matter():
    # the mutant: the plain scan applied to quoted text would count the brackets inside the string
    text = 'a"<"b'
    assert syntax._plain_changes(text) != syntax._quoted_changes(text)
    assert syntax._changes(text) == syntax._quoted_changes(text)


def _reference_echelon_reduce(vectors, v):
    """The textbook elimination: pivots in order, each checked against the current v."""
    e = f2.Echelon.of(vectors)
    combo = 0
    for k, p in enumerate(e.pivots):
        if (v >> p) & 1:
            v ^= e.vectors[k]
            combo ^= e.combos[k]
    return v, combo


@given(st.lists(st.integers(0, 255), max_size=8), st.integers(0, 255))
@settings(max_examples=300, deadline=None)
def test_echelon_reduce_is_the_textbook_elimination(vectors, v):
    e = f2.Echelon.of(vectors)
    residual, combo = e.reduce(v)
    assert (residual, combo) == _reference_echelon_reduce(vectors, v)
    assert f2.combine(vectors, combo) ^ residual == v
    assert f2.rank(vectors) == e.rank and f2.pivot_columns(vectors) == list(e.pivot_inputs)


def _holds_by_enumeration(A: LinearLayout, B: LinearLayout) -> bool:
    """Thread locality by brute force: every element of B is held by the same thread in A."""
    regs = A.in_dim_size("register") if A.has_in_dim("register") else 1
    for x in range(B.total_in_size):
        point = {}
        rest = x
        for d, size in B.in_dims.items():
            point[d] = rest % size
            rest //= size
        want = dict(B.apply(**point))
        thread = {d: point.get(d, 0) for d in A.in_dim_names if d != "register"}
        held = [dict(A.apply(**({**thread, "register": r} if A.has_in_dim("register") else thread)))
                for r in range(regs)]
        if want not in held:
            return False
    return True


_OUTS = {"dim0": 8, "dim1": 4}


@given(layouts(outs=_OUTS, ins=["register", "lane"], max_bases=3, surjective=True),
       layouts(outs=_OUTS, ins=["register", "lane"], max_bases=3, surjective=True))
@settings(max_examples=150, deadline=None)
def test_thread_local_agrees_with_enumeration(A, B):
    if A.in_dim_size("lane") != B.in_dim_size("lane"):
        return
    v = thread_local(A, B)
    assert v.status in ("proved", "refuted")
    assert (v.status == "proved") == _holds_by_enumeration(A, B)
    if v.proved:  # the certificate replays: A(register r, thread of e) == B(e) for every basis vector e
        for entry in v.certificate["register_for_each_basis"]:
            (d, value), = entry["input"].items()
            x = {n: (value if n == d else 0) for n in B.in_dim_names}
            thread = {n: x.get(n, 0) for n in A.in_dim_names if n != "register"}
            assert dict(A.apply(**thread, register=entry["register"])) == dict(B.apply(**x))


def test_thread_local_refutes_a_lane_swap():
    A = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4]]}, ["dim0"])
    B = LinearLayout.from_bases({"register": [[1]], "lane": [[4], [2]]}, ["dim0"])
    assert thread_local(A, A).proved and thread_local(A, B).refuted
    assert not _holds_by_enumeration(A, B)


def test_layout_views_are_cached_but_pickle_and_compare_by_value():
    L = LinearLayout.from_bases({"register": [[1, 0]], "lane": [[0, 1], [2, 0]]}, ["dim0", "dim1"])
    assert L.in_dims is L.in_dims and L.bases is L.bases
    M = pickle.loads(pickle.dumps(L))
    assert M == L and hash(M) == hash(L) and dict(M.bases) == dict(L.bases) and str(M) == str(L)
    masks = L.free_variable_masks()
    masks["register"] = 99  # callers get their own copy
    assert L.free_variable_masks() != masks


def test_clear_caches_forgets_shape_op_results():
    A = LinearLayout.from_bases({"register": [[1, 0]], "lane": [[0, 1], [2, 0]]}, ["dim0", "dim1"])
    memo_shape_op("trans", A, (("perm", (1, 0)),))
    assert memo_shape_op.cache_info().currsize >= 1
    clear_caches()
    assert memo_shape_op.cache_info().currsize == 0


def _reference_is_trivial_over(L: LinearLayout, dims: list[str]) -> bool:
    """Triton's definition through sublayouts: an identity square block on dims, decoupled from the rest."""
    if any(not L.has_in_dim(d) and not L.has_out_dim(d) for d in dims):
        return False

    def zero(ins, outs):
        sub = L.sublayout([d for d in ins if L.has_in_dim(d)], [d for d in outs if L.has_out_dim(d)])
        return not any(sub.flat_columns)

    if dims:
        if any(not L.has_in_dim(d) or not L.has_out_dim(d) for d in dims):
            return False
        sub = L.sublayout(dims, dims)
        if any(sub.in_dim_size(d) != sub.out_dim_size(d) for d in dims):
            return False
        if any(c != 1 << i for i, c in enumerate(sub.flatten_ins().flatten_outs().flat_columns)):
            return False
    return (zero([d for d in L.in_dim_names if d not in dims], dims)
            and zero(dims, [d for d in L.out_dim_names if d not in dims]))


_SHARED = {"lane": 4, "dim0": 4}


@given(layouts(outs=_SHARED, ins=["register", "lane"], max_bases=2),
       st.lists(st.sampled_from(["register", "lane", "dim0", "warp"]), max_size=2, unique=True))
@settings(max_examples=300, deadline=None)
def test_is_trivial_over_on_flat_columns_is_the_sublayout_definition(L, dims):
    assert L.is_trivial_over(dims) == _reference_is_trivial_over(L, dims)


def test_is_trivial_over_sees_coupling():
    L = LinearLayout.from_bases({"lane": [[1, 0], [2, 0]], "register": [[0, 1]]}, ["lane", "dim0"])
    assert L.is_trivial_over(["lane"])
    coupled = LinearLayout.from_bases({"lane": [[1, 0], [2, 1]], "register": [[0, 1]]}, ["lane", "dim0"])
    assert not coupled.is_trivial_over(["lane"]) and not _reference_is_trivial_over(coupled, ["lane"])
