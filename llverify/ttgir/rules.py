"""The gate's obligations: one :class:`Rule` declaration per op family, each turning an op into verdicts.

A rule names the ops it applies to, states its claim in words with the paper
reference, and maps an :class:`OpContext` to verdicts decided by llverify's
prover (:mod:`llverify.prove`) and plans (:mod:`llverify.codegen`).  Adding
an obligation is adding one ``Rule`` to :data:`RULES`: the gate, the JSON
summary per op and the docs table (``llverify ttgir --list-rules``) read it.

Soundness: every verdict comes from a complete method (a checked F2
certificate, exhaustive enumeration, SMT) or is ``unknown`` with the reason
(an encoding llverify cannot build, an op form not modelled, a target whose
bank model is not NVIDIA's).  Structural refutations (a dot operand with the
wrong ``opIdx``) carry the concrete values compared as their witness.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from llverify.codegen.bank_model import NVIDIA, bank_model_for_target
from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import bank_wavefronts
from llverify.codegen.broadcast import broadcast_predicate
from llverify.codegen.conversion import convert
from llverify.codegen.shuffle import triton_lowering
from llverify.codegen.shape_ops import infer_shape_op
from llverify.codegen.swizzle import optimal_swizzle
from llverify.errors import LlverifyError
from llverify.hw.padded import Padding
from llverify.hw.registry import build_spec
from llverify.layout import LinearLayout
from llverify.prove.gather_locality import gather_warp_local
from llverify.prove.locality import thread_local
from llverify.prove.tmem_access import tmem_lane_quarters
from llverify.prove.plans import prove_broadcast_store
from llverify.prove.plans_banks import prove_bank_count
from llverify.prove.properties import conversion, distributed, equal, memory, surjective
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits, layout_of
from llverify.ttgir.model import Function, Module, Op, TypeRef
from llverify.ttgir.scalars import SymbolicScalars, ValueSets

__all__ = ["Rule", "OpContext", "RULES", "rules_for"]


@dataclass
class OpContext:
    """What a rule sees: the op, its function and module, the warp count in force, the enclosing op."""

    module: Module
    function: Function
    op: Op
    warps: int
    parent: Op | None = None
    seen: set[Any] = field(default_factory=set)
    in_partition: bool = False  # inside a non-default warp_specialize partition
    value_sets: dict[str, ValueSets] = field(default_factory=dict)  # per function name, shared by the module's ops

    def scalars(self) -> ValueSets:
        """The scalar value sets of this op's function (:mod:`llverify.ttgir.scalars`), built once."""
        vs = self.value_sets.get(self.function.name)
        if vs is None:
            vs = self.value_sets[self.function.name] = ValueSets(self.function)
        return vs

    @property
    def nvidia(self) -> bool:
        return self.module.target.startswith("cuda")

    def built(self, t: TypeRef | None) -> BuiltLayout | LayoutProblem:
        if t is None:
            return LayoutProblem("operand type unknown (defined outside the module text)")
        return layout_of(t)


@dataclass(frozen=True)
class Rule:
    """One obligation family (see the module docstring)."""

    name: str
    claim: str
    paper: str
    applies: Callable[[Op], bool]
    check: Callable[[OpContext], Iterable[Verdict]]


# -- decided once per process: verdicts are pure functions of immutable layouts ----------------------------

@lru_cache(maxsize=4096)
def _distributed(L: LinearLayout) -> Verdict:
    return distributed(L)


@lru_cache(maxsize=4096)
def _memory(L: LinearLayout) -> Verdict:
    if L.has_in_dim("block") and any(not any(b) for b in L.bases["block"]):
        # a CGA layout that broadcasts over CTAs (`CGALayout = [[0, 0]]`): every such CTA holds its own copy of
        # the same data, so a zero block basis is no aliasing; the bijection is checked without those bases
        bases = {d: [list(b) for b in L.bases[d] if d != "block" or any(b)] for d in L.in_dim_names}
        reduced = LinearLayout(bases, dict(L.out_dims), require_surjective=False)
        v = memory(reduced)
        return v.with_(details={**v.details, "broadcast over CTAs": "zero block bases dropped before the check"})
    return memory(L)


@lru_cache(maxsize=8192)
def _equal(A: LinearLayout, B: LinearLayout) -> Verdict:
    return equal(A, B)


@lru_cache(maxsize=4096)
def _thread_local(A: LinearLayout, B: LinearLayout) -> Verdict:
    return thread_local(A, B)


@lru_cache(maxsize=4096)
def _conversion(A: LinearLayout, B: LinearLayout) -> Verdict:
    return conversion(A, B)


@lru_cache(maxsize=4096)
def _bank_count(R: LinearLayout, M: LinearLayout, bits: int) -> Verdict:
    """Exact wavefronts per instruction: by enumerating every instruction of every warp (the simulator,
    complete for these layouts) when the access has at most 2^22 points and the simulator agrees with the
    closed form of lemma 9.4; otherwise by Z3 (``prove_bank_count``)."""
    t0 = time.perf_counter()
    if R.total_in_bits <= 22:
        try:
            rep = bank_wavefronts(R, M, bits)
            sim = simulate_wavefronts(R, M, bits, rep.vector)
        except LlverifyError:
            sim = None
        if sim is not None and sim.max_wavefronts == sim.min_wavefronts == rep.wavefronts:
            return Verdict("proved", "bank_conflicts", "bank_wavefronts", "exhaustive", time.perf_counter() - t0,
                           f"exactly {rep.wavefronts} wavefronts per instruction (vector {rep.vector.bits} bits)",
                           certificate={"instructions_simulated": sim.instructions},
                           details={**rep.to_json(), "simulator_wavefronts": sim.wavefronts})
    return prove_bank_count(R, M, bits, cross_check=False)


