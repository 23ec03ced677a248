"""The rule on ``ttg.async_copy_global_to_local``: the pointer tensor and the buffer agree in shape and element
type, mask and ``other`` have the pointers' layout, and (NVIDIA) the cp.async widths Triton 3.9 may use; the
copy's bank wavefronts are not claimed (LDGSTS, measured: ``tests/test_cp_async_ncu.py``)."""

from __future__ import annotations

import re
import time
from typing import Iterable

from llverify.codegen.banks import access_to_offsets, bank_wavefronts
from llverify.codegen.cp_async import cp_async_widths, layout_bound, narrowest_width, vector_blocker
from llverify.codegen.vectorize import largest_vectorisation
from llverify.errors import LlverifyError
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits
from llverify.ttgir.rule_support import (OpContext, memoised, unknown, structural, enc_text, op_names, is_tensor,
                                         equal_layouts)

__all__ = ["ASYNC_COPY_OPS", "async_copy", "decided_cp_async_width"]


#: cp.async (NVIDIA) / direct-to-LDS (AMD) copies of a pointer tensor into shared memory
ASYNC_COPY_OPS = ("ttg.async_copy_global_to_local",)


def _pointee(element: str) -> str | None:
    """``!tt.ptr<f16>`` -> ``f16`` (``!tt.ptr<f16, 1>`` too); None for a non-pointer element."""
    m = re.fullmatch(r"!tt\.ptr<\s*([^,>]+)\s*(?:,\s*\d+\s*)?>", element.strip())
    return m.group(1).strip() if m else None


def async_copy(ctx: OpContext) -> Iterable[Verdict]:
    """``%t = ttg.async_copy_global_to_local %ptrs, %buf mask %m other %o``: each thread copies the elements its
    pointers address into the buffer at their logical coordinates, so the pointer tensor has the buffer's shape
    and points to its element type (exact comparison; a refutation shows both), and the mask and ``other`` have
    the pointers' layout (F2 equality).

    On NVIDIA targets the copy lowers to ``cp.async``: ``vector_width`` is the set of widths Triton 3.9 may use
    (:mod:`llverify.codegen.cp_async`: the layout bound, the op's ``contiguity`` attribute, 4..16 bytes), proved
    when every width Triton may pick is one cp.async has, refuted when the layouts admit no 4-byte vector (the copy
    cannot be lowered), ``unknown`` when the pick may fall below 4 bytes (no ``contiguity`` hint on sub-32-bit
    elements: the pointers' alignment decides between a lowering and Triton's error).  The copy's bank
    wavefronts stay ``unknown``: LDGSTS's shared-side wavefronts are not st.shared's and depend on the global
    source addresses, which the module does not fix (measured on an H200: ``tests/data/cp_async_ncu_h200.json``,
    ``tests/test_cp_async_ncu.py``); the st.shared model's count per width is in the details only
    (``st_shared_model_wavefronts``, a lower bound on every measured pattern, not a claim).  On AMD targets the
    copy lowers to direct-to-LDS loads: both ``unknown``.

    Example: ``tensor<64x32x!tt.ptr<f32>, #blocked> -> <64x32xf32, #shared, ...>``: proved; a buffer of
    32x64 or of f16: refuted."""
    op = ctx.op
    t0 = time.perf_counter()
    ptrs = op.operand_types[0] if op.operand_types else None
    buf = op.operand_types[1] if len(op.operand_types) > 1 else None
    if ptrs is None or buf is None or not is_tensor(ptrs) or buf.kind != "memdesc":
        return
    subject = f"{op_names(op)}: {ptrs.text} -> {buf.text}"
    view = tuple(buf.shape[len(buf.shape) - len(ptrs.shape):]) if len(buf.shape) >= len(ptrs.shape) else ()
    pointee = _pointee(ptrs.element)
    shaped = view == tuple(ptrs.shape) and len(buf.shape) == len(ptrs.shape) and pointee == buf.element
    yield structural("async_copy", subject, shaped, {"operand": 1},
                     {"pointer tensor": [list(ptrs.shape), pointee], "buffer": [list(buf.shape), buf.element]},
                     "the buffer's shape or element type is not the pointer tensor's", t0)
    for i, t in enumerate(op.operand_types[2:], 2):
        v = equal_layouts(ctx, ptrs, t, "same_layout", f"{op_names(op)}: pointers {enc_text(ptrs)} vs operand {i} "
                                                       f"{enc_text(t)}")
        if v is not None:
            yield v
    width = _cp_async_width(ctx, ptrs, buf, shaped).with_(subject=f"{op_names(op)} (cp.async width): "
                                                                    f"{enc_text(ptrs)} -> {enc_text(buf)}")
    yield width
    yield unknown("bank_conflicts", f"{op_names(op)} (store): {enc_text(ptrs)} <-> {enc_text(buf)}",
                  _async_bank_reason(ctx.module.target or "", width))


