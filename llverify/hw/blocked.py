"""Blocked layouts (``#ttg.blocked``, Gluon ``BlockedLayout``).

A blocked layout gives each thread a ``size_per_thread`` block, each warp a
``threads_per_warp`` grid of threads, each CTA a ``warps_per_cta`` grid of
warps, all walked with ``order[0]`` fastest (seed 000, section 4.2; Figure 1
layout A is the blocked layout ``spt=[2,2], tpw=[4,8]... ``):

    L = identityND(register, spt, order) * identityND(lane, tpw, order)
        * identityND(warp, wpc, order)

then fitted to the shape (:func:`~llverify.hw.cga.combine_with_shape`; in
Triton 3.9.0 register bases that fall outside a small shape are deleted).

>>> from llverify.hw import blocked
>>> L = blocked([1, 4], [8, 4], [4, 1], [1, 0], shape=[32, 16])
>>> [list(b) for b in L.bases["register"]]
[[0, 1], [0, 2]]
"""

from __future__ import annotations

from typing import Callable, Sequence

from llverify.errors import LayoutError
from llverify.hw.cga import Tile, as_int_list, cga_bases, check_order, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["blocked", "blocked_on_shapes", "check_shape"]


def check_shape(shape: Sequence[int], rank: int | None, kind: str) -> list[int]:
    """Shape entries are positive powers of two and (if given) the rank agrees."""
    s = as_int_list(shape, "shape", kind)
    if not s:
        raise LayoutError(f"{kind}: shape must have at least one dim")
    if rank is not None and len(s) != rank:
        raise LayoutError(f"{kind}: shape {s} has rank {len(s)}, but the layout has rank {rank}")
    check_pow2(s, "shape", kind)
    return s


def blocked(size_per_thread: Sequence[int], threads_per_warp: Sequence[int], warps_per_cta: Sequence[int],
            order: Sequence[int], shape: Sequence[int], cga_layout: Sequence[Sequence[int]] | None = None,
            ctas_per_cga: Sequence[int] | None = None, cta_split_num: Sequence[int] | None = None,
            cta_order: Sequence[int] | None = None, warp_size: int | None = None,
            num_warps: int | None = None) -> LinearLayout:
    """The blocked layout on ``shape`` (see the module docstring).

    ``warp_size``/``num_warps``, when given, must equal the products of
    ``threads_per_warp``/``warps_per_cta`` (Triton checks this against the
    module's ``ttg.threads-per-warp``/``ttg.num-warps``, not in the attribute).
    """
    return blocked_on_shapes(size_per_thread, threads_per_warp, warps_per_cta, order, cga_layout, ctas_per_cga,
                             cta_split_num, cta_order, warp_size, num_warps)(shape)


