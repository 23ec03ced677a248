"""The conversion class llverify reports is the one Triton really lowers to: checked against the LLVM IR
of 21 conversions (Triton 3.9 on this machine, Triton 3.6 on the H200): shared-memory accesses mean
shared memory, ``shfl.sync`` a warp shuffle."""

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


def test_reported_class_is_what_triton_emits() -> None:
    n = corrected = 0
    for name, ttgir, llir in _pairs():
        mod = parse_module(ttgir, name)
        cvt = next(op for _, op, _ in mod.walk() if op.name == "ttg.convert_layout")
        A, B = layout_of(cvt.operand_types[0]).layout, layout_of(cvt.results[0].type).layout
        assert triton_lowering(A, B) == _lowered(llir), name
        corrected += convert(A, B).classification != triton_lowering(A, B)
        n += 1
    assert n >= 20 and corrected >= 2  # the plan alone said "warp shuffle" where Triton uses shared memory
