"""AMD LDS bank models (CDNA3 gfx942, CDNA4 gfx950): the phase groups as the sources list them, counts derived
by hand from the sources, the closed form (banks_phase) against the brute-force simulator (bank_sim) on random
layouts, and mutant models (wrong bank count, phase width or grouping) that the hand counts catch."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llverify.codegen.bank_model import (AMD_CDNA3, AMD_CDNA4, NVIDIA, BankModel, PhaseRule, bank_model_for_target,
                                         consecutive)
from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks_phase import phase_wavefronts
from llverify.codegen.target_banks import target_wavefronts
from llverify.errors import LayoutError
from llverify.hw import build
from llverify.layout import LinearLayout


def groups(rule: PhaseRule, lanes: int = 64) -> set[frozenset[int]]:
    ids = rule.phase_ids(lanes)
    return {frozenset(l for l in range(lanes) if ids[l] == p) for p in set(ids.tolist())}


def ranges(*spans: tuple[int, int]) -> frozenset[int]:
    return frozenset(l for a, b in spans for l in range(a, b + 1))


# -- the phase groups exactly as the sources list them -----------------------------------------------------

def test_cdna3_ds_read_b128_groups_are_cks() -> None:
    """CK's LDS bank-conflict page: 0:3+20:23, 4:7+16:19, 8:11+28:31, 12:15+24:27 and the same +32."""
    ck = {ranges((0, 3), (20, 23)), ranges((4, 7), (16, 19)), ranges((8, 11), (28, 31)), ranges((12, 15), (24, 27))}
    ck |= {frozenset(l + 32 for l in g) for g in ck}
    candidates = AMD_CDNA3.phase_rules(16, "load")
    assert groups(candidates[0]) == ck
    # Triton's CDNA3 load tile, lane bits {0, 1, 4}: lanes 0:3 with 16:19
    assert ranges((0, 3), (16, 19)) in groups(candidates[1])


def test_cdna3_writes_and_narrow_accesses_are_consecutive() -> None:
    assert groups(AMD_CDNA3.phase_rules(16, "store")[0]) == {ranges((8 * i, 8 * i + 7)) for i in range(8)}
    assert groups(AMD_CDNA3.phase_rules(4, "load")[0]) == {ranges((0, 31)), ranges((32, 63))}
    assert groups(AMD_CDNA3.phase_rules(2, "store")[0]) == {ranges((0, 31)), ranges((32, 63))}
    assert groups(AMD_CDNA3.phase_rules(8, "load")[0]) == {ranges((16 * i, 16 * i + 15)) for i in range(4)}


def test_cdna4_groups_are_hipkittens_measurements() -> None:
    """HipKittens' phase_results.txt (MI355X): ds_read_b128 4 phases of 16, ds_read_b64 2 of 32, ds_write_b64
    4 of 16 consecutive lanes."""
    hk128 = {ranges((0, 3), (12, 15), (20, 23), (24, 27)), ranges((4, 11), (16, 19), (28, 31))}
    hk128 |= {frozenset(l + 32 for l in g) for g in hk128}
    assert groups(AMD_CDNA4.phase_rules(16, "load")[0]) == hk128
    assert ranges((0, 3), (8, 11), (16, 19), (24, 27)) in groups(AMD_CDNA4.phase_rules(16, "load")[1])  # Triton
    assert groups(AMD_CDNA4.phase_rules(8, "load")[0]) == {ranges((0, 31)), ranges((32, 63))}
    assert groups(AMD_CDNA4.phase_rules(8, "store")[0]) == {ranges((16 * i, 16 * i + 15)) for i in range(4)}


@pytest.mark.parametrize("vec_bytes, direction", [(16, "store"), (4, "load"), (4, "store"), (2, "load"),
                                                   (1, "store")])
def test_cdna4_widths_without_evidence_are_refused(vec_bytes: int, direction: str) -> None:
    with pytest.raises(LayoutError, match="not established"):
        AMD_CDNA4.phase_rules(vec_bytes, direction)


def test_targets() -> None:
    assert bank_model_for_target("hip:gfx950") is AMD_CDNA4 and bank_model_for_target("hip:gfx942:sramecc+") is AMD_CDNA3
    for target, why in [("hip:gfx1100", "RDNA"), ("hip:gfx1201", "RDNA"), ("hip:gfx1250", "gfx1250"),
                        ("hip:gfx906", "modelled are")]:
        with pytest.raises(LayoutError, match=why):
            bank_model_for_target(target)
    with pytest.raises(LayoutError, match="direction"):
        AMD_CDNA3.phase_rules(16, "both")


