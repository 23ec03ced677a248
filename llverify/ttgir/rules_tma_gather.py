"""TMA gather and scatter (``ttng.async_tma_gather`` / ``ttng.async_tma_scatter``, Blackwell ``tile::gather4``):
the box footprint and the shared buffer's layout.

A gather copies, for each of the ``M`` row indices ``x[i]``, the ``N`` elements ``(x[i], y .. y + N - 1)`` of
global memory into row ``i`` of a shared buffer of ``M x N`` (a scatter the reverse), through a descriptor
whose block is a single row ``[1, N]``.  The hardware writes (reads) the rows in four-row boxes placed by the
descriptor's swizzle, which depends on the shared address, so the buffer must be laid out by the
descriptor's shared layout at the buffer's own shape.  Obligations:

* ``tma_box`` (exact comparison): the descriptor's block is ``[1, N]``; the indices are one vector of ``M``;
  the buffer's view is ``M x N`` of the block's element type (signless, as Triton compares it); a row is at
  least 32 bytes (``N * bits >= 256``, what ``gather4`` moves per row and Triton's verifier requires);
* ``tma_buffer`` (F2): the buffer's layout equals the descriptor's shared layout built at ``M x N``.

Example: ``!tt.tensordesc<1x128xbf16, #shared>`` with ``tensor<32xi32>`` indices and a
``!ttg.memdesc<32x128xbf16, #shared>`` buffer: box ``32 x 128`` proved; a buffer
``!ttg.memdesc<32x64xbf16, ...>`` is refuted (64 columns, not the block's 128).
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Iterable

from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, memo_equal, structural, unknown

__all__ = ["TMA_GATHER_SCATTER", "tma_gather_scatter"]

TMA_GATHER_SCATTER = ("ttng.async_tma_gather", "ttng.async_tma_scatter")


def _signless(element: str) -> str:
    return re.sub(r"^[su](i\d+)$", r"\1", element)


def _buffer(types: tuple[TypeRef | None, ...], element: str) -> TypeRef | None:
    """The shared buffer among the memdesc operands (a gather's barrier is one too): the one with the
    block's element type and rank 2 or more, else the operand at its printed position (3)."""
    mems = [t for t in types if t is not None and t.kind == "memdesc"]
    fits = [t for t in mems if len(t.shape) >= 2 and _signless(t.element) == element]
    if len(fits) == 1:
        return fits[0]
    t = types[3] if len(types) > 3 else None
    return t if t is not None and t.kind == "memdesc" else None


def tma_gather_scatter(ctx: OpContext) -> Iterable[Verdict]:
    """``tma_box`` and ``tma_buffer`` of one gather or scatter (module docstring)."""
    op = ctx.op
    t0 = time.perf_counter()
    types = tuple(op.operand_types)
    desc = types[0] if types else None
    idx = types[1] if len(types) > 1 else None
    if desc is None or desc.kind != "tensordesc":
        yield unknown("tma_box", op.name, "the descriptor's type is not read")
        return
    element = _signless(desc.element)
    buf = _buffer(types, element)
    if buf is None or idx is None or idx.kind != "tensor":
        yield unknown("tma_box", op.name, "the index vector or the shared buffer is not read")
        return
    subject = f"{op.name}: {len(idx.shape) and idx.shape[0]} rows of {desc.text} into {buf.text}"
    view = tuple(buf.shape[-2:]) if len(buf.shape) >= 2 else tuple(buf.shape)
    bits = element_bits(element)
    sides = {"descriptor block": list(desc.shape), "indices": list(idx.shape), "buffer": list(view),
             "element (descriptor, buffer)": [element, _signless(buf.element)]}
    problems = []
    if len(desc.shape) != 2 or desc.shape[0] != 1:
        problems.append("the descriptor's block is not one row [1, N]")
    if len(idx.shape) != 1:
        problems.append("the indices are not one vector")
    if len(view) != 2 or (len(idx.shape) == 1 and view[0] != idx.shape[0]):
        problems.append("the buffer does not have one row per index")
    if len(desc.shape) == 2 and len(view) == 2 and view[1] != desc.shape[1]:
        problems.append("the buffer's columns are not the block's")
    if _signless(buf.element) != element:
        problems.append("the buffer's element type is not the block's")
    if bits and len(desc.shape) == 2 and desc.shape[1] * bits < 256:
        problems.append(f"a row of {desc.shape[1]} x {bits} bits is under the 32 bytes gather4 moves")
    if not bits:
        yield unknown("tma_box", subject, f"element type {element!r} has no known width")
        return
    yield structural("tma_box", subject, not problems, {"operand": types.index(buf)}, sides,
                     "; ".join(problems), t0)
    if problems:
        return
    if desc.encoding is None:
        return  # a descriptor without a shared encoding (before the descriptor-encoding pass): nothing to compare
    layout_subject = f"{op.name}: buffer {enc_text(buf)} vs descriptor {enc_text(desc)} at {view[0]}x{view[1]}"
    if (buf.encoding_text or "") == (desc.encoding_text or "") and buf.encoding_text:
        yield structural("tma_buffer", layout_subject, True, {}, {"encoding": desc.encoding_text}, "", t0)
        return
    d_built = ctx.built(replace(desc, kind="memdesc", shape=view, element=element))  # the descriptor at M x N
    b_built = ctx.built(replace(buf, shape=view, alloc_shape=None))
    for b in (d_built, b_built):
        if isinstance(b, LayoutProblem):
            yield unknown("tma_buffer", layout_subject, b.reason)
            return
    assert isinstance(d_built, BuiltLayout) and isinstance(b_built, BuiltLayout)
    yield memo_equal(d_built.layout, b_built.layout).with_(property="tma_buffer", subject=layout_subject)
