"""Rules on matrix multiplies: dot operands have the layouts the MMA instruction needs."""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from llverify.errors import LlverifyError
from llverify.hw.registry import build_spec
from llverify.prove.properties import equal
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import LayoutProblem, element_bits, layout_of
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, unknown, structural, enc_text, op_names

__all__ = ["dot_operands"]


def dot_operands(ctx: OpContext) -> Iterable[Verdict]:
    op = ctx.op
    t0 = time.perf_counter()
    res = op.results[0].type if op.results else None
    if op.name == "tt.dot":
        for i, t in enumerate(op.operand_types[:2]):
            if t is None or t.encoding is None:
                continue
            subject = f"{op_names(op)} operand {i}: {enc_text(t)}"
            enc = t.encoding
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
                        yield unknown("dot_operands", subject + " kWidth",
                                       f"kWidth {kw} is {kw // want} x (32 / {bits} bits): Triton's mma v2 "
                                       f"lowering re-slices k (largeK); that re-slicing is not modelled")
                    else:
                        yield structural("dot_operands", subject + " kWidth", kw == want,
                                          {"operand": i}, {"kWidth": kw, "required (32 / element bits, or a "
                                                                         "multiple below 64 bits)": want},
                                          "kWidth does not match the element width for mma v2", t0)
        encs = [t.encoding for t in op.operand_types[:2] if t is not None and t.encoding is not None]
        if len(encs) == 2 and all(e.get("kind") == "dot_operand" for e in encs):
            # Triton's verifier: "mismatching kWidth between A and B operands"
            yield structural("dot_operands", f"{op_names(op)}: kWidth of A and B", encs[0].get("k_width") ==
                              encs[1].get("k_width"), {"operands": [0, 1]},
                              {"kWidth A": encs[0].get("k_width"), "kWidth B": encs[1].get("k_width")},
                              "A and B have different kWidth", t0)
    elif op.name in ("ttng.warp_group_dot", "ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled"):
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


def _parent_equal(parent: Mapping[str, Any], res: TypeRef, subject: str) -> Verdict | None:
    try:
        P = build_spec(dict(parent), list(res.shape))
        R = layout_of(res)
    except LlverifyError as exc:
        return unknown("dot_operands", subject, f"parent layout not built: {exc}")
    if isinstance(R, LayoutProblem):
        return unknown("dot_operands", subject, R.reason)
    return equal(P, R.layout, subject=subject + " parent vs result").with_(property="dot_operands")
