"""The ``tmem_access`` rule: every warp reads and writes tensor memory only in its own lane quarter.

A ``ttng.tmem_load`` / ``tmem_store`` (or a ``tmem_alloc`` with a value) moves a register tensor of layout
``R`` to or from a TMEM memdesc whose layout ``T`` is its allocation's (:mod:`llverify.ttgir.layouts`).  The
claim (:func:`llverify.prove.tmem_access.tmem_lane_quarters`) is decided

- for every CTA warp the op's first warp may be: 0 outside ``warp_specialize`` partitions, inside one each
  start :mod:`llverify.ttgir.partitions` allows (one per distinct ``start mod 4``);
- over several CTAs, per CTA: a warp of CTA ``b`` reaches only ``b``'s tensor memory, which holds the tile the
  TMEM encoding's ``CGALayout`` gives ``b`` (Triton lowers an access only when the register layout's block
  dim maps onto the TMEM's block dim unchanged);
- for a view smaller than its allocation (``ttng.tmem_subslice``), at the view's offset in the allocation
  (:func:`llverify.ttgir.tmem_views.view_offset`: the view's element ``e`` is the allocation's ``e + offset``);
  where the offset is not known, at every offset the view fits at
  (:func:`llverify.ttgir.tmem_views.candidate_offsets`).

It is ``proved`` when it holds in every case, ``refuted`` (the first failing case's replayed witness) when it
fails in every case, otherwise ``unknown`` naming the cases that hold.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from llverify.layout import LinearLayout
from llverify.prove.tmem_access import tmem_lane_quarters
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem
from llverify.ttgir.memory_ops import TMEM_ACCESS_OPS, tensor_and_buffer
from llverify.ttgir.partitions import first_warps, partition_of
from llverify.ttgir.rule_support import OpContext, memoised, unknown, enc_text, op_names
from llverify.ttgir.tmem_views import candidate_offsets, defining_ops, tile_of, view_offset

__all__ = ["tmem_access", "decided_lane_quarters"]

_PROP = "tmem_lane_quarter"

Offset = tuple[int, int]


def tmem_access(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    moved = tensor_and_buffer(op, TMEM_ACCESS_OPS)
    if moved is None:
        return
    reg, mem, _ = moved
    subject = f"{op_names(op)}: {enc_text(reg)} <-> {enc_text(mem)}"
    R, M = ctx.built(reg), ctx.built(mem)
    for b in (R, M):
        if isinstance(b, LayoutProblem):
            yield unknown(_PROP, subject, b.reason)
            return
    assert isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)
    if not M.layout.has_in_dim("row"):
        yield unknown(_PROP, subject, "the memdesc is not a tensor-memory layout")
        return
    starts = _first_warps(ctx)
    if isinstance(starts, str):
        yield unknown(_PROP, subject, starts)
        return
    offsets = _offsets(ctx, mem)
    if isinstance(offsets, str):
        yield unknown(_PROP, subject, offsets)
        return
    tiles = _cta_tiles(mem, M) if R.layout.has_in_dim("block") and R.layout.in_dim_size("block") > 1 else None
    yield decided_lane_quarters(R.layout, M.layout, tuple(starts), offsets, tiles).with_(subject=subject)


def _cta_tiles(mem, M: BuiltLayout) -> tuple[tuple[int, ...], ...] | None:
    """The TMEM's CTA tile origins' bases in elements (its ``CGALayout`` bases times the per-CTA shape), None
    when the encoding states no CGA layout."""
    enc = mem.encoding if isinstance(mem.encoding, dict) else {}
    cga = enc.get("cga_layout")
    if not isinstance(cga, list):
        return None
    per_cta = [M.layout.out_dim_size(d) for d in M.layout.out_dim_names]
    return tuple(tuple(int(c) * p for c, p in zip(b, per_cta)) for b in cga)


def _offsets(ctx: OpContext, mem) -> tuple[Offset, ...] | None | str:
    """None for an access to a whole allocation tile; else the view's possible tile offsets (one when its
    def chain is read), or why they are not known."""
    view, alloc = tile_of(mem)
    if view == alloc or ctx.op.name == "ttng.tmem_alloc":
        return None
    k = next((i for i, t in enumerate(ctx.op.operand_types) if t is mem), None)
    if k is None or k >= len(ctx.op.operands):
        return "the accessed view is not an operand of the op"
    key = "#tmem_defs:" + ctx.function.name + f"#{id(ctx.function)}"
    defs = ctx.value_sets.get(key)
    if defs is None:
        defs = ctx.value_sets[key] = defining_ops(ctx.function)
    known = view_offset(defs, ctx.op.operands[k], mem)
    if not isinstance(known, str):
        return (known,)
    every = candidate_offsets(view, alloc)
    if isinstance(every, str):
        return f"{known}; {every}"
    return tuple(every)


def _first_warps(ctx: OpContext) -> list[int] | str:
    """The CTA warps the op's first warp may be (:mod:`llverify.ttgir.partitions`): ``[0]`` outside worker
    partitions; one per distinct warp quarter offset (the lane quarter depends on the warp mod 4)."""
    if not ctx.in_partition:
        return [0]
    where = partition_of(ctx.function, ctx.op)
    if where is None:
        return "inside a warp_specialize partition that was not found again in the module"
    ws, i = where
    if not ctx.module.states_num_warps and not ws.attributes.get("warpGroupStartIds"):
        # the worker partitions start after the default partition's warps, which the module does not state
        return "the module states no ttg.num-warps, so where its warp_specialize partitions start is not known"
    starts = first_warps(ctx.module, ws)
    if i >= len(starts) or not starts[i]:
        return f"partition {i}: its warp count is not stated (partitionNumWarps)"
    by_offset: dict[int, int] = {}
    for s in sorted(starts[i]):
        by_offset.setdefault(s % 4, s)
    return sorted(by_offset.values())


def _at(M: LinearLayout, offset: Offset | None) -> dict[str, int] | None:
    return None if offset is None else dict(zip(M.out_dim_names, offset))


@memoised()
def decided_lane_quarters(R: LinearLayout, M: LinearLayout, starts: tuple[int, ...],
                          offsets: tuple[Offset, ...] | None = None,
                          cta_tiles: tuple[tuple[int, ...], ...] | None = None) -> Verdict:
    """The lane-quarter claim for every possible first warp and (for a view) every possible offset of the view
    in its allocation ``M``: proved when it holds in each case, refuted when it fails in each, otherwise unknown.
    Once per argument tuple; the caller gives it its subject."""
    subject = "tmem access"
    places: Sequence[Offset | None] = offsets if offsets is not None else (None,)
    cases = [(s, o) for o in places for s in starts]
    vs = [tmem_lane_quarters(R, M, subject=subject, first_warp=s, offset=_at(M, o), cta_tiles=cta_tiles)
          for s, o in cases]
    seconds = sum(v.seconds for v in vs)
    statuses = {v.status for v in vs}
    if len(vs) == 1:
        return vs[0]
    extra = {**({"possible first warps": list(starts)} if len(starts) > 1 else {}),
             **({"possible view offsets": len(places)} if len(places) > 1 else {})}
    if len(statuses) == 1:
        v = next(v for v in vs if v.status == vs[0].status)
        return v.with_(details={**v.details, **extra}, seconds=seconds)
    if len(places) == 1:
        return Verdict("unknown", _PROP, subject, None, seconds,
                       "the partition's first CTA warp is one of " + ", ".join(map(str, starts)) + " (AllocateWarpGroups "
                       "leaves partitions of equal size unordered) and the claim holds for "
                       + ", ".join(str(s) for s, v in zip(starts, vs) if v.status == "proved") + " only")
    held = [o for (s, o), v in zip(cases, vs) if v.status == "proved"]
    failed = [o for (s, o), v in zip(cases, vs) if v.status == "refuted"]
    return Verdict("unknown", _PROP, subject, None, seconds,
                   f"the view's offset in its allocation is not known ({len(places)} possible) and the claim holds at "
                   f"{len(held)} of the cases (first {held[0] if held else None}), fails at {len(failed)} "
                   f"(first {failed[0] if failed else None})", details=extra)
