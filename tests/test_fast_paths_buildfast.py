"""The fast paths of layout construction and certificates (issue 11, first-time work) agree with the general code
they shortcut, over the whole TTGIR corpus and on random layouts; each comparison is shown able to fail (a mutant
of the fast path that it must catch)."""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from functools import lru_cache

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.hw import cga, kinds
from llverify.hw import slice as hw_slice
from llverify.hw.cga import Tile, combine_with_shape
from llverify.hw.registry import build_spec
from llverify.layout import LinearLayout
from llverify.prove import certificates
from llverify.ttgir import layouts
from llverify.ttgir.types import AliasTable, parse_typeref


@pytest.fixture(scope="module")
def corpus_types() -> list:
    """Per corpus module, every distinct type with a layout encoding (results and operands of every op)."""
    out = []
    for mods in corpus_reads.read_all(corpus_reads.corpus_texts()):
        if isinstance(mods, str):
            continue
        for m in mods:
            seen, types = set(), []
            for _, op, _ in m.walk():
                for t in [r.type for r in op.results] + [o.type for o in op.operands if getattr(o, "type", None)]:
                    if t is not None and t.encoding is not None and id(t) not in seen:
                        seen.add(id(t))
                        types.append(t)
            out.append(types)
    return out


def _general_build(frozen_spec, shape):
    """``_build`` without its shortcuts: the spec thawed afresh for each build, slices built in full."""
    try:
        spec = layouts._thaw(frozen_spec)
        if spec.get("kind") == "padded_shared":
            return layouts._padded(spec, shape)
        return build_spec(spec, list(shape))
    except Exception as exc:  # noqa: BLE001 - _build's caught errors, worded the same
        return str(exc) or type(exc).__name__


def _built_all(corpus_types, general: bool, monkeypatch=None) -> list:
    """Every corpus type's ``layout_of``: as the gate builds them (one memo per module), or by the general path."""
    results = []
    with pytest.MonkeyPatch.context() as mp:
        if general:
            mp.setattr(layouts, "_build", lru_cache(maxsize=None)(_general_build))
            mp.setattr(layouts, "_freeze_sharing", lambda spec, memo: layouts._freeze(spec))
            mp.setattr(hw_slice, "_slice_flat", hw_slice._slice_general)
        for types in corpus_types:
            layouts._build.cache_clear()
            frozen: dict | None = None if general else {}  # general: each type's spec frozen afresh
            results.append([layouts.layout_of(t, frozen) for t in types])
    layouts._build.cache_clear()
    return results


def test_corpus_layouts_are_the_general_builds(corpus_types):
    fast = _built_all(corpus_types, general=False)
    assert sum(map(len, fast)) > 1000
    assert fast == _built_all(corpus_types, general=True)


def test_corpus_comparison_catches_a_nested_freeze_keyed_by_size(corpus_types, monkeypatch):
    # the mutant: a nested spec's frozen form memoised by its number of keys, not its identity (a slice of one
    # blocked parent then reads another's)
    def by_size(spec, memo):
        items = []
        for k, v in spec.items():
            if isinstance(v, dict):
                hit = memo.setdefault(("nested", len(v)), layouts._freeze(v))
                items.append((k, hit))
            else:
                items.append((k, layouts._freeze(v)))
        return tuple(sorted(items))
    monkeypatch.setattr(layouts, "_freeze_sharing", by_size)
    assert _built_all(corpus_types, general=False) != _built_all(corpus_types, general=True)


def _width_completed_types() -> list:
    """Two buffers of one ``nvmma_shared`` encoding without ``elementBitWidth`` (Triton 3.9 prints it; older
    Tritons did not), f16 and f32: the spec is completed with each type's width, so the two layouts differ."""
    table = AliasTable()
    table.define("smem", "#ttg.shared_memory")
    table.define("shared", "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false}>")
    return [parse_typeref(f"!ttg.memdesc<64x64x{e}, #shared, #smem, mutable>", table) for e in ("f16", "f32", "f16")]


