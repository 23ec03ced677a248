"""Code-generation plans on the hardware zoo (``llverify.hw.build``): conversions, shuffles, banks, swizzles.

Every layout here is built by the zoo constructors (bit-exact with Triton
3.9.0, see tests/test_hw_differential.py); expectations are semantic facts
checked by independent numpy evaluation or by the brute-force bank
simulator, never values copied from the code under test.  The default run
covers 2-3 shapes and warp counts; ``-m slow`` sweeps more.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import bank_wavefronts
from llverify.codegen.common import remove_broadcast_registers
from llverify.codegen.conversion import CLASSIFICATIONS, convert
from llverify.codegen.shuffle import ShuffleRound, shuffle_plan
from llverify.codegen.swizzle import optimal_swizzle
from llverify.codegen.triton_swizzle import triton_mma_v2_operand_swizzle, triton_nvmma_operand_swizzle
from llverify.evaluate import evaluate_flat
from llverify.hw import build
from llverify.layout import LinearLayout as LL
from llverify.prove.plan_conversion import prove_conversion_plan
from llverify.prove.plan_shuffle import prove_shuffle_plan
from llverify.prove.plan_swizzle import prove_optimal_swizzle


# ------------------------------------------------------------------ the zoo
def mma_parent(nw: int, version: int = 2, n: int = 8) -> dict:
    instr = [16, 8] if version == 2 else [16, n, 16]
    return {"kind": "nvidia_mma", "version": [version, 0], "warps_per_cta": [nw, 1], "instr_shape": instr}


def zoo_2d(M: int, N: int, nw: int) -> dict[str, LL]:
    """32-lane distributed layouts of an ``M x N`` tile with ``nw`` warps (all warps along dim0)."""
    p2 = mma_parent(nw)
    return {
        "blocked_1x8_16x2": build("blocked", [M, N], size_per_thread=[1, 8], threads_per_warp=[16, 2],
                                  warps_per_cta=[nw, 1], order=[1, 0]),
        "blocked_1x4_8x4": build("blocked", [M, N], size_per_thread=[1, 4], threads_per_warp=[8, 4],
                                 warps_per_cta=[nw, 1], order=[1, 0]),
        "blocked_transposed": build("blocked", [M, N], size_per_thread=[2, 2], threads_per_warp=[8, 4],
                                    warps_per_cta=[nw, 1], order=[0, 1]),
        "blocked_warps_dim1": build("blocked", [M, N], size_per_thread=[1, 4], threads_per_warp=[4, 8],
                                    warps_per_cta=[1, nw], order=[1, 0]),
        "mma_v2": build("nvidia_mma", [M, N], **{k: v for k, v in p2.items() if k != "kind"}),
        "mma_v3": build("nvidia_mma", [M, N], version=[3, 0], warps_per_cta=[nw, 1], instr_shape=[16, N, 16]),
        "dot_a_k2": build("dot_operand", [M, N], operand_index=0, parent=p2, k_width=2),
        "dot_a_k4": build("dot_operand", [M, N], operand_index=0, parent=p2, k_width=4),
        "dot_b_k2": build("dot_operand", [M, N], operand_index=1, parent=p2, k_width=2),
    }


def zoo_1d(n: int, nw: int) -> dict[str, LL]:
    """1-D layouts: slices of blocked and mma parents (with broadcast lanes) and a plain blocked."""
    par = {"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [4, 8], "warps_per_cta": [nw, 1],
           "order": [1, 0]}
    return {
        "slice1_blocked": build("slice", [n], dim=1, parent=par),
        "slice0_blocked": build("slice", [n], dim=0, parent=par),
        "slice1_mma": build("slice", [n], dim=1, parent=mma_parent(nw)),
        "blocked_1d": build("blocked", [n], size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[nw], order=[0]),
        "blocked_1d_2": build("blocked", [n], size_per_thread=[2], threads_per_warp=[32], warps_per_cta=[nw], order=[0]),
    }


def zoo_amd(M: int, N: int) -> dict[str, LL]:
    """64-lane layouts: AMD MFMA accumulators (plain and transposed) and a 64-thread blocked layout."""
    return {
        "mfma": build("amd_mfma", [M, N], version=3, instr_shape=[32, 32, 8], transposed=False, warps_per_cta=[2, 2]),
        "mfma_t": build("amd_mfma", [M, N], version=3, instr_shape=[32, 32, 8], transposed=True, warps_per_cta=[2, 2]),
        "blocked_64": build("blocked", [M, N], size_per_thread=[1, 4], threads_per_warp=[4, 16], warps_per_cta=[2, 2],
                            order=[1, 0]),
    }


# ------------------------------------------------------------------ independent semantics
def _table(L: LL, like: LL) -> np.ndarray:
    """Flat element of every slot, as ``[block, warp, lane, register]`` (out dims in ``like``'s order)."""
    Lt = L.transpose_outs(list(like.out_dim_names))
    sizes = [Lt.in_dim_size(d) if Lt.has_in_dim(d) else 1 for d in ("block", "warp", "lane", "register")]
    assert list(Lt.in_dim_names)[:4] == ["register", "lane", "warp", "block"][:len(Lt.in_dim_names)]
    return evaluate_flat(Lt).reshape(sizes)


def needed_movement(A: LL, B: LL) -> str:
    """The cheapest hardware that can move A's data to B's slots, by brute force over every slot.

    shared_memory if some warp needs an element no thread of that warp holds;
    warp_shuffle if some lane needs an element it does not hold; register
    permutation if some register slot holds another element; else noop.
    """
    ta, tb = _table(A, A), _table(B, A)
    if ta.shape[:2] != tb.shape[:2]:
        return "shared_memory"
    nb, nw = tb.shape[:2]
    for b, w in itertools.product(range(nb), range(nw)):
        if not np.isin(tb[b, w], ta[b, w]).all():
            return "shared_memory"
    if ta.shape[2] != tb.shape[2]:
        return "warp_shuffle"
    for b, w, lane in itertools.product(range(nb), range(nw), range(tb.shape[2])):
        if not np.isin(tb[b, w, lane], ta[b, w, lane]).all():
            return "warp_shuffle"
    if ta.shape != tb.shape or not np.array_equal(ta, tb):
        return "register_permutation"
    return "noop"


def _rank(kind: str) -> int:
    return CLASSIFICATIONS.index(kind)


def check_conversions(Z: dict[str, LL]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for (na, A), (nb, B) in itertools.product(Z.items(), Z.items()):
        plan = convert(A, B)
        v = prove_conversion_plan(plan)
        assert v.status == "proved", (na, nb, v.message)
        need = needed_movement(A, B)
        # Triton's dispatch is never cheaper than what the data needs (the proof shows it is enough)
        assert _rank(plan.classification) >= _rank(need), (na, nb, plan.classification, need)
        if na == nb:
            assert plan.classification == "noop"
        counts[plan.classification] = counts.get(plan.classification, 0) + 1
        if plan.classification != need:
            # only where the source holds copies across warps/lanes: cvt picks the copy with free bits zero
            # (section 5.4, minimum-norm solution), so Triton's dispatch moves data another copy already has
            masks = A.free_variable_masks()
            assert masks.get("warp", 0) or masks.get("lane", 0), (na, nb, plan.classification, need)
            counts["over"] = counts.get("over", 0) + 1
    return counts


# ------------------------------------------------------------------ conversions
@pytest.mark.parametrize("M,N,nw", [(64, 64, 4), (128, 64, 8), (32, 64, 4)])
def test_zoo_conversions_classified_and_proved(M, N, nw):
    counts = check_conversions(zoo_2d(M, N, nw))
    # the zoo exercises every kind of movement
    assert counts.get("shared_memory", 0) and counts.get("warp_shuffle", 0) and counts.get("noop", 0)
    # dot_b (warps hold copies of operand B) is the only source where the dispatch does more than needed
    assert counts.get("over", 0) <= len(zoo_2d(M, N, nw)) - 1


@pytest.mark.parametrize("n,nw", [(64, 4), (128, 8)])
def test_zoo_slice_conversions(n, nw):
    check_conversions(zoo_1d(n, nw))


def test_zoo_amd_conversions():
    counts = check_conversions(zoo_amd(64, 64))
    assert counts.get("warp_shuffle", 0) >= 2   # mfma <-> transposed mfma


def test_known_zoo_facts():
    Z = zoo_2d(64, 64, 4)
    # mma v2 accumulator and its k_width=2 A operand hold the same elements in the same slots (a no-op)
    assert convert(Z["mma_v2"], Z["dot_a_k2"]).classification == "noop"
    # warps along different dims: shared memory
    assert convert(Z["blocked_1x4_8x4"], Z["blocked_warps_dim1"]).classification == "shared_memory"
    assert convert(Z["blocked_1x8_16x2"], Z["mma_v2"]).classification == "warp_shuffle"


def _replace_basis(L: LL, dim: str, i: int, new: list[int]) -> LL:
    bases = {d: [list(b) for b in bs] for d, bs in L.bases.items()}
    bases[dim][i] = new
    return LL(list(bases.items()), list(L.out_dims.items()), require_surjective=False)


@pytest.mark.parametrize("src,dst", [("blocked_1x4_8x4", "mma_v2"), ("mma_v3", "blocked_warps_dim1"),
                                     ("blocked_1x8_16x2", "dot_a_k4")])
def test_zoo_conversion_mutants_refuted_with_replay(src, dst):
    Z = zoo_2d(64, 64, 4)
    A, B = Z[src], Z[dst]
    plan = convert(A, B)
    # mutant 1: one wrong warp basis in cvt (the source warp picked for warp bit 0 is off by a lane)
    w0 = list(plan.cvt.bases["warp"][0])
    names = list(plan.cvt.out_dim_names)
    w0[names.index("lane")] ^= 1
    bad = dataclasses.replace(plan, cvt=_replace_basis(plan.cvt, "warp", 0, w0))
    v = prove_conversion_plan(bad)
    assert v.status == "refuted"
    x = dict(v.counterexample.inputs)
    y = dict(bad.cvt.apply({d: x.get(d, 0) for d in bad.cvt.in_dim_names}))
    got = dict(A.apply({d: y.get(d, 0) for d in A.in_dim_names}))
    want = dict(B.apply({d: x.get(d, 0) for d in B.in_dim_names}))
    assert got != want and v.counterexample.sides["A(cvt(x))"] == got and v.counterexample.sides["B(x)"] == want
    # mutant 2: the destination has one wrong warp basis (cvt planned for the true destination)
    wb = [0] * len(B.out_dim_names)
    wb[list(B.out_dim_names).index("dim1")] = 1 if list(B.bases["warp"][0]) != [0, 1] else 2
    B2 = _replace_basis(B, "warp", 0, wb)
    v2 = prove_conversion_plan(dataclasses.replace(plan, dst=B2))
    assert v2.status == "refuted"
    x = dict(v2.counterexample.inputs)
    assert dict(B2.apply({d: x.get(d, 0) for d in B2.in_dim_names})) == v2.counterexample.sides["B(x)"]
    assert v2.counterexample.sides["A(cvt(x))"] != v2.counterexample.sides["B(x)"]


# ------------------------------------------------------------------ warp shuffles
def _shuffle_pairs(Z: dict[str, LL]):
    for (na, A), (nb, B) in itertools.product(Z.items(), Z.items()):
        if convert(A, B).classification == "warp_shuffle":
            yield na, A, nb, B


@pytest.mark.parametrize("zoo,src,dst,bw", [
    ("2d", "blocked_1x8_16x2", "mma_v2", 16), ("2d", "mma_v2", "dot_a_k4", 8), ("amd", "mfma", "mfma_t", 32),
])
def test_zoo_shuffle_plans_proved(zoo, src, dst, bw):
    Z = zoo_2d(64, 64, 4) if zoo == "2d" else zoo_amd(64, 64)
    A, B = Z[src], Z[dst]
    assert convert(A, B).classification == "warp_shuffle"
    p = shuffle_plan(A, B, bitwidth=bw)
    v = prove_shuffle_plan(p)
    assert v.status == "proved", v.message
    assert v.details["smt"] == "unsat" and p.bits_per_shuffle <= 32
    # every lane receives each of its destination registers exactly once over the rounds
    n_regs = B.in_dim_size("register")
    for u in range(B.in_dim_size("lane")):
        got = sorted(r for rnd in p.rounds for r in rnd.recv_regs[u])
        assert got == list(range(n_regs)), (u, got)
    if zoo == "2d":   # one wrong srcLane is refuted
        r0 = p.rounds[0]
        src_lane = list(r0.src_lane)
        src_lane[3] ^= 1
        bad = prove_shuffle_plan(p.with_round(0, ShuffleRound(tuple(src_lane), r0.send_regs, r0.recv_regs)))
        assert bad.status == "refuted" and bad.counterexample.inputs["lane"] == 3


@pytest.mark.slow
@pytest.mark.parametrize("M,N,nw", [(64, 64, 4), (128, 64, 8), (64, 32, 4)])
def test_zoo_all_shuffle_plans_proved_slow(M, N, nw):
    n = 0
    for na, A, nb, B in _shuffle_pairs(zoo_2d(M, N, nw)):
        v = prove_shuffle_plan(shuffle_plan(A, B, bitwidth=16))
        assert v.status == "proved", (na, nb, v.message)
        n += 1
    assert n >= 10


# ------------------------------------------------------------------ bank conflicts
def shared_zoo(M: int, N: int, bw: int, A: LL, B: LL) -> dict[str, LL]:
    out = {
        "unswizzled": build("swizzled_shared", [M, N], vec=1, per_phase=1, max_phase=1, order=[1, 0]),
        "swizzled_8_1_8": build("swizzled_shared", [M, N], vec=8, per_phase=1, max_phase=8, order=[1, 0]),
        "swizzled_4_2_4_colmajor": build("swizzled_shared", [M, N], vec=4, per_phase=2, max_phase=4, order=[0, 1]),
        "triton_heuristic": triton_mma_v2_operand_swizzle(0, [M, N], [1, 0], bw, max(1, 32 // bw)).layout,
        "optimal": optimal_swizzle(A, B, bw).layout,
    }
    for width in (32, 64, 128):
        if N * bw // 8 >= width:
            out[f"nvmma_{width}"] = build("nvmma_shared", [M, N], swizzle_byte_width=width, element_bitwidth=bw)
    out["nvmma_transposed"] = triton_nvmma_operand_swizzle([M, N], [0, 1], bw).layout
    return out


def check_banks(M: int, N: int, nw: int, bw: int) -> int:
    Z = zoo_2d(M, N, nw)
    n = 0
    shareds = shared_zoo(M, N, bw, Z["blocked_1x4_8x4"], Z["dot_a_k2"])
    for (na, A), (ns, S) in itertools.product(Z.items(), shareds.items()):
        rep = bank_wavefronts(A, S, bw)
        sim = simulate_wavefronts(A, S, bw, rep.vector)
        assert sim.min_wavefronts == sim.max_wavefronts == rep.wavefronts, (na, ns, bw, rep.to_json(), sim.to_json())
        n += 1
    return n


@pytest.mark.parametrize("bw", [16, 32])
def test_zoo_bank_formula_equals_simulator(bw):
    assert check_banks(64, 64, 4, bw) >= 60


@pytest.mark.slow
@pytest.mark.parametrize("M,N,nw,bw", [(128, 64, 8, 8), (128, 64, 8, 16), (32, 64, 4, 8), (64, 128, 4, 32),
                                       (64, 64, 4, 64)])
def test_zoo_bank_formula_equals_simulator_slow(M, N, nw, bw):
    assert check_banks(M, N, nw, bw) > 0


# ------------------------------------------------------------------ optimal swizzle vs Triton's heuristic
def tile_wavefronts(access: LL, S: LL, bw: int, max_vec: int | None = None) -> int:
    """Wavefronts one warp spends moving its whole part of the tile: per instruction x instructions."""
    rep = bank_wavefronts(access, S, bw, max_vec)
    regs = remove_broadcast_registers(access).in_dim_size("register")
    return rep.wavefronts * (regs // rep.vector.elems)


def swizzle_pairs(M: int, N: int, nw: int, bw: int):
    kw = max(1, 32 // bw)
    p2 = mma_parent(nw)
    dots = [("dot_a", build("dot_operand", [M, N], operand_index=0, parent=p2, k_width=kw), 0),
            ("dot_b", build("dot_operand", [M, N], operand_index=1, parent=p2, k_width=kw), 1)]
    srcs = [("blocked_row", build("blocked", [M, N], size_per_thread=[1, 8], threads_per_warp=[4, 8],
                                  warps_per_cta=[nw, 1], order=[1, 0]), [1, 0]),
            ("blocked_col", build("blocked", [M, N], size_per_thread=[8, 1], threads_per_warp=[8, 4],
                                  warps_per_cta=[1, nw], order=[0, 1]), [0, 1]),
            ("mma_v2", build("nvidia_mma", [M, N], version=[2, 0], warps_per_cta=[nw, 1], instr_shape=[16, 8]),
             [1, 0])]
    for (ns, A, order), (nd, B, oi) in itertools.product(srcs, dots):
        yield f"{ns}->{nd}", A, B, triton_mma_v2_operand_swizzle(oi, [M, N], order, bw, kw)


def check_swizzles(M: int, N: int, nw: int, bw: int) -> list[tuple[str, int, int]]:
    rows = []
    for name, A, B, tri in swizzle_pairs(M, N, nw, bw):
        plan = optimal_swizzle(A, B, bw)
        v = prove_optimal_swizzle(A, B, bw, plan)
        if plan.lemma_applies:
            assert v.status == "proved", (name, v.message)
            assert v.details["write_wavefronts"] == v.details["write_lower_bound"]
            assert v.details["read_wavefronts"] == v.details["read_lower_bound"]
        else:   # sub-word vectors: counts proved exact, lemma 9.5 does not bound them
            assert v.status == "unknown" and v.details["write_proof"] == v.details["read_proof"] == "proved"
        # ground truth for the plan's counts: the simulator
        assert simulate_wavefronts(A, plan.layout, bw, bank_wavefronts(A, plan.layout, bw, plan.vector_elems).vector) \
            .wavefronts == plan.write_wavefronts
        ours = tile_wavefronts(A, plan.layout, bw, plan.vector_elems) + tile_wavefronts(B, plan.layout, bw,
                                                                                         plan.vector_elems)
        theirs = tile_wavefronts(A, tri.layout, bw) + tile_wavefronts(B, tri.layout, bw)
        assert ours <= theirs, (name, ours, theirs, tri.params)
        rows.append((name, ours, theirs))
    return rows


def test_zoo_optimal_swizzle_proved_and_beats_triton_heuristic():
    rows = check_swizzles(64, 64, 4, 16)
    assert len(rows) == 6
    # and strictly better somewhere: the heuristic serves operand B's reads column-wise
    assert any(o < t for _, o, t in rows)


@pytest.mark.slow
@pytest.mark.parametrize("M,N,nw,bw", [(128, 64, 8, 16), (64, 128, 4, 16), (64, 64, 4, 8), (32, 64, 4, 16),
                                       (128, 128, 8, 8)])
def test_zoo_optimal_swizzle_slow(M, N, nw, bw):
    assert check_swizzles(M, N, nw, bw)


def test_zoo_swizzle_mutant_refuted():
    name, A, B, _ = next(swizzle_pairs(64, 64, 4, 16))
    plan = optimal_swizzle(A, B, 16)
    S = plan.layout
    offs = [list(b) for b in S.bases["offset"]]
    # replace the last index basis by the first phase lane of A: a write conflict lemma 9.5 forbids
    lane = [list(b) for b in A.bases["lane"] if any(b)][0]
    if lane in offs:
        offs.remove(lane)
        offs.append(lane)
    else:
        offs[-1] = lane
    bad = LL([("offset", offs)] + [(d, [list(b) for b in bs]) for d, bs in S.bases.items() if d != "offset"],
             list(S.out_dims.items()), require_surjective=False)
    v = prove_optimal_swizzle(A, B, 16, dataclasses.replace(plan, layout=bad))
    assert v.status == "refuted", v.message


def test_triton_heuristic_reproduces_the_familiar_choice():
    # f16 A operand, 64 contiguous K elements (128-byte rows): swizzled_shared<vec 8, per_phase 1, max_phase 8>
    c = triton_mma_v2_operand_swizzle(0, [64, 64], [1, 0], 16, 2)
    assert c.params == {"vec": 8, "per_phase": 1, "max_phase": 8, "order": [1, 0]}
    # 32 f16 per row (64 bytes): two rows per phase
    assert triton_mma_v2_operand_swizzle(0, [64, 32], [1, 0], 16, 2).params["per_phase"] == 2
    assert triton_nvmma_operand_swizzle([64, 64], [1, 0], 16).params["swizzle_byte_width"] == 128
    assert triton_nvmma_operand_swizzle([64, 16], [1, 0], 16).params["swizzle_byte_width"] == 32
