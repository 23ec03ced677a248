"""CPU side of the GPU harness: generated CUDA compiles, plans move every element where the layouts say.

No GPU is needed: the generated kernels are compiled with ``nvcc`` (skipped
without it), and their data movement is replayed by the numpy emulator and
compared with the reference computed from the layouts alone.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from llverify.codegen import VectorPlan, shuffle_plan
from llverify.errors import LayoutError
from llverify.gpu.cases import Case, make_case, row_major_shared, suite, triton_swizzle
from llverify.gpu.emulate import EmulationError, emulate
from llverify.gpu.kernels import _addr
from llverify.gpu.reference import expected, first_mismatch, id_planes
from llverify.gpu.shuffle import Stage, WordStep, shuffle_program, stages_of
from llverify.gpu.tile import DistMap, VectorGroups, offset_columns
from llverify.layout import LinearLayout

QUICK = suite(quick=True)
NVCC = shutil.which("nvcc")


def _emulated_ok(case: Case) -> str | None:
    a, b = case.maps()
    tile = np.arange(1, a.n_elems + 1, dtype=np.uint32)
    try:
        got = emulate(case, tile)
    except EmulationError as exc:
        return f"emulation refused the plan: {exc}"
    bad = first_mismatch(got[None], expected(b, tile, 1))
    return None if bad is None else str(bad)


def test_the_quick_suite_covers_every_variant_and_type():
    variants = {c.variant for c in QUICK}
    assert variants == {"unswizzled", "triton", "optimal", "shuffle"}
    assert {c.dtype for c in QUICK} == {"f32", "f16", "f8"}
    pairs = {c.pair.split(".")[0] for c in QUICK}
    assert {"blocked_to_mma2", "mma3_to_blocked", "mma2_to_dotA2", "blocked_to_dotB2",
            "blocked_transpose", "slice_mma2_to_blocked"} <= pairs
    assert len({c.kernel_name for c in suite()}) == len(suite())


@pytest.mark.parametrize("case", QUICK, ids=lambda c: c.name)
def test_every_plan_moves_every_element_to_its_register(case):
    assert _emulated_ok(case) is None


def _forced_transposition(case: Case) -> Case:
    t = make_case(case.pair, case.dtype, "shuffle", case.src, case.dst, shuffle_method="transposition")
    assert t is not None and t.program.method == "transposition"
    return t


SHUFFLES = [c for c in QUICK if c.variant == "shuffle"]


def test_the_suite_shuffles_come_from_codegens_word_structure():
    """Every shuffle case is codegen's shuffle_plan read as words: constants of each round, linear parts as stages."""
    assert SHUFFLES and all(c.program.method == "plan" for c in SHUFFLES)
    for c in SHUFFLES:
        plan = shuffle_plan(c.src, c.dst, 8 * c.elem_bytes)
        prog = c.program
        assert prog.a_words == plan.a_words and prog.b_words == plan.b_words
        assert len(plan.rounds) == len(prog.rounds) and prog.elems_per_word == plan.elems_per_shuffle
        for rnd, wr, st in zip(plan.rounds, plan.word_rounds, prog.rounds):
            for u in range(32):
                # the program's source lane and sent word reproduce the plan's per-lane tables
                sl = 0
                for j, col in enumerate(prog.lane_map):
                    sl ^= col if u >> j & 1 else 0
                assert sl ^ st.src_xor == rnd.src_lane[u]
                sent = st.send
                for stage in prog.send_stages:
                    sent ^= stage.xor if stage.active(rnd.src_lane[u]) else 0
                assert prog.a_words[sent] == rnd.send_regs[rnd.src_lane[u]]
                assert wr.recv_word.at(u) == st.recv ^ sum(0 for _ in ()) ^ \
                    _xor_of(s.xor for s in prog.recv_stages if s.active(u))
        # no per-element candidates: selects are per word and stage, at most 2 stages per side here
        assert len(prog.send_stages) <= 1 and len(prog.recv_stages) <= 1 and not prog.perm_stages
    f16 = next(c for c in SHUFFLES if c.pair.startswith("mma2_to_dotA2") and c.dtype == "f16")
    assert f16.program.num_shuffles == 0 and f16.program.num_word_selects == 0   # all rounds local
    f8 = next(c for c in SHUFFLES if c.pair.startswith("rowblocked_to_mma2") and c.dtype == "f8")
    assert f8.program.elems_per_word == 4 and f8.program.num_shuffles == 8       # four f8 per 32-bit shuffle
    assert f8.program.num_word_selects == 2 * 8                                # one send + one receive stage


def _xor_of(xs) -> int:
    v = 0
    for x in xs:
        v ^= x
    return v


