"""Rules on memory: shared-access bank wavefronts (padding included), TMA copies in the descriptor's
layout, buffer indices and subslices inside their allocation (TMEM lane quarters: :mod:`llverify.ttgir.rules_tmem`)."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any, Iterable, Mapping

from llverify.codegen.bank_model import NVIDIA, BankModel, bank_model_for_target
from llverify.codegen.lds_transpose import UNKNOWN_K, transposed_read_reason
from llverify.codegen.ldst_select import local_access_instruction
from llverify.errors import LlverifyError
from llverify.hw.padded import Padding
from llverify.layout import LinearLayout
from llverify.prove.plan_ldmatrix import prove_matrix_bank_count
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits, legacy_operand_order
from llverify.ttgir.model import Op
from llverify.ttgir.rules_cta import crosses_ctas
from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, tensor_and_buffer
from llverify.ttgir.rules_tma_gather import TMA_GATHER_SCATTER, tma_gather_scatter
from llverify.ttgir.tmem_views import subslice_step
from llverify.ttgir.rule_support import (OpContext, memo_equal, memoised, bank_count_exact, bank_count_simulated, unknown,
                                         structural, enc_text, op_names, int_array)

__all__ = ["TMA_COPIES", "tma_buffer", "shared_access", "memdesc_index", "memdesc_subview", "subslice"]


TMA_COPIES = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
               "ttng.async_tma_reduce", *TMA_GATHER_SCATTER)


def tma_buffer(ctx: OpContext) -> Iterable[Verdict]:
    """A TMA copy moves a box of the descriptor's block shape in the descriptor's shared layout: the shared
    buffer (the first memdesc operand; a barrier follows it) must have that shape, element type and layout."""
    op = ctx.op
    if op.name in TMA_GATHER_SCATTER:
        yield from tma_gather_scatter(ctx)  # a box of one row per index (llverify.ttgir.rules_tma_gather)
        return
    t0 = time.perf_counter()
    desc = op.operand_types[0] if op.operand_types else None
    buf = next((t for t in op.operand_types[1:] if t is not None and t.kind == "memdesc"), None)
    if desc is None or desc.kind != "tensordesc" or buf is None or desc.encoding is None:
        return  # a descriptor without a shared encoding (before lowering): nothing to compare
    subject = f"{op.name}: buffer {enc_text(buf)} vs descriptor {enc_text(desc)}"
    view = tuple(buf.shape[len(buf.shape) - len(desc.shape):])
    # Triton compares the descriptor's signless block type: `!tt.tensordesc<64x64xsi8>` moves i8 data
    desc = replace(desc, element=_signless(desc.element))
    if view != tuple(desc.shape) and buf.element == desc.element and \
            _drop_leading_ones(buf.shape) == _drop_leading_ones(desc.shape):
        # a rank-reducing copy (Triton's verifier: equal element counts; `1x256x128` block into a `256x128`
        # buffer): the same box, its unit dims dropped
        if (buf.encoding_text or "") == (desc.encoding_text or ""):
            yield structural("tma_buffer", subject, True, {}, {"encoding": desc.encoding_text,
                                                                 "rank-reducing": True}, "", t0)
        else:
            yield unknown("tma_buffer", subject, "rank-reducing TMA copy with a differently written shared layout: "
                                                  "the layouts of different ranks are not compared")
        return
    if view != tuple(desc.shape) or buf.element != desc.element:
        yield structural("tma_buffer", subject, False, {"operand": 1},
                          {"buffer": f"{list(view)} x {buf.element}",
                           "descriptor block": f"{list(desc.shape)} x {desc.element}"},
                          "the buffer's shape or element type is not the descriptor's block", t0)
        return
    if (buf.encoding_text or "") == (desc.encoding_text or ""):
        yield structural("tma_buffer", subject, True, {}, {"encoding": desc.encoding_text}, "", t0)
        return
    d_built = ctx.built(replace(desc, kind="memdesc"))  # the descriptor's block as a shared buffer
    b_built = ctx.built(buf)
    for b in (d_built, b_built):
        if isinstance(b, LayoutProblem):
            yield unknown("tma_buffer", subject, b.reason)
            return
    assert isinstance(d_built, BuiltLayout) and isinstance(b_built, BuiltLayout)
    yield memo_equal(d_built.layout, b_built.layout).with_(property="tma_buffer", subject=subject)


def _signless(element: str) -> str:
    return re.sub(r"^[su](i\d+)$", r"\1", element)


def _drop_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    i = 0
    while i < len(shape) - 1 and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def _dot_k_dim(reg) -> int | None:
    """The K dim of a dot-operand tensor type, None for another layout, ``UNKNOWN_K`` when it cannot be told."""
    enc = reg.encoding
    if not isinstance(enc, dict):
        return UNKNOWN_K
    if enc.get("kind") != "dot_operand":
        return None
    rank, idx = len(reg.shape), enc.get("operand_index")
    return {0: rank - 1, 1: rank - 2}.get(idx, UNKNOWN_K) if isinstance(idx, int) else UNKNOWN_K


def shared_access(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    moved = tensor_and_buffer(op, SHARED_ACCESS_OPS)
    if moved is None:
        return
    reg, mem, direction = moved
    subject = f"{op_names(op)} ({direction}): {enc_text(reg)} <-> {enc_text(mem)}"
    try:
        model = bank_model_for_target(ctx.module.target)
    except LlverifyError as exc:
        yield unknown("bank_conflicts", subject, str(exc))
        return
    R, M = ctx.built(reg), ctx.built(mem)
    for b in (R, M):
        if isinstance(b, LayoutProblem):
            yield unknown("bank_conflicts", subject, b.reason)
            return
    assert isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)
    access = R.layout
    subview = tuple(reg.shape) != tuple(M.shape)
    if subview:
        access_or_reason = subview_access(R.layout, tuple(reg.shape), M)
        if isinstance(access_or_reason, str):
            yield unknown("bank_conflicts", subject, access_or_reason)
            return
        access = access_or_reason
    bits = element_bits(reg.element)
    if bits not in (8, 16, 32, 64):
        yield unknown("bank_conflicts", subject, f"element width {bits} bits not modelled")
        return
    legacy = legacy_operand_order(ctx.module.legacy_dialect, reg.encoding, bits)
    if legacy is not None:
        yield unknown("bank_conflicts", subject, legacy)
        return
    if not subview and crosses_ctas(R.layout, M.layout, direction):
        partial = direction == "store" and not M.layout.is_injective()  # Triton writes only the CTA's own copy
        yield unknown("bank_conflicts", subject, "the store writes only part of each CTA's copy of a buffer the CTAs "
                                                  "keep whole (see cta_local): its wavefronts are not modelled"
                      if partial else "the access reaches other CTAs' shared memory (see cta_local): its wavefronts "
                                      "are not those of a CTA-local access")
        return
    if "lane" not in R.layout.in_dim_names:
        yield unknown("bank_conflicts", subject, "the register side is typed with a memory layout (invalid IR: the "
                                                  "layout rule refutes it): no lanes to count")
        return
    if R.layout.in_dim_size("lane") != model.lanes:
        yield unknown("bank_conflicts", subject, f"the access has {R.layout.in_dim_size('lane')} lanes, the "
                                                  f"{model.name} bank model {model.lanes}")
        return
    v = decided_shared_access(access, M.layout, M.padding, bits, direction, ctx.module.target, model,
                              _dot_k_dim(reg) if direction == "load" else None, subview).with_(subject=subject)
    yield v
    pair = v.details.get("misaligned") if v.status == "unknown" else None
    if pair is not None and model == NVIDIA:
        yield misaligned_vectors(pair, subject, v.details.get("direction", direction))


def misaligned_vectors(pair: Mapping[str, Any], subject: str, direction: str) -> Verdict:
    """``vector_alignment`` refuted: two vectors of one access (``pair``, replayed by the simulator,
    :class:`~llverify.codegen.bank_sim.MisalignedVectors`) start at bytes that differ mod the vector's size, so
    whatever the buffer's base one of them is misaligned: on NVIDIA a ``ld/st.shared.v2/v4`` at such an address
    faults ("misaligned address"; an H200 ran Triton 3.9's cubin of such a padded store:
    examples/padded_misaligned/).  Only a padded layout does this (a linear one keeps every vector's start a
    multiple of its size)."""
    align, first, second = pair["align"], pair["first"], pair["second"]
    where = {k: second[k] for k in second if k not in ("byte", "element")}
    return Verdict("refuted", "vector_alignment", subject, "exhaustive", 0.0,
                   f"Triton 3.9 {'stores' if direction == 'store' else 'loads'} {align}-byte vectors here, and two "
                   f"start {(second['byte'] - first['byte']) % align} bytes apart mod {align} (bytes {first['byte']} "
                   f"and {second['byte']} of the buffer): one of them is misaligned whatever the buffer's base, a "
                   f"misaligned-address fault",
                   Counterexample(where, {"this vector's first byte": second["byte"],
                                          "its first element": second["element"],
                                          "another vector's first byte": first["byte"],
                                          "that vector's input": {k: first[k] for k in first
                                                                  if k not in ("byte", "element")},
                                          "vector bytes": align},
                                  "both vectors replayed by evaluating the layouts and the padding"),
                   details={"vector_bytes": align, "direction": direction})


def subview_access(access: LinearLayout, view: tuple[int, ...], buffer: BuiltLayout) -> LinearLayout | str:
    """The access to a subview (``memdesc_subslice``: a ``view``-shaped window of an allocation whose layout
    ``buffer`` is built on the allocation's shape) as an access of the whole buffer: the same bases, the out dims
    grown to the allocation's sizes (coordinates inside the window at offset 0).  A string says why not.

    Why the window at offset 0 has the same wavefronts as the window at Triton's offset ``o``: Triton 3.9 lowers
    an access at coordinate ``x`` of the view to the offset ``S^-1(x) XOR S^-1(o)`` (its verifier makes ``o`` a
    multiple of the view and ``S^-1(o)`` a power of two, so the XOR touches no offset bit the access uses).
    XOR-ing every offset with one constant keeps two elements in the same 4-byte word exactly when they were,
    and in the same bank exactly when they were (bank and word are bit fields of the byte address), so every
    phase's largest number of distinct words per bank is unchanged; and a vector's aligned block maps onto
    another aligned block; an ldmatrix/stmatrix row (16 bytes the access covers wholly) onto another row.  Triton
    picks the instruction from ``S^-1 L`` of the grown access, as here: the mma v2 pipelined matmul of the corpus
    (sm_80, k-slices of its operand buffers) lowers its six window loads to 6 ``ldmatrix.x4`` and 6
    ``ldmatrix.x4.trans``, the counts this access gives (``tests/test_ttgir_subview_access.py``).  Requires: the
    view has the buffer's rank and fits in it; no padding (padding adds to the offset, which is not a bit field).

    Example: a ``64x16`` view of a ``64x64`` swizzled f16 buffer: the register layout's ``dim1`` (size 16)
    grows to 64; the offsets are ``S^-1`` of the first 16 columns."""
    if buffer.padding is not None:
        return (f"access of shape {list(view)} into a padded buffer of shape {list(buffer.shape)} (a subview): the "
                "padding depends on the window's offset, not modelled")
    if len(view) != len(buffer.shape) or any(v > b for v, b in zip(view, buffer.shape)):
        return f"access of shape {list(view)} into a buffer of shape {list(buffer.shape)}: not a window of it"
    outs = list(access.out_dim_names)
    if set(outs) != set(buffer.layout.out_dim_names):
        return f"access dims {outs} are not the buffer's {list(buffer.layout.out_dim_names)}"
    return LinearLayout(access.bases, [(d, buffer.layout.out_dim_size(d)) for d in outs], require_surjective=False)


@memoised()
def decided_shared_access(R: LinearLayout, M: LinearLayout, padding: Padding | None, bits: int, direction: str,
                          target: str, model: BankModel, dot_k: int | None, subview: bool = False) -> Verdict:
    """The bank wavefronts of one access (``direction``) of the register layout ``R`` to the buffer ``M``
    (``padding``: a padded buffer's) on ``target`` with bank ``model``: the instruction Triton 3.9 picks on
    NVIDIA (ldmatrix / stmatrix where the tile divides, else vector ld/st.shared), counted exactly; every
    instruction simulated under the model's phase rules elsewhere or with padding; ``unknown`` for AMD's LDS
    transpose reads (``dot_k``: a dot operand's K dim, which selects them).  ``subview``: ``R`` is a window's
    access grown to the buffer (:func:`subview_access`; recorded in the details).  Once per argument tuple."""
    tr = transposed_read_reason(target, M, bits, dot_k) if direction == "load" else None
    if tr is not None:  # AMD's LDS transpose reads are not modelled
        return unknown("bank_conflicts", "shared access", tr)
    instruction, why = "vector", ""
    if padding is not None or model != NVIDIA:
        v = bank_count_simulated(R, M, bits, padding, model, direction)
    else:
        # Triton 3.9's NVIDIA lowering uses ldmatrix/stmatrix (plain or .trans) where the tile divides
        instruction, why = local_access_instruction(R, M, bits, direction, target)
        if instruction == "vector":
            v = bank_count_exact(R, M, bits)
        else:
            v = prove_matrix_bank_count(R, M, bits, instruction, subject="shared access")
    return v.with_(details={**v.details, "instruction": instruction, **({"vector_because": why} if why else {}),
                            "direction": direction, "bank_model": model.name, **({"subview": True} if subview else {})})


def memdesc_index(ctx: OpContext) -> Iterable[Verdict]:
    """``ttg.memdesc_index %buf[%i]`` selects buffer ``%i`` of a multi-buffered allocation: every value ``%i``
    can take (:class:`~llverify.ttgir.scalars.ValueSets`: constants, arithmetic, the orbit of a pipelined
    loop's counters) lies in ``[0, leading dim)``; a value outside is refuted with it, when the set is
    exact for a value known on entry; unknown when the set cannot be enumerated."""
    op = ctx.op
    t0 = time.perf_counter()
    src = op.operand_types[0] if op.operand_types else None
    if src is None or src.kind != "memdesc" or not src.shape or len(op.operands) < 2:
        return
    n = src.shape[0]
    index = op.operands[1]
    yield _index_below(ctx, index, n, f"{op_names(op)}[{index}] of {n} buffers", "buffer index", "buffers", t0)


def memdesc_subview(ctx: OpContext) -> Iterable[Verdict]:
    """Triton 3.4's ``ttg.memdesc_subview %buf[%o0, ..., %oN]`` (3.5+ split it into ``memdesc_index`` and
    ``memdesc_subslice``): one offset per allocation dim; a result of lower rank drops the leading dims
    (a buffer index).  Claim: for every value each offset can take, ``0 <= offset <= dim - view size``
    (a dropped dim has view size 1), evaluated as ``memdesc_index``'s index."""
    op = ctx.op
    t0 = time.perf_counter()
    src = op.operand_types[0] if op.operand_types else None
    res = op.results[0].type if op.results else None
    if src is None or res is None or src.kind != "memdesc" or not src.shape:
        return
    offsets = list(op.operands[1:])
    dropped = len(src.shape) - len(res.shape)
    if len(offsets) != len(src.shape) or dropped < 0:
        yield unknown("view_in_bounds", f"{op_names(op)}: {list(res.shape)} of {list(src.shape)}",
                      f"{len(offsets)} offsets for a rank-{len(src.shape)} allocation and a rank-{len(res.shape)} "
                      "view: not the form modelled")
        return
    view = [1] * dropped + list(res.shape)
    for d, (o, n, v) in enumerate(zip(offsets, src.shape, view)):
        subject = f"{op_names(op)} offset {d} = {o}: view {v} of {n}"
        yield _index_below(ctx, o, n - v + 1, subject, f"offset {d}", f"positions (dim {n}, view {v})", t0)


def _index_below(ctx: OpContext, index: str, n: int, subject: str, what: str, unit: str, t0: float) -> Verdict:
    """``0 <= index < n`` for every value ``index`` can take (see :func:`memdesc_index`)."""
    key = ctx.scalars().key_of(ctx.op, index)  # the definition visible from this op (sibling regions reuse names)
    values = ctx.scalars().value_set(key)
    if values is None:
        # not enumerable: prove the bound for every value of the unknowns (Z3), else no claim
        status = ctx.symbolic_scalars().always_between(key, 0, n)
        if status == "unsat":
            return Verdict("proved", "view_in_bounds", subject, "smt", time.perf_counter() - t0,
                           f"0 <= {index} < {n} for every value of the loop state and kernel arguments (Z3)")
        return unknown("view_in_bounds", subject, f"the values of {index} are not enumerable (a kernel argument, "
                                                  "a loop bound or state not constant, or too many) and Z3 "
                                                  "does not bound it for arbitrary inputs")
    bad = sorted(v for v in values if not 0 <= v < n)
    if bad and not list(ctx.scalars()._deps(key)):
        return structural("view_in_bounds", subject, False, {"index": bad[0]},
                          {unit.split(" ")[0]: n, "index": bad[0]}, f"{what} {bad[0]} is outside the {n} {unit}", t0)
    if bad:
        # a loop state reaches it, but only after some iterations: real once the loop runs long enough
        return unknown("view_in_bounds", subject, f"the loop state can make the {what} {bad[0]}, outside the {n} "
                                                  f"{unit}, once the loop runs long enough (reachable values "
                                                  f"{sorted(values)[:16]})")
    return structural("view_in_bounds", subject, True, {}, {unit.split(" ")[0]: n, "reachable index values": sorted(values)},
                      "", t0)


_PRINTED_OFFSETS = re.compile(r"memdesc_subslice\s+%[\w.$#-]+\s*\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\]")


def printed_offsets(op: Op) -> list[int] | None:
    """The static offsets of ``ttg.memdesc_subslice`` in Triton 3.9's custom form, printed right after the
    source operand: ``%1 = ttg.memdesc_subslice %0[0, 32] : ...`` (or ``%0 [0, 32]``) -> ``[0, 32]``.

    >>> from llverify.ttgir.model import Location
    >>> printed_offsets(Op("ttg.memdesc_subslice", (), ("%0",), (), {}, (), Location("m", 1, 1), None,
    ...                    "%1 = ttg.memdesc_subslice %0[0, 32] : !ttg.memdesc<...>"))
    [0, 32]
    """
    m = _PRINTED_OFFSETS.search(op.text)
    return None if m is None else [int(x) for x in m.group(1).split(",")]


def subslice(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    t0 = time.perf_counter()
    src = op.operand_types[0] if op.operand_types else None
    res = op.results[0].type if op.results else None
    if src is None or res is None:
        return
    if op.name == "ttng.tmem_subslice":
        # a window of tensor memory (llverify.ttgir.tmem_views.subslice_step): its first index along the
        # sliced dim
        dim, col = subslice_step(op, len(res.shape))
        offsets = None
        if col is not None and dim is not None and 0 <= dim < len(res.shape):
            offsets = [0] * len(res.shape)
            offsets[dim] = col
    else:
        offsets = int_array(op.attributes.get("offsets")) if "offsets" in op.attributes else printed_offsets(op)
    subject = f"{op_names(op)} offsets={offsets}: {list(res.shape)} inside {list(src.shape)}"
    if offsets is None:
        yield unknown("view_in_bounds", subject, "no readable 'offsets' attribute")
        return
    for d, (o, n, m) in enumerate(zip(offsets, res.shape[-len(offsets):], src.shape[-len(offsets):])):
        if o < 0 or o + n > m:
            yield structural("view_in_bounds", subject, False, {"dim": d},
                              {"offset": o, "view size": n, "allocation size": m},
                              "the view reaches past its allocation", t0)
            return
    yield structural("view_in_bounds", subject, True, {}, {"offsets": offsets, "view": list(res.shape),
                                                           "allocation": list(src.shape)}, "", t0)
