"""Row gathers and scatters through a tensor descriptor (``tt.descriptor_gather`` / ``tt.descriptor_scatter``):
the gathered box and the shared buffer it is staged in.

``%r = tt.descriptor_gather %desc[%x, %y]`` reads, for each of the ``M`` row indices ``x[i]``, the ``N`` elements
``(x[i], y .. y + N - 1)`` of the descriptor's tensor into row ``i`` of ``r: tensor<M x N>``; a scatter writes
``v: tensor<M x N>`` back the same way.  Neither moves data between threads in registers: Triton lowers both
through shared memory (NVIDIA: ``ttng.async_tma_gather`` / ``async_tma_scatter``, Blackwell ``tile::gather4``;
AMD gfx1250: ``amdg.async_tdm_gather`` / ``_scatter``) into or out of a buffer of ``M x N`` laid out by the
descriptor's shared encoding, then a ``local_load`` (a ``local_alloc``) converts to (from) the value's layout,
which may be any distributed layout (the ``layout`` rule checks it).  So the result layout differing from the
indices' is by design, and the obligations are about the box and the staging buffer:

* ``gather_shape`` (exact comparison; Triton's ``DescriptorGatherOp`` verifier and the TMA minimums it states):
  the descriptor's block is one row ``[1, N]``; the indices are one vector of ``M``; the value is ``M x N`` of
  the block's element type (signless); ``M >= 8``; elements are at most 32 bits; a row is at least 32 bytes
  (``N * bits >= 256``).
* ``gather_staging`` (F2, checked certificate): the descriptor's shared layout built at ``M x N`` (the buffer
  the lowering allocates) is a memory layout (def. 4.14): every element of the box has exactly one offset, so
  the copy and the ``local_load`` / ``local_alloc`` agree on where each element lives.  A ``#ttg.padded_shared``
  descriptor encoding is printed for the block (``shape = [1, N]``); AMD's lowering re-makes it at the box's
  shape for the buffer, and so does this check (only for an order-given linear component; explicit bases stay
  ``unknown``).  Skipped when the descriptor has no encoding yet (before Triton's descriptor-encoding pass).

Example: ``(!tt.tensordesc<1x128xbf16, #nvmma_shared<{swizzlingByteWidth = 128, ...}>>, tensor<32xi32, #b>, i32)
-> tensor<32x128xbf16, #blocked>``: box proved, the 128-byte swizzle at 32x128 is a bijection: proved; a result
``tensor<32x64xbf16, ...>`` is refuted (64 columns, not the block's 128).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Iterable, Mapping

from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, memo_memory, op_names, structural, unknown
from llverify.ttgir.rules_tma_gather import _signless
from llverify.ttgir.types import parse_typeref

__all__ = ["DESCRIPTOR_GATHER_OPS", "descriptor_gather"]

DESCRIPTOR_GATHER_OPS = ("tt.descriptor_gather", "tt.descriptor_scatter")


def box_problems(block: tuple[int, ...], indices: tuple[int, ...], value: tuple[int, ...], block_elem: str,
                 value_elem: str) -> list[str]:
    """What breaks the gather box contract (module docstring, ``gather_shape``); empty when it holds.

    >>> box_problems((1, 128), (32,), (32, 128), "bf16", "bf16")
    []
    >>> box_problems((1, 128), (32,), (32, 64), "bf16", "bf16")
    ["the value's columns (64) are not the block's (128)"]
    """
    problems = []
    bits = element_bits(block_elem)
    if len(block) != 2 or block[0] != 1:
        problems.append(f"the descriptor's block {list(block)} is not one row [1, N]")
    if len(indices) != 1:
        problems.append(f"the indices {list(indices)} are not one vector")
    if len(value) != 2:
        problems.append(f"the value {list(value)} is not 2-D")
    else:
        if len(indices) == 1 and value[0] != indices[0]:
            problems.append(f"the value's rows ({value[0]}) are not one per index ({indices[0]})")
        if len(block) == 2 and value[1] != block[1]:
            problems.append(f"the value's columns ({value[1]}) are not the block's ({block[1]})")
        if value[0] < 8:
            problems.append(f"{value[0]} rows: a gather needs at least 8")
    if _signless(value_elem) != _signless(block_elem):
        problems.append(f"the value's element type {value_elem} is not the block's {block_elem}")
    if bits > 32:
        problems.append(f"{bits}-bit elements: at most 32 bits")
    elif bits and len(block) == 2 and block[1] * bits < 256:
        problems.append(f"a row of {block[1]} x {bits} bits is under 32 bytes")
    return problems


def _types(defined: tuple[TypeRef | None, ...], printed: tuple[TypeRef | None, ...]
           ) -> tuple[TypeRef | None, ...]:
    """Each operand's type from its definition, or from the op's own signature where the definition's type was
    not read (Triton 3.9 prints ``tt.make_tensor_descriptor``'s result type without ``!tt.tensordesc``; the
    ``use_type`` rule compares the two where both are read)."""
    def pick(i: int) -> TypeRef | None:
        d = defined[i] if i < len(defined) else None
        p = printed[i] if i < len(printed) else None
        return p if (d is None or d.kind in ("other", "")) and p is not None else d
    return tuple(pick(i) for i in range(max(len(defined), len(printed))))


def printed_descriptor(op_text: str, aliases: Mapping[str, Any]) -> TypeRef | None:
    """The first ``!tt.tensordesc<...>`` of an op's printed signature (after ``" : "``), or None.

    >>> printed_descriptor("tt.descriptor_scatter %d[%x, %y], %v : !tt.tensordesc<1x64xf16>, tensor<8xi32>", {}).shape
    (1, 64)
    """
    sig = op_text.split(" : ", 1)[1] if " : " in op_text else ""
    start = sig.find("!tt.tensordesc<")
    if start < 0:
        return None
    depth = 0
    for i in range(start + len("!tt.tensordesc"), len(sig)):
        depth += {"<": 1, ">": -1}.get(sig[i], 0)
        if depth == 0:
            return parse_typeref(sig[start:i + 1], aliases)
    return None


def descriptor_gather(ctx: OpContext) -> Iterable[Verdict]:
    """``gather_shape`` and ``gather_staging`` of one ``tt.descriptor_gather`` / ``tt.descriptor_scatter``."""
    op = ctx.op
    t0 = time.perf_counter()
    types = _types(op.operand_types, op.printed_operand_types)
    desc = types[0] if types else None
    if desc is None or desc.kind != "tensordesc":  # a definition printed without `!tt.tensordesc` (Triton 3.9's
        desc = printed_descriptor(op.text, ctx.module.aliases) or desc  # make_tensor_descriptor): the op's own
    idx = types[1] if len(types) > 1 else None
    value: TypeRef | None
    if op.name == "tt.descriptor_gather":
        value = op.results[0].type if op.results else None
    else:
        value = types[3] if len(types) > 3 else None
    subject = f"{op_names(op)}: {desc.text if desc else '?'} rows {idx.text if idx else '?'} " \
              f"{'->' if op.name == 'tt.descriptor_gather' else '<-'} {value.text if value else '?'}"
    if desc is None or desc.kind != "tensordesc" or idx is None or idx.kind != "tensor" or value is None \
            or value.kind != "tensor":
        yield unknown("gather_shape", subject, "the descriptor, index or value type is not read")
        return
    bits = element_bits(desc.element)
    if not bits:
        yield unknown("gather_shape", subject, f"element type {desc.element!r} has no known width")
        return
    problems = box_problems(tuple(desc.shape), tuple(idx.shape), tuple(value.shape), desc.element, value.element)
    sides = {"descriptor block": list(desc.shape), "indices": list(idx.shape), "value": list(value.shape),
             "element (descriptor, value)": [desc.element, value.element]}
    yield structural("gather_shape", subject, not problems, {}, sides, "; ".join(problems), t0)
    if problems or desc.encoding is None:
        return  # no box to stage, or no shared encoding yet (before the descriptor-encoding pass)
    box = tuple(value.shape)
    staging = f"{op.name}: staging buffer {enc_text(desc)} at {box[0]}x{box[1]}"
    staged = replace(desc, kind="memdesc", shape=box, element=_signless(desc.element))
    spec = dict(desc.encoding)
    if spec.get("kind") == "padded_shared" and spec.get("shape") not in (None, list(box)) and \
            set(spec) <= {"kind", "order", "shape", "interval_padding_pairs"}:
        # AMD's TDM lowering allocates the box with the descriptor's padded encoding re-made at the box's shape
        # (Triton 3.9, gfx1250: `shape = [1, 128]` on the descriptor, `shape = [32, 128]` on the buffer); only an
        # order-given linear component (no explicit bases) is re-made that way
        staged = replace(staged, encoding=dict(spec, shape=list(box)))
        staging += f" (padded encoding re-made at shape {list(box)}, as AMD's TDM lowering allocates it)"
    built = ctx.built(staged)
    if isinstance(built, LayoutProblem):
        yield unknown("gather_staging", staging, built.reason)
        return
    assert isinstance(built, BuiltLayout)
    yield memo_memory(built.layout).with_(property="gather_staging", subject=staging)
