"""Rules on data movement: convert_layout (proved, classified, costed), shape ops (no data between
threads; cat and reorder reshapes keep each thread's registers), reduce/scan slices, gathers, broadcast
stores."""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from llverify.codegen.broadcast import broadcast_predicate
from llverify.codegen.cta_tile import cta_tile
from llverify.codegen.conversion import convert
from llverify.codegen.shuffle import triton_lowering
from llverify.codegen.ldst_select import plan_shared_conversion
from llverify.codegen.swizzle import optimal_swizzle
from llverify.errors import LlverifyError
from llverify.hw.registry import build_spec
from llverify.layout import LinearLayout
from llverify.prove.gather_locality import gather_warp_local
from llverify.prove.plan_broadcast import prove_broadcast_store
from llverify.prove.properties import equal
from llverify.prove.verdict import Verdict
from llverify.ttgir.rules_cta import conversion_crosses_ctas
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import (OpContext, memo_thread_local, memo_conversion, memo_shape_op, memoised, unknown, structural, enc_text,
                                         op_names, is_tensor, layout_pair, equal_layouts, int_array, has_keyword)

__all__ = ["convert_layout", "decided_conversion", "SHAPE_OPS", "shape_op", "IN_THREAD_OPS", "in_thread", "UPCAST_OPS", "fp4_upcast",
           "halve_axis", "reduce_scan", "gather",
           "STORE_OPS", "stores"]


def _operand_to_result(ctx: OpContext) -> tuple[TypeRef | None, TypeRef | None, str]:
    """A one-operand layout change's operand and result types and its subject (``%r = op: #A -> #B``)."""
    op = ctx.op
    src = op.operand_types[0] if op.operand_types else None
    dst = op.results[0].type if op.results else None
    return src, dst, f"{op_names(op)}: {enc_text(src)} -> {enc_text(dst)}"


def convert_layout(ctx: OpContext) -> Iterable[Verdict]:
    src, dst, subject = _operand_to_result(ctx)
    pair = layout_pair(ctx, src, dst)
    if isinstance(pair, str):
        yield unknown("conversion", subject, pair)
        return
    A, B = pair
    bits = max(8, element_bits(src.element if src else "") or 32)
    yield decided_conversion(A, B, bits, ctx.module.target).with_(subject=subject)


#: the most lanes a hardware warp has (AMD's wave64); a layout with more is refuted by the thread-count rule, and
#: its bank cost (which walks every lane) is not computed
MAX_WARP_LANES = 64


@memoised()
def decided_conversion(A: LinearLayout, B: LinearLayout, bits: int, target: str) -> Verdict:
    """The conversion ``A -> B`` of ``bits``-wide elements on ``target``, decided (:func:`memo_conversion`: ``B`` is
    ``A`` with the data moved) and classified as Triton 3.9 lowers it (``details``: the classification, the
    plan's, the moving dims, the cost: shared bytes and wavefronts or moving lane bits), once per argument tuple
    (a pipelined loop converts the same layouts at every stage; shadow mode meets them in every kernel)."""
    v = memo_conversion(A, B)
    if v.status == "error":  # not the same tensor or threads: invalid IR, refuted with both sides' sizes
        return _different_tensors(A, B, "conversion", "conversion", v.message)
    details: dict[str, Any] = {}
    try:
        plan = convert(A, B)
        details["classification"] = triton_lowering(A, B, plan)  # what Triton really emits (shuffle rule applied)
        details["plan_classification"] = plan.classification
        details["moving_dims"] = list(plan.moving_dims)
        cost: dict[str, Any] = {}
        if details["classification"] == "shared_memory":
            elems = 1
            for d in A.out_dims.values():
                elems *= d
            cost["tensor_bytes"] = elems * bits // 8
            lanes = max(L.in_dim_size("lane") if "lane" in L.in_dim_names else 1 for L in (A, B))
            if conversion_crosses_ctas(A, B):  # data crosses CTAs: Triton 3.9 goes through the cluster's shared memory
                cost["distributed_shared_memory"] = True
                cost["swizzle"] = ("not planned: a conversion between CTAs goes through distributed shared memory "
                                   "(mapa, st/ld.shared::cluster), whose cost is not modelled")
            elif lanes > MAX_WARP_LANES:  # no hardware warp (the layout rule refutes the count): nothing to cost
                cost["swizzle"] = f"not planned: {lanes} lanes per warp (hardware warps have 32 or 64)"
            else:
                tiles = (cta_tile(A), cta_tile(B))  # the conversion inside one CTA (the same in every CTA)
                try:
                    if tiles[0] is None or tiles[1] is None:
                        raise LlverifyError("the layouts' CTA tiles are not congruent (a block basis reaches a "
                                            "coordinate bit a register, lane or warp reaches too)")
                    cost.update(_shared_cost(tiles[0], tiles[1], bits, target))
                    if tiles[0] is not A:
                        cost["per_cta_tile"] = [tiles[0].out_dim_size(d) for d in tiles[0].out_dim_names]
                except LlverifyError as exc:
                    cost["swizzle"] = f"not planned: {exc}"
        elif details["classification"] == "warp_shuffle":
            cost["moving_lane_bits"] = plan.cvt.in_dim_size_log2("lane") if "lane" in plan.cvt.in_dim_names else 0
        details["cost"] = cost
        details["no_op"] = details["classification"] == "noop"
    except LlverifyError as exc:
        details["classification"] = f"unclassified: {exc}"
    return v.with_(details={**v.details, **details})


