"""Reports: pictures say what the paper says, HTML is self-contained, the `report` command works."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from llverify.cli import cli
from llverify.layout import LinearLayout
from llverify.report import pictures
from llverify.report.build import render_markdown, write_report
from llverify.spec.parse import load_spec_text
from llverify.spec.runner import run_specs

# Figure 1's layout A (section 4.1): 2x2 registers, 4x8 threads, 2x1 warps on 16x16
FIG1_A = LinearLayout({"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]],
                       "warp": [[8, 0]]}, {"dim0": 16, "dim1": 16})

SPEC = """\
layouts:
  A:
    bases:
      register: [[0, 1], [1, 0]]
      lane: [[0, 2], [0, 4], [0, 8], [2, 0], [4, 0]]
      warp: [[8, 0]]
    out: {dim0: 16, dim1: 16}
  B:
    bases:
      register: [[1, 0], [0, 1]]
      lane: [[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]]
      warp: [[0, 8]]
    out: {dim0: 16, dim1: 16}
checks:
  - conversion: {from: A, to: B}
  - equal: [A, B]
  - injective: A
"""


def _cells(svg: str) -> dict[tuple[int, int], str]:
    """(x, y) of each label -> text, from the grid's label group."""
    return {(int(x), int(y)): t for x, y, t in re.findall(r'<text x="(\d+)" y="(\d+)">([^<]*)</text>', svg)}


def _label_at(svg: str, r: int, c: int, cw: int = 40, ch: int = 16, left: int = 28, top: int = 32) -> str:
    return _cells(svg)[(left + c * cw + cw // 2, top + r * ch + 11)]


def test_grid_labels_match_the_papers_reading_of_figure_1() -> None:
    svg = pictures.layout_grid(FIG1_A, title="A")
    # section 4.1: "r0 of thread t1 is located at (0, 2)", "r1 of t9 is located at (2, 3)",
    # "r0 of t10 is located at (2, 4)"
    assert _label_at(svg, 0, 2) == "T1:0"
    assert _label_at(svg, 2, 3) == "T9:1"
    assert _label_at(svg, 2, 4) == "T10:0"


def test_broadcast_copies_are_marked_with_their_count() -> None:
    dup = LinearLayout({"register": [[1], [0]], "lane": [[2], [0]]}, {"dim0": 4})
    svg = pictures.layout_grid(dup, title="dup")
    assert svg.count(">×4<") == 4  # every element held by 4 (register, lane) pairs
    assert "stroke-dasharray" in svg


def test_bank_chart_counts_conflicting_lanes() -> None:
    lanes = [[1 << i] for i in range(5)]
    access = LinearLayout({"register": [], "lane": lanes}, {"dim0": 32})
    # 32-bit elements at stride 32 words: every lane hits bank 0 at a different word
    strided = LinearLayout({"offset": [[0, 1 << i] for i in range(5)] + [[1 << i, 0] for i in range(5)]},
                           {"dim0": 32, "dim1": 32})
    identity = LinearLayout({"offset": [[1 << i] for i in range(5)]}, {"dim0": 32})
    assert "(0 conflicting lanes)" in pictures.bank_chart(access, identity, 32)
    access2 = LinearLayout({"register": [], "lane": [[1 << i, 0] for i in range(5)]}, {"dim0": 32, "dim1": 32},
                           require_surjective=False)
    assert "(32 conflicting lanes)" in pictures.bank_chart(access2, strided, 32)
    assert pictures.bank_chart(access, strided, 32) == ""  # different tensors: no picture


def test_conversion_picture_outlines_cells_that_change_thread() -> None:
    B = LinearLayout({"register": [[1, 0], [0, 1]], "lane": [[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]],
                      "warp": [[0, 8]]}, {"dim0": 16, "dim1": 16})
    moved = pictures.moved_cells(FIG1_A, B)
    assert (0, 0) not in moved  # register 0, lane 0, warp 0 in both
    assert (0, 2) in moved      # lane 1 in A, lane 0 in B
    assert pictures.moved_cells(FIG1_A, FIG1_A) == set()


def test_html_report_is_self_contained_with_pictures_and_counterexample(tmp_path: Path) -> None:
    spec = load_spec_text(SPEC, "t.yaml")
    results = run_specs([spec])
    assert [r.status for r in results] == ["proved", "refuted", "proved"]
    paths = write_report(results, [spec], tmp_path / "rep")
    html = (tmp_path / "rep" / "report.html").read_text()
    assert paths[0].name == "report.md" and paths[1].name == "report.html"
    assert not re.search(r'(src|href)="https?://', html)  # no external resources
    assert html.count("<svg") >= 3
    assert 'stroke="#d00000"' in html  # the counterexample cell
    assert "cells change thread" in html
    assert "1 not as expected" in html
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| ❌ | equal(A, B) (line 16)" in md
    assert "&#39;" not in md and "check 'equal(A, B)' was refuted" in md
    assert md == render_markdown(results, [spec])


def test_report_command_writes_both_files(tmp_path: Path) -> None:
    p = tmp_path / "s.yaml"
    p.write_text(SPEC.replace("  - equal: [A, B]\n", "  - equal: [A, B]\n    expect: refuted\n"))
    res = CliRunner().invoke(cli, ["report", str(p), "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (tmp_path / "out" / "report.html").stat().st_size > 1000
    assert "3 checks in 1 spec, all as expected" in res.stdout


def test_claim_text_drops_optional_clauses_whose_arguments_are_absent() -> None:
    from llverify.report.build import claim_text

    text = """\
layouts:
  A: {kind: blocked, shape: [32, 32], size_per_thread: [1, 4], threads_per_warp: [4, 8],
      warps_per_cta: [1, 1], order: [1, 0]}
  S: {kind: swizzled_shared, shape: [32, 32], vec: 4, per_phase: 1, max_phase: 8, order: [1, 0]}
checks:
  - bank_conflicts: {access: A, shared: S, bitwidth: 32}
  - bank_conflicts: {access: A, shared: S, bitwidth: 32, max_wavefronts: 2}
"""
    results = run_specs([load_spec_text(text, "claims.yaml")])
    without, with_max = (claim_text(r) for r in results)
    assert "?" not in without and "at most" not in without
    assert "at most 2" in with_max


def test_report_removes_stale_smt_files(tmp_path) -> None:
    from llverify.report.build import write_report

    stale = tmp_path / "smt" / "old-query-7.smt2"
    stale.parent.mkdir()
    stale.write_text("(check-sat)")
    write_report([], [], tmp_path)
    assert not stale.exists() and (tmp_path / "report.md").exists()


def test_bank_chart_of_a_conflict_free_128_bit_store_shows_no_conflict() -> None:
    """Issue 13: a conflict-free 16-byte store was drawn as '32 conflicting lanes' (lanes of different phases
    sharing banks). Lanes now conflict only within their phase; the title says the vector and phase size."""
    from llverify.codegen.banks import bank_wavefronts
    from llverify.hw import build

    acc = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[1, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [32, 32], vec=1, per_phase=1, max_phase=1, order=[1, 0])
    assert bank_wavefronts(acc, sh, 32).wavefronts == 4  # the minimum for 32 lanes x 16 bytes
    svg = pictures.bank_chart(acc, sh, 32)
    assert "128-bit vectors, phases of 8 lanes, 4 wavefronts (0 conflicting lanes)" in svg
    assert "#ff9b9b" not in svg
    # the same vectors down a column: every lane of a phase in one bank at different words
    col = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[32, 1], warps_per_cta=[1, 1],
                order=[1, 0])
    assert "(32 conflicting lanes)" in pictures.bank_chart(col, sh, 32)