def test_frozen_specs_keep_the_element_width_where_it_completes_the_spec():
    types = _width_completed_types()
    assert types[0].encoding is types[1].encoding
    fast = _built_all([types], general=False)
    assert fast == _built_all([types], general=True)
    assert fast[0][0].layout != fast[0][1].layout and fast[0][0] == fast[0][2]


def test_width_comparison_catches_a_frozen_spec_shared_across_element_widths(monkeypatch):
    # the mutant: every encoding frozen once whatever the element width (the f32 buffer gets the f16 swizzle)
    monkeypatch.setattr(layouts, "_frozen_key", lambda encoding, spec, bits: (id(encoding), None))
    with pytest.raises(AssertionError):
        test_frozen_specs_keep_the_element_width_where_it_completes_the_spec()


def test_corpus_comparison_catches_a_thaw_shared_across_kinds(corpus_types, monkeypatch):
    # the mutant: the thawed spec memoised by the spec's kind (every blocked encoding built as the first one)
    memo: dict = {}
    monkeypatch.setattr(layouts._BuildMemo, "thawed", lambda self, fs: memo.setdefault(dict(fs).get("kind"),
                                                                                        layouts._thaw(fs)))
    assert _built_all(corpus_types, general=False) != _built_all(corpus_types, general=True)


# -- a slice read off its parent's flat columns ---------------------------------------------------------------

@st.composite
def _parents(draw):
    """A distributed-looking parent on a shape with a 1 at ``dim``: random columns over the other dims' bits."""
    rank = draw(st.integers(1, 3))
    shape = [1 << draw(st.integers(0, 3)) for _ in range(rank)]
    dim = draw(st.integers(0, rank))
    pshape = shape[:dim] + [1] + shape[dim:]
    out_bits = sum(s.bit_length() - 1 for s in pshape)
    ins = [(d, draw(st.integers(0, 3))) for d in ("register", "lane", "warp")]
    flat = tuple(draw(st.integers(0, (1 << out_bits) - 1)) if draw(st.booleans()) else 0
                 for _, n in ins for _ in range(n))
    par = LinearLayout._raw(tuple(ins), tuple((f"dim{i}", s) for i, s in enumerate(pshape)), flat)
    return dim, par, pshape


@given(_parents())
@settings(max_examples=400, deadline=None)
def test_slice_from_flat_columns_is_the_definition(case):
    dim, par, pshape = case
    assert hw_slice._slice_flat(dim, par, pshape) == hw_slice._slice_general(dim, par, pshape)


def _slice_keeping_zero_registers(dim, par, pshape):
    """The mutant of :func:`~llverify.hw.slice._slice_flat`: the zero register columns kept."""
    shape = list(pshape[:dim]) + list(pshape[dim + 1:])
    return LinearLayout._raw(par._in, tuple((f"dim{i}", s) for i, s in enumerate(shape)), par.flat_columns)


def test_slice_comparison_catches_zero_registers_kept(monkeypatch):
    par = LinearLayout._raw((("register", 2), ("lane", 1)), (("dim0", 4), ("dim1", 1)), (1, 0, 2))
    assert hw_slice._slice_flat(1, par, [4, 1]) == hw_slice._slice_general(1, par, [4, 1])
    monkeypatch.setattr(hw_slice, "_slice_flat", _slice_keeping_zero_registers)
    with pytest.raises(AssertionError):
        test_slice_from_flat_columns_is_the_definition()


# -- a one-CTA blocked layout written down as flat columns --------------------------------------------------------

_blocked_mod = importlib.import_module("llverify.hw.blocked")


