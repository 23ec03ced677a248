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

from typing import Callable

from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, TMEM_ACCESS_OPS
from llverify.ttgir.model import Op
from llverify.ttgir.rule_support import OpContext, Rule
from llverify.ttgir.rule_support import clear_caches as _clear_proofs
from llverify.ttgir.rules_data import (IN_THREAD_OPS, SHAPE_OPS, STORE_OPS, UPCAST_OPS, convert_layout, fp4_upcast,
                                       gather, in_thread, reduce_scan, shape_op, stores)
from llverify.ttgir.rules_descriptor_gather import DESCRIPTOR_GATHER_OPS, descriptor_gather
from llverify.ttgir.rules_dot import dot_operands
from llverify.ttgir.rules_dot_i8 import DOT_I8, dot_i8
from llverify.ttgir.rules_mfma_commit import MFMA_COMMIT, mfma_commit
from llverify.ttgir.rules_packed_arith import PACKED_ARITH, packed_arith
from llverify.ttgir.rules_register_tiles import REGISTER_TILE_OPS, register_tiles
from llverify.ttgir.rules_async_copy import ASYNC_COPY_OPS, async_copy
from llverify.ttgir.rules_cta import CTA_LOCAL_OPS, cta_locality
from llverify.ttgir.rules_memory import TMA_COPIES, memdesc_index, memdesc_subview, shared_access, subslice, tma_buffer
from llverify.ttgir.rules_target import TARGET_ISA_OPS, target_isa
from llverify.ttgir.rules_tmem import tmem_access
from llverify.ttgir.rules_values import (BOUNDARY_OPS, MEMORY_OPS, boundary, elementwise, has_layout_result,
                                         is_elementwise, is_memory_op, layout_types, memory_operands,
                                         unmodelled_layout_change, use_types)

__all__ = ["Rule", "OpContext", "RULES", "rules_for", "clear_caches", "MODELLED_OPS", "STRUCTURAL_OPS"]

#: the op names of the rules below that relate an op's operand and result layouts (one place: the rules' predicates
#: and :data:`MODELLED_OPS` read these)
DOT_OPS = ("tt.dot", "tt.dot_scaled", "ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled", "tti.dot_i8")
SUBSLICE_OPS = ("ttg.memdesc_subslice", "ttng.tmem_subslice")


