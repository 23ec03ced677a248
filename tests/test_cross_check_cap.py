"""The bank-count cross-check (a brute-force re-count of a Z3-proved closed form) is capped by default."""

from __future__ import annotations

import pytest

from llverify.hw import build
from llverify.prove import plan_banks


def _pair(rows: int):
    acc = build("blocked", [rows, 64], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[4, 1],
                order=[1, 0])
    sh = build("swizzled_shared", [rows, 64], vec=4, per_phase=1, max_phase=8, order=[1, 0])
    return acc, sh


def test_small_accesses_are_cross_checked_by_default() -> None:
    acc, sh = _pair(64)
    assert acc.total_in_bits <= plan_banks.CROSS_CHECK_BITS
    v = plan_banks.prove_bank_count(acc, sh, 32)
    assert v.status == "proved" and v.details["simulator_wavefronts"] == v.details["wavefronts"]


@pytest.mark.parametrize("paranoid", [False, True])
def test_large_accesses_only_when_paranoid(paranoid: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    acc, sh = _pair(4096)  # 2^18 points
    assert plan_banks.CROSS_CHECK_BITS < acc.total_in_bits <= plan_banks.PARANOID_CROSS_CHECK_BITS
    if paranoid:
        monkeypatch.setenv("LLVERIFY_PARANOID", "1")
    else:
        monkeypatch.delenv("LLVERIFY_PARANOID", raising=False)
    v = plan_banks.prove_bank_count(acc, sh, 32)
    assert v.status == "proved"
    assert ("simulator_wavefronts" in v.details) == paranoid
