"""Derivation, range-aware simplification (proved side conditions), emitters, LEGO layouts."""

import pytest
import sympy as sp

from llverify.index.derive import derive, fields, variable_ranges
from llverify.index.emit import emit
from llverify.index.expr import BitXor, FloorDiv, Modulo, count_ops, evaluate, sym, to_code
from llverify.index.lego import Col, GenP, GroupBy, OrderBy, RegP, TileBy, antidiagonal, from_linear_layout
from llverify.index.simplify import simplify
from llverify.layout import LinearLayout
from llverify.prove.code import IndexCodeError, code_equals_code

x, y, q, r = sym("x"), sym("y"), sym("q"), sym("r")


def _swz(rows, cols, vec, pp, mp):
    off = [[0, 1 << k] for k in range(cols.bit_length() - 1)]
    off += [[1 << k, (vec * (((1 << k) // pp) % mp)) % cols] for k in range(rows.bit_length() - 1)]
    return LinearLayout([("offset", off), ("block", [])], [("dim0", rows), ("dim1", cols)])


@pytest.mark.parametrize("expr, ranges, want", [
    (Modulo(8 * q + r, 8), {"q": 16, "r": 32}, Modulo(r, 8)),               # (d*q + r) % d -> r % d
    (FloorDiv(8 * q + r, 8), {"q": 16, "r": 8}, q),                          # -> q when 0 <= r < d
    (FloorDiv(8 * q + r, 8), {"q": 16, "r": 32}, q + FloorDiv(r, 8)),        # -> q + r // d
    (FloorDiv(x, 16), {"x": 16}, sp.Integer(0)),                             # x // a -> 0
    (Modulo(x, 16), {"x": 16}, x),                                           # x % a -> x
    (4 * FloorDiv(x, 4) + Modulo(x, 4), {"x": (-50, 50)}, x),                # a*(x // a) + x % a -> x
    (FloorDiv(FloorDiv(x, 4), 8), {"x": (-99, 99)}, FloorDiv(x, 32)),        # nested floors
    (FloorDiv(Modulo(x, 32), 4), {"x": (-99, 99)}, Modulo(FloorDiv(x, 4), 8)),
    (BitXor(Modulo(x, 8), 8 * y), {"x": 64, "y": 8}, Modulo(x, 8) + 8 * y),  # disjoint XOR -> +
])
def test_each_rule_fires_and_is_correct(expr, ranges, want):
    s = simplify(expr, ranges)
    assert sp.simplify(s.expr - want) == 0 or s.expr == want, (s.expr, want)
    assert s.ops_after <= s.ops_before
    rng = {k: (v if isinstance(v, tuple) else (0, v)) for k, v in ranges.items()}
    assert code_equals_code(to_code(expr), to_code(s.expr), rng, lang="python").proved


@pytest.mark.parametrize("expr, ranges", [
    (FloorDiv(8 * q + r, 8), {"q": 16, "r": (-1, 8)}),   # r may be negative: not just q
    (FloorDiv(x, 16), {"x": 17}),                        # x may reach a
    (Modulo(x, 16), {"x": (-1, 16)}),
    (BitXor(Modulo(x, 16), 8 * y), {"x": 64, "y": 8}),   # overlapping bits: XOR stays
])
def test_rules_do_not_fire_when_condition_fails(expr, ranges):
    s = simplify(expr, ranges)
    rng = {k: (v if isinstance(v, tuple) else (0, v)) for k, v in ranges.items()}
    assert code_equals_code(to_code(expr), to_code(s.expr), rng, lang="python").proved
    assert s.expr != {FloorDiv: q, Modulo: x}.get(type(expr), None)
    if isinstance(expr, BitXor):
        assert s.expr.has(BitXor)
    if isinstance(expr, FloorDiv) and expr.args[0] == x:
        assert s.expr != 0


def test_derive_swizzle_fields_and_simplify():
    L = _swz(64, 64, 8, 1, 8)
    inv = L.invert()
    fs = fields(inv, "offset")
    # col bits 0..5 -> 0..5, row bits 0..2 -> 3..5 (the swizzle), row bits 0..5 -> 6..11
    assert sorted((f.var, f.lo, f.width, f.shift) for f in fs) == [
        ("dim0", 0, 3, 3), ("dim0", 0, 6, 6), ("dim1", 0, 6, 0)]
    e = derive(inv, "offset")
    s = simplify(e, variable_ranges(inv))
    assert s.ops_after < s.ops_before
    for rr in range(0, 64, 7):
        for cc in range(0, 64, 5):
            assert evaluate(s.expr, {"dim0": rr, "dim1": cc}) == L.invert().apply(dim0=rr, dim1=cc)["offset"]
    assert all(rw.condition or "->" in rw.rule for rw in s.rewrites)


def _zoo():
    zoo = {
        "swizzled 64x64 v8": _swz(64, 64, 8, 1, 8),
        "swizzled 32x32 (2,2,4)": _swz(32, 32, 2, 2, 4),
        "blocked-like": LinearLayout.from_bases({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0],
                                                 [4, 0]], "warp": [[8, 0], [16, 0]]}, ["dim0", "dim1"]),
        "mma-like": LinearLayout.from_bases({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0],
                                             [4, 0]], "warp": [[16, 0]]}, ["dim0", "dim1"]),
        "broadcast": LinearLayout.from_bases({"register": [[1], [0]], "lane": [[2], [4]]}, ["dim0"]),
    }
    try:
        from llverify.hw import build
        zoo["hw blocked"] = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[8, 4],
                                  warps_per_cta=[2, 2], order=[1, 0])
        zoo["hw swizzled"] = build("swizzled_shared", [32, 64], vec=4, per_phase=2, max_phase=4, order=[1, 0])
        zoo["hw mma"] = build("nvidia_mma", [32, 32], version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])
    except Exception:  # hw not available (yet) or a different signature: the bases zoo still runs
        pass
    return zoo