def test_stages_of_a_lane_linear_map():
    """stages_of writes f(u) = XOR_j u_j cols[j] as rank-many parity-conditioned XORs (checked on all 32 lanes)."""
    for cols in [(0, 2, 2, 0, 0), (1, 2, 3, 0, 4), (0, 0, 0, 0, 0), (4, 0, 1, 0, 5)]:
        st = stages_of(cols)
        assert len(st) == len({c for c in cols if c}) if cols == (0, 2, 2, 0, 0) else True
        for u in range(32):
            want = _xor_of(c for j, c in enumerate(cols) if u >> j & 1)
            assert _xor_of(s.xor for s in st if s.active(u)) == want
    assert stages_of((0, 2, 2, 0, 0)) == (Stage(0b110, 2),)
    assert len(stages_of((1, 2, 3, 0, 4))) == 3


@pytest.mark.parametrize("case", SHUFFLES, ids=lambda c: c.name)
def test_the_transposition_form_moves_every_element_too(case):
    assert _emulated_ok(_forced_transposition(case)) is None


def test_wrong_shuffles_are_caught():
    """Mutants: a dropped round, a wrong source lane, a dropped send stage, a wrong received word, a swapped transposition step."""
    import dataclasses

    c = next(x for x in SHUFFLES if x.program.num_shuffles > 0)
    assert _emulated_ok(c) is None
    prog = c.program
    assert _emulated_ok(dataclasses.replace(c, program=dataclasses.replace(prog, rounds=prog.rounds[1:]))) is not None
    r0 = prog.rounds[0]
    wrong = dataclasses.replace(r0, src_xor=r0.src_xor ^ 1)
    mutant = dataclasses.replace(prog, rounds=(wrong,) + prog.rounds[1:])
    assert _emulated_ok(dataclasses.replace(c, program=mutant)) is not None
    assert prog.send_stages
    assert _emulated_ok(dataclasses.replace(c, program=dataclasses.replace(prog, send_stages=()))) is not None
    r1 = prog.rounds[1]
    swapped_recv = (dataclasses.replace(r0, recv=r1.recv), dataclasses.replace(r1, recv=r0.recv)) + prog.rounds[2:]
    assert _emulated_ok(dataclasses.replace(c, program=dataclasses.replace(prog, rounds=swapped_recv))) is not None
    t = _forced_transposition(c)
    steps = t.program.steps
    assert len(steps) >= 2
    swapped = dataclasses.replace(t.program, steps=steps[1:] + steps[:1])
    assert _emulated_ok(dataclasses.replace(t, program=swapped)) is not None


def test_a_conversion_across_warps_has_no_shuffle_program():
    c = next(x for x in QUICK if x.pair.startswith("blocked_to_mma2"))
    prog, why = shuffle_program(c.src, c.dst, 16)
    assert prog is None and "shuffle_plan" in why and "transposition_decomposition" in why
    assert make_case("x", "f16", "shuffle", c.src, c.dst) is None


def test_a_layout_that_is_not_a_bijection_is_refused_as_a_shared_layout():
    s = LinearLayout([("offset", [(0, 1), (0, 1)]), ("block", [])], [("dim0", 2), ("dim1", 2)],
                     require_surjective=False)
    access = LinearLayout([("register", [(0, 1)]), ("lane", [(1, 0)] + [(0, 0)] * 4), ("warp", [])],
                          [("dim0", 2), ("dim1", 2)])
    with pytest.raises(LayoutError):
        offset_columns(access, s)


def test_reference_agrees_with_layout_apply():
    c = next(x for x in QUICK if x.pair.startswith("blocked_to_mma3"))
    b = c.dst
    m = DistMap.of(b)
    tile = id_planes(1, m.n_elems, "f32")[0]
    ref = expected(m, tile, 1)[0]
    rng = np.random.default_rng(1)
    for _ in range(200):
        w, ln, r = int(rng.integers(m.n_warps)), int(rng.integers(32)), int(rng.integers(m.n_reg))
        coord = b.apply(register=r, lane=ln, warp=w, block=0)
        eid = coord["dim0"] * m.shape[1] + coord["dim1"]
        assert ref[w * 32 + ln, r] == tile[eid]


def test_id_planes_name_every_element_and_are_never_zero():
    for dtype, n in (("f8", 65536 * 3), ("f16", 70000), ("f32", 1000)):
        sets = id_planes(1, n, dtype)
        assert all(s.min() > 0 for s in sets)
        key = np.zeros(n, dtype=np.int64)
        for s in sets:
            key = key * 1024 + s.astype(np.int64)
        assert len(np.unique(key)) == n
    assert len(id_planes(1, 65536, "f8")) == 3 and len(id_planes(1, 65536, "f32")) == 1


