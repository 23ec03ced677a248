"""ldmatrix / stmatrix wavefronts: the closed form (codegen/ldmatrix.py) against the brute-force simulator
(bank_sim.simulate_matrix_wavefronts, concrete per-lane row addresses), on hand-computed tiles and on random
layouts built so that the instruction's tile divides them."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.codegen.bank_model import AMD_CDNA3, NVIDIA, BankModel
from llverify.codegen.bank_sim import simulate_matrix_wavefronts, simulate_row_addresses
from llverify.codegen.ldmatrix import matrix_tile, matrix_wavefronts, supports
from llverify.errors import LayoutError
from llverify.hw import build
from llverify.layout import LinearLayout
from llverify.triton.parse import layout_from_attr

MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"


def dot(i: int, shape=(64, 64)) -> LinearLayout:
    return layout_from_attr(f"#ttg.dot_op<{{opIdx = {i}, parent = {MMA}, kWidth = 2}}>", list(shape))


SWIZZLED = build("swizzled_shared", [64, 64], vec=8, per_phase=1, max_phase=8, order=[1, 0])
PLAIN = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])


def test_conflict_free_swizzled_operand_tile_one_wavefront_per_matrix():
    r = matrix_wavefronts(dot(0), SWIZZLED, 16, "ldmatrix")
    assert (r.matrices, r.wavefronts_per_matrix, r.wavefronts, r.conflict_free) == (4, 1, 4, True)
    assert simulate_matrix_wavefronts(dot(0), SWIZZLED, 16, "ldmatrix").max_wavefronts == 4
    # operand B of the same row-major tile is read transposed: also conflict-free
    assert matrix_wavefronts(dot(1), SWIZZLED, 16, "ldmatrix_trans").wavefronts == 4


def test_unswizzled_rows_128_bytes_apart_conflict_8_way():
    # rows of a 64 x 64 f16 tile are 128 bytes apart: all 8 rows of a matrix fall into bank group 0
    r = matrix_wavefronts(dot(0), PLAIN, 16, "ldmatrix")
    assert r.wavefronts_per_matrix == 8 and r.wavefronts == 32 and r.colliding_rows == tuple(range(1, 8))
    sim = simulate_matrix_wavefronts(dot(0), PLAIN, 16, "ldmatrix")
    assert (sim.max_wavefronts, sim.min_wavefronts) == (32, 32)
    # the lanes that supply rows 0..7 of matrix 0 give addresses 128 bytes apart
    assert [sim.lane_rows[r] - sim.lane_rows[0] for r in range(8)] == [128 * r for r in range(8)]
    assert matrix_wavefronts(dot(1), PLAIN, 16, "ldmatrix_trans").wavefronts_per_matrix == 8


def test_row_addresses_by_hand():
    # 8 rows in 8 distinct 16-byte groups: 1 wavefront; two rows 128 bytes apart: 2; one address broadcast: 1
    import numpy as np

    rows = np.array([[16 * r for r in range(8)], [0, 128, 32, 48, 64, 80, 96, 112], [0] * 8])
    assert simulate_row_addresses(rows, NVIDIA).tolist() == [1, 2, 1]


def test_tile_refusals_say_why():
    with pytest.raises(LayoutError, match="offset 1"):
        matrix_tile(dot(1), SWIZZLED, 16, "ldmatrix")          # B's registers walk K, not the row
    with pytest.raises(LayoutError, match="lanes 2, 3, 4"):
        matrix_tile(dot(0), SWIZZLED, 16, "ldmatrix_trans")
    with pytest.raises(LayoutError, match="16-bit"):
        matrix_tile(dot(0), SWIZZLED, 32, "ldmatrix_trans")
    with pytest.raises(LayoutError, match="32-lane"):
        matrix_wavefronts(dot(0), SWIZZLED, 16, "ldmatrix", model=AMD_CDNA3)
    assert matrix_tile(dot(0), SWIZZLED, 16, "ldmatrix", matrices=2).matrices == 2
    assert supports("ldmatrix", "cuda:80") and not supports("stmatrix", "cuda:80") and supports("stmatrix", "cuda:90")
    assert not supports("ldmatrix", "cuda:70") and not supports("ldmatrix", "hip:gfx942")


def test_wavefronts_scale_with_matrices_per_instruction():
    for n in (1, 2, 4):
        r = matrix_wavefronts(dot(0), PLAIN, 16, "ldmatrix", matrices=n)
        s = simulate_matrix_wavefronts(dot(0), PLAIN, 16, "ldmatrix", tile=matrix_tile(dot(0), PLAIN, 16, "ldmatrix", n))
        assert r.wavefronts == s.max_wavefronts == 8 * n


def test_model_is_a_parameter():
    # a hypothetical unit serving 256 bytes (16 rows) per wavefront: the simulator follows the model
    wide = BankModel("wide", 64, 4, 32, "test")
    import numpy as np

    rows = np.array([[256 * r for r in range(16)]])
    assert simulate_row_addresses(rows, wide).tolist() == [16] and simulate_row_addresses(rows, NVIDIA).tolist() == [16]
    assert simulate_row_addresses(np.array([[16 * r for r in range(16)]]), wide).tolist() == [1]
    assert simulate_row_addresses(np.array([[16 * r for r in range(16)]]), NVIDIA).tolist() == [2]


# -- random layouts: closed form == simulator ---------------------------------------------------------------

def _random_case(seed: int, instruction: str, bits: int):
    rng = random.Random(seed)
    n = rng.randint(9, 11)                       # 2^n elements
    low = 3 if instruction.endswith("_trans") else (32 // bits).bit_length() - 1 + 2

    def high():
        return rng.choice([0] + [1 << rng.randint(low, n - 1) for _ in range(3)] +
                          [rng.getrandbits(n) & ~((1 << low) - 1)])

    if instruction.endswith("_trans"):
        regs = [high() or (1 << low) for _ in range(rng.randint(1, 3))]
        lanes = [high(), high(), 1, 2, 4]
    else:
        d = (32 // bits).bit_length() - 1
        tile = [1 << j for j in range(d)]
        extra = [high() or (1 << low) for _ in range(rng.randint(0, 3))]
        regs = tile + extra
        rng.shuffle(regs)
        lanes = [1 << d, 1 << (d + 1), high(), high(), high()]
    warps = [high() for _ in range(rng.randint(0, 2))]
    # a random memory layout S (invertible): access = S o cvt keeps S^-1 access == cvt
    cols = []
    while len(cols) < n:
        v = rng.getrandbits(n) | (1 << len(cols)) if rng.random() < 0.5 else 1 << len(cols)
        cols.append(v & ((1 << n) - 1))
    from llverify import f2

    if f2.rank(cols) < n:
        cols = [1 << i for i in range(n)]
    shared = LinearLayout.from_bases({"offset": [[c] for c in cols]}, ["dim0"])

    def image(o: int) -> int:
        out = 0
        for i in range(n):
            if o >> i & 1:
                out ^= cols[i]
        return out

    access = LinearLayout.from_bases({"register": [[image(o)] for o in regs], "lane": [[image(o)] for o in lanes],
                                      "warp": [[image(o)] for o in warps]}, ["dim0"], require_surjective=False)
    access = LinearLayout(list(access.bases.items()), [("dim0", 1 << n)], require_surjective=False)
    return access, shared


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), which=st.sampled_from([("ldmatrix", 16), ("stmatrix", 16), ("ldmatrix", 8),
                                                           ("stmatrix", 32), ("ldmatrix_trans", 16),
                                                           ("stmatrix_trans", 16)]))
def test_closed_form_equals_simulator_on_random_layouts(seed, which):
    instruction, bits = which
    access, shared = _random_case(seed, instruction, bits)
    try:
        rep = matrix_wavefronts(access, shared, bits, instruction)
    except LayoutError as e:   # duplicate register images collapse the tile: the simulator must refuse too
        with pytest.raises(LayoutError):
            simulate_matrix_wavefronts(access, shared, bits, instruction)
        return
    sim = simulate_matrix_wavefronts(access, shared, bits, instruction)
    assert sim.max_wavefronts == sim.min_wavefronts == rep.wavefronts, (rep.to_json(), sim.to_json())
    assert rep.wavefronts == rep.matrices * rep.wavefronts_per_matrix
    # the colliding rows really share row 0's bank group at another address
    for r in rep.colliding_rows:
        assert sim.lane_rows[r] != sim.lane_rows[0] and (sim.lane_rows[r] - sim.lane_rows[0]) % 128 == 0


def test_simulator_rejects_a_misplaced_fragment():
    # a tile that claims lanes 2..4 are rows but a register moves inside the row: refused, not miscounted
    access = dot(0)
    tile = matrix_tile(access, PLAIN, 16, "ldmatrix")
    bad = tile.__class__(tile.instruction, 16, tuple(reversed(tile.register_order)), tile.tile_bits, tile.matrix_bits,
                         tile.row_offsets)
    with pytest.raises(LayoutError, match="fragment"):
        simulate_matrix_wavefronts(access, PLAIN, 16, "ldmatrix", tile=bad)


# -- hardware: Nsight Compute on an H100 ----------------------------------------------------------------------

def test_model_equals_h100_measurements():
    """tests/data/ldmatrix_ncu_h100.json: 9 .x4 instructions (ldmatrix, .trans, stmatrix, .trans; conflict-free,
    8-way, 2-way, 4-way and broadcast rows) run by one warp on an H100 under ncu.  The simulator on the same row
    addresses gives the measured count for every one; the six named cases are the row addresses of real layouts
    (recomputed here), the others come from random layouts of the hypothesis test."""
    import json
    from pathlib import Path

    import numpy as np

    data = json.loads((Path(__file__).parent / "data" / "ldmatrix_ncu_h100.json").read_text())
    assert "H100" in data["device"] and len(data["cases"]) == 9
    counts = {c["measured_wavefronts"] for c in data["cases"]}
    assert counts == {4, 8, 16, 32}
    for c in data["cases"]:
        rows = np.array([[16 * r for r in c["row_chunks"]]])
        assert simulate_row_addresses(rows, NVIDIA).tolist() == [c["measured_wavefronts"]], c["case"]
        assert c["model_wavefronts"] == c["measured_wavefronts"]
    named = {"dotA_swz": (dot(0), SWIZZLED, "ldmatrix"), "dotA_plain": (dot(0), PLAIN, "ldmatrix"),
             "dotB_swz_T": (dot(1), SWIZZLED, "ldmatrix_trans"), "dotB_plain_T": (dot(1), PLAIN, "ldmatrix_trans"),
             "mma_swz_st": (layout_from_attr(MMA, [64, 64]), SWIZZLED, "stmatrix"),
             "mma_plain_st": (layout_from_attr(MMA, [64, 64]), PLAIN, "stmatrix")}
    assert sum(c["case"] in named for c in data["cases"]) == 6
    for c in data["cases"]:
        if c["case"] in named:
            acc, sh, instr = named[c["case"]]
            sim = simulate_matrix_wavefronts(acc, sh, 16, instr)
            assert [a // 16 for a in sim.lane_rows] == c["row_chunks"]
            assert matrix_wavefronts(acc, sh, 16, instr).wavefronts == c["measured_wavefronts"]
    # a mutant model that serves 16-byte rows 4 at a time (64-byte wavefronts) disagrees with the hardware
    narrow = BankModel("narrow", 16, 4, 32, "mutant")
    assert any(simulate_row_addresses(np.array([[16 * r for r in c["row_chunks"]]]), narrow).tolist()
               != [c["measured_wavefronts"]] for c in data["cases"])
