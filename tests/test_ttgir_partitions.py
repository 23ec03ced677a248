"""Warp-specialized modules: each worker partition's layouts are checked against its own warp count, which
Triton 3.9 prints only in the region header (``partition0(...) num_warps(2) {``)."""

from __future__ import annotations

from pathlib import Path

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

WS = sorted((Path(__file__).resolve().parent / "data" / "ttgir" / "warp_specialize").glob("*.ttgir"))


def test_the_partition_warp_count_is_read_from_the_region_header() -> None:
    text = WS[0].read_text()
    assert "partitionNumWarps" not in text and "num_warps(2)" in text
    m = parse_module(text, WS[0].name)
    (ws,) = [op for _, op, _ in m.walk() if op.name == "ttg.warp_specialize"]
    assert ws.attributes["partitionNumWarps"] == "array<i32: 2>"
    warps = {w for _, op, w in m.walk() if op.name == "tt.load"}
    assert warps == {4, 2}  # the default partition's load and the worker's


def test_real_warp_specialized_modules_prove() -> None:
    assert len(WS) == 2
    for path in WS:
        findings = check_module(parse_module(path.read_text(), path.name))
        assert findings and all(f.verdict.status == "proved" for f in findings), path.name


def test_a_worker_using_the_kernels_warp_count_is_refuted() -> None:
    """Mutant: the worker's layout declared for 4 warps inside a 2-warp partition."""
    text = WS[0].read_text()
    head = text.splitlines()
    two = next(ln for ln in head if ln.startswith("#blocked1 ="))
    assert "warpsPerCTA = [2, 1]" in two
    mutant = text.replace(two, two.replace("warpsPerCTA = [2, 1]", "warpsPerCTA = [4, 1]"))
    bad = [f for f in check_module(parse_module(mutant, "m.ttgir")) if f.verdict.status == "refuted"]
    assert bad and all(f.rule == "layout" for f in bad)
    sides = bad[0].verdict.counterexample.sides
    assert (sides["warps in force"], sides["warps of the layout"]) == (2, 4)
    assert bad[0].verdict.counterexample.inputs == {"warp": 2}  # only the warp count differs
