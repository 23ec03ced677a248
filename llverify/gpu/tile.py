"""GPU addressing glue: a layout's bases as element ids and shared-memory offsets, and vector groups.

The harness names every element of a tile by its *element id*, the index of
a contiguous row-major tensor (``llverify.codegen.common.row_major_flat``:
last dim fastest).  With power-of-two extents a distributed layout L
(seed 000, definition 4.10) is then XOR-linear on ids,

    id(L(r, l, w)) = id(L(r)) ^ id(L(l)) ^ id(L(w)),

so a kernel only needs the ids of each in dim's bases (:class:`DistMap`).
Shared offsets come from ``llverify.codegen.access_to_offsets`` (``S^-1 L``)
read the same way (:func:`offset_columns`), and vector widths from
``llverify.codegen.vectorize`` (section 5.3); :class:`VectorGroups` only
turns such a plan into the register numbers and first addresses the CUDA
generator writes out.  Nothing here constructs a layout.

Example: for ``blocked[1,4|8,4|2,1|1,0]`` on 16x16 the register bases have
ids 1, 2 and lane bit 2 has id 16.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Sequence

import numpy as np

from llverify.codegen import VectorPlan, access_to_offsets
from llverify.codegen.common import flat_bases, remove_broadcast_registers, row_major_flat
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["DistMap", "VectorGroups", "offset_columns", "xor_span", "ids_table", "tile_shape"]


def xor_span(cols: Sequence[int]) -> np.ndarray:
    """All XOR combinations, ``out[x] = XOR of cols[i] for set bits i of x`` (length 2^len)."""
    out = np.zeros(1 << len(cols), dtype=np.int64)
    for k, c in enumerate(cols):
        h = 1 << k
        out[h:2 * h] = out[:h] ^ int(c)
    return out


def tile_shape(layout: LinearLayout) -> tuple[int, ...]:
    """``(size of dim0, dim1, ...)``; the harness needs out dims named ``dim0..dimN``."""
    names = list(layout.out_dim_names)
    want = [f"dim{i}" for i in range(len(names))]
    if sorted(names) != sorted(want):
        raise LayoutError(f"the harness needs out dims dim0..dim{len(names) - 1}, got {names}")
    return tuple(layout.out_dim_size(n) for n in want)


def _canonical(layout: LinearLayout) -> LinearLayout:
    return layout.transpose_outs([f"dim{i}" for i in range(len(tile_shape(layout)))])


@dataclass(frozen=True)
class DistMap:
    """A distributed layout on one tile as element-id columns per hardware in dim.

    ``reg[i]`` is the id of register basis i, likewise ``lane`` and ``warp``
    (``row_major_flat`` of the layout).  ``block`` must be trivial: one CTA per tile.
    """

    shape: tuple[int, ...]
    reg: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]

    @staticmethod
    def of(layout: LinearLayout) -> "DistMap":
        dims = set(layout.in_dim_names)
        if not {"register", "lane", "warp"} <= dims or not dims <= {"register", "lane", "warp", "block"}:
            raise LayoutError(f"a distributed layout needs in dims register, lane, warp (block), got {sorted(dims)}")
        if "block" in dims and layout.in_dim_size("block") != 1:
            raise LayoutError("the harness runs one CTA per tile: the layout's block dim must have size 1")
        if layout.in_dim_size("lane") != 32:
            raise LayoutError(f"NVIDIA warps have 32 lanes, the layout has {layout.in_dim_size('lane')}")
        ids = row_major_flat(_canonical(layout), "id")
        cols = {d: tuple(flat_bases(ids, d)) for d in ("register", "lane", "warp")}
        return DistMap(tile_shape(layout), cols["register"], cols["lane"], cols["warp"])

    @property
    def n_reg(self) -> int:
        return 1 << len(self.reg)

    @property
    def n_warps(self) -> int:
        return 1 << len(self.warp)

    @property
    def n_threads(self) -> int:
        return 32 * self.n_warps

    @property
    def n_elems(self) -> int:
        return prod(self.shape)


def ids_table(m: DistMap) -> np.ndarray:
    """``t[warp, lane, reg]`` = element id held there (int64)."""
    w = xor_span(m.warp)[:, None, None]
    ln = xor_span(m.lane)[None, :, None]
    r = xor_span(m.reg)[None, None, :]
    return w ^ ln ^ r


def offset_columns(access: LinearLayout, shared: LinearLayout) -> tuple[list[int], list[int], list[int]]:
    """Shared offsets of the (register, lane, warp) bases: ``llverify.codegen.access_to_offsets`` read per basis.

    The generator addresses every register, so ``access`` may not broadcast
    registers (``LayoutError`` otherwise); ``shared`` must be invertible.
    """
    if remove_broadcast_registers(access) != access:
        raise LayoutError("the kernel generator needs a layout without broadcast (zero or repeated) register bases")
    cvt = access_to_offsets(access, shared)
    cols = tuple(flat_bases(cvt.sublayout([d for d in cvt.in_dim_names], ["offset"]), d)
                 for d in ("register", "lane", "warp"))
    return list(cols[0]), list(cols[1]), list(cols[2])


@dataclass(frozen=True)
class VectorGroups:
    """A codegen :class:`~llverify.codegen.VectorPlan` as the generator's loop: vector g, element i.

    Element i of vector g is register ``register(g, i)``: the first
    ``log2 elems`` entries of ``register_order`` take the bits of i, the others
    (in order) the bits of g.  Example: order ``(1, 0, 2)`` with 4 elements:
    vector 0 is registers 0, 2, 1, 3.
    """

    plan: VectorPlan

    @property
    def vec(self) -> int:
        return self.plan.elems

    @property
    def chosen(self) -> tuple[int, ...]:
        return self.plan.register_order[:self.vec.bit_length() - 1]

    @property
    def rest(self) -> tuple[int, ...]:
        return self.plan.register_order[self.vec.bit_length() - 1:]

    def register(self, g: int, i: int) -> int:
        r = 0
        for t, bit in enumerate(self.rest):
            if g >> t & 1:
                r |= 1 << bit
        for t, bit in enumerate(self.chosen):
            if i >> t & 1:
                r |= 1 << bit
        return r

    def group_address(self, cols: Sequence[int], g: int) -> int:
        """XOR of the address columns of the ``rest`` bits set in g (the vector's first element)."""
        v = 0
        for t, bit in enumerate(self.rest):
            if g >> t & 1:
                v ^= cols[bit]
        return v

    def n_groups(self) -> int:
        return 1 << len(self.rest)
