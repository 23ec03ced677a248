"""Triton's default shared layouts for dot operands, re-implemented from the description (not from the wheel).

Triton 3.9.0 picks the shared layout of an MMA operand in C++
(``SwizzledSharedEncodingAttr::get`` with a dot-operand encoding, and the
NVMMA choice for wgmma); neither is exposed by the wheel's Python API
(``triton._C.libtriton.gluon_ir`` only builds layouts from explicit
parameters), so llverify cannot ask Triton.  This module re-implements the
heuristic from its published description (seed 000, definition 4.11 for
the layout family; triton-conventions.md for the constructors) so that the
optimal swizzle of section 5.4 can be compared with *this heuristic*, not
with the wheel's output.  What is and is not modelled:

*MMA v2 (Ampere) operands, ``swizzled_shared``*: rows along the contiguous
dim ``order[0]`` are ``row_bytes = shape[order[0]] * bits / 8`` long;
``per_phase = max(1, 128 / row_bytes)`` consecutive rows share one XOR
phase (one 128-byte line).  The matrix-core tile is 8 x 8 (M or N) by
``4 * k_width`` (K) elements.  If the operand is K-contiguous (A with
``order[0] == 1``, B with ``order[0] == 0``), a vector is one K extent
(``vec = 4 * k_width``) and the pattern repeats every 8 rows
(``max_phase = max(1, 8 / per_phase)``); otherwise ``vec = 8`` and
``max_phase = max(1, 4 * k_width / per_phase)``.  Not modelled: Triton's
special case that turns swizzling off for transposed 8-bit operands.

*MMA v3 (Hopper) operands, ``nvmma_shared``*: the widest swizzle of 128, 64
or 32 bytes that divides the contiguous row (``row_bytes``), else 0;
``transposed`` when the contiguous dim is not the last one.

Example: operand A, f16 (``k_width = 2``), shape ``[64, 64]``, order
``[1, 0]``: rows of 128 bytes, ``per_phase = 1``, ``vec = 8``,
``max_phase = 8`` -- the familiar ``swizzled_shared<8, 1, 8>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from llverify.codegen.common import check_bitwidth
from llverify.errors import LayoutError
from llverify.hw import nvmma_shared, swizzled_shared
from llverify.layout import LinearLayout

__all__ = ["TritonSwizzleChoice", "triton_mma_v2_operand_swizzle", "triton_nvmma_operand_swizzle"]


@dataclass(frozen=True)
class TritonSwizzleChoice:
    """The heuristic's parameters and the shared layout they build."""

    kind: str                      # "swizzled_shared" | "nvmma_shared"
    params: dict
    layout: LinearLayout

    def to_json(self) -> dict:
        return {"kind": self.kind, "params": dict(self.params), "source": "llverify re-implementation"}


def _check(operand_index: int, shape: Sequence[int], order: Sequence[int], bitwidth: int) -> list[int]:
    check_bitwidth(bitwidth)
    if operand_index not in (0, 1):
        raise LayoutError(f"operand_index must be 0 (A) or 1 (B), got {operand_index!r}")
    shp = [int(s) for s in shape]
    if len(shp) != 2 or sorted(order) != [0, 1]:
        raise LayoutError(f"a 2-D operand with order a permutation of [0, 1] is needed, got shape {shp}, order {order}")
    return shp


def triton_mma_v2_operand_swizzle(operand_index: int, shape: Sequence[int], order: Sequence[int], bitwidth: int,
                                  k_width: int) -> TritonSwizzleChoice:
    """The ``swizzled_shared`` layout the heuristic picks for an MMA v2 operand (see the module docstring)."""
    shp = _check(operand_index, shape, order, bitwidth)
    if k_width <= 0 or k_width & (k_width - 1):
        raise LayoutError(f"k_width must be a positive power of two, got {k_width!r}")
    row_bytes = shp[order[0]] * bitwidth // 8
    per_phase = max(1, 128 // max(1, row_bytes))
    k_extent = 4 * k_width
    k_contiguous = (order[0] == 1) if operand_index == 0 else (order[0] == 0)
    if k_contiguous:
        vec, stride = k_extent, 8
    else:
        vec, stride = 8, k_extent
    max_phase = max(1, stride // per_phase)
    params = {"vec": vec, "per_phase": per_phase, "max_phase": max_phase, "order": list(order)}
    return TritonSwizzleChoice("swizzled_shared", params, swizzled_shared(shape=shp, **params))


def triton_nvmma_operand_swizzle(shape: Sequence[int], order: Sequence[int], bitwidth: int) -> TritonSwizzleChoice:
    """The ``nvmma_shared`` layout the heuristic picks for a wgmma operand (see the module docstring)."""
    shp = _check(0, shape, order, bitwidth)
    row_bytes = shp[order[0]] * bitwidth // 8
    width = next((w for w in (128, 64, 32) if row_bytes % w == 0), 0)
    params = {"swizzle_byte_width": width, "element_bitwidth": bitwidth, "transposed": order[0] != 1}
    return TritonSwizzleChoice("nvmma_shared", params, nvmma_shared(shape=shp, **params))
