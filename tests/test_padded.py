"""``#ttg.padded_shared``: read as Triton reads it, padding applied exactly, physical claims decided.

The oracle is Triton 3.9's own parser (the Gluon layout it recovers from the parsed type: padding pairs and
the linear component); the allocation size is what Triton's compiler allocated for the same buffer (the
``shared`` metadata recorded beside the lowered samples).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import oracle_triton
from llverify.errors import LayoutError
from llverify.hw.padded import Padding, padded_shared
from llverify.triton.parse import AttrParseError, parse_attr
from llverify.ttgir.gate import check_module, gate_file
from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.reader import parse_module
from llverify.ttgir.types import parse_typeref

DATA = Path(__file__).resolve().parent / "data"
PADDED = sorted((DATA / "ttgir" / "padded").glob("*.ttgir"))


def _alias_lines(text: str) -> dict[str, str]:
    return dict(re.findall(r"^#(\w+) = (#ttg\.padded_shared<.*>)$", text, re.M))


def test_corpus_has_padded_modules() -> None:
    assert len(PADDED) >= 6
    assert all(_alias_lines(p.read_text()) for p in PADDED)


@pytest.mark.skipif(not oracle_triton.available(), reason="triton not installed")
def test_padding_and_linear_component_equal_triton_parse() -> None:
    items, ours = [], []
    for path in PADDED:
        for enc in _alias_lines(path.read_text()).values():
            t = f"!ttg.memdesc<64x64xf16, {enc}, #ttg.shared_memory, mutable>"
            items.append({"type": t, "shape": [64, 64], "threads": 64 if "hip" in path.name else 32})
            built = layout_of(parse_typeref(t, {}))
            assert isinstance(built, BuiltLayout) and built.padding is not None
            ours.append((built.padding.pairs, [list(b) for b in built.layout.bases["offset"]]))
    results = oracle_triton.run_type_cases(items)
    for item, res, (pairs, offset_bases) in zip(items, results, ours):
        assert res.get("ok"), (item, res)
        assert [list(p) for p in pairs] == res["padded"]["pairs"], item["type"]
        assert offset_bases == res["padded"]["offset_bases"], item["type"]


def test_padding_function_on_gluons_documented_2d_example() -> None:
    """Gluon's PaddedSharedLayout docstring: shape [8, 4], one pad element after every 8, rows stored in the
    order 0, 2, 4, 6, 1, 3, 5, 7.  Row r's first element lands where the docstring draws it."""
    M, pad = padded_shared([[8, 1]], [8, 4], offset_bases=[[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]])
    row_start = {M.apply({"offset": o, "block": 0})["dim0"]: pad.apply(o) for o in range(0, 32, 4)}
    # 4 elements per row, a pad after every 2 rows: x0 at 0, x2 at 4, x4 at 9, x6 at 13, x1 at 18, ...
    assert row_start == {0: 0, 2: 4, 4: 9, 6: 13, 1: 18, 3: 22, 5: 27, 7: 31}
    assert pad.extent(32) == 35


def test_padding_sums_where_intervals_coincide() -> None:
    """Gluon's docstring: [[2, 1], [4, 2]] puts 1 pad element after e1 and 1 + 2 after e3."""
    p = Padding(((2, 1), (4, 2)))
    assert [p.apply(o) for o in range(8)] == [0, 1, 3, 4, 8, 9, 11, 12]


@pytest.mark.parametrize("stem", ["gluon_padded_wave64-pad16b-hip_gfx942-w4", "gluon_padded-permuted-cuda_90-w4"])
def test_extent_equals_tritons_allocation(stem: str) -> None:
    """The bytes Triton allocated for the one padded buffer equal ``extent(elements) * 2`` (f16)."""
    text = (DATA / "lowered" / f"{stem}.ttgir").read_text()
    meta = json.loads((DATA / "lowered" / f"{stem}.json").read_text())
    (enc,) = set(_alias_lines(text).values())
    built = layout_of(parse_typeref(f"!ttg.memdesc<64x64xf16, {enc}, #ttg.shared_memory, mutable>", {}))
    assert isinstance(built, BuiltLayout) and built.padding is not None
    assert built.padding.extent(64 * 64) * 2 == meta["shared"]


@pytest.mark.parametrize("bad, what", [
    ("#ttg.padded_shared<[32:4] {order = [1, 0], shape = [64, 64]}>", "'+'"),
    ("#ttg.padded_shared<[] {order = [1, 0], shape = [64, 64]}>", "interval"),
    ("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64], bogus = 1}>", "bogus"),
])
def test_malformed_padded_attributes_are_located_errors(bad: str, what: str) -> None:
    with pytest.raises(AttrParseError, match=re.escape(what)):
        parse_attr(bad)


@pytest.mark.parametrize("pairs", [[[3, 4]], [[32, 0]], [[32, 4], [32, 8]], [[32]]])
def test_invalid_padding_is_refused_naming_it(pairs: list) -> None:
    with pytest.raises(LayoutError, match="interval"):
        padded_shared(pairs, [64, 64], order=[1, 0])


