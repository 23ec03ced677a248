"""AMD LDS bank models (CDNA3 gfx942, CDNA4 gfx950, RDNA3 gfx1100, RDNA4 gfx1201).

What is checked, and against what:

* the phase groups, exactly as the measurements and documents list them (lane sets written out here);
* measured counts as test vectors, the access patterns written in our own words: the rocprof
  ``SQ_LDS_BANK_CONFLICT`` counts per strided ``ds_read`` on MI300X (nod-ai/amd-shark-ai
  ``docs/empirical-lds/cdna3info.md``), the stride at which the latency saturates (shark-ai, MI350X / W7900 /
  RX 9070 XT), the two-lane bank-wrap and lane-pair phase experiments (HipKittens on MI355X, shark-ai, pyhip on
  MI300) and the conflicted transpose read of CK's bank-conflict tutorial 01 (MI300);
* mutant models (wrong bank count, phase width or grouping, the previous model's 64-bank ``ds_write_b64``) that
  those vectors catch;
* the closed form (``banks_phase``) against the brute-force simulator (``bank_sim``) on random layouts, for every
  model, rule and per-rule bank count.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from llverify.codegen.bank_model import (AMD_CDNA3, AMD_CDNA4, AMD_RDNA3, AMD_RDNA4, NVIDIA, BankModel, PhaseRule,
                                         bank_model_for_target, consecutive)
from llverify.codegen.bank_sim import simulate_addresses, simulate_wavefronts
from llverify.codegen.banks_phase import phase_wavefronts
from llverify.codegen.target_banks import target_wavefronts
from llverify.errors import LayoutError
from llverify.hw import build
from llverify.layout import LinearLayout

MODELS = {"cdna3": AMD_CDNA3, "cdna4": AMD_CDNA4, "rdna3": AMD_RDNA3, "rdna4": AMD_RDNA4}


def groups(rule: PhaseRule, lanes: int = 64) -> set[frozenset[int]]:
    ids = rule.phase_ids(lanes)
    return {frozenset(l for l in range(lanes) if ids[l] == p) for p in set(ids.tolist())}


def ranges(*spans: tuple[int, int]) -> frozenset[int]:
    return frozenset(l for a, b in spans for l in range(a, b + 1))


def plus32(gs: set[frozenset[int]]) -> set[frozenset[int]]:
    return gs | {frozenset(l + 32 for l in g) for g in gs}


def consecutive_groups(k: int, lanes: int = 64) -> set[frozenset[int]]:
    return {ranges((a, a + k - 1)) for a in range(0, lanes, k)}


CK_READ = plus32({ranges((0, 3), (20, 23)), ranges((4, 7), (16, 19)), ranges((8, 11), (28, 31)),
                  ranges((12, 15), (24, 27))})
CDNA4_READ = plus32({ranges((0, 3), (12, 15), (20, 23), (24, 27)), ranges((4, 11), (16, 19), (28, 31))})


# -- the phase groups as the sources list them ---------------------------------------------------------------

def test_cdna3_groups() -> None:
    """MI300X (shark-ai, pyhip: measured) and CK / dh_comms (stated)."""
    (read128,) = AMD_CDNA3.phase_rules(16, "load")
    assert groups(read128) == CK_READ
    assert [groups(r) for r in AMD_CDNA3.phase_rules(16, "store")] == [consecutive_groups(8), CK_READ]
    for d in ("load", "store"):
        assert [groups(r) for r in AMD_CDNA3.phase_rules(8, d)] == [consecutive_groups(16)]
        assert [groups(r) for r in AMD_CDNA3.phase_rules(4, d)] == [consecutive_groups(32)]
        for v in (1, 2):   # dh_comms (distinct words) and the CK deck's R2 (distinct sub-word addresses)
            assert [(groups(r), r.split_words) for r in AMD_CDNA3.phase_rules(v, d)] == [
                (consecutive_groups(32), False), (consecutive_groups(32), True)]


def test_cdna4_groups_and_banks() -> None:
    """MI355X / MI350X: HipKittens and shark-ai (measured), rocRoller (stated)."""
    def rules(v: int, d: str) -> list[tuple[set[frozenset[int]], int, bool]]:
        return [(groups(r), AMD_CDNA4.banks_of(r), r.split_words) for r in AMD_CDNA4.phase_rules(v, d)]

    whole = consecutive_groups(64)
    assert rules(16, "load") == [(CDNA4_READ, 64, False)]
    assert rules(8, "load") == [(consecutive_groups(32), 64, False)]
    assert rules(4, "load") == [(whole, 64, False), (whole, 32, False)]
    assert rules(4, "store") == [(consecutive_groups(32), 32, False)]
    for v in (1, 2):
        assert rules(v, "load") == [(whole, 64, False), (whole, 32, False), (whole, 64, True), (whole, 32, True)]
        assert rules(v, "store") == [(consecutive_groups(32), 32, False), (consecutive_groups(32), 32, True)]
    assert rules(8, "store") == [(consecutive_groups(16), 32, False)]
    assert rules(16, "store") == [(consecutive_groups(8), 32, False), (CK_READ, 32, False)]


def test_rdna_groups() -> None:
    """W7900 (gfx1100) and RX 9070 XT (gfx1201), shark-ai (measured): reads only, 32 banks, wave32."""
    for model in (AMD_RDNA3, AMD_RDNA4):
        assert model.lanes == 32 and model.banks == 32
        assert [groups(r, 32) for r in model.phase_rules(4, "load")] == [consecutive_groups(32, 32)]
        assert [groups(r, 32) for r in model.phase_rules(8, "load")] == [consecutive_groups(16, 32)]
    assert [groups(r, 32) for r in AMD_RDNA3.phase_rules(16, "load")] == [{g for g in CK_READ if max(g) < 32}]
    assert [groups(r, 32) for r in AMD_RDNA4.phase_rules(16, "load")] == [consecutive_groups(8, 32)]


@pytest.mark.parametrize("model, vec_bytes, direction", [
    (AMD_RDNA3, 4, "store"), (AMD_RDNA3, 16, "store"), (AMD_RDNA3, 2, "load"), (AMD_RDNA4, 8, "store"),
    (AMD_RDNA4, 1, "load"), (AMD_CDNA4, 32, "load")])
def test_widths_without_evidence_are_refused(model: BankModel, vec_bytes: int, direction: str) -> None:
    with pytest.raises(LayoutError, match="not established"):
        model.phase_rules(vec_bytes, direction)


def test_targets() -> None:
    assert bank_model_for_target("hip:gfx950") is AMD_CDNA4 and bank_model_for_target("hip:gfx942:sramecc+") is AMD_CDNA3
    assert bank_model_for_target("hip:gfx1100") is AMD_RDNA3 and bank_model_for_target("hip:gfx1201") is AMD_RDNA4
    for target, why in [("hip:gfx1101", "gfx1100 and gfx1201"), ("hip:gfx1200", "gfx1100 and gfx1201"),
                        ("hip:gfx1030", "gfx1100 and gfx1201"), ("hip:gfx1250", "gfx1250"), ("hip:gfx906", "modelled are")]:
        with pytest.raises(LayoutError, match=why):
            bank_model_for_target(target)
    with pytest.raises(LayoutError, match="direction"):
        AMD_CDNA3.phase_rules(16, "both")


def test_lane_count_must_match_the_wave() -> None:
    """A wave32 access is not counted with a wave64 model, nor a wave64 one with RDNA's wave32 model."""
    acc = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [32, 32], vec=1, per_phase=1, max_phase=1, order=[1, 0])
    with pytest.raises(LayoutError, match="32 lanes"):
        target_wavefronts(acc, sh, 32, "hip:gfx950")
    acc64 = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 16], warps_per_cta=[1, 1],
                  order=[1, 0])
    with pytest.raises(LayoutError, match="64 lanes"):
        target_wavefronts(acc64, sh, 32, "hip:gfx1100")


