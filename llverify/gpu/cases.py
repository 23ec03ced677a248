"""Conversion cases for the harness and the fixed benchmark suite.

A :class:`Case` is one kernel: a conversion A -> B of one element type, by
one *variant*.  Every layout comes from :mod:`llverify.hw` and every plan
from :mod:`llverify.codegen`; this module only picks them:

* ``unswizzled``: shared memory in row-major order (``hw.build("swizzled_shared",
  vec=1, per_phase=1, max_phase=1)``, :func:`row_major_shared`);
* ``triton``: the swizzle Triton gives a shared tile feeding an mma,
  ``llverify.codegen.triton_mma_v2_operand_swizzle`` for a K-contiguous
  operand A (row-major order, ``k_width = 4 bytes / element``): 16-byte
  vectors, ``per_phase = max(1, 128 B / row bytes)``, ``max_phase = 8 /
  per_phase``;
* ``optimal``: ``llverify.codegen.optimal_swizzle(A, B, bitwidth).layout``
  (seed 000, sections 5.4 and 9.2);
* ``shuffle``: warp shuffles from ``llverify.codegen.shuffle_plan`` (else
  ``transposition_decomposition``), see :mod:`llverify.gpu.shuffle`.

:func:`suite` is the fixed benchmark: blocked <-> mma v2/v3, mma -> dot
operands, blocked -> dot operands, transposes and slices, for f32/f16/f8 at
64x64 (4 warps), 128x128 (8 warps) and 256x128 (8 warps, f8 only: 128 elements
per thread).  The 256x256 f8 tile of the first suite held 256 elements per
thread and spilled (ptxas: 255 registers, 600-3,300 bytes of spill stores), so
its counters mixed local-memory traffic into the shared-memory measurement;
:func:`llverify.gpu.bench.run_cases` now refuses any case ptxas reports
spilling, with its numbers, instead of measuring it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from llverify.codegen import optimal_swizzle, triton_mma_v2_operand_swizzle
from llverify.errors import LayoutError
from llverify.gpu.kernels import KernelSource, shared_conversion_kernel, shuffle_conversion_kernel
from llverify.gpu.reference import DTYPES
from llverify.gpu.shuffle import ShuffleProgram, shuffle_program
from llverify.gpu.tile import DistMap, tile_shape
from llverify.hw import build, build_spec
from llverify.layout import LinearLayout

__all__ = ["Case", "VARIANTS", "make_case", "suite", "triton_swizzle", "row_major_shared"]

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
    program: ShuffleProgram | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def elem_bytes(self) -> int:
        return DTYPES[self.dtype][0]

    @property
    def bitwidth(self) -> int:
        return 8 * self.elem_bytes

    @property
    def kernel_name(self) -> str:
        return "llv_" + "".join(c if c.isalnum() else "_" for c in self.name)

    def maps(self) -> tuple[DistMap, DistMap]:
        return DistMap.of(self.src), DistMap.of(self.dst)

    def kernel(self) -> KernelSource:
        comment = [f"case {self.name}: {self.pair}, {self.dtype}, variant {self.variant}"] + list(self.notes)
        if self.program is not None:
            return shuffle_conversion_kernel(self.kernel_name, self.src, self.dst, self.program, self.elem_bytes,
                                             comment)
        if self.shared is None:
            raise LayoutError(f"case {self.name} has neither a shared layout nor a shuffle program")
        return shared_conversion_kernel(self.kernel_name, self.src, self.dst, self.shared, self.elem_bytes, comment)


def row_major_shared(shape: Sequence[int]) -> LinearLayout:
    """The unswizzled shared layout (offset = row-major element id), built by ``llverify.hw``."""
    order = list(reversed(range(len(shape))))
    return build("swizzled_shared", list(shape), vec=1, per_phase=1, max_phase=1, order=order)


def _k_width(eb: int) -> int:
    return max(1, 4 // eb)


def triton_swizzle(shape: Sequence[int], elem_bytes: int) -> LinearLayout:
    """Triton's mma-operand swizzle for a row-major 2-D tile (``llverify.codegen.triton_mma_v2_operand_swizzle``)."""
    if len(shape) != 2:
        raise LayoutError("the Triton swizzle variant needs a 2-D tile")
    return triton_mma_v2_operand_swizzle(0, list(shape), [1, 0], 8 * elem_bytes, _k_width(elem_bytes)).layout


