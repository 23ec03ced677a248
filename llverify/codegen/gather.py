"""Gather along an axis with warp shuffles (seed 000, section 5.5).

``out[..., i, ...] = src[..., index[..., i, ...], ...]`` along ``axis``, with
``src`` and ``index`` in the same distributed layout ``L``.  The gather stays
inside a warp iff, for every element ``x`` and every change ``δ`` of the
axis coordinate, ``x ^ δ`` is held by the same warp and block: by linearity,
iff every axis unit vector lies in ``span(L_reg ∪ L_lane)`` (for distributed
layouts: the warp and block bases have no axis component, the paper's
condition).  Then ``δ``'s holder differs from ``x``'s by ``(ρ(δ), λ(δ))``
(registers, lanes) with ``ρ`` linear; ``D = ρ(axis space)`` is the set of
register offsets a source can sit at, and the gather takes ``|D|`` shuffle
rounds per destination register: round ``i`` every lane sends register
``r ^ D[i]`` and reads from the lane holding its source, keeping the value
when the source register is ``r ^ D[i]``.

Example: axis 1 of a ``[1, 64]`` tensor with 2 registers x 32 lanes along it:
``D = {0, 1}``, 2 rounds per register.
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify import f2
from llverify.codegen.common import flat_bases
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["GatherPlan", "gather_plan"]


@dataclass(frozen=True)
class GatherPlan:
    """``warp_local`` and, when it is, the register offsets ``D`` (rounds per register) and lane bits used."""

    layout: LinearLayout
    axis: int
    warp_local: bool
    axis_preimages: tuple[tuple[int, int] | None, ...]  # per axis bit: (register, lane) holding it, or None
    register_offsets: tuple[int, ...]                 # D
    axis_lane_bits: tuple[int, ...]                   # lane bases with an axis component

    @property
    def rounds_per_register(self) -> int:
        return len(self.register_offsets) if self.warp_local else 0

    def to_json(self) -> dict:
        return {"axis": self.axis, "warp_local": self.warp_local, "register_offsets": list(self.register_offsets),
                "rounds_per_register": self.rounds_per_register, "axis_lane_bits": list(self.axis_lane_bits),
                "axis_preimages": [list(p) if p else None for p in self.axis_preimages]}


def gather_plan(layout: LinearLayout, axis: int) -> GatherPlan:
    """Decide warp-locality of a gather along ``axis`` and plan its shuffle rounds."""
    outs = list(layout.out_dim_names)
    if not 0 <= axis < len(outs):
        raise LayoutError(f"gather_plan: axis {axis} is out of range for a rank-{len(outs)} layout")
    if not layout.has_in_dim("register") or not layout.has_in_dim("lane"):
        raise LayoutError("gather_plan: the layout must be distributed (register and lane in dims)")
    shift = layout.flat_out_shifts()[outs[axis]]
    nbits = layout.out_dim_size_log2(outs[axis])
    regs, lanes = flat_bases(layout, "register"), flat_bases(layout, "lane")
    cols = regs + lanes
    pre: list[tuple[int, int] | None] = []
    for j in range(nbits):
        sol = f2.solve(cols, 1 << (shift + j))
        if sol is None:
            pre.append(None)
            continue
        pre.append((sol & ((1 << len(regs)) - 1), sol >> len(regs)))
    local = all(p is not None for p in pre)
    D = [0]
    if local:
        for p in pre:
            assert p is not None
            if p[0] and p[0] not in D:
                D = D + [x ^ p[0] for x in D]
    amask = ((1 << nbits) - 1) << shift
    axis_lanes = tuple(i for i, b in enumerate(lanes) if b & amask)
    return GatherPlan(layout, axis, local, tuple(pre), tuple(sorted(set(D))), axis_lanes)