#: why a cp.async's bank wavefronts are not claimed (the H200 measurement, committed with its test)
_LDGSTS_REASON = ("cp.async (LDGSTS) shared-side wavefronts depend on the global source addresses, which the module "
                  "does not fix (measured on an H200: tests/data/cp_async_ncu_h200.json, tests/test_cp_async_ncu.py)")
_AMD_REASON = ("AMD lowers ttg.async_copy_global_to_local to direct-to-LDS loads (buffer_load ... lds / "
               "global_load_lds), whose LDS write pattern and widths are not modelled")


def _async_bank_reason(target: str, width: Verdict) -> str:
    backend = target.partition(":")[0]
    if backend == "hip":
        return _AMD_REASON
    if backend != "cuda":
        return f"no bank model for target {target!r}: cp.async (NVIDIA) and direct-to-LDS (AMD) copies differ"
    if width.status == "proved":
        return f"{_LDGSTS_REASON}; the copy moves {width.message.removeprefix('cp.async of ')}"
    return _LDGSTS_REASON


def _cp_async_width(ctx: OpContext, ptrs, buf, shaped: bool) -> Verdict:
    """The ``vector_width`` verdict of one copy (see :func:`async_copy`); ``unknown`` with the reason where the
    target is not NVIDIA or a layout does not build."""
    target = ctx.module.target or ""
    backend = target.partition(":")[0]
    if backend == "hip":
        return unknown("vector_width", "cp.async", _AMD_REASON)
    if backend != "cuda":
        return unknown("vector_width", "cp.async", f"the copy's lowering depends on the target and the module names "
                                                   f"none ({target!r}): pass --target")
    if not shaped:
        return unknown("vector_width", "cp.async", "the buffer's shape or element type is not the pointer tensor's")
    R, M = ctx.built(ptrs), ctx.built(buf)
    for b in (R, M):
        if isinstance(b, LayoutProblem):
            return unknown("vector_width", "cp.async", b.reason)
    assert isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)
    if M.padding is not None:
        return unknown("vector_width", "cp.async", "a padded buffer: Triton's NVIDIA cp.async lowering is not "
                                                   "modelled for padded layouts")
    bits = element_bits(buf.element)
    if bits not in (8, 16, 32, 64):
        return unknown("vector_width", "cp.async", f"element width {bits} bits not modelled")
    return decided_cp_async_width(R.layout, M.layout, bits, ctx.op.attr_int("contiguity"))


