"""Parity fixes of issue 12, each checked against the installed Triton 3.9 wheel where it exposes the object."""

from __future__ import annotations

import pytest

from llverify.hw.registry import build, build_spec
from llverify.triton.parse import parse_attr, parse_type_spec

oracle = pytest.importorskip("oracle_triton")


def test_i16_is_not_i1_followed_by_garbage() -> None:
    for t, want in (("i16", 16), ("i1", 1), ("i64", 64), ("f8E4M3FN", 8), ("f4E2M1FN", 4), ("bf16", 16)):
        _, shape, dtype, _ = parse_type_spec(f"tensor<16x{t}, #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = "
                                             "[32], warpsPerCTA = [4], order = [0]}>>")
        assert (shape, dtype) == ([16], t)


def test_linear_fitted_to_a_smaller_shape_matches_triton() -> None:
    if not oracle.available():
        pytest.skip("triton is not installed")
    L = build("linear", [1], reg_bases=[[1]], lane_bases=[[1]])
    (res,) = oracle.run_cases([{"kind": "linear", "shape": [1], "params": {"reg_bases": [[1]], "lane_bases": [[1]]}}])
    assert res["ok"]
    mine = {d: [list(b) for b in bs] for d, bs in L.bases.items()}
    assert mine == res["bases"]
    assert all(c == 0 for bs in L.bases.values() for b in bs for c in b)  # a size-1 dim has only 0


def test_shared_linear_alignment_outside_the_braces_matches_triton() -> None:
    if not oracle.available():
        pytest.skip("triton is not installed")
    enc = "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 0]]}, alignment = 128>"
    spec = parse_attr(enc)
    assert spec["alignment"] == 128
    mine = build_spec(spec, [4, 4])
    (res,) = oracle.run_type_cases([{"type": f"!ttg.memdesc<4x4xf16, {enc}, #ttg.shared_memory, mutable>",
                                     "shape": [4, 4], "num_warps": 4, "threads": 32, "num_ctas": 1}])
    assert res["ok"], res
    assert {d: [list(b) for b in bs] for d, bs in mine.bases.items()} == res["bases"]


def test_nvmma_shared_taller_than_the_tma_box_matches_triton() -> None:
    """Tiles taller than 256 rows: Triton repeats the TMA box along the rows before the columns."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    cases = [{"kind": "nvmma_shared", "shape": shape, "params": {"swizzle_byte_width": sw, "element_bitwidth": bits,
                                                                "transposed": tr}}
             for shape in ([512, 64], [1024, 32], [512, 256], [2048, 16], [16, 512])
             for sw in (0, 32, 64, 128) for bits in (8, 16, 32) for tr in (False, True)]
    compared = 0
    for case, res in zip(cases, oracle.run_cases(cases)):
        try:
            L = build(case["kind"], case["shape"], **case["params"])
        except Exception:  # noqa: BLE001 - a refusal must match Triton's
            assert not res["ok"], case
            continue
        assert res["ok"], case
        assert {d: [list(b) for b in bs] for d, bs in L.bases.items()} == res["bases"], case
        compared += 1
    assert compared >= 80


def test_invert_and_compose_with_smaller_first_layout_matches_triton() -> None:
    from test_layout_vs_triton import rand_layout, run_oracle, ser

    import random

    from llverify import LinearLayout

    r = random.Random(7)
    cases, pairs = [], []
    while len(cases) < 40:
        outer = rand_layout(r, outs={"dim0": 16, "dim1": 8}, ins=["register", "lane"], surjective=True)
        if not outer.is_surjective():
            continue
        small = LinearLayout({d: [[x % 8, y % 4] for x, y in bs] for d, bs in outer.bases.items()},
                             [("dim0", 8), ("dim1", 4)], require_surjective=False)
        cases.append({"op": "invert_and_compose", "a": ser(small), "b": ser(outer)})
        pairs.append((small, outer))
    got = run_oracle(cases)
    for (small, outer), want in zip(pairs, got):
        assert str(small.invert_and_compose(outer)) == want


def test_public_algebra_helpers() -> None:
    """sublayout_is_zero, equal_ignoring_out_dim_sizes and supremum (Triton's C++ API, not in the wheel's
    Python binding): their defining properties, checked on hardware layouts."""
    from llverify import LinearLayout

    L = build("blocked", [64, 64], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
              order=[1, 0])
    # warps split dim0 only
    assert L.sublayout_is_zero(["warp"], ["dim1"]) and not L.sublayout_is_zero(["warp"], ["dim0"])
    assert L.sublayout_is_zero(["nonexistent"], ["dim0"])
    bigger = LinearLayout({d: [list(b) for b in bs] for d, bs in L.bases.items()}, [("dim0", 128), ("dim1", 64)],
                          require_surjective=False)
    assert bigger != L and bigger.equal_ignoring_out_dim_sizes(L)
    assert not L.equal_ignoring_out_dim_sizes(L.transpose_outs(["dim1", "dim0"]))
    sup = LinearLayout.supremum(["register", "warp"], ["lane", "warp", "block"])
    assert sup.index("register") < sup.index("warp") and sup.index("lane") < sup.index("warp") < sup.index("block")
    assert set(sup) == {"register", "lane", "warp", "block"}
