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

from llverify.gpu.cases import Case, make_case, suite, triton_swizzle
from llverify.gpu.emulate import EmulationError, emulate
from llverify.gpu.kernels import _addr
from llverify.gpu.reference import expected, first_mismatch, id_planes
from llverify.gpu.tile import DistMap, SharedMap, row_major_shared, vector_plan
from llverify.gpu.zoo import Spec, build, build_local

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


def test_a_wrong_shared_layout_breaks_nothing_but_a_wrong_plan_is_caught():
    """Any invertible S is correct (only speed changes); a plan that skips a round is not."""
    c = next(x for x in QUICK if x.variant == "shuffle" and x.plan is not None and x.plan.transpose is None)
    assert _emulated_ok(c) is None
    import dataclasses

    broken_plan = dataclasses.replace(c.plan, rounds=c.plan.rounds[1:])
    bad = dataclasses.replace(c, plan=broken_plan)
    assert _emulated_ok(bad) is not None
    t = next(x for x in QUICK if x.variant == "shuffle" and x.plan is not None and x.plan.transpose is not None
             and x.plan.transpose.pairs)
    tg = t.plan.transpose
    (s0, d0), (s1, d1) = tg.groups[0], tg.groups[1]
    groups = ((s0, d1), (s1, d0)) + tg.groups[2:]          # receivers file two groups in each other's registers
    swapped = dataclasses.replace(t.plan, transpose=dataclasses.replace(tg, groups=groups))
    assert _emulated_ok(dataclasses.replace(t, plan=swapped)) is not None


def test_a_layout_that_is_not_a_bijection_is_refused_as_a_shared_layout():
    from llverify.errors import LayoutError
    from llverify.layout import LinearLayout

    s = LinearLayout([("offset", [(0, 1), (0, 1)]), ("block", [])], [("dim0", 2), ("dim1", 2)],
                     require_surjective=False)
    with pytest.raises(LayoutError):
        SharedMap.of(s)


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


def test_vector_plan_permutes_registers_and_keeps_alignment():
    p = vector_plan([2, 1, 16], [4, 8], 2)
    assert (p.vec, p.chosen, p.rest) == (4, (1, 0), (2,))
    assert [p.register(0, i) for i in range(4)] == [0, 2, 1, 3]
    assert vector_plan([1, 2], [1], 4).vec == 1          # a lane shares bit 0: no vector
    assert vector_plan([1, 2, 4, 8], [16], 1).vec == 16  # 16 bytes at most
    assert vector_plan([1, 2, 4], [8], 4).vec == 4


def test_local_zoo_matches_the_hw_zoo():
    mma2 = Spec.of("nvidia_mma", version=2, warps_per_cta=(4, 1), instr_shape=(16, 8))
    mma3 = Spec.of("nvidia_mma", version=3, warps_per_cta=(4, 1), instr_shape=(16, 64, 16))
    specs = [
        ("blocked", (64, 64), dict(size_per_thread=(1, 8), threads_per_warp=(4, 8), warps_per_cta=(4, 1), order=(1, 0))),
        ("blocked", (128, 64), dict(size_per_thread=(4, 1), threads_per_warp=(16, 2), warps_per_cta=(1, 8), order=(0, 1))),
        ("nvidia_mma", (64, 64), mma2.kwargs()),
        ("nvidia_mma", (64, 64), mma3.kwargs()),
        ("dot_operand", (64, 64), dict(operand_index=0, parent=mma2, k_width=2)),
        ("dot_operand", (64, 64), dict(operand_index=1, parent=Spec.of("nvidia_mma", version=2, warps_per_cta=(2, 2),
                                                                          instr_shape=(16, 8)), k_width=4)),
        ("dot_operand", (64, 64), dict(operand_index=0, parent=mma3, k_width=1)),
        ("slice", (64,), dict(dim=1, parent=mma2)),
        ("swizzled_shared", (32, 32), dict(vec=2, per_phase=2, max_phase=4, order=(1, 0))),
    ]
    for kind, shape, params in specs:
        assert build(kind, shape, **params) == build_local(kind, shape, **params), (kind, shape, params)


def test_triton_swizzle_is_the_128_byte_pattern():
    s = SharedMap.of(triton_swizzle((64, 64), 2))       # 8 halves per 16 bytes, 8 phases
    assert s.offset(1 * 64 + 0) == 64 + 8                # row 1 starts one 16-byte chunk over
    assert s.offset(8 * 64) == 8 * 64                    # row 8 wraps around
    assert SharedMap.of(row_major_shared((8, 8))).offset(13) == 13


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
def test_generated_cuda_compiles_with_nvcc(tmp_path):
    """One translation unit with a kernel of every (variant, type), plus all shuffles and slices."""
    picked: dict = {}
    for c in QUICK:
        picked.setdefault((c.variant, c.dtype), c)
        if c.variant == "shuffle" or c.pair.startswith("slice"):
            picked.setdefault(c.name, c)
    src = tmp_path / "all.cu"
    unique = {c.name: c for c in picked.values()}
    src.write_text("\n".join(c.kernel().code for c in unique.values()))
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