RULES: tuple[Rule, ...] = (
    Rule("layout", "every tensor / memdesc layout builds and is a distributed (def. 4.10) or memory (def. 4.14) "
         "layout for its shape, for the warp count in force", "seed 000, definitions 4.10 and 4.14",
         has_layout_result, layout_types),
    Rule("same_layout", "elementwise operands and results have equal layouts", "seed 000, section 4 (layouts "
         "as maps; elementwise ops need equal maps)", is_elementwise, elementwise),
    Rule("memory_operands", "pointer, value and mask of a load / store / atomic have one layout",
         "TritonGPU verifier invariants", is_memory_op, memory_operands),
    Rule("use_type", "every operand is used with the layout its definition gave it",
         "MLIR SSA typing (a mismatch means the printed IR was edited or mis-built)",
         lambda op: bool(op.printed_operand_types), use_types),
    Rule("region_boundary", "values crossing scf.for / scf.if / tt.return boundaries keep their layout",
         "TritonGPU verifier invariants", lambda op: op.name in BOUNDARY_OPS, boundary),
    Rule("conversion", "ttg.convert_layout moves every element to its place; classified and costed",
         "seed 000, section 5.4 and lemma 9.4", lambda op: op.name == "ttg.convert_layout", convert_layout),
    Rule("shape_op", "shape ops move no data between threads", "seed 000, theorem 9.3",
         lambda op: op.name in SHAPE_OPS, shape_op),
    Rule("in_thread", "AMD's in_thread_transpose moves data only within each thread (every element a thread holds "
         "after it, it held before)", "seed 000, theorem 9.3 (thread locality); TritonAMDGPU InThreadTransposeOp",
         lambda op: op.name in IN_THREAD_OPS, in_thread),
    Rule("fp4_upcast", "fp4 upcasts (two e2m1 per byte along the axis) move no data between threads: each unpacked "
         "element comes from a byte its thread holds", "seed 000, theorem 9.3 (thread locality of the halved "
         "result); Triton Fp4ToFpOp, TritonAMDGPU ScaledUpcastFp4Op", lambda op: op.name in UPCAST_OPS, fp4_upcast),
    Rule("reduce_scan", "tt.reduce results are the slice of the operand layout along the axis; tt.scan keeps it",
         "seed 000, proposition 4.8", lambda op: op.name in ("tt.reduce", "tt.scan"), reduce_scan),
    Rule("gather", "tt.gather: the result has the index layout; with efficient_layout it is warp-local "
         "(Triton's shuffle path)", "seed 000, section 5.5; Triton GatherLoweringHelper::isWarpLocal",
         lambda op: op.name == "tt.gather", gather),
    Rule("tma_buffer", "TMA copies read / write a shared buffer with the descriptor's block shape, element type "
         "and shared layout", "TritonNvidiaGPU TMA op semantics (the box is copied in the descriptor's layout)",
         lambda op: op.name in TMA_COPIES, tma_buffer),
    Rule("tmem_access", "tmem_load / tmem_store / tmem_alloc: every warp's elements lie in its TMEM lane quarter",
         "PTX ISA tcgen05.ld/st (a warp reaches lanes 32 (w mod 4) .. + 31)",
         lambda op: op.name in TMEM_ACCESS_OPS, tmem_access),
    Rule("broadcast_store", "stores and atomics of broadcast elements write each element exactly once",
         "seed 000, section 5.3 (free variables)", lambda op: op.name in STORE_OPS, stores),
    Rule("shared_access", "local_alloc / local_store / local_load: exact bank wavefronts for the target's bank model "
         "(padding applied)",
         "seed 000, lemma 9.4", lambda op: op.name in SHARED_ACCESS_OPS, shared_access),
    Rule("async_copy", "ttg.async_copy_global_to_local writes the pointer tensor's elements into a buffer of the "
         "same shape and element type; the pointer, mask and other share one layout; on NVIDIA, the cp.async "
         "widths Triton may use (vector_width)",
         "TritonGPU AsyncCopyGlobalToLocalOp semantics; seed 000, section 5.3 (vectorisation through S^-1 L)", lambda op: op.name in ASYNC_COPY_OPS, async_copy),
    Rule("cta_local", "in a cluster each CTA touches only its own shared memory: a store holds in CTA b every "
         "element CTA b's buffer keeps, a load finds in CTA b's buffer every element it receives, wgmma finds in CTA "
         "b's operands every row / column of the accumulator elements CTA b holds", "seed 000, section 4 (the block "
         "in dim of a layout); PTX ld/st.shared and wgmma read the executing CTA's shared memory",
         lambda op: op.name in CTA_LOCAL_OPS, cta_locality),
    Rule("dot_operands", "dot operands have the layouts the MMA instruction needs",
         "seed 000, proposition 4.7", lambda op: op.name in DOT_OPS, dot_operands),
    Rule("view_in_bounds", "memdesc and tensor-memory subslices stay inside their allocation",
         "TritonGPU memdesc semantics", lambda op: op.name in SUBSLICE_OPS, subslice),
    Rule("buffer_index", "memdesc_index picks one of the allocation's buffers for every reachable index value",
         "TritonGPU memdesc semantics; the pipeliner's wrap-around counters enumerated exactly",
         lambda op: op.name == "ttg.memdesc_index", memdesc_index),
    Rule("subview_in_bounds", "Triton 3.4's memdesc_subview: every offset keeps the view inside its allocation "
         "for every reachable value", "TritonGPU memdesc semantics; as buffer_index",
         lambda op: op.name == "ttg.memdesc_subview", memdesc_subview),
    Rule("register_tiles", "AMD extract_slice / concat: one register map, found at thread 0, gives every thread the "
         "right elements (no data moves between threads)", "seed 000, theorem 9.3 (thread locality); TritonAMDGPU "
         "ExtractSliceOp / ConcatOp verifiers", lambda op: op.name in REGISTER_TILE_OPS, register_tiles),
    Rule("descriptor_gather", "tt.descriptor_gather / _scatter: a box of one descriptor row per index, staged in "
         "shared memory in the descriptor's layout at M x N (a memory layout)", "seed 000, definition 4.14; "
         "Triton DescriptorGatherOp verifier", lambda op: op.name in DESCRIPTOR_GATHER_OPS, descriptor_gather),
    Rule("dot_i8", "tti.dot_i8: i8 operands of an NVIDIA MMA v2 layout and an i32 MMA v2 result (it lowers only to "
         "mma.sync m16n8k32 s8/u8)", "seed 000, proposition 4.7; the op's verifier",
         lambda op: op.name == DOT_I8, dot_i8),
    Rule("mfma_commit", "amdg.mfma_commit returns its operands unchanged, each a whole native CDNA4 MFMA register "
         "fragment", "TritonAMDGPU MfmaCommitOp verifier (a completion boundary, no data movement)",
         lambda op: op.name == MFMA_COMMIT, mfma_commit),
    Rule("packed_arith", "ttng.packed_arith: operands in the result's layout, fp4 bytes unpacked in place into it "
         "(no data between threads), whole packs of registers", "seed 000, theorem 9.3; Meta Triton PackedArithOp "
         "verifier", lambda op: op.name == PACKED_ARITH, packed_arith),
    Rule("target_isa", "the module's ttg.target has the instruction family the op needs (mma.sync, wgmma, tcgen05 "
         "and tensor memory, TMA, cp.async, MFMA and WMMA of the right version)", "PTX ISA and AMD CDNA / RDNA ISA "
         "target requirements; Triton AccelerateMatmul's MMA version per target", lambda op: op.name in TARGET_ISA_OPS,
         target_isa),
    Rule("unmodelled_op", "an op no rule models, whose result layout differs from an operand's, is reported: it may "
         "move data between threads and nothing about that movement is proved", "soundness: unmodelled operations "
         "are unknown (DESIGN.md, verdict rules)", lambda op: _unmodelled(op), unmodelled_layout_change),
)

