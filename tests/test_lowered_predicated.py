"""Predicated inline-asm shared accesses (PTX ``@p``): a thread whose predicate is off accesses nothing.

Triton 3.9 zeroes a device-side TMA descriptor in shared memory with ``@$2 st.shared::cta.b32 [$0], $1`` on
``tid & 127`` for the lanes ``tid & 127 < 32`` only; the last thread's address, ``131200 + 4 * 127``, lies past
the 131,672 bytes the kernel allocates, so ignoring the predicate refuted correct code (a false alarm on every
warp-specialized TMA matmul).  Sample: ``examples/more_kernels.py``'s ``ws_matmul`` (128x128x64, 4 warps),
compiled for cuda:90 with ``USE_IR_LOC=ttgir`` (Triton 3.9).
"""

from __future__ import annotations

import json
from pathlib import Path

from llverify.lowered.llir import parse_llir
from llverify.lowered.validate import validate_texts

DATA = Path(__file__).resolve().parent / "data"
STEM = DATA / "lowered_tma" / "ws_tma_matmul-t128-cuda_90-w4"
GUARDED = '"@$2 st.shared::cta.b32 [ $0 + 0 ], $1;", "r,r,b"'


def _validate(llir: str):
    shared = json.loads(STEM.with_suffix(".json").read_text())["shared"]
    return validate_texts(STEM.with_suffix(".ttgir").read_text(), "m.ttgir", llir, "m.llir", shared)


def _guarded_bounds(findings):
    text = STEM.with_suffix(".llir").read_text().splitlines()
    lines = {i + 1 for i, line in enumerate(text) if "st.shared::cta.b32 [ $0 + 0 ], $1" in line}
    return [f for f in findings if f.finding.verdict.property == "in_bounds" and f.lowered.line in lines]


def test_the_kernel_as_triton_compiled_it() -> None:
    llir = STEM.with_suffix(".llir").read_text()
    assert GUARDED in llir
    findings = _validate(llir)
    assert not [f for f in findings if f.finding.verdict.status in ("refuted", "error")]
    guarded = _guarded_bounds(findings)
    assert guarded and all(f.finding.verdict.status == "proved" for f in guarded)
    # the only unknowns: TMA boxes, whose byte count the asm does not state
    for f in findings:
        if f.finding.verdict.status == "unknown" and f.finding.verdict.property == "in_bounds":
            assert "width is not read" in f.finding.verdict.message and "tma" in f.finding.op


def test_dropping_or_negating_the_predicate_is_not_proved() -> None:
    """The store sits in a worker partition's block, reached when the partition's state byte (``%15``, loaded
    from shared memory) selects it (``llverify/lowered/guards.py``): the thread out of bounds is named, but
    whether it sees that byte is not modelled, so the result is ``unknown`` with the witness it would be
    (before path conditions, every thread was taken to run every block and this was ``refuted``)."""
    llir = STEM.with_suffix(".llir").read_text()
    for mutant in (GUARDED.replace("@$2 ", ""), GUARDED.replace("@$2", "@!$2")):
        found = _guarded_bounds(_validate(llir.replace(GUARDED, mutant)))
        assert not [f for f in found if f.finding.verdict.status == "proved" and "131200" in f.finding.verdict.message]
        bad = [f.finding.verdict for f in found if f.finding.verdict.status == "unknown"]
        assert bad, mutant
        cx = bad[0].details["if_reached"]
        assert "%15:8" in cx and "%15" in bad[0].message  # the loaded state byte decides the branch
        assert cx["tid"] % 128 >= 32  # a lane the real predicate turns off
        assert cx["address"] + 4 > 131672


def test_a_pointer_passed_through_asm_is_not_an_access() -> None:
    text = (DATA / "lowered" / "attention-q64k64d64-cuda_90-w4.llir").read_text()
    accesses = [a for f in parse_llir(text).functions for a in f.accesses]
    assert "wait for regs" in text
    assert not [a for a in accesses if "wait for regs" in a.instr.body]
