"""The seeds' worked examples, computed from their bases."""

from __future__ import annotations

import numpy as np

from llverify import ColumnAction, LinearLayout
from llverify.evaluate import evaluate, evaluate_flat, inverse_table

I = LinearLayout.identity_1d


def test_swizzled_4x4_table_of_seed_001_section_1_3():
    """L(t, w) = (t, w xor t) from its four bases (seed 001, section 1.3)."""
    L = LinearLayout.from_bases({"thread": [[1, 1], [2, 2]], "warp": [[0, 1], [0, 2]]}, ["dim0", "dim1"])
    table = [[tuple(L.apply(thread=t, warp=w).values()) for w in range(4)] for t in range(4)]
    printed = [  # the table as printed in the seed
        [(0, 0), (0, 1), (0, 2), (0, 3)],
        [(1, 1), (1, 0), (1, 3), (1, 2)],
        [(2, 2), (2, 3), (2, 0), (2, 1)],
        [(3, 3), (3, 2), (3, 1), (3, 0)],
    ]
    assert table == printed
    assert dict(L.apply(thread=3, warp=2)) == {"dim0": 3, "dim1": 1}  # the seed's apply() example
    assert L.is_invertible()


def test_figure_1_layout_a_of_seed_000_section_4_1():
    """Layout A: 2x2 registers, 4x8 threads, 2x1 warps over 16x16, j fastest.

    Built from identities exactly as section 4.1 describes; the matrix's rows
    are w_0..3 = j bits then w_4..7 = i bits, columns Reg(2) Thr(5) Wrp(1).
    (The matrix printed in the seed lost its last column in transcription;
    the expected one below is the one the section's text describes.)
    """
    A = (I(2, "register", "j") * I(2, "register", "i") * I(8, "lane", "j") * I(4, "lane", "i")
         * I(2, "warp", "i"))
    expected = np.array([
        # r0 r1 t0 t1 t2 t3 t4 w0
        [1, 0, 0, 0, 0, 0, 0, 0],  # j0
        [0, 0, 1, 0, 0, 0, 0, 0],  # j1
        [0, 0, 0, 1, 0, 0, 0, 0],  # j2
        [0, 0, 0, 0, 1, 0, 0, 0],  # j3
        [0, 1, 0, 0, 0, 0, 0, 0],  # i0
        [0, 0, 0, 0, 0, 1, 0, 0],  # i1
        [0, 0, 0, 0, 0, 0, 1, 0],  # i2
        [0, 0, 0, 0, 0, 0, 0, 1],  # i3
    ], dtype=np.uint8)
    assert np.array_equal(A.matrix(), expected)
    # the section's spot checks: r_0 of t_1 at (0, 2); r_1 of t_9 at (2, 3); r_0 of t_10 at (2, 4)
    assert dict(A.apply(register=0, lane=1, warp=0)) == {"j": 2, "i": 0}
    assert dict(A.apply(register=1, lane=9, warp=0)) == {"j": 3, "i": 2}
    assert dict(A.apply(register=0, lane=10, warp=0)) == {"j": 4, "i": 2}
    assert A.is_invertible()


def test_evaluate_doubling_trick_and_inverse_table():
    L = I(4, "i", "o") * LinearLayout.zeros_1d(2, "i", "o")
    assert evaluate_flat(L).tolist() == [0, 1, 2, 3, 0, 1, 2, 3]
    S = LinearLayout.from_bases({"offset": [[0, 1], [1, 1]]}, ["dim0", "dim1"])
    vals = evaluate(S)
    assert vals["dim0"].tolist() == [0, 0, 1, 1] and vals["dim1"].tolist() == [0, 1, 1, 0]
    inv = inverse_table(S)
    flat = evaluate_flat(S)
    assert all(flat[inv[y]] == y for y in range(4))


def test_column_action_swaps_register_bits():
    act = ColumnAction([1, 0], "register", 2)
    assert act.apply(["a", "b", "c", "d"]) == ["a", "c", "b", "d"]
    L = LinearLayout({"register": [[1], [2]]}, {"dim0": 4})
    assert act.apply(L).bases["register"] == ((2,), (1,))
    assert not act.is_identity() and ColumnAction([0, 1], "register", 2).is_identity()
    # applying the action to the layout and to its values commutes with evaluation
    vals = [L.apply(register=r)["dim0"] for r in range(4)]
    moved = act.apply(L)
    assert [moved.apply(register=r)["dim0"] for r in range(4)] == act.apply(vals)


def test_str_is_trition_tostring_format():
    L = LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2]], "warp": [], "block": []},
                     {"dim0": 16, "dim1": 8}, require_surjective=False)
    assert str(L) == ("\n - register=1 -> (0, 1)\n   register=2 -> (8, 0)\n - lane=1 -> (0, 2)\n"
                      " - warp is a size 1 dimension\n - block is a size 1 dimension\n"
                      "where out dims are: [dim0 (size 16), dim1 (size 8)]")
    assert str(LinearLayout.empty()) == "\n(empty layout)"
    assert LinearLayout.from_string(str(LinearLayout.empty())) == LinearLayout.empty()
