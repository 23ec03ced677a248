"""The bankfast round's fast paths give what the definitions give (each comparison shown able to fail).

* ``bank_sim.simulate_wavefronts``: the offsets tabulated with the columns reordered (vector element, lane,
  instruction, rest) and the alignment checked with a mask, against the definition computed point by point in
  plain Python (every register of every vector of every lane of every instruction evaluated with
  ``LinearLayout.apply``);
* ``vectorize.largest_vectorisation`` read off the flat columns, against the definition on the nested bases;
* ``evaluate.xor_table`` against the XOR of the chosen columns.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.codegen import bank_sim
from llverify.codegen.bank_model import AMD_CDNA3, AMD_CDNA4, NVIDIA, BankModel
from llverify.codegen.banks import access_to_offsets
from llverify.codegen.vectorize import VectorPlan, largest_vectorisation
from llverify.errors import LayoutError
from llverify.evaluate import xor_table
from llverify.hw.padded import Padding
from llverify.layout import LinearLayout
from tests.test_bank_models_amd import access_cases


# -- simulate_wavefronts ------------------------------------------------------------------------------------

def _reference_sim(access: LinearLayout, shared: LinearLayout, bits: int, vector: VectorPlan,
                   padding: Padding | None, model: BankModel, direction: str) -> tuple | str:
    """The simulator's definition, one point at a time: instruction ``(rest, i)`` (rest-major), lane ``l``,
    vector element ``e``: register ``e + v * i`` of the permuted order, i.e. original register bits
    ``order[b]`` for the set bits ``b``; its offset is ``cvt``'s (padded); the vector must be contiguous and
    aligned; the wavefronts come from :func:`bank_sim.simulate_addresses` on the start addresses."""
    cvt = access_to_offsets(access, shared)
    order = vector.register_order or tuple(range(cvt.in_dim_size_log2("register")))
    n_reg, n_lane = cvt.in_dim_size("register"), cvt.in_dim_size("lane")
    rest_dims = [d for d in cvt.in_dim_names if d not in ("register", "lane")]
    n_rest = 1
    for d in rest_dims:
        n_rest *= cvt.in_dim_size(d)
    v, nb = vector.elems, bits // 8

    def offset(rest: int, lane: int, reg: int) -> int:
        r = sum(1 << order[b] for b in range(len(order)) if reg >> b & 1)
        x = {"register": r, "lane": lane}
        for d in rest_dims:
            size = cvt.in_dim_size(d)
            x[d], rest = rest % size, rest // size
        o = cvt.apply(**x)["offset"]
        return padding.apply(o) if padding is not None else o

    rows = []
    for rest in range(n_rest):
        for i in range(n_reg // v):
            row = []
            for lane in range(n_lane):
                offs = [offset(rest, lane, e + v * i) for e in range(v)]
                if offs != list(range(offs[0], offs[0] + v)):
                    return "not contiguous"
                if v * nb > 1 and (offs[0] * nb) % min(v * nb, 16):
                    return "not aligned"
                row.append(offs[0] * nb)
            rows.append(row)
    addr = np.array(rows, dtype=np.int64)
    counts = [(rule.source, bank_sim.simulate_addresses(addr, v * nb, model, rule))
              for rule in model.phase_rules(v * nb, direction)]
    return (tuple((s, int(c.max()), int(c.min())) for s, c in counts), int(counts[0][1][0]), len(rows))


def _fast_sim(access, shared, bits, vector, padding, model, direction) -> tuple | str:
    try:
        sim = bank_sim.simulate_wavefronts(access, shared, bits, vector, padding=padding, model=model,
                                           direction=direction)
    except LayoutError as exc:
        return "not contiguous" if "contiguous" in str(exc) else "not aligned" if "aligned" in str(exc) else str(exc)
    return sim.per_rule, sim.wavefronts, sim.instructions


_MODELS = [(NVIDIA, "load", 32), (AMD_CDNA3, "load", 64), (AMD_CDNA4, "store", 64)]


@st.composite
def _sim_cases(draw):
    model, direction, lanes = draw(st.sampled_from(_MODELS))
    acc, shared, bits = draw(access_cases(lanes, wide=draw(st.booleans())))
    cvt = access_to_offsets(acc, shared)
    n = cvt.in_dim_size_log2("register")
    kind = draw(st.sampled_from(["largest", "shuffled", "padded"]))
    if kind == "largest":
        vector, padding = largest_vectorisation(cvt, bits), None
    elif kind == "shuffled":   # any register order and width: the simulator must refuse or count it
        order = draw(st.permutations(range(n)))
        elems = 1 << draw(st.integers(0, min(n, (128 // bits).bit_length() - 1)))
        vector, padding = VectorPlan(elems, elems * bits, tuple(order)), None
    else:
        padding = Padding(((draw(st.sampled_from([32, 64, 128])), draw(st.sampled_from([1, 2, 4, 8]))),))
        vector = largest_vectorisation(cvt, bits, max_elems=padding.min_interval)
    return acc, shared, bits, vector, padding, model, direction


@given(_sim_cases())
@settings(max_examples=120, deadline=None)
def test_simulate_wavefronts_is_the_definition(case):
    acc, shared, bits, vector, padding, model, direction = case
    try:
        ref = _reference_sim(acc, shared, bits, vector, padding, model, direction)
    except LayoutError as exc:   # a width no source establishes: both refuse it
        with pytest.raises(LayoutError, match="not established"):
            bank_sim.simulate_wavefronts(acc, shared, bits, vector, padding=padding, model=model, direction=direction)
        assert "not established" in str(exc)
        return
    assert _fast_sim(acc, shared, bits, vector, padding, model, direction) == ref


def test_simulate_wavefronts_comparison_catches_a_transposed_table(monkeypatch):
    """The mutant: the columns left in the flat order (register, lane, ..), so each row of 32 is one lane's
    registers, not one instruction's lanes; the comparison above fails on a layout whose lanes conflict."""
    from llverify.hw import build

    acc = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[32, 1], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
    vector = VectorPlan(1, 32, tuple(range(access_to_offsets(acc, sh).in_dim_size_log2("register"))))
    ref = _reference_sim(acc, sh, 32, vector, None, NVIDIA, "load")
    assert _fast_sim(acc, sh, 32, vector, None, NVIDIA, "load") == ref
    monkeypatch.setattr(bank_sim, "_table_columns",
                        lambda cols, nv, nr, nl: list(cols))   # the flat order: no transpose
    assert _fast_sim(acc, sh, 32, vector, None, NVIDIA, "load") != ref


