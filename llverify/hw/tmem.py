"""Blackwell tensor memory layouts (``#ttng.tensor_memory_encoding``, Gluon ``TensorMemoryLayout``;
``#ttng.tensor_memory_scales_encoding``, Gluon ``TensorMemoryScalesLayout``: :func:`tensor_memory_scales`).

What is modelled: the map from a TMEM address inside **one CTA** -- in dims
``row`` (the TMEM lane, 0..127) and ``col`` (the 32-bit TMEM column) -- to the
logical coordinates ``(dim0, dim1)`` of the CTA's part of the tensor, exactly as
Triton 3.9.0's ``to_linear_layout`` returns it for a ``TensorMemoryLayout``
(its ``rows``/``cols`` bases).  The CGA is not an in dim here: the per-CTA
shape is ``shape`` divided by the CTA tiles ``cga_layout`` spans, and the
returned layout's out dims have that per-CTA size (Triton reports the full
shape next to the same bases).  ``two_ctas`` does not change the bases.

Construction (``block = [block_m, block_n]``, ``s = col_stride``, doubled when
``fp4_padded``; per-CTA shape ``[M, N]``; ``bn = min(block_n, N)``)::

    Z(s, col, dim1)                                   # unused sub-columns
      * (block_m == 128:  I(128, row, dim0) * I(bn, col, dim1)
         block_m == 64:   I(16, row, dim0) * I(bn, col, dim1), then row bases
                          x, (16, 0), (32, 0) where x = (64, 0) if M > 64,
                          else (0, bn) if N > bn, else (0, 0) (undefined rows);
         block_m == 64 with two_ctas: I(64, row, dim0), and the last col
                          basis so far (``(0, bn/2)``, or a stride zero when
                          bn == 1) moved to row bit 6: rows 64..127 hold the
                          second half of the columns)
      * I(M / tileM, col, dim0) * I(N / tileN, col, dim1)   # repetitions, M first

A zero ``row`` basis at rows 32/64 means broadcast, elsewhere an undefined
row (Triton's note "Zeros in TMEM LinearLayouts").  Preconditions (as Triton):
``block_m`` in {64, 128}, ``col_stride`` in {1, 2, 4} (1 when ``fp4_padded``), ``two_ctas`` only with a
``cga_layout`` starting with the basis ``[1, 0]``, the per-CTA M at least
the tile's rows (else Triton aborts).

Worked example: ``block=[64, 64], col_stride=1`` on ``[64, 128]``: rows
``(1,0),(2,0),(4,0),(8,0),(0,64),(16,0),(32,0)``, cols ``(0,1)..(0,32)``.
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import as_bases, as_int_list, cga_bases, cta_shape
from llverify.layout import LinearLayout

__all__ = ["tensor_memory", "tensor_memory_scales", "BLOCK_REP_ORDERS"]


def _ident(n: int, dim: int, start: int = 1) -> list[list[int]]:
    out, k = [], start
    while k < start * n:
        v = [0, 0]
        v[dim] = k
        out.append(v)
        k <<= 1
    return out


def tensor_memory(block: Sequence[int], col_stride: int, shape: Sequence[int],
                  cga_layout: Sequence[Sequence[int]] | None = None, two_ctas: bool = False,
                  fp4_padded: bool = False) -> LinearLayout:
    """The per-CTA tensor memory layout (in dims ``row, col``) on ``shape`` (see the module docstring)."""
    kind = "tensor_memory"
    blk = as_int_list(block, "block", kind)
    if len(blk) != 2:
        raise LayoutError(f"{kind}: block = {blk} must be [block_m, block_n]")
    block_m, block_n = blk
    if block_m not in (64, 128):
        raise LayoutError(f"{kind}: block[0] (block_m) = {block_m} must be 64 or 128")
    if block_n <= 0 or block_n & (block_n - 1):
        raise LayoutError(f"{kind}: block[1] (block_n) = {block_n} must be a positive power of two")
    if isinstance(col_stride, bool) or col_stride not in (1, 2, 4):
        raise LayoutError(f"{kind}: col_stride = {col_stride!r} must be 1, 2 or 4")
    if fp4_padded and col_stride != 1:
        raise LayoutError(f"{kind}: fp4_padded needs col_stride = 1, got {col_stride}")
    shp = check_shape(shape, 2, kind)
    cga = cga_bases(2, kind, as_bases(cga_layout, "cga_layout", kind, 2) or None)
    if two_ctas and (not cga or cga[0] != [1, 0]):
        raise LayoutError(f"{kind}: two_ctas needs a cga_layout whose first block basis is [1, 0], got {cga}")
    m, n = cta_shape(cga, shp)
    stride = col_stride * (2 if fp4_padded else 1)
    bn = min(block_n, n)
    cols: list[list[int]] = [[0, 0] for _ in range(stride.bit_length() - 1)]
    if block_m == 128:
        rows = _ident(128, 0)
        cols += _ident(bn, 1)
        tile_m, tile_n = 128, bn
    elif two_ctas:
        # The 128-row tile of one [64, bn] block: its top column bit (the last of the
        # stride zeros when bn == 1) becomes row bit 6.
        cols += _ident(bn, 1)
        if not cols:
            raise LayoutError(f"{kind}: two_ctas with block_m = 64 needs more than one 32-bit column per CTA "
                              f"(per-CTA shape {[m, n]}, col_stride = {col_stride})")
        rows = _ident(64, 0) + [cols.pop()]
        tile_m, tile_n = 64, bn
    else:
        rows = _ident(16, 0)
        cols += _ident(bn, 1)
        tile_m, tile_n = 64, bn
        if m > 64:
            rows.append([64, 0])
            tile_m = 128
        elif n > bn:
            rows.append([0, bn])
            tile_n = 2 * bn
        else:
            rows.append([0, 0])
        rows += [[16, 0], [32, 0]]
    if m < tile_m or n < tile_n:
        raise LayoutError(f"{kind}: the per-CTA shape {[m, n]} is smaller than one {tile_m} x {tile_n} tile of "
                          f"block = {blk} (Triton needs at least one whole tile per CTA)")
    cols += _ident(m // tile_m, 0, tile_m) + _ident(n // tile_n, 1, tile_n)
    return LinearLayout._make([("row", [tuple(b) for b in rows]), ("col", [tuple(b) for b in cols])],
                              [("dim0", m), ("dim1", n)])


#: ``#ttng.tensor_memory_scales_encoding``'s ``blockRepOrder`` values (Triton's spelling; the default first).
BLOCK_REP_ORDERS: tuple[str, ...] = ("mnThenK", "kThenMn")


def tensor_memory_scales(shape: Sequence[int], cga_layout: Sequence[Sequence[int]] | None = None,
                         block_rep_order: str = "mnThenK") -> LinearLayout:
    """The per-CTA layout of MMA scale factors in tensor memory (``#ttng.tensor_memory_scales_encoding``).

    In dims ``row`` (TMEM lane) and ``col`` (32-bit TMEM column), out dims the
    per-CTA shape ``[M, N]`` (``shape`` divided by the CTA tiles ``cga_layout``
    spans; the CGA is not an in dim, as for :func:`tensor_memory`).  One block
    of scales is 32 rows x 4 bytes per column, copied into the 4 warps' row
    groups, and a column holds two row blocks (PTX's tcgen05 scale-factor layout)::

        I(32, row, dim0) * Z(4, row, dim0)            # rows 32..127 repeat rows 0..31
          * I(4, col, dim1) * I(2, col, dim0)         # 4 scales per column, then row 32
          * I(ceil(M / 64), col, dim0) * I(ceil(N / 4), col, dim1)   # repetitions, M first

    then clipped to ``[M, N]`` (Triton's ``ensureLayoutNotLargerThan``: the
    largest bases along a too-small dim become 0).  ``block_rep_order``
    (``mnThenK`` or ``kThenMn``) orders the scale blocks an MMA instruction
    consumes; Triton 3.9.0's linear layout does not depend on it (the wheel
    returns the same bases for both), so neither does this one.
    Source: ``tensorMemoryScalesToLinearLayout`` in Triton's
    lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp.

    Worked example, ``[128, 8]``: rows ``(1,0) .. (16,0), (0,0), (0,0)``; cols
    ``(0,1), (0,2), (32,0), (64,0), (0,4)``.  On ``[64, 2]`` the col basis
    ``(0,2)`` becomes ``(0,0)``.
    """
    kind = "tensor_memory_scales"
    if block_rep_order not in BLOCK_REP_ORDERS:
        raise LayoutError(f"{kind}: block_rep_order = {block_rep_order!r} must be one of {', '.join(BLOCK_REP_ORDERS)}")
    shp = check_shape(shape, 2, kind)
    cga = cga_bases(2, kind, as_bases(cga_layout, "cga_layout", kind, 2) or None)
    m, n = cta_shape(cga, shp)
    rows = _ident(32, 0) + [[0, 0], [0, 0]]
    cols = _ident(4, 1) + [[32, 0]]
    cols += _ident(-(-m // 64), 0, 64) + _ident(-(-n // 4), 1, 4)
    sizes = [max(64, m), max(4, n)]
    ins = {"row": rows, "col": cols}
    for d, want in ((0, m), (1, n)):
        # ensureLayoutNotLargerThan: zero the largest bases along d until the size fits
        found = sorted(((b[d], name, i) for name, bs in ins.items() for i, b in enumerate(bs) if b[d]),
                       key=lambda t: -t[0])
        size = sizes[d]
        for _, name, i in found:
            if size <= want:
                break
            ins[name][i][d] = 0
            size >>= 1
    return LinearLayout._make([("row", [tuple(b) for b in rows]), ("col", [tuple(b) for b in cols])],
                              [("dim0", m), ("dim1", n)])