@pytest.mark.parametrize("name", list(_zoo()))
@pytest.mark.parametrize("lang", ["python", "c", "triton"])
def test_emitted_code_for_zoo_layouts_is_proved(name, lang):
    L = _zoo()[name]
    e = emit(L, lang)
    assert set(e.code) == set(L.out_dim_names)
    assert all(v.proved for v in e.verdicts.values())
    if L.is_invertible():
        e = emit(L, lang, inverse=True)
        assert all(v.proved for v in e.verdicts.values())


def test_triton_prelude_uses_arange_for_whole_dims():
    e = emit(_swz(64, 64, 8, 1, 8), "triton", inverse=True, names={"dim0": "row", "dim1": "col"})
    assert e.prelude == ("row = tl.arange(0, 64)[:, None]", "col = tl.arange(0, 64)[None, :]")
    assert "offset = " in e.text()


# ----------------------------------------------------------------- LEGO --
def test_figure_8_antidiagonal():
    g = GroupBy([6, 6], antidiagonal(6))
    # the first anti-diagonals: (0,0) -> 0; (0,1), (1,0) -> 1, 2; (0,2), (1,1), (2,0) -> 3, 4, 5
    assert [g.apply(0, 0), g.apply(0, 1), g.apply(1, 0), g.apply(0, 2), g.apply(1, 1), g.apply(2, 0)] == list(range(6))
    assert g.apply(5, 5) == 35 and g.apply(4, 5) == 33 and g.apply(5, 4) == 34
    assert all(g.inv(g.apply(i, j)) == (i, j) for i in range(6) for j in range(6))
    assert g.prove_bijective().proved
    assert antidiagonal(6).prove().proved