def _shared_cost(A: LinearLayout, B: LinearLayout, bits: int, target: str) -> dict[str, Any]:
    """Store and load wavefronts per instruction of a conversion through shared memory.

    On NVIDIA targets, the instructions Triton 3.9 picks (``stmatrix``/``ldmatrix``, plain or ``.trans``, or
    vector ``st/ld.shared``) on the swizzle it builds, counted exactly
    (:func:`llverify.codegen.ldst_select.plan_shared_conversion`); elsewhere vector accesses through
    llverify's optimal swizzle (seed 000 section 5.4, lemmas 9.4-9.6)."""
    if target.startswith("cuda:"):
        plan = plan_shared_conversion(A, B, bits, target)
        return {"store_wavefronts": plan.store_wavefronts, "load_wavefronts": plan.load_wavefronts,
                "store_instruction": plan.store, "load_instruction": plan.load,
                "model": "Triton 3.9's instruction choice and swizzle (llverify.codegen.ldst_select), exact counts"}
    swz = optimal_swizzle(A, B, bits)
    return {"store_wavefronts": swz.write_wavefronts, "load_wavefronts": swz.read_wavefronts,
            "vector_elems": 1 << len(swz.vector),
            "model": "llverify's optimal swizzle (seed 000 section 5.4, lemmas 9.4-9.6)"}


#: AMD's ``in_thread_transpose`` (printed ``amdgpu.`` before Triton 3.5, ``amdg.`` since): a conversion Triton
#: lowers as a permutation of each thread's registers (TritonAMDGPUOps.td, ``InThreadTransposeOp``)
IN_THREAD_OPS = ("amdg.in_thread_transpose", "amdgpu.in_thread_transpose")


def in_thread(ctx: OpContext) -> Iterable[Verdict]:
    """``%r = amdg.in_thread_transpose %x : tensor<.., #A> -> tensor<.., #B>`` moves no data between threads: every
    element a thread holds in ``B`` it already holds in ``A`` (:func:`~llverify.prove.locality.thread_local`, an F2
    certificate; a refutation names a thread and an element it would have to receive from another thread).

    Example: ``A`` = blocked ``sizePerThread = [4, 4]`` and ``B`` = the same elements per thread with the register
    bases reordered: proved; ``B`` with one lane basis swapped for a register basis: refuted."""
    src, dst, subject = _operand_to_result(ctx)
    pair = layout_pair(ctx, src, dst)
    if isinstance(pair, str):
        yield unknown("in_thread", subject, pair)
        return
    yield _thread_local_or_mismatch(pair[0], pair[1], "thread_local", subject)


