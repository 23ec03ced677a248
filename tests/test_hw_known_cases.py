"""Triton's own unit-test expectations (shared/triton-cases) and worked examples from the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify import f2
from llverify.errors import LayoutError
from llverify.hw import blocked, build, nvidia_mma, swizzled_shared

CASES = Path("/work/shared/triton-cases/cases_from_cpp_tests.json")
_KIND = {"mma": "nvidia_mma", "mfma": "amd_mfma", "wmma": "amd_wmma"}


def _params(p):
    p = dict(p)
    if isinstance(p.get("parent"), dict):
        par = p["parent"]
        p["parent"] = {"kind": _KIND.get(par["kind"], par["kind"]), **_params(par.get("params", {}))}
    return p


def _cases():
    if not CASES.exists():
        return []
    return [c for c in json.loads(CASES.read_text()) if c.get("expect") and "shape" in c and c["kind"] != "ll_op"]


@pytest.mark.skipif(not CASES.exists(), reason="shared triton cases not present")
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["id"])
def test_triton_unit_test_expectations(case):
    L = build(_KIND.get(case["kind"], case["kind"]), case["shape"], **_params(case["params"]))
    got = {d: [list(b) for b in bs] for d, bs in L.bases.items()}
    assert got == case["expect"]


def test_invalid_blocked_from_triton_cases_is_rejected():
    with pytest.raises(LayoutError, match="size_per_thread"):
        build("blocked", [128], size_per_thread=[3], threads_per_warp=[32], warps_per_cta=[4], order=[0])


def test_conventions_examples():
    L = nvidia_mma([3, 0], [4, 1], [16, 32, 16], shape=[64, 32])
    assert [list(b) for b in L.bases["register"]] == [[0, 1], [8, 0], [0, 8], [0, 16]]
    assert [list(b) for b in L.bases["warp"]] == [[16, 0], [32, 0]]
    S = swizzled_shared(2, 2, 4, [1, 0], shape=[32, 32])
    assert [list(b) for b in S.bases["offset"]][5:] == [[1, 0], [2, 2], [4, 4], [8, 0], [16, 0]]


def test_paper_figure1_layout_a_is_blocked():
    """Seed 000, Figure 1 (a): a 16x16 tensor, 2x2 registers per thread, 4x8 threads, 2x1 warps, order [1, 0]."""
    L = blocked([2, 2], [4, 8], [2, 1], [1, 0], shape=[16, 16])
    # thread t of warp w holds rows 2*(t // 8) + 8*w + {0,1}, columns 2*(t % 8) + {0,1}
    for w in range(2):
        for t in range(32):
            for r in range(4):
                out = L.apply(register=r, lane=t, warp=w, block=0)
                assert out["dim0"] == 8 * w + 2 * (t // 8) + (r >> 1)
                assert out["dim1"] == 2 * (t % 8) + (r & 1)
    assert L.is_invertible()


def test_paper_prop_4_12_mma_swizzle_matrix_structure():
    """Proposition 4.12: a swizzled shared layout is [[I_n, C], [0, I_m]] (columns offset, rows coordinate bits).

    For ``swizzled_shared(vec, per_phase, max_phase)`` on R x C, the matrix (rows: dim0 bits then dim1 bits;
    columns: offset bits) restricted to the column bits is the identity, and row bit i contributes the column
    XOR c_i = vec * ((2^i / per_phase) % max_phase).  A mutant with a wrong c_i must differ.
    """
    vec, per_phase, max_phase, R, C = 2, 1, 4, 8, 16
    L = swizzled_shared(vec, per_phase, max_phase, [1, 0], shape=[R, C])
    m = L.get_matrix_view()
    n, mm = C.bit_length() - 1, R.bit_length() - 1
    # reorder rows: column (dim1) bits first, then row (dim0) bits -> [[I_n, Cmat], [0, I_m]]
    rows = [m[mm + k] for k in range(n)] + [m[k] for k in range(mm)]
    for k in range(n):
        assert rows[k][:n] == [int(j == k) for j in range(n)]
        assert [rows[n + i][k] for i in range(mm)] == [0] * mm
    for i in range(mm):
        assert rows[n + i][n:] == [int(j == i) for j in range(mm)]
        c_i = vec * (((1 << i) // per_phase) % max_phase)
        assert sum(rows[k][n + i] << k for k in range(n)) == c_i
    assert f2.rank(L.flat_columns) == n + mm
    mutant = swizzled_shared(vec, per_phase, max_phase * 2, [1, 0], shape=[R, C])
    assert mutant != L


def test_errors_name_the_parameter():
    with pytest.raises(LayoutError, match="threads_per_warp"):
        blocked([1], [3], [1], [0], shape=[32])
    with pytest.raises(LayoutError, match="order"):
        blocked([1, 1], [4, 8], [1, 1], [0, 0], shape=[32, 32])
    with pytest.raises(LayoutError, match="warp_size"):
        blocked([1], [16], [1], [0], shape=[32], warp_size=32)
    with pytest.raises(LayoutError, match="instr_shape"):
        nvidia_mma([2, 0], [1, 1], [16, 4], shape=[16, 16])  # Triton asserts N % 8 == 0
    with pytest.raises(LayoutError, match="swizzle"):
        build("nvmma_shared", [8, 16], swizzle_byte_width=128, element_bitwidth=16)
    with pytest.raises(LayoutError, match="unknown parameter"):
        build("blocked", [32], size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[1], order=[0], foo=1)
    with pytest.raises(LayoutError, match="unknown layout kind"):
        build("bogus", [32])
