"""A distributed layout must be built for the module's warps, threads per warp and CTAs (Triton's verifier
refuses "Layout has 32 threads per warp, but the module specifies 64 threads per warp"); a
``#ttg.partitioned_shared`` buffer (Triton 3.9, AMD) is read, and its whole-tensor claims are unknown, not
refuted on the layout of buffer 0 that Triton builds."""

from __future__ import annotations

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

MODULE = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#inner = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#part = #ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = #inner}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: tensor<64x32xf16, #blocked>) {
    %0 = ttg.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !ttg.memdesc<64x32xf16, #part, #smem, mutable>
    %1 = ttg.local_load %0 : !ttg.memdesc<64x32xf16, #part, #smem, mutable> -> tensor<64x32xf16, #blocked>
    tt.return
  }
}
"""


def _counts(text: str):
    return [f for f in check_module(parse_module(text, "m.ttgir")) if f.verdict.property == "thread_counts"]


def test_the_module_as_triton_accepts_it() -> None:
    findings = check_module(parse_module(MODULE, "m.ttgir"))
    assert not [f for f in findings if f.verdict.status in ("refuted", "error")]
    counts = _counts(MODULE)
    assert counts and all(f.verdict.status == "proved" for f in counts)
    part = [f for f in findings if "#part" in f.verdict.subject and f.rule == "layout"]
    assert part and all(f.verdict.status == "unknown" and "separate buffers" in f.verdict.message for f in part)


@pytest.mark.parametrize("old, new, dim, have, want", [
    ("threadsPerWarp = [16, 4]", "threadsPerWarp = [8, 4]", "lane", 32, 64),
    ('"ttg.num-ctas" = 1', '"ttg.num-ctas" = 2', "block", 1, 2),
    ("warpsPerCTA = [4, 1]", "warpsPerCTA = [2, 1]", "warp", 2, 4),
])
def test_a_layout_for_other_counts_is_refuted(old: str, new: str, dim: str, have: int, want: int) -> None:
    bad = [f for f in _counts(MODULE.replace(old, new)) if f.verdict.status == "refuted"]
    assert bad
    v = bad[0].verdict
    assert v.counterexample.inputs == {dim: min(have, want)}
    assert f"{have} " in v.message and f"runs {want}" in v.message