def _thread_local_or_mismatch(A: LinearLayout, B: LinearLayout, prop: str, subject: str,
                              extra: Mapping[str, Any] | None = None) -> Verdict:
    """:func:`memo_thread_local`, except that an operand and result over different tensors or threads (invalid IR:
    Triton's verifier refuses it) is refuted with both sides' sizes as the witness, not an error; ``extra`` added
    to its details."""
    v = memo_thread_local(A, B)
    changes: dict[str, Any] = {"property": prop, "subject": subject}
    if v.status == "error":
        v, changes = _different_tensors(A, B, prop, subject, v.message), {}
    if extra:
        changes["details"] = {**v.details, **extra}
    return v.with_(**changes) if changes else v


def _different_tensors(A: LinearLayout, B: LinearLayout, prop: str, subject: str, message: str) -> Verdict:
    """The refutation of a claim between an operand layout ``A`` and a result layout ``B`` that are not over the
    same tensor and threads (the proof's precondition fails: invalid IR, which Triton's verifier refuses), with
    both sides' tensor and thread sizes as the witness."""
    sides = {"operand": {"tensor": dict(A.out_dims), "threads": {d: A.in_dim_size(d) for d in A.in_dim_names
                                                                  if d != "register"}},
             "result": {"tensor": dict(B.out_dims), "threads": {d: B.in_dim_size(d) for d in B.in_dim_names
                                                                 if d != "register"}}}
    return structural(prop, subject, False, {}, sides, message or "operand and result differ", time.perf_counter())


#: the fp4 upcasts: each i8 of the operand packs two e2m1 values, consecutive along ``axis`` (Triton's
#: ``Fp4ToFpOp``; AMD's ``ScaledUpcastFp4Op``, which also multiplies by a scale of the result's shape)
UPCAST_OPS = ("ttg.fp4_to_fp", "amdg.scaled_upcast_fp4")


def halve_axis(R: LinearLayout, axis: str) -> LinearLayout:
    """``P o R`` where ``P`` maps a logical coordinate ``c`` along ``axis`` to ``c >> 1`` (the other coordinates
    unchanged): the layout of the *packed* tensor whose element ``k`` holds the two unpacked elements ``2k`` and
    ``2k + 1``.  ``P`` is F2-linear (it drops bit 0 of ``axis`` and shifts the others down), so ``P o R`` is a
    linear layout; a basis vector that only moved bit 0 becomes 0 (both nibbles of one byte).

    Requires: ``R.out_dims[axis] >= 2``.
    Example: ``R`` = register ``[[1]]``, lane ``[[2], [4]]`` on ``dim0`` of size 8 -> register ``[[0]]``, lane
    ``[[1], [2]]`` on size 4."""
    names = list(R.out_dim_names)
    k = names.index(axis)
    bases = {d: [[c >> 1 if j == k else c for j, c in enumerate(b)] for b in R.bases[d]] for d in R.in_dim_names}
    dims = {n: (size >> 1 if n == axis else size) for n, size in R.out_dims.items()}
    return LinearLayout(bases, dims, require_surjective=False)


