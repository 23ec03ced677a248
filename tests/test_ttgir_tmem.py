"""TMEM accesses: every warp's elements lie in the TMEM lane quarter it can reach (tcgen05.ld/st)."""

from __future__ import annotations

from pathlib import Path

from llverify.hw import build
from llverify.prove.tmem_access import tmem_lane_quarters
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
TMEM = sorted(p for p in CORPUS.glob("*.ttgir") if "ttng.tmem_load" in p.read_text())


def _findings(text: str, name: str) -> list:
    return [f for f in check_module(parse_module(text, name)) if f.rule == "tmem_access"]


def test_corpus_tmem_accesses_stay_in_their_quarter() -> None:
    assert len(TMEM) >= 8
    n = 0
    for path in TMEM:
        for f in _findings(path.read_text(), path.name):
            assert f.verdict.status == "proved", (path.name, f.verdict.message)
            n += 1
    assert n >= 30


def test_swapped_warps_are_refuted_and_replayed() -> None:
    """Mutant: the register layout's two warp bases swapped (warp 1 now holds rows 64..95, which TMEM keeps in
    lanes 64..95, quarter 2)."""
    path = CORPUS / "matmul-t128s1-cuda_100-w4.ttgir"
    text = path.read_text()
    mutant = text.replace("warp = [[32, 0], [64, 0]]", "warp = [[64, 0], [32, 0]]")
    assert mutant != text
    refuted = [f for f in _findings(mutant, "mutant.ttgir") if f.verdict.status == "refuted"]
    assert refuted
    cx = refuted[0].verdict.counterexample
    assert cx.inputs["warp"] in (1, 2)
    lo, _ = cx.sides["warp quarter (lanes)"]
    assert all(r // 32 != lo // 32 for r in cx.sides["TMEM rows holding it"])
    assert all(f.verdict.status == "proved" for f in _findings(text, path.name))


def test_a_64_row_tile_uses_lanes_of_each_quarter() -> None:
    """blockM = 64: rows 16..31 live in TMEM lanes 32..47 (quarter 1), so warp 1 must hold them."""
    T = build("tensor_memory", [64, 64], block=[64, 64], col_stride=1)
    good = build("linear", [64, 64], reg_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                 lane_bases=[[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], warp_bases=[[16, 0], [32, 0]], block_bases=[])
    rowwise = build("linear", [64, 64], reg_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                    lane_bases=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp_bases=[[32, 0], [0, 32]],
                    block_bases=[])
    assert tmem_lane_quarters(good, T).status == "proved"
    assert tmem_lane_quarters(rowwise, T).status == "refuted"


def test_mma_operand_shapes_and_accumulator_are_checked() -> None:
    """tcgen5: A (M x K) * B (K x N) -> D (M x N) in tensor memory of blockM 64 or 128. Mutants: the accumulator
    declared with a wrong N, and with blockM = 32."""
    path = CORPUS / "matmul-t128s1-cuda_100-w4.ttgir"
    text = path.read_text()

    def dots(t: str) -> list:
        return [f for f in check_module(parse_module(t, "m.ttgir"))
                if f.rule == "dot_operands" and f.op == "ttng.tc_gen5_mma"]

    assert dots(text) and all(f.verdict.status == "proved" for f in dots(text))
    line = next(ln for ln in text.splitlines() if "%acc = ttng.tmem_alloc" in ln)  # the accumulator's definition
    wrong_n = text.replace(line, line.replace("!ttg.memdesc<128x128xf32, #tmem", "!ttg.memdesc<128x64xf32, #tmem"))
    bad = [f for f in dots(wrong_n) if f.verdict.status == "refuted"]
    assert bad and list(bad[0].verdict.counterexample.sides["D (M x N)"]) == [128, 64]
    tmem_alias = next(ln for ln in text.splitlines() if ln.startswith("#tmem ="))
    small = text.replace(tmem_alias, tmem_alias.replace("blockM = 128", "blockM = 32"))
    assert any(f.verdict.status == "refuted" and "accumulator" in f.verdict.subject for f in dots(small))
