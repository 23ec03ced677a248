"""Layouts as XOR-linear maps on element ids and shared-memory offsets.

The harness names every element of a tile by its *element id*, the row-major
flattened logical coordinate ``id = sum_d coord[d] * prod(shape[d+1:])``.  With
power-of-two extents this is bit concatenation (last dim in the low bits), so
for a distributed layout L (seed 000, definition 4.10)

    id(L(r, l, w)) = id(L(r)) ^ id(L(l)) ^ id(L(w))

and each in dim is described by the ids of its bases (:class:`DistMap`).  A
shared layout S maps ``offset -> coordinate`` and is invertible; its inverse,
read on ids, is the linear map ``id -> offset`` (:class:`SharedMap`), so the
offset of register r of thread (l, w) is ``off(r) ^ off(l) ^ off(w)``.

Example: the 16x16 row-major identity has ``offset_of_id(x) == x``; for
``blocked[1,4|8,4|2,1|1,0]`` on 16x16 the register bases have ids 1, 2 and
lane bit 2 has id 16.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Sequence

import numpy as np

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["DistMap", "SharedMap", "VectorPlan", "row_major_shared", "vector_plan", "xor_span", "ids_table"]


def _coord_id(coord: Sequence[int], shape: Sequence[int]) -> int:
    v = 0
    for c, s in zip(coord, shape):
        v = v * s + c
    return v


def _shape_of(layout: LinearLayout) -> tuple[int, ...]:
    names = list(layout.out_dim_names)
    want = [f"dim{i}" for i in range(len(names))]
    if sorted(names) != sorted(want):
        raise LayoutError(f"the harness needs out dims dim0..dim{len(names) - 1}, got {names}")
    return tuple(layout.out_dim_size(n) for n in want)


def xor_span(cols: Sequence[int]) -> np.ndarray:
    """All XOR combinations, ``out[x] = XOR of cols[i] for set bits i of x`` (length 2^len)."""
    out = np.zeros(1 << len(cols), dtype=np.int64)
    for k, c in enumerate(cols):
        h = 1 << k
        out[h:2 * h] = out[:h] ^ int(c)
    return out


@dataclass(frozen=True)
class DistMap:
    """A distributed layout on a tile, as element-id columns per hardware in dim.

    ``reg[i]`` is the id of register basis i, likewise ``lane`` and ``warp``.
    ``block`` must be trivial (one CTA per tile).
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
        shape = _shape_of(layout)
        order = [f"dim{i}" for i in range(len(shape))]
        L = layout.transpose_outs(order)
        cols = {d: tuple(_coord_id(b, shape) for b in L.bases[d]) for d in ("register", "lane", "warp")}
        return DistMap(shape, cols["register"], cols["lane"], cols["warp"])

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


@dataclass(frozen=True)
class SharedMap:
    """An invertible shared layout S as the linear map ``id -> offset`` (columns per id bit)."""

    shape: tuple[int, ...]
    offset_of_id_bit: tuple[int, ...]
    layout: LinearLayout | None = None

    @staticmethod
    def of(layout: LinearLayout) -> "SharedMap":
        dims = set(layout.in_dim_names)
        if "offset" not in dims or not dims <= {"offset", "block"}:
            raise LayoutError(f"a shared layout needs in dims offset (block), got {sorted(dims)}")
        if "block" in dims and layout.in_dim_size("block") != 1:
            raise LayoutError("the harness runs one CTA per tile: the shared layout's block dim must have size 1")
        shape = _shape_of(layout)
        order = [f"dim{i}" for i in range(len(shape))]
        S = layout.transpose_outs(order)
        id_of_off = [_coord_id(b, shape) for b in S.bases["offset"]]
        n = len(id_of_off)
        if (1 << n) != prod(shape):
            raise LayoutError(f"shared layout has {1 << n} offsets for {prod(shape)} elements: it must be invertible")
        # invert the n x n F2 matrix (columns id_of_off) by Gauss-Jordan on (column, offset-bit) pairs
        rows = [(c, 1 << i) for i, c in enumerate(id_of_off)]
        basis: dict[int, tuple[int, int]] = {}
        for c, tag in rows:
            for p in sorted(basis, reverse=True):
                if c >> p & 1:
                    bc, bt = basis[p]
                    c, tag = c ^ bc, tag ^ bt
            if c == 0:
                raise LayoutError("shared layout is not invertible (two offsets hold the same element)")
            p = c.bit_length() - 1
            for q in list(basis):
                bc, bt = basis[q]
                if bc >> p & 1:
                    basis[q] = (bc ^ c, bt ^ tag)
            basis[p] = (c, tag)
        cols = []
        for k in range(n):
            c, tag = basis[k]
            assert c == 1 << k
            cols.append(tag)
        return SharedMap(shape, tuple(cols), layout)

    def offset(self, element_id: int) -> int:
        v, k = 0, 0
        while element_id:
            if element_id & 1:
                v ^= self.offset_of_id_bit[k]
            element_id >>= 1
            k += 1
        return v

    def offsets(self, ids: np.ndarray) -> np.ndarray:
        out = np.zeros_like(ids)
        for k, c in enumerate(self.offset_of_id_bit):
            out ^= np.where((ids >> k) & 1, c, 0)
        return out


def row_major_shared(shape: Sequence[int]) -> LinearLayout:
    """The unswizzled shared layout: offset = row-major element id (last dim fastest)."""
    shape = tuple(shape)
    bases = []
    for d in reversed(range(len(shape))):
        k = 1
        while k < shape[d]:
            c = [0] * len(shape)
            c[d] = k
            bases.append(tuple(c))
            k *= 2
    return LinearLayout([("offset", bases), ("block", [])], [(f"dim{i}", s) for i, s in enumerate(shape)])


@dataclass(frozen=True)
class VectorPlan:
    """Registers grouped into vectors (section 5.3, generalized vectorization: registers may be permuted).

    Element i of vector g is register ``register(g, i)``: the register bits
    ``chosen`` (whose address columns are 1, 2, 4, ...) take the bits of i,
    the other register bits (``rest``, in order) the bits of g.
    """

    vec: int
    chosen: tuple[int, ...]
    rest: tuple[int, ...]

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


def vector_plan(reg_cols: Sequence[int], other_cols: Sequence[int], elem_bytes: int,
                max_bytes: int = 16) -> VectorPlan:
    """Largest vector, registers permuted: for i < log2 v some register column is ``1 << i`` and every
    other column (other registers, lanes, warps) has its low ``log2 v`` bits zero.

    Example: register columns ``[2, 1, 16]``, others ``[4, 8]``, 2 bytes: column 1 is register 1,
    column 2 register 0, and nothing else touches bits 0-1: v = 4, chosen = (1, 0), rest = (2,).
    """
    best = VectorPlan(1, (), tuple(range(len(reg_cols))))
    chosen: list[int] = []
    v = 1
    while (2 * v) * elem_bytes <= max_bytes:
        want = v  # column value 1 << len(chosen)
        idx = next((i for i, c in enumerate(reg_cols) if c == want and i not in chosen), None)
        if idx is None:
            break
        cand = chosen + [idx]
        mask = 2 * v - 1
        rest = [c for i, c in enumerate(reg_cols) if i not in cand] + list(other_cols)
        if any(c & mask for c in rest):
            break
        chosen = cand
        v *= 2
        best = VectorPlan(v, tuple(chosen), tuple(i for i in range(len(reg_cols)) if i not in chosen))
    return best
