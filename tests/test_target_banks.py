"""One entry point for bank wavefronts on any modelled target (closed form on NVIDIA, simulation otherwise)."""

from __future__ import annotations

import pytest

from llverify.codegen.banks import bank_wavefronts
from llverify.codegen.target_banks import shared_bank_conflicts, target_wavefronts
from llverify.errors import LayoutError
from llverify.hw import build
from llverify.hw.padded import padded_shared

ROW = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])


def _blocked(tpw, spt=(1, 4)):
    return build("blocked", [64, 64], size_per_thread=list(spt), threads_per_warp=list(tpw), warps_per_cta=[1, 1],
                 order=[1, 0])


def test_nvidia_is_the_closed_form() -> None:
    acc = _blocked([8, 4])
    w = target_wavefronts(acc, ROW, 32, "cuda:90")
    rep = bank_wavefronts(acc, ROW, 32)
    assert (w.wavefronts, w.conflicts, w.method) == (rep.wavefronts, rep.triton_conflicts, "closed_form")


def test_cdna3_wave64_counts_by_hand() -> None:
    """64 lanes of 16-byte vectors are written 8 consecutive lanes (128 bytes) at a time (ds_write_b128): 8
    phases, 1 wavefront each when the lanes of a phase write consecutive vectors; 8 each (one bank, 8 rows)
    when they write one column.  Reads of one column cost the same under both documented read rules."""
    row = target_wavefronts(_blocked([8, 8]), ROW, 32, "hip:gfx942", direction="store")
    col = target_wavefronts(_blocked([64, 1]), ROW, 32, "hip:gfx942", direction="store")
    assert (row.wavefronts, row.conflicts) == (8, 0)
    assert (col.wavefronts, col.conflicts) == (64, 7)
    assert shared_bank_conflicts(_blocked([64, 1]), ROW, 32, "hip:gfx942") == 7


def test_padding_is_applied() -> None:
    M, pad = padded_shared([[64, 4]], [64, 64], order=[1, 0])
    col = _blocked([64, 1])
    assert target_wavefronts(col, M, 32, "hip:gfx942").conflicts == 7
    # rows 4 words apart: consecutive writers hit distinct banks
    assert target_wavefronts(col, M, 32, "hip:gfx942", padding=pad, direction="store").conflicts == 0


@pytest.mark.parametrize("target", ["hip:gfx1250", "hip:gfx1100", "hip:gfx1201", "cpu:x"])
def test_unmodelled_targets_are_refused(target: str) -> None:
    with pytest.raises(LayoutError):
        target_wavefronts(_blocked([8, 8]), ROW, 32, target)