@lru_cache(maxsize=4096)
def _bank_count_simulated(R: LinearLayout, M: LinearLayout, bits: int, padding: Padding | None = None) -> Verdict:
    """Wavefronts per instruction without a closed form (AMD's wave64 LDS; a padded layout, whose physical
    offsets ``padding.apply(o)`` are not F2-linear so lemma 9.4 does not apply): decided by enumerating every
    instruction of every wave (the simulator applies the model's phase rule to the real lane count)."""
    t0 = time.perf_counter()
    if R.total_in_bits > 22:
        return _unknown("bank_conflicts", "bank_wavefronts", "access too large to enumerate (> 2^22 points) and "
                                                             "no closed form for this bank model")
    try:
        sim = simulate_wavefronts(R, M, bits, padding=padding)
    except LlverifyError as exc:
        return _unknown("bank_conflicts", "bank_wavefronts", f"not simulated: {exc}")
    exact = sim.max_wavefronts == sim.min_wavefronts
    msg = (f"exactly {sim.wavefronts} wavefronts per instruction" if exact else
           f"between {sim.min_wavefronts} and {sim.max_wavefronts} wavefronts per instruction")
    if padding is not None:
        msg += f", padding {padding.text()} applied to every offset"
    return Verdict("proved", "bank_conflicts", "bank_wavefronts", "exhaustive", time.perf_counter() - t0,
                   f"{msg} (vector {sim.vector.bits} bits, every instruction simulated)",
                   certificate={"instructions_simulated": sim.instructions},
                   details={"wavefronts": sim.max_wavefronts, "min_wavefronts": sim.min_wavefronts,
                            "vector_bits": sim.vector.bits,
                            **({"padding": padding.text()} if padding is not None else {})})


def clear_caches() -> None:
    """Forget every memoised verdict (benchmarks measure a fresh process per module)."""
    for fn in (_distributed, _memory, _equal, _thread_local, _conversion, _bank_count, _bank_count_simulated):
        fn.cache_clear()


# -- helpers --------------------------------------------------------------------------------------------

def _unknown(prop: str, subject: str, reason: str) -> Verdict:
    return Verdict("unknown", prop, subject, None, 0.0, reason)


def _structural(prop: str, subject: str, ok: bool, inputs: Mapping[str, Any], sides: Mapping[str, Any],
                message: str, t0: float) -> Verdict:
    """A finite structural claim decided by comparing concrete values (method: exhaustive over the values)."""
    if ok:
        return Verdict("proved", prop, subject, "exhaustive", time.perf_counter() - t0,
                       certificate={"compared": dict(sides)})
    return Verdict("refuted", prop, subject, "exhaustive", time.perf_counter() - t0, message,
                   Counterexample(dict(inputs), dict(sides), "the compared values, recomputed from the module"))


def _enc(t: TypeRef | None) -> str:
    return "?" if t is None else (t.encoding_text or t.text)


def _names(op: Op) -> str:
    res = ", ".join(r.name for r in op.results)
    return (res + " = " if res else "") + op.name


def _tensor(t: TypeRef | None) -> bool:
    return t is not None and t.kind == "tensor" and t.has_layout


def _layout_pair(ctx: OpContext, a: TypeRef | None, b: TypeRef | None
                 ) -> tuple[LinearLayout, LinearLayout] | str:
    A, B = ctx.built(a), ctx.built(b)
    if isinstance(A, LayoutProblem):
        return A.reason
    if isinstance(B, LayoutProblem):
        return B.reason
    return A.layout, B.layout


def _equal_layouts(ctx: OpContext, a: TypeRef | None, b: TypeRef | None, prop: str, subject: str) -> Verdict | None:
    if a is None or b is None or not (a.has_layout and b.has_layout):
        return None
    if a.shape != b.shape or a.kind != b.kind:
        return None
    if (a.encoding_text or "") == (b.encoding_text or "") and a.encoding_text:
        return None  # the same attribute text: the same layout, nothing to prove
    pair = _layout_pair(ctx, a, b)
    if isinstance(pair, str):
        return _unknown(prop, subject, pair)
    pads = _paddings(ctx, a, b)
    if pads is not None:
        return pads.with_(property=prop, subject=subject)
    return _equal(pair[0], pair[1]).with_(property=prop, subject=subject)


def _paddings(ctx: OpContext, a: TypeRef, b: TypeRef) -> Verdict | None:
    """Refuted when two buffers pad differently (the same linear component stores the element of offset
    ``o`` at different physical positions), witnessed by the least offset whose padded positions differ."""
    A, B = ctx.built(a), ctx.built(b)
    pa = A.padding if isinstance(A, BuiltLayout) else None
    pb = B.padding if isinstance(B, BuiltLayout) else None
    if pa == pb:
        return None
    t0 = time.perf_counter()
    n = A.layout.total_in_size if isinstance(A, BuiltLayout) else 0
    at = next((o for o in range(max(n, 1)) if (pa.apply(o) if pa else o) != (pb.apply(o) if pb else o)), None)
    if at is None:
        return None  # the paddings differ only past the buffer's end: the same physical positions
    return _structural("equal", "", False, {"offset": at},
                       {"lhs_position": pa.apply(at) if pa else at, "rhs_position": pb.apply(at) if pb else at},
                       f"the two buffers pad differently ({pa.text() if pa else 'no padding'} vs "
                       f"{pb.text() if pb else 'no padding'}): offset {at} is stored at different positions", t0)


# -- rule: every layout builds and is distributed / a memory layout ---------------------------------

