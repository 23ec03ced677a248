"""What every gate rule shares: the op context, the rule declaration, memoised proofs and verdict helpers.

Verdicts here are pure functions of immutable layouts, so each is decided once per process
(:func:`clear_caches` forgets them; benchmarks measure a fresh process per module).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from llverify.codegen.bank_model import NVIDIA, BankModel
from llverify.codegen.bank_sim import MisalignedVectors, simulate_wavefronts
from llverify.codegen.banks import access_to_offsets, bank_wavefronts, clear_memo as _clear_inverses_memo
from llverify.codegen.ldst_select import clear_memo as _clear_sides_memo
from llverify.codegen.shape_ops import infer_shape_op
from llverify.errors import LlverifyError
from llverify.hw.padded import Padding
from llverify.layout import LinearLayout, clear_memo as _clear_layout_memo
from llverify.prove.locality import thread_local
from llverify.prove.plan_banks import prove_bank_count
from llverify.prove.properties import conversion, distributed, equal, memory
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, LayoutProblem, element_bits, layout_of
from llverify.ttgir.model import Function, Module, Op, TypeRef
from llverify.ttgir.partitions import Scope, partition_scopes
from llverify.ttgir.scalars import ValueSets
from llverify.ttgir.scalars_symbolic import SymbolicScalars

__all__ = ["OpContext", "UNSTATED_WARPS", "Rule", "memo_distributed", "memo_memory", "memo_equal", "memo_thread_local",
           "memo_conversion", "memo_shape_op", "memoised", "bank_count_exact", "bank_count_simulated", "clear_caches", "unknown", "structural",
           "enc_text", "op_names", "is_tensor", "layout_pair", "compared_layouts", "equal_layouts", "paddings_differ", "int_array",
           "has_keyword"]


#: :attr:`OpContext.warps` where no warp count is stated for the op (no ``ttg.num-warps`` on its module or function
#: and no ``warp_specialize`` partition count): the layout's own warp count is then not compared with any
UNSTATED_WARPS = 0


@dataclass(slots=True)
class OpContext:
    """What a rule sees: the op, its function and module, the warp count in force, the enclosing op."""

    module: Module
    function: Function
    op: Op
    warps: int
    parent: Op | None = None
    seen: set[Any] = field(default_factory=set)
    in_partition: bool = False  # inside a non-default warp_specialize partition
    value_sets: dict[str, Any] = field(default_factory=dict)  # per function name, shared by the module's ops
    layouts: dict[Any, Any] = field(default_factory=dict)  # by type identity; frozen encodings

    def symbolic_scalars(self) -> SymbolicScalars:
        """The Z3 view of the scalars in this op's scope (:class:`~llverify.ttgir.scalars_symbolic.SymbolicScalars`), once."""
        key = "#symbolic:" + self._scope_key(self._scope())
        sym = self.value_sets.get(key)
        if sym is None:
            sym = self.value_sets[key] = SymbolicScalars(self.function, self.scalars())  # type: ignore[assignment]
        return sym  # type: ignore[return-value]

    def scalars(self) -> ValueSets:
        """The scalar value sets of this op's scope (:mod:`llverify.ttgir.scalars`): its function's body, or the
        ``warp_specialize`` partition it is in (partitions are isolated: their names are their own), built once."""
        return self._scope_values(self._scope())

    def _scope(self) -> Scope | None:
        key = "#scopes:" + self.function.name
        scopes = self.value_sets.get(key)
        if scopes is None:
            scopes = self.value_sets[key] = partition_scopes(self.function)
        return scopes.get(id(self.op))

    def _scope_key(self, scope: Scope | None) -> str:
        return self.function.name + ("" if scope is None else f"#partition{id(scope.region)}")

    def _scope_values(self, scope: Scope | None) -> ValueSets:
        key = self._scope_key(scope)
        vs = self.value_sets.get(key)
        if vs is None:
            if scope is None:
                vs = ValueSets(self.function)
            else:
                vs = ValueSets(self.function, scope.region, self._scope_values(scope.parent), scope.op.operands)
            self.value_sets[key] = vs
        return vs

    @property
    def nvidia(self) -> bool:
        return self.module.target.startswith("cuda")

    def built(self, t: TypeRef | None) -> BuiltLayout | LayoutProblem:
        if t is None:
            return LayoutProblem("operand type unknown (defined outside the module text)")
        hit = self.layouts.get(id(t))
        if hit is not None and hit[0] is t:  # the type object itself is kept, so its id is not reused
            return hit[1]
        built = layout_of(t, self.layouts.setdefault("frozen", {}))
        self.layouts[id(t)] = (t, built)
        return built


#: every decision memoised with :func:`memoised`, forgotten together by :func:`clear_caches`
_MEMOS: list[Any] = []