def test_lane_count_must_match_the_wave() -> None:
    """A wave32 access (an RDNA-style layout) is not counted with a wave64 model."""
    acc = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [32, 32], vec=1, per_phase=1, max_phase=1, order=[1, 0])
    with pytest.raises(LayoutError, match="32 lanes"):
        target_wavefronts(acc, sh, 32, "hip:gfx950")
    with pytest.raises(LayoutError, match="32 lanes"):
        phase_wavefronts(acc, sh, 32, AMD_CDNA3)


# -- counts derived by hand from the sources; the mutants fail them ----------------------------------------

ROW_MAJOR = dict(vec=1, per_phase=1, max_phase=1, order=[1, 0])


def _cdna3_distinguishing() -> tuple[LinearLayout, LinearLayout]:
    """f16 [16, 32] row-major (64-byte rows); lane bits 0, 1 -> 16-byte chunks 1, 2 of a row, bit 2 -> 2 rows
    (128 B: word 32, bank 0), bit 3 -> 4 rows, bit 4 -> 1 row (64 B: word 16), bit 5 -> 8 rows."""
    acc = LinearLayout([("register", [[0, 1], [0, 2], [0, 4]]),
                        ("lane", [[0, 8], [0, 16], [2, 0], [4, 0], [1, 0], [8, 0]]),
                        ("warp", []), ("block", [])], [("dim0", 16), ("dim1", 32)])
    return acc, build("swizzled_shared", [16, 32], **ROW_MAJOR)


def documented_counts(model: BankModel, wide: BankModel) -> None:
    """Hand counts from the sources.  ``model`` plays CDNA3, ``wide`` CDNA4; a mutant of either fails here."""
    # CDNA3 ds_write_b128, 16-byte chunks along 128-byte rows: each 8-lane phase covers 32 banks once (CK).
    acc = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [64, 64], **ROW_MAJOR)
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 16, model, "store").counts] == [8]
    # ... and f32 chunks down a column of 256-byte rows: the 8 lanes of a phase hit the same 4 banks at 8 words
    # each (8 wavefronts), 8 phases.
    col = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[0, 1])
    assert [c.wavefronts for c in phase_wavefronts(col, sh, 32, model, "store").counts] == [64]
    # CDNA3 ds_read_b32 of 64 consecutive words: two half-wave phases (OpenCL guide).
    acc = build("blocked", [64, 64], size_per_thread=[1, 1], threads_per_warp=[1, 64], warps_per_cta=[1, 1],
                order=[1, 0])
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 32, model, "load").counts] == [2]
    # CDNA3 ds_read_b128 where lanes 0 and 4 share bank 0 (128 B apart) but lanes 0 and 20 do not (192 B):
    # CK's groups (0:3+20:23) and Triton's (0:3+16:19, lane 16 at 64 B) are both conflict-free: 8 phases x 1.
    acc, sh16 = _cdna3_distinguishing()
    assert [c.wavefronts for c in phase_wavefronts(acc, sh16, 16, model, "load").counts] == [8, 8]
    # CDNA4 ds_read_b64 along a 512-byte row: 32 lanes x 8 B = 256 B = 64 banks once per phase, 2 phases.
    acc = build("blocked", [8, 256], size_per_thread=[1, 4], threads_per_warp=[1, 64], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [8, 256], **ROW_MAJOR)
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 16, wide, "load").counts] == [2]
    # CDNA4 ds_write_b64 of the same: 16-lane phases (128 B each), 4 phases.
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 16, wide, "store").counts] == [4]
    # CDNA4 ds_read_b128 along 128-byte rows: HipKittens' groups (0:3+12:15+20:23+24:27) touch 4 rows x 64 B
    # without a conflict (4 phases); Triton's (lanes 0 and 16: two rows 256 B apart, bank 0) conflict 2-way.
    acc = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [64, 64], **ROW_MAJOR)
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 16, wide, "load").counts] == [4, 8]
    # CDNA4 ds_read_b128 where lane 4 is 16 words from lane 0, lane 8 64 words (bank 0 again) and lane 16 48
    # words: HipKittens' generators 12 (words 80 = bank 16) and 20 (words 32) keep 16 lanes on 64 distinct banks
    # (4 phases x 1); Triton's 8 and 16, and 16 consecutive lanes, both include lane 8 (bank 0 twice): 8.
    acc = LinearLayout([("register", [[0, 1], [0, 2], [0, 4]]),
                        ("lane", [[0, 8], [0, 16], [0, 32], [1, 0], [0, 96], [2, 0]]),
                        ("warp", [[4, 0]]), ("block", [])], [("dim0", 8), ("dim1", 128)])
    sh = build("swizzled_shared", [8, 128], **ROW_MAJOR)
    assert [c.wavefronts for c in phase_wavefronts(acc, sh, 16, wide, "load").counts] == [4, 8]


