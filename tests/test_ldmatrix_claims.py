"""Spec claims on ldmatrix / stmatrix accesses and on the instructions a conversion plans (issue 13): each
claim proved, and each refuted by a mutant with a witness replayed on the layouts."""

from __future__ import annotations

import pytest

from llverify.codegen import ldmatrix as ldm
from llverify.hw.registry import build
from llverify.prove.conversion_claims import conversion_claims
from llverify.prove.plan_ldmatrix import matrix_bank_claims, prove_matrix_bank_count
from llverify.prove.properties import conversion
from llverify.triton.parse import layout_from_attr

MMA_ATTR = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
MMA = layout_from_attr(MMA_ATTR, [64, 64])
DOT_A = layout_from_attr(f"#ttg.dot_op<{{opIdx = 0, parent = {MMA_ATTR}, kWidth = 2}}>", [64, 64])
DOT_B = layout_from_attr(f"#ttg.dot_op<{{opIdx = 1, parent = {MMA_ATTR}, kWidth = 2}}>", [64, 64])
BLOCKED8 = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[4, 8], warps_per_cta=[4, 1],
                 order=[1, 0])
PLAIN = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
SWZ = build("swizzled_shared", [64, 64], vec=8, per_phase=1, max_phase=8, order=[1, 0])


def element_byte(access, shared, lane, register=0, warp=0) -> int:
    """Byte address of an element, found by searching the shared layout (independent of the model)."""
    e = access.apply(register=register, lane=lane, warp=warp, block=0)
    for off in range(64 * 64):
        if shared.apply(offset=off, block=0) == e:
            return off * 2
    raise AssertionError("element not in the shared layout")


def test_exact_count_proved_by_enumeration_and_off_by_one_refuted():
    v = prove_matrix_bank_count(DOT_A, PLAIN, 16, "ldmatrix")
    assert v.status == "proved" and v.method == "exhaustive" and v.details["wavefronts"] == 32
    assert matrix_bank_claims(v, wavefronts=32).status == "proved"
    low, high = matrix_bank_claims(v, wavefronts=31), matrix_bank_claims(v, wavefronts=33)
    assert low.status == high.status == "refuted"
    assert high.counterexample.sides["simulated wavefronts"] == 32            # the access needs fewer
    assert {"lane_a", "lane_b"} <= set(low.counterexample.inputs)            # too few: two colliding lanes


