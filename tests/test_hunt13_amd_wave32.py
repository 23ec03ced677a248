"""hunt13: the AMD warp id in the lowered code is read with the launch's wave size, not 64 lanes.

Triton 3.9 lowers a warp id on AMD to ``readfirstlane(tid) / wave`` (CDNA and RDNA3, gfx1100) or to
``llvm.amdgcn.wave.id()`` (RDNA4 gfx1200 and gfx1250).  ``readfirstlane`` returns lane 0 of the *wave*: 32
lanes on RDNA and gfx1250, 64 on CDNA.  llverify read it as lane 0 of a 64-lane wave everywhere, so on wave32
targets threads 32..63 computed warp 0's addresses: 4 false ``right_elements`` refutations on a real gfx1100
``tl.dot`` kernel (witness tid 32), 12 on five kernels, and an in-bounds proof that skips the second wave
(``STORE`` below: a false proof).  ``llvm.amdgcn.wave.id`` was unmodelled (a free value: 72 ``right_elements``
unknowns on gfx1250).  The wave size is now the TTGIR's threads-per-warp (``LlirFunction.wave``, set by the
validator); a function whose wave is not known keeps ``readfirstlane`` free.

Independent facts used: LLVM's ``readfirstlane`` is lane 0 of the executing wave; Triton's AMD ``WarpIdOp``
lowering is ``readfirstlane(tid udiv threadsPerWarp)`` on CDNA, ``llvm.amdgcn.wave.id`` on RDNA4 and gfx1250,
``tid udiv threadsPerWarp`` otherwise (all the same number); the TTGIR states ``"ttg.threads-per-warp" = 32``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import z3

from llverify.lowered import concrete, symbolic, vector
from llverify.lowered.concrete import Concrete
from llverify.lowered.llir import parse_llir
from llverify.lowered.orbits import phi_range
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.validate import validate
from llverify.lowered.vector import Threads
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data" / "hunt"


def _module(wave: int, warps: int) -> str:
    return (f'module attributes {{"ttg.num-warps" = {warps} : i32, ttg.target = "hip:gfx1100", '
            f'"ttg.threads-per-warp" = {wave} : i32}} {{\n}}\n')


# 64 threads; each wave stores one word at 256 * (its warp id): wave32 -> bytes 0 and 256, wave64 -> byte 0.
STORE = """define amdgpu_kernel void @k(i32 %n) #0 {
  %1 = tail call i32 @llvm.amdgcn.workitem.id.x()
  WARP
  %4 = shl i32 %3, 8
  %5 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %4
  store i32 0, ptr addrspace(3) %5, align 4
  ret void
}

attributes #0 = { "amdgpu-flat-work-group-size"="1,64" }
"""
READFIRSTLANE = ("%2 = tail call i32 @llvm.amdgcn.readfirstlane.i32(i32 %1)\n"
                 "  %3 = lshr i32 %2, SHIFT")
WAVE_ID = "%2 = add i32 0, 0\n  %3 = tail call i32 @llvm.amdgcn.wave.id()"


def _store(warp: str, wave: int) -> str:
    return STORE.replace("WARP", warp.replace("SHIFT", str(wave.bit_length() - 1)))


def _in_bounds(text: str, wave: int, shared: int):
    (v,) = [f.finding.verdict for f in validate(parse_module(_module(wave, 64 // wave), "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]
    return v


@pytest.mark.parametrize("warp", [READFIRSTLANE, WAVE_ID], ids=["readfirstlane", "wave.id"])
def test_the_second_wave32_store_is_out_of_bounds_of_256_bytes(warp: str) -> None:
    v = _in_bounds(_store(warp, 32), 32, 256)
    assert v.status == "refuted", v.message  # was proved (readfirstlane as 64 lanes) or unknown (wave.id free)
    assert v.counterexample is not None and v.counterexample.inputs["tid"] == 32
    assert _in_bounds(_store(warp, 32), 32, 260).status == "proved"


def test_a_wave64_readfirstlane_stays_one_warp() -> None:
    """On CDNA (64 lanes) every thread of the 64 reads lane 0's tid: byte 0 only, in bounds of 4 bytes."""
    assert _in_bounds(_store(READFIRSTLANE, 64), 64, 4).status == "proved"


@pytest.mark.parametrize("wave", [32, 64])
@pytest.mark.parametrize("warp", [READFIRSTLANE, WAVE_ID], ids=["readfirstlane", "wave.id"])
def test_the_three_interpreters_agree_with_the_definition(warp: str, wave: int) -> None:
    fn = replace(parse_llir(_store(warp, wave)).functions[0], wave=wave)
    want = [256 * (t // wave) for t in range(64)]
    assert [Concrete(fn, t, {}).value("%4", 32) for t in range(64)] == want
    assert [int(x) for x in Threads(fn, 64).value("%4", 32).vals] == want
    sym = Symbolic(fn, 64, phi_range).value("%4", 32)
    for t in (0, 31, 32, 63):
        got = z3.simplify(z3.substitute(sym.term, (z3.BitVec("tid", 32), z3.BitVecVal(t, 32))))
        assert got.as_long() == want[t]


@pytest.mark.parametrize("warp", [READFIRSTLANE, WAVE_ID], ids=["readfirstlane", "wave.id"])
def test_an_unknown_wave_leaves_the_warp_id_free(warp: str) -> None:
    fn = parse_llir(_store(warp, 32)).functions[0]  # wave 0: no TTGIR said it
    assert Concrete(fn, 32, {}).value("%4", 32) is None
    assert "%3:32" in Symbolic(fn, 64, phi_range).value("%4", 32).free or \
        "%2:32" in Symbolic(fn, 64, phi_range).value("%4", 32).free


def _real(name: str) -> list:
    base = DATA / name
    shared = json.loads((base.with_suffix(".json")).read_text())["shared"]
    return validate(parse_module((base.with_suffix(".ttgir")).read_text(), str(base) + ".ttgir"),
                    parse_llir((base.with_suffix(".llir")).read_text(), str(base) + ".llir"), shared)


def test_real_gfx1100_dot_has_no_false_refutation() -> None:
    found = [f.finding.verdict for f in _real("tiny_dot-m32n64k16-hip_gfx1100-w4")]
    assert not [v for v in found if v.status == "refuted"], [v.message for v in found if v.status == "refuted"]
    assert [v.status for v in found if v.property == "right_elements"] == ["proved"] * 5


def test_real_gfx1100_dot_is_refuted_under_the_old_64_lane_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutant (every readfirstlane over 64 lanes) brings the false refutations back: these tests see it."""
    for mod in (concrete, symbolic, vector):
        monkeypatch.setattr(mod, "lane_and_wave", lambda d, wave: (d.extra[0], d.extra[1] or 64))
    found = [f.finding.verdict for f in _real("tiny_dot-m32n64k16-hip_gfx1100-w4")]
    assert [v for v in found if v.status == "refuted" and v.property == "right_elements"]


def test_real_gfx1250_wave_id_kernel_is_decided() -> None:
    found = [f.finding.verdict for f in _real("tiny_dot-m128n16k32-hip_gfx1250-w16")]
    assert not [v for v in found if v.status == "refuted"]
    assert not [v for v in found if "left free" in v.message], [v.message for v in found if "left free" in v.message]
    assert [v for v in found if v.property == "right_elements" and v.status == "proved"]
