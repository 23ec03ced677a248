"""Shared-memory layouts: ``swizzled_shared``, ``nvmma_shared``, ``amd_rotating_shared``, ``shared_linear``.

A shared layout maps ``offset`` (the element index in one CTA's buffer) and
``block`` to tensor coordinates (seed 000, section 4.3, definition 4.13: a
memory layout is an invertible linear map; section 5.4 builds the swizzles).

* Swizzled (``vec, per_phase, max_phase, order``): with ``col = order[0]``,
  ``row = order[1]``, column bit ``k`` -> ``(col: 2^k)``; row bit ``k`` ->
  ``(row: 2^k, col: vec * ((2^k // per_phase) % max_phase) % ncols)``; the other
  dims follow in ``order``.  ``vec=2, per_phase=2, max_phase=4`` on 32x32: row
  bases ``(1,0), (2,2), (4,4), (8,0), (16,0)``.
* NVMMA (``swizzle_byte_width`` in {0, 32, 64, 128}): 8-row atoms of
  ``8 * swizzle / bits`` columns, row ``r`` XORs ``(128 / bits) * ((r / per_phase)
  % max_phase)`` into the column, ``per_phase = 128 / swizzle``, ``max_phase =
  swizzle / 16``, tiled over the TMA box (at most 256 per dim, contiguous dim
  exactly one swizzle row), row-major, then repeated over the CTA shape.
  Transposed at rank >= 3: :mod:`llverify.hw.nvmma_nd`.
* AMD rotating: like swizzled, but the phase also rotates by the block of
  rows (``phase = ((row // per_phase) + (row // (per_phase * max_phase))) % max_phase``).
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_bases, as_int_list, cga_bases, check_order, combine_with_shape, cta_shape
from llverify.layout import LinearLayout

__all__ = ["swizzled_shared", "nvmma_shared", "amd_rotating_shared", "shared_linear", "tma_block_shape"]


def _pos_int(v: object, name: str, kind: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise LayoutError(f"{kind}: {name} = {v!r} must be a positive integer")
    return v


def _swizzle_tile(kind: str, vec: int, per_phase: int, max_phase: int, order: Sequence[int],
                  per_cta: Sequence[int], rotating: bool) -> Tile:
    rank = len(order)
    t = Tile(rank)
    if rank == 1:
        return t.identity(per_cta[0], "offset", 0)
    col, row = order[0], order[1]
    ncols, nrows = per_cta[col], per_cta[row]
    t.order = [row, col]
    t.ins["offset"] = bs = []
    c = 1
    while c < ncols:
        v = [0] * rank
        v[col] = c
        bs.append(v)
        c <<= 1
    r = 1
    while r < nrows:
        phase = r // per_phase
        if rotating:
            phase += r // (per_phase * max_phase)
        v = [0] * rank
        v[row] = r
        v[col] = (vec * (phase % max_phase)) % ncols
        bs.append(v)
        r <<= 1
    t.sizes[col], t.sizes[row] = ncols, nrows
    for d in order[2:]:
        t.identity(per_cta[d], "offset", d)
    return t


def _swizzled(kind: str, vec: int, per_phase: int, max_phase: int, order: Sequence[int], shape: Sequence[int],
              cga_layout: object, ctas_per_cga: object, cta_split_num: object, cta_order: object,
              rotating: bool) -> LinearLayout:
    vec = _pos_int(vec, "vec", kind)
    per_phase = _pos_int(per_phase, "per_phase", kind)
    max_phase = _pos_int(max_phase, "max_phase", kind)
    order_l = as_int_list(order, "order", kind)
    rank = len(order_l)
    if rank == 0:
        raise LayoutError(f"{kind}: order must not be empty")
    check_order(order_l, rank, kind)
    shp = check_shape(shape, rank, kind)
    cga = cga_bases(rank, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
    t = _swizzle_tile(kind, vec, per_phase, max_phase, order_l, cta_shape(cga, shp), rotating)
    return combine_with_shape(t, cga, shp, kind)


def swizzled_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], shape: Sequence[int],
                    cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
                    cta_split_num: Sequence[int] | None = None,
                    cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The swizzled shared layout on ``shape`` (see the module docstring)."""
    return _swizzled("swizzled_shared", vec, per_phase, max_phase, order, shape, cga_layout, ctas_per_cga,
                     cta_split_num, cta_order, rotating=False)


