"""The word structure of ``llverify.codegen.shuffle_plan`` (seed 000, section 5.4): affine maps, packing, warps."""

from __future__ import annotations

import dataclasses
import random

import pytest

from llverify.codegen.shuffle import LaneMap, shuffle_plan, transposition_packing
from llverify.prove.plan_shuffle import prove_shuffle_plan
from tests.test_codegen_plans import lay, unit_layout


def _fig3():
    # 8 elements, 4 lanes x 2 registers, V and I empty (Figure 3's shape)
    return lay([[1]], [[2], [4]], names=("dim0",)), lay([[2]], [[6], [3]], names=("dim0",))


def test_figure3_word_structure_by_hand():
    """Two rounds; S swaps the lane bits; the sent / received word follow lane bit 0 (worked out on paper)."""
    A, B = _fig3()
    p = shuffle_plan(A, B)
    assert p.num_rounds == 2 and p.elems_per_word == 1 and p.warp_uniform
    assert p.a_words == ((0,), (1,)) and p.b_words == ((0,), (1,))
    assert p.linear_part("src_lane") == (2, 1)          # src_lane(u) = c_k ^ swap(u0, u1)
    assert p.linear_part("send_word") == (1, 0) and p.linear_part("recv_word") == (1, 0)
    assert [w.src_lane.c0 for w in p.word_rounds] == [0, 1]
    # lane u of B holds element B(r, u); in A element x sits at register x & 1, lane x >> 1
    for k, w in enumerate(p.word_rounds):
        for u in range(4):
            r = w.recv_word.at(u)
            x = (2 if r else 0) ^ (6 if u & 1 else 0) ^ (3 if u & 2 else 0)
            t = w.src_lane.at(u)
            assert (x >> 1, x & 1) == (t, w.send_word.at(t))
    assert prove_shuffle_plan(p).status == "proved"


def test_a_wrong_word_map_is_refuted():
    """Mutant: one constant of the sent-word map flipped; the tables stay right, the structure does not."""
    A, B = _fig3()
    p = shuffle_plan(A, B)
    w0 = p.word_rounds[0]
    bad = p.with_word_round(0, dataclasses.replace(w0, send_word=LaneMap(w0.send_word.c0 ^ 1, w0.send_word.cols)))
    v = prove_shuffle_plan(bad)
    assert v.status == "refuted" and "word structure" in v.message
    assert v.counterexample.inputs["round"] == 0
    # and a wrong source-lane map
    bad = p.with_word_round(1, dataclasses.replace(p.word_rounds[1], src_lane=LaneMap(0, (1, 2))))
    assert prove_shuffle_plan(bad).status == "refuted"


def test_packing_puts_v_in_one_word():
    """f16: the common register bit is V, two elements travel in one 32-bit word, both sides agree."""
    A = lay([[1], [2]], [[4], [8]], names=("dim0",))
    B = lay([[4], [2]], [[1], [8]], names=("dim0",))
    p = shuffle_plan(A, B, bitwidth=16)
    assert p.V == (2,) and p.elems_per_word == 2
    assert p.a_words == ((0, 2), (1, 3)) and p.b_words == ((0, 2), (1, 3))   # V is register bit 1 in both
    assert prove_shuffle_plan(p).status == "proved"
    assert transposition_packing(A, B, 16) == (1,)      # the swap touches register bit 0 only: bit 1 packs
    assert transposition_packing(A, B, 32) == ()        # one f32 per word


@pytest.mark.parametrize("seed", range(16))
def test_random_plans_have_round_independent_linear_parts(seed):
    rng = random.Random(100 + seed)
    nr, nl, nw = rng.randint(1, 3), 5, rng.randint(0, 2)
    wperm = list(range(nr + nl, nr + nl + nw))
    a = list(range(nr + nl)); rng.shuffle(a)
    b = list(range(nr + nl)); rng.shuffle(b)
    A, B = unit_layout(a + wperm, nr, nl, nw), unit_layout(b + wperm, nr, nl, nw)
    p = shuffle_plan(A, B, bitwidth=rng.choice([8, 16, 32]))
    for f in ("src_lane", "send_word", "recv_word", "word_perm"):
        assert p.linear_part(f) is not None
    assert p.warp_uniform
    assert prove_shuffle_plan(p).status == "proved"


def test_warp_uniformity_is_stated_and_checked():
    """warp_uniform reads the warp bases; the proof runs every warp, so a plan claiming more is refuted there."""
    A = unit_layout([0, 1, 2, 3, 4, 5, 6], 1, 5, 1)
    B = unit_layout([1, 0, 2, 3, 4, 5, 6], 1, 5, 1)
    p = shuffle_plan(A, B)
    assert p.warp_uniform and prove_shuffle_plan(p).certificate["points"] == 2 * 32 * 2
