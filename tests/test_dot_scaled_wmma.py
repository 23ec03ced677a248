"""``tt.dot_scaled`` on gfx1250 (scaled WMMA, ``#ttg.amd_wmma`` version 3): the declared scale layouts of Triton's own
lit modules proved equal to :mod:`llverify.hw.wmma_scale`; mutants (two lanes swapped, the other operand's scales,
a wrong warp placement) refuted at the op; Triton's chained lit module, whose layout differs only in half-wave /
repetition placement, unknown with that reason; the model compared with Triton 3.9's Gluon
``gfx1250.get_wmma_scale_layout`` (the oracle, in a child process: LLVM aborts on some inputs)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from scale_oracle import scale_oracle  # tests/scale_oracle.py (tests/ is on sys.path: conftest.py)

from llverify.errors import LayoutError
from llverify.hw.wmma_scale import wmma_scale_bases
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).parent / "data" / "ttgir_scaled"
FIRST = (DATA / "gfx1250_wmma_scaled.mlir").read_text()
LIN = "#linear = #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]"


def _scales(text: str) -> list:
    return [f.verdict for f in check_module(parse_module(text, "m.mlir"))
            if f.op == "tt.dot_scaled" and "scale of" in f.verdict.subject]


@pytest.mark.parametrize("name", ["gfx1250_wmma_scaled.mlir", "gfx1250_wmma_scaled_32x16.mlir",
                                  "gfx1250_e4m3_compiled.ttgir"])
def test_lit_scale_layouts_proved(name: str) -> None:
    vs = _scales((DATA / name).read_text())
    assert len(vs) == 2 and all(v.status == "proved" and v.method == "f2" for v in vs), \
        [(v.status, v.subject, v.message) for v in vs]
    assert all("gfx1250's scaled WMMA" in v.subject for v in vs)


def test_lane_swap_refuted() -> None:
    mutant = FIRST.replace(LIN, LIN.replace("lane = [[1, 0], [2, 0]", "lane = [[2, 0], [1, 0]"))
    assert mutant != FIRST
    a, b = _scales(mutant)
    assert "scale of A" in a.subject and a.status == "refuted" and a.counterexample is not None
    assert a.counterexample.sides["declared"]["lane"][:2] == ((2, 0), (1, 0))
    assert b.status == "proved"


def test_scales_of_the_other_operand_refuted() -> None:
    # A's scale declared with B's layout (the warp that owns M's second tile differs): wrong opIdx of the choice
    mutant = FIRST.replace("tensor<32x4xi8, #linear>", "tensor<32x4xi8, #linear1>")
    assert mutant != FIRST
    vs = _scales(mutant)
    assert [v.status for v in vs] == ["refuted", "proved"], [(v.status, v.subject) for v in vs]
    assert vs[0].counterexample.sides["declared"]["warp"] == ((16, 0), (0, 0))


def test_half_wave_placement_difference_stays_unknown() -> None:
    # Triton's own chained lit module (its lowering emits the 16 WMMAs): A's scale uses a register, not lanes 16-31,
    # for rows 64-127; only the instruction-fixed part is decided, so unknown with the reason, never refuted
    vs = _scales((DATA / "gfx1250_wmma_scaled_chained.mlir").read_text())
    assert len(vs) == 4
    assert {v.status for v in vs} == {"unknown"} and all("half-wave" in v.message for v in vs)
    mutant = (DATA / "gfx1250_wmma_scaled_chained.mlir").read_text().replace(
        "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = [[16, 0], [32, 0]]",
        "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = [[32, 0], [16, 0]]")
    assert {v.status for v in _scales(mutant) if "scale of A" in v.subject} == {"refuted"}


def test_model_refuses_unmodelled() -> None:
    with pytest.raises(LayoutError):
        wmma_scale_bases(0, [32, 4], [16, 32, 128], True, [[0, 1], [1, 0]])
    with pytest.raises(LayoutError):
        wmma_scale_bases(0, [64, 4], [16, 16, 128], True, [[2, 0]])
    with pytest.raises(LayoutError):
        wmma_scale_bases(2, [32, 4], [16, 16, 128], True, [[0, 1], [1, 0]])
    with pytest.raises(LayoutError):
        wmma_scale_bases(0, [32, 4], [16, 16, 128], True, [[0, 1], [1, 0]], scale_factor=8)


WARPS = ([], [[1, 0]], [[0, 1]], [[0, 1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [2, 0]], [[0, 1], [0, 2]],
         [[1, 0], [2, 0], [0, 1]], [[0, 1], [1, 0], [0, 2]], [[1, 0], [2, 0], [4, 0]])


def _sweep() -> list[list]:
    instrs = ([16, 16, 128], [32, 16, 128], [16, 16, 64], [32, 16, 64])
    return [[op, instr, tr, w, [rows, ks], f] for op, instr, tr, w, rows, ks, f in itertools.product(
        (0, 1), instrs, (True, False), WARPS, (16, 32, 64, 128, 256), (1, 2, 4, 8), (32, 16))]


def _compare_with_oracle(cases: list[list]) -> int:
    compared = 0
    for case, want in zip(cases, scale_oracle("wmma", cases)):
        if "error" in want:
            continue
        mine = wmma_scale_bases(case[0], case[4], case[1], case[2], case[3], case[5])
        assert want["block"] == []
        assert mine == {"register": want["register"], "lane": want["lane"], "warp": want["warp"]}, case
        compared += 1
    return compared


def test_wmma_scale_layout_matches_triton_sample() -> None:
    """400 cases drawn (fixed seed) from the whole sweep below, every one answered by the oracle and equal."""
    pytest.importorskip("triton.experimental.gluon.language.amd.gfx1250")
    cases = random.Random(0).sample(_sweep(), 400)
    assert _compare_with_oracle(cases) == len(cases)


@pytest.mark.slow
def test_wmma_scale_layout_matches_triton() -> None:
    """The whole sweep (6,400 cases): opIdx, four instruction shapes, transposed, 10 warp-basis sets, nonK, K/f, f."""
    pytest.importorskip("triton.experimental.gluon.language.amd.gfx1250")
    cases = _sweep()
    assert _compare_with_oracle(cases) == len(cases) == 6400