def amd_rotating_shared(vec: int, per_phase: int, max_phase: int, order: Sequence[int], shape: Sequence[int],
                        cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
                        cta_split_num: Sequence[int] | None = None,
                        cta_order: Sequence[int] | None = None) -> LinearLayout:
    """AMD's rotating swizzled shared layout (``#ttg.amd_rotating_shared``)."""
    return _swizzled("amd_rotating_shared", vec, per_phase, max_phase, order, shape, cga_layout, ctas_per_cga,
                     cta_split_num, cta_order, rotating=True)


def tma_block_shape(per_cta: Sequence[int], element_bitwidth: int, swizzle_byte_width: int, fp4_padded: bool,
                    transposed: bool, kind: str = "nvmma_shared") -> list[int]:
    """Triton's TMA box for an NVMMA layout (packed sizes): dims clipped to 256, contiguous dim one swizzle row."""
    box = list(per_cta)
    contig = 0 if transposed else len(box) - 1
    if fp4_padded:
        box[contig] *= 2
    box = [min(b, 256) for b in box]
    if swizzle_byte_width:
        want = 8 * swizzle_byte_width // element_bitwidth
        if box[contig] < want:
            raise LayoutError(
                f"{kind}: the contiguous dim {contig} has {box[contig] // (2 if fp4_padded else 1)} elements per CTA, "
                f"fewer than one {swizzle_byte_width}-byte swizzle row of {element_bitwidth}-bit elements "
                f"({want // (2 if fp4_padded else 1)}); use a smaller swizzle_byte_width")
        box[contig] = want
    if fp4_padded:
        box[contig] //= 2
    return box