def test_conflict_free_witness_lanes_really_collide():
    v = prove_matrix_bank_count(DOT_A, SWZ, 16, "ldmatrix")
    assert matrix_bank_claims(v, conflict_free=True).status == "proved"
    r = matrix_bank_claims(prove_matrix_bank_count(DOT_A, PLAIN, 16, "ldmatrix"), conflict_free=True)
    assert r.status == "refuted"
    a, b = r.counterexample.inputs["lane_a"], r.counterexample.inputs["lane_b"]
    # PTX: lane 8j + r supplies row r of matrix j; row r of a plain ldmatrix tile starts at the element that
    # lane 4 r holds in its first register.  Replay by searching the shared layout for those elements.
    ra, rb = element_byte(DOT_A, PLAIN, 4 * a), element_byte(DOT_A, PLAIN, 4 * b)
    assert (ra, rb) == (r.counterexample.sides["row address(lane_a)"], r.counterexample.sides["row address(lane_b)"])
    assert ra != rb and (ra // 16) % 8 == (rb // 16) % 8


def test_max_wavefronts_both_ways_trans_and_stmatrix():
    v = prove_matrix_bank_count(DOT_B, SWZ, 16, "ldmatrix_trans")
    assert matrix_bank_claims(v, max_wavefronts=4).status == "proved"
    r = matrix_bank_claims(v, max_wavefronts=3)                # no conflict: four matrices, four wavefronts
    assert r.status == "refuted" and set(r.counterexample.inputs) == {"lane_0", "lane_1", "lane_2", "lane_3"}
    s = prove_matrix_bank_count(MMA, SWZ, 16, "stmatrix")
    assert matrix_bank_claims(s, conflict_free=True).status == "proved"
    t = matrix_bank_claims(prove_matrix_bank_count(MMA, PLAIN, 16, "stmatrix"), max_wavefronts=8)
    assert t.status == "refuted" and t.details["wavefronts"] == 32


def test_an_instruction_that_does_not_fit_is_an_error_not_a_verdict():
    v = prove_matrix_bank_count(DOT_B, SWZ, 16, "ldmatrix")
    assert v.status == "error" and "offset 1" in v.message


def test_soundness_alarm_when_closed_form_and_enumeration_disagree(monkeypatch):
    real = ldm.matrix_wavefronts

    def off_by_one(*a, **k):
        rep = real(*a, **k)
        return rep.__class__(**{**rep.__dict__, "wavefronts": rep.wavefronts + 1})

    import llverify.prove.plan_ldmatrix as pm

    monkeypatch.setattr(pm, "matrix_wavefronts", off_by_one)
    v = pm.prove_matrix_bank_count(DOT_A, SWZ, 16, "ldmatrix")
    assert v.status == "error" and "soundness alarm" in v.message


def test_spec_surface_dispatches_on_instruction():
    from llverify.spec.kinds import KINDS

    args = KINDS["bank_conflicts"].args
    assert args["instruction"].choices == ("vector", "ldmatrix", "ldmatrix_trans", "stmatrix", "stmatrix_trans")
    assert "target" in KINDS["conversion"].args


def test_conversion_max_wavefronts_uses_the_planned_instruction():
    # mma -> blocked8 on cuda:90: Triton stores with stmatrix.x4 (4 wavefronts); llverify's own vector plan would
    # use 64-bit st.shared (2 wavefronts), so a bound of 3 separates the two costs
    v = conversion(MMA, BLOCKED8)
    ok = conversion_claims(v, MMA, BLOCKED8, max_wavefronts=4, bits=16)
    assert ok.status == "proved" and ok.details["shared_plan"]["store"] == "stmatrix"
    r = conversion_claims(v, MMA, BLOCKED8, max_wavefronts=3, bits=16)
    assert r.status == "refuted" and r.counterexample.inputs == {"access": "store", "instruction": "stmatrix"}
    # on sm_80 there is no stmatrix: the plan falls back to vector instructions and the bound of 3 can hold
    r80 = conversion_claims(v, MMA, BLOCKED8, max_wavefronts=3, bits=16, target="cuda:80")
    assert r80.details.get("shared_plan", {}).get("store") == "vector"
    # blocked -> dot operand: ldmatrix on the load side, conflict-free
    d = conversion_claims(conversion(BLOCKED8, DOT_A), BLOCKED8, DOT_A, max_wavefronts=4, bits=16)
    assert d.status == "proved" and d.details["shared_plan"]["load"] == "ldmatrix"


@pytest.mark.parametrize("instruction", ["stmatrix", "ldmatrix"])
def test_matrices_argument(instruction):
    v = prove_matrix_bank_count(DOT_A, PLAIN, 16, instruction, matrices=2)
    assert v.status == "proved" and v.details["matrices"] == 2 and v.details["wavefronts"] == 16


def test_html_report_does_not_draw_a_vector_bank_chart_for_a_matrix_instruction(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    spec = tmp_path / "m.yaml"
    spec.write_text("""layouts:
  dot_a:
    kind: dot_operand
    shape: [64, 64]
    operand_index: 0
    k_width: 2
    parent: {kind: nvidia_mma, version: [2, 0], warps_per_cta: [2, 2], instr_shape: [16, 8]}
  plain: {kind: swizzled_shared, shape: [64, 64], vec: 1, per_phase: 1, max_phase: 1, order: [1, 0]}
checks:
  - bank_conflicts: {access: dot_a, shared: plain, bitwidth: 16, instruction: ldmatrix, conflict_free: true}
    expect: refuted
""")
    out = tmp_path / "rep"
    p = subprocess.run([sys.executable, "-m", "llverify", "check", str(spec), "--report", str(out)], cwd=root,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    page = (out / "report.html").read_text()
    assert "ldmatrix: 8x8 matrices of 16-byte rows, 8 wavefront(s) per matrix" in page
