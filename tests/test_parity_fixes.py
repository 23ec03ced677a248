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
