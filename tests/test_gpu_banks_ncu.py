"""Bank-conflict predictions, the ncu parser on recorded H200 output, and the report format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.gpu.cases import Case, row_major_shared, suite
from llverify.gpu.ncu import METRICS, ncu_command, parse_csv, per_instruction
from llverify.gpu.predict import predict
from llverify.layout import LinearLayout

DATA = Path(__file__).parent / "data"


def _access_case(L: LinearLayout, shape: tuple[int, int]) -> Case:
    """L stored and loaded through a row-major f32 buffer (the kernel's instruction mix, codegen's numbers)."""
    return Case("hand", "hand", "f32", "given", L, L, shared=row_major_shared(shape))


def _rows(n_rows: int, n_cols: int, regs: list[tuple[int, int]]) -> LinearLayout:
    return LinearLayout([("register", regs), ("lane", [(1 << k, 0) for k in range(5)]), ("warp", []), ("block", [])],
                        [("dim0", n_rows), ("dim1", n_cols)], require_surjective=False)


def test_a_column_read_of_a_row_major_tile_is_a_32_way_conflict():
    # lane i holds row i of a 32x32 f32 tile, one element per register: 32 columns,
    # register j is column j: every ld/st.shared touches one column -> 32 words in one bank
    c = _access_case(_rows(32, 32, [(0, 1 << k) for k in range(5)]), (32, 32))
    p = predict(c, c.kernel())
    assert p.vector == {"store": 4, "load": 4, "global_load": 4, "global_store": 4}
    # 16-byte vectors: 8 lanes per phase hit rows 0..7 at words 32 r: 8 distinct words in 4 banks each
    assert p.wavefronts == p.simulated == {"store": 32.0, "load": 32.0}
    assert p.instructions_per_block == {"store": 8, "load": 8}


def test_16_byte_rows_are_conflict_free_in_four_wavefronts():
    # lane i reads 4 consecutive f32 of row i of a 32x4 tile: 32 lanes x 16 B = 4 wavefronts
    c = _access_case(_rows(32, 4, [(0, 1), (0, 2)]), (32, 4))
    p = predict(c, c.kernel())
    assert p.wavefronts == p.simulated == {"store": 4.0, "load": 4.0}
    assert p.instructions_per_block == {"store": 1, "load": 1}


@pytest.mark.parametrize("case", [c for c in suite(quick=True) if c.shared is not None], ids=lambda c: c.name)
def test_codegens_closed_form_and_simulator_agree_on_the_kernels(case):
    """The kernel vectorises exactly as bank_wavefronts does, and lemma 9.4 equals brute force on it."""
    k = case.kernel()
    p = predict(case, k)
    assert p.error is None
    assert p.wavefronts == p.simulated
    assert (p.vector["store"], p.vector["load"]) == (k.svec, k.lvec)


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
