"""``stored_values`` (``llverify/lowered/stored_values.py``): the values a ``local_store`` / ``local_alloc`` stores,
not only their addresses.  ``right_elements`` stays proved when two stored values are swapped (every address is
unchanged); ``stored_values`` traces each stored byte to the global byte it was loaded from and compares it with
the TTGIR's pointer tensor at the element's coordinates, so the swap is refuted, the witness replayed.

Samples: ``gluon_padded-permuted`` (sm_90, a 64x64 f16 tile loaded by ``ld.global.b16`` and stored as
``<4 x i32>`` vectors packed from ``<2 x i16>`` pairs; no program id: exact offsets) and the gfx942 attention's Q
tile (program ids in the pointers: compared relative to one reference byte).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llverify.lowered.validate import validate_texts

DATA = Path(__file__).resolve().parent / "data"
PADDED = DATA / "lowered" / "gluon_padded-permuted-cuda_90-w4.ttgir"
ATTENTION = DATA / "lowered" / "attention-q64k64d64-hip_gfx942-w4.ttgir"

# the first <2 x i16> pair of the padded sample's first store (line 144): registers 0 and 1 of the tile
PAIR = ("%124 = insertelement <2 x i16> poison, i16 %80, i64 0", "%125 = insertelement <2 x i16> %124, i16 %81, i64 1")


def _run(ttgir: Path, llir_text: str | None = None) -> list:
    llir = ttgir.with_suffix(".llir")
    text = llir.read_text() if llir_text is None else llir_text
    shared = int(json.loads(ttgir.with_suffix(".json").read_text())["shared"])
    return [f.finding.verdict for f in validate_texts(ttgir.read_text(), ttgir.name, text, llir.name, shared)]


def _of(verdicts: list, prop: str, op_line: int | None = None) -> list:
    return [v for v in verdicts if v.property == prop and (op_line is None or f".ttgir:{op_line}:" in v.subject)]


def _mutate(path: Path, *pairs: tuple[str, str]) -> str:
    text = path.with_suffix(".llir").read_text()
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def test_the_padded_tile_stores_the_loaded_values() -> None:
    res = _run(PADDED)
    (v,) = _of(res, "stored_values")
    assert v.status == "proved" and v.method == "exhaustive", v.message
    assert "tt.load at line 22" in v.message and "%x" in v.message and "shift" not in v.message
    assert v.certificate["bytes"] == 64 and v.certificate["threads"] == 128  # 32 f16 registers per thread


def test_two_swapped_values_keep_the_addresses_and_are_refuted() -> None:
    """Registers 0 and 1 swapped in the first pair.  At thread 0 register 0 holds element (0, 0), at x + 0; the
    stored value is %81's, loaded through %35 = x + 2 * zext(%11), %11 = ((tid & 3) << 3) | 1 = 1 at thread 0:
    global byte offset 2 (worked by hand from the IR)."""
    a, b = PAIR
    res = _run(PADDED, _mutate(PADDED, (a, a.replace("%80", "%81")), (b, b.replace("%81", "%80"))))
    store = [v for v in _of(res, "right_elements") if "local_store" in v.subject]
    assert [v.status for v in store] == ["proved"]  # the addresses did not change
    (v,) = _of(res, "stored_values")
    assert v.status == "refuted", v.message
    cx = v.counterexample
    assert cx.inputs["tid"] == 0
    assert cx.sides["register"] == 0 and list(cx.sides["coordinates"]) == [0, 0] and cx.sides["byte"] == 0
    assert cx.sides["stored: global byte offset"] == 2
    assert cx.sides["expected: offset of %x's element"] == 0
    assert "replayed" in cx.note


def test_a_duplicated_value_is_refuted() -> None:
    """Register 0's value stored in register 1's place too (register 1's load unused)."""
    a, b = PAIR
    (v,) = _of(_run(PADDED, _mutate(PADDED, (b, b.replace("%81", "%80")))), "stored_values")
    assert v.status == "refuted", v.message
    # the first wrong byte: register 1's element (0, 1) at x + 2, the stored byte loaded from x + 0
    assert v.counterexample.sides["stored: global byte offset"] == 0
    assert v.counterexample.sides["expected: offset of %x's element"] == 2


def test_a_poison_lane_is_refuted() -> None:
    """The pair's second lane never inserted: the stored bytes 2..3 of the first word are poison."""
    old = "%126 = bitcast <2 x i16> %125 to i32"
    (v,) = _of(_run(PADDED, _mutate(PADDED, (old, old.replace("%125", "%124")))), "stored_values")
    assert v.status == "refuted" and "poison" in v.message, v.message


def test_with_program_ids_the_tile_is_compared_relative_to_one_byte() -> None:
    """gfx942 attention: the Q tile's pointers carry the program id (a free variable): proved up to one shift
    common to the tile; a swap of two stored values is refuted relative to the reference byte."""
    res = _run(ATTENTION)
    proved = [v for v in _of(res, "stored_values") if v.status == "proved"]
    assert proved and all("shift common to the tile" in v.message for v in proved)
    q = next(v for v in proved if "%q_ptr" in v.message)
    line = int(q.subject.split(".ttgir:")[1].split(":")[0])
    text = ATTENTION.with_suffix(".llir").read_text()
    # the first two stores of the Q tile (`store <1 x half> %v, ptr addrspace(3) %p`): their values swapped
    first, second = [ln.strip().split(", !dbg")[0] for ln in text.splitlines() if ln.strip().startswith("store <1 x half>")][:2]
    v0, v1 = first.split()[4].rstrip(","), second.split()[4].rstrip(",")
    assert v0.startswith("%") and v1.startswith("%") and v0 != v1
    mutant = _mutate(ATTENTION, (first + ",", first.replace(v0, v1) + ","), (second + ",", second.replace(v1, v0) + ","))
    v = next(v for v in _of(_run(ATTENTION, mutant), "stored_values", line))
    assert v.status == "refuted", v.message
    assert "relative to the reference byte" in v.message and "reference" in v.counterexample.sides


@pytest.mark.parametrize("sample, reason", [
    ("lowered/splitk_matmul-k-hip_gfx950-w4.ttgir", "masked tt.load"),
    ("lowered_tma/tma_copy_fp16-64x512-cuda_90-w4.ttgir", "computed by arith.addf"),
    ("lowered/matmul-t64s3-cuda_90-w4.ttgir", "multiplies the coordinates by %K"),
])
def test_what_is_not_decided_is_unknown_with_the_reason(sample: str, reason: str) -> None:
    res = _of(_run(DATA / sample), "stored_values")
    assert res and all(v.status in ("unknown", "proved") for v in res)
    assert any(v.status == "unknown" and reason in v.message for v in res), [v.message for v in res]
