"""``ttng.packed_arith``: packed_shape, packed_layout (fp4 bytes unpacked in place) and packed_pairs on hand-written
modules: proved where every thread computes its own packs, refuted (located, with a witness) where a layout,
shape or pack count is wrong."""

from __future__ import annotations

import pytest

from llverify.layout import LinearLayout
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_packed_arith import unpacked_layout

MODULE = """#b = {result}
#f = {fp4}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func @packs(%x: tensor<128x{half}xi8, #f>, %y: tensor<128x4xf8E4M3FN, #b>, %z: tensor<128x4xf8E5M2, #b>) {{
    %s = ttng.packed_arith {kind} {args} : ({types}) -> tensor<128x4xf8E4M3FN, #b>
    tt.return
  }}
}}
"""
RES = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>"
FP4 = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>"


def _module(result: str = RES, fp4: str = FP4, kind: str = "add", half: int = 2, args: str = "%x, %y") -> str:
    types = {"%x": f"tensor<128x{half}xi8, #f>", "%y": "tensor<128x4xf8E4M3FN, #b>",
             "%z": "tensor<128x4xf8E5M2, #b>"}
    return MODULE.format(result=result, fp4=fp4, kind=kind, half=half, args=args,
                         types=", ".join(types[a.strip()] for a in args.split(",")))


def _verdicts(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in check_module(parse_module(text, "m.ttgir")):
        if f.rule == "packed_arith":
            assert f.location.line == 5
            out.setdefault(f.verdict.property, []).append(f.verdict)
    return out


def test_fp4_and_fp8_operands_in_the_result_layout_prove() -> None:
    got = _verdicts(_module(kind="fma", args="%x, %y, %z"))
    assert {p: [v.status for v in vs] for p, vs in got.items()} == {
        "packed_shape": ["proved"], "packed_layout": ["proved"], "packed_pairs": ["proved"]}
    # the fp4 operand's check is a real F2 equality (the fp8 operands share the result's alias: nothing to prove)
    assert got["packed_layout"][0].method == "f2"
    assert got["packed_pairs"][0].certificate["compared"] == {"unique elements per thread": 4, "pack width": 4}


@pytest.mark.parametrize("kw,prop,why", [
    # lanes split over columns: a thread's two bytes are not the four values its result registers hold
    ({"result": RES.replace("threadsPerWarp = [32, 1]", "threadsPerWarp = [16, 2]")}, "packed_layout", "differ"),
    # bytes with their nibble pairs spread over two threads (one byte a thread, but two result values per byte
    # that the result gives to one thread's consecutive registers ... and the other byte to a neighbour)
    ({"fp4": FP4.replace("sizePerThread = [1, 2], threadsPerWarp = [32, 1]", "sizePerThread = [1, 1], "
                                                                             "threadsPerWarp = [16, 2]")},
     "packed_layout", ""),
    ({"half": 4}, "packed_shape", "do not all halve"),
    ({"kind": "fma"}, "packed_shape", "fma takes 3 operands"),
])
def test_a_wrong_pack_is_refuted_at_the_op(kw: dict, prop: str, why: str) -> None:
    got = _verdicts(_module(**kw))
    bad = [(p, v) for p, vs in got.items() for v in vs if v.status == "refuted"]
    assert [p for p, _ in bad] == [prop]
    assert why in bad[0][1].message and bad[0][1].counterexample is not None


def test_unpacking_puts_both_nibbles_of_a_byte_in_consecutive_registers() -> None:
    """Evaluated from the bases: U(A)(2r + b, t) is A(r, t) with the axis coordinate c replaced by 2c + b."""
    A = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[1, 0], [2, 0]], "warp": [[0, 2]]}, ["dim0", "dim1"])
    U = unpacked_layout(A, "dim1")
    assert dict(U.out_dims) == {"dim0": 4, "dim1": 8}
    for r in range(2):
        for lane in range(4):
            for warp in range(2):
                a = A.apply({"register": r, "lane": lane, "warp": warp})
                for b in range(2):
                    u = U.apply({"register": 2 * r + b, "lane": lane, "warp": warp})
                    assert (u["dim0"], u["dim1"]) == (a["dim0"], 2 * a["dim1"] + b)


ONE = """#r = #ttg.blocked<{{sizePerThread = [{spt}], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func @pairs(%a: tensor<{n}xf32, #r>, %b: tensor<{n}xf32, #r>) {{
    %s = ttng.packed_arith mul %a, %b : (tensor<{n}xf32, #r>, tensor<{n}xf32, #r>) -> tensor<{n}xf32, #r>
    tt.return
  }}
}}
"""


@pytest.mark.parametrize("spt,n,status", [(2, 256, "proved"), (1, 256, "proved"), (1, 128, "refuted")])
def test_f32_pairs_need_two_unique_values_a_thread(spt: int, n: int, status: str) -> None:
    """256 f32 over 128 threads: 2 a thread (sizePerThread 1 repeats the tile once); 128: 1 a thread, no pair."""
    (v,) = [f.verdict for f in check_module(parse_module(ONE.format(spt=spt, n=n), "m.ttgir"))
            if f.verdict.property == "packed_pairs"]
    assert v.status == status
    assert v.certificate["compared"]["unique elements per thread"] == n // 128 if status == "proved" else \
        v.counterexample.sides == {"unique elements per thread": 1, "pack width": 2}
