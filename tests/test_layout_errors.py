"""Every LayoutError path: the message says what is wrong and names the dim."""

from __future__ import annotations

import pytest

from llverify import LayoutError, LinearLayout, SizeGuardError
from llverify.evaluate import evaluate, inverse_table

L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0]]}, {"dim0": 4, "dim1": 2})


def test_layout_error_is_a_value_error():
    assert issubclass(LayoutError, ValueError)


@pytest.mark.parametrize(
    "build, words",
    [
        (lambda: LinearLayout({"lane": [[1]]}, {"dim0": 3}), ["dim0", "power of two"]),
        (lambda: LinearLayout({"lane": [[1, 0]]}, {"dim0": 2}), ["lane", "components"]),
        (lambda: LinearLayout({"lane": [[4]]}, {"dim0": 4}), ["lane", "dim0", "less than"]),
        (lambda: LinearLayout({"warp": [[-1]]}, {"dim0": 4}), ["warp", "negative"]),
        (lambda: LinearLayout({"lane": [[1]]}, {"dim0": 4}), ["surjective"]),
        (lambda: LinearLayout.from_bases({"lane": [[1, 0]]}, ["dim0"]), ["lane", "components"]),
        (lambda: LinearLayout.identity_1d(6, "lane", "dim0"), ["lane", "power of two"]),
        (lambda: LinearLayout.zeros_1d(4, "lane", "dim0", 3), ["dim0", "power of two"]),
        (lambda: LinearLayout.strided_1d(3, 2, "warp", "dim0"), ["warp", "power of two"]),
        (lambda: L.apply(register=0), ["lane"]),
        (lambda: L.apply(register=2, lane=0), ["register", "outside"]),
        (lambda: L.get_basis("warp", 0), ["warp", "not in the layout"]),
        (lambda: L.get_basis("lane", 5), ["lane", "no basis 5"]),
        (lambda: L.out_dim_size("dim7"), ["dim7"]),
        (lambda: L.compose(LinearLayout.identity_1d(4, "dim0", "x")), ["dim0", "dim1"]),
        (lambda: L.compose(LinearLayout.identity_1d(2, "dim0", "x") * LinearLayout.identity_1d(2, "dim1", "y")),
         ["dim0", "size"]),
        (lambda: L.invert_and_compose(LinearLayout.identity_1d(4, "lane", "dim0")), ["dim1"]),
        (lambda: L.invert_and_compose(LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 2}, require_surjective=False)),
         ["dim0", "size"]),
        (lambda: L.invert_and_compose(LinearLayout({"lane": [[1, 0], [2, 0], [0, 0]]}, {"dim0": 4, "dim1": 2},
                                                   require_surjective=False)), ["surjective"]),
        (lambda: LinearLayout({"lane": [[1], [2], [0]]}, {"dim0": 4}).invert(), ["not invertible"]),
        (lambda: LinearLayout({"lane": [[1]]}, {"dim0": 4}, require_surjective=False).pseudoinvert(), ["surjective"]),
        (lambda: L.reshape_ins([("register", 4)]), ["reshape_ins", "8"]),
        (lambda: L.reshape_ins([("register", 3), ("x", 2)]), ["register", "power of two"]),
        (lambda: L.reshape_outs([("dim0", 16)]), ["reshape_outs", "8"]),
        (lambda: L.transpose_ins(["lane"]), ["register"]),
        (lambda: L.transpose_outs(["dim0", "dim0"]), ["dim1"]),
        (lambda: L.sublayout(["warp"], ["dim0"]), ["warp"]),
        (lambda: L.concat_ins(L), ["disjoint", "register"]),
        (lambda: L.concat_outs(L), ["disjoint", "dim0"]),
        (lambda: L.concat_outs(LinearLayout.identity_1d(2, "register", "x")), ["equal in dims"]),
        (lambda: L.resize_in_dim("lane", 3), ["lane", "power of two"]),
        (lambda: L.resize_out_dim("dim1", 4), ["dim1", "shrink"]),
        (lambda: L.rename_in_dim("lane", "register"), ["register", "already exists"]),
        (lambda: L.rename_out_dim("dim0", "dim1"), ["dim1", "already exists"]),
        (lambda: L.remove_zero_bases_along_dim("block"), ["block"]),
        (lambda: LinearLayout({"lane": [[1]], "lane ": []}, {"dim0": 2}) and
         LinearLayout([("lane", [[1]]), ("lane", [])], {"dim0": 2}), ["repeated", "lane"]),
        (lambda: LinearLayout.from_string("\n - lane=1 -> (1)\n   lane=4 -> (2)\nwhere out dims are: [dim0 (size 4)]"),
         ["lane=2"]),
        (lambda: LinearLayout.from_string("\n - lane=1 -> (1)"), ["where out dims"]),
    ],
)
def test_error_messages_name_the_dim(build, words):
    with pytest.raises(LayoutError) as info:
        build()
    msg = str(info.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"


def test_column_action_errors():
    from llverify import ColumnAction

    with pytest.raises(LayoutError, match="register"):
        ColumnAction([0, 0], "register", 2)
    with pytest.raises(LayoutError, match="lane"):
        ColumnAction([1, 0], "lane", 2).apply(LinearLayout.identity_1d(8, "lane", "dim0"))


def test_size_guard_refuses_instead_of_exhausting_memory():
    big = LinearLayout.identity_1d(1 << 20, "offset", "dim0")
    with pytest.raises(SizeGuardError, match="size guard"):
        evaluate(big, limit=1 << 10)
    with pytest.raises(LayoutError, match="invertible"):
        inverse_table(LinearLayout({"lane": [[1], [1]]}, {"dim0": 2}))