@memoised()
def decided_cp_async_width(R: LinearLayout, M: LinearLayout, bits: int, hint: int | None) -> Verdict:
    """The widths a ``cp.async`` of the pointer layout ``R`` into the buffer layout ``M`` (``bits``-bit
    elements, ``contiguity`` attribute ``hint``) may have in Triton 3.9's lowering
    (:func:`llverify.codegen.cp_async.cp_async_widths`): proved when at least one exists, refuted when none
    does (the layouts give no 4-byte vector; the witness is the basis that blocks it, evaluated with
    :meth:`LinearLayout.apply`), ``unknown`` when Triton may pick a width below 4 bytes
    (:func:`llverify.codegen.cp_async.narrowest_width`).  Once per argument tuple (the hint is part of the key)."""
    t0 = time.perf_counter()
    try:
        cvt = access_to_offsets(R, M)
        bound = layout_bound(cvt, bits)
    except LlverifyError as exc:
        return unknown("vector_width", "cp.async", f"S^-1 L not built: {exc}")
    widths = cp_async_widths(bound, bits, hint)
    nbytes = [w * bits // 8 for w in widths]
    details = {"instruction": "cp.async", "direction": "store", "bits": bits, "layout_bound_elems": bound,
               "contiguity_hint": hint, "widths_elems": list(widths), "widths_bytes": nbytes}
    if not widths:
        need = 32 // bits
        blocker = vector_blocker(cvt, need)
        if blocker is None:  # the search and the replay disagree: never report an unreplayed witness
            return Verdict("error", "vector_width", "cp.async", None, time.perf_counter() - t0,
                           "internal: the layout bound and its replay disagree", details=details)
        inputs = blocker.point if blocker.point is not None else {"offset_bit": blocker.bit or 0}
        why = (f"no register reaches offset {1 << (blocker.bit or 0)} alone" if blocker.point is None
               else f"{blocker.point} reaches offset {blocker.offset}, not a multiple of {need}")
        return Verdict("refuted", "vector_width", "cp.async", "exhaustive", time.perf_counter() - t0,
                       f"no cp.async width: the layouts give at most {bound * bits // 8 or bits / 8} bytes per "
                       f"vector, cp.async moves 4, 8 or 16: Triton 3.9 cannot lower the copy ('cp.async does not "
                       f"support transfers smaller than 4 bytes', or, with a larger contiguity, its cp.async "
                       f"emitter aborts on the narrower vector): {why}",
                       Counterexample(inputs, {"S^-1 L": blocker.to_json()},
                                      "each offset evaluated from S^-1 L at a basis point"), details=details)
    narrow = narrowest_width(bound, bits, hint)
    if narrow * bits < 32:
        details["narrowest_bytes"] = narrow * bits / 8
        given = (f"the contiguity hint {hint} allows {narrow * bits // 8} bytes" if hint is not None and hint >= 2
                 else "no contiguity hint")
        return unknown("vector_width", "cp.async",
                       f"{given}: Triton 3.9 takes the width from the pointers' contiguity and alignment (axis "
                       f"analysis over tt.divisibility, not run here); below 4 bytes it cannot lower the copy "
                       f"('cp.async does not support transfers smaller than 4 bytes'), else it moves one of "
                       f"{', '.join(map(str, nbytes))} bytes per lane").with_(details=details)
    model = {}
    for w in widths:
        try:
            model[str(w * bits // 8)] = bank_wavefronts(R, M, bits, w).wavefronts
        except LlverifyError:
            break
    if len(model) == len(widths):
        details["st_shared_model_wavefronts"] = model
    top = min(bound, 128 // bits)
    if len(widths) == 1:
        pin = (f"the contiguity hint {hint} reaches the layout bound" if hint is not None and hint >= top else
               f"the layout bound is {top * bits // 8} bytes" if widths[0] == top else "")
        msg = f"cp.async of {nbytes[0]} bytes per lane ({pin})" if pin else f"cp.async of {nbytes[0]} bytes per lane"
    else:
        why = (f"contiguity hint {hint}, layout bound {top * bits // 8} bytes" if hint is not None and hint >= 2
               else f"no contiguity hint: the pointers' contiguity (axis analysis, not run here) picks among widths "
                    f"of 4 bytes or more; layout bound {top * bits // 8} bytes")
        msg = f"one of {', '.join(map(str, nbytes))} bytes per lane ({why})"
    return Verdict("proved", "vector_width", "cp.async", "f2", time.perf_counter() - t0, msg,
                   certificate={"register_order": list(largest_vectorisation(cvt, bits, "offset").register_order)},
                   details=details)
