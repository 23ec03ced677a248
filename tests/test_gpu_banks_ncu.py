"""Bank-conflict predictions, the ncu parser on recorded H200 output, and the report format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.gpu.banks import lemma_wavefronts, simulate_wavefronts
from llverify.gpu.cases import suite
from llverify.gpu.ncu import METRICS, ncu_command, parse_csv, per_instruction
from llverify.gpu.predict import predict
from llverify.gpu.tile import DistMap, SharedMap, row_major_shared
from llverify.layout import LinearLayout

DATA = Path(__file__).parent / "data"


def _column_reader(n_rows: int, vec_cols: int) -> DistMap:
    """Lane i reads row i (a column of an n x 32 f32 tile); registers step along the row."""
    regs = [(0, 1 << k) for k in range(vec_cols.bit_length() - 1)]
    lanes = [(1 << k, 0) for k in range(5)]
    L = LinearLayout([("register", regs), ("lane", lanes), ("warp", []), ("block", [])],
                     [("dim0", n_rows), ("dim1", 32)], require_surjective=False)
    return DistMap.of(L)


def test_a_column_read_of_a_row_major_tile_is_a_32_way_conflict():
    m = _column_reader(32, 1)
    s = SharedMap.of(row_major_shared((32, 32)))
    assert lemma_wavefronts(m, s, 4, 1) == simulate_wavefronts(m, s, 4, 1) == 32


def test_16_byte_rows_are_conflict_free_in_four_wavefronts():
    # lane i reads 4 consecutive f32 of row i of a 32x4 tile: 32 lanes x 16 B = 4 wavefronts
    L = LinearLayout([("register", [(0, 1), (0, 2)]), ("lane", [(1 << k, 0) for k in range(5)]),
                      ("warp", []), ("block", [])], [("dim0", 32), ("dim1", 4)])
    m, s = DistMap.of(L), SharedMap.of(row_major_shared((32, 4)))
    assert lemma_wavefronts(m, s, 4, 4) == simulate_wavefronts(m, s, 4, 4) == 4
    # the same rows padded to 8 columns put lanes 4 apart in the same banks: 2-way per phase
    L8 = LinearLayout([("register", [(0, 1), (0, 2)]), ("lane", [(1 << k, 0) for k in range(5)]),
                       ("warp", []), ("block", [])], [("dim0", 32), ("dim1", 8)], require_surjective=False)
    s8 = SharedMap.of(row_major_shared((32, 8)))
    assert lemma_wavefronts(DistMap.of(L8), s8, 4, 4) == simulate_wavefronts(DistMap.of(L8), s8, 4, 4) == 8


@pytest.mark.parametrize("case", [c for c in suite(quick=True) if c.shared is not None], ids=lambda c: c.name)
def test_three_predictions_agree_on_the_suite(case):
    p = predict(case, case.kernel())
    assert p.codegen_error is None
    assert p.wavefronts == p.lemma == p.simulated


def test_the_parser_reads_thousands_separators_and_empty_kernels():
    launches = parse_csv((DATA / "ncu_sample.txt").read_text())
    assert [ln.kernel for ln in launches] == ["llv_case_a", "llv_case_b"]
    assert per_instruction(launches[0].metrics) == {"store": 4.0, "load": 32.0}
    assert per_instruction(launches[1].metrics) == {"store": None, "load": None}
    assert parse_csv("==PROF== nothing profiled\n") == []


def test_recorded_h200_counters_equal_the_predictions():
    """Counters recorded on an H200 (ncu --clock-control none) for five suite kernels."""
    launches = {ln.kernel: ln for ln in parse_csv((DATA / "ncu_h200_sample.txt").read_text())}
    assert len(launches) == 5
    assert set(METRICS) <= set(next(iter(launches.values())).metrics)
    by_kernel = {c.kernel_name: c for c in suite()}
    for name, ln in launches.items():
        c = by_kernel[name]
        k = c.kernel()
        p = predict(c, k)
        meas = per_instruction(ln.metrics)
        if c.variant == "shuffle":
            assert meas == {"store": None, "load": None}
            continue
        assert meas == p.wavefronts, name
        assert ln.metrics["smsp__sass_inst_executed_op_shared_st.sum"] == p.instructions_per_block["store"]
        assert ln.metrics["smsp__sass_inst_executed_op_shared_ld.sum"] == p.instructions_per_block["load"]
    assert per_instruction(launches["llv_blocked_transpose_128x128w8_f32_unswizzled"].metrics)["load"] == 32.0


def test_ncu_command_uses_the_issue_metrics_and_no_clock_control():
    cmd = ncu_command(["python3", "-m", "x"], "/tmp/log.csv")
    assert cmd[1:3] == ["--clock-control", "none"]
    assert cmd[cmd.index("--metrics") + 1].split(",") == list(METRICS)
    assert cmd[-3:] == ["python3", "-m", "x"]


def test_committed_h200_report_has_the_documented_fields():
    rep_path = Path(__file__).parent.parent / "reports" / "gpu" / "h200_conversion_suite.json"
    if not rep_path.exists():
        pytest.skip("no committed GPU report")
    rep = json.loads(rep_path.read_text())
    assert "H200" in rep["device"]
    assert rep["cases"] and rep["summary"]["cases"] == len(rep["cases"])
    for c in rep["cases"]:
        for key in ("name", "bit_exact", "wavefronts_predicted", "wavefronts_measured", "time_us",
                    "bandwidth_fraction"):
            assert key in c
        assert set(c["wavefronts_predicted"]) == {"store", "load"}
    assert all(c["bit_exact"] for c in rep["cases"])