def _blocked_general(spt, tpw, wpc, order, shape):
    """The blocked layout by its construction: the tile of identities, then ``combineCtaCgaWithShape``."""
    t = Tile(len(spt))
    t.identity_nd("register", spt, order).identity_nd("lane", tpw, order).identity_nd("warp", wpc, order)
    return combine_with_shape(t, [], shape, "blocked", broadcast_registers=False)


@st.composite
def _blocked_params(draw):
    rank = draw(st.integers(1, 3))
    pow2s = st.lists(st.integers(0, 3).map(lambda k: 1 << k), min_size=rank, max_size=rank)
    shape = draw(st.lists(st.integers(0, 7).map(lambda k: 1 << k), min_size=rank, max_size=rank))
    return draw(pow2s), draw(pow2s), draw(pow2s), draw(st.permutations(range(rank))), shape


@given(_blocked_params())
@settings(max_examples=600, deadline=None)
def test_one_cta_blocked_is_the_general_construction(params):
    assert _blocked_mod._blocked_one_cta(*params) == _blocked_general(*params)


def _lanes_deleted(spt, tpw, wpc, order, shape):
    """The mutant of ``_blocked_one_cta``: lane and warp bases beyond the shape deleted, as registers are (the
    construction makes them zero: broadcast)."""
    L = _blocked_general(spt, tpw, wpc, order, shape)
    keep = {d: [b for b in bs if any(b) or d == "register"] for d, bs in L.bases.items()}
    return LinearLayout(keep, dict(L.out_dims), require_surjective=False)


def test_one_cta_blocked_comparison_catches_lanes_deleted(monkeypatch):
    monkeypatch.setattr(_blocked_mod, "_blocked_one_cta", _lanes_deleted)
    with pytest.raises(AssertionError):
        test_one_cta_blocked_is_the_general_construction()


# -- one encoding's shape-free checks done once (hw.kinds.build_on_shapes) -----------------------------------------

_ENTRY = st.sampled_from([1, 2, 4, 8, 0, 3, True, "4"])
_SHAPES = st.lists(st.sampled_from([1, 2, 4, 16, 64, 128, 3]), min_size=1, max_size=3)
_LIST = st.one_of(st.lists(_ENTRY, min_size=1, max_size=3), st.just([]), st.just("x"), st.just([[1]]))


@st.composite
def _blocked_specs(draw):
    """Blocked specs, mostly valid: random entries, ranks that may disagree, optional CGA and count fields, an
    unknown or a missing parameter now and then."""
    rank = draw(st.integers(1, 3))
    good = st.lists(st.sampled_from([1, 2, 4]), min_size=rank, max_size=rank)

    def entry(valid):  # three in four valid, else from _LIST
        return draw(valid if draw(st.integers(0, 3)) else _LIST)
    spec = {"kind": "blocked", "size_per_thread": entry(good), "threads_per_warp": entry(good),
            "warps_per_cta": entry(good), "order": entry(st.permutations(range(rank)).map(list))}
    extra = draw(st.sampled_from(["", "cga", "legacy", "warp_size", "num_warps", "unknown", "missing"])) if draw(
        st.booleans()) else ""
    if extra == "cga":
        spec["cga_layout"] = draw(st.sampled_from([[], [[1] + [0] * (rank - 1)], [[0] * rank], [[3] * rank]]))
    elif extra == "legacy":
        spec.update(ctas_per_cga=[2] + [1] * (rank - 1), cta_split_num=[2] + [1] * (rank - 1),
                    cta_order=list(range(rank)))
    elif extra in ("warp_size", "num_warps"):
        spec[extra] = draw(st.sampled_from([32, 64, 4]))
    elif extra == "unknown":
        spec["swizzle"] = 1
    elif extra == "missing":
        del spec["order"]
    shapes = st.lists(st.sampled_from([1, 2, 4, 16, 64, 128]), min_size=rank, max_size=rank)
    return spec, entry(shapes), entry(shapes)  # three in four of the layout's rank


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared by type and message
        return type(exc).__name__, str(exc)