#: every op name a rule above relates layouts for (a result layout unlike an operand's is what those rules check)
MODELLED_OPS: frozenset[str] = frozenset({
    "ttg.convert_layout", *SHAPE_OPS, *IN_THREAD_OPS, *UPCAST_OPS, "tt.reduce", "tt.scan", "tt.gather", *TMA_COPIES, *TMEM_ACCESS_OPS,
    *STORE_OPS, *SHARED_ACCESS_OPS, *ASYNC_COPY_OPS, *DOT_OPS, *SUBSLICE_OPS, "ttg.memdesc_index", "ttg.memdesc_subview",
    *MEMORY_OPS, *BOUNDARY_OPS, *REGISTER_TILE_OPS, *DESCRIPTOR_GATHER_OPS, MFMA_COMMIT, PACKED_ARITH})

#: ops that relate no layouts of their own: calls and control flow (what crosses their boundaries is the callee's or
#: the region_boundary rule's), terminators, ops whose results are their operands passed through (a wgmma wait
#: returns each operand as the result of the same position), and the ops that only make or read descriptors
STRUCTURAL_OPS: frozenset[str] = frozenset({
    "tt.call", "tt.func", "scf.if", "scf.while", "scf.condition", "scf.execute_region", "scf.index_switch",
    "ttg.warp_specialize", "ttg.warp_specialize.partitions", "ttg.warp_yield", "ttg.warp_return",
    "tt.reduce.return", "tt.scan.return", "ub.poison", "ttng.warp_group_dot_wait"})


def _unmodelled(op: Op) -> bool:
    return op.name not in MODELLED_OPS and op.name not in STRUCTURAL_OPS and not is_elementwise(op)


#: the rules whose ``applies`` reads nothing of the op but its name, named one by one (a rule added later is
#: asked per op until it is listed here); ``tests/test_fast_paths_gatespeed.py`` compares :func:`rules_for` with
#: every predicate evaluated, over the corpus
NAME_ONLY: frozenset[str] = frozenset({
    "same_layout", "memory_operands", "region_boundary", "conversion", "shape_op", "reduce_scan", "gather",
    "tma_buffer", "tmem_access", "broadcast_store", "shared_access", "dot_operands", "view_in_bounds",
    "buffer_index", "subview_in_bounds", "cta_local", "in_thread", "fp4_upcast", "async_copy", "register_tiles", "descriptor_gather", "dot_i8", "mfma_commit", "packed_arith", "target_isa",
    "unmodelled_op"})

#: op name -> (the per-op predicates among its candidate rules, each with its bit; {bit mask of the predicates that
#: hold: the rules that apply}), the name-only rules (:data:`NAME_ONLY`) decided once per name
_candidates: dict[str, tuple[tuple[tuple[int, Callable[[Op], bool]], ...], dict[int, tuple[Rule, ...]],
                             tuple[tuple[Rule, bool], ...]]] = {}


def rules_for(op: Op) -> list[Rule]:
    """``[r for r in RULES if r.applies(op)]``, in ``RULES`` order: the name-only rules (:data:`NAME_ONLY`) are
    decided once per op name, the others per op (the list for each combination of their answers kept per name)."""
    entry = _candidates.get(op.name)
    if entry is None:
        cand = tuple((r, r.name not in NAME_ONLY) for r in RULES if r.name not in NAME_ONLY or r.applies(op))
        per_op = tuple((1 << i, r.applies) for i, r in enumerate(r for r, p in cand if p))
        entry = _candidates[op.name] = (per_op, {}, cand)
    per_op, by_mask, cand = entry
    mask = 0
    for bit, applies in per_op:
        if applies(op):
            mask |= bit
    hit = by_mask.get(mask)
    if hit is None:
        bits = iter(b for b, _ in per_op)
        hit = by_mask[mask] = tuple(r for r, p in cand if not p or mask & next(bits))
    return list(hit)


def clear_caches() -> None:
    """Forget every memoised verdict and the rule dispatch table (benchmarks measure each repeat from scratch)."""
    _clear_proofs()
    _candidates.clear()
