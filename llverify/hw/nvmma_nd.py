"""The transposed NVMMA shared layout at rank >= 3, as Triton 3.9.0 builds it.

Triton (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp, the NVMMA
shared conversion; the TMA box comes from ``getTMABlockShape``) builds every
NVMMA layout over the per-CTA TMA box ``t = [t0, .., t_{r-1}]`` (transposed:
``t0`` is the contiguous dim, clipped to one swizzle row) in four steps.  With
``f`` the flat offset of a tensor element:

1. a 2-D layout on the collapsed box ``[R, C] = [t_{r-1}, t0 * .. * t_{r-2}]``
   (the non-transposed ``[t0 * .. * t_{r-2}, t_{r-1}]`` swapped): the 8-row
   swizzle atom (column bit ``k`` -> ``(0, 2^k)``, row bit ``k`` ->
   ``(2^k, vec * ((2^k / per_phase) % max_phase))``), grown over the rows
   first, then over the columns;
2. reshaped row-major (``f = row * C + col``, the last dim fastest) into the
   *rotated* box ``p = [t1, .., t_{r-1}, t0]``;
3. out dims permuted by ``order = [r-1, 0, 1, .., r-2]``: out dim ``j`` takes
   component ``order[j]`` of each basis (so out dim ``j`` has size ``p[order[j]]``,
   which undoes the rotation);
4. fitted to the per-CTA shape and the CGA (``combineCtaCgaWithShape``),
   growing the out dims in the order ``dim0, dim1, ..``.

Without swizzling (``swizzle_byte_width = 0``) step 1 is the identity and
step 3 goes the other way: component ``i`` lands in out dim ``order[i]``, and
step 4 grows ``dim{r-1}`` first, then down to ``dim0``.

At rank 2 both variants are the familiar transposed layout.  At rank >= 3 the
unswizzled step 3 is not the inverse of the rotation (Triton 3.9.0 does what
it does, and the wheel confirms it): the layout's out sizes are a permutation
of the box, step 4 then clips and grows it, and the result can broadcast (zero offset bases) -- e.g. on ``[2, 64, 64]``
with 16-bit elements and no swizzle, offset bits 2..6 map to 0.  llverify
reproduces that bit for bit rather than "fixing" it, since the bases are what
Triton's compiler uses.

Worked example (``swizzle_byte_width = 0``, 16-bit, ``[2, 64, 64]``): box
``[2, 64, 64]``, rotated ``[64, 64, 2]``; after step 3 the out sizes are
``[64, 2, 64]``, offsets ``(0,1,0), (1,0,0), (2,0,0) .. (32,0,0), (0,0,1) ..
(0,0,32)``; step 4 zeroes ``(2,0,0) .. (32,0,0)`` and appends ``(0,2,0) ..
(0,32,0)``.
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.cga import Tile, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["nvmma_transposed_nd"]


def _flat_bases(box: Sequence[int], swizzle_byte_width: int, element_bitwidth: int, fp4_padded: bool,
                kind: str) -> list[int]:
    """Steps 1-2 up to the flattening: offset bit -> flat element index in the collapsed box."""
    r = len(box)
    nrows = box[r - 1]
    ncols = 1
    for d in range(r - 1):
        ncols *= box[d]
    total = nrows * ncols
    if swizzle_byte_width == 0:
        return [1 << k for k in range(total.bit_length() - 1)]
    pack = 2 if fp4_padded else 1
    tile_cols = 8 * swizzle_byte_width // element_bitwidth
    if ncols * pack < tile_cols or nrows < 8:
        raise LayoutError(f"{kind}: transposed TMA box {list(box)} collapses to {nrows} x {ncols * pack}, smaller "
                          f"than one 8 x {tile_cols} swizzle atom for swizzle_byte_width = {swizzle_byte_width}")
    vec = 128 // element_bitwidth
    per_phase = 128 // swizzle_byte_width
    max_phase = swizzle_byte_width // 16

    def packed(c: int) -> int:
        return c // 16 * 8 + c % 8 if fp4_padded else c

    rc: list[tuple[int, int]] = []
    c = 1
    while c < tile_cols:
        rc.append((0, packed(c)))
        c <<= 1
    for k in range(3):
        rc.append((1 << k, packed(vec * (((1 << k) // per_phase) % max_phase))))
    rr = 8
    while rr < nrows:
        rc.append((rr, 0))
        rr <<= 1
    cc = tile_cols // pack
    while cc < ncols:
        rc.append((0, cc))
        cc <<= 1
    return [row * ncols + col for row, col in rc]


def nvmma_transposed_nd(box: Sequence[int], swizzle_byte_width: int, element_bitwidth: int, fp4_padded: bool,
                        cga: list[list[int]], shape: Sequence[int], kind: str = "nvmma_shared") -> LinearLayout:
    """Transposed NVMMA layout for rank >= 2 from its per-CTA TMA ``box`` (see the module docstring)."""
    r = len(box)
    rot = list(box[1:]) + [box[0]]
    order = [r - 1] + list(range(r - 1))
    if swizzle_byte_width == 0:
        dest = order
    else:
        dest = [0] * r
        for j in range(r):
            dest[order[j]] = j
    t = Tile(r)
    bs = t.ins["offset"] = []
    for f in _flat_bases(box, swizzle_byte_width, element_bitwidth, fp4_padded, kind):
        p = [0] * r
        x = f
        for i in range(r - 1, -1, -1):  # row-major: the last rotated dim is the fastest
            p[i] = x % rot[i]
            x //= rot[i]
        v = [0] * r
        for i in range(r):
            v[dest[i]] = p[i]
        bs.append(v)
    for i in range(r):
        t.sizes[dest[i]] = rot[i]
    # the order in which step 4 grows the out dims: dim r-1 first without swizzling (the identity
    # product's own order), dim0 first with it (the transposed layout's out dims are dim0, dim1, ..)
    t.order = list(range(r - 1, -1, -1)) if swizzle_byte_width == 0 else list(range(r))
    return combine_with_shape(t, cga, shape, kind)
