"""``tt.gather`` warp-locality: the gate's obligation for gathers Triton marks ``efficient_layout``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from llverify.codegen.gather import gather_plan
from llverify.hw import build
from llverify.hw.sampling import random_case
from llverify.hw.registry import build_spec
from llverify.prove.gather_locality import gather_warp_local
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
GATHERS = sorted(p for p in CORPUS.rglob("*.ttgir") if "tt.gather" in p.read_text())


def test_corpus_gathers_are_warp_local() -> None:
    assert len(GATHERS) >= 10
    seen = 0
    for path in GATHERS:
        for f in check_module(parse_module(path.read_text(), str(path))):
            if f.op == "tt.gather":
                assert f.verdict.status == "proved", (path.name, f.verdict.message)
                seen += f.verdict.property == "gather_warp_local"
    assert seen >= len(GATHERS)


def test_agrees_with_the_papers_condition_when_src_is_index() -> None:
    """With src == index, conditions 2 and 3 hold trivially and condition 1 is section 5.5's span test
    (llverify.codegen.gather, written independently): both must agree on random blocked layouts."""
    rng = random.Random(7)
    agree = local = 0
    for _ in range(300):
        case = random_case("blocked", rng)
        L = build_spec({"kind": "blocked", **case["params"]}, case["shape"])
        for axis in range(len(case["shape"])):
            ours = gather_warp_local(L, L, axis).status
            paper = gather_plan(L, axis).warp_local
            assert (ours == "proved") == paper, (case, axis)
            agree += 1
            local += paper
    assert agree > 300 and 0 < local < agree  # both outcomes exercised


def test_warps_along_the_axis_are_refuted_with_the_basis() -> None:
    L = build("blocked", [32, 32], size_per_thread=[1, 1], threads_per_warp=[4, 8], warps_per_cta=[1, 4],
              order=[1, 0])
    v = gather_warp_local(L, L, axis=1)
    assert v.status == "refuted"
    cx = v.counterexample
    assert cx is not None and "warp" in cx.inputs
    # replay: that warp basis really moves along dim1
    value = L.apply(**{n: cx.inputs.get(n, 0) for n in L.in_dim_names})
    assert value["dim1"] != 0
    assert gather_warp_local(L, L, axis=0).status == "proved"


def test_different_lane_maps_are_refuted() -> None:
    """Condition 3: src and index hold a column in different lanes (each warp-local by itself)."""
    src = build("blocked", [32, 32], size_per_thread=[1, 32], threads_per_warp=[32, 1], warps_per_cta=[1, 1],
                order=[1, 0])
    lanes_rev = build("linear", [32, 32], reg_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                      lane_bases=[[16, 0], [8, 0], [4, 0], [2, 0], [1, 0]], warp_bases=[], block_bases=[])
    assert gather_warp_local(src, src, axis=1).status == "proved"
    assert gather_warp_local(lanes_rev, lanes_rev, axis=1).status == "proved"
    v = gather_warp_local(src, lanes_rev, axis=1)
    assert v.status == "refuted" and v.counterexample is not None and "lane" in v.counterexample.inputs


def test_mutant_module_is_flagged_at_the_gather() -> None:
    """A real gather module whose layout is re-declared with its warps split along the gather axis (the whole
    module stays consistent, so only the efficient_layout expectation breaks).  The IR stays valid (Triton lowers
    a gather that is not warp-local through shared memory, whatever efficient_layout says), so the gate reports
    it as unknown with the locality counterexample's reason, not as a refutation."""
    path = next(p for p in GATHERS if p.parent == CORPUS and "cuda_90-w4" in p.name)
    text = path.read_text()
    old = "threadsPerWarp = [1, 32], warpsPerCTA = [4, 1]"
    assert old in text.splitlines()[0]
    mutant = text.replace(old, "threadsPerWarp = [32, 1], warpsPerCTA = [1, 4]", 1)
    gathers = [f for f in check_module(parse_module(mutant, "mutant.ttgir")) if f.op == "tt.gather"]
    assert not [f for f in gathers if f.verdict.status == "refuted"]
    flagged = [f for f in gathers if f.verdict.status == "unknown"]
    assert [f.verdict.property for f in flagged] == ["gather_warp_local"]
    assert "not warp-local" in flagged[0].verdict.message and "warp" in flagged[0].verdict.message
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "tt.gather" in ln)
    assert flagged[0].location.line == line
    assert all(f.verdict.status == "proved" for f in check_module(parse_module(text, "orig.ttgir"))
               if f.op == "tt.gather")
