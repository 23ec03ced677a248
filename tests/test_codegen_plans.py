"""Codegen plans (seed 000, section 5) and their proofs, with the paper's examples and mutants."""

from __future__ import annotations

import dataclasses
import random

import pytest

from llverify.codegen.broadcast import broadcast_predicate
from llverify.codegen.conversion import convert
from llverify.codegen.gather import gather_plan
from llverify.codegen.shape_ops import infer_shape_op
from llverify.codegen.shuffle import ShuffleRound, shuffle_plan, transposition_decomposition
from llverify.codegen.swizzle import optimal_swizzle
from llverify.codegen.vectorize import fastest_dim_vector_width, global_vector_width, instruction_tiles
from llverify.errors import LayoutError
from llverify.layout import LinearLayout as LL
from llverify.prove.plan_banks import prove_bank_count
from llverify.prove.plan_broadcast import prove_broadcast_store
from llverify.prove.plan_conversion import prove_conversion_plan
from llverify.prove.plan_gather import prove_gather
from llverify.prove.plan_shape_ops import prove_shape_op
from llverify.prove.plan_shuffle import prove_shuffle_plan
from llverify.prove.plan_swizzle import prove_optimal_swizzle


def lay(reg, lane, warp=(), block=(), names=("dim0", "dim1"), sizes=None):
    bases = {"register": [list(b) for b in reg], "lane": [list(b) for b in lane],
             "warp": [list(b) for b in warp], "block": [list(b) for b in block]}
    return LL.from_bases(bases, list(names), sizes)


def unit_layout(perm, n_reg, n_lane, n_warp):
    """1-D layout whose bases are the unit vectors 1 << perm[i], split register/lane/warp."""
    units = [[1 << p] for p in perm]
    return lay(units[:n_reg], units[n_reg:n_reg + n_lane], units[n_reg + n_lane:n_reg + n_lane + n_warp],
               names=("dim0",))


# ---------------------------------------------------------------- conversions
def test_conversion_classifications_and_proofs():
    A = lay([[0, 1], [0, 2]], [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], [[16, 0]])
    same = convert(A, A)
    assert same.classification == "noop"
    regperm = lay([[0, 2], [0, 1]], [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], [[16, 0]])
    assert convert(A, regperm).classification == "register_permutation"
    lanes = lay([[1, 0], [0, 2]], [[0, 4], [0, 1], [2, 0], [4, 0], [8, 0]], [[16, 0]])
    assert convert(A, lanes).classification == "warp_shuffle"
    warps = lay([[0, 1], [0, 2]], [[0, 4], [1, 0], [2, 0], [4, 0], [16, 0]], [[8, 0]])
    assert convert(A, warps).classification == "shared_memory"
    for B in (A, regperm, lanes, warps):
        v = prove_conversion_plan(convert(A, B))
        assert v.status == "proved", v.message
        assert v.details["classification"] == convert(A, B).classification


def test_conversion_mutants_are_refuted():
    A = lay([[0, 1], [0, 2]], [[0, 4], [1, 0], [2, 0], [4, 0], [8, 0]], [[16, 0]])
    B = lay([[1, 0], [0, 2]], [[0, 4], [0, 1], [2, 0], [4, 0], [8, 0]], [[16, 0]])
    plan = convert(A, B)
    wrong_class = dataclasses.replace(plan, classification="register_permutation")
    v = prove_conversion_plan(wrong_class)
    assert v.status == "refuted" and "lane" in v.message
    # a cvt with one wrong column
    cb = {d: [list(b) for b in bs] for d, bs in plan.cvt.bases.items()}
    cb["register"][0], cb["register"][1] = cb["register"][1], cb["register"][0]
    bad = dataclasses.replace(plan, cvt=LL(list(cb.items()), list(plan.cvt.out_dims.items()), require_surjective=False))
    v = prove_conversion_plan(bad)
    assert v.status == "refuted"
    x = dict(v.counterexample.inputs)
    assert v.counterexample.sides["A(cvt(x))"] != v.counterexample.sides["B(x)"]
    assert dict(B.apply({k: x.get(k, 0) for k in B.in_dim_names})) == v.counterexample.sides["B(x)"]


