"""Descriptor gathers and scatters (``tt.descriptor_gather`` / ``tt.descriptor_scatter``): the box (``gather_shape``)
and the staging buffer (``gather_staging``), on Triton 3.9's own cuda:100 module printed before its TMA lowering
(examples/dump_before_pass.py on examples/kernels/tma_gather.py), on a hand-written module, and on mutants that
must be refuted at the op."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_descriptor_gather import box_problems

DATA = sorted((Path(__file__).resolve().parents[1] / "tests" / "data" / "ttgir" / "descriptor_gather").glob("*.ttgir"))
BIG = next(p for p in DATA if "r32n128-cuda" in p.name)  # 32 rows of 128 bf16, 128-byte swizzle
AMD = next(p for p in DATA if "gfx1250" in p.name)  # the same kernel on gfx1250: a padded_shared descriptor
OPS = ("tt.descriptor_gather", "tt.descriptor_scatter")


def _gathers(text: str) -> list:
    return [f for f in check_module(parse_module(text, "m.ttgir")) if f.op in OPS and f.rule == "descriptor_gather"]


def _line(text: str, op: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if op + " " in ln)


def test_real_gathers_and_scatters_prove() -> None:
    assert len(DATA) == 3
    for path in DATA:
        text = path.read_text()
        got = _gathers(text)
        assert sorted((f.op, f.verdict.property, f.verdict.status) for f in got) == [
            ("tt.descriptor_gather", "gather_shape", "proved"), ("tt.descriptor_gather", "gather_staging", "proved"),
            ("tt.descriptor_scatter", "gather_shape", "proved"), ("tt.descriptor_scatter", "gather_staging", "proved")]
        # no op is left unmodelled, and the box is what the kernel asked for
        everything = check_module(parse_module(text, path.name))
        assert not [f for f in everything if f.rule == "unmodelled_op"]
        # Triton prints the descriptor's type without its dialect (`: <bf16>, <1x64xbf16, #shared>`): read as the
        # `!tt.tensordesc` its uses print, every use's type agrees with its definition's
        made = [op for _, op, _ in parse_module(text, path.name).walk() if op.name == "tt.make_tensor_descriptor"]
        assert made and all(op.results[0].type.kind == "tensordesc" and op.results[0].type.encoding_text == "#shared"
                            for op in made)
        assert [f.verdict.status for f in everything if f.rule == "use_type"] == []
        (box,) = [f for f in got if f.op == "tt.descriptor_gather" and f.verdict.property == "gather_shape"]
        rows, cols = (8, 64) if "r8n64" in path.name else (32, 128)
        assert box.verdict.certificate["compared"]["value"] == [rows, cols]
        assert box.verdict.certificate["compared"]["descriptor block"] == [1, cols]


#: the scatter's descriptor changes where it is made (printed without its dialect) and where it is used
_OUT_DEF = "<bf16>, <1x128xbf16, #shared> loc(#loc16)"


@pytest.mark.parametrize("changes,op,why", [
    ([("-> tensor<32x128xbf16, #blocked>", "-> tensor<32x64xbf16, #blocked>")], "tt.descriptor_gather",
     "columns (64)"),
    ([("i32) -> tensor<32x128xbf16, #blocked>", "i32) -> tensor<32x128xf16, #blocked>")], "tt.descriptor_gather",
     "element type f16"),
    ([(_OUT_DEF, _OUT_DEF.replace("1x128", "1x64")), ("%0 : !tt.tensordesc<1x128xbf16", "%0 : !tt.tensordesc<1x64xbf16")],
     "tt.descriptor_scatter", "columns (128) are not the block's (64)"),
    ([(_OUT_DEF, _OUT_DEF.replace("1x128", "2x128")), ("%0 : !tt.tensordesc<1x128xbf16", "%0 : !tt.tensordesc<2x128xbf16")],
     "tt.descriptor_scatter", "one row [1, N]"),
])
def test_a_wrong_box_is_refuted_at_the_op(changes: list, op: str, why: str) -> None:
    text = BIG.read_text()
    mutant = text
    for old, new in changes:
        assert old in mutant
        mutant = mutant.replace(old, new)
    bad = [f for f in _gathers(mutant) if f.verdict.status == "refuted"]
    assert [(f.op, f.verdict.property) for f in bad] == [(op, "gather_shape")]
    assert bad[0].location.line == _line(text, op) and why in bad[0].verdict.message
    assert bad[0].verdict.counterexample is not None
    assert not [f for f in check_module(parse_module(mutant, "m.ttgir")) if f.rule == "use_type"]


HAND = """#b = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>
#i = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}}>
#s = {shared}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func @rows(%d: !tt.tensordesc<1x{n}x{elem}, #s>, %x: tensor<{m}xi32, #i>, %y: i32) -> tensor<{m}x{n}x{elem}, #b> {{
    %r = tt.descriptor_gather %d[%x, %y] : (!tt.tensordesc<1x{n}x{elem}, #s>, tensor<{m}xi32, #i>, i32) -> tensor<{m}x{n}x{elem}, #b>
    tt.return %r : tensor<{m}x{n}x{elem}, #b>
  }}
}}
"""
SWIZZLED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


@pytest.mark.parametrize("shared,m,n,elem,prop,status,why", [
    (SWIZZLED, 32, 64, "f16", "gather_staging", "proved", ""),
    (SWIZZLED, 4, 64, "f16", "gather_shape", "refuted", "4 rows: a gather needs at least 8"),
    (SWIZZLED, 32, 8, "f16", "gather_shape", "refuted", "a row of 8 x 16 bits is under 32 bytes"),
    (SWIZZLED, 32, 64, "f64", "gather_shape", "refuted", "64-bit elements"),
    # a staging layout of 4096 offsets for the 2048 elements of the box (offset bases 0 and 11 both move column 1)
    ("#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0], "
     "[8, 0], [16, 0], [0, 1]]}, alignment = 16>", 32, 64, "f16", "gather_staging", "refuted", "not injective"),
])
def test_hand_written_gathers(shared: str, m: int, n: int, elem: str, prop: str, status: str, why: str) -> None:
    text = HAND.format(shared=shared, m=m, n=n, elem=elem)
    got = {f.verdict.property: f for f in _gathers(text)}
    f = got[prop]
    assert f.verdict.status == status and why in (f.verdict.message or "")
    assert f.location.line == 6
    if status == "refuted" and prop == "gather_staging":  # two offsets, one element: the witness's two sides agree
        cx = f.verdict.counterexample
        assert cx.inputs["offset"] != cx.inputs["offset'"] and cx.sides["L(x)"] == cx.sides["L(x')"]


def test_box_contract_checks_each_condition() -> None:
    ok = ((1, 128), (32,), (32, 128), "bf16", "bf16")
    assert box_problems(*ok) == []
    assert box_problems((2, 64), (32,), (32, 64), "bf16", "bf16") == ["the descriptor's block [2, 64] is not one row [1, N]"]
    assert box_problems((1, 128), (32, 1), (32, 128), "bf16", "bf16") == ["the indices [32, 1] are not one vector"]
    assert box_problems((1, 128), (32,), (32, 128), "bf16", "si16") == [
        "the value's element type si16 is not the block's bf16"]
    assert box_problems((1, 64), (32,), (32, 64), "i8", "i8") == []  # 64 bytes a row
    assert box_problems((1, 16), (32,), (32, 16), "i8", "ui8") == ["a row of 16 x 8 bits is under 32 bytes"]


def test_amd_stages_the_box_in_the_padded_encoding_at_the_box_shape() -> None:
    """gfx1250 prints the descriptor's padded_shared for the block (shape [1, 128]); the staging buffer is that
    encoding at 32 x 128, a bijection on the box's elements (padding only adds gaps)."""
    text = AMD.read_text()
    assert "shape = [1, 128]" in text
    staging = [f for f in _gathers(text) if f.verdict.property == "gather_staging"]
    assert [f.verdict.status for f in staging] == ["proved", "proved"]
    assert all("re-made at shape [32, 128]" in f.verdict.subject for f in staging)
    # an explicit-basis linear component is not re-made: unknown, never guessed
    mutant = text.replace("{order = [1, 0], shape = [1, 128]}", "{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], "
                          "[0, 32], [0, 64]], block = []}")
    assert mutant != text
    staging = [f for f in _gathers(mutant) if f.verdict.property == "gather_staging"]
    assert staging and all(f.verdict.status == "unknown" for f in staging)
