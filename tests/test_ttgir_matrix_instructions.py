"""The gate's shared-memory costs on NVIDIA name the instructions Triton 3.9 really emits: for every corpus
module compiled with its LLVM IR (cuda), the set of ldmatrix / stmatrix variants the gate predicts (for
``local_load``/``local_store``/``local_alloc`` and for conversions through shared memory) is the set found in
Triton's own lowered code of that module."""

from __future__ import annotations

import re
from pathlib import Path

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data"
MATRIX = re.compile(r"\b(ldmatrix|stmatrix)\.sync\.aligned\.(?:m8n8\.)?x[124](\.trans)?")


def _predicted(path: Path) -> set[str]:
    out = set()
    for f in check_module(parse_module(path.read_text(), str(path))):
        d = f.verdict.details
        if f.rule == "shared_access" and d.get("instruction") not in (None, "vector"):
            out.add(d["instruction"])
        if f.rule == "conversion":
            cost = d.get("cost") or {}
            out |= {cost[k] for k in ("store_instruction", "load_instruction") if cost.get(k) not in (None, "vector")}
    return out


def _emitted(llir: Path) -> set[str]:
    return {m.group(1) + ("_trans" if m.group(2) else "") for m in MATRIX.finditer(llir.read_text())}


def test_predicted_matrix_instructions_are_the_emitted_ones() -> None:
    modules = [p for p in sorted((DATA / "ttgir").rglob("*.ttgir")) + sorted((DATA / "lowered").glob("*.ttgir"))
               if p.with_suffix(".llir").exists() and '"cuda:' in p.read_text()[:4000]]
    assert len(modules) >= 20
    using = 0
    for p in modules:
        want = _emitted(p.with_suffix(".llir"))
        assert _predicted(p) == want, p.name
        using += bool(want)
    assert using >= 5  # modules where Triton does use matrix instructions