def test_convert_bad_input():
    with pytest.raises(LayoutError):
        convert(lay([[1, 0]], [[0, 1]]), LL.from_bases({"offset": [[1, 0], [0, 1]]}, ["dim0", "dim1"]))


# ---------------------------------------------------------------- warp shuffles
def test_figure3_shape_two_rounds():
    # 8 elements, 4 lanes x 2 registers, V and I empty (seed 000, Figure 3's shape)
    A = lay([[1]], [[2], [4]], names=("dim0",))
    B = lay([[2]], [[6], [3]], names=("dim0",))
    p = shuffle_plan(A, B)
    assert p.V == () and p.I == ()
    assert p.num_rounds == 2 and p.elems_per_shuffle == 1
    assert all(len(r.send_regs[t]) == 1 for r in p.rounds for t in range(4))
    v = prove_shuffle_plan(p)
    assert v.status == "proved" and v.details["smt"] == "unsat"
    # mutant: one wrong srcLane
    r0 = p.rounds[0]
    src = list(r0.src_lane)
    src[1] = src[1] ^ 1
    bad = p.with_round(0, ShuffleRound(tuple(src), r0.send_regs, r0.recv_regs))
    v = prove_shuffle_plan(bad)
    assert v.status == "refuted"
    ce = v.counterexample
    assert ce.inputs["lane"] == 1 and ce.sides["received (A element)"] != ce.sides["expected (B element)"]


def test_shuffle_vectorised_and_transpositions():
    A = lay([[1], [2]], [[4], [8]], names=("dim0",))
    B = lay([[4], [2]], [[1], [8]], names=("dim0",))
    p = shuffle_plan(A, B, bitwidth=16)
    assert p.elems_per_shuffle == 2 and p.num_rounds == 2 and p.bits_per_shuffle == 32
    assert prove_shuffle_plan(p).status == "proved"
    steps = transposition_decomposition(A, B)
    assert [s.kind for s in steps] == ["register_lane_swap"]
    assert transposition_decomposition(A, A) == ()


@pytest.mark.parametrize("seed", range(12))
def test_random_shuffle_plans_prove(seed):
    rng = random.Random(seed)
    nr, nl, nw = rng.randint(1, 3), 5, rng.randint(0, 2)
    wperm = list(range(nr + nl, nr + nl + nw))
    a = list(range(nr + nl)); rng.shuffle(a)
    b = list(range(nr + nl)); rng.shuffle(b)
    A, B = unit_layout(a + wperm, nr, nl, nw), unit_layout(b + wperm, nr, nl, nw)
    p = shuffle_plan(A, B, bitwidth=rng.choice([8, 16, 32]))
    assert p.num_rounds == 1 << len(p.R)
    v = prove_shuffle_plan(p)
    assert v.status == "proved", v.message


def test_shuffle_rejects_cross_warp():
    A = unit_layout([0, 1, 2, 3, 4, 5, 6], 1, 5, 1)
    B = unit_layout([6, 1, 2, 3, 4, 5, 0], 1, 5, 1)
    with pytest.raises(LayoutError, match="shared memory"):
        shuffle_plan(A, B)


# ---------------------------------------------------------------- vectorisation (Table 2)
def test_table2_f8_contiguity_through_the_inverse():
    # blocked size_per_thread [8, 2], order [1, 0] on a row-major [512, 2] f8 tensor
    L = lay([[0, 1], [1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0], [32, 0], [64, 0], [128, 0]], [[256, 0]])
    assert global_vector_width(L, 8).elems == 16 and global_vector_width(L, 8).bits == 128
    assert fastest_dim_vector_width(L, 8).bits == 16


