"""The ``vectorization`` claim when the vector is wider than a thread's share of the tile (issue 13, item 3)."""

from __future__ import annotations

import pytest

from llverify.hw import blocked, swizzled_shared
from llverify.layout import LinearLayout
from llverify.prove.plan_vectorize import prove_vectorization


def _blocked(shape, spt, tpw, wpc):
    return blocked(shape=shape, size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc, order=[1, 0])


def _plain_shared(shape):
    return swizzled_shared(shape=shape, vec=1, per_phase=1, max_phase=1, order=[1, 0])


def _replays(v, access: LinearLayout, shared: LinearLayout) -> None:
    """The witness point really sits at the offset the counterexample names (evaluated here, independently)."""
    cvt = access.invert_and_compose(shared)
    pt = v.counterexample.inputs
    assert dict(cvt.apply({d: pt.get(d, 0) for d in cvt.in_dim_names}))["offset"] == v.counterexample.sides["offset"]


@pytest.mark.parametrize("spt,width", [([1, 1], 2), ([1, 2], 4), ([1, 2], 8), ([1, 4], 8)])
def test_vector_wider_than_thread_is_refuted_with_a_replayed_witness(spt, width):
    shape = [4, 32 * spt[1]]
    A, S = _blocked(shape, spt, [1, 32], [4, 1]), _plain_shared(shape)
    v = prove_vectorization(A, S, 16, width)
    assert v.status == "refuted", v.message
    assert "fewer than the vector width" in v.message
    pt = v.counterexample.inputs
    assert pt["register"] < spt[1] and (pt["lane"] or pt["warp"])   # another thread holds the offset
    off = v.counterexample.sides["offset"]
    assert off == spt[1] and off < width                               # inside thread 0's vector
    _replays(v, A, S)


def test_the_full_width_still_proves():
    """Sanity: the same layouts at the width the thread does hold are proved (not a blanket refutation)."""
    shape = [4, 64]
    A, S = _blocked(shape, [1, 2], [1, 32], [4, 1]), _plain_shared(shape)
    assert prove_vectorization(A, S, 16, 2).status == "proved"


def test_too_few_registers_that_are_not_even_consecutive():
    """Two registers one row apart: the first witness is register 1 at the wrong offset."""
    shape = [8, 32]
    A, S = _blocked(shape, [2, 1], [1, 32], [4, 1]), _plain_shared(shape)
    v = prove_vectorization(A, S, 16, 4)
    assert v.status == "refuted"
    assert v.counterexample.inputs["register"] == 1 and v.counterexample.sides["offset"] == 32
    _replays(v, A, S)


def test_wider_than_128_bits_is_still_a_usage_error():
    shape = [4, 64]
    A, S = _blocked(shape, [1, 2], [1, 32], [4, 1]), _plain_shared(shape)
    assert prove_vectorization(A, S, 32, 8).status == "error"