def memoised(maxsize: int = 4096) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: the function (pure, of hashable immutable arguments: layouts, widths, target names) decided once
    per argument tuple per process (``functools.lru_cache``) and forgotten by :func:`clear_caches`.  A memoised
    verdict is returned to every caller, so callers give it their own subject with ``with_`` and never rely on
    its ``seconds`` being their own."""
    def wrap(fn: Callable[..., Any]) -> Any:
        cached = lru_cache(maxsize=maxsize)(fn)
        _MEMOS.append(cached)
        return cached
    return wrap


@dataclass(frozen=True)
class Rule:
    """One obligation family (see the module docstring)."""

    name: str
    claim: str
    paper: str
    applies: Callable[[Op], bool]
    check: Callable[[OpContext], Iterable[Verdict]]


@memoised()
def memo_distributed(L: LinearLayout) -> Verdict:
    return distributed(L)


@memoised()
def memo_memory(L: LinearLayout, fp4_padded: bool = False) -> Verdict:
    if fp4_padded and L.has_in_dim("offset"):
        # `fp4Padded = true` (Blackwell's mxfp4 operand of an f8f6f4 MMA): each 16-byte group holds 8 bytes of
        # packed fp4 data and 8 bytes of padding, so Triton's layout maps offset bit 3 (byte 8) to nothing.  The
        # claim is then on the data bytes: the layout without that one zero column is a memory layout
        offs = L.bases["offset"]
        if len(offs) > 3 and not any(offs[3]) and all(any(b) for i, b in enumerate(offs) if i != 3):
            bases = {d: [list(b) for i, b in enumerate(L.bases[d]) if d != "offset" or i != 3]
                     for d in L.in_dim_names}
            v = memo_memory(LinearLayout(bases, dict(L.out_dims), require_surjective=False))
            return v.with_(details={**v.details, "fp4_padded": "offset bit 3 (bytes 8-15 of each 16) is padding, "
                                                                "dropped before the check"})
    if L.has_in_dim("block") and any(not any(b) for b in L.bases["block"]):
        # a CGA layout that broadcasts over CTAs (`CGALayout = [[0, 0]]`): every such CTA holds its own copy of
        # the same data, so a zero block basis is no aliasing; the bijection is checked without those bases
        bases = {d: [list(b) for b in L.bases[d] if d != "block" or any(b)] for d in L.in_dim_names}
        reduced = LinearLayout(bases, dict(L.out_dims), require_surjective=False)
        v = memory(reduced)
        return v.with_(details={**v.details, "broadcast over CTAs": "zero block bases dropped before the check"})
    return memory(L)


@memoised(8192)
def memo_equal(A: LinearLayout, B: LinearLayout) -> Verdict:
    return equal(A, B)


@memoised()
def memo_thread_local(A: LinearLayout, B: LinearLayout) -> Verdict:
    return thread_local(A, B)


@memoised()
def memo_shape_op(op: str, A: LinearLayout, params: tuple[tuple[str, Any], ...]) -> tuple[LinearLayout, ...]:
    """The result layouts of :func:`~llverify.codegen.shape_ops.infer_shape_op` (forward), once per argument."""
    return infer_shape_op(op, A, **dict(params)).outputs


@memoised()
def memo_conversion(A: LinearLayout, B: LinearLayout) -> Verdict:
    return conversion(A, B)


@memoised()
def bank_count_exact(R: LinearLayout, M: LinearLayout, bits: int) -> Verdict:
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


@memoised()
def bank_count_simulated(R: LinearLayout, M: LinearLayout, bits: int, padding: Padding | None = None,
                         model: BankModel = NVIDIA, direction: str = "load") -> Verdict:
    """Wavefronts per instruction without a closed form (AMD's wave64 LDS; a padded layout, whose physical
    offsets ``padding.apply(o)`` are not F2-linear so lemma 9.4 does not apply): decided by enumerating every
    instruction of every wave under each of ``model``'s candidate phase rules for the access width and
    ``direction``; unknown where the model does not establish a rule for that width."""
    t0 = time.perf_counter()
    if R.total_in_bits > 22:
        return unknown("bank_conflicts", "bank_wavefronts", "access too large to enumerate (> 2^22 points) and "
                                                             "no closed form for this bank model")
    try:
        sim = simulate_wavefronts(R, M, bits, padding=padding, model=model, direction=direction)
    except MisalignedVectors as exc:  # the pair of vectors is kept for the alignment verdict (rules_memory)
        return Verdict("unknown", "bank_conflicts", "bank_wavefronts", None, time.perf_counter() - t0,
                       f"not simulated: {exc}", details={"misaligned": {"align": exc.align, "first": exc.first,
                                                                        "second": exc.second}})
    except LlverifyError as exc:
        return unknown("bank_conflicts", "bank_wavefronts", f"not simulated: {exc}")
    exact = sim.max_wavefronts == sim.min_wavefronts
    msg = (f"exactly {sim.wavefronts} wavefronts per instruction" if exact else
           f"between {sim.min_wavefronts} and {sim.max_wavefronts} wavefronts per instruction")
    if len(sim.per_rule) > 1:
        msg += (" under each documented phase rule" if sim.rules_agree else
                " over the documented phase rules, which disagree (" +
                "; ".join(f"{s}: {mn}..{mx}" for s, mx, mn in sim.per_rule) + ")")
    if padding is not None:
        msg += f", padding {padding.text()} applied to every offset"
    return Verdict("proved", "bank_conflicts", "bank_wavefronts", "exhaustive", time.perf_counter() - t0,
                   f"{msg} (vector {sim.vector.bits} bits, every instruction simulated)",
                   certificate={"instructions_simulated": sim.instructions},
                   details={"wavefronts": sim.max_wavefronts, "min_wavefronts": sim.min_wavefronts,
                            "vector_bits": sim.vector.bits,
                            **({"phase_rules": [{"source": s, "max": mx, "min": mn} for s, mx, mn in sim.per_rule]}
                               if len(sim.per_rule) > 1 else {}),
                            **({"padding": padding.text()} if padding is not None else {})})


def clear_caches() -> None:
    """Forget every memoised verdict (benchmarks measure a fresh process per module)."""
    for fn in (*_MEMOS, access_to_offsets, element_bits):
        fn.cache_clear()
    _clear_layout_memo()
    _clear_sides_memo()
    _clear_inverses_memo()


def unknown(prop: str, subject: str, reason: str) -> Verdict:
    return Verdict("unknown", prop, subject, None, 0.0, reason)


def structural(prop: str, subject: str, ok: bool, inputs: Mapping[str, Any], sides: Mapping[str, Any],
                message: str, t0: float) -> Verdict:
    """A finite structural claim decided by comparing concrete values (method: exhaustive over the values)."""
    if ok:
        return Verdict("proved", prop, subject, "exhaustive", time.perf_counter() - t0,
                       certificate={"compared": dict(sides)})
    return Verdict("refuted", prop, subject, "exhaustive", time.perf_counter() - t0, message,
                   Counterexample(dict(inputs), dict(sides), "the compared values, recomputed from the module"))


def enc_text(t: TypeRef | None) -> str:
    return "?" if t is None else (t.encoding_text or t.text)


def op_names(op: Op) -> str:
    res = ", ".join(r.name for r in op.results)
    return (res + " = " if res else "") + op.name


def is_tensor(t: TypeRef | None) -> bool:
    return t is not None and t.kind == "tensor" and t.has_layout


def layout_pair(ctx: OpContext, a: TypeRef | None, b: TypeRef | None
                 ) -> tuple[LinearLayout, LinearLayout] | str:
    A, B = ctx.built(a), ctx.built(b)
    if isinstance(A, LayoutProblem):
        return A.reason
    if isinstance(B, LayoutProblem):
        return B.reason
    return A.layout, B.layout


def compared_layouts(a: TypeRef | None, b: TypeRef | None) -> bool:
    """Whether :func:`equal_layouts` has a claim to decide for ``a`` and ``b``: both typed with a layout, of one
    kind and shape, and not the same attribute text (the same text is the same layout, nothing to prove).  A rule
    asks this before it words the subject of a comparison that would give no verdict."""
    if a is None or b is None or not (a.has_layout and b.has_layout):
        return False
    if a.shape != b.shape or a.kind != b.kind:
        return False
    return not (a.encoding_text and a.encoding_text == b.encoding_text)


def equal_layouts(ctx: OpContext, a: TypeRef | None, b: TypeRef | None, prop: str, subject: str) -> Verdict | None:
    """None when there is nothing to compare (:func:`compared_layouts`); else whether ``a`` and ``b`` denote the
    same layout (and padding), as ``prop`` of ``subject``."""
    if not compared_layouts(a, b):
        return None
    pair = layout_pair(ctx, a, b)
    if isinstance(pair, str):
        return unknown(prop, subject, pair)
    pads = paddings_differ(ctx, a, b)
    if pads is not None:
        return pads.with_(property=prop, subject=subject)
    return memo_equal(pair[0], pair[1]).with_(property=prop, subject=subject)


def paddings_differ(ctx: OpContext, a: TypeRef, b: TypeRef) -> Verdict | None:
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
    return structural("equal", "", False, {"offset": at},
                       {"lhs_position": pa.apply(at) if pa else at, "rhs_position": pb.apply(at) if pb else at},
                       f"the two buffers pad differently ({pa.text() if pa else 'no padding'} vs "
                       f"{pb.text() if pb else 'no padding'}): offset {at} is stored at different positions", t0)


def int_array(text: str | None) -> list[int] | None:
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


def has_keyword(op: Op, word: str) -> bool:
    """A unit attribute given in braces or as a bare keyword of the custom form (3.9 prints
    ``tt.reshape %c allow_reorder efficient_layout : ...``)."""
    if word in op.attributes:
        return True
    head = op.text.split(" : ", 1)[0]
    return f" {word}" in head.split("loc(", 1)[0]