def nvmma_shared(swizzle_byte_width: int, element_bitwidth: int, shape: Sequence[int], rank: int | None = None,
                 transposed: bool = False, fp4_padded: bool = False,
                 cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
                 cta_split_num: Sequence[int] | None = None, cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The NVMMA (TMA/wgmma) shared layout on ``shape`` (see the module docstring)."""
    kind = "nvmma_shared"
    if swizzle_byte_width not in (0, 32, 64, 128) or isinstance(swizzle_byte_width, bool):
        raise LayoutError(f"{kind}: swizzle_byte_width = {swizzle_byte_width!r} must be 0, 32, 64 or 128")
    if element_bitwidth not in (8, 16, 32, 64) or isinstance(element_bitwidth, bool):
        raise LayoutError(f"{kind}: element_bitwidth = {element_bitwidth!r} must be 8, 16, 32 or 64")
    if fp4_padded and (swizzle_byte_width != 128 or element_bitwidth != 8):
        raise LayoutError(f"{kind}: fp4_padded needs swizzle_byte_width = 128 and element_bitwidth = 8 "
                          f"(got {swizzle_byte_width}, {element_bitwidth})")
    shp = check_shape(shape, rank, kind)
    r = len(shp)
    cga = cga_bases(r, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
    per_cta = cta_shape(cga, shp)
    box = tma_block_shape(per_cta, element_bitwidth, swizzle_byte_width, bool(fp4_padded), bool(transposed))
    if transposed and r > 2:
        from llverify.hw.nvmma_nd import nvmma_transposed_nd
        return nvmma_transposed_nd(box, swizzle_byte_width, element_bitwidth, bool(fp4_padded), cga, shp, kind)
    flat_order = list(range(r - 1, -1, -1))  # row-major: last dim fastest
    if transposed and r == 2:
        flat_order = [0, 1]
    if swizzle_byte_width == 0:
        t = Tile(r)
        for d in flat_order:
            t.identity(box[d], "offset", d)
        return combine_with_shape(t, cga, shp, kind)
    if r < 2:
        raise LayoutError(f"{kind}: swizzle_byte_width = {swizzle_byte_width} needs rank >= 2, got shape {shp}")
    ncols_box = box[flat_order[0]]
    nrows_box = 1
    for d in flat_order[1:]:
        nrows_box *= box[d]
    pack = 2 if fp4_padded else 1
    tile_cols = 8 * swizzle_byte_width // element_bitwidth
    if ncols_box * pack < tile_cols or nrows_box < 8:
        raise LayoutError(f"{kind}: the TMA box {box} collapses to {nrows_box} x {ncols_box * pack}, smaller than "
                          f"one 8 x {tile_cols} swizzle atom for swizzle_byte_width = {swizzle_byte_width}")
    vec = 128 // element_bitwidth
    per_phase = 128 // swizzle_byte_width
    max_phase = swizzle_byte_width // 16

    def packed(c: int) -> int:
        return c // 16 * 8 + c % 8 if fp4_padded else c

    # 2-D atom in (row, col) coordinates, then grown (rows first, then columns).
    flat: list[tuple[int, int]] = []
    c = 1
    while c < tile_cols:
        flat.append((0, packed(c)))
        c <<= 1
    rr = 1
    while rr < 8:
        flat.append((rr, packed(vec * ((rr // per_phase) % max_phase))))
        rr <<= 1
    rr = 8
    while rr < nrows_box:
        flat.append((rr, 0))
        rr <<= 1
    cc = tile_cols // pack
    while cc < ncols_box:
        flat.append((0, cc))
        cc <<= 1
    # Reshape: col -> flat_order[0]; row bits split over flat_order[1:] (minor first).
    t = Tile(r)
    t.order = list(flat_order)
    bs = t.ins["offset"] = []
    cbits = ncols_box.bit_length() - 1
    for row, col in flat:
        v = [0] * r
        v[flat_order[0]] = col
        x = row
        for d in flat_order[1:]:
            v[d] = x % box[d]
            x //= box[d]
        bs.append(v)
    del cbits
    for d in range(r):
        t.sizes[d] = box[d]
    # beyond the TMA box the tile repeats in the out dims' own order (dim0 first), as Triton's
    # nvmmaSharedToLinearLayout grows its box layout to the CTA shape (a 512-row tile: row 256 before the
    # column repetitions)
    t.order = list(range(r))
    return combine_with_shape(t, cga, shp, kind)


def shared_linear(offset_bases: Sequence[Sequence[int]], shape: Sequence[int],
                  block_bases: Sequence[Sequence[int]] | None = None, alignment: int = 16) -> LinearLayout:
    """An explicit shared layout (``#ttg.shared_linear``): ``offset``/``block`` bases as given."""
    kind = "shared_linear"
    ob = as_bases(offset_bases, "offset_bases", kind)
    if not ob:
        raise LayoutError(f"{kind}: offset_bases must not be empty")
    rank = len(ob[0])
    ob = as_bases(offset_bases, "offset_bases", kind, rank)
    bb = as_bases(block_bases, "block_bases", kind, rank)
    if isinstance(alignment, bool) or not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise LayoutError(f"{kind}: alignment = {alignment!r} must be a positive power of two")
    shp = check_shape(shape, rank, kind)
    try:
        ll = LinearLayout.from_bases({"offset": ob, "block": bb}, [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{kind}: offset_bases/block_bases do not form a surjective layout: {exc}") from None
    if list(ll.out_dims.values()) != shp:
        raise LayoutError(f"{kind}: the bases span {list(ll.out_dims.values())}, but shape is {shp}")
    return ll