def test_gate_decides_padded_accesses_exactly() -> None:
    findings = [f for p in PADDED for f in gate_file(str(p)).findings]
    refuted = [f for f in findings if f.verdict.status == "refuted"]
    # one 4-byte word of padding per 128-byte row misaligns Triton's 16-byte vector stores: a fault on NVIDIA
    # (examples/padded_misaligned/ ran such a cubin on an H200), refuted there; AMD's LDS rule is not modelled
    assert [(Path(f.location.file).name, f.op, f.verdict.property) for f in refuted] == [
        ("gluon_padded-pad4b-cuda_90-w4.ttgir", "ttg.local_store", "vector_alignment")]
    banks = [f for f in findings if f.verdict.property == "bank_conflicts"]
    assert len(banks) == 2 * len(PADDED)
    for f in banks:
        name = Path(f.location.file).name
        if "pad4b" in name and f.op == "ttg.local_store":
            assert f.verdict.status == "unknown" and "aligned" in f.verdict.message
        else:  # gfx950 included: its model covers every width up to 16 bytes (bank_model.py)
            assert f.verdict.status == "proved" and "padding [" in f.verdict.message, (name, f.verdict.message)


def test_padding_changes_the_count() -> None:
    """Column reads of a 64x64 f16 row-major buffer: lanes of one phase read 2-byte elements 128 bytes apart
    (one bank) without padding; one word of padding per row spreads them over the banks."""
    from llverify.codegen.bank_sim import simulate_wavefronts
    from llverify.hw import build

    reg = build("blocked", [64, 64], size_per_thread=[1, 1], threads_per_warp=[32, 1], warps_per_cta=[1, 4],
                order=[0, 1])
    M, pad = padded_shared([[64, 2]], [64, 64], order=[1, 0])
    plain = simulate_wavefronts(reg, M, 16)
    padded = simulate_wavefronts(reg, M, 16, padding=pad)
    assert plain.wavefronts == 32  # rows 0..31 of one column: 32 distinct words, all in one bank
    assert padded.wavefronts == 1  # row r starts at word 33 r: bank r


def test_a_use_through_a_different_padding_is_refuted() -> None:
    """Mutant: the local_load reads the buffer as if padded differently; the operand type no longer equals
    the allocation's, refuted with the first offset whose physical positions differ."""
    src = next(p for p in PADDED if "pad16b-cuda_90" in p.name).read_text()
    mutant = src.replace("#smem = #ttg.shared_memory",
                         "#smem = #ttg.shared_memory\n#shared9 = #ttg.padded_shared<[64:+16] {order = [1, 0], "
                         "shape = [64, 64]}>", 1)
    line = next(ln for ln in mutant.splitlines() if "ttg.local_load" in ln)
    mutant = mutant.replace(line, line.replace("!ttg.memdesc<64x64xf16, #shared,", "!ttg.memdesc<64x64xf16, #shared9,"))
    refuted = [f for f in check_module(parse_module(mutant, "mutant.ttgir")) if f.verdict.status == "refuted"]
    assert refuted and all(f.op == "ttg.local_load" for f in refuted)
    cex = refuted[0].verdict.counterexample
    assert cex is not None and cex.inputs == {"offset": 64}
    assert sorted(cex.sides.values()) == [72, 80]  # offset 64 (row 1) after 8 or after 16 pad elements
    assert all(f.verdict.status != "refuted" for f in check_module(parse_module(src, "orig.ttgir")))


def _random_padded_args(rng) -> dict:
    """bench_zoo's random padded case, and one time in three a broken variant (a repeated or oversized basis,
    a bool or negative component, a ragged basis, a wrong shape, a bool padding entry)."""
    rank = rng.randint(1, 3)
    logs = [rng.randint(0, 4) for _ in range(rank)]
    if not sum(logs):
        logs[0] = 1
    units = [[(1 << k) if d == dim else 0 for d in range(rank)] for dim in range(rank) for k in range(logs[dim])]
    rng.shuffle(units)
    pairs = [[1 << i, 1 << rng.randint(0, 3)] for i in rng.sample(range(sum(logs) + 1), rng.randint(1, 2))]
    shape = [1 << l for l in logs]
    args = {"interval_padding_pairs": pairs, "shape": shape, "offset_bases": units}
    if rng.random() < 1 / 3:
        broken = [list(b) for b in units]
        how = rng.randrange(7)
        if how == 0:
            broken[-1] = list(broken[0])
        elif how == 1:
            broken[-1][0] = 2 * max(shape[0], broken[-1][0] or 1)
        elif how == 2:
            broken[0][0] = True
        elif how == 3:
            broken[0][-1] = -1
        elif how == 4:
            broken[0] = broken[0] + [0]
        elif how == 5:
            args["shape"] = shape[:-1] + [2 * shape[-1]]
        else:
            args["interval_padding_pairs"] = [[True, 2]]
        args["offset_bases"] = broken
    return args


def test_the_fast_path_equals_the_checking_path() -> None:
    """``padded_shared`` takes a shortcut for plain explicit bases; over random valid and broken arguments it
    returns what the general, checking path returns, or the same error."""
    import random

    from llverify.hw import padded

    rng = random.Random(5)
    for _ in range(600):
        a = _random_padded_args(rng)
        try:
            want = (padded._checked(a["shape"], None, a["offset_bases"], None),
                    Padding(tuple(tuple(p) for p in a["interval_padding_pairs"])))
        except LayoutError as exc:
            with pytest.raises(LayoutError) as got:
                padded_shared(**a)
            assert str(got.value) == str(exc), a
            continue
        assert padded_shared(**a) == want, a
