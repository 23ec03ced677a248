"""AMD CDNA3 LDS bank model: documented facts, an independent per-lane simulation, and the gate on gfx942."""

from __future__ import annotations

import itertools
import random

import pytest

from llverify.codegen.bank_model import AMD_CDNA3, NVIDIA, bank_model_for_target
from llverify.errors import LayoutError
from llverify.hw.registry import build
from llverify.layout import LinearLayout
from llverify.ttgir.rule_support import bank_count_simulated as _bank_count_simulated


def naive_wavefronts(access: LinearLayout, shared: LinearLayout, bits: int, vec: int, rule) -> list[int]:
    """Per-instruction wavefronts by walking lanes one by one under one of AMD_CDNA3's store rules (phase
    membership by ``rule.phase_of``, sub-word units under a ``split_words`` rule), no numpy, no layout algebra
    beyond evaluation: every element's offset comes from a table of the shared layout."""
    where = {}
    for off in range(shared.in_dim_size("offset")):
        e = shared.apply(offset=off, block=0)
        where[tuple(e[d] for d in sorted(e))] = off
    nreg, nlane = access.in_dim_size("register"), access.in_dim_size("lane")
    nwarp = access.in_dim_size("warp")
    vec_bytes = vec * bits // 8
    unit = vec_bytes if rule.split_words and vec_bytes < 4 else 4
    phases: dict[int, list[int]] = {}
    for lane in range(nlane):
        phases.setdefault(rule.phase_of(lane), []).append(lane)
    out = []
    for w, g in itertools.product(range(nwarp), range(nreg // vec)):
        total = 0
        for members in phases.values():
            banks: dict[int, set[int]] = {}
            for lane in members:
                e = access.apply(register=g * vec, lane=lane, warp=w, block=0)
                start = where[tuple(e[d] for d in sorted(e))] * bits // 8
                for u in range(start // unit, (start + max(vec_bytes, 1) - 1) // unit + 1):
                    banks.setdefault(u * unit // 4 % 32, set()).add(u)
            total += max(len(s) for s in banks.values())
        out.append(total)
    return out


def test_targets() -> None:
    assert bank_model_for_target("hip:gfx942") is AMD_CDNA3 and bank_model_for_target("cuda:100") is NVIDIA
    with pytest.raises(LayoutError, match="gfx1250"):
        bank_model_for_target("hip:gfx1250")
    assert [AMD_CDNA3.lanes_per_phase(b) for b in (2, 4, 8, 16)] == [32, 32, 16, 8]


def _row_major(shape):
    return build("swizzled_shared", shape, vec=1, per_phase=1, max_phase=1, order=[1, 0])


def test_documented_facts() -> None:
    # ds_write_b128 of consecutive 16-byte chunks: 8 conflict-free phases of 8 lanes (CK's LDS notes)
    acc = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    v = _bank_count_simulated(acc, _row_major([64, 64]), 16, None, AMD_CDNA3, "store")
    assert v.status == "proved" and v.details["wavefronts"] == 8 and v.details["vector_bits"] == 128
    # 32-bit accesses of consecutive words: two half-wave phases, conflict-free
    acc = build("blocked", [64, 64], size_per_thread=[1, 1], threads_per_warp=[1, 64], warps_per_cta=[1, 1],
                order=[1, 0])
    v = _bank_count_simulated(acc, _row_major([64, 64]), 32, None, AMD_CDNA3, "load")
    assert v.details["wavefronts"] == 2
    # a column of f32 (stride 64 words): 32 lanes of a phase in one bank, twice
    acc = build("blocked", [64, 64], size_per_thread=[1, 1], threads_per_warp=[64, 1], warps_per_cta=[1, 1],
                order=[0, 1])
    v = _bank_count_simulated(acc, _row_major([64, 64]), 32, None, AMD_CDNA3, "load")
    assert v.details["wavefronts"] == 64


@pytest.mark.parametrize("seed", range(12))
def test_model_equals_independent_per_lane_simulation(seed) -> None:
    rng = random.Random(seed)
    shape = [rng.choice([16, 32, 64]), rng.choice([16, 32, 64])]
    tpw = rng.choice([[8, 8], [4, 16], [16, 4], [1, 64], [64, 1], [2, 32]])
    spt = rng.choice([[1, 1], [1, 2], [1, 4], [1, 8], [2, 1], [4, 1]])
    order = rng.choice([[1, 0], [0, 1]])
    acc = build("blocked", shape, size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=[1, 1], order=order)
    vec = rng.choice([1, 2, 4, 8])
    mp = rng.choice([1, 2, 4, 8])
    shared = build("swizzled_shared", shape, vec=vec, per_phase=rng.choice([1, 2]), max_phase=mp,
                   order=rng.choice([[1, 0], [0, 1]]))
    bits = rng.choice([16, 32])
    v = _bank_count_simulated(acc, shared, bits, None, AMD_CDNA3, "store")
    assert v.status == "proved"
    vec = v.details["vector_bits"] // bits
    naive = [naive_wavefronts(acc, shared, bits, vec, r)
             for r in AMD_CDNA3.phase_rules(max(1, vec * bits // 8), "store")]
    assert max(map(max, naive)) == v.details["wavefronts"] and min(map(min, naive)) == v.details["min_wavefronts"]
