"""AMD register-tile ops (``amdg.extract_slice``, ``amdg.concat``): ``tile_shape`` and ``register_tiles`` on
Triton 3.9's own gfx950 output of examples/kernels/amd_slice.py, on hand-written modules, against a brute-force
oracle over random small layouts, and on mutants that must be refuted at the op with a replayed witness."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from llverify.layout import LinearLayout
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_register_tiles import decide, slice_offsets

DATA = sorted((Path(__file__).resolve().parents[1] / "tests" / "data" / "ttgir" / "amd_slice").glob("*.ttgir"))
ROWS = next(p for p in DATA if "rows64at64" in p.name)  # 128x64 -> 64x64 at [64, 0], blocked [1,8] [8,8] [4,1]
OPS = ("amdg.extract_slice", "amdg.concat")


def _tiles(text: str) -> list:
    return [f for f in check_module(parse_module(text, "m.ttgir")) if f.op in OPS]


def _line(text: str, op: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if op in ln and "=" in ln and "loc(" in ln)


def test_real_slices_prove() -> None:
    assert len(DATA) == 2
    for path in DATA:
        findings = check_module(parse_module(path.read_text(), path.name))
        assert all(f.verdict.status == "proved" for f in findings), path.name
        tiles = sorted(f.verdict.property for f in findings if f.op == "amdg.extract_slice")
        assert tiles == ["distributed", "register_tiles", "thread_counts", "tile_shape"]


@pytest.mark.parametrize("old,new,prop,why", [
    ("[64, 0] :", "[8, 0] :", "register_tiles", "no register of thread 0 holds"),  # not a whole tile of rows
    ("[64, 0] :", "[96, 0] :", "tile_shape", "exceeds the operand's 128"),
    ("to tensor<64x64xf16, #blocked>", "to tensor<64x64xf16, #blocked1>", "register_tiles", "thread 0's choice"),
    ("to tensor<64x64xf16, #blocked>", "to tensor<64x64xf32, #blocked>", "tile_shape", "element types differ"),
])
def test_a_wrong_slice_is_refuted_at_the_slice(old: str, new: str, prop: str, why: str) -> None:
    text = ROWS.read_text()
    # blocked1: #blocked at 64x64 with its two warp bases swapped: thread 0's registers are right, warp 1's not
    text = text.replace("#loc1 =", "#blocked1 = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = "
                                   "[[0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [8, 0]], "
                                   "block = []}>\n#loc1 =", 1)
    mutant = text.replace(old, new)
    assert mutant != text
    bad = [f for f in _tiles(mutant) if f.verdict.status == "refuted"]
    assert [(f.op, f.verdict.property) for f in bad] == [("amdg.extract_slice", prop)]
    assert bad[0].location.line == _line(text, "amdg.extract_slice") and why in bad[0].verdict.message
    assert bad[0].verdict.counterexample is not None


def test_the_wrong_layout_witness_replays() -> None:
    """The refuted thread, evaluated here from the layouts' bases: its result element is not what its register
    holds."""
    S = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]],
                                 "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]],
                                 "warp": [[8, 0], [16, 0]]}, ["dim0", "dim1"])
    D = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [32, 0]],
                                 "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]],
                                 "warp": [[8, 0], [0, 0]]}, ["dim0", "dim1"], require_surjective=False)
    v = decide("amdg.extract_slice", S, D, lambda c: (np.zeros(c.shape[:-1], dtype=np.int64), c + np.array([64, 0])),
               "s", 2)
    assert v.status == "refuted"
    x = v.counterexample.inputs
    want = D.apply(x)
    assert x["warp"] == 2  # the only thread bit the two layouts place differently
    have = S.apply({"register": x["register"] | 0b10000, "lane": x["lane"], "warp": x["warp"]})  # thread 0's pick
    assert (want["dim0"] + 64, want["dim1"]) != (have["dim0"], have["dim1"])


CONCAT = """#a = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}}>
#b = {result}
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", "ttg.threads-per-warp" = 64 : i32}} {{
  tt.func @tiles(%p: tensor<32x64xf16, #a>, %q: tensor<32x64xf16, #a>, %r: tensor<32x64xf16, #a>, %s: tensor<32x64xf16, #a>) {{
    %t = amdg.concat %p, %q, %r, %s : tensor<32x64xf16, #a>, tensor<32x64xf16, #a>, tensor<32x64xf16, #a>, tensor<32x64xf16, #a> -> tensor<{shape}xf16, #b>
    tt.return
  }}
}}
"""
SAME = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"


@pytest.mark.parametrize("result,shape,status,prop", [
    (SAME, "64x128", "proved", None),  # 2 x 2 tiles of one 32x64 tile each: every thread keeps its registers
    (SAME, "128x64", "proved", None),  # 4 x 1
    (SAME, "64x64", "refuted", "tile_shape"),  # 4 operands for a grid of 2
    # the result's registers run along columns first: register 8 at thread 0 is (0, 64) -> tile 1, but a tile's
    # rows are spread differently: proved only if the map is right everywhere; here lanes hold other columns
    ("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>",
     "64x128", "refuted", "register_tiles"),
])
def test_concat_of_four_tiles(result: str, shape: str, status: str, prop: str | None) -> None:
    text = CONCAT.format(result=result, shape=shape)
    got = [f for f in _tiles(text) if f.verdict.property in ("tile_shape", "register_tiles")]
    assert got and all(f.location.line == 5 for f in got)
    if status == "proved":
        assert [f.verdict.status for f in got] == ["proved", "proved"]
        assert got[1].verdict.method == "exhaustive" and got[1].verdict.certificate["points"] == 32 * 256  # 32 registers x 256 threads
    else:
        bad = [f for f in got if f.verdict.status == "refuted"]
        assert [f.verdict.property for f in bad] == [prop]


def test_concat_takes_operands_row_major() -> None:
    """Result tile (0, 1) of a 2 x 2 grid comes from the second operand (``%q``), tile (1, 0) from the third."""
    text = CONCAT.format(result=SAME, shape="64x128")
    (v,) = [f.verdict for f in _tiles(text) if f.verdict.property == "register_tiles"]
    # thread 0 holds (0, 0..7) and, one register tile on, (0, 64..71) then (32, 0..7) and (32, 64..71)
    D = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [0, 64], [32, 0]]}, ["dim0", "dim1"],
                                require_surjective=False)
    firsts = {r: D.apply({"register": r}) for r in (0, 8, 16, 24)}
    assert [(firsts[r]["dim0"] // 32) * 2 + firsts[r]["dim1"] // 64 for r in (0, 8, 16, 24)] == [0, 1, 2, 3]
    assert [v.certificate["operands_of_registers"][r] for r in (0, 8, 16, 24)] == [0, 1, 2, 3]


def test_offsets_are_read_from_both_forms() -> None:
    assert slice_offsets("%s = amdg.extract_slice %v_8 [64, 0] : tensor<...>", {}) == [64, 0]
    assert slice_offsets("%s = \"amdg.extract_slice\"(%v) <{...}>", {"static_offsets": "array<i64: 0, 32>"}) == [0, 32]
    assert slice_offsets("%s = amdg.extract_slice %v [%k, 0] : t", {}) is None


# -- cross-check against a brute-force oracle on random small layouts -------------------------------------------

def _layout(rng: random.Random, shape: tuple[int, int], nreg: int, fixed: list[list[int]] | None = None
            ) -> dict[str, list[list[int]]]:
    def basis() -> list[int]:
        d = rng.randrange(2)
        bits = shape[d].bit_length() - 1
        v = [0, 0]
        if bits and rng.random() < 0.9:
            v[d] = 1 << rng.randrange(bits)
        return v
    return {"register": [basis() for _ in range(nreg)] + (fixed or []), "lane": [basis() for _ in range(3)],
            "warp": [basis() for _ in range(1)]}


def _oracle(S: LinearLayout, D: LinearLayout, off: tuple[int, int]) -> bool:
    """Triton's lowering, replayed point by point: thread 0 picks a register per result register, every thread
    copies that register; is every copied element the one the result layout puts there?"""
    def at(L: LinearLayout, r: int, lane: int, warp: int) -> tuple[int, int]:
        v = L.apply({"register": r, "lane": lane, "warp": warp})
        return v["dim0"], v["dim1"]
    rho = {}
    for r in range(D.in_dim_size("register")):
        c = at(D, r, 0, 0)
        want = (c[0] + off[0], c[1] + off[1])
        pick = [j for j in range(S.in_dim_size("register")) if at(S, j, 0, 0) == want]
        if not pick:
            return False
        rho[r] = pick[0]
    for lane in range(D.in_dim_size("lane")):
        for warp in range(D.in_dim_size("warp")):
            for r, j in rho.items():
                c = at(D, r, lane, warp)
                if at(S, j, lane, warp) != (c[0] + off[0], c[1] + off[1]):
                    return False
    return True


def test_decide_agrees_with_a_brute_force_oracle() -> None:
    rng = random.Random(7)
    seen = {"proved": 0, "refuted": 0}
    for case in range(300):
        off = (rng.choice((0, 4)), rng.choice((0, 2)))
        # a sub-tile layout D on 4 x 4; S adds the two register bases that reach the other tiles
        d = _layout(rng, (4, 4), 2)
        s = {k: [list(b) for b in v] for k, v in d.items()}
        s["register"] += [[4, 0], [0, 4]]
        if case % 2:  # perturb one basis of S or D
            tgt = rng.choice((s, d))
            dim = rng.choice(("register", "lane", "warp"))
            tgt[dim][rng.randrange(len(tgt[dim]))] = rng.choice(([0, 0], [1, 0], [0, 1], [2, 0], [0, 2]))
        S = LinearLayout(s, {"dim0": 8, "dim1": 8}, require_surjective=False)
        D = LinearLayout(d, {"dim0": 4, "dim1": 4}, require_surjective=False)
        v = decide("amdg.extract_slice", S, D, lambda c: (np.zeros(c.shape[:-1], dtype=np.int64), c + np.array(off)),
                   "s", 2)
        assert v.status == ("proved" if _oracle(S, D, off) else "refuted"), (s, d, off)
        seen[v.status] += 1
    assert seen["proved"] > 30 and seen["refuted"] > 30
