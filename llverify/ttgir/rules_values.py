"""Rules on values and types: every layout builds, elementwise ops and region boundaries keep layouts,
memory-op operands share one layout, every use has its definition's type."""

from __future__ import annotations

import re
import time
from typing import Iterable

from llverify.layout import LinearLayout
from llverify.prove.properties import surjective
from llverify.prove.verdict import FrozenDict, Verdict
from llverify.ttgir.layouts import LayoutProblem
from llverify.ttgir.model import Op, TypeRef
from llverify.ttgir.rule_support import (OpContext, UNSTATED_WARPS, memo_distributed, memo_equal, memo_memory, unknown, structural,
                                         enc_text, op_names, is_tensor, compared_layouts, equal_layouts, layout_pair)

__all__ = ["layout_types", "tensor_facts", "tensor_verdicts", "has_layout_result", "ELEMENTWISE", "MEMORY_OPS", "is_elementwise", "elementwise", "is_memory_op",
           "memory_operands", "use_types", "BOUNDARY_OPS", "boundary",
           "unmodelled_layout_change"]


def layout_types(ctx: OpContext) -> Iterable[Verdict]:
    seen = ctx.seen
    for r in ctx.op.results:
        t = r.type
        if not t.has_layout:  # has_layout implies a tensor or memdesc
            continue
        key = ("layout", t.text, ctx.warps)
        if key in seen:
            continue
        seen.add(key)
        subject = t.text
        built = ctx.built(t)
        if isinstance(built, LayoutProblem):
            yield unknown("layout", subject, built.reason)
            continue
        L = built.layout
        dims = L.in_dim_names
        if t.kind == "tensor" and "register" not in dims and "lane" not in dims and "warp" not in dims:
            # a tensor (values in registers) typed with a memory layout (`tensor<64xbf16, #swizzled_shared>`):
            # invalid IR (Triton's verifier: "requires a distributed tensor encoding"); its witness is the layout's
            # in dims
            yield structural("distributed", subject, False, {"encoding": t.encoding_text or ""},
                             {"in dims": list(L.in_dim_names), "required": ["register", "lane", "warp", "block"]},
                             "a tensor needs a distributed layout (registers, lanes, warps); this one is a memory "
                             "layout", time.perf_counter())
            continue
        if t.kind == "tensor":
            yield from tensor_verdicts(ctx, L, built.shape, subject)
        elif "offset" in L.in_dim_names:
            v = memo_memory(L, bool(t.encoding and dict(t.encoding).get("fp4_padded")))
            yield v.with_(subject=subject, details={**v.details, "buffers": built.buffers,
                                                    "buffer_shape": list(built.shape)})
        else:
            # tensor memory (row, col): rows may be replicated (a 64-row tile in 128 lanes), so
            # definition 4.14's bijection does not apply; the layout must still cover the tensor
            v = surjective(L, subject=subject)
            yield v.with_(details={**v.details, "buffers": built.buffers, "buffer_shape": list(built.shape),
                                   "memory": "tensor memory (row, col)"})


def tensor_facts(ctx: OpContext, L: LinearLayout, shape: tuple[int, ...], subject: str) -> tuple[Verdict, Verdict]:
    """The layout rule's two verdicts on a tensor of layout ``L`` on ``shape``: definition 4.10 (distributed, with
    the duplicated in-bit masks and the shape in its details) and the thread counts (:func:`_hardware_counts`)."""
    v = memo_distributed(L)
    # the details frozen as Verdict would freeze them (the masks are ints, the shape a tuple of ints)
    free = FrozenDict({d: m for d, m in L.free_variable_masks().items() if m})
    return (v.with_(subject=subject, details=FrozenDict({**v.details, "duplicated": free, "shape": tuple(shape)})),
            _hardware_counts(ctx, L, subject))


def tensor_verdicts(ctx: OpContext, L: LinearLayout, shape: tuple[int, ...], subject: str) -> tuple[Verdict, Verdict]:
    """:func:`tensor_facts`, decided once per ``(L, shape, warps in force)`` in the module (they depend on nothing
    else: types differing only in the element type share them) and given each type's ``subject``."""
    key = ("tensor facts", id(L), shape, ctx.warps)
    facts = ctx.layouts.get(key)
    if facts is None or facts[0] is not L:  # the layout object is kept, so its id is not reused
        facts = ctx.layouts[key] = (L, *tensor_facts(ctx, L, shape, subject))
        return facts[1], facts[2]  # decided for this subject
    return facts[1].with_(subject=subject), facts[2].with_(subject=subject)