def _misaligned_acc() -> tuple[LinearLayout, LinearLayout]:
    """Lanes holding 4 contiguous f32 of a 4 x 32 row-major tile."""
    acc = LinearLayout([("register", [[0, 1], [0, 2]]), ("lane", [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]),
                        ("warp", []), ("block", [])], [("dim0", 4), ("dim1", 32)])
    sh = LinearLayout([("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]), ("block", [])],
                      [("dim0", 4), ("dim1", 32)])
    return acc, sh


def test_simulate_wavefronts_comparison_catches_a_weaker_alignment_mask(monkeypatch):
    """The mutant: 16-byte vectors checked for 8-byte alignment only.  Padding ``[64:+2]`` moves the second half
    of the tile 8 bytes: contiguous, but off its 16-byte boundary; the definition refuses it."""
    acc, sh = _misaligned_acc()
    vector, shifted = VectorPlan(4, 128, (0, 1)), Padding(((64, 2),))
    assert _reference_sim(acc, sh, 32, vector, shifted, NVIDIA, "load") == "not aligned"
    assert _fast_sim(acc, sh, 32, vector, shifted, NVIDIA, "load") == "not aligned"
    assert _fast_sim(acc, sh, 32, vector, None, NVIDIA, "load") == _reference_sim(acc, sh, 32, vector, None,
                                                                                 NVIDIA, "load")
    real = bank_sim._misaligned
    monkeypatch.setattr(bank_sim, "_misaligned", lambda start, vb, bp: real(start, min(vb, 8), bp))
    assert _fast_sim(acc, sh, 32, vector, shifted, NVIDIA, "load") != "not aligned"


# -- largest_vectorisation ------------------------------------------------------------------------------------

def _reference_vector(to_addr: LinearLayout, bits: int, max_elems: int | None) -> VectorPlan:
    """The definition on the nested bases: the largest ``v`` whose ``log2 v`` address unit vectors are register
    bases (first found, in order) and whose other bases have no address bit below ``v``."""
    k = list(to_addr.out_dim_names).index("offset")
    regs = list(to_addr.bases["register"])
    others = [b for d, bs in to_addr.bases.items() if d != "register" for b in bs]
    cap = max(1, min(128 // bits, max_elems or 128))
    v = 1 << (cap.bit_length() - 1)
    while v > 1:
        chosen = []
        for j in range((v - 1).bit_length()):
            want = tuple((1 << j) if i == k else 0 for i in range(len(to_addr.out_dim_names)))
            if want not in regs:
                break
            chosen.append(regs.index(want))
        else:
            rest = [b for i, b in enumerate(regs) if i not in chosen] + others
            if all(b[k] % v == 0 for b in rest):
                return VectorPlan(v, v * bits, tuple(chosen) + tuple(i for i in range(len(regs)) if i not in chosen))
        v //= 2
    return VectorPlan(1, bits, tuple(range(len(regs))))


@given(access_cases(32, wide=False), st.sampled_from([None, 2, 4]))
@settings(max_examples=150, deadline=None)
def test_largest_vectorisation_is_the_definition(case, cap):
    acc, shared, bits = case
    cvt = access_to_offsets(acc, shared)
    assert largest_vectorisation(cvt, bits, max_elems=cap) == _reference_vector(cvt, bits, cap)


def test_largest_vectorisation_comparison_catches_a_block_bit():
    """The mutant: a vector register recognised by its address part alone.  A register basis with the address bit
    *and* a block bit is no vector register (its element is in another CTA): the reference refuses it, the flat
    column test too (the column is not the unit column), the mutant takes it."""
    L = LinearLayout([("register", [[1, 1], [2, 0]]), ("lane", [[4, 0]])], [("offset", 8), ("block", 2)],
                     require_surjective=False)
    assert largest_vectorisation(L, 32) == _reference_vector(L, 32, None)
    assert largest_vectorisation(L, 32).elems == 1

    def mutant(to_addr: LinearLayout, bits: int) -> int:
        k = list(to_addr.out_dim_names).index("offset")
        regs = to_addr.bases["register"]
        return 2 if any(b[k] == 1 for b in regs) and all(b[k] % 2 == 0 for b in regs if b[k] != 1) else 1
    assert mutant(L, 32) != _reference_vector(L, 32, None).elems


# -- xor_table ------------------------------------------------------------------------------------------------

@given(st.lists(st.integers(0, (1 << 40) - 1), max_size=10))
@settings(max_examples=200, deadline=None)
def test_xor_table_is_the_definition(cols):
    t = xor_table(cols)
    for x in range(1 << len(cols)):
        want = 0
        for k, c in enumerate(cols):
            if x >> k & 1:
                want ^= c
        assert int(t[x]) == want


# -- greedy span completions (f2.complement, swizzle._complement_in) ------------------------------------------

def _in_span(v: int, vectors: list[int]) -> bool:
    span = {0}
    for u in vectors:
        span |= {s ^ u for s in span}
    return v in span


def _greedy(basis: list[int], pool: list[int], most: int | None = None) -> list[int]:
    """The definition: walk ``pool``, keep each vector outside the span of the basis and those kept so far."""
    out: list[int] = []
    for v in pool:
        if most is not None and len(out) == most:
            break
        if not _in_span(v, basis + out):
            out.append(v)
    return out


_VECS = st.lists(st.one_of(st.integers(0, 5).map(lambda i: 1 << i), st.integers(0, 63)), max_size=7)


@given(_VECS)
@settings(max_examples=300, deadline=None)
def test_complement_is_the_greedy_unit_completion(vs):
    from llverify import f2

    assert f2.complement(vs, 6) == _greedy(vs, [1 << k for k in range(6)])


@given(_VECS, _VECS, st.one_of(st.none(), st.integers(0, 4)))
@settings(max_examples=300, deadline=None)
def test_complement_in_is_the_greedy_walk(basis, pool, most):
    from llverify.codegen.swizzle import _complement_in

    assert _complement_in(basis, pool, most) == _greedy(basis, pool, most)


def test_greedy_comparison_catches_a_walk_against_the_basis_only():
    """The mutant: each pool vector tested against the basis alone (kept vectors forgotten), which keeps a vector
    already spanned by earlier kept ones; the comparison above fails."""
    from llverify import f2

    basis, pool = [1], [2, 4, 6]
    mutant = [pool[j - 1] for j in range(1, 4) if f2.pivot_columns(basis + [pool[j - 1]]) == [0, 1]]
    assert _greedy(basis, pool) == [2, 4]
    assert mutant != _greedy(basis, pool)


def test_complement_refuses_wide_vectors():
    from llverify import f2

    with pytest.raises(ValueError, match="wider"):
        f2.complement([1 << 6], 6)


# -- remove_broadcast_registers on flat columns ---------------------------------------------------------------

def _reference_remove(L: LinearLayout) -> LinearLayout:
    """The definition on the nested bases: keep the first copy of each non-zero register basis."""
    regs, keep, seen = L.bases["register"], [], set()
    for b in regs:
        if any(b) and b not in seen:
            keep.append(b)
            seen.add(b)
    return LinearLayout([(d, keep if d == "register" else bs) for d, bs in L.bases.items()], L.out_dims.items(),
                        require_surjective=False)


_REGS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 7)), max_size=6)


@given(_REGS, st.lists(st.tuples(st.integers(0, 3), st.integers(0, 7)), max_size=3))
@settings(max_examples=300, deadline=None)
def test_remove_broadcast_registers_is_the_definition(regs, lanes):
    from llverify.codegen.common import remove_broadcast_registers

    L = LinearLayout([("register", [list(r) for r in regs]), ("lane", [list(x) for x in lanes]), ("warp", [])],
                     [("dim0", 4), ("dim1", 8)], require_surjective=False)
    got = remove_broadcast_registers(L)
    assert got == _reference_remove(L)
    assert dict(got.bases) == dict(_reference_remove(L).bases)


def test_remove_broadcast_comparison_catches_keeping_the_last_copy():
    """The mutant: the last copy of a repeated basis kept instead of the first (a different register order)."""
    L = LinearLayout([("register", [[0, 1], [1, 0], [0, 1]]), ("lane", [])], [("dim0", 2), ("dim1", 2)],
                     require_surjective=False)
    cols = list(L.flat_columns)
    mutant = [c for i, c in enumerate(cols) if c and c not in cols[i + 1:]]
    assert [tuple(b) for b in _reference_remove(L).bases["register"]] == [(0, 1), (1, 0)]
    assert mutant != list(_reference_remove(L).flat_columns)


# -- tmem_lane_quarters: the quarter table by slices ----------------------------------------------------------

def _reference_quarters(R: LinearLayout, T: LinearLayout, first_warp: int) -> bool:
    """The claim point by point with ``apply``: each (register, lane, warp) element of ``R`` is at some TMEM
    ``(row, col)`` of ``T`` with ``row // 32 == (first_warp + warp) % 4``."""
    where: dict[tuple, set[int]] = {}
    for r in range(T.in_dim_size("row")):
        for c in range(T.in_dim_size("col")):
            where.setdefault(tuple(T.apply(row=r, col=c).values()), set()).add(r // 32)
    for reg in range(R.in_dim_size("register")):
        for lane in range(R.in_dim_size("lane")):
            for w in range(R.in_dim_size("warp")):
                e = tuple(R.apply(register=reg, lane=lane, warp=w).values())
                if (first_warp + w) % 4 not in where.get(e, set()):
                    return False
    return True


@st.composite
def _tmem_cases(draw):
    """A 128 x 4 tile: TMEM rows = the 128 tensor rows (in order or with two row bits swapped, row or col first),
    R = 32 lanes x 4 warps x 4 registers over a shuffle of the unit bases."""
    import random

    units = [[1 << i, 0] for i in range(7)] + [[0, 1], [0, 2]]
    trow = [list(u) for u in units[:7]]
    if draw(st.booleans()):
        i, j = draw(st.integers(0, 6)), draw(st.integers(0, 6))
        trow[i], trow[j] = trow[j], trow[i]
    tcol = [list(u) for u in units[7:]]
    dims = [("row", trow), ("col", tcol)] if draw(st.booleans()) else [("col", tcol), ("row", trow)]
    T = LinearLayout(dims, [("dim0", 128), ("dim1", 4)])
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    order = list(range(9))
    if draw(st.booleans()):
        rng.shuffle(order)
    bs = [units[k] for k in order]
    R = LinearLayout([("register", bs[7:]), ("lane", bs[:5]), ("warp", bs[5:7])], [("dim0", 128), ("dim1", 4)])
    return R, T, draw(st.integers(0, 7))


@given(_tmem_cases())
@settings(max_examples=80, deadline=None)
def test_tmem_lane_quarters_is_the_definition(case):
    from llverify.prove.tmem_access import tmem_lane_quarters

    R, T, first = case
    v = tmem_lane_quarters(R, T, first_warp=first)
    assert v.status in ("proved", "refuted")
    assert (v.status == "proved") == _reference_quarters(R, T, first)


def test_tmem_quarter_comparison_catches_rows_read_as_columns(monkeypatch):
    """The mutant: the quarter table read as if T's first in dim were ``col`` (the row/col reshape swapped); the
    comparison above fails on a row-first T."""
    from llverify.prove import tmem_access

    units = [[1 << i, 0] for i in range(7)] + [[0, 1], [0, 2]]
    T = LinearLayout([("row", units[:7]), ("col", units[7:])], [("dim0", 128), ("dim1", 4)])
    R = LinearLayout([("register", units[7:]), ("lane", units[:5]), ("warp", units[5:7])],
                     [("dim0", 128), ("dim1", 4)])
    assert _reference_quarters(R, T, 0)
    assert tmem_access.tmem_lane_quarters(R, T).status == "proved"
    monkeypatch.setattr(tmem_access, "_by_row", lambda t_elem, rows, cols, row_first: t_elem.reshape(rows, cols))
    assert tmem_access.tmem_lane_quarters(R, T).status != "proved"


# -- access_to_offsets through the inverse of the shared layout -----------------------------------------------

@given(access_cases(32, wide=False))
@settings(max_examples=150, deadline=None)
def test_access_to_offsets_is_the_general_solve(case):
    from llverify.codegen.common import remove_broadcast_registers

    acc, shared, _ = case
    access_to_offsets.cache_clear()
    got = access_to_offsets(acc, shared)
    want = remove_broadcast_registers(acc).invert_and_compose(shared)
    assert got == want
    assert dict(got.out_dims) == dict(want.out_dims) and list(got.in_dims.items()) == list(want.in_dims.items())


def test_access_to_offsets_comparison_catches_the_transpose_for_the_inverse(monkeypatch):
    """The mutant: ``S^T`` used for ``S^-1`` (right for a permutation, wrong for a swizzle): on a swizzled
    buffer the comparison above fails."""
    from llverify.codegen import banks
    from llverify.codegen.common import remove_broadcast_registers
    from llverify.hw import build

    acc = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [32, 32], vec=4, per_phase=1, max_phase=8, order=[1, 0])
    want = remove_broadcast_registers(acc).invert_and_compose(sh)
    access_to_offsets.cache_clear()
    assert access_to_offsets(acc, sh) == want

    def transpose(shared, outs):
        dest = shared.transpose_outs(list(outs))
        cols = dest.flat_columns
        return tuple(sum(1 << j for j, c in enumerate(cols) if c >> k & 1) for k in range(dest.total_out_bits))
    monkeypatch.setattr(banks, "_inverse_columns", transpose)
    access_to_offsets.cache_clear()
    assert access_to_offsets(acc, sh) != want
    access_to_offsets.cache_clear()


# -- conversion classification decided on cvt itself ----------------------------------------------------------

def _reference_classify(cvt: LinearLayout) -> tuple[str, tuple[str, ...]]:
    """The definition: quotient block, warp, lane in turn while trivial (each on the layout left so far)."""
    kinds = {"block": "shared_memory", "warp": "shared_memory", "lane": "warp_shuffle",
             "register": "register_permutation"}
    cur, dropped = cvt, []
    for dim in ("block", "warp", "lane", "register"):
        if not (cur.has_in_dim(dim) or cur.has_out_dim(dim)):
            dropped.append(dim)
            continue
        q = cur.quotient([dim])
        if q is None:
            return kinds[dim], tuple(dropped)
        cur = q
        dropped.append(dim)
    return "noop", tuple(dropped)


@st.composite
def _cvt_cases(draw):
    """A hardware -> hardware map: per dim an identity block, a shuffled block or a block mixed with others."""
    dims = [("register", draw(st.integers(0, 3))), ("lane", draw(st.integers(0, 3))),
            ("warp", draw(st.integers(0, 2))), ("block", draw(st.integers(0, 1)))]
    dims = [(d, n) for d, n in dims if n or draw(st.booleans())]
    total = sum(n for _, n in dims)
    cols: list[int] = []
    at = 0
    for d, n in dims:
        mode = draw(st.sampled_from(["id", "id", "perm", "mix"]))
        block = [1 << (at + i) for i in range(n)]
        if mode == "perm":
            block = draw(st.permutations(block))
        elif mode == "mix" and total:
            block = [b ^ (1 << draw(st.integers(0, total - 1))) for b in block]
        cols += list(block)
        at += n
    bases, k = [], 0
    for d, n in dims:
        bases.append((d, [[(c >> sum(m for _, m in dims[:o])) & ((1 << dims[o][1]) - 1) for o in range(len(dims))]
                          for c in cols[k:k + n]]))
        k += n
    return LinearLayout(bases, [(d, 1 << n) for d, n in dims], require_surjective=False)


@given(_cvt_cases())
@settings(max_examples=300, deadline=None)
def test_classify_is_the_sequential_quotient(cvt):
    from llverify.codegen.conversion import classify

    assert classify(cvt) == _reference_classify(cvt)


def test_classify_comparison_catches_deciding_on_the_first_dim_only():
    """The mutant: a layout decided by its block dim alone (``noop`` when block is trivial): a lane swap is
    missed; the comparison above fails."""
    cvt = LinearLayout([("register", [[1, 0, 0]]), ("lane", [[0, 2, 0], [0, 1, 0]]), ("block", [[0, 0, 1]])],
                       [("register", 2), ("lane", 4), ("block", 2)], require_surjective=False)
    assert _reference_classify(cvt)[0] == "warp_shuffle"
    mutant = "noop" if cvt.is_trivial_over(["block"]) else "shared_memory"
    assert mutant != _reference_classify(cvt)[0]


# -- bank_wavefronts' conflicting lanes by doubling ------------------------------------------------------------

@given(access_cases(32, wide=False))
@settings(max_examples=150, deadline=None)
def test_conflicting_lanes_are_the_definition(case):
    """Each phase-0 lane's offset is the XOR of the phase lane offsets at its set bits (the definition, one lane
    at a time); a lane conflicts when its word is a non-zero multiple of 32."""
    from llverify.codegen.banks import bank_wavefronts, offset_bases, word_of_offset

    acc, shared, bits = case
    rep = bank_wavefronts(acc, shared, bits)
    lanes = offset_bases(access_to_offsets(acc, shared), "lane")[:rep.phase_lane_bits]
    want = []
    for lane in range(1, rep.lanes_per_phase):
        off = 0
        for j, o in enumerate(lanes):
            if lane >> j & 1:
                off ^= o
        w = word_of_offset(off, bits)
        if w and w % 32 == 0:
            want.append(lane)
    assert list(rep.conflicting_lanes) == want


def test_conflicting_lanes_comparison_catches_reversed_lane_bits(monkeypatch):
    """The mutant: the lane bits taken high-first.  Lanes 0-3 walk rows of a row-major 16 x 32 f32 buffer (words
    32, 64, 128, 256: every lane below 16 conflicts with lane 0), lane bit 4 the column: the mutant's list
    differs."""
    from llverify.codegen import banks

    acc = LinearLayout([("register", [[0, 2], [0, 4], [0, 8], [0, 16]]),
                        ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]), ("warp", [])],
                       [("dim0", 16), ("dim1", 32)])
    sh = LinearLayout([("offset", [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0]]),
                       ("block", [])], [("dim0", 16), ("dim1", 32)])
    real = banks.bank_wavefronts(acc, sh, 32).conflicting_lanes
    assert list(real) == list(range(1, 16))
    orig = banks._lane_offsets
    monkeypatch.setattr(banks, "_lane_offsets", lambda ls: orig(list(reversed(ls))))
    assert banks.bank_wavefronts(acc, sh, 32).conflicting_lanes != real