@given(_blocked_specs())
@settings(max_examples=600, deadline=None)
def test_blocked_on_shapes_is_build_spec_at_each_shape(case):
    spec, shape1, shape2 = case
    on = kinds.build_on_shapes(spec)
    for shape in (shape1, shape2, shape1):
        assert _outcome(on, shape) == _outcome(build_spec, spec, shape)


def test_on_shapes_comparison_catches_a_builder_that_keeps_its_first_layout(monkeypatch):
    # the mutant: the prepared builder answers every shape with the layout of the first one
    def first_only(**params):
        finish, seen = _blocked_mod.blocked_on_shapes(**params), []

        def on(shape):
            if not seen:
                seen.append(finish(shape))
            return seen[0]
        return on
    blocked_kind = kinds.lookup("blocked")
    monkeypatch.setitem(kinds._KINDS, "blocked", dataclasses.replace(blocked_kind, on_shapes=first_only))
    with pytest.raises(AssertionError):
        test_blocked_on_shapes_is_build_spec_at_each_shape()


# -- a distributed layout's column rules and right inverse in one pass ------------------------------------------

_distributed_cases = importlib.import_module("test_fast_paths_layfast2")  # its random layouts and comparison


def _without_one_pass(L):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(certificates, "_unit_positions", lambda cols: None)
        return certificates.distributed(L)


@given(_distributed_cases._layouts())
@settings(max_examples=400, deadline=None)
def test_one_pass_distributed_is_the_two_pass_certificate(L):
    assert _distributed_cases._same(certificates.distributed(L), _without_one_pass(L))


#: every layout of up to 4 register bits onto 4 or 8 elements (zero, unit, two-bit and repeated columns)
_SMALL = [LinearLayout({"register": [[c] for c in cols]}, {"dim0": size}, require_surjective=False)
          for size in (4, 8) for n in range(5) for cols in itertools.product([0, 1, 2, 3, 4][:size.bit_length() + 1],
                                                                             repeat=n)]


def test_one_pass_distributed_on_every_small_layout():
    assert all(_distributed_cases._same(certificates.distributed(L), _without_one_pass(L)) for L in _SMALL)


def _one_pass_without_repeats(cols):
    """The mutant of ``_unit_positions``: a repeated unit column not refused (the later one is taken)."""
    if any(c & (c - 1) for c in cols):
        return None
    return {c: j for j, c in enumerate(cols) if c}


def test_one_pass_distributed_comparison_catches_repeats_taken(monkeypatch):
    monkeypatch.setattr(certificates, "_unit_positions", _one_pass_without_repeats)
    with pytest.raises(AssertionError):
        test_one_pass_distributed_on_every_small_layout()


# -- freezing and thawing specs -----------------------------------------------------------------------------------

_LEAF = st.one_of(st.integers(-2, 300), st.text(max_size=3), st.booleans(), st.none(), st.floats(allow_nan=False))
_SPEC_VALUES = st.recursive(_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.tuples(inner, inner),
                                                            st.dictionaries(st.text(max_size=3), inner, max_size=4)),
                            max_leaves=12)


def _freeze_definition(value):
    """The definition :func:`~llverify.ttgir.layouts._freeze` computes: dicts to sorted pairs, lists to tuples."""
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze_definition(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze_definition(v) for v in value)
    return value


def _thaw_definition(value):
    """The definition of :func:`~llverify.ttgir.layouts._thaw`: non-empty tuples of (str, value) pairs to dicts,
    other tuples to lists."""
    if not isinstance(value, tuple):
        return value
    if value and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in value):
        return {k: _thaw_definition(v) for k, v in value}
    return [_thaw_definition(v) for v in value]


@given(st.dictionaries(st.text(max_size=3), st.one_of(_SPEC_VALUES, st.dictionaries(st.text(max_size=2), _LEAF)),
                       max_size=5))