def test_table2_f16_row():
    # [512, 2] x f16, size_per_thread [4, 2]: 8 elements = 128 bits vs 2 elements = 32 bits
    L = lay([[0, 1], [1, 0], [2, 0]], [[4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], [[128, 0], [256, 0]])
    assert global_vector_width(L, 16).bits == 128
    assert fastest_dim_vector_width(L, 16).bits == 32


def test_vectorisation_after_register_permutation_and_tiles():
    # column-major registers: (1,0) first, then (0,1): permutation puts the contiguous one first
    L = lay([[1, 0], [0, 1], [0, 2]], [[0, 4], [0, 8], [2, 0], [4, 0], [8, 0]])
    v = global_vector_width(L, 32)
    assert v.elems == 4 and v.register_order[:2] == (1, 2)
    S = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, ["dim0", "dim1"])
    t = instruction_tiles(L, S, 16)
    assert t.vector.elems == 4
    # an mma-like register layout: each lane 2 x f16 (4 bytes), lanes 0,1 continue the 16-byte row
    M = lay([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])
    S2 = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0]]}, ["dim0", "dim1"])
    t2 = instruction_tiles(M, S2, 16)
    assert t2.ldmatrix and not t2.ldmatrix_trans
    St = LL.from_bases({"offset": [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2], [0, 4], [8, 0]]}, ["dim0", "dim1"])
    assert instruction_tiles(M, St, 16).ldmatrix_trans


# ---------------------------------------------------------------- broadcast
def test_broadcast_predicate_and_mutants():
    L = lay([[1], [0]], [[2], [0], [0], [4], [0]], [[0], [2]], names=("dim0",))
    p = broadcast_predicate(L)
    assert p.free_masks["register"] == 0b10 and p.free_masks["lane"] == 0b10110 and p.free_masks["warp"] == 0b11
    assert set(p.duplicated_dims) == {"register", "lane", "warp"}
    assert prove_broadcast_store(p).status == "proved"
    drop = prove_broadcast_store(p.with_mask("lane", 0b10111))   # drops the representative of lane bit 0
    assert drop.status == "refuted" and "never stored" in drop.message
    x = dict(drop.counterexample.inputs)
    assert not p.with_mask("lane", 0b10111).keeps(x)
    dup = prove_broadcast_store(p.with_mask("warp", 0b01))      # warp 2 duplicates lane 1 and is kept
    assert dup.status == "refuted"
    ce = dup.counterexample
    assert ce.sides["L(0)"] == ce.sides["L(x)"]


# ---------------------------------------------------------------- gather
def test_gather_warp_local_and_not():
    L = lay([[0, 1], [1, 0]], [[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], [[2, 0]])
    g = gather_plan(L, 1)
    assert g.warp_local and g.rounds_per_register == 2 and g.register_offsets == (0, 1)
    assert prove_gather(g).status == "proved"
    g0 = gather_plan(L, 0)
    assert not g0.warp_local and prove_gather(g0).status == "proved"
    assert prove_gather(dataclasses.replace(g0, warp_local=True)).status == "refuted"
    assert prove_gather(dataclasses.replace(g, warp_local=False)).status == "refuted"


# ---------------------------------------------------------------- shape ops
SHAPE_L = lay([[0, 1], [1, 0]], [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]], [[16, 0]])


@pytest.mark.parametrize("op,kw,direction", [
    ("trans", {"perm": [1, 0]}, "forward"), ("trans", {"perm": [1, 0]}, "backward"),
    ("reshape", {"shape": [4, 8, 8]}, "forward"), ("reshape", {"shape": [16, 16]}, "backward"),
    ("join", {}, "forward"), ("expand_dims", {"axis": 1}, "forward"),
])
def test_shape_ops_are_noops(op, kw, direction):
    v = prove_shape_op(infer_shape_op(op, SHAPE_L, direction, **kw))
    assert v.status == "proved", v.message


def test_split_join_broadcast_roundtrip_and_mutant():
    joined = infer_shape_op("join", SHAPE_L).outputs[0]
    sp = infer_shape_op("split", joined)
    assert sp.outputs[0] == SHAPE_L.transpose_outs(["dim0", "dim1"])
    assert prove_shape_op(sp).status == "proved"
    assert prove_shape_op(infer_shape_op("join", joined, "backward")).status == "proved"
    e = infer_shape_op("expand_dims", SHAPE_L, axis=2).outputs[0]
    assert prove_shape_op(infer_shape_op("broadcast", e, dim=2, size=4)).status == "proved"
    assert prove_shape_op(infer_shape_op("broadcast", infer_shape_op("broadcast", e, dim=2, size=4).outputs[0],
                                         "backward", dim=2)).status == "proved"
    assert prove_shape_op(infer_shape_op("expand_dims", e, "backward", axis=2)).status == "proved"
    plan = infer_shape_op("trans", SHAPE_L, perm=[1, 0])
    wrong = dataclasses.replace(plan, outputs=(SHAPE_L,))   # forgot to transpose
    v = prove_shape_op(wrong)
    assert v.status == "refuted"
    assert v.counterexample.sides["op(output element)"] != v.counterexample.sides["operand element at slot"]
    with pytest.raises(LayoutError):
        infer_shape_op("split", SHAPE_L)