def blocked_on_shapes(size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
                      warps_per_cta: Sequence[int], order: Sequence[int],
                      cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
                      cta_split_num: Sequence[int] | None = None, cta_order: Sequence[int] | None = None,
                      warp_size: int | None = None, num_warps: int | None = None
                      ) -> Callable[[Sequence[int]], LinearLayout]:
    """``shape -> blocked(..., shape=shape, ...)``: the parameters that do not depend on the shape checked (and
    copied) once, here, raising what :func:`blocked` raises for them; the function checks the shape, then the
    CGA parameters, and builds (one encoding is built at several shapes in a module)."""
    kind = "blocked"
    spt = as_int_list(size_per_thread, "size_per_thread", kind)
    tpw = as_int_list(threads_per_warp, "threads_per_warp", kind)
    wpc = as_int_list(warps_per_cta, "warps_per_cta", kind)
    order_l = as_int_list(order, "order", kind)
    rank = len(spt)
    if rank == 0:
        raise LayoutError(f"{kind}: size_per_thread must not be empty")
    check_rank(tpw, "threads_per_warp", rank, kind)
    check_rank(wpc, "warps_per_cta", rank, kind)
    check_rank(order_l, "order", rank, kind)
    check_pow2(spt, "size_per_thread", kind)
    check_pow2(tpw, "threads_per_warp", kind)
    check_pow2(wpc, "warps_per_cta", kind)
    check_order(order_l, rank, kind)
    if warp_size is not None and _prod(tpw) != warp_size:
        raise LayoutError(f"{kind}: threads_per_warp = {tpw} has product {_prod(tpw)}, expected warp_size {warp_size}")
    if num_warps is not None and _prod(wpc) != num_warps:
        raise LayoutError(f"{kind}: warps_per_cta = {wpc} has product {_prod(wpc)}, expected num_warps {num_warps}")
    one_cta = cga_layout is None and ctas_per_cga is None and cta_split_num is None and cta_order is None

    def on(shape: Sequence[int]) -> LinearLayout:
        shp = check_shape(shape, rank, kind)
        if one_cta:  # cga_bases of no CGA parameters is [] (nothing to check)
            return _blocked_one_cta(spt, tpw, wpc, order_l, shp)
        cga = cga_bases(rank, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
        if not cga:
            return _blocked_one_cta(spt, tpw, wpc, order_l, shp)
        t = Tile(rank)
        t.identity_nd("register", spt, order_l).identity_nd("lane", tpw, order_l).identity_nd("warp", wpc, order_l)
        return combine_with_shape(t, cga, shp, kind, broadcast_registers=False)

    return on


def _blocked_one_cta(spt: Sequence[int], tpw: Sequence[int], wpc: Sequence[int], order: Sequence[int],
                     shape: Sequence[int]) -> LinearLayout:
    """:func:`blocked` without a CGA layout (one CTA), written down directly as flat columns.

    Along each dim ``d`` (``order`` fastest first) the tile's bases are the powers of two ``1, 2, ...``: first
    ``log2 spt[d]`` register bases, then ``log2 tpw[d]`` lane bases, then ``log2 wpc[d]`` warp bases; where the
    tile is smaller than ``shape[d]`` register bases continue the powers up to ``shape[d] / 2``
    (``ensureLayoutNotSmallerThan``); where it is larger, a basis reaching ``shape[d]`` or beyond is deleted if it
    is a register basis and made zero otherwise (``ensureLayoutNotLargerThan``, Triton 3.9's blocked layouts).
    Out dims ``dim0..`` sized ``shape``; the ``block`` in dim is empty.  Column of value ``v`` along ``d``:
    ``v << (sum of log2 shape[k] for k < d)``.

    Postcondition: equal to the general construction (:class:`~llverify.hw.cga.Tile` then
    :func:`~llverify.hw.cga.combine_with_shape`), ``tests/test_fast_paths_buildfast.py``."""
    shifts = []
    s = 0
    for size in shape:
        shifts.append(s)
        s += size.bit_length() - 1
    reg: list[int] = []
    lane: list[int] = []
    warp: list[int] = []
    reached = [1] * len(shape)  # the tile's size along each dim so far
    for cols, per_dim, delete in ((reg, spt, True), (lane, tpw, False), (warp, wpc, False)):
        for d in order:
            limit, sh = shape[d], shifts[d]
            v = reached[d]
            end = v * per_dim[d]
            while v < end:
                if v < limit:
                    cols.append(v << sh)
                elif not delete:
                    cols.append(0)
                v <<= 1
            reached[d] = end
    for d in order:  # repetitions: more register bases, up to the shape
        v, limit, sh = reached[d], shape[d], shifts[d]
        while v < limit:
            reg.append(v << sh)
            v <<= 1
    ins = (("register", len(reg)), ("lane", len(lane)), ("warp", len(warp)), ("block", 0))
    return LinearLayout._raw(ins, tuple((f"dim{i}", size) for i, size in enumerate(shape)), (*reg, *lane, *warp))


def _prod(xs: Sequence[int]) -> int:
    p = 1
    for x in xs:
        p *= x
    return p
