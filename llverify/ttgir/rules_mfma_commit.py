"""``amdg.mfma_commit``: a completion boundary of scheduled MFMAs on CDNA4 (gfx950).  It returns its operands
unchanged (result ``i`` is operand ``i``: the op only orders the MFMA results and the dot operands it depends on),
so it moves no data, and its operands must be whole native MFMA register fragments.

Obligations:

* ``pass_through`` (F2, or exact comparison of equal texts): result ``i`` has operand ``i``'s shape, element
  type and layout (the op's type inference gives each result its operand's type; an edited or mis-built module
  that breaks it would reinterpret registers).  Unknown where an operand's definition type was not read.
* ``mfma_fragments`` (exact comparison, the op's verifier on a 64-lane wave): as many results as operands; every
  operand is rank 2 and either an ``f32`` MFMA result in a CDNA4 (``version = 4``) ``#ttg.amd_mfma`` layout with
  unit tiles per warp, whose registers per thread are a multiple of ``M N / 64`` (one native result fragment
  per lane), or a ``bf16`` ``#ttg.dot_op`` of such a layout (any ``kWidth``: a later revision of the verifier
  asks for 8, but Triton's own gfx950 lowering test commits a ``kWidth = 4`` operand) whose native fragment
  (``M K`` elements for ``opIdx = 0``, ``K N`` for ``opIdx = 1``, over 64 lanes) fills whole 32-bit registers and
  divides the registers per thread; at least one operand is an MFMA result.

Example: ``%c, %p = amdg.mfma_commit %acc, %b : tensor<16x16xf32, #mfma4_16x16x32>, tensor<32x16xbf16,
#dot_op<{opIdx = 1, parent = #mfma4_16x16x32, kWidth = 8}>>``: 4 f32 per lane (16 x 16 / 64) and 8 bf16 per lane
(32 x 16 / 64 = 128 bits): proved; with ``instrShape = [16, 16, 4]`` the B fragment is 16 x 4 / 64 = 1 bf16 per
lane, half a register: refuted.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import LayoutProblem
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, equal_layouts, op_names, structural, unknown

__all__ = ["MFMA_COMMIT", "mfma_commit", "fragment_problem"]

MFMA_COMMIT = "amdg.mfma_commit"
WAVE = 64


def _cdna4(enc: Mapping[str, Any] | None) -> bool:
    if not isinstance(enc, Mapping) or enc.get("kind") != "amd_mfma" or enc.get("version") != 4:
        return False
    tiles = enc.get("tiles_per_warp")
    return tiles is None or all(t == 1 for t in tiles)


def fragment_problem(t: TypeRef, registers: int) -> tuple[str | None, bool]:
    """Why operand type ``t`` (``registers`` per thread) is not a whole native MFMA fragment (None when it is),
    and whether it is an MFMA result.

    >>> mfma = {"kind": "amd_mfma", "version": 4, "instr_shape": [16, 16, 32]}
    >>> fragment_problem(TypeRef("t", "tensor", (16, 16), "f32", mfma), 4)
    (None, True)
    >>> dot = {"kind": "dot_operand", "operand_index": 0, "parent": dict(mfma, instr_shape=[16, 16, 4]), "k_width": 8}
    >>> fragment_problem(TypeRef("t", "tensor", (16, 4), "bf16", dot), 8)[0]
    'a native fragment of 16 x 4 bf16 is 16 bits a lane, not whole 32-bit registers'
    """
    enc = t.encoding
    if len(t.shape) != 2:
        return f"rank {len(t.shape)}, not 2", False
    if t.element == "f32":
        if not _cdna4(enc):
            return "an f32 operand must be in a CDNA4 (version 4) amd_mfma layout with unit tiles per warp", True
        m, n = list(enc.get("instr_shape") or [0, 0])[:2]  # type: ignore[union-attr]
        per_lane = m * n // WAVE
        if per_lane <= 0 or registers % per_lane:
            return f"{registers} registers a lane are not whole {m} x {n} result fragments ({per_lane} each)", True
        return None, True
    if t.element == "bf16":
        parent = enc.get("parent") if isinstance(enc, Mapping) and enc.get("kind") == "dot_operand" else None
        if not _cdna4(parent):  # any kWidth: Triton's own gfx950 test commits a kWidth = 4 operand
            return "a bf16 operand must be a dot_op of a CDNA4 amd_mfma layout", False
        m, n, k = (list(parent.get("instr_shape") or []) + [0, 0, 0])[:3]  # type: ignore[union-attr]
        rows, cols = (m, k) if enc.get("operand_index") == 0 else (k, n)  # type: ignore[union-attr]
        elems = rows * cols
        if elems <= 0 or elems % WAVE:
            return f"a native fragment of {rows} x {cols} is not a whole number of elements a lane", False
        per_lane = elems // WAVE
        if per_lane * 16 % 32:
            return (f"a native fragment of {rows} x {cols} bf16 is {per_lane * 16} bits a lane, not whole 32-bit "
                    "registers"), False
        if registers % per_lane:
            return f"{registers} registers a lane are not whole fragments of {per_lane}", False
        return None, False
    return f"{t.element} is neither an f32 MFMA result nor a bf16 dot operand", False


def mfma_commit(ctx: OpContext) -> Iterable[Verdict]:
    """``pass_through`` and ``mfma_fragments`` of one ``amdg.mfma_commit`` (module docstring)."""
    op = ctx.op
    t0 = time.perf_counter()
    results = [r.type for r in op.results]
    for i, (src, dst) in enumerate(zip(op.operand_types, results)):
        subject = f"{op_names(op)} #{i}: {enc_text(src)} -> {enc_text(dst)}"
        if src is None or src.kind != "tensor" or not src.has_layout:
            yield unknown("pass_through", subject, "the operand's definition type is not read")
            continue
        same = (tuple(src.shape), src.element) == (tuple(dst.shape), dst.element)
        if not same:
            yield structural("pass_through", subject, False, {"operand": i},
                             {"operand": [list(src.shape), src.element], "result": [list(dst.shape), dst.element]},
                             "the result's shape or element type is not its operand's", t0)
            continue
        v = equal_layouts(ctx, src, dst, "pass_through", subject)
        yield v if v is not None else structural("pass_through", subject, True, {}, {"type": dst.text}, "", t0)
    subject = f"{op_names(op)}: native MFMA fragments"
    problems = []
    if len(op.operands) != len(results):
        problems.append(f"{len(results)} results for {len(op.operands)} operands")
    any_result = False
    for i, t in enumerate(results):
        built = ctx.built(t)
        if isinstance(built, LayoutProblem):
            yield unknown("mfma_fragments", subject, f"operand {i}: {built.reason}")
            return
        regs = built.layout.in_dim_size("register") if built.layout.has_in_dim("register") else 1
        why, is_result = fragment_problem(t, regs)
        any_result |= is_result
        if why:
            problems.append(f"operand {i}: {why}")
    if not any_result:
        problems.append("no operand is an MFMA result")
    yield structural("mfma_fragments", subject, not problems, {"operands": list(range(len(results)))},
                     {"types": [t.text for t in results]}, "; ".join(problems), t0)