def _layout_types(ctx: OpContext) -> Iterable[Verdict]:
    types = [r.type for r in ctx.op.results]
    for t in types:
        if not t.has_layout or t.kind not in ("tensor", "memdesc"):
            continue
        key = ("layout", t.text, ctx.warps)
        if key in ctx.seen:
            continue
        ctx.seen.add(key)
        subject = f"{t.text}"
        built = ctx.built(t)
        if isinstance(built, LayoutProblem):
            yield _unknown("layout", subject, built.reason)
            continue
        L = built.layout
        if t.kind == "tensor":
            v = _distributed(L).with_(subject=subject)
            free = {d: m for d, m in L.free_variable_masks().items() if m}
            yield v.with_(details={**v.details, "duplicated": free, "shape": list(built.shape)})
            if "warp" in L.in_dim_names and ctx.nvidia or "warp" in L.in_dim_names:
                t0 = time.perf_counter()
                lw = L.in_dim_size("warp")
                yield _structural("warps", subject, lw == ctx.warps, {"warp": min(lw, ctx.warps)},
                                  {"warps in force": ctx.warps, "warps of the layout": lw},
                                  "the layout is for a different number of warps than the module runs", t0)
        elif "offset" in L.in_dim_names:
            v = _memory(L).with_(subject=subject)
            yield v.with_(details={**v.details, "buffers": built.buffers, "buffer_shape": list(built.shape)})
        else:
            # tensor memory (row, col): rows may be replicated (a 64-row tile in 128 lanes), so
            # definition 4.14's bijection does not apply; the layout must still cover the tensor
            v = surjective(L, subject=subject)
            yield v.with_(details={**v.details, "buffers": built.buffers, "buffer_shape": list(built.shape),
                                   "memory": "tensor memory (row, col)"})


def _has_layout_result(op: Op) -> bool:
    return any(r.type.has_layout for r in op.results)


# -- rule: elementwise ops and region boundaries keep the layout -------------------------------------

_ELEMENTWISE = {"tt.addptr", "tt.bitcast", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int", "tt.clampf",
                "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.extern_elementwise",
                "tt.elementwise_inline_asm", "tt.load", "tt.atomic_rmw", "tt.atomic_cas", "tt.splat"}


def _is_elementwise(op: Op) -> bool:
    return ((op.name.startswith(("arith.", "math.")) and op.name != "arith.constant") or op.name in _ELEMENTWISE)


