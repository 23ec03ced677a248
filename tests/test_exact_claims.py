"""Exact bank claims and conversion classification claims (issue 13): both ways, with replayed witnesses."""

from __future__ import annotations

import pytest

from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.swizzle import optimal_swizzle
from llverify.hw.registry import build
from llverify.prove.bank_claims import bank_claims
from llverify.prove.conversion_claims import conversion_claims
from llverify.prove.plan_banks import prove_bank_count
from llverify.prove.properties import conversion

ACC = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0])
PLAIN = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
# a conflict-free shared layout for ACC's 128-bit vectors: llverify's optimal swizzle (4 phases, 4 wavefronts)
SWZ = optimal_swizzle(ACC, ACC, 16).layout


def _count(shared):
    v = prove_bank_count(ACC, shared, 16)
    assert v.status == "proved"
    return v, simulate_wavefronts(ACC, shared, 16).max_wavefronts


def test_exact_count_both_ways() -> None:
    v, n = _count(SWZ)
    assert bank_claims(v, ACC, SWZ, 16, wavefronts=n).status == "proved"
    for off in (-1, 1):  # an exact count off by one is refuted, either way
        r = bank_claims(v, ACC, SWZ, 16, wavefronts=n + off)
        assert r.status == "refuted" and r.counterexample is not None
    low = bank_claims(v, ACC, SWZ, 16, wavefronts=n + 1)
    assert low.counterexample.sides["simulated wavefronts"] == n  # "needs fewer": the simulator's count


def test_conflict_free_and_witness_lanes_collide() -> None:
    v, n = _count(SWZ)
    assert bank_claims(v, ACC, SWZ, 16, conflict_free=True).status == "proved"
    v2, n2 = _count(PLAIN)
    r = bank_claims(v2, ACC, PLAIN, 16, conflict_free=True)
    assert r.status == "refuted"
    a, b = r.counterexample.inputs["lane_a"], r.counterexample.inputs["lane_b"]
    # replay on the layouts: both lanes' first vectors (register 0, warp 0) hit one bank at different words
    def word(lane):
        e = ACC.apply(register=0, lane=lane, warp=0, block=0)
        for off in range(4096):
            if PLAIN.apply(offset=off, block=0) == e:  # the shared layout, searched exhaustively
                return off * 2 // 4
    wa, wb = word(a), word(b)
    assert a != b and wa % 32 == wb % 32 and wa != wb


def test_max_wavefronts_without_conflict_has_a_real_witness() -> None:
    """The old placeholder 'lane 0 vs lane 0': a conflict-free 128-bit access refuted with max_wavefronts: 1
    must name one lane per phase, not a fake collision."""
    v, n = _count(SWZ)
    assert n == v.details["phases"] > 1
    r = bank_claims(v, ACC, SWZ, 16, max_wavefronts=1)
    assert r.status == "refuted"
    lanes = list(r.counterexample.inputs.values())
    assert len(set(lanes)) == len(lanes) == v.details["phases"]
    assert lanes != [0, 0]


BLOCKED = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0])
MMA = build("nvidia_mma", [64, 64], version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])


def test_conversion_via() -> None:
    v = conversion(BLOCKED, MMA)
    assert conversion_claims(v, BLOCKED, MMA, via="shared").status == "proved"
    r = conversion_claims(v, BLOCKED, MMA, via=["register", "shuffle"])
    assert r.status == "refuted"
    x = dict(r.counterexample.inputs)
    src = r.counterexample.sides["comes from"]
    assert dict(MMA.apply(**x)) == dict(BLOCKED.apply(**src)) and src != x  # replayed
    assert conversion_claims(v, BLOCKED, MMA, max_shared_bytes=1 << 20).status == "proved"
    assert conversion_claims(v, BLOCKED, MMA, max_shared_bytes=1024).status == "refuted"
    assert conversion_claims(v, BLOCKED, MMA, via="teleport").status == "error"


def test_conversion_round_and_wavefront_bounds_are_refutable_both_ways() -> None:
    """`max_rounds` (warp shuffles) and `max_wavefronts` (through the optimal swizzle): the real cost proves,
    one below it is refuted with the recomputed numbers; other classes are not constrained."""
    from llverify.hw import build
    from llverify.prove.conversion_claims import conversion_claims
    from llverify.prove.properties import conversion

    lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    A = build("linear", [32, 4], reg_bases=[[0, 1], [0, 2]], lane_bases=lanes, warp_bases=[], block_bases=[])
    B = build("linear", [32, 4], reg_bases=[[0, 1], [0, 2]], lane_bases=lanes[::-1], warp_bases=[], block_bases=[])
    v = conversion(A, B)
    assert conversion_claims(v, A, B, max_rounds=2).status == "proved"
    bad = conversion_claims(v, A, B, max_rounds=1)
    assert bad.status == "refuted" and bad.counterexample.sides["rounds"] == 2
    row = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
                order=[1, 0])
    col = build("blocked", [64, 64], size_per_thread=[4, 1], threads_per_warp=[4, 8], warps_per_cta=[1, 4],
                order=[0, 1])
    w = conversion(row, col)
    assert conversion_claims(w, row, col, max_wavefronts=2, bits=16).status == "proved"
    over = conversion_claims(w, row, col, max_wavefronts=1, bits=16)
    assert over.status == "refuted" and over.counterexample.sides["store"] == 2
    assert conversion_claims(w, row, col, max_rounds=0).status == "proved"  # not a shuffle: no rounds claimed