def test_figure_9_tiled_then_transposed_antidiagonal_blocks():
    B = TileBy((2, 2), (3, 3))
    assert B == RegP([2, 3, 2, 3], [0, 2, 1, 3])
    tiled = GroupBy([6, 6], B)
    for i in range(6):
        for j in range(6):
            assert tiled.apply(i, j) == ((i // 3 * 2 + j // 3) * 3 + i % 3) * 3 + j % 3
    s = tiled.simplified_apply(["i", "j"])
    assert s.ops_after < s.ops_before
    C = OrderBy(RegP([2, 2], [1, 0]), antidiagonal(3))
    g = GroupBy([6, 6], C, B)
    # block (bi, bj) lands at transposed block bj*2 + bi; inside, anti-diagonal order of the 3x3 block
    ad = GroupBy([3, 3], antidiagonal(3))
    for i in range(6):
        for j in range(6):
            assert g.apply(i, j) == ((j // 3) * 2 + i // 3) * 9 + ad.apply(i % 3, j % 3)
    assert sorted(g.apply(i, j) for i in range(6) for j in range(6)) == list(range(36))
    assert all(g.inv(g.apply(i, j)) == (i, j) for i in range(6) for j in range(6))
    assert g.prove_bijective().proved


def _triton_grouped_pid(pid, num_m, num_n, group_m):
    """The grouped program-id ordering of Triton's matmul tutorial, written out here."""
    in_group = group_m * num_n
    first_m = (pid // in_group) * group_m
    size_m = min(num_m - first_m, group_m)
    return first_m + (pid % in_group) % size_m, (pid % in_group) // size_m


@pytest.mark.parametrize("num_m, num_n, group_m", [(6, 5, 3), (8, 4, 2), (4, 7, 4)])
def test_figure_11_matmul_program_id_layout(num_m, num_n, group_m):
    pids = GroupBy([num_m, num_n], OrderBy(Col(num_m // group_m, 1), Col(group_m, num_n)))
    for pid in range(num_m * num_n):
        assert pids.inv(pid) == _triton_grouped_pid(pid, num_m, num_n, group_m)
        assert pids.apply(*pids.inv(pid)) == pid
    assert pids.prove_bijective().proved and pids.prove_inverse().proved


def test_figure_11_tiled_data_layout_simplifies_to_strides():
    Mb, Kb, BM, BK = 3, 5, 16, 8
    A = GroupBy([Mb, Kb, BM, BK], RegP([Mb, Kb, BM, BK], [0, 2, 1, 3]))
    s = A.simplified_apply(["bm", "bk", "i", "j"])
    bm, bk, i, j = (sym(n) for n in ("bm", "bk", "i", "j"))
    assert sp.expand(s.expr - ((bm * BM + i) * (Kb * BK) + bk * BK + j)) == 0
    assert not s.expr.has(FloorDiv) and not s.expr.has(Modulo)
    assert s.ops_after < s.ops_before


def test_lego_linear_layout_round_trip():
    # a power-of-two, F2-linear LEGO layout: 8x8 tiled by 4x4 with the tile grid transposed
    g = GroupBy([8, 8], OrderBy(RegP([2, 2], [1, 0]), RegP([4, 4], [0, 1])), TileBy((2, 2), (4, 4)))
    L, v = g.to_linear_layout()
    assert v.proved and L.is_invertible()
    for f in range(64):
        assert tuple(L.apply(offset=f).values()) == g.inv(f)
    back, v2 = from_linear_layout(L)
    assert v2.proved
    assert all(back.apply(i, j) == g.apply(i, j) for i in range(8) for j in range(8))
    # the anti-diagonal is not F2-linear
    with pytest.raises(IndexCodeError, match="not F2-linear"):
        GroupBy([4, 4], antidiagonal(4)).to_linear_layout()


def test_genp_rejects_bad_functions():
    with pytest.raises(IndexCodeError, match="unknown variables"):
        GenP([2, 2], "i0 + k", ["f // 2", "f % 2"])
    bad = GenP([2, 2], "i0 * 2 + i1", ["f % 2", "f // 2"])  # wrong inverse
    assert bad.prove().refuted
    v = GroupBy([2, 3], GenP([2, 3], "i0 * 2 + i1", ["f // 3", "f % 3"])).prove_bijective()
    assert v.refuted


def test_count_ops():
    assert count_ops(FloorDiv(x, 8) * 8 + Modulo(x, 8)) == 4
    assert count_ops(BitXor(x, y, q)) == 2