def _elementwise(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if not op.results:
        return
    res = op.results[0].type
    for i, t in enumerate(op.operand_types):
        v = _equal_layouts(ctx, t, res, "same_layout", f"{_names(op)}: operand {i} {_enc(t)} vs result {_enc(res)}")
        if v is not None:
            yield v


def _is_memory_op(op: Op) -> bool:
    return op.name in ("tt.store", "tt.load", "tt.atomic_rmw", "tt.atomic_cas")


def _memory_operands(ctx: OpContext) -> Iterable[Verdict]:
    """Pointer, value and mask operands of a load / store / atomic share one layout."""
    op = ctx.op
    tensors = [(i, t) for i, t in enumerate(op.operand_types) if _tensor(t)]
    if len(tensors) < 2:
        return
    i0, t0 = tensors[0]
    for i, t in tensors[1:]:
        v = _equal_layouts(ctx, t0, t, "same_layout", f"{_names(op)}: operand {i0} {_enc(t0)} vs operand {i} "
                                                      f"{_enc(t)}")
        if v is not None:
            yield v


def _use_types(ctx: OpContext) -> Iterable[Verdict]:
    """An operand's type as the op prints it denotes the same layout as the type its definition gave it."""
    op = ctx.op
    for i, (resolved, printed) in enumerate(zip(op.operand_types, op.printed_operand_types)):
        if resolved is None or printed is None or resolved.text == printed.text:
            continue
        if "other" in (resolved.kind, printed.kind) or not resolved.text or not printed.text:
            # a type form the reader does not model (or a definition whose type it could not read): no comparison
            yield _unknown("use_type", f"{_names(op)} operand {i} ({op.operands[i]})",
                           f"type not read: defined as {resolved.text or '?'!r}, used as {printed.text or '?'!r}")
            continue
        if (resolved.kind != printed.kind or resolved.shape != printed.shape
                or _canonical_element(resolved.element) != _canonical_element(printed.element)):
            t0 = time.perf_counter()
            yield _structural("use_type", f"{_names(op)} operand {i} ({op.operands[i]})", False,
                              {"operand": i}, {"defined as": resolved.text, "used as": printed.text},
                              "the operand's type at its use differs from its definition", t0)
            continue
        v = _equal_layouts(ctx, resolved, printed, "use_type",
                           f"{_names(op)} operand {i} ({op.operands[i]}): defined {_enc(resolved)}, used as "
                           f"{_enc(printed)}")
        if v is not None:
            yield v


_PTR_DEFAULT_SPACE = re.compile(r"!tt\.ptr<\s*([^<>,]+?)\s*,\s*1\s*>")


def _canonical_element(element: str) -> str:
    """An element type as compared: ``!tt.ptr<f32, 1>`` is ``!tt.ptr<f32>`` (address space 1 is the default)."""
    return _PTR_DEFAULT_SPACE.sub(r"!tt.ptr<\1>", element.replace(" ", "")).replace(",", ", ")


def _is_boundary(op: Op) -> bool:
    return op.name in ("scf.yield", "scf.for", "tt.return")


def _boundary(ctx: OpContext) -> Iterable[Verdict]:
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
        v = _equal_layouts(ctx, a, b, "same_layout", f"{op.name}: {what}")
        if v is not None:
            yield v


# -- rule: convert_layout ---------------------------------------------------------------------------

def _convert_layout(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    src = op.operand_types[0] if op.operand_types else None
    dst = op.results[0].type if op.results else None
    subject = f"{_names(op)}: {_enc(src)} -> {_enc(dst)}"
    pair = _layout_pair(ctx, src, dst)
    if isinstance(pair, str):
        yield _unknown("conversion", subject, pair)
        return
    A, B = pair
    v = _conversion(A, B).with_(subject=subject)
    details: dict[str, Any] = {}
    try:
        plan = convert(A, B)
        details["classification"] = triton_lowering(A, B)  # what Triton really emits (shuffle rule applied)
        details["plan_classification"] = plan.classification
        details["moving_dims"] = list(plan.moving_dims)
        cost: dict[str, Any] = {}
        bits = max(8, element_bits(src.element if src else "") or 32)
        if details["classification"] == "shared_memory":
            elems = 1
            for d in A.out_dims.values():
                elems *= d
            cost["tensor_bytes"] = elems * bits // 8
            try:
                swz = optimal_swizzle(A, B, bits)
                cost["store_wavefronts"] = swz.write_wavefronts
                cost["load_wavefronts"] = swz.read_wavefronts
                cost["vector_elems"] = 1 << len(swz.vector)
                cost["model"] = "llverify's optimal swizzle (seed 000 section 5.4, lemmas 9.4-9.6)"
            except LlverifyError as exc:
                cost["swizzle"] = f"not planned: {exc}"
        elif details["classification"] == "warp_shuffle":
            cost["moving_lane_bits"] = plan.cvt.in_dim_size_log2("lane") if "lane" in plan.cvt.in_dim_names else 0
        details["cost"] = cost
        details["no_op"] = details["classification"] == "noop"
    except LlverifyError as exc:
        details["classification"] = f"unclassified: {exc}"
    yield v.with_(details={**v.details, **details})


# -- rule: shape ops move no data between threads -----------------------------------------------------

def _int_array(text: str | None) -> list[int] | None:
    if not text:
        return None
    body = text.strip()
    if body.startswith("array<"):
        body = body[body.find(":") + 1:].rstrip(">")
    body = body.strip("[] ")
    try:
        return [int(p.split(":")[0].strip()) for p in body.split(",") if p.strip()]
    except ValueError:
        return None


_SHAPE_OPS = {"tt.trans", "tt.reshape", "tt.expand_dims", "tt.broadcast", "tt.join", "tt.split",
              "ttg.memdesc_trans", "ttg.memdesc_reshape", "tt.cat"}


def _shape_op(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    ins = [t for t in op.operand_types]
    outs = [r.type for r in op.results]
    subject = f"{_names(op)}: {' , '.join(_enc(t) for t in ins)} -> {' , '.join(_enc(t) for t in outs)}"
    if not ins or not outs or not all(t is not None and t.has_layout for t in ins + outs):
        return
    built_in = [ctx.built(t) for t in ins]
    built_out = [ctx.built(t) for t in outs]
    for b in built_in + built_out:
        if isinstance(b, LayoutProblem):
            yield _unknown("shape_op", subject, b.reason)
            return
    reorder = op.name == "tt.cat" or (op.name == "tt.reshape" and _has_keyword(op, "allow_reorder"))
    if reorder and ins[0].kind == "tensor":
        yield _register_counts(built_in, built_out, subject)  # type: ignore[arg-type]
        return
    A = built_in[0].layout  # type: ignore[union-attr]
    name = op.name.split(".")[-1].removeprefix("memdesc_")
    try:
        if name == "trans":
            perm = _int_array(op.attributes.get("order"))
            if perm is None:
                yield _unknown("shape_op", subject, "tt.trans without a readable 'order' attribute")
                return
            plan = infer_shape_op("trans", A, perm=perm)
        elif name == "reshape":
            plan = infer_shape_op("reshape", A, shape=list(outs[0].shape))
        elif name == "expand_dims":
            axis = op.attr_int("axis")
            if axis is None:
                yield _unknown("shape_op", subject, "tt.expand_dims without an 'axis' attribute")
                return
            plan = infer_shape_op("expand_dims", A, axis=axis)
        elif name == "broadcast":
            src_shape, dst_shape = ins[0].shape, outs[0].shape  # type: ignore[union-attr]
            L = A
            for d, (a, b) in enumerate(zip(src_shape, dst_shape)):
                if a != b:
                    L = infer_shape_op("broadcast", L, dim=d, size=b).outputs[0]
            plan = None
            inferred = [L]
        elif name == "join":
            plan = infer_shape_op("join", A)
        elif name == "split":
            plan = infer_shape_op("split", A)
        else:
            yield _unknown("shape_op", subject, f"{op.name} not modelled")
            return
    except (LlverifyError, KeyError, ValueError) as exc:
        yield _unknown("shape_op", subject, f"could not infer the no-op result layout: {exc}")
        return
    if plan is not None:
        inferred = list(plan.outputs)
    for inf, b in zip(inferred, built_out):
        declared = b.layout  # type: ignore[union-attr]
        if set(inf.out_dim_names) != set(declared.out_dim_names):
            yield _unknown("shape_op", subject, "inferred and declared layouts name different dims")
            continue
        if ins[0].kind == "memdesc":
            v = equal(inf.transpose_outs(list(declared.out_dim_names)), declared, subject=subject)
            yield v.with_(property="shape_op")
            continue
        v = _thread_local(inf, declared).with_(subject=subject)
        yield v.with_(property="shape_op", details={**v.details, "claim": "no data moves between threads"})


def _has_keyword(op: Op, word: str) -> bool:
    """A unit attribute given in braces or as a bare keyword of the custom form (3.9 prints
    ``tt.reshape %c allow_reorder efficient_layout : ...``)."""
    if word in op.attributes:
        return True
    head = op.text.split(" : ", 1)[0]
    return f" {word}" in head.split("loc(", 1)[0]


def _register_counts(ins: list[BuiltLayout], outs: list[BuiltLayout], subject: str) -> Verdict:
    """``tt.cat`` and ``tt.reshape {allow_reorder}`` may put the result's elements in any order, so Triton
    lowers them by handing each thread's operand registers, in order, to the result: no data moves between
    threads exactly when every thread holds as many result registers as operand registers (their sum for
    ``cat``) and the thread dims (lane, warp, block) are the same.  Compared as concrete sizes."""
    t0 = time.perf_counter()

    def size(L: LinearLayout, d: str) -> int:
        return L.in_dim_size(d) if d in L.in_dim_names else 1

    regs_in = sum(size(b.layout, "register") for b in ins)
    regs_out = sum(size(b.layout, "register") for b in outs)
    threads_in = {d: size(ins[0].layout, d) for d in ("lane", "warp", "block")}
    threads_out = {d: size(outs[0].layout, d) for d in ("lane", "warp", "block")}
    ok = regs_in == regs_out and threads_in == threads_out
    v = _structural("shape_op", subject, ok, {"thread": 0},
                    {"registers per thread (operands)": regs_in, "registers per thread (result)": regs_out,
                     "threads (operands)": threads_in, "threads (result)": threads_out},
                    "the result does not hold each thread's operand registers: the reordering lowering would "
                    "need data from other threads", t0)
    return v.with_(details={"claim": "each thread keeps its registers (element order unspecified by the op)"})


# -- rule: reduce / scan result layouts ------------------------------------------------------------

def _reduce_scan(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    axis = op.attr_int("axis")
    for i, (t, r) in enumerate(zip(op.operand_types, op.results)):
        rt = r.type
        subject = f"{_names(op)} axis={axis}: operand {i} {_enc(t)} -> {_enc(rt)}"
        if t is None or not t.has_layout or rt.kind != "tensor" or not rt.has_layout:
            continue
        if axis is None:
            yield _unknown("reduce_layout", subject, "no readable 'axis' attribute")
            continue
        if op.name == "tt.scan":
            v = _equal_layouts(ctx, t, rt, "scan_layout", subject)
            if v is not None:
                yield v
            continue
        if t.encoding is None or t.encoding_error:
            yield _unknown("reduce_layout", subject, f"operand encoding not read: {t.encoding_error}")
            continue
        declared = ctx.built(rt)
        if isinstance(declared, LayoutProblem):
            yield _unknown("reduce_layout", subject, declared.reason)
            continue
        try:
            expected = build_spec({"kind": "slice", "dim": axis, "parent": dict(t.encoding)}, list(rt.shape))
        except LlverifyError as exc:
            yield _unknown("reduce_layout", subject, f"slice of the operand layout not built: {exc}")
            continue
        yield equal(expected, declared.layout, subject=subject).with_(property="reduce_layout")


# -- rule: tt.gather -----------------------------------------------------------------------------------

def _gather(ctx: OpContext) -> Iterable[Verdict]:
    """The result has the index's layout (Triton's verifier); with ``efficient_layout`` the gather is proved
    warp-local (:func:`llverify.prove.gather_locality.gather_warp_local`), the path Triton's gather-layout pass
    chooses; a gather that is not is ``unknown`` (still correct IR: Triton lowers it through shared memory)."""
    op = ctx.op
    axis = op.attr_int("axis")
    src, idx = (op.operand_types + (None, None))[:2]
    res = op.results[0].type if op.results else None
    if src is None or idx is None or res is None or not (_tensor(src) and _tensor(idx) and _tensor(res)):
        return
    v = _equal_layouts(ctx, idx, res, "gather_layout", f"{_names(op)}: index {_enc(idx)} vs result {_enc(res)}")
    if v is not None:
        yield v
    if "efficient_layout" not in op.attributes:
        return
    subject = f"{_names(op)} axis={axis} efficient_layout: src {_enc(src)}, index {_enc(idx)}"
    if axis is None:
        yield _unknown("gather_warp_local", subject, "no readable 'axis' attribute")
        return
    pair = _layout_pair(ctx, src, idx)
    if isinstance(pair, str):
        yield _unknown("gather_warp_local", subject, pair)
        return
    v = gather_warp_local(pair[0], pair[1], axis, subject=subject)
    if v.status == "refuted":
        # `efficient_layout` is a hint ("keep this layout"), not a validity condition: Triton's verifier accepts
        # any layout with it and GatherOpToLLVM picks the warp-shuffle path by isWarpLocal(), falling back to
        # shared memory otherwise (valid IR in Triton's lit tests does this).  Not warp-local: the fast path is
        # not taken, which is worth reporting but is no refutation.
        yield _unknown("gather_warp_local", subject,
                       f"efficient_layout gather is not warp-local, so Triton lowers it through shared memory: "
                       f"{v.message}")
        return
    yield v


# -- rule: TMA copies use the descriptor's layout -------------------------------------------------------

_TMA_COPIES = ("ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
               "ttng.async_tma_reduce")


def _tma_buffer(ctx: OpContext) -> Iterable[Verdict]:
    """A TMA copy moves a box of the descriptor's block shape in the descriptor's shared layout: the shared
    buffer (the first memdesc operand; a barrier follows it) must have that shape, element type and layout."""
    op = ctx.op
    t0 = time.perf_counter()
    desc = op.operand_types[0] if op.operand_types else None
    buf = next((t for t in op.operand_types[1:] if t is not None and t.kind == "memdesc"), None)
    if desc is None or desc.kind != "tensordesc" or buf is None or desc.encoding is None:
        return  # a descriptor without a shared encoding (before lowering): nothing to compare
    subject = f"{op.name}: buffer {_enc(buf)} vs descriptor {_enc(desc)}"
    view = tuple(buf.shape[len(buf.shape) - len(desc.shape):])
    # Triton compares the descriptor's signless block type: `!tt.tensordesc<64x64xsi8>` moves i8 data
    desc = replace(desc, element=_signless(desc.element))
    if view != tuple(desc.shape) and buf.element == desc.element and \
            _drop_leading_ones(buf.shape) == _drop_leading_ones(desc.shape):
        # a rank-reducing copy (Triton's verifier: equal element counts; `1x256x128` block into a `256x128`
        # buffer): the same box, its unit dims dropped
        if (buf.encoding_text or "") == (desc.encoding_text or ""):
            yield _structural("tma_buffer", subject, True, {}, {"encoding": desc.encoding_text,
                                                                 "rank-reducing": True}, "", t0)
        else:
            yield _unknown("tma_buffer", subject, "rank-reducing TMA copy with a differently written shared layout: "
                                                  "the layouts of different ranks are not compared")
        return
    if view != tuple(desc.shape) or buf.element != desc.element:
        yield _structural("tma_buffer", subject, False, {"operand": 1},
                          {"buffer": f"{list(view)} x {buf.element}",
                           "descriptor block": f"{list(desc.shape)} x {desc.element}"},
                          "the buffer's shape or element type is not the descriptor's block", t0)
        return
    if (buf.encoding_text or "") == (desc.encoding_text or ""):
        yield _structural("tma_buffer", subject, True, {}, {"encoding": desc.encoding_text}, "", t0)
        return
    d_built = ctx.built(replace(desc, kind="memdesc"))  # the descriptor's block as a shared buffer
    b_built = ctx.built(buf)
    for b in (d_built, b_built):
        if isinstance(b, LayoutProblem):
            yield _unknown("tma_buffer", subject, b.reason)
            return
    assert isinstance(d_built, BuiltLayout) and isinstance(b_built, BuiltLayout)
    yield _equal(d_built.layout, b_built.layout).with_(property="tma_buffer", subject=subject)


def _signless(element: str) -> str:
    return re.sub(r"^[su](i\d+)$", r"\1", element)


def _drop_leading_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    i = 0
    while i < len(shape) - 1 and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


# -- rule: TMEM accesses stay in each warp's lane quarter ------------------------------------------------

def _tmem_access(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if op.name == "ttng.tmem_load":
        mem, reg = (op.operand_types[0] if op.operand_types else None), (op.results[0].type if op.results else None)
    elif op.name == "ttng.tmem_store":
        reg, mem = (op.operand_types + (None, None))[:2]
    elif op.name == "ttng.tmem_alloc" and op.operand_types:
        reg, mem = op.operand_types[0], op.results[0].type if op.results else None
    else:
        return
    if reg is None or mem is None or not _tensor(reg) or mem.kind != "memdesc":
        return
    subject = f"{_names(op)}: {_enc(reg)} <-> {_enc(mem)}"
    if ctx.in_partition:
        yield _unknown("tmem_lane_quarter", subject, "inside a warp_specialize partition: its first warp (and so "
                                                     "each warp's lane quarter) is not stated in the TTGIR")
        return
    R, M = ctx.built(reg), ctx.built(mem)
    for b in (R, M):
        if isinstance(b, LayoutProblem):
            yield _unknown("tmem_lane_quarter", subject, b.reason)
            return
    assert isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)
    if not M.layout.has_in_dim("row"):
        yield _unknown("tmem_lane_quarter", subject, "the memdesc is not a tensor-memory layout")
        return
    yield tmem_lane_quarters(R.layout, M.layout, subject=subject)


# -- rule: broadcast stores / atomics write each element once -------------------------------------

def _stores(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    idx = 1 if op.name in ("tt.store", "tt.atomic_rmw", "tt.atomic_cas") else 0
    t = op.operand_types[idx] if len(op.operand_types) > idx else None
    if t is None or not _tensor(t):
        return
    key = ("store", t.text, op.name)
    if key in ctx.seen:
        return
    ctx.seen.add(key)
    subject = f"{op.name} of {_enc(t)}"
    built = ctx.built(t)
    if isinstance(built, LayoutProblem):
        yield _unknown("broadcast_store", subject, built.reason)
        return
    v = prove_broadcast_store(broadcast_predicate(built.layout))
    yield v.with_(subject=subject)


# -- rule: shared-memory accesses: bank wavefronts --------------------------------------------------

def _shared_access(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    if op.name == "ttg.local_load":
        mem, reg = (op.operand_types[0] if op.operand_types else None), (op.results[0].type if op.results else None)
    elif op.name in ("ttg.local_store",):
        reg, mem = (op.operand_types + (None, None))[:2]
    elif op.name == "ttg.local_alloc":
        if not op.operand_types:
            return
        reg, mem = op.operand_types[0], op.results[0].type if op.results else None
    else:
        return
    if reg is None or mem is None or not _tensor(reg) or mem.kind != "memdesc":
        return
    direction = "load" if op.name == "ttg.local_load" else "store"
    subject = f"{_names(op)} ({direction}): {_enc(reg)} <-> {_enc(mem)}"
    try:
        model = bank_model_for_target(ctx.module.target)
    except LlverifyError as exc:
        yield _unknown("bank_conflicts", subject, str(exc))
        return
    R, M = ctx.built(reg), ctx.built(mem)
    for b in (R, M):
        if isinstance(b, LayoutProblem):
            yield _unknown("bank_conflicts", subject, b.reason)
            return
    assert isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)
    if tuple(reg.shape) != tuple(M.shape):
        yield _unknown("bank_conflicts", subject, f"access of shape {list(reg.shape)} into a buffer of shape "
                                                  f"{list(M.shape)} (a subview): not modelled")
        return
    bits = element_bits(reg.element)
    if bits not in (8, 16, 32, 64):
        yield _unknown("bank_conflicts", subject, f"element width {bits} bits not modelled")
        return
    if R.layout.in_dim_size("lane") != model.lanes:
        yield _unknown("bank_conflicts", subject, f"the access has {R.layout.in_dim_size('lane')} lanes, the "
                                                  f"{model.name} bank model {model.lanes}")
        return
    if M.padding is not None or model != NVIDIA:
        v = _bank_count_simulated(R.layout, M.layout, bits, M.padding)
    else:
        v = _bank_count(R.layout, M.layout, bits)
    yield v.with_(subject=subject, details={**v.details, "direction": direction, "bank_model": model.name})


# -- rule: dot operands are what the instruction needs ---------------------------------------------

def _dot(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    t0 = time.perf_counter()
    res = op.results[0].type if op.results else None
    if op.name == "tt.dot":
        for i, t in enumerate(op.operand_types[:2]):
            if t is None or t.encoding is None:
                continue
            subject = f"{_names(op)} operand {i}: {_enc(t)}"
            enc = t.encoding
            if enc.get("kind") != "dot_operand":
                yield _structural("dot_operands", subject, False, {"operand": i},
                                  {"encoding": enc.get("kind"), "required": "dot_operand"},
                                  "a tt.dot operand must have a #ttg.dot_op encoding", t0)
                continue
            yield _structural("dot_operands", subject, enc.get("operand_index") == i, {"operand": i},
                              {"opIdx": enc.get("operand_index"), "required": i},
                              "operand index does not match the operand's position", t0)
            parent = enc.get("parent")
            if res is not None and res.encoding is not None and isinstance(parent, dict):
                if parent != dict(res.encoding):
                    pair_v = _parent_equal(parent, res, subject)
                    if pair_v is not None:
                        yield pair_v
                pk = parent.get("kind")
                bits = element_bits(t.element)
                if pk == "nvidia_mma" and list(parent.get("version", [0]))[0] == 2 and bits:
                    want = max(1, 32 // bits)
                    kw = enc.get("k_width")
                    if isinstance(kw, int) and kw > want and bits < 64 and (kw * bits) % 32 == 0:
                        # Triton's MMAv2 lowering accepts a kWidth that is a multiple of 32 / bits ("largeK":
                        # each thread's k run is re-sliced into 32-bit pieces, the same way for A and B)
                        yield _unknown("dot_operands", subject + " kWidth",
                                       f"kWidth {kw} is {kw // want} x (32 / {bits} bits): Triton's mma v2 "
                                       f"lowering re-slices k (largeK); that re-slicing is not modelled")
                    else:
                        yield _structural("dot_operands", subject + " kWidth", kw == want,
                                          {"operand": i}, {"kWidth": kw, "required (32 / element bits, or a "
                                                                         "multiple below 64 bits)": want},
                                          "kWidth does not match the element width for mma v2", t0)
        encs = [t.encoding for t in op.operand_types[:2] if t is not None and t.encoding is not None]
        if len(encs) == 2 and all(e.get("kind") == "dot_operand" for e in encs):
            # Triton's verifier: "mismatching kWidth between A and B operands"
            yield _structural("dot_operands", f"{_names(op)}: kWidth of A and B", encs[0].get("k_width") ==
                              encs[1].get("k_width"), {"operands": [0, 1]},
                              {"kWidth A": encs[0].get("k_width"), "kWidth B": encs[1].get("k_width")},
                              "A and B have different kWidth", t0)
    elif op.name in ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled"):
        for i, t in enumerate(op.operand_types[:2]):
            if t is None or t.kind != "memdesc" or t.encoding is None:
                continue
            if t.memory_space and "tensor_memory" in t.memory_space:
                continue
            subject = f"{_names(op)} operand {i}: {_enc(t)}"
            kind = t.encoding.get("kind")
            yield _structural("dot_operands", subject, kind in ("nvmma_shared", "shared_linear"), {"operand": i},
                              {"encoding": kind, "required": "nvmma_shared"},
                              "a wgmma / tcgen5 shared operand must use an NVMMA shared layout", t0)


def _parent_equal(parent: Mapping[str, Any], res: TypeRef, subject: str) -> Verdict | None:
    try:
        P = build_spec(dict(parent), list(res.shape))
        R = layout_of(res)
    except LlverifyError as exc:
        return _unknown("dot_operands", subject, f"parent layout not built: {exc}")
    if isinstance(R, LayoutProblem):
        return _unknown("dot_operands", subject, R.reason)
    return equal(P, R.layout, subject=subject + " parent vs result").with_(property="dot_operands")


# -- rule: subslices stay inside their allocation ---------------------------------------------------

def _memdesc_index(ctx: OpContext) -> Iterable[Verdict]:
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
    subject = f"{_names(op)}[{index}] of {n} buffers"
    values = ctx.scalars().value_set(index)
    if values is None:
        # not enumerable: prove the bound for every value of the unknowns (Z3), else no claim
        status = SymbolicScalars(ctx.function).always_between(index, 0, n)
        if status == "unsat":
            yield Verdict("proved", "view_in_bounds", subject, "smt", time.perf_counter() - t0,
                          f"0 <= {index} < {n} for every value of the loop state and kernel arguments (Z3)")
            return
        yield _unknown("view_in_bounds", subject, f"the values of {index} are not enumerable (a kernel argument, "
                                                  "a loop bound or state not constant, or too many) and Z3 "
                                                  "does not bound it for arbitrary inputs")
        return
    bad = sorted(v for v in values if not 0 <= v < n)
    if bad and not list(ctx.scalars()._deps(index)):
        yield _structural("view_in_bounds", subject, False, {"index": bad[0]},
                          {"buffers": n, "index": bad[0]}, f"buffer index {bad[0]} is outside the {n} buffers", t0)
        return
    if bad:
        # a loop state reaches it, but only after some iterations: real once the loop runs long enough
        yield _unknown("view_in_bounds", subject, f"the loop state can make the index {bad[0]}, outside the {n} "
                                                  f"buffers, once the loop runs long enough (reachable values "
                                                  f"{sorted(values)[:16]})")
        return
    yield _structural("view_in_bounds", subject, True, {}, {"buffers": n, "reachable index values": sorted(values)},
                      "", t0)


def _subslice(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    t0 = time.perf_counter()
    src = op.operand_types[0] if op.operand_types else None
    res = op.results[0].type if op.results else None
    if src is None or res is None:
        return
    offsets = _int_array(op.attributes.get("offsets"))
    subject = f"{_names(op)} offsets={offsets}: {list(res.shape)} inside {list(src.shape)}"
    if offsets is None:
        yield _unknown("view_in_bounds", subject, "no readable 'offsets' attribute")
        return
    for d, (o, n, m) in enumerate(zip(offsets, res.shape[-len(offsets):], src.shape[-len(offsets):])):
        if o < 0 or o + n > m:
            yield _structural("view_in_bounds", subject, False, {"dim": d},
                              {"offset": o, "view size": n, "allocation size": m},
                              "the view reaches past its allocation", t0)
            return
    yield _structural("view_in_bounds", subject, True, {}, {"offsets": offsets, "view": list(res.shape),
                                                           "allocation": list(src.shape)}, "", t0)


RULES: tuple[Rule, ...] = (
    Rule("layout", "every tensor / memdesc layout builds and is a distributed (def. 4.10) or memory (def. 4.14) "
         "layout for its shape, for the warp count in force", "seed 000, definitions 4.10 and 4.14",
         _has_layout_result, _layout_types),
    Rule("same_layout", "elementwise operands and results have equal layouts", "seed 000, section 4 (layouts "
         "as maps; elementwise ops need equal maps)", _is_elementwise, _elementwise),
    Rule("memory_operands", "pointer, value and mask of a load / store / atomic have one layout",
         "TritonGPU verifier invariants", _is_memory_op, _memory_operands),
    Rule("use_type", "every operand is used with the layout its definition gave it",
         "MLIR SSA typing (a mismatch means the printed IR was edited or mis-built)",
         lambda op: bool(op.printed_operand_types), _use_types),
    Rule("region_boundary", "values crossing scf.for / scf.if / tt.return boundaries keep their layout",
         "TritonGPU verifier invariants", _is_boundary, _boundary),
    Rule("conversion", "ttg.convert_layout moves every element to its place; classified and costed",
         "seed 000, section 5.4 and lemma 9.4", lambda op: op.name == "ttg.convert_layout", _convert_layout),
    Rule("shape_op", "shape ops move no data between threads", "seed 000, theorem 9.3",
         lambda op: op.name in _SHAPE_OPS, _shape_op),
    Rule("reduce_scan", "tt.reduce results are the slice of the operand layout along the axis; tt.scan keeps it",
         "seed 000, proposition 4.8", lambda op: op.name in ("tt.reduce", "tt.scan"), _reduce_scan),
    Rule("gather", "tt.gather: the result has the index layout; with efficient_layout it is warp-local "
         "(Triton's shuffle path)", "seed 000, section 5.5; Triton GatherLoweringHelper::isWarpLocal",
         lambda op: op.name == "tt.gather", _gather),
    Rule("tma_buffer", "TMA copies read / write a shared buffer with the descriptor's block shape, element type "
         "and shared layout", "TritonNvidiaGPU TMA op semantics (the box is copied in the descriptor's layout)",
         lambda op: op.name in _TMA_COPIES, _tma_buffer),
    Rule("tmem_access", "tmem_load / tmem_store / tmem_alloc: every warp's elements lie in its TMEM lane quarter",
         "PTX ISA tcgen05.ld/st (a warp reaches lanes 32 (w mod 4) .. + 31)",
         lambda op: op.name in ("ttng.tmem_load", "ttng.tmem_store", "ttng.tmem_alloc"), _tmem_access),
    Rule("broadcast_store", "stores and atomics of broadcast elements write each element exactly once",
         "seed 000, section 5.3 (free variables)", lambda op: op.name in ("tt.store", "tt.atomic_rmw",
                                                                          "tt.atomic_cas", "tt.histogram"), _stores),
    Rule("shared_access", "local_alloc / local_store / local_load: exact bank wavefronts (NVIDIA)",
         "seed 000, lemma 9.4", lambda op: op.name in ("ttg.local_alloc", "ttg.local_store", "ttg.local_load"),
         _shared_access),
    Rule("dot_operands", "dot operands have the layouts the MMA instruction needs",
         "seed 000, proposition 4.7", lambda op: op.name in ("tt.dot", "ttng.warp_group_dot", "ttng.tc_gen5_mma",
                                                             "ttng.tc_gen5_mma_scaled"), _dot),
    Rule("view_in_bounds", "memdesc subslices stay inside their allocation", "TritonGPU memdesc semantics",
         lambda op: op.name in ("ttg.memdesc_subslice",), _subslice),
    Rule("buffer_index", "memdesc_index picks one of the allocation's buffers for every reachable index value",
         "TritonGPU memdesc semantics; the pipeliner's wrap-around counters enumerated exactly",
         lambda op: op.name == "ttg.memdesc_index", _memdesc_index),
)


def rules_for(op: Op) -> list[Rule]:
    return [r for r in RULES if r.applies(op)]
