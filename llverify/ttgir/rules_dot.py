"""Rules on matrix multiplies: dot operands have the layouts the MMA instruction needs."""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from llverify.errors import LlverifyError
from llverify.hw.intel_dpas import dpas_k_width
from llverify.hw.registry import build_spec
from llverify.prove.properties import equal
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import LayoutProblem, element_bits, layout_of, nvidia_mma_major
from llverify.ttgir.model import Op, TypeRef
from llverify.ttgir.rules_dot_k import k_fed_once
from llverify.ttgir.rules_dot_scaled import ScaledOperands, scaled_dot_checks, scaled_operands
from llverify.ttgir.rule_support import OpContext, equal_layouts, unknown, structural, enc_text, op_names

__all__ = ["dot_operands"]


def dot_operands(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    t0 = time.perf_counter()
    res = op.results[0].type if op.results else None
    if op.name in ("tt.dot", "tt.dot_scaled", "tti.dot_i8") and not _legacy_wgmma(op, res):  # tti.dot_i8: a tt.dot of i8 with signedness flags
        scaled = op.name == "tt.dot_scaled"
        # tt.dot: (a, b, c); tt.dot_scaled: (a, [a_scale,] b, [b_scale,] c), printed `%a scale %as, %b scale %bs, %c`
        so = scaled_operands(op) if scaled else None
        if scaled and so is None:
            yield unknown("dot_operands", op_names(op), "the tt.dot_scaled operand list is not in its printed form")
            return
        positions = (so.a, so.b) if so is not None else (0, 1)
        for i, pos in enumerate(positions):
            t = op.operand_types[pos] if len(op.operand_types) > pos else None
            if t is None or t.encoding is None:
                continue
            subject = f"{op_names(op)} operand {i}: {enc_text(t)}"
            enc = t.encoding
            if enc.get("kind") != "dot_operand" and scaled:
                if res is None or res.encoding is None or res.encoding.get("kind") != "blocked":
                    yield unknown("dot_operands", subject, f"a tt.dot_scaled operand in {enc.get('kind')} with an "
                                                           "MMA result: the operand layout it needs is not modelled")
                continue  # a #blocked result: before AccelerateMatmul, free (scaled_dot_checks says so once)
            if enc.get("kind") != "dot_operand":
                yield structural("dot_operands", subject, False, {"operand": i},
                                  {"encoding": enc.get("kind"), "required": "dot_operand"},
                                  "a tt.dot operand must have a #ttg.dot_op encoding", t0)
                continue
            yield structural("dot_operands", subject, enc.get("operand_index") == i, {"operand": i},
                              {"opIdx": enc.get("operand_index"), "required": i},
                              "operand index does not match the operand's position", t0)
            parent = enc.get("parent")
            if res is not None and res.encoding is not None and isinstance(parent, dict):
                # Triton's verifier requires the operands' parent to be the result's encoding for tt.dot only
                # ("mismatching MMA encoding"); a tt.dot_scaled before AccelerateMatmul (Triton's own lit input,
                # tritongpu_to_llvm_sm120.mlir) has dot operands of a blocked parent and a blocked result
                if parent != dict(res.encoding) and not scaled:
                    pair_v = _parent_equal(parent, res, subject)
                    if pair_v is not None:
                        yield pair_v
                bits = element_bits(t.element)
                once = k_fed_once(ctx, t, i, subject + " K once") if not scaled else None
                if once is not None:
                    yield once
                if nvidia_mma_major(parent) == 2 and bits:
                    want = max(1, 32 // bits)
                    kw = enc.get("k_width")
                    if kw is None:
                        # Triton 3.x prints kWidth on every dot operand of an MMA v2 parent; a module without it
                        # comes from Triton 2.x (`#triton_gpu.mma`), whose operand layouts are not modelled
                        yield unknown("dot_operands", subject + " kWidth",
                                      "the operand encoding states no kWidth (Triton 2.x printed none for an MMA v2 "
                                      "parent): the operand layout it implies is not modelled")
                    elif isinstance(kw, int) and kw > want and bits < 64 and (kw * bits) % 32 == 0:
                        # Triton's MMAv2 lowering accepts a kWidth that is a multiple of 32 / bits ("largeK":
                        # each thread's k run is re-sliced into 32-bit pieces, the same way for A and B)
                        yield unknown("dot_operands", subject + " kWidth",
                                       f"kWidth {kw} is {kw // want} x (32 / {bits} bits): Triton's mma v2 "
                                       f"lowering re-slices k (largeK); that re-slicing is not modelled")
                    else:
                        yield structural("dot_operands", subject + " kWidth", kw == want,
                                          {"operand": i}, {"kWidth": kw, "required (32 / element bits, or a "
                                                                         "multiple below 64 bits)": want},
                                          "kWidth does not match the element width for mma v2", t0)
        if so is not None:
            yield from _scaled_dot_extras(ctx, res, so)
            yield from scaled_dot_checks(ctx, so, t0)
            return
        encs = [t.encoding for t in op.operand_types[:2] if t is not None and t.encoding is not None]
        if len(encs) == 2 and all(e.get("kind") == "dot_operand" for e in encs):
            parents = [e.get("parent") for e in encs]
            if all(isinstance(p, dict) and p.get("kind") == "intel_dpas" for p in parents):
                yield from _dpas_operands(op, encs, parents, t0)
                return
            # Triton's verifier: "mismatching kWidth between A and B operands"
            yield structural("dot_operands", f"{op_names(op)}: kWidth of A and B", encs[0].get("k_width") ==
                              encs[1].get("k_width"), {"operands": [0, 1]},
                              {"kWidth A": encs[0].get("k_width"), "kWidth B": encs[1].get("k_width")},
                              "A and B have different kWidth", t0)
    else:  # ttng.warp_group_dot, ttng.tc_gen5_mma(_scaled), and Triton 3.0/3.1's tt.dot on shared operands
        for i, t in enumerate(op.operand_types[:2]):
            if t is None or t.kind != "memdesc" or t.encoding is None:
                continue
            if t.memory_space and "tensor_memory" in t.memory_space:
                continue
            subject = f"{op_names(op)} operand {i}: {enc_text(t)}"
            kind = t.encoding.get("kind")
            yield structural("dot_operands", subject, kind in ("nvmma_shared", "shared_linear"), {"operand": i},
                              {"encoding": kind, "required": "nvmma_shared"},
                              "a wgmma / tcgen5 shared operand must use an NVMMA shared layout", t0)
        yield from _mma_shapes(op, t0)


def _legacy_wgmma(op: Op, res: TypeRef | None) -> bool:
    """A ``tt.dot`` that is Triton 3.0/3.1's spelling of ``ttng.warp_group_dot`` (3.2 introduced the op): an mma v3
    result and an operand in shared memory (``!tt.memdesc``), A possibly in registers as a v3 dot operand."""
    if op.name != "tt.dot" or res is None or nvidia_mma_major(res.encoding) != 3:
        return False
    return any(t is not None and t.kind == "memdesc" for t in op.operand_types[:2])


def _dpas_operands(op: Op, encs: list[Any], parents: list[Any], t0: float) -> Iterable[Verdict]:
    """A ``tt.dot`` on Intel DPAS operands, as Intel's verifiers check it:

    * kWidth: A's and B's differ by design (A packs 8-bit values in pairs), so Intel replaces Triton's "equal
      kWidth" rule with one per operand (:func:`dpas_k_width` of the parent's ``ops_per_chan``);
    * element width: ``ops_per_chan`` values of each operand fill one 32-bit channel (f16: 2, i8 / fp8: 4,
      tf32: 1).

    Each refuted with the operand that breaks it."""
    wanted, got, widths = [], [], []
    for i, (enc, parent) in enumerate(zip(encs, parents)):
        opc = parent.get("ops_per_chan")
        wanted.append(dpas_k_width(i, opc) if isinstance(opc, int) else None)
        got.append(enc.get("k_width"))
        bits = element_bits(op.operand_types[i].element) if op.operand_types[i] is not None else 0
        widths.append((opc, bits))
    wrong = [("A", "B")[i] for i in range(2) if wanted[i] is None or got[i] != wanted[i]]
    yield structural("dot_operands", f"{op_names(op)}: kWidth of A and B for DPAS", not wrong, {"operands": [0, 1]},
                     {"kWidth A": got[0], "kWidth B": got[1], "required A": wanted[0], "required B": wanted[1]},
                     f"the kWidth of {' and '.join(wrong)} is not the one the DPAS parent's opsPerChan needs "
                     "(A: opsPerChan, halved above 1; B: opsPerChan)", t0)
    unfilled = [("A", "B")[i] for i, (opc, bits) in enumerate(widths) if not isinstance(opc, int) or opc * bits != 32]
    yield structural("dot_operands", f"{op_names(op)}: element widths for DPAS", not unfilled, {"operands": [0, 1]},
                     {"opsPerChan": widths[0][0], "bits A": widths[0][1], "bits B": widths[1][1],
                      "required": "opsPerChan x bits = 32"},
                     f"{' and '.join(unfilled)}: opsPerChan values of its element type do not fill a 32-bit channel "
                     "(Intel's DPAS verifier: f16 / bf16 2, i8 / fp8 4, tf32 1)", t0)


def _scaled_dot_extras(ctx: OpContext, res: TypeRef | None, so: ScaledOperands) -> Iterable[Verdict]:
    """``tt.dot_scaled``: the accumulator has the result's layout (the MMA adds into it in place); the scales'
    layouts are decided by :func:`scaled_dot_checks`."""
    op = ctx.op
    acc = op.operand_types[so.c] if len(op.operand_types) > so.c else None
    v = equal_layouts(ctx, acc, res, "same_layout", f"{op_names(op)}: accumulator {enc_text(acc)} vs result "
                                                    f"{enc_text(res)}")
    if v is not None:
        yield v


def _mma_shapes(op: Op, t0: float) -> Iterable[Verdict]:
    """``A (M x K) * B (K x N) -> D (M x N)`` for wgmma and tcgen5 (the scaled form packs fp4 along K or M/N, so
    only its accumulator is checked), and a tcgen5 accumulator in tensor memory with an instruction blockM of 64
    or 128 (128 for the scaled form), as the hardware instruction needs (TritonNvidiaGPU op verifiers).  A
    two-CTA MMA (``two_ctas``) may type B as its CTA's half of N (D's N = 2 x B's N, as TLX prints it)."""
    a, b = (op.operand_types + (None, None))[:2]
    d = (op.results[0].type if op.results else None) if op.name in ("ttng.warp_group_dot", "tt.dot") else \
        (op.operand_types[2] if len(op.operand_types) > 2 else None)
    if a is None or b is None or d is None or min(len(a.shape), len(b.shape), len(d.shape)) < 2:
        return
    subject = f"{op_names(op)}: {list(a.shape)} x {list(b.shape)} -> {list(d.shape)}"
    if op.name != "ttng.tc_gen5_mma_scaled":
        (m, k), (k2, n), (dm, dn) = a.shape[-2:], b.shape[-2:], d.shape[-2:]
        # a two-CTA MMA (tcgen05 cta_group::2, `two_ctas`) reads B's columns from both CTAs of the pair: B is
        # typed either whole (D's N, its halves split by the CGA layout) or as this CTA's half (N / 2: TLX's form;
        # Triton's TCGen5MMAOp::verifyOutputDims accepts both)
        pair = "two_ctas" in op.attributes
        ok = k == k2 and m == dm and (n == dn or (pair and dn == 2 * n))
        sides = {"A (M x K)": [m, k], "B (K x N)": [k2, n], "D (M x N)": [dm, dn]}
        if pair:
            sides["two CTAs (B may be this CTA's N / 2)"] = True
        yield structural("dot_operands", subject, ok, {"operands": [0, 1, 2]}, sides,
                         "the operand shapes do not multiply into the accumulator's", t0)
    if op.name in ("ttng.warp_group_dot", "tt.dot") and d.encoding is not None and nvidia_mma_major(d.encoding) == 3:
        instr = d.encoding.get("instr_shape")
        bits = element_bits(a.element)
        if isinstance(instr, list) and len(instr) == 3 and bits:
            # wgmma reads 32 bytes of K per instruction: m64nNk16 for 16-bit operands, k32 for 8-bit, k8 for tf32
            # (Triton's AccelerateMatmul sets instrShape K = 256 / element bits; another K has no instruction, and
            # Triton's lowering asserts on it: triton-lang/triton issue 5102, instrShape [16, 64, 32] on bf16)
            want = 256 // bits
            yield structural("dot_operands", subject + " instrShape K", instr[2] == want, {"operand": 0},
                             {"instrShape K": instr[2], f"256 / {bits}-bit {a.element}": want},
                             "the accumulator's instrShape K is not the wgmma K for the operands' element width", t0)
    if op.name.startswith("ttng.tc_gen5_mma") and d.encoding is not None:
        kind = d.encoding.get("kind")
        block_m = (d.encoding.get("block") or [None])[0]
        allowed = (128,) if op.name == "ttng.tc_gen5_mma_scaled" else (64, 128)
        yield structural("dot_operands", subject + " accumulator", kind == "tensor_memory" and block_m in allowed,
                         {"operand": 2}, {"encoding": kind, "blockM": block_m, "allowed blockM": list(allowed)},
                         "a tcgen5 accumulator must be a tensor-memory buffer of an instruction's blockM", t0)


def _parent_equal(parent: Mapping[str, Any], res: TypeRef, subject: str) -> Verdict | None:
    try:
        P = build_spec(dict(parent), list(res.shape))
        R = layout_of(res)
    except LlverifyError as exc:
        return unknown("dot_operands", subject, f"parent layout not built: {exc}")
    if isinstance(R, LayoutProblem):
        return unknown("dot_operands", subject, R.reason)
    return equal(P, R.layout, subject=subject + " parent vs result").with_(property="dot_operands")