def test_documented_counts_hold() -> None:
    documented_counts(AMD_CDNA3, AMD_CDNA4)


def _with_rule(model: BankModel, direction: str, vec_bytes: int, *rules: PhaseRule) -> BankModel:
    kept = tuple(r for r in model.rules if (r[0], r[1]) != (direction, vec_bytes))
    return dataclasses.replace(model, rules=kept + ((direction, vec_bytes, tuple(rules)),))


MUTANTS = {
    "cdna3 with 64 banks": (dataclasses.replace(AMD_CDNA3, banks=64), AMD_CDNA4),
    "cdna3 ds_read_b128 on 8 consecutive lanes (the old model)":
        (_with_rule(AMD_CDNA3, "load", 16, consecutive(8, "mutant")), AMD_CDNA4),
    "cdna3 ds_write_b128 on 16 lanes": (_with_rule(AMD_CDNA3, "store", 16, consecutive(16, "mutant")), AMD_CDNA4),
    "cdna4 with 32 banks": (AMD_CDNA3, dataclasses.replace(AMD_CDNA4, banks=32)),
    "cdna4 ds_write_b64 on 32 lanes": (AMD_CDNA3, _with_rule(AMD_CDNA4, "store", 8, consecutive(32, "mutant"))),
    "cdna4 ds_read_b64 on 16 lanes": (AMD_CDNA3, _with_rule(AMD_CDNA4, "load", 8, consecutive(16, "mutant"))),
    "cdna4 ds_read_b128 on 16 consecutive lanes":
        (AMD_CDNA3, _with_rule(AMD_CDNA4, "load", 16, consecutive(16, "mutant"), *AMD_CDNA4.phase_rules(16)[1:])),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_models_are_caught(name: str) -> None:
    with pytest.raises(AssertionError):
        documented_counts(*MUTANTS[name])


# -- closed form == brute-force simulator, random layouts --------------------------------------------------

@st.composite
def access_cases(draw, lanes: int, wide: bool = False):
    """A row-major or swizzled shared buffer and a random bijective access: the tensor's unit bases shuffled
    into registers / lanes / warps, some lane bases XOR-ed with others (still a bijection).  ``wide``: 16- or
    32-bit elements with 2-3 contiguous registers (the 8- and 16-byte accesses gfx950's rules cover)."""
    r_log, c_log = draw(st.integers(3, 6)), draw(st.integers(3, 7))
    lane_bits = lanes.bit_length() - 1
    n = r_log + c_log
    if n < lane_bits + 2:
        c_log += lane_bits + 2 - n
        n = r_log + c_log
    units = [[0, 1 << i] for i in range(c_log)] + [[1 << i, 0] for i in range(r_log)]
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n_reg = draw(st.integers(2 if wide else 0, min(3, n - lane_bits)))
    vec_first = wide or draw(st.booleans())
    if vec_first:  # keep the low column bits in registers so wide vectors occur
        regs, rest = units[:n_reg], units[n_reg:]
    else:
        rng.shuffle(units)
        regs, rest = units[:n_reg], units[n_reg:]
    rng.shuffle(rest)
    lane = [list(b) for b in rest[:lane_bits]]
    warp = rest[lane_bits:]
    for i in range(1, len(lane)):
        if rng.random() < 0.3:
            j = rng.randrange(i)
            lane[i] = [lane[i][0] ^ lane[j][0], lane[i][1] ^ lane[j][1]]
    shape = [1 << r_log, 1 << c_log]
    acc = LinearLayout([("register", regs), ("lane", lane), ("warp", warp), ("block", [])],
                       [("dim0", shape[0]), ("dim1", shape[1])])
    vec = draw(st.sampled_from([8] if wide else [1, 2, 4, 8]))
    mp = draw(st.sampled_from([1, 2, 4, 8]))
    shared = build("swizzled_shared", shape, vec=vec, per_phase=draw(st.sampled_from([1, 2])), max_phase=mp,
                   order=[1, 0] if wide else draw(st.sampled_from([[1, 0], [0, 1]])))
    bits = draw(st.sampled_from([16, 32] if wide else [8, 16, 32]))
    return acc, shared, bits


def _agree(acc: LinearLayout, shared: LinearLayout, bits: int, model: BankModel, direction: str) -> bool:
    try:
        pc = phase_wavefronts(acc, shared, bits, model, direction)
    except LayoutError as exc:
        assert "not established" in str(exc)
        return False
    sim = simulate_wavefronts(acc, shared, bits, pc.vector, model=model, direction=direction)
    assert [(c.source, c.wavefronts, c.wavefronts) for c in pc.counts] == list(sim.per_rule)
    return True


@settings(max_examples=60, deadline=None)
@given(access_cases(64), st.sampled_from(["load", "store"]))
def test_closed_form_equals_simulator_cdna3(case, direction: str) -> None:
    assert _agree(*case, AMD_CDNA3, direction)


@settings(max_examples=60, deadline=None)
@given(access_cases(64, wide=True), st.sampled_from(["load", "store"]))
def test_closed_form_equals_simulator_cdna4(case, direction: str) -> None:
    assume(_agree(*case, AMD_CDNA4, direction))  # widths without an established rule are skipped


@st.composite
def random_models(draw):
    lanes = draw(st.sampled_from([32, 64]))
    gens = tuple(draw(st.lists(st.integers(1, lanes - 1), min_size=0, max_size=5)))
    rule = PhaseRule(gens, "random")
    model = BankModel("random", draw(st.sampled_from([16, 32, 64])), draw(st.sampled_from([4, 8])), lanes, "random",
                      rules=tuple((d, v, (rule,)) for d in ("load", "store") for v in (1, 2, 4, 8, 16)),
                      generic=False)
    return model, draw(access_cases(lanes))


@settings(max_examples=60, deadline=None)
@given(random_models())
def test_closed_form_equals_simulator_any_phase_rule(m) -> None:
    """The generalised lemma for any bank count, bank width, wave size and phase subspace."""
    model, case = m
    assert _agree(*case, model, "load")


def test_simulator_equals_a_per_lane_walk() -> None:
    """The simulator against a loop over lanes that decides phase membership by brute force (closure of the
    generators under XOR), on the documented distinguishing layouts."""
    for model, (acc, sh), bits in [(AMD_CDNA3, _cdna3_distinguishing(), 16),
                                   (AMD_CDNA4, (build("blocked", [64, 64], size_per_thread=[1, 8],
                                                      threads_per_warp=[8, 8], warps_per_cta=[1, 1], order=[1, 0]),
                                                build("swizzled_shared", [64, 64], vec=8, per_phase=1,
                                                      max_phase=4, order=[1, 0])), 16)]:
        sim = simulate_wavefronts(acc, sh, bits, model=model, direction="load")
        vec = sim.vector.elems
        where = {}
        for off in range(sh.in_dim_size("offset")):
            e = sh.apply(offset=off, block=0)
            where[(e["dim0"], e["dim1"])] = off
        for rule, (_, most, least) in zip(model.phase_rules(vec * bits // 8, "load"), sim.per_rule):
            span = {0}
            for g in rule.generators:
                span |= {s ^ g for s in span}
            counts = []
            for g in range(acc.in_dim_size("register") // vec):
                total = 0
                done: set[int] = set()
                for lane in range(64):
                    if lane in done:
                        continue
                    phase = {lane ^ s for s in span}
                    done |= phase
                    banks: dict[int, set[int]] = {}
                    for l in phase:
                        e = acc.apply(register=g * vec, lane=l, warp=0, block=0)
                        start = where[(e["dim0"], e["dim1"])] * bits // 8
                        for word in range(start // 4, (start + vec * bits // 8 - 1) // 4 + 1):
                            banks.setdefault(word % model.banks, set()).add(word)
                    total += max(len(s) for s in banks.values())
                counts.append(total)
            assert (max(counts), min(counts)) == (most, least)


def test_nvidia_unchanged() -> None:
    """The NVIDIA model keeps one generic rule per width (consecutive lanes), whatever the direction."""
    for v, d in itertools.product((1, 2, 4, 8, 16), ("load", "store")):
        (rule,) = NVIDIA.phase_rules(v, d)
        assert rule.lanes_per_phase == NVIDIA.lanes_per_phase(v)
