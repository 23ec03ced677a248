"""Parity fixes of issue 12, each checked against the installed Triton 3.9 wheel where it exposes the object."""

from __future__ import annotations

import pytest

from llverify.errors import LayoutError
from llverify.hw.registry import build, build_spec
from llverify.triton.parse import parse_attr
from llverify.triton.types import parse_type_spec

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


def test_amd_wmma_without_is_transpose_or_instr_shape_matches_triton() -> None:
    """Triton 3.9 reads an ``#ttg.amd_wmma`` without ``isTranspose`` as not transposed and without ``instrShape``
    as 16x16x16 (its printer omits both at their defaults; Triton's lit tests write them so). llverify refused
    them ("missing required parameter(s) transposed")."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    encs = ["#ttg.amd_wmma<{version = 3, ctaLayout = {warp = [[0, 1], [1, 0]]}, instrShape = [16, 16, 32]}>",
            "#ttg.amd_wmma<{version = 2, ctaLayout = {warp = [[0, 1], [0, 2]]}}>",
            "#ttg.amd_wmma<{version = 1, ctaLayout = {warp = []}}>",
            "#ttg.amd_wmma<{version = 2, isTranspose = true, ctaLayout = {warp = [[0, 1], [0, 2]]}}>"]
    shapes = ([64, 64], [32, 128], [16, 16])
    items = [{"type": f"tensor<{shape[0]}x{shape[1]}xf32, {enc}>", "shape": list(shape), "num_warps": 4,
              "threads": 32, "num_ctas": 1} for enc in encs for shape in shapes]
    results = oracle.run_type_cases(items)
    for item, res in zip(items, results):
        assert res["ok"], (item, res)
        spec, shape, _, _ = parse_type_spec(item["type"])
        mine = build_spec(spec, shape)
        assert {d: [list(b) for b in bs] for d, bs in mine.bases.items()} == res["bases"], item
    # the defaults are the explicit spellings: omitting them changes nothing
    a = build_spec(parse_attr(encs[1]), [32, 32])
    b = build_spec(parse_attr("#ttg.amd_wmma<{version = 2, isTranspose = false, ctaLayout = {warp = [[0, 1], "
                              "[0, 2]]}, instrShape = [16, 16, 16]}>"), [32, 32])
    assert a == b
    # and a transposed one is a different layout (the default is not ignored)
    assert build_spec(parse_attr(encs[3]), [32, 32]) != a


def test_mma_v2_tiles_wider_than_one_instruction_match_triton() -> None:
    """Triton 3.9 builds an ``nvidia_mma`` v2 with any ``instrShape = [..., M, N]`` of multiples of 8 (its lit
    tests use ``[16, 16]``): the tile repeats m16n8/m8n8 in registers. llverify refused all but [16, 8]/[8, 8]."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    cases = []
    for instr in ([16, 16], [32, 32], [8, 16], [64, 8], [16, 8]):
        for wpc in ([4, 1], [2, 2]):
            for shape in ([128, 32], [16, 16]):
                parent = {"version": [2, 0], "warps_per_cta": wpc, "instr_shape": instr}
                cases.append({"kind": "nvidia_mma", "shape": shape, "params": parent})
                for op, kw in ((0, 2), (1, 4), (0, 8)):
                    cases.append({"kind": "dot_operand", "shape": shape,
                                  "params": {"operand_index": op, "k_width": kw,
                                             "parent": {"kind": "nvidia_mma", **parent}}})
    for case, res in zip(cases, oracle.run_cases(cases)):
        assert res["ok"], case
        L = build(case["kind"], case["shape"], **case["params"])
        assert {d: [list(b) for b in bs] for d, bs in L.bases.items()} == res["bases"], case
    # [16, 16] is a different tile from [16, 8] wherever the shape shows it
    a = build("nvidia_mma", [16, 16], version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 16])
    b = build("nvidia_mma", [32, 32], version=[2, 0], warps_per_cta=[1, 1], instr_shape=[32, 32])
    assert a.bases["register"] != b.bases["register"]
    # a tile that is not a multiple of 8 is still refused, naming the parameter
    with pytest.raises(LayoutError, match="instr_shape"):
        build("nvidia_mma", [16, 16], version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 4])
