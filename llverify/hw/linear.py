"""Explicit distributed layouts (``#ttg.linear``, Gluon ``DistributedLinearLayout``).

The bases are given per in dim (``reg_bases``, ``lane_bases``, ``warp_bases``,
``block_bases``); the layout's own extent per dim is the next power of two
above the largest component (it must be surjective onto it).  On a tensor
``shape`` it is fitted like every other layout: repeated along ``register``
where the tensor is larger (dims in order dim0, dim1, ...), broadcast (largest
components zeroed) where it is smaller.

>>> from llverify.hw import build
>>> L = build("linear", [128], reg_bases=[[1]], lane_bases=[[2], [4], [8], [16], [32]], warp_bases=[[0], [0]])
>>> [list(b) for b in L.bases["register"]]
[[1], [64]]
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_bases, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["linear"]


def linear(shape: Sequence[int], reg_bases: Sequence[Sequence[int]] | None = None,
           lane_bases: Sequence[Sequence[int]] | None = None, warp_bases: Sequence[Sequence[int]] | None = None,
           block_bases: Sequence[Sequence[int]] | None = None,
           layout_shape: Sequence[int] | None = None) -> LinearLayout:
    """The explicit layout fitted to ``shape`` (``layout_shape``, if given, must match the bases' extent)."""
    kind = "linear"
    shp = check_shape(shape, None, kind)
    rank = len(shp)
    named = {"register": as_bases(reg_bases, "reg_bases", kind, rank),
             "lane": as_bases(lane_bases, "lane_bases", kind, rank),
             "warp": as_bases(warp_bases, "warp_bases", kind, rank),
             "block": as_bases(block_bases, "block_bases", kind, rank)}
    try:
        ll = LinearLayout.from_bases(named, [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{kind}: the bases are not a surjective layout onto their extent: {exc}") from None
    ext = list(ll.out_dims.values())
    if layout_shape is not None and list(layout_shape) != ext:
        raise LayoutError(f"{kind}: layout_shape = {list(layout_shape)} but the bases span {ext}")
    # Triton orders the dims by their first appearance in the register bases (then the
    # rest from the last dim down); a register basis that is not one power of two
    # along one dim makes that order undefined (Triton aborts).
    order: list[int] = []
    for i, b in enumerate(named["register"]):
        nz = [(d, c) for d, c in enumerate(b) if c]
        if len(nz) > 1 or (nz and nz[0][1] & (nz[0][1] - 1)):
            raise LayoutError(f"{kind}: reg_bases[{i}] = {b} is not a single power of two along one dim; "
                              "Triton cannot order the dims of such (swizzled) register bases")
        if nz and nz[0][0] not in order:
            order.append(nz[0][0])
    order += [d for d in range(rank - 1, -1, -1) if d not in order]
    t = Tile(rank)
    t.ins = {d: [list(b) for b in bs] for d, bs in named.items()}
    t.order = order
    t.sizes = list(ext)
    return combine_with_shape(t, [], shp, kind, broadcast_registers=False)