def fp4_upcast(ctx: OpContext) -> Iterable[Verdict]:
    """``ttg.fp4_to_fp %x {axis = a}`` / ``amdg.scaled_upcast_fp4 %x scale %s {axis = a}``: the upcast moves no data
    between threads: every result element ``2k`` or ``2k + 1`` (along ``a``) a thread holds comes from the packed
    byte ``k`` that thread already holds in the operand (thread locality of :func:`halve_axis` of the result with
    respect to the operand, an F2 certificate; a refutation names the thread and the byte it lacks).  The scale of
    ``scaled_upcast_fp4`` has the result's shape and must have its layout (an elementwise multiply).

    Example: operand ``#dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>`` on 128x64xi8 and result ``kWidth = 2`` on
    128x128xbf16, ``axis = 1``: each thread's two bf16 per k-pair come from its own byte: proved."""
    op = ctx.op
    src, dst, subject = _operand_to_result(ctx)
    if op.name == "amdg.scaled_upcast_fp4" and len(op.operand_types) > 1:
        v = equal_layouts(ctx, op.operand_types[1], dst, "same_layout",
                          f"{op_names(op)}: scale {enc_text(op.operand_types[1])} vs result {enc_text(dst)}")
        if v is not None:
            yield v
    axis = op.attr_int("axis")
    if axis is None or src is None or dst is None or not (is_tensor(src) and is_tensor(dst)):
        yield unknown("fp4_upcast", subject, f"{op.name} without a readable 'axis' or tensor types")
        return
    pair = layout_pair(ctx, src, dst)
    if isinstance(pair, str):
        yield unknown("fp4_upcast", subject, pair)
        return
    A, R = pair
    name = f"dim{axis}"
    if name not in R.out_dims or R.out_dims[name] != 2 * A.out_dims.get(name, 0):
        yield structural("fp4_upcast", subject, False, {"axis": axis},
                         {"operand shape": list(src.shape), "result shape": list(dst.shape)},
                         f"the result is not twice the operand along axis {axis}", time.perf_counter())
        return
    yield _thread_local_or_mismatch(A, halve_axis(R, name), "fp4_upcast", subject)


SHAPE_OPS = {"tt.trans", "tt.reshape", "tt.expand_dims", "tt.broadcast", "tt.join", "tt.split",
              "ttg.memdesc_trans", "ttg.memdesc_reshape", "tt.cat"}


#: the claim :func:`shape_op` adds to a thread-locality verdict's details
_NO_DATA_MOVES = {"claim": "no data moves between threads"}


