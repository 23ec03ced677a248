"""memdesc_index: every reachable buffer index lies inside the allocation (ttgir.scalars)."""

from __future__ import annotations

from pathlib import Path

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
ATTN = CORPUS / "attention-q128k64d64-cuda_100-w4.ttgir"


def _index_findings(text: str, name: str) -> list:
    return [f for f in check_module(parse_module(text, name)) if f.rule == "buffer_index"]


def test_every_corpus_buffer_index_is_proved() -> None:
    found = [f for p in sorted(CORPUS.rglob("*.ttgir")) if "memdesc_index" in p.read_text()
             for f in _index_findings(p.read_text(), p.name)]
    assert len(found) >= 100
    assert all(f.verdict.status == "proved" for f in found), [f.verdict.message for f in found
                                                               if f.verdict.status != "proved"]
    assert {f.verdict.method for f in found} == {"exhaustive", "smt"}  # loop orbits, and i64 counters mod 3


def test_the_pipeliner_counter_is_enumerated_exactly() -> None:
    found = _index_findings(ATTN.read_text(), ATTN.name)
    loop = [f for f in found if "%acc_69" in f.verdict.subject]
    assert loop and loop[0].verdict.certificate["compared"]["reachable index values"] == [0, 1]


def test_a_counter_that_wraps_one_late_is_not_proved() -> None:
    """Mutant: the wrap compares with 3 instead of 2 on a 2-buffer allocation; index 2 is reached on the
    second iteration: unknown with the value (real once the loop runs long enough), never proved."""
    text = ATTN.read_text()
    old = "arith.cmpi sge, %acc_112, %c2_i32"
    assert old in text
    mutant = text.replace(old, "arith.cmpi sge, %acc_112, %c3_i32").replace(
        "%c2_i32 = arith.constant 2 : i32", "%c2_i32 = arith.constant 2 : i32\n    %c3_i32 = arith.constant 3 : i32", 1)
    loop = [f for f in _index_findings(mutant, "m.ttgir") if "%acc_69" in f.verdict.subject]
    assert loop and loop[0].verdict.status == "unknown" and "index 2" in loop[0].verdict.message


def test_a_constant_index_past_the_end_is_refuted() -> None:
    text = ATTN.read_text()
    old = "ttg.memdesc_index %acc_24[%c1_i32]"
    assert old in text
    mutant = text.replace(old, "ttg.memdesc_index %acc_24[%c2_i32]")
    bad = [f for f in _index_findings(mutant, "m.ttgir") if f.verdict.status == "refuted"]
    assert len(bad) == 1 and bad[0].verdict.counterexample.inputs == {"index": 2}


def test_a_shifted_constant_index_outside_the_buffers_is_refuted() -> None:
    # hunt13's minimised finding: the index is arith.shrsi(-1, 1) = -1 (an arithmetic shift keeps the sign);
    # it was 'not enumerable' before shifts were evaluated
    from pathlib import Path

    from llverify.ttgir.gate import gate_file

    res = gate_file(str(Path(__file__).resolve().parent / "data" / "hunt" / "shrsi_buffer_index.ttgir"))
    (idx,) = [f for f in res.findings if f.rule == "buffer_index"]
    assert idx.verdict.status == "refuted" and idx.verdict.counterexample.inputs.get("index") == -1