# -- measured experiments as test vectors; mutants must fail them ------------------------------------------

def _counts(model: BankModel, addr: np.ndarray, vec_bytes: int, direction: str) -> list[int]:
    """Wavefronts of one wave-level instruction (byte address per lane) under each candidate rule."""
    return [int(simulate_addresses(addr[None, :], vec_bytes, model, r)[0])
            for r in model.phase_rules(vec_bytes, direction)]


def _conflicts(model: BankModel, addr: np.ndarray, vec_bytes: int, direction: str) -> list[int]:
    """rocprof's unit: wavefronts beyond one per phase."""
    return [w - model.lanes // r.lanes_per_phase
            for w, r in zip(_counts(model, addr, vec_bytes, direction), model.phase_rules(vec_bytes, direction))]


def strided(model: BankModel, stride: int) -> np.ndarray:
    """Lane ``l`` accesses byte ``l * stride`` (shark-ai's sweep)."""
    return np.arange(model.lanes, dtype=np.int64) * stride


def pair_conflicts(model: BankModel, vec_bytes: int, direction: str, a: int, b: int, offset_b: int) -> list[int]:
    """Conflicts, per candidate rule, of the two-lane experiment: lane ``a`` at byte 0, lane ``b`` at
    ``offset_b``, the other lanes idle (HipKittens, shark-ai, pyhip).  An idle lane is written as a copy of the
    word of an active lane of its phase (a broadcast, which costs nothing), or of lane ``a`` where its phase has
    none (a phase of one word: one wavefront, no conflict)."""
    out = []
    for rule in model.phase_rules(vec_bytes, direction):
        ids = rule.phase_ids(model.lanes)
        addr = np.where(ids == ids[b], offset_b, 0).astype(np.int64) if ids[a] != ids[b] else np.zeros(
            model.lanes, dtype=np.int64)
        addr[b] = offset_b
        w = int(simulate_addresses(addr[None, :], vec_bytes, model, rule)[0])
        out.append(w - model.lanes // rule.lanes_per_phase)
    return out


def _phase_pairs(model: BankModel, vec_bytes: int, direction: str, lanes: list[tuple[int, int]]) -> list[bool]:
    """The phase experiment: lanes ``a, b`` at the same bank (1024 bytes apart, a multiple of every bank count's
    wrap) conflict iff they share a phase.  True where every candidate rule says they conflict."""
    out = []
    for a, b in lanes:
        cs = pair_conflicts(model, vec_bytes, direction, a, b, 1024)
        assert len(set(cs)) == 1, (a, b, cs)
        out.append(cs[0] > 0)
    return out


def measured(cdna3: BankModel, cdna4: BankModel, rdna3: BankModel, rdna4: BankModel) -> None:
    """Every measured experiment, applied to candidate models; a mutant of any of them fails here."""
    # shark-ai, MI300X, rocprof SQ_LDS_BANK_CONFLICT per block of 64 strided ds_read, divided by 64 (per read):
    # b32 {4: 0, 8: 128, 16: 384, 32: 896, 64: 1920, 128..512: 3968}, b64 {8: 0, 16: 256, 32: 768, 64: 1792,
    # 128..512: 3840}, b128 {16: 0, 32: 512, 64: 1536, 128..512: 3584}.
    table = {4: {4: 0, 8: 2, 16: 6, 32: 14, 64: 30, 128: 62, 256: 62, 512: 62},
             8: {8: 0, 16: 4, 32: 12, 64: 28, 128: 60, 256: 60, 512: 60},
             16: {16: 0, 32: 8, 64: 24, 128: 56, 256: 56, 512: 56}}
    for v, row in table.items():
        assert {s: _conflicts(cdna3, strided(cdna3, s), v, "load") for s in row} == {s: [c] for s, c in row.items()}
    # Lane-pair phases (pyhip and shark-ai on MI300): ds_read_b128 lanes 0 & 20 share a phase, 0 & 4, 0 & 16 and
    # 0 & 32 do not; ds_read_b64: 0 & 15 do, 0 & 16 not; ds_read_b32: 0 & 31 do, 0 & 32 not.
    assert _phase_pairs(cdna3, 16, "load", [(0, 20), (0, 4), (0, 16), (0, 32), (4, 16)]) == [1, 0, 0, 0, 1]
    assert _phase_pairs(cdna3, 8, "load", [(0, 15), (0, 16)]) == [1, 0]
    assert _phase_pairs(cdna3, 4, "load", [(0, 31), (0, 32)]) == [1, 0]
    # CK tutorial 01 (MI300, conflicted): 8 ds_read_u16 per lane down a column of an f16 [64, 32] row-major tile;
    # lane l reads row 8 (l // 8) + i, column l % 8 (+ 8 per wave).  4 rows 512 bytes apart on one bank per half
    # wave, two lanes per word: 4 distinct words a bank (dh_comms: 3 conflicts a phase) or 8 distinct halves (R2:
    # 7).  The deck's total, 448 per tile of 4 waves x 8 reads (+ 1 ds_write_b128 the deck calls conflict-free),
    # is R2's 14 per read; the range holds both.
    lanes = np.arange(64)
    addr = ((8 * (lanes // 8)) * 32 + lanes % 8) * 2
    assert _conflicts(cdna3, addr, 2, "load") == [6, 14]

    # HipKittens, MI355X, two lanes (0 and 1, one phase) at words 0 and k, k stepped: ds_write_b64 conflicts at
    # k = 32, 64, 96; ds_read_b64 and ds_read_b128 only at k = 64 (aligned k only).
    def wraps(model: BankModel, v: int, d: str) -> list[int]:
        ks = range(v // 4, 128, v // 4)
        return [k for k in ks if pair_conflicts(model, v, d, 0, 1, 4 * k)[0] > 0]
    assert wraps(cdna4, 8, "store") == [32, 64, 96]
    assert wraps(cdna4, 8, "load") == [64]
    assert wraps(cdna4, 16, "load") == [64]
    # Phases on MI355X / MI350X: ds_read_b128 0 & 12, 0 & 20, 0 & 24 share one, 0 & 4, 0 & 8 and 0 & 16 do not
    # (HipKittens, shark-ai); ds_read_b64 0 & 31 do, 0 & 32 not; ds_write_b64 0 & 15 do, 0 & 16 not (HipKittens);
    # ds_read_b32 0 & 32 and 0 & 63 do (shark-ai).
    assert _phase_pairs(cdna4, 16, "load", [(0, 12), (0, 20), (0, 24), (0, 4), (0, 8), (0, 16)]) == [1, 1, 1, 0, 0, 0]
    assert _phase_pairs(cdna4, 8, "load", [(0, 31), (0, 32)]) == [1, 0]
    assert _phase_pairs(cdna4, 8, "store", [(0, 15), (0, 16)]) == [1, 0]
    assert _phase_pairs(cdna4, 4, "load", [(0, 32), (0, 63)]) == [1, 1]
    # shark-ai, MI350X, ds_read_b64 latency by stride: rises up to 256 bytes and stays there (64 banks).
    w = {s: _counts(cdna4, strided(cdna4, s), 8, "load")[0] for s in (8, 16, 32, 64, 128, 256, 512)}
    assert w[8] < w[16] < w[32] < w[64] < w[128] < w[256] == w[512]
    # shark-ai, W7900 / RX 9070 XT: b32, b64, b128 read latency saturates at a 128-byte stride (32 banks).
    for model in (rdna3, rdna4):
        for v in (4, 8, 16):
            w = {s: _counts(model, strided(model, s), v, "load")[0] for s in (v, 2 * v, 64, 128, 256, 512)}
            assert w[v] < w[64] < w[128] == w[256] == w[512], (model.name, v, w)
    # Phases: RDNA3 ds_read_b128 0 & 20 share one, 0 & 4 not; RDNA4 0 & 4 share one, 0 & 20 not; both b64 0 & 15
    # do, 0 & 16 not.
    assert _phase_pairs(rdna3, 16, "load", [(0, 20), (0, 4)]) == [1, 0]
    assert _phase_pairs(rdna4, 16, "load", [(0, 4), (0, 20)]) == [1, 0]
    for model in (rdna3, rdna4):
        assert _phase_pairs(model, 8, "load", [(0, 15), (0, 16)]) == [1, 0]
        assert _phase_pairs(model, 4, "load", [(0, 31)]) == [1]


def stated(cdna3: BankModel, cdna4: BankModel) -> None:
    """Hand counts from the stated rules (no measurement exists): gfx950 writes and narrow reads."""
    # rocRoller: gfx950 ds_write_b32 (and sub-dword, rounded up) in half waves on 32 banks: lanes 0 and 32 never
    # conflict, lanes 0 and 1 at words 0 and 32 do.
    for v in (1, 2, 4):
        assert _phase_pairs(cdna4, v, "store", [(0, 31), (0, 32)]) == [1, 0]
        assert set(pair_conflicts(cdna4, v, "store", 0, 1, 128)) == {1}
    # sub-word: two lanes writing the two halves of one word share it (dh_comms) or not (R2).
    assert pair_conflicts(cdna4, 2, "store", 0, 1, 2) == [0, 1]
    assert pair_conflicts(cdna3, 2, "store", 0, 1, 2) == [0, 1]
    # ds_write_b128: 8 consecutive lanes (CK, rocRoller) or the read groups (dh_comms), 32 banks either way.
    assert pair_conflicts(cdna4, 16, "store", 0, 1, 128) == [1, 1]
    assert pair_conflicts(cdna3, 16, "store", 0, 20, 128) == [0, 1]
    # gfx950 b32 read: shark-ai's inference (64 banks) and rocRoller's count (32) disagree at a 128-byte offset.
    assert pair_conflicts(cdna4, 4, "load", 0, 1, 128) == [0, 1]


def test_measured_and_stated_counts_hold() -> None:
    measured(AMD_CDNA3, AMD_CDNA4, AMD_RDNA3, AMD_RDNA4)
    stated(AMD_CDNA3, AMD_CDNA4)


def _with_rule(model: BankModel, direction: str, vec_bytes: int, *rules: PhaseRule) -> BankModel:
    kept = tuple(r for r in model.rules if (r[0], r[1]) != (direction, vec_bytes))
    return dataclasses.replace(model, rules=kept + ((direction, vec_bytes, tuple(rules)),))


def _mutants() -> dict[str, tuple[str, BankModel]]:
    c3, c4 = AMD_CDNA3, AMD_CDNA4
    return {
        "cdna3 with 64 banks": ("cdna3", dataclasses.replace(c3, banks=64)),
        "cdna3 ds_read_b128 on Triton 3.9's old tile {0, 1, 4}": ("cdna3", _with_rule(c3, "load", 16,
                                                                   PhaseRule((1, 2, 16), "mutant"))),
        "cdna3 ds_read_b128 on 8 consecutive lanes": ("cdna3", _with_rule(c3, "load", 16, consecutive(8, "m"))),
        "cdna3 ds_read_b64 on 32 lanes": ("cdna3", _with_rule(c3, "load", 8, consecutive(32, "m"))),
        "cdna3 ds_read_b32 on 64 lanes": ("cdna3", _with_rule(c3, "load", 4, consecutive(64, "m"))),
        "cdna3 ds_read_b16 on 16 lanes": ("cdna3", _with_rule(c3, "load", 2, consecutive(16, "m"),
                                                              consecutive(16, "m", split_words=True))),
        "cdna3 ds_read_b16 without R2": ("cdna3", _with_rule(c3, "load", 2, consecutive(32, "m"))),
        "cdna4 ds_write_b16 without dh_comms": ("cdna4", _with_rule(c4, "store", 2,
                                                                    consecutive(32, "m", 32, split_words=True))),
        "cdna4 ds_write_b64 on 64 banks (the previous model)":
            ("cdna4", _with_rule(c4, "store", 8, consecutive(16, "m", banks=64))),
        "cdna4 ds_write_b64 on 32 lanes": ("cdna4", _with_rule(c4, "store", 8, consecutive(32, "m", banks=32))),
        "cdna4 ds_read_b64 on 32 banks": ("cdna4", _with_rule(c4, "load", 8, consecutive(32, "m", banks=32))),
        "cdna4 ds_read_b64 on 16 lanes": ("cdna4", _with_rule(c4, "load", 8, consecutive(16, "m", banks=64))),
        "cdna4 ds_read_b128 on 16 consecutive lanes":
            ("cdna4", _with_rule(c4, "load", 16, consecutive(16, "m", banks=64))),
        "cdna4 ds_read_b128 on Triton 3.9's old tile {0, 1, 3, 4}":
            ("cdna4", _with_rule(c4, "load", 16, PhaseRule((1, 2, 8, 16), "m", banks=64))),
        "cdna4 ds_read_b128 on 32 banks": ("cdna4", _with_rule(c4, "load", 16, PhaseRule((1, 2, 12, 20), "m", 32))),
        "cdna4 ds_read_b32 in half waves (rocRoller's phases)":
            ("cdna4", _with_rule(c4, "load", 4, consecutive(32, "m", banks=32))),
        "cdna4 ds_write_b16 on the whole wave": ("cdna4", _with_rule(c4, "store", 2, consecutive(64, "m", banks=32),
                                                                     consecutive(64, "m", 32, True))),
        "cdna4 ds_write_b128 on 64 banks": ("cdna4", _with_rule(c4, "store", 16, consecutive(8, "m", banks=64),
                                                                PhaseRule((1, 2, 20), "m", banks=64))),
        "rdna3 with 64 banks": ("rdna3", dataclasses.replace(AMD_RDNA3, banks=64)),
        "rdna3 ds_read_b128 on 8 consecutive lanes": ("rdna3", _with_rule(AMD_RDNA3, "load", 16,
                                                                          consecutive(8, "m"))),
        "rdna4 ds_read_b128 on the CDNA3 groups": ("rdna4", _with_rule(AMD_RDNA4, "load", 16,
                                                                       PhaseRule((1, 2, 20), "m"))),
        "rdna4 ds_read_b64 on 32 lanes": ("rdna4", _with_rule(AMD_RDNA4, "load", 8, consecutive(32, "m"))),
    }


MUTANTS = _mutants()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_models_are_caught(name: str) -> None:
    which, mutant = MUTANTS[name]
    models = {**MODELS, which: mutant}
    with pytest.raises(AssertionError):
        measured(models["cdna3"], models["cdna4"], models["rdna3"], models["rdna4"])
        stated(models["cdna3"], models["cdna4"])


def test_layouts_agree_with_the_address_vectors() -> None:
    """The strided sweep as layouts (lane ``j`` -> offset ``stride * 2^j``), counted by the closed form: the
    layout path gives the measured MI300X counts too."""
    for v, stride, conflicts in [(4, 16, 6), (8, 32, 12), (16, 64, 24), (16, 32, 8)]:
        elems = v // 4
        n = 64 * stride // 4
        acc = LinearLayout([("register", [[1 << i] for i in range(elems.bit_length() - 1)]),
                            ("lane", [[(stride // 4) << j] for j in range(6)]), ("warp", []), ("block", [])],
                           [("dim0", n)], require_surjective=False)
        sh = LinearLayout([("offset", [[1 << i] for i in range(n.bit_length() - 1)]), ("block", [])], [("dim0", n)])
        (c,) = phase_wavefronts(acc, sh, 32, AMD_CDNA3, "load").counts
        assert (c.wavefronts - c.phases, c.phases) == (conflicts, 64 // AMD_CDNA3.phase_rules(v)[0].lanes_per_phase)


# -- closed form == brute-force simulator, random layouts --------------------------------------------------

@st.composite
def access_cases(draw, lanes: int, wide: bool = False):
    """A row-major or swizzled shared buffer and a random bijective access: the tensor's unit bases shuffled
    into registers / lanes / warps, some lane bases XOR-ed with others (still a bijection).  ``wide``: 16- or
    32-bit elements with 2-3 contiguous registers (8- and 16-byte accesses)."""
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
@given(st.one_of(access_cases(64, wide=True), access_cases(64)), st.sampled_from(["load", "store"]))
def test_closed_form_equals_simulator_cdna4(case, direction: str) -> None:
    """Every width up to 16 bytes has a gfx950 rule in both directions now."""
    assert _agree(*case, AMD_CDNA4, direction)


@settings(max_examples=60, deadline=None)
@given(st.one_of(access_cases(32, wide=True), access_cases(32)), st.sampled_from(["rdna3", "rdna4"]))
def test_closed_form_equals_simulator_rdna(case, which: str) -> None:
    assume(_agree(*case, MODELS[which], "load"))  # sub-dword reads have no rule


@st.composite
def random_models(draw):
    lanes = draw(st.sampled_from([32, 64]))
    rules = []
    for d, v in itertools.product(("load", "store"), (1, 2, 4, 8, 16)):
        gens = tuple(draw(st.lists(st.integers(1, lanes - 1), min_size=0, max_size=5)))
        rules.append((d, v, (PhaseRule(gens, "random", draw(st.sampled_from([None, 16, 32, 64, 128])),
                                       draw(st.booleans())),)))
    model = BankModel("random", draw(st.sampled_from([16, 32, 64])), draw(st.sampled_from([4, 8])), lanes, "random",
                      rules=tuple(rules), generic=False)
    return model, draw(access_cases(lanes)), draw(st.sampled_from(["load", "store"]))


@settings(max_examples=80, deadline=None)
@given(random_models())
def test_closed_form_equals_simulator_any_phase_rule(m) -> None:
    """The generalised lemma for any bank count (the model's or a rule's own), bank width, wave size, phase
    subspace and sub-word rule."""
    model, case, direction = m
    assert _agree(*case, model, direction)


def test_simulator_equals_a_per_lane_walk() -> None:
    """The simulator against a loop over lanes that decides phase membership by brute force (closure of the
    generators under XOR) and takes each rule's bank count, on layouts where the rules matter."""
    row = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    swz = build("swizzled_shared", [64, 64], vec=8, per_phase=1, max_phase=4, order=[1, 0])
    col = build("blocked", [64, 64], size_per_thread=[1, 2], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                order=[0, 1])
    plain = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
    down = build("blocked", [64, 64], size_per_thread=[2, 1], threads_per_warp=[8, 8], warps_per_cta=[1, 1],
                 order=[1, 0])   # one element a vector: 1- and 2-byte accesses
    for model, acc, sh, bits, direction in [(AMD_CDNA3, row, swz, 16, "load"), (AMD_CDNA4, row, swz, 16, "load"),
                                            (AMD_CDNA4, row, swz, 16, "store"), (AMD_CDNA4, col, plain, 32, "load"),
                                            (AMD_CDNA4, col, plain, 32, "store"), (AMD_CDNA4, down, plain, 16, "load"),
                                            (AMD_CDNA4, down, plain, 8, "store"), (AMD_CDNA3, col, plain, 8, "store")]:
        sim = simulate_wavefronts(acc, sh, bits, model=model, direction=direction)
        vec = sim.vector.elems
        where = {}
        for off in range(sh.in_dim_size("offset")):
            e = sh.apply(offset=off, block=0)
            where[(e["dim0"], e["dim1"])] = off
        for rule, (_, most, least) in zip(model.phase_rules(vec * bits // 8, direction), sim.per_rule):
            span = {0}
            for g in rule.generators:
                span |= {s ^ g for s in span}
            nbanks = model.banks if rule.banks is None else rule.banks
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
                        nbytes = vec * bits // 8
                        unit = nbytes if rule.split_words and nbytes < 4 else 4
                        for u in range(start // unit, (start + nbytes - 1) // unit + 1):
                            banks.setdefault(u * unit // 4 % nbanks, set()).add(u)
                    total += max(len(s) for s in banks.values())
                counts.append(total)
            assert (max(counts), min(counts)) == (most, least)


def test_nvidia_unchanged() -> None:
    """The NVIDIA model keeps one generic rule per width (consecutive lanes), whatever the direction."""
    for v, d in itertools.product((1, 2, 4, 8, 16), ("load", "store")):
        (rule,) = NVIDIA.phase_rules(v, d)
        assert rule.lanes_per_phase == NVIDIA.lanes_per_phase(v) and NVIDIA.banks_of(rule) == 32


def test_model_texts_are_cache_stable() -> None:
    """Verdict messages quote the rules' sources and reasons; the module cache skips a module whose unknown or
    proved messages read like a passing condition (``llverify.ttgir.modcache.volatile``: "timeout", "out of
    memory", ..), so none of these texts may (a source named after ``memory_analysis_handler.h`` once kept whole
    gfx950 modules out of the cache, when the bare word "memory" counted)."""
    from llverify.ttgir.modcache import volatile

    texts = []
    for model in MODELS.values():
        texts += [model.source, model.unestablished] + [r.source for _, _, rs in model.rules for r in rs]
        for v, d in itertools.product((1, 2, 4, 8, 16, 32), ("load", "store")):
            try:
                model.phase_rules(v, d)
            except LayoutError as exc:
                texts.append(str(exc))
    for target in ("hip:gfx1250", "hip:gfx1101", "hip:gfx906"):
        with pytest.raises(LayoutError) as exc:
            bank_model_for_target(target)
        texts.append(str(exc.value))
    from llverify.codegen.lds_transpose import transposed_read_reason
    texts.append(transposed_read_reason("hip:gfx950", build("swizzled_shared", [8, 8], vec=1, per_phase=1,
                                                             max_phase=1, order=[1, 0]), 16, 0))
    assert not [t for t in texts if volatile(t)]
    assert volatile("Z3 returned unknown (timeout)")   # the check itself bites
