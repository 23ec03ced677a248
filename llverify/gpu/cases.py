"""Conversion cases for the harness and the fixed benchmark suite.

A :class:`Case` is one kernel: a conversion A -> B of one element type, by
one *variant*:

* ``unswizzled``: shared memory in row-major order (:func:`row_major_shared`);
* ``triton``: Triton's swizzled shared layout for the pair, the mma swizzle
  Triton gives a shared tile feeding an mma (``swizzled_shared`` with
  ``vec = 16 bytes``, ``per_phase = max(1, 128 bytes / row bytes)``,
  ``max_phase = max(1, 8 / per_phase)``, the row-major order);
* ``optimal``: llverify's optimal swizzle (seed 000, sections 5.4 and 9.2),
  from ``llverify.codegen.optimal_swizzle`` when it exists, else the local
  construction in :mod:`llverify.gpu.swizzle`;
* ``shuffle``: warp shuffles, when :func:`~llverify.gpu.shuffle.shuffle_plan`
  allows the conversion (no data crosses warps and each sender's register
  is a function of the sender).

:func:`suite` is the fixed benchmark: blocked <-> mma v2/v3, mma -> dot
operands, blocked -> dot operands, transposes and slices, for f32/f16/f8 at
64x64 (4 warps), 128x128 (8 warps) and 256x256 (8 warps, f8 only: every
thread holds 256 elements, more does not fit the register file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from llverify.errors import LayoutError
from llverify.gpu import zoo
from llverify.gpu.kernels import KernelSource, shared_conversion_kernel, shuffle_conversion_kernel
from llverify.gpu.reference import DTYPES
from llverify.gpu.shuffle import ShufflePlan, shuffle_plan
from llverify.gpu.tile import DistMap, SharedMap, row_major_shared
from llverify.layout import LinearLayout

__all__ = ["Case", "VARIANTS", "make_case", "suite", "triton_swizzle", "optimal_swizzle_for"]

VARIANTS = ("unswizzled", "triton", "optimal", "shuffle")


@dataclass(frozen=True)
class Case:
    """One generated kernel: conversion ``src -> dst`` of ``dtype`` through ``variant``."""

    name: str
    pair: str
    dtype: str
    variant: str
    src: LinearLayout
    dst: LinearLayout
    shared: LinearLayout | None = None
    plan: ShufflePlan | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def elem_bytes(self) -> int:
        return DTYPES[self.dtype][0]

    @property
    def kernel_name(self) -> str:
        return "llv_" + "".join(c if c.isalnum() else "_" for c in self.name)

    def maps(self) -> tuple[DistMap, DistMap]:
        return DistMap.of(self.src), DistMap.of(self.dst)

    def kernel(self) -> KernelSource:
        a, b = self.maps()
        comment = [f"case {self.name}: {self.pair}, {self.dtype}, variant {self.variant}"] + list(self.notes)
        if self.variant == "shuffle":
            assert self.plan is not None
            return shuffle_conversion_kernel(self.kernel_name, a, b, self.plan, self.elem_bytes, comment)
        assert self.shared is not None
        return shared_conversion_kernel(self.kernel_name, a, b, SharedMap.of(self.shared), self.elem_bytes, comment)


def triton_swizzle(shape: Sequence[int], elem_bytes: int) -> LinearLayout:
    """Triton's mma swizzle for a row-major 2-D shared tile (see the module docstring)."""
    if len(shape) != 2:
        raise LayoutError("the Triton swizzle variant needs a 2-D tile")
    row_bytes = shape[1] * elem_bytes
    vec = max(1, min(16 // elem_bytes, shape[1]))
    per_phase = max(1, 128 // row_bytes)
    max_phase = max(1, min(8 // per_phase, shape[1] // vec))
    return zoo.build("swizzled_shared", shape, vec=vec, per_phase=per_phase, max_phase=max_phase, order=(1, 0))


def optimal_swizzle_for(src: LinearLayout, dst: LinearLayout, bits: int) -> tuple[LinearLayout, str]:
    """(shared layout, where it came from): ``llverify.codegen.optimal_swizzle`` else the local construction."""
    try:
        from llverify import codegen  # noqa: PLC0415
        fn = getattr(codegen, "optimal_swizzle", None)
    except ImportError:  # pragma: no cover
        fn = None
    if fn is not None:
        res: Any = fn(src, dst, bits)
        for attr in ("layout", "shared", "swizzle"):
            if not isinstance(res, LinearLayout) and hasattr(res, attr):
                res = getattr(res, attr)
        if isinstance(res, LinearLayout):
            return res, "llverify.codegen.optimal_swizzle"
    from llverify.gpu.swizzle import optimal_swizzle  # noqa: PLC0415
    return optimal_swizzle(src, dst, bits), "llverify.gpu.swizzle (local)"


def make_case(pair: str, dtype: str, variant: str, src: LinearLayout, dst: LinearLayout) -> Case | None:
    """The case for one variant, or None where the variant does not apply (no shuffle plan, 1-D swizzle)."""
    shape = tuple(src.out_dim_size(f"dim{i}") for i in range(src.num_out_dims))
    eb = DTYPES[dtype][0]
    name = f"{pair}.{dtype}.{variant}"
    if variant == "unswizzled":
        return Case(name, pair, dtype, variant, src, dst, shared=row_major_shared(shape))
    if variant == "triton":
        if len(shape) != 2:
            return None
        return Case(name, pair, dtype, variant, src, dst, shared=triton_swizzle(shape, eb))
    if variant == "optimal":
        if len(shape) != 2:
            return None
        s, origin = optimal_swizzle_for(src, dst, 8 * eb)
        return Case(name, pair, dtype, variant, src, dst, shared=s, notes=(f"swizzle from {origin}",))
    if variant == "shuffle":
        plan = shuffle_plan(DistMap.of(src), DistMap.of(dst), eb)
        if plan is None:
            return None
        return Case(name, pair, dtype, variant, src, dst, plan=plan)
    raise LayoutError(f"unknown variant '{variant}' (one of {VARIANTS})")


# -- the fixed suite ----------------------------------------------------------
def _k_width(eb: int) -> int:
    return max(1, 4 // eb)


def _pairs(shape: tuple[int, int], warps: int, eb: int) -> Iterator[tuple[str, LinearLayout, LinearLayout]]:
    S = zoo.Spec.of
    vec = min(16 // eb, shape[1])
    t1 = min(32, shape[1] // vec)
    blocked = S("blocked", size_per_thread=(1, vec), threads_per_warp=(32 // t1, t1),
                warps_per_cta=(warps, 1), order=(1, 0))
    # a blocked layout whose warps own the same rows as the mma's (intra-warp conversions)
    rows_per_warp = shape[0] // warps
    blocked_rows = S("blocked", size_per_thread=(rows_per_warp // 8, 2), threads_per_warp=(8, 4),
                     warps_per_cta=(warps, 1), order=(1, 0))
    t0 = min(32, shape[0] // vec)
    blocked_t = S("blocked", size_per_thread=(vec, 1), threads_per_warp=(t0, 32 // t0),
                  warps_per_cta=(1, warps), order=(0, 1))
    mma2 = S("nvidia_mma", version=2, warps_per_cta=(warps, 1), instr_shape=(16, 8))
    mma3 = S("nvidia_mma", version=3, warps_per_cta=(warps, 1), instr_shape=(16, min(shape[1], 128), 16))
    mma2_sq = S("nvidia_mma", version=2, warps_per_cta=(2, warps // 2), instr_shape=(16, 8))
    dot_a2 = S("dot_operand", operand_index=0, parent=mma2, k_width=_k_width(eb))
    dot_b2 = S("dot_operand", operand_index=1, parent=mma2_sq, k_width=_k_width(eb))
    dot_a3 = S("dot_operand", operand_index=0, parent=mma3, k_width=_k_width(eb))

    def b(spec: zoo.Spec, shp: Sequence[int] = shape) -> LinearLayout:
        return zoo.build(spec.kind, shp, **spec.kwargs())

    yield "blocked_to_mma2", b(blocked), b(mma2)
    yield "mma2_to_blocked", b(mma2), b(blocked)
    yield "blocked_to_mma3", b(blocked), b(mma3)
    yield "mma3_to_blocked", b(mma3), b(blocked)
    yield "rowblocked_to_mma2", b(blocked_rows), b(mma2)
    yield "mma2_to_rowblocked", b(mma2), b(blocked_rows)
    yield "mma2_to_dotA2", b(mma2), b(dot_a2)
    yield "mma3_to_dotA3", b(mma3), b(dot_a3)
    yield "blocked_to_dotA2", b(blocked), b(dot_a2)
    yield "blocked_to_dotB2", b(blocked), b(dot_b2)
    yield "blocked_transpose", b(blocked), b(blocked_t)
    n = shape[0]
    yield "slice_mma2_to_blocked", b(S("slice", dim=1, parent=mma2), (n,)), b(S("slice", dim=1, parent=blocked), (n,))


SUITE_SHAPES: tuple[tuple[tuple[int, int], int, tuple[str, ...]], ...] = (
    ((64, 64), 4, ("f32", "f16", "f8")),
    ((128, 128), 8, ("f32", "f16", "f8")),
    ((256, 256), 8, ("f8",)),
)


def suite(quick: bool = False, variants: Sequence[str] = VARIANTS) -> list[Case]:
    """The fixed benchmark suite (``quick``: 64x64 only)."""
    cases: list[Case] = []
    for shape, warps, dtypes in SUITE_SHAPES[:1] if quick else SUITE_SHAPES:
        for dtype in dtypes:
            eb = DTYPES[dtype][0]
            for pair, src, dst in _pairs(shape, warps, eb):
                tag = f"{pair}.{shape[0]}x{shape[1]}w{warps}"
                for v in variants:
                    c = make_case(tag, dtype, v, src, dst)
                    if c is not None:
                        cases.append(c)
    return cases