@settings(max_examples=500, deadline=None)
def test_freeze_thaw_and_shared_freeze_are_their_definitions(spec):
    frozen = _freeze_definition(spec)
    assert layouts._freeze(spec) == frozen
    memo: dict = {}
    assert layouts._freeze_sharing(spec, memo) == frozen
    assert layouts._freeze_sharing(spec, memo) == frozen  # nested dicts now from the memo
    assert layouts._thaw(frozen) == _thaw_definition(frozen)


def test_freeze_comparison_catches_lists_kept_inside(monkeypatch):
    # the mutant: a list's tuple taken as its frozen form without the hash test (inner lists stay lists)
    real = layouts._freeze

    def mutant(value):
        return tuple(value) if isinstance(value, list) else real(value)
    monkeypatch.setattr(layouts, "_freeze", mutant)
    with pytest.raises(AssertionError):
        test_freeze_thaw_and_shared_freeze_are_their_definitions()


# -- a left inverse checked row by row -------------------------------------------------------------------------

@given(st.integers(0, 8).flatmap(lambda n: st.tuples(st.lists(st.integers(0, 255), min_size=n, max_size=n),
                                                     st.lists(st.integers(-3, 255), min_size=n, max_size=n + 1))))
@settings(max_examples=800, deadline=None)
def test_left_inverse_check_by_rows_is_the_pairwise_definition(case):
    cols, P = case
    assert certificates.check_left_inverse(cols, P) == certificates._check_left_inverse_pairwise(cols, P)
    real = certificates.left_inverse(cols, 8)
    if real is not None:  # the certificates left_inverse makes are accepted (random P mostly are not)
        assert certificates.check_left_inverse(cols, real)


def test_left_inverse_check_comparison_catches_a_row_check_ignoring_the_diagonal(monkeypatch):
    # the mutant: row j of P M only required to be 0 off the diagonal (P M = 0 would pass)
    def off_diagonal_only(cols, P):
        return len(P) == len(cols) and all(((p & c).bit_count() & 1) == 0 for j, p in enumerate(P)
                                           for i, c in enumerate(cols) if i != j)
    monkeypatch.setattr(certificates, "check_left_inverse", off_diagonal_only)
    with pytest.raises(AssertionError):
        test_left_inverse_check_by_rows_is_the_pairwise_definition()


# -- explicit bases read in one pass (hw.cga.as_bases) --------------------------------------------------------------

_BASES = st.one_of(st.none(), st.just("ab"), st.integers(), st.lists(st.one_of(
    st.lists(st.one_of(st.integers(-1, 8), st.booleans(), st.just("1")), max_size=3), st.tuples(st.integers(0, 4)),
    st.just("12")), max_size=4))


@given(_BASES, st.one_of(st.none(), st.integers(0, 3)))
@settings(max_examples=800, deadline=None)
def test_bases_read_in_one_pass_are_the_checked_reading(value, rank):
    general = None if value is None else _outcome(cga._as_bases_checked, value, "reg_bases", "linear", rank)
    assert _outcome(cga.as_bases, value, "reg_bases", "linear", rank) == ([] if value is None else general)
    if isinstance(value, list) and not isinstance(general, tuple):  # read: fresh copies of each basis
        got = cga.as_bases(value, "reg_bases", "linear", rank)
        assert all(a is not b for a, b in zip(got, value))


def test_bases_comparison_catches_negative_components_read(monkeypatch):
    # the mutant: the one-pass reading accepts any list of int lists (a negative component included)
    real = cga.as_bases

    def mutant(value, name, kind, rank=None):
        if type(value) is list and all(type(b) is list and all(type(c) is int for c in b) for b in value):
            return [b[:] for b in value]
        return real(value, name, kind, rank)
    monkeypatch.setattr(cga, "as_bases", mutant)
    with pytest.raises(AssertionError):
        test_bases_read_in_one_pass_are_the_checked_reading()