def make_case(pair: str, dtype: str, variant: str, src: LinearLayout, dst: LinearLayout,
              shuffle_method: str | None = None) -> Case | None:
    """The case for one variant, or None where the variant does not apply (no shuffle program, 1-D swizzle)."""
    shape = tile_shape(src)
    eb = DTYPES[dtype][0]
    name = f"{pair}.{dtype}.{variant}"
    if variant == "unswizzled":
        return Case(name, pair, dtype, variant, src, dst, shared=row_major_shared(shape))
    if variant == "triton":
        if len(shape) != 2:
            return None
        return Case(name, pair, dtype, variant, src, dst, shared=triton_swizzle(shape, eb),
                    notes=("swizzle from llverify.codegen.triton_mma_v2_operand_swizzle",))
    if variant == "optimal":
        if len(shape) != 2:
            return None
        plan = optimal_swizzle(src, dst, 8 * eb)
        return Case(name, pair, dtype, variant, src, dst, shared=plan.layout,
                    notes=("swizzle from llverify.codegen.optimal_swizzle",))
    if variant == "shuffle":
        prog, _why = shuffle_program(src, dst, 8 * eb, shuffle_method)
        if prog is None:
            return None
        return Case(name, pair, dtype, variant, src, dst, program=prog,
                    notes=(f"shuffles from {prog.source}",))
    raise LayoutError(f"unknown variant '{variant}' (one of {VARIANTS})")


# -- the fixed suite ----------------------------------------------------------
def _spec(kind: str, **params: Any) -> dict[str, Any]:
    """A layout spec as ``llverify.hw.build_spec`` reads it (parents nest as specs)."""
    return {"kind": kind, **params}


def _pairs(shape: tuple[int, int], warps: int, eb: int) -> Iterator[tuple[str, LinearLayout, LinearLayout]]:
    vec = min(16 // eb, shape[1])
    t1 = min(32, shape[1] // vec)
    blocked = _spec("blocked", size_per_thread=[1, vec], threads_per_warp=[32 // t1, t1],
                    warps_per_cta=[warps, 1], order=[1, 0])
    # a blocked layout whose warps own the same rows as the mma's (intra-warp conversions)
    rows_per_warp = shape[0] // warps
    blocked_rows = _spec("blocked", size_per_thread=[rows_per_warp // 8, 2], threads_per_warp=[8, 4],
                         warps_per_cta=[warps, 1], order=[1, 0])
    t0 = min(32, shape[0] // vec)
    blocked_t = _spec("blocked", size_per_thread=[vec, 1], threads_per_warp=[t0, 32 // t0],
                      warps_per_cta=[1, warps], order=[0, 1])
    mma2 = _spec("nvidia_mma", version=2, warps_per_cta=[warps, 1], instr_shape=[16, 8])
    mma3 = _spec("nvidia_mma", version=3, warps_per_cta=[warps, 1], instr_shape=[16, min(shape[1], 128), 16])
    mma2_sq = _spec("nvidia_mma", version=2, warps_per_cta=[2, warps // 2], instr_shape=[16, 8])
    dot_a2 = _spec("dot_operand", operand_index=0, parent=mma2, k_width=_k_width(eb))
    dot_b2 = _spec("dot_operand", operand_index=1, parent=mma2_sq, k_width=_k_width(eb))
    dot_a3 = _spec("dot_operand", operand_index=0, parent=mma3, k_width=_k_width(eb))

    def b(spec: dict[str, Any], shp: Sequence[int] = shape) -> LinearLayout:
        return build_spec(spec, list(shp))

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
    yield "slice_mma2_to_blocked", b(_spec("slice", dim=1, parent=mma2), (n,)), \
        b(_spec("slice", dim=1, parent=blocked), (n,))


SUITE_SHAPES: tuple[tuple[tuple[int, int], int, tuple[str, ...]], ...] = (
    ((64, 64), 4, ("f32", "f16", "f8")),
    ((128, 128), 8, ("f32", "f16", "f8")),
    ((256, 128), 8, ("f8",)),
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
