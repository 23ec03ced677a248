"""TMEM accesses inside ttg.warp_specialize partitions (``tmem_access``): a worker partition's warp ``w`` runs
as CTA warp ``start + w`` and reaches the TMEM lane quarter ``(start + w) mod 4``; the start follows
Triton's AllocateWarpGroups (checked against the ids Triton itself assigns in a real dump)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llverify.layout import LinearLayout
from llverify.ttgir.gate import check_module
from llverify.ttgir.loader import load_text
from llverify.ttgir.partitions import first_warps, first_warps_of
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_tmem import decided_lane_quarters

ROOT = Path(__file__).resolve().parents[1]
DATA = sorted((ROOT / "tests" / "data" / "ttgir" / "ws_tmem").glob("*.ttgir"))


def _tmem(text: str, name: str = "m.ttgir") -> list:
    return [f for f in check_module(parse_module(text, name)) if f.rule == "tmem_access"]


def test_real_worker_partitions_with_tmem_prove() -> None:
    """Compiled by Triton 3.9 for cuda:100 (examples/kernels/gluon_ws_tmem.py): a 4- or 8-warp worker stores
    and loads a 128 x 32 TMEM tile beside a 1-warp worker; it starts at CTA warp 4."""
    assert len(DATA) == 2
    for path in DATA:
        findings = check_module(parse_module(path.read_text(), path.name))
        assert findings and all(f.verdict.status == "proved" for f in findings), path.name
        tmem = [f for f in findings if f.rule == "tmem_access"]
        assert len(tmem) == 2 and all(f.verdict.certificate["first_warp"] == 4 for f in tmem)


def _partition_line(text: str, op: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if ln.lstrip().startswith(op) or f"= {op} " in ln)


def test_a_worker_whose_warps_read_another_quarter_is_refuted() -> None:
    """Mutant: the worker's TMEM register layout gives warp 1 the rows of warp 2 and back."""
    text = DATA[0].read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("#linear ="))
    assert "warp = [[32, 0], [64, 0]]" in line
    mutant = text.replace(line, line.replace("warp = [[32, 0], [64, 0]]", "warp = [[64, 0], [32, 0]]"))
    bad = [f for f in _tmem(mutant) if f.verdict.status == "refuted"]
    assert {f.location.line for f in bad} == {_partition_line(text, "ttng.tmem_store"),
                                              _partition_line(text, "ttng.tmem_load")}
    ce = bad[0].verdict.counterexample
    assert ce.inputs["warp"] in (1, 2) and ce.sides["CTA warp"] == 4 + ce.inputs["warp"]


@pytest.mark.parametrize("starts,status", [("8, 6", "refuted"), ("6, 8", "proved"), ("10, 4", "proved")])
def test_a_stated_first_warp_decides_the_quarter(starts: str, status: str) -> None:
    """``warpGroupStartIds`` (printed after AllocateWarpGroups) is used as stated: the 4-warp TMEM worker
    (partition 1) at CTA warp 6 reaches quarters 2, 3, 0, 1 for its warps 0..3, and is refuted."""
    text = DATA[0].read_text()
    head = next(ln for ln in text.splitlines() if ln.lstrip().startswith("ttg.warp_specialize("))
    stated = head.replace("attributes {", f"attributes {{warpGroupStartIds = array<i32: {starts}>, ")
    found = _tmem(text.replace(head, stated))
    assert [f.verdict.status for f in found] == [status, status]
    if status == "refuted":
        assert found[0].verdict.counterexample.sides["CTA warp"] == 6 + found[0].verdict.counterexample.inputs["warp"]
        assert "(CTA warp " in found[0].verdict.message


def test_first_warps_follow_allocate_warp_groups() -> None:
    # padded to whole warp groups, laid out by decreasing size; equal sizes are unordered
    assert first_warps_of(4, [1, 4], 5) == [frozenset({10, 11}), frozenset({4})]
    assert first_warps_of(4, [4, 4], 8) == [frozenset({4, 8}), frozenset({4, 8})]
    assert first_warps_of(8, [2], 2) == [frozenset({8, 10})]  # padded with a 2-warp partition: a tie
    m = parse_module(DATA[1].read_text(), DATA[1].name)
    (ws,) = [op for _, op, _ in m.walk() if op.name == "ttg.warp_specialize"]
    assert first_warps(m, ws) == [frozenset({14, 15}), frozenset({4})]  # [1, 8] padded with 2 and 1 warps