def _hardware_counts(ctx: OpContext, L: LinearLayout, subject: str) -> Verdict:
    """A distributed layout is built for the warps in force (the module's, or a ``warp_specialize``
    partition's), the module's threads per warp (lanes) and CTAs (blocks), as Triton's verifier requires;
    lanes and CTAs are compared where the module states them (``ttg.threads-per-warp``, ``ttg.num-ctas``), warps
    where a count is in force (none: :data:`~llverify.ttgir.rule_support.UNSTATED_WARPS`, a module without
    ``ttg.num-warps``, where Triton's verifier has no count to compare either).  Refuted with every count that
    differs."""
    t0 = time.perf_counter()
    stated = ctx.value_sets.get("#stated counts")  # the lane and CTA rows the module states, read once per module
    if stated is None:
        names = {k.rsplit(".", 1)[-1] for k in ctx.module.attributes}
        stated = ctx.value_sets["#stated counts"] = tuple(
            _count_row(dim, what, want) for dim, what, want, given in (
                ("lane", "threads per warp", ctx.module.threads_per_warp, "threads-per-warp" in names),
                ("block", "CTAs", ctx.module.num_ctas, "num-ctas" in names)) if given)
    dims = L.in_dim_names
    inputs, sides, wrong = {}, {}, []
    rows = stated if ctx.warps == UNSTATED_WARPS else (_count_row("warp", "warps", ctx.warps), *stated)
    for dim, what, want, in_force, of_layout in rows:
        if dim not in dims:
            continue
        have = L.in_dim_size(dim)
        sides[in_force], sides[of_layout] = want, have
        if have != want:
            inputs[dim] = min(have, want)
            wrong.append(f"{have} {what}, the module runs {want}")
    return structural("thread_counts", subject, not wrong, inputs, sides,
                      "the layout is for " + "; ".join(wrong), t0)


def _count_row(dim: str, what: str, want: int) -> tuple[str, str, int, str, str]:
    """One row of :func:`_hardware_counts`: the in dim, its name in words, the count in force, and the two keys
    of the witness."""
    return dim, what, want, f"{what} in force", f"{what} of the layout"


def has_layout_result(op: Op) -> bool:
    """Some result's type has a layout (``any(r.type.has_layout for r in op.results)``, without the generator)."""
    for r in op.results:
        if r.type.has_layout:
            return True
    return False


ELEMENTWISE = {"tt.addptr", "tt.bitcast", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int", "tt.clampf",
                "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.extern_elementwise",
                "tt.elementwise_inline_asm", "tt.load", "tt.atomic_rmw", "tt.atomic_cas", "tt.splat",
                # AMD: ScaledUpcastFp8Op is declared Elementwise + SameOperandsAndResultEncoding; a buffer load's
                # offsets, mask and `other` have its result's layout (TritonAMDGPUOps.td)
                "amdg.scaled_upcast_fp8", "amdg.buffer_load"}


def is_elementwise(op: Op) -> bool:
    return ((op.name.startswith(("arith.", "math.")) and op.name != "arith.constant") or op.name in ELEMENTWISE)


