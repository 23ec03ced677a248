"""The Tensor Memory allocation prologue (``llverify/lowered/attribution.py``): on Blackwell, Triton emits at the
kernel's entry ``@p tcgen05.alloc ... [global_smem]`` (warp 0 writes the TMEM base address to a shared word),
a barrier, and a ``load i32`` of that word by every thread, all with the *function's* debug location.  Those
two accesses belong to no TTGIR op; the report must say what they are (it said "such as warp_specialize's
partition dispatch" with USE_IR_LOC=ttgir, and "no TTGIR op ... has the access's source position" by default),
and they must never be handed to an op whose line their location happens to name.

Sample: ``tests/data/lowered_tmem`` (a 128x128x64 ``tl.dot`` for cuda:100, compiled both ways by its
``make_tmem.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llverify.lowered.validate as validate_module
from llverify.lowered.validate import validate_texts

DATA = Path(__file__).resolve().parent / "data" / "lowered_tmem"
IRLOC = DATA / "mm_tcgen05-cuda_100-w4-irloc.ttgir"
DEFAULT = DATA / "mm_tcgen05-cuda_100-w4-default.ttgir"
ALLOC_LINE, LOAD_LINE = 11, 13  # the .llir lines of tcgen05.alloc and of the read-back (both files)


def _run(ttgir: Path, llir_text: str | None = None) -> list:
    llir = ttgir.with_suffix(".llir")
    text = llir.read_text() if llir_text is None else llir_text
    shared = int(json.loads(ttgir.with_suffix(".json").read_text())["shared"])
    return [f for f in validate_texts(ttgir.read_text(), ttgir.name, text, llir.name, shared)]


def _at(findings: list, line: int) -> list:
    return [f for f in findings if f.lowered.line == line]


@pytest.mark.parametrize("ttgir, where", [(IRLOC, "mm_tcgen05-cuda_100-w4-irloc.ttgir:13"), (DEFAULT, "k.py:7:1")])
def test_the_prologue_is_named_for_what_it_is(ttgir: Path, where: str) -> None:
    found = _run(ttgir)
    llir = ttgir.with_suffix(".llir").read_text().splitlines()
    assert "tcgen05.alloc" in llir[ALLOC_LINE - 1] and "load i32, ptr addrspace(3) @global_smem" in llir[LOAD_LINE - 1]
    for line, role in ((ALLOC_LINE, "warp 0's tcgen05.alloc"), (LOAD_LINE, "every thread's read-back")):
        by_prop = {f.finding.verdict.property: f.finding.verdict for f in _at(found, line)}
        a = by_prop["attribution"]
        assert a.status == "unknown"
        assert a.message.startswith("Triton's Tensor Memory allocation prologue: " + role), a.message
        assert "ttng.tmem_alloc op(s) (line(s) 46)" in a.message and where in a.message, a.message
        assert "warp_specialize" not in a.message and "source position" not in a.message
        assert by_prop["in_bounds"].status == "proved"


def test_a_location_on_another_ops_line_does_not_make_it_that_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant location: the prologue's !DILocation moved from the tt.func line (13) to line 49, a ttg.local_alloc
    (the MMA barrier).  The accesses stay unattributed, with the prologue's reason; without the rule they would
    silently become that local_alloc's."""
    text = IRLOC.with_suffix(".llir").read_text()
    old = "!13 = !DILocation(line: 13, column: 2, scope: !4)"
    assert text.count(old) == 1 and "ttg.local_alloc" in IRLOC.read_text().splitlines()[48]
    mutant = text.replace(old, old.replace("line: 13", "line: 49"))
    for line in (ALLOC_LINE, LOAD_LINE):
        a = [f.finding.verdict for f in _at(_run(IRLOC, mutant), line) if f.finding.verdict.property == "attribution"]
        assert len(a) == 1 and "Tensor Memory allocation prologue" in a[0].message
        assert "whatever its debug location" in a[0].message
    monkeypatch.setattr(validate_module, "tmem_prologue", lambda fn: frozenset())  # the rule switched off
    for line in (ALLOC_LINE, LOAD_LINE):
        found = _at(_run(IRLOC, mutant), line)
        assert not [f for f in found if f.finding.verdict.property == "attribution"]
        assert {f.finding.op for f in found} == {"ttg.local_alloc"}  # handed to the wrong op
