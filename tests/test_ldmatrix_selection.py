"""llverify's choice of shared-memory instructions for a conversion (codegen/ldst_select.py) against what
Triton 3.9 emits on cuda:90 (tests/data/ldmatrix_evidence.json, written by examples/ldmatrix_evidence.py:
one-conversion Gluon kernels compiled to PTX on CPU; the record keeps the two layouts as Triton printed them
and which of stmatrix/ldmatrix (.trans, .xN) or st.shared/ld.shared occur)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.codegen.ldst_select import candidate_tiles, plan_shared_conversion, select_conversion_instructions
from llverify.codegen.shuffle import triton_lowering
from llverify.triton.parse import layout_from_attr, parse_aliases

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = json.loads((ROOT / "tests" / "data" / "ldmatrix_evidence.json").read_text())


def layouts(rec: dict):
    al = parse_aliases("\n".join(rec["aliases"]))
    m = re.search(r": tensor<([0-9x]+)x\w+, (.*)> -> tensor<[0-9x]+x\w+, (.*)> loc", rec["convert_lines"][0])
    shape = [int(x) for x in m.group(1).split("x")]
    return layout_from_attr(m.group(2), shape, al), layout_from_attr(m.group(3), shape, al)


def triton_choice(ptx: dict) -> tuple[str, str, set[str]]:
    store = ("stmatrix_trans" if ptx["stmatrix_trans"] else "stmatrix" if ptx["stmatrix"] else
             "vector" if ptx["st_shared"] else "none")
    load = ("ldmatrix_trans" if ptx["ldmatrix_trans"] else "ldmatrix" if ptx["ldmatrix"] else
            "vector" if ptx["ld_shared"] else "none")
    return store, load, set(ptx["matrix_shapes"])


def _shape_of(instr: str, n: int) -> str:
    base = instr.replace("_trans", "")
    return f"{base}.sync.aligned.m8n8.x{n}" + (".trans" if instr.endswith("_trans") else "")


def agreement(plan_fn=plan_shared_conversion) -> tuple[int, int, list[str]]:
    agree, total, bad = 0, 0, []
    for rec in EVIDENCE["cases"]:
        if "ptx" not in rec or "local" in rec:
            continue
        total += 1
        src, dst = layouts(rec)
        store, load, shapes = triton_choice(rec["ptx"])
        plan = plan_fn(src, dst, rec["bits"])
        mine_shapes = {_shape_of(i, n) for i, n in ((plan.store, plan.store_matrices), (plan.load, plan.load_matrices))
                       if i != "vector"}
        counts_ok = all(rec["ptx"][i] == n for i, n in ((plan.store, plan.store_instructions),
                                                         (plan.load, plan.load_instructions)) if i != "vector")
        if (plan.store, plan.load) == (store, load) and mine_shapes == shapes and counts_ok:
            agree += 1
        else:
            bad.append(f"{rec['pair']} {rec['dtype']} {rec['shape']} w{rec['warps']}: triton {store}/{load} {shapes}, "
                       f"llverify {plan.store}/{plan.load} {mine_shapes} counts_ok={counts_ok}")
    return agree, total, bad


def test_evidence_is_triton_3_9_on_cuda_90_and_varied():
    assert EVIDENCE["triton"] == "3.9.0" and EVIDENCE["target"] == "cuda:90"
    recs = [r for r in EVIDENCE["cases"] if "ptx" in r and "local" not in r]
    assert len(recs) >= 37
    kinds = {triton_choice(r["ptx"])[:2] for r in recs}
    # every instruction kind occurs on some side, and dot-operand destinations with 16-bit elements are included
    assert {k[0] for k in kinds} >= {"vector", "stmatrix", "stmatrix_trans"}
    assert {k[1] for k in kinds} >= {"vector", "ldmatrix", "ldmatrix_trans"}
    assert sum("dot" in r["pair"] and r["bits"] == 16 for r in recs) >= 8
    # each is a conversion through shared memory by llverify's classification too
    assert all(triton_lowering(*layouts(r)) == "shared_memory" for r in recs)


def test_selection_agrees_with_triton_3_9():
    agree, total, bad = agreement()
    assert agree == total, "\n".join(bad)


def test_mutant_selection_always_vector_disagrees():
    from llverify.codegen import ldst_select

    def always_vector(src, dst, bits, target="cuda:90"):
        plan = plan_shared_conversion(src, dst, bits, target="cuda:70")   # no matrix instruction on sm_70
        return plan

    agree, total, _ = agreement(always_vector)
    assert total - agree >= 15
    # and a mutant that ignores the cost (always the last feasible pair) disagrees too
    orig = ldst_select.select_conversion_instructions

    def last_pair(src, dst, bits, target="cuda:90"):
        best, pairs = orig(src, dst, bits, target)
        return (pairs[-1] if pairs else None), pairs

    ldst_select.select_conversion_instructions = last_pair
    try:
        agree2, _, _ = agreement()
    finally:
        ldst_select.select_conversion_instructions = orig
    assert agree2 < total


def test_candidates_follow_the_target():
    st80, ld80 = candidate_tiles(16, "cuda:80")
    assert [t.kind for t in st80] == ["vector"] and [t.kind for t in ld80] == ["vector", "matrix", "matrix_trans"]
    st90, _ = candidate_tiles(32, "cuda:90")
    assert [t.kind for t in st90] == ["vector", "matrix"]          # .trans is 16-bit only
    assert [t.kind for t in candidate_tiles(64, "cuda:90")[0]] == ["vector"]
    # on sm_80 the mma epilogue store cannot use stmatrix
    rec = next(r for r in EVIDENCE["cases"] if r["pair"] == "mma_to_blocked8" and r["bits"] == 16)
    assert plan_shared_conversion(*layouts(rec), 16, target="cuda:80").store == "vector"
    best, pairs = select_conversion_instructions(*layouts(rec), 16)
    assert best.store == "stmatrix" and [(p.store, p.load) for p in pairs] == [("stmatrix", "vector")]


def local_layouts(rec: dict):
    al = parse_aliases("\n".join(rec["aliases"]))
    alloc, load = rec["convert_lines"]
    m = re.search(r"\(tensor<([0-9x]+)x\w+, (.*)>\) -> !ttg.memdesc<[0-9x]+x\w+, (#\w+)", alloc)
    shape = [int(x) for x in m.group(1).split("x")]
    dst = re.search(r"-> tensor<[0-9x]+x\w+, (.*)> loc", load).group(1)
    return tuple(layout_from_attr(t, shape, al) for t in (m.group(2), m.group(3), dst))


def test_local_alloc_and_local_load_instructions_agree_with_triton_3_9():
    from llverify.codegen.ldst_select import plan_local_access

    recs = [r for r in EVIDENCE["cases"] if "local" in r]
    assert len(recs) >= 10
    seen = set()
    for rec in recs:
        src, shared, dst = local_layouts(rec)
        store, load, shapes = triton_choice(rec["ptx"])
        ps, pl = plan_local_access(src, shared, rec["bits"], "store"), plan_local_access(dst, shared, rec["bits"], "load")
        assert (ps.instruction, pl.instruction) == (store, load), rec["pair"]
        for p, name in ((ps, store), (pl, load)):
            if name != "vector":
                assert _shape_of(name, p.matrices) in shapes
        seen |= {store, load}
    assert seen == {"vector", "stmatrix", "stmatrix_trans", "ldmatrix", "ldmatrix_trans"}
    # unswizzled tiles keep the matrix instruction and pay 8 wavefronts per matrix
    rec = next(r for r in recs if r["pair"] == "mma_plain_dotA")
    src, shared, dst = local_layouts(rec)
    assert plan_local_access(dst, shared, 16, "load").wavefronts == 32
    assert plan_local_access(src, shared, 16, "store", target="cuda:80").instruction == "vector"


@pytest.mark.slow
def test_recompile_three_cases_matches_committed_facts(tmp_path):
    out = tmp_path / "ev.json"
    for name in ("blocked4_to_dotB", "mma_to_dotB", "rowmajor_to_colmajor"):
        subprocess.run([sys.executable, str(ROOT / "examples" / "ldmatrix_evidence.py"), "--only", name, "--out",
                        str(out)], check=True, timeout=600, cwd=ROOT)
        fresh = json.loads(out.read_text())["cases"]
        for rec in fresh:
            old = next(r for r in EVIDENCE["cases"] if all(r[k] == rec[k] for k in ("pair", "dtype", "shape", "warps")))
            assert rec["ptx"] == old["ptx"]


def _random_distributed(rng, n_bits=12):
    from llverify.layout import LinearLayout

    units = [1 << i for i in range(n_bits)]
    rng.shuffle(units)
    regs, lanes, warps = units[:5], units[5:10], units[10:]

    def split(v):
        return [v & 63, v >> 6]

    return LinearLayout.from_bases({"register": [split(v) for v in regs], "lane": [split(v) for v in lanes],
                                    "warp": [split(v) for v in warps], "block": []}, ["dim0", "dim1"])


def test_random_pairs_plan_and_every_count_replays():
    """On random distributed pairs (64 x 64, 4 warps, 8/16/32-bit) the plan never crashes, its swizzle is a
    memory layout, and both sides' wavefront counts equal the brute-force simulators' on the planned swizzle."""
    import random

    from llverify.codegen.bank_sim import simulate_matrix_wavefronts, simulate_wavefronts

    rng = random.Random(7)
    kinds = set()
    for _ in range(60):
        a, b = _random_distributed(rng), _random_distributed(rng)
        bits = rng.choice([8, 16, 16, 32])
        plan = plan_shared_conversion(a, b, bits)
        assert plan.shared.is_invertible()
        for side, L in (("store", a), ("load", b)):
            instr = getattr(plan, side)
            count = getattr(plan, f"{side}_wavefronts")
            kinds.add(instr)
            if instr == "vector":
                assert simulate_wavefronts(L, plan.shared, bits).max_wavefronts == count
            else:
                sim = simulate_matrix_wavefronts(L, plan.shared, bits, instr, tile=getattr(plan, f"{side}_tile"))
                assert sim.max_wavefronts == sim.min_wavefronts == count
    assert {"vector", "stmatrix", "ldmatrix"} <= kinds
