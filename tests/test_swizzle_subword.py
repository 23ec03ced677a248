"""Optimal swizzles for sub-word vectors (8- and 16-bit, below 32 bits): decided by the distinct-word bound
(issue 13, item 2; llverify.prove.plan_swizzle.distinct_word_bound)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from llverify import f2
from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import bank_wavefronts
from llverify.codegen.swizzle import flat_to_layout, optimal_swizzle
from llverify.hw import blocked, swizzled_shared
from llverify.prove.plan_swizzle import prove_optimal_swizzle
from llverify.prove.plan_swizzle import distinct_word_bound


def _b(shape, spt, tpw, wpc, order):
    return blocked(size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc, order=order, shape=shape)


ROWS = _b([32, 32], [1, 1], [1, 32], [4, 1], [1, 0])      # lanes along a row
COLS = _b([32, 32], [1, 1], [32, 1], [1, 4], [0, 1])      # lanes down a column: a transpose


def _simulated(L, S, bw, elems):
    return simulate_wavefronts(L, S, bw, bank_wavefronts(L, S, bw, elems).vector).wavefronts


@pytest.mark.parametrize("bw", [8, 16])
def test_subword_transpose_swizzle_is_proved_optimal(bw):
    plan = optimal_swizzle(ROWS, COLS, bw)
    assert not plan.lemma_applies                           # 1 element per lane, below 32 bits
    v = prove_optimal_swizzle(ROWS, COLS, bw, plan)
    assert v.status == "proved", v.message
    assert v.details["distinct_word_bounds"] == {"write": 1, "read": 1}   # 32 x bw/8 bytes <= 128
    # ground truth, independently of the proof: the brute-force simulator
    assert _simulated(ROWS, plan.layout, bw, plan.vector_elems) == 1
    assert _simulated(COLS, plan.layout, bw, plan.vector_elems) == 1


def test_subword_unswizzled_mutant_is_refuted_with_a_replayed_witness():
    plan = optimal_swizzle(ROWS, COLS, 16)
    plain = swizzled_shared(vec=1, per_phase=1, max_phase=1, order=[1, 0], shape=[32, 32])
    v = prove_optimal_swizzle(ROWS, COLS, 16, dataclasses.replace(plan, layout=plain))
    assert v.status == "refuted", v.message
    cx = v.counterexample
    assert cx.inputs["side"] == "read"
    witness = flat_to_layout([int(sum(c << s for c, s in zip(b, (0, 5)))) for b in cx.sides["witness offset_bases"]],
                             ROWS)
    # replay: both swizzles counted again by the simulator, the witness does better
    assert _simulated(COLS, plain, 16, 1) == cx.sides["plan wavefronts (simulated)"] == 16
    assert _simulated(COLS, witness, 16, 1) == cx.sides["witness wavefronts (simulated)"] == 1


def test_the_bound_is_a_bound_for_random_swizzles():
    """Cross-check: no random invertible placement beats distinct_word_bound (each simulated exactly)."""
    rng = random.Random(5)
    A = _b([16, 16], [1, 1], [4, 8], [1, 4], [1, 0])       # 8 registers, 32 distinct lanes
    checked = 0
    for bw in (8, 16):
        bound = distinct_word_bound(A, bw, 1)
        assert bound == 1
        for _ in range(40):
            cols: list[int] = []
            while len(cols) < 8:                            # a random invertible offset -> tensor map
                c = rng.randrange(1, 256)
                if f2.is_independent(cols + [c]):
                    cols.append(c)
            S = flat_to_layout(cols, A)
            rep = bank_wavefronts(A, S, bw, 1)
            assert rep.vector.bits < 32
            assert simulate_wavefronts(A, S, bw, rep.vector).wavefronts >= bound
            checked += 1
    assert checked == 80


def test_the_bound_is_one_wavefront_below_32_bits_and_the_phase_count_above():
    """A sub-word instruction touches at most 32 x 2 bytes, so the bound is 1 (conflict-free); with 64- and
    128-bit vectors of distinct lanes it is the number of 128-byte phases, lemma 9.4's minimum."""
    A = _b([32, 64], [1, 8], [8, 4], [4, 1], [1, 0])        # 8 consecutive elements per thread
    assert [distinct_word_bound(A, 8, v) for v in (1, 2)] == [1, 1]
    assert distinct_word_bound(A, 16, 1) == 1
    assert [distinct_word_bound(A, 16, v) for v in (2, 4, 8)] == [1, 2, 4]
    bcast = _b([16, 16], [1, 1], [16, 2], [1, 4], [0, 1])  # lanes 16..31 copy lanes 0..15
    assert distinct_word_bound(bcast, 32, 1) == 1
