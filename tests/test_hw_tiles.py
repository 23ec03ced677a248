"""Instruction tiles (llverify.hw.tiles) against the PTX ISA's fragment description, written out here.

The expected tables below restate the PTX ISA text for ``ldmatrix``/``stmatrix``
(``.m8n8``, ``.x1/.x2/.x4``, ``.trans``; "Warp-level matrix load/store"): matrix
``i``'s row ``r`` comes from the address in lane ``8 i + r``; without ``.trans``
lane ``t``'s register ``d_i`` holds row ``t // 4`` and the 4 bytes starting at
byte ``4 * (t % 4)``; with ``.trans`` it holds column ``t // 4`` of rows
``2 * (t % 4)`` and ``2 * (t % 4) + 1``.  Triton 3.9.0's wheel exposes no
Python entry point for its ldmatrix/stmatrix layouts, so there is no oracle
comparison here.
"""

from __future__ import annotations

import itertools

import pytest

from llverify.errors import LayoutError
from llverify.hw import build, tiles
from llverify.layout import LinearLayout


def _table(bits: int, num: int, trans: bool) -> dict[tuple[int, int], tuple[int, int]]:
    """(register, lane) -> (row slot, element in row), straight from the PTX ISA wording."""
    per_reg = 32 // bits
    out = {}
    for lane, i, e in itertools.product(range(32), range(num), range(per_reg)):
        reg = i * per_reg + e
        if not trans:
            row, col = lane // 4, (lane % 4) * per_reg + e
        else:
            row, col = 2 * (lane % 4) + e, lane // 4
        out[(reg, lane)] = (8 * i + row, col)
    return out


def _matches(ll: LinearLayout, table) -> bool:
    return all(tuple(ll.apply(register=r, lane=t).values()) == want for (r, t), want in table.items())


@pytest.mark.parametrize("fn", [tiles.ldmatrix, tiles.stmatrix])
@pytest.mark.parametrize("bits,num,trans", [(16, n, t) for n in (1, 2, 4) for t in (False, True)]
                         + [(8, n, False) for n in (1, 2, 4)] + [(32, n, False) for n in (1, 2, 4)])
def test_fragment_matches_ptx_table(fn, bits, num, trans):
    ll = fn(bits, num, trans)
    table = _table(bits, num, trans)
    assert _matches(ll, table)
    # every element of the num 8 x 16-byte matrices is moved exactly once
    assert ll.is_invertible()
    assert sorted(table.values()) == sorted(itertools.product(range(8 * num), range(128 // bits)))


def test_mutant_fragment_fails_the_table():
    good = tiles.ldmatrix(16, 4, False)
    b = good.bases
    swapped = LinearLayout.from_bases({"register": b["register"], "lane": [b["lane"][1], b["lane"][0]] + list(b["lane"][2:])},
                                      ["dim0", "dim1"])
    assert not _matches(swapped, _table(16, 4, False))
    assert not _matches(tiles.ldmatrix(16, 4, True), _table(16, 4, False))


def test_row_address_lanes():
    assert [tiles.row_address_lane(i, r) for i in range(4) for r in range(8)] == list(range(32))
    with pytest.raises(LayoutError):
        tiles.row_address_lane(4, 0)


def test_paper_tiles_and_division():
    # section 5.3: vectorised ld.shared of n bits: identity register -> offset
    assert [b[0] for b in tiles.vector_tile(16, 128).bases["register"]] == [1, 2, 4]
    assert [b[0] for b in tiles.vector_tile(8, 32).bases["register"]] == [1, 2]
    assert tiles.vector_tile(32, 32).bases["register"] == ()
    # ldmatrix tile id_d x id_2 with d = log2(32 / w)
    t = tiles.matrix_tile(16)
    assert [b[0] for b in t.bases["register"]] == [1] and [b[0] for b in t.bases["lane"]] == [2, 4]
    t8 = tiles.matrix_tile(8)
    assert [b[0] for b in t8.bases["register"]] == [1, 2] and [b[0] for b in t8.bases["lane"]] == [4, 8]
    # the fragment, with its rows stored one after another, is divisible by the paper's tile
    for bits in (8, 16, 32):
        frag = tiles.ldmatrix(bits, 4).transpose_outs(["dim1", "dim0"]).flatten_outs()
        flat = frag.rename_out_dim(frag.out_dim_names[0], "offset")
        assert flat.divide_left(tiles.matrix_tile(bits)) is not None
        # the .trans fragment is not (its registers walk down a column)
    frag = tiles.ldmatrix(16, 4, True).transpose_outs(["dim1", "dim0"]).flatten_outs()
    flat = frag.rename_out_dim(frag.out_dim_names[0], "offset")
    assert flat.divide_left(tiles.matrix_tile(16)) is None


def test_registry_and_errors():
    assert build("ldmatrix", None, num=2, trans=True) == tiles.ldmatrix(16, 2, True)
    assert build("stmatrix", [32, 8]) == tiles.stmatrix()
    assert build("ld_shared", [4], bitwidth=32) == tiles.vector_tile(32, 128)
    for kind, shape, params, words in [
        ("ldmatrix", None, {"num": 3}, "num"),
        ("ldmatrix", None, {"bitwidth": 8, "trans": True}, ".trans"),
        ("ldmatrix", [16, 8], {"num": 4}, "shape"),
        ("ld_shared", None, {"bitwidth": 64, "vector_bits": 32}, "vector_bits"),
        ("stmatrix", None, {"bitwidth": 12}, "bitwidth"),
    ]:
        with pytest.raises(LayoutError, match=words.replace(".", r"\.")):
            build(kind, shape, **params)
