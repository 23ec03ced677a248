"""Dot operands of a blocked parent: Triton's FMA dot operand layout.

When a ``tt.dot`` is lowered to scalar FMAs (no tensor cores), operand A
(``operand_index = 0``, shape ``[..., M, K]``) and B (``1``, ``[..., K, N]``)
take the parent blocked layout (seed 000, section 4.2) with the whole K extent
kept in each thread's registers and the lanes/warps broadcast along K::

    identityND(register, spt with spt[K] := shape[K], order)
      * broadcastND(lane, threads_per_warp, order, K)
      * broadcastND(warp, warps_per_cta, order, K)

where ``broadcastND(in, sizes, order, K)`` is ``I(sizes[d], in, d)`` for every
``d`` in ``order`` except ``Z(sizes[K], in, K)``.  The result is fitted to the
shape (:func:`~llverify.hw.cga.combine_with_shape`, register bases kept as zeros
when clipped) with the parent's CGA, whose K component is zeroed (every CTA
holds the whole K range).  ``k_width`` must be 0 (Triton rejects a kWidth
for blocked parents: FMA operands have no packing).

Worked example: parent ``spt=[1,4], tpw=[8,4], wpc=[4,1], order=[1,0]``,
operand A on ``[32, 16]``: registers ``(0,1),(0,2),(0,4),(0,8)`` (all of K),
lanes ``(0,0),(0,0),(1,0),(2,0),(4,0)`` (the 4 lanes along K broadcast), warps
``(8,0),(16,0)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_int_list, cga_bases, check_order, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["fma_dot_operand"]


def fma_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                    shape: Sequence[int]) -> LinearLayout:
    """Operand ``operand_index`` (0 = A, 1 = B) of a dot whose result has the blocked ``parent`` spec."""
    kind = "dot_operand"
    pk = "dot_operand: parent blocked"
    p = dict(parent)
    spt = as_int_list(p.get("size_per_thread", ()), "size_per_thread", pk)
    tpw = as_int_list(p.get("threads_per_warp", ()), "threads_per_warp", pk)
    wpc = as_int_list(p.get("warps_per_cta", ()), "warps_per_cta", pk)
    order = as_int_list(p.get("order", ()), "order", pk)
    rank = len(spt)
    if rank < 2:
        raise LayoutError(f"{pk}: size_per_thread = {spt} must have rank >= 2 for a dot operand")
    for vals, name in ((tpw, "threads_per_warp"), (wpc, "warps_per_cta"), (order, "order")):
        check_rank(vals, name, rank, pk)
    for vals, name in ((spt, "size_per_thread"), (tpw, "threads_per_warp"), (wpc, "warps_per_cta")):
        check_pow2(vals, name, pk)
    check_order(order, rank, pk)
    if operand_index not in (0, 1) or isinstance(operand_index, bool):
        raise LayoutError(f"{kind}: operand_index = {operand_index!r} must be 0 (A) or 1 (B)")
    if k_width != 0 or isinstance(k_width, bool):
        raise LayoutError(f"{kind}: k_width = {k_width!r} must be 0 for a blocked parent "
                          "(Triton: kWidth is not supported when the parent is a blocked layout)")
    shp = check_shape(shape, rank, kind)
    k_dim = rank - 1 if operand_index == 0 else rank - 2
    cga = cga_bases(rank, pk, p.get("cga_layout"), p.get("ctas_per_cga"), p.get("cta_split_num"),
                    p.get("cta_order"))
    cga = [[0 if d == k_dim else c for d, c in enumerate(b)] for b in cga]
    regs = list(spt)
    regs[k_dim] = shp[k_dim]
    t = Tile(rank)
    t.identity_nd("register", regs, order)
    for name, sizes in (("lane", tpw), ("warp", wpc)):
        for d in order:
            if d == k_dim:
                t.zeros(sizes[d], name, d)
            else:
                t.identity(sizes[d], name, d)
    return combine_with_shape(t, cga, shp, kind)