def test_first_mismatch_names_block_warp_lane_register():
    want = np.arange(2 * 64 * 3).reshape(2, 64, 3)
    got = want.copy()
    got[1, 37, 2] = 0
    m = first_mismatch(got, want)
    assert (m.block, m.warp, m.lane, m.register) == (1, 1, 5, 2) and "never written" in str(m)
    assert first_mismatch(want, want) is None


def test_address_folding_is_xor():
    rng = np.random.default_rng(0)
    for _ in range(300):
        bits = int(rng.integers(0, 1 << 12))
        const = int(rng.integers(0, 1 << 14))
        eb = int(rng.choice([1, 2, 4]))
        expr = _addr("v", const, bits, eb)
        sub = bits
        while True:                      # every value v can take has bits within `bits`
            v = sub
            got = eval(expr.replace("u", ""), {"v": v})   # noqa: S307 - our own arithmetic string
            assert got == (v ^ const) * eb
            if sub == 0:
                break
            sub = (sub - 1) & bits
            if rng.random() < 0.9:
                break


def test_vector_groups_read_codegens_register_order():
    vg = VectorGroups(VectorPlan(4, 64, (1, 0, 2)))
    assert (vg.vec, vg.chosen, vg.rest, vg.n_groups()) == (4, (1, 0), (2,), 2)
    assert [vg.register(0, i) for i in range(4)] == [0, 2, 1, 3]
    assert [vg.register(1, i) for i in range(4)] == [4, 6, 5, 7]
    assert vg.group_address([2, 1, 16], 1) == 16


def test_distmap_ids_are_row_major_coordinates():
    from llverify.hw import build

    L = build("blocked", [16, 16], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 1], order=[1, 0])
    m = DistMap.of(L)
    for d, cols in (("register", m.reg), ("lane", m.lane), ("warp", m.warp)):
        for i, col in enumerate(cols):
            c = L.apply(**{x: (1 << i if x == d else 0) for x in L.in_dim_names})
            assert col == c["dim0"] * 16 + c["dim1"]


def test_triton_swizzle_is_the_128_byte_pattern():
    s = triton_swizzle((64, 64), 2)                       # 8 halves per 16 bytes, 8 phases
    assert s.apply(offset=64 + 8, block=0) == {"dim0": 1, "dim1": 0}   # row 1 starts one 16-byte chunk over
    assert s.apply(offset=8 * 64, block=0) == {"dim0": 8, "dim1": 0}   # row 8 wraps around
    rm = row_major_shared((8, 8))
    assert all(rm.apply(offset=o, block=0) == {"dim0": o // 8, "dim1": o % 8} for o in range(64))
    assert row_major_shared((64,)).apply(offset=37, block=0) == {"dim0": 37}


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_generated_cuda_compiles_with_nvcc(tmp_path):
    """One translation unit with a kernel of every (variant, type), all shuffles and slices, and f32 transposition forms."""
    picked: dict = {}
    for c in QUICK:
        picked.setdefault((c.variant, c.dtype), c)
        if c.variant == "shuffle" or c.pair.startswith("slice"):
            picked.setdefault(c.name, c)
    src = tmp_path / "all.cu"
    unique = {c.name: c for c in picked.values()}
    forced = [_forced_transposition(c) for c in SHUFFLES if c.dtype == "f32"]
    codes = [c.kernel().code for c in unique.values()]
    codes += [c.kernel().code.replace(c.kernel_name, c.kernel_name + "_T") for c in forced]
    src.write_text("\n".join(codes))
    r = subprocess.run([NVCC, "-arch=sm_90", "-cubin", "-o", str(tmp_path / "all.cubin"), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_every_suite_kernel_compiles_with_nvcc(tmp_path):
    src = tmp_path / "suite.cu"
    src.write_text("\n".join(c.kernel().code for c in suite()))
    r = subprocess.run([NVCC, "-arch=sm_90", "-cubin", "-o", str(tmp_path / "suite.cubin"), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.slow
def test_every_suite_plan_moves_every_element():
    bad = [f"{c.name}: {why}" for c in suite() if (why := _emulated_ok(c)) is not None]
    assert not bad, "\n".join(bad)


def test_make_case_skips_what_does_not_apply():
    c = next(x for x in QUICK if x.pair.startswith("slice"))
    assert make_case(c.pair, c.dtype, "triton", c.src, c.dst) is None
    blocked = next(x for x in QUICK if x.pair.startswith("blocked_to_mma2")).src
    mma = next(x for x in QUICK if x.pair.startswith("blocked_to_mma2")).dst
    assert make_case("x", "f16", "shuffle", blocked, mma) is None     # crosses warps
