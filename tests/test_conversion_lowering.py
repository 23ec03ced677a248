"""The conversion class llverify reports is the one Triton really lowers to: checked against the LLVM IR
of 21 conversions (Triton 3.9 on this machine, Triton 3.6 on the H200) and of 8 conversions between layouts
holding copies (Triton 3.9, tests/data/ttgir_broadcast/make_broadcast_cases.py): shared-memory accesses mean shared memory,
``shfl.sync`` a warp shuffle."""

from __future__ import annotations

import json
import re
from pathlib import Path

from llverify.codegen.conversion import convert
from llverify.codegen.shuffle import triton_lowering
from llverify.ttgir.layouts import layout_of
from llverify.ttgir.reader import parse_module

ROOT = Path(__file__).resolve().parents[1]


def _lowered(llir: str) -> str:
    if re.search(r"(load|store) [^\n]*ptr addrspace\(3\)", llir):
        return "shared_memory"
    if "shfl.sync" in llir:
        return "warp_shuffle"
    return "register_permutation"


def _pairs():
    d = json.loads((ROOT / "reports" / "gpu" / "triton" / "cvt.json").read_text())
    for r in d["cases"]:
        if not r.get("variant"):
            yield "triton-3.6:" + r["name"], r["ttgir"], r["llir"]
    for f in sorted((ROOT / "tests" / "data" / "ttgir").glob("gluon_convert*cuda_90-w4.ttgir")):
        yield "triton-3.9:" + f.stem, f.read_text(), f.with_suffix(".llir").read_text()
    for f in sorted((ROOT / "tests" / "data" / "ttgir_broadcast").glob("*.ttgir")):
        yield "triton-3.9-broadcast:" + f.stem, f.read_text(), f.with_suffix(".llir").read_text()


def test_reported_class_is_what_triton_emits() -> None:
    n = corrected = 0
    for name, ttgir, llir in _pairs():
        mod = parse_module(ttgir, name)
        cvt = next(op for _, op, _ in mod.walk() if op.name == "ttg.convert_layout")
        A, B = layout_of(cvt.operand_types[0]).layout, layout_of(cvt.results[0].type).layout
        assert triton_lowering(A, B) == _lowered(llir), name
        corrected += convert(A, B).classification != triton_lowering(A, B)
        n += 1
    assert n >= 28 and corrected >= 2  # the plan alone said "warp shuffle" where Triton uses shared memory


def test_broadcast_copies_in_the_own_warp_make_a_shuffle() -> None:
    """Triton PR #11646's case: the minimal-movement cvt reads rows from warp 0 (shared memory), but every
    warp of the source holds every row; Triton 3.9 emits shfl.sync, and so does triton_lowering."""
    f = ROOT / "tests" / "data" / "ttgir_broadcast" / "pr11646_rows_warp_copies-cuda_90-w4.ttgir"
    mod = parse_module(f.read_text(), f.stem)
    cvt = next(op for _, op, _ in mod.walk() if op.name == "ttg.convert_layout")
    A, B = layout_of(cvt.operand_types[0]).layout, layout_of(cvt.results[0].type).layout
    assert convert(A, B).classification == "shared_memory"
    assert triton_lowering(A, B) == "warp_shuffle" == _lowered(f.with_suffix(".llir").read_text())