# ---------------------------------------------------------------- swizzle + bank proofs
TRANS_A = lay([[0, 1], [0, 2]], [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], [[4, 0], [8, 0], [16, 0]])
TRANS_B = lay([[0, 1], [1, 0]], [[0, 2], [0, 4], [0, 8], [0, 16], [2, 0]], [[4, 0], [8, 0], [16, 0]])


def test_optimal_swizzle_proved_and_wrong_basis_refuted():
    plan = optimal_swizzle(TRANS_A, TRANS_B, 32)
    assert plan.vector_elems == 2 and plan.layout.is_invertible()
    v = prove_optimal_swizzle(TRANS_A, TRANS_B, 32, plan)
    assert v.status == "proved", v.message
    assert v.details["write_wavefronts"] == v.details["write_lower_bound"]
    # mutant: one index basis replaced by a lane direction of A -> more write wavefronts
    S = plan.layout
    offs = [list(b) for b in S.bases["offset"]]
    offs[-1] = [2, 0]  # a lane basis of A (and a duplicate of nothing else)
    bad = LL([("offset", offs)], list(S.out_dims.items()), require_surjective=False)
    vb = prove_optimal_swizzle(TRANS_A, TRANS_B, 32, dataclasses.replace(plan, layout=bad))
    assert vb.status == "refuted"


def test_swizzle_exhaustive_search_small_tile():
    A = lay([[0, 1]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], names=("dim0", "dim1"))
    B = lay([[0, 1]], [[1, 0], [2, 0], [4, 0], [0, 2], [0, 4]], names=("dim0", "dim1"))
    v = prove_optimal_swizzle(A, B, 32)
    assert v.status == "proved"
    best = v.details["exhaustive_best"]
    assert best is not None and best[0] == v.details["write_wavefronts"] + v.details["read_wavefronts"]


def test_bank_count_column_example_and_subword_hardware_fact():
    acc = lay([[0, 1], [0, 2]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 4], [0, 8], [0, 16]])
    sh = LL.from_bases({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0],
                                   [16, 0]]}, ["dim0", "dim1"])
    v = prove_bank_count(acc, sh, 32)
    assert v.status == "proved" and v.details["wavefronts"] == 32 and v.details["triton_conflicts"] == 7
    assert v.details["simulator_wavefronts"] == 32
    r = prove_bank_count(acc, sh, 32, max_wavefronts=4)
    assert r.status == "refuted" and r.counterexample.sides["bank"] == 0
    # H200 (ncu): 16-bit, lanes 0-15 -> halfword 2l, lanes 16-31 -> 128 + (2l ^ 1): 2 wavefronts.
    # Triton's element-space formula says 0 conflicts (1 wavefront); llverify follows the hardware.
    sub = LL.from_bases({"register": [[1], [32], [64]], "lane": [[2], [4], [8], [16], [129]], "warp": [],
                         "block": []}, ["dim0"])
    flat = LL.from_bases({"offset": [[1 << i] for i in range(8)]}, ["dim0"])
    v = prove_bank_count(sub, flat, 16)
    assert v.status == "proved" and v.details["wavefronts"] == 2
    assert v.details["triton_formula_conflicts"] == 0 and v.details["subword_lane_offsets"]
    # lanes writing the two halves of one word: 1 wavefront
    halves = LL.from_bases({"register": [[32], [64], [128]], "lane": [[1], [2], [4], [8], [16]], "warp": [],
                            "block": []}, ["dim0"])
    assert prove_bank_count(halves, flat, 16).details["wavefronts"] == 1