def elementwise(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if not op.results:
        return
    res = op.results[0].type
    for i, t in enumerate(op.operand_types):
        if not compared_layouts(t, res):
            continue
        v = equal_layouts(ctx, t, res, "same_layout",
                          f"{op_names(op)}: operand {i} {enc_text(t)} vs result {enc_text(res)}")
        if v is not None:
            yield v


#: loads, stores and atomics whose tensor operands (pointers or offsets, values, masks) share one layout
MEMORY_OPS = frozenset({"tt.store", "tt.load", "tt.atomic_rmw", "tt.atomic_cas", "amdg.buffer_load",
                        "amdg.buffer_store", "amdg.buffer_atomic_rmw", "amdg.buffer_atomic_cas"})


def is_memory_op(op: Op) -> bool:
    return op.name in MEMORY_OPS


def memory_operands(ctx: OpContext) -> Iterable[Verdict]:
    """Pointer, value and mask operands of a load / store / atomic share one layout."""
    op = ctx.op
    tensors = [(i, t) for i, t in enumerate(op.operand_types) if is_tensor(t)]
    if len(tensors) < 2:
        return
    i0, t0 = tensors[0]
    for i, t in tensors[1:]:
        if not compared_layouts(t0, t):
            continue
        v = equal_layouts(ctx, t0, t, "same_layout", f"{op_names(op)}: operand {i0} {enc_text(t0)} vs operand {i} "
                                                      f"{enc_text(t)}")
        if v is not None:
            yield v


def use_types(ctx: OpContext) -> Iterable[Verdict]:
    """An operand's type as the op prints it denotes the same layout as the type its definition gave it."""
    op = ctx.op
    for i, (resolved, printed) in enumerate(zip(op.operand_types, op.printed_operand_types)):
        if resolved is printed or resolved is None or printed is None or resolved.text == printed.text:
            continue
        if _elided_prefix(resolved.text, printed.text):
            continue  # the same type, printed by the op's custom format without its `!dialect.name`
        if "other" in (resolved.kind, printed.kind) or not resolved.text or not printed.text:
            # a type form the reader does not model (or a definition whose type it could not read): no comparison
            yield unknown("use_type", f"{op_names(op)} operand {i} ({op.operands[i]})",
                           f"type not read: defined as {resolved.text or '?'!r}, used as {printed.text or '?'!r}")
            continue
        if (resolved.kind != printed.kind or resolved.shape != printed.shape
                or _canonical_element(resolved.element) != _canonical_element(printed.element)):
            t0 = time.perf_counter()
            yield structural("use_type", f"{op_names(op)} operand {i} ({op.operands[i]})", False,
                              {"operand": i}, {"defined as": resolved.text, "used as": printed.text},
                              "the operand's type at its use differs from its definition", t0)
            continue
        v = equal_layouts(ctx, resolved, printed, "use_type",
                           f"{op_names(op)} operand {i} ({op.operands[i]}): defined {enc_text(resolved)}, used as "
                           f"{enc_text(printed)}")
        if v is not None:
            yield v


_TYPE_PREFIX = re.compile(r"![A-Za-z_][\w$]*\.[A-Za-z_][\w$.]*(?=<)")


def _elided_prefix(defined: str, used: str) -> bool:
    """``used`` is ``defined`` without its dialect type prefix: an op whose assembly format names the type's class
    prints only its parameters (``ttig.extract_desc %d[0] : <64x32xf16>`` of a ``!tt.tensordesc<64x32xf16>``,
    as ``tt.make_tensor_descriptor`` prints its result).

    >>> _elided_prefix("!tt.tensordesc<64x32xf16>", "<64x32xf16>"), _elided_prefix("!tt.ptr<f16>", "<f32>")
    (True, False)
    """
    m = _TYPE_PREFIX.match(defined)
    return bool(m) and used.startswith("<") and defined[m.end():].replace(" ", "") == used.replace(" ", "")


_PTR_DEFAULT_SPACE = re.compile(r"!tt\.ptr<\s*([^<>,]+?)\s*,\s*1\s*>")


def _canonical_element(element: str) -> str:
    """An element type as compared: ``!tt.ptr<f32, 1>`` is ``!tt.ptr<f32>`` (address space 1 is the default)."""
    return _PTR_DEFAULT_SPACE.sub(r"!tt.ptr<\1>", element.replace(" ", "")).replace(",", ", ")


#: the ops whose operands and results cross a region or function boundary (:func:`boundary`)
BOUNDARY_OPS = frozenset({"scf.yield", "scf.for", "tt.return"})


def boundary(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    pairs: list[tuple[TypeRef | None, TypeRef | None, str]] = []
    if op.name == "scf.yield" and ctx.parent is not None and ctx.parent.name in ("scf.for", "scf.if"):
        for i, (t, r) in enumerate(zip(op.operand_types, ctx.parent.results)):
            pairs.append((t, r.type, f"yielded value {i} vs {ctx.parent.name} result {r.name}"))
    elif op.name == "scf.for":
        inits = op.operand_types[3:]
        for i, (t, r) in enumerate(zip(inits, op.results)):
            pairs.append((t, r.type, f"iter_arg init {i} vs result {r.name}"))
    elif op.name == "tt.return":
        for i, (t, r) in enumerate(zip(op.operand_types, ctx.function.result_types)):
            pairs.append((t, r, f"returned value {i} vs the function's result type"))
    for a, b, what in pairs:
        if not compared_layouts(a, b):
            continue
        v = equal_layouts(ctx, a, b, "same_layout", f"{op.name}: {what}")
        if v is not None:
            yield v


def unmodelled_layout_change(ctx: OpContext) -> Iterable[Verdict]:
    """An op no rule models (``amdg.register_handoff``, a dialect newer than this llverify, a typo'd op in a hand
    edit) whose result tensor has a layout unequal to one of its tensor operands': it may move data between threads,
    and nothing about that movement is proved, so it is ``unknown`` with the reason, never silently passed.  Equal
    layouts (the same attribute text, or layouts proved equal) relate nothing and give no finding.

    Example: ``%b = ttg.frobnicate %a : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked2>`` with two
    different blocked layouts: one ``unknown`` finding (``unmodelled_op``)."""
    op = ctx.op
    ins = [(i, t) for i, t in enumerate(op.operand_types) if t is not None and t.kind == "tensor" and t.has_layout]
    for r in op.results:
        rt = r.type
        if rt.kind != "tensor" or not rt.has_layout:
            continue
        for i, t in ins:
            if t.encoding_text and t.encoding_text == rt.encoding_text:
                continue
            if t.shape == rt.shape:
                pair = layout_pair(ctx, t, rt)
                if not isinstance(pair, str) and memo_equal(pair[0], pair[1]).status == "proved":
                    continue
            yield unknown("unmodelled_op", f"{op_names(op)}: operand {i} {enc_text(t)} -> result {enc_text(rt)}",
                          f"{op.name} is not modelled by the gate: its result layout differs from operand {i}'s, so "
                          "it may move data between threads, and nothing about that movement is proved")
            return