def shape_op(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    ins = list(op.operand_types)
    outs = [r.type for r in op.results]
    subject = (f"{op_names(op)}: {' , '.join([enc_text(t) for t in ins])} -> "
               f"{' , '.join([enc_text(t) for t in outs])}")
    if not ins or not outs or not all(t is not None and t.has_layout for t in ins + outs):
        return
    built_in = [ctx.built(t) for t in ins]
    built_out = [ctx.built(t) for t in outs]
    for b in built_in + built_out:
        if isinstance(b, LayoutProblem):
            yield unknown("shape_op", subject, b.reason)
            return
    if ins[0].kind == "tensor" and any("register" not in b.layout.in_dim_names  # type: ignore[union-attr]
                                       for b in built_in + built_out):
        yield unknown("shape_op", subject, "a tensor typed with a memory layout (invalid IR: the layout rule refutes "
                                           "it): no register distribution to compare")
        return
    reorder = op.name == "tt.cat" or (op.name == "tt.reshape" and has_keyword(op, "allow_reorder"))
    if reorder and ins[0].kind == "tensor":
        yield _register_counts(built_in, built_out, subject,  # type: ignore[arg-type]
                               strip_broadcast=op.name == "tt.cat")
        return
    A = built_in[0].layout  # type: ignore[union-attr]
    name = op.name.split(".")[-1].removeprefix("memdesc_")
    try:
        if name == "trans":
            perm = int_array(op.attributes.get("order"))
            if perm is None:
                yield unknown("shape_op", subject, "tt.trans without a readable 'order' attribute")
                return
            inferred = memo_shape_op("trans", A, (("perm", tuple(perm)),))
        elif name == "reshape":
            inferred = memo_shape_op("reshape", A, (("shape", tuple(outs[0].shape)),))
        elif name == "expand_dims":
            axis = op.attr_int("axis")
            if axis is None:
                yield unknown("shape_op", subject, "tt.expand_dims without an 'axis' attribute")
                return
            inferred = memo_shape_op("expand_dims", A, (("axis", axis),))
        elif name == "broadcast":
            src_shape, dst_shape = ins[0].shape, outs[0].shape  # type: ignore[union-attr]
            L = A
            for d, (a, b) in enumerate(zip(src_shape, dst_shape)):
                if a != b:
                    L = memo_shape_op("broadcast", L, (("dim", d), ("size", b)))[0]
            inferred = (L,)
        elif name == "join":
            inferred = memo_shape_op("join", A, ())
        elif name == "split":
            inferred = memo_shape_op("split", A, ())
        else:
            yield unknown("shape_op", subject, f"{op.name} not modelled")
            return
    except (LlverifyError, KeyError, ValueError) as exc:
        yield unknown("shape_op", subject, f"could not infer the no-op result layout: {exc}")
        return
    for inf, b in zip(inferred, built_out):
        declared = b.layout  # type: ignore[union-attr]
        if set(inf.out_dim_names) != set(declared.out_dim_names):
            yield unknown("shape_op", subject, "inferred and declared layouts name different dims")
            continue
        if ins[0].kind == "memdesc":
            v = equal(inf.transpose_outs(list(declared.out_dim_names)), declared, subject=subject)
            yield v.with_(property="shape_op")
            continue
        yield _thread_local_or_mismatch(inf, declared, "shape_op", subject, _NO_DATA_MOVES)


def _register_counts(ins: list[BuiltLayout], outs: list[BuiltLayout], subject: str,
                     strip_broadcast: bool = False) -> Verdict:
    """``tt.cat`` and ``tt.reshape {allow_reorder}`` may put the result's elements in any order, so Triton
    lowers them by handing each thread's operand registers, in order, to the result: no data moves between
    threads exactly when every thread holds as many result registers as operand registers (their sum for
    ``cat``) and the thread dims (lane, warp, block) are the same.  Compared as concrete sizes.

    ``strip_broadcast`` (``tt.cat``): Triton 3.9's cat lowering first drops the broadcast registers (zero
    register bases) of each operand, concatenates the distinct values, and re-duplicates them for the
    result's zero register bases; so the counts compared are of distinct registers, ``2^(non-zero register
    bases)``.  A reshape packs the operand's registers, duplicates included, so it compares full sizes."""
    t0 = time.perf_counter()

    def size(L: LinearLayout, d: str) -> int:
        return L.in_dim_size(d) if d in L.in_dim_names else 1

    def regs(L: LinearLayout) -> int:
        if not strip_broadcast or "register" not in L.in_dim_names:
            return size(L, "register")
        return 1 << sum(1 for b in L.bases["register"] if any(b))

    regs_in = sum(regs(b.layout) for b in ins)
    regs_out = sum(regs(b.layout) for b in outs)
    threads_in = {d: size(ins[0].layout, d) for d in ("lane", "warp", "block")}
    threads_out = {d: size(outs[0].layout, d) for d in ("lane", "warp", "block")}
    ok = regs_in == regs_out and threads_in == threads_out
    v = structural("shape_op", subject, ok, {"thread": 0},
                    {"registers per thread (operands)": regs_in, "registers per thread (result)": regs_out,
                     "threads (operands)": threads_in, "threads (result)": threads_out},
                    "the result does not hold each thread's operand registers: the reordering lowering would "
                    "need data from other threads", t0)
    return v.with_(details={"claim": "each thread keeps its registers (element order unspecified by the op)"})


def reduce_scan(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    axis = op.attr_int("axis")
    for i, (t, r) in enumerate(zip(op.operand_types, op.results)):
        rt = r.type
        subject = f"{op_names(op)} axis={axis}: operand {i} {enc_text(t)} -> {enc_text(rt)}"
        if t is None or not t.has_layout or rt.kind != "tensor" or not rt.has_layout:
            continue
        if axis is None:
            yield unknown("reduce_layout", subject, "no readable 'axis' attribute")
            continue
        if op.name == "tt.scan":
            v = equal_layouts(ctx, t, rt, "scan_layout", subject)
            if v is not None:
                yield v
            continue
        if t.encoding is None or t.encoding_error:
            yield unknown("reduce_layout", subject, f"operand encoding not read: {t.encoding_error}")
            continue
        declared = ctx.built(rt)
        if isinstance(declared, LayoutProblem):
            yield unknown("reduce_layout", subject, declared.reason)
            continue
        try:
            expected = build_spec({"kind": "slice", "dim": axis, "parent": dict(t.encoding)}, list(rt.shape))
        except LlverifyError as exc:
            yield unknown("reduce_layout", subject, f"slice of the operand layout not built: {exc}")
            continue
        yield equal(expected, declared.layout, subject=subject).with_(property="reduce_layout")


def gather(ctx: OpContext) -> Iterable[Verdict]:
    """The result has the index's layout (Triton's verifier); with ``efficient_layout`` the gather is proved
    warp-local (:func:`llverify.prove.gather_locality.gather_warp_local`), the path Triton's gather-layout pass
    chooses; a gather that is not is ``unknown`` (still correct IR: Triton lowers it through shared memory)."""
    op = ctx.op
    axis = op.attr_int("axis")
    src, idx = (op.operand_types + (None, None))[:2]
    res = op.results[0].type if op.results else None
    if src is None or idx is None or res is None or not (is_tensor(src) and is_tensor(idx) and is_tensor(res)):
        return
    v = equal_layouts(ctx, idx, res, "gather_layout",
                      f"{op_names(op)}: index {enc_text(idx)} vs result {enc_text(res)}")
    if v is not None:
        yield v
    if "efficient_layout" not in op.attributes:
        return
    subject = f"{op_names(op)} axis={axis} efficient_layout: src {enc_text(src)}, index {enc_text(idx)}"
    if axis is None:
        yield unknown("gather_warp_local", subject, "no readable 'axis' attribute")
        return
    pair = layout_pair(ctx, src, idx)
    if isinstance(pair, str):
        yield unknown("gather_warp_local", subject, pair)
        return
    v = gather_warp_local(pair[0], pair[1], axis, subject=subject)
    if v.status == "refuted":
        # `efficient_layout` is a hint ("keep this layout"), not a validity condition: Triton's verifier accepts
        # any layout with it and GatherOpToLLVM picks the warp-shuffle path by isWarpLocal(), falling back to
        # shared memory otherwise (valid IR in Triton's lit tests does this).  Not warp-local: the fast path is
        # not taken, which is worth reporting but is no refutation.
        yield unknown("gather_warp_local", subject,
                       f"efficient_layout gather is not warp-local, so Triton lowers it through shared memory: "
                       f"{v.message}")
        return
    yield v


#: ops whose lowering writes (or applies an atomic to) each element under the free-variable predicate
#: (:func:`~llverify.codegen.broadcast.broadcast_predicate`): Triton's StoreOp / atomics, the histogram, and AMD's
#: buffer ops, which use the same predicate (third_party/amd LoadStoreOpToLLVM.cpp: BufferStoreOpConversion,
#: BufferAtomicRMWOpConversion and BufferAtomicCASOpConversion call getFreeVariableMasks and
#: emitRedundantThreadPredicate and skip the non-canonical registers, as StoreOpConversion does)
STORE_OPS = ("tt.store", "tt.atomic_rmw", "tt.atomic_cas", "tt.histogram", "amdg.buffer_store",
             "amdg.buffer_atomic_rmw", "amdg.buffer_atomic_cas")


def stores(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if op.name.startswith("amdg."):
        # `amdg.buffer_store %v, %base[%offsets], %mask`: the first tensor operand is the stored value (every tensor
        # operand has one layout: the memory_operands rule)
        t = next((x for x in op.operand_types if x is not None and is_tensor(x)), None)
    else:
        idx = 1 if op.name in ("tt.store", "tt.atomic_rmw", "tt.atomic_cas") else 0
        t = op.operand_types[idx] if len(op.operand_types) > idx else None
    if t is None or not is_tensor(t):
        return
    key = ("store", t.text, op.name)
    if key in ctx.seen:
        return
    ctx.seen.add(key)
    subject = f"{op.name} of {enc_text(t)}"
    built = ctx.built(t)
    if isinstance(built, LayoutProblem):
        yield unknown("broadcast_store", subject, built.reason)
        return
    v = prove_broadcast_store(broadcast_predicate(built.layout))
    yield v.with_(subject=subject)
