"""Triton 3.2's own lowering against llverify's reading of its modules (tests/data/lowered_legacy/: our batched int8
dot compiled by Triton 3.2.0 for cuda:80 to TTGIR and LLVM IR with USE_IR_LOC=ttgir, examples/build_versions.py
--lowered).

Triton 3.2 loads this mma v2 operand of 8-bit elements with scalar loads that put other elements in its registers
than today's dot operand layout places (Triton 3.9's LLVM IR of the same kernel agrees with the layout).  A module
in the 3.2 spelling (``triton_gpu``) is known to be one, so those claims are unknown with the reason; the same text
spelled as Triton 3.3+ prints it is read with today's semantics and the lowering is refuted against it, which is the
difference measured."""

from __future__ import annotations

import json
from pathlib import Path

from llverify.lowered.validate import validate_texts
from llverify.ttgir.gate import gate_text

DATA = Path(__file__).resolve().parent / "data" / "lowered_legacy"
NAME = "batched_i8_dot-k-cuda_80-w4"


def _texts() -> tuple[str, str, int]:
    ttgir = (DATA / f"{NAME}.ttgir").read_text()
    llir = (DATA / f"{NAME}.llir").read_text()
    shared = json.loads((DATA / f"{NAME}.json").read_text())["shared"]
    return ttgir, llir, shared


def _respelled(ttgir: str) -> str:
    return ttgir.replace("triton_nvidia_gpu.", "ttng.").replace("triton_gpu.", "ttg.")


def _by_status(findings) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in findings:
        out.setdefault(f.finding.verdict.status, []).append(f.finding)
    return out


def test_triton_32_operand_loads_are_unknown_not_refuted() -> None:
    ttgir, llir, shared = _texts()
    assert '"triton_gpu.num-warps"' in ttgir
    got = _by_status(validate_texts(ttgir, f"{NAME}.ttgir", llir, f"{NAME}.llir", shared))
    assert not got.get("refuted") and len(got.get("proved", [])) > 200
    legacy = [f for f in got.get("unknown", []) if "register order of its own" in f.verdict.message]
    assert legacy and all(f.op == "ttg.local_load" and f.rule == "right_elements" for f in legacy)


def test_the_same_module_in_todays_spelling_is_refuted_against_32s_lowering() -> None:
    ttgir, llir, shared = _texts()
    got = _by_status(validate_texts(_respelled(ttgir), f"{NAME}.ttgir", llir, f"{NAME}.llir", shared))
    refuted = got.get("refuted", [])
    assert refuted and all(f.rule == "right_elements" and f.op == "ttg.local_load" for f in refuted)
    assert refuted[0].verdict.counterexample is not None


def test_the_gate_does_not_claim_todays_lowering_of_those_loads_for_a_32_module() -> None:
    """The gate's bank claims on those loads are Triton 3.9's lowering (ldmatrix here); for a 3.2 module they are
    unknown, and in today's spelling decided."""
    ttgir, _, _ = _texts()
    old = [f for f in gate_text(ttgir, f"{NAME}.ttgir") if f.rule == "shared_access" and f.op == "ttg.local_load"]
    assert old and all(f.verdict.status == "unknown" and "register order of its own" in f.verdict.message
                       for f in old)
    new = [f for f in gate_text(_respelled(ttgir), f"{NAME}.ttgir")
           if f.rule == "shared_access" and f.op == "ttg.local_load"]
    assert new and all(f.verdict.status == "proved" for f in new)