def test_a_claim_that_depends_on_the_order_of_equal_partitions_is_unknown() -> None:
    """Rows 32q + r hold element r + 32 (q >> 1): warp 0 (elements 0..31) needs quarter 0 or 1, warp 1
    (elements 32..63) quarter 2 or 3, which holds when the partition starts at warp 5, not at 4."""
    T = LinearLayout.from_bases({"row": [[1], [2], [4], [8], [16], [0], [32]], "col": []}, ["dim0"])
    R = LinearLayout.from_bases({"register": [], "lane": [[1], [2], [4], [8], [16]], "warp": [[32]]}, ["dim0"])
    assert decided_lane_quarters(R, T, (5,)).status == "proved"
    assert decided_lane_quarters(R, T, (4,)).status == "refuted"
    v = decided_lane_quarters(R, T, (4, 5))
    assert v.status == "unknown" and "5 only" in v.message


DUMP = textwrap.dedent("""
    import sys
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    import gluon_ws_tmem as g
    tw = int(sys.argv[1])
    sig = {"x": "*fp32", "y": "*fp32", "M": "constexpr", "N": "constexpr", "TMEM_WARPS": "constexpr"}
    triton.compile(GluonASTSource(fn=g.ws_tmem, signature=sig, constexprs={"M": 128, "N": 32, "TMEM_WARPS": tw}),
                   target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
""")


@pytest.mark.parametrize("tmem_warps", [4, 8])
def test_first_warps_match_the_ids_triton_assigns(tmp_path, tmem_warps: int) -> None:
    """Differential: in a real MLIR_ENABLE_DUMP, the snapshot after AllocateWarpGroups states
    ``warpGroupStartIds``; each is among the starts llverify derives from the snapshot before it, and the
    gate proves the TMEM accesses of every snapshot (before and after the ids are stated)."""
    pytest.importorskip("triton")
    env = {**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "cache"), "MLIR_ENABLE_DUMP": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "examples" / "kernels")])}
    proc = subprocess.run([sys.executable, "-c", DUMP, str(tmem_warps)], capture_output=True, text=True,
                          timeout=600, env=env, cwd=ROOT / "examples" / "kernels")
    assert proc.returncode == 0, proc.stderr[-2000:]
    mods = [m for m in load_text(proc.stderr, "dump.mlir") if not isinstance(m, Exception)]
    with_ws = [m for m in mods if any(op.name == "ttg.warp_specialize" for _, op, _ in m.walk())]
    i = next(k for k, m in enumerate(with_ws) if "warpGroupStartIds" in _ws(m).attributes)
    assert i > 0
    stated = [int(x) for x in re.findall(r"-?\d+", _ws(with_ws[i]).attributes["warpGroupStartIds"].split(":")[1])]
    derived = first_warps(with_ws[i - 1], _ws(with_ws[i - 1]))
    assert len(derived) == 2 and all(s in d for s, d in zip(stated, derived)), (stated, derived)
    tmem = [f for m in with_ws if m.stage for f in check_module(m) if f.rule == "tmem_access"]
    assert tmem and all(f.verdict.status == "proved" for f in tmem)


def _ws(m):
    return next(op for _, op, _ in m.walk() if op.name == "ttg.warp_specialize")


def test_no_first_warp_is_guessed_without_a_module_warp_count() -> None:
    """The same module without ``"ttg.num-warps"``: where the worker partitions start depends on the default
    partition's warps, which nothing states, so the TMEM lane quarters are ``unknown`` (with the reason), not decided
    for a guessed count; a stated ``warpGroupStartIds`` still decides them."""
    text = DATA[0].read_text()
    assert re.search(r'"ttg\.num-warps" = \d+ : i32, ', text)
    unstated = re.sub(r'"ttg\.num-warps" = \d+ : i32, ', "", text, count=1)
    found = _tmem(unstated)
    assert [f.verdict.status for f in found] == ["unknown", "unknown"]
    assert all("states no ttg.num-warps" in f.verdict.message for f in found)
    head = next(ln for ln in unstated.splitlines() if ln.lstrip().startswith("ttg.warp_specialize("))
    stated = unstated.replace(head, head.replace("attributes {", "attributes {warpGroupStartIds = array<i32: 8, 6>, "))
    assert [f.verdict.status for f in _tmem(stated)] == ["refuted", "refuted"]
