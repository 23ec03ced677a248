"""Where a tensor-memory view sits in its allocation: the offset a ``ttng.tmem_subslice`` chain gives it.

A TMEM memdesc type ``!ttg.memdesc<V0xV1xf32, #tmem, #ttng.tensor_memory, mutable, A0xA1>`` is a view of
shape ``(V0, V1)`` inside an allocation tile ``(A0, A1)`` (the trailing two dims; a leading dim counts
buffers).  Its layout (:func:`llverify.ttgir.layouts.layout_of`) is the allocation's; what the type does
not say is where the view starts.  ``ttng.tmem_subslice`` (:func:`subslice_step`: offset ``k`` along the sliced
dim) makes the view whose element ``(d0, d1)`` is its source's
element at ``(d0, d1)`` plus ``k`` along the sliced dim; ``ttg.memdesc_index`` picks a buffer and leaves the
tile offset alone.  So the offset of a view is the sum of the subslice offsets on its def chain, read back
until a memdesc whose tile is its whole allocation (offset 0: a view that covers the tile starts at 0).

Where the chain cannot be read (a block argument -- a loop-carried value, a partition capture -- or an op
this module does not model), the offset is not known: :func:`candidate_offsets` lists every offset at which
the view lies inside its tile, a superset of those Triton's ``TMEMSubSliceOp`` verifier admits (it requires
``0 <= offset`` and ``offset + size <= source size`` along the sliced dim, and more).  A claim that holds at
every candidate holds at the real offset; one that fails at every candidate fails there.

>>> from llverify.ttgir.reader import parse_module
>>> t = "!ttg.memdesc<128x{n}xf32, #tmem, #ttng.tensor_memory, mutable{a}>"
>>> m = parse_module(f'''#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
... module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"}} {{
...   tt.func @k() {{
...     %a = ttng.tmem_alloc : () -> {t.format(n=256, a="")}
...     %h = ttng.tmem_subslice %a {{offset = 128 : i32}} : {t.format(n=256, a="")} -> {t.format(n=128, a=", 128x256")}
...     %q = ttng.tmem_subslice %h {{offset = 64 : i32}} : {t.format(n=128, a=", 128x256")} -> {t.format(n=64, a=", 128x256")}
...     tt.return
...   }}
... }}''')
>>> fn = m.functions[0]
>>> defs = defining_ops(fn)
>>> q = fn.body.blocks[0].ops[2].results[0]
>>> view_offset(defs, q.name, q.type)
(0, 192)
"""

from __future__ import annotations

from itertools import product
from typing import Iterator

from llverify.ttgir.model import Function, Op, Region, TypeRef

__all__ = ["defining_ops", "subslice_step", "view_offset", "tile_of", "candidate_offsets", "MAX_CANDIDATES"]

#: at most this many candidate offsets are enumerated for a view whose offset is not known
MAX_CANDIDATES = 1024

_AMBIGUOUS = object()


def tile_of(t: TypeRef) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(view tile, allocation tile): the trailing two dims of the type's shape and of its allocation shape."""
    alloc = tuple(t.alloc_shape or t.shape)
    return tuple(t.shape[-2:]), alloc[-2:]


def _ops(region: Region) -> Iterator[Op]:
    stack = [region]
    while stack:
        reg = stack.pop()
        for block in reg.blocks:
            yield from block.ops
            for op in block.ops:
                stack.extend(op.regions)


def defining_ops(fn: Function) -> dict[str, object]:
    """Every SSA name of ``fn`` -> its defining op, or a marker for a name that is an argument (of the function
    or of a block) or is defined twice (isolated regions, such as ``warp_specialize`` partitions, may reuse
    names).  Callers keep it per function."""
    out: dict[str, object] = {a.name: _AMBIGUOUS for a in fn.arguments}
    for op in _ops(fn.body):
        for r in op.results:
            out[r.name] = _AMBIGUOUS if r.name in out else op
        for reg in op.regions:
            for block in reg.blocks:
                for a in block.arguments:
                    out[a.name] = _AMBIGUOUS
    return out


def subslice_step(op: Op, rank: int) -> tuple[int | None, int | None]:
    """``(sliced dim, offset)`` of a ``ttng.tmem_subslice`` on a memdesc of ``rank`` dims (None where not
    readable).  Triton 3.9 prints ``{offset = k}`` and ``dim`` only when it is not its default 1 (the N dim of a
    2-D tile; ``{dim = 0 : i32, offset = 2 : i32}`` slices the buffers of a ``4x128x128`` allocation, ``dim = 2``
    its columns); other versions print ``{N = k}``, always the last dim."""
    if "offset" in op.attributes:
        dim = op.attr_int("dim") if "dim" in op.attributes else 1
        return (dim if dim is not None and 0 <= dim < rank else None), op.attr_int("offset")
    return rank - 1, op.attr_int("N")


def _subslice_step(op: Op) -> tuple[int, int] | str:
    """(tile dim 0 or 1, offset) of one ``ttng.tmem_subslice``, or why it cannot be read; a negative tile dim
    is a leading (buffer) dim, which moves no tile element."""
    src = op.operand_types[0] if op.operand_types else None
    if src is None:
        return f"{op.name}: its source type is not readable"
    rank = len(src.shape)
    dim, off = subslice_step(op, rank)
    if dim is None or off is None:
        return f"{op.name}: its offset or sliced dim is not readable"
    return dim - (rank - 2), off


def view_offset(defs: dict[str, object], name: str, t: TypeRef, depth: int = 64) -> tuple[int, int] | str:
    """The tile offset ``(o0, o1)`` of the TMEM view ``name`` of type ``t`` in its allocation (module
    docstring), or the reason it is not known.  ``defs``: :func:`defining_ops` of the function holding it."""
    off = [0, 0]
    cur = name
    for _ in range(depth):
        view, alloc = tile_of(t)
        if view == alloc:
            return off[0], off[1]
        d = defs.get(cur)
        if not isinstance(d, Op):
            return (f"the view {cur} is an argument (a loop-carried value, a partition capture) or a name "
                    "defined twice: its offset in the allocation is not read through it")
        if d.name == "ttng.tmem_subslice":
            step = _subslice_step(d)
            if isinstance(step, str):
                return step
            if step[0] >= 0:
                off[step[0]] += step[1]
        elif d.name != "ttg.memdesc_index":
            return f"the view comes from {d.name} ({cur}): how it places the view is not modelled"
        src = d.operand_types[0] if d.operand_types else None
        if not d.operands or src is None or src.kind != "memdesc":
            return f"{d.name} ({cur}): its source memdesc is not readable"
        cur, t = d.operands[0], src
    return f"more than {depth} views between {name} and its allocation"


def candidate_offsets(view: tuple[int, ...], alloc: tuple[int, ...]) -> list[tuple[int, int]] | str:
    """Every tile offset at which a ``view`` tile lies inside an ``alloc`` tile (module docstring), or why they
    are not enumerated (more than :data:`MAX_CANDIDATES`)."""
    spans = [range(0, a - v + 1) for v, a in zip(view, alloc)]
    count = len(spans[0]) * len(spans[1])
    if count == 0:
        return f"the view {list(view)} does not fit in its allocation {list(alloc)}"
    if count > MAX_CANDIDATES:
        return f"{count} possible offsets of a {list(view)} view in {list(alloc)} (more than {MAX_CANDIDATES})"
    return [(a, b) for a, b in product(*spans)]
