"""``tti.dot_i8``: an integer ``tt.dot`` with per-operand signedness (``aSigned``, ``bSigned``), lowered only to
NVIDIA's ``mma.sync.aligned.m16n8k32 .s32.{s8,u8}.{s8,u8}.s32`` (MMA v2).

The operand layouts are checked by the ``dot_operands`` rule as for ``tt.dot`` (``#ttg.dot_op`` with the
operand's ``opIdx``, the parent equal to the result's layout, ``kWidth = 32 / 8 = 4``).  This rule adds what the
mma.sync lowering needs beyond a ``tt.dot`` (the op's verifier): ``dot_i8`` (exact comparison): both operands
are ``i8`` tensors in ``#ttg.dot_op`` layouts whose parent is an NVIDIA MMA of version 2, and the result is an
``i32`` tensor in an NVIDIA MMA v2 layout.  A blocked (FMA) layout, valid for ``tt.dot``, is refuted here:
nothing lowers it.

Example: ``tensor<16x32xi8, #dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> * tensor<32x8xi8, #dot_op<{opIdx =
1, ...}>> -> tensor<16x8xi32, #mma>`` with ``#mma = #ttg.nvidia_mma<{versionMajor = 2, ...}>``: proved; the same
with ``#blocked`` parents and result: refuted.
"""

from __future__ import annotations

import time
from typing import Any, Iterable, Mapping

from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import nvidia_mma_major
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, op_names, structural

__all__ = ["DOT_I8", "dot_i8"]

DOT_I8 = "tti.dot_i8"


def _mma_v2(enc: Mapping[str, Any] | None) -> bool:
    return nvidia_mma_major(enc) == 2


def _describe(t: TypeRef | None) -> str:
    if t is None or t.encoding is None:
        return "?"
    enc = t.encoding
    if enc.get("kind") == "dot_operand":
        parent = enc.get("parent")
        pk = parent.get("kind") if isinstance(parent, Mapping) else "?"
        pv = list(parent.get("version", [0]))[0] if isinstance(parent, Mapping) else "?"
        return f"{t.element} dot_op of {pk} v{pv}"
    return f"{t.element} {enc.get('kind')} v{list(enc.get('version', [0]))[0]}"


def dot_i8(ctx: OpContext) -> Iterable[Verdict]:
    """``dot_i8`` of one ``tti.dot_i8`` (module docstring)."""
    op = ctx.op
    t0 = time.perf_counter()
    a, b = (tuple(op.operand_types) + (None, None))[:2]
    res = op.results[0].type if op.results else None
    problems = []
    for name, t in (("A", a), ("B", b)):
        if t is None or t.encoding is None:
            problems.append(f"operand {name}'s layout is not read")
            continue
        if t.element != "i8":
            problems.append(f"operand {name} is {t.element}, not i8")
        parent = t.encoding.get("parent") if t.encoding.get("kind") == "dot_operand" else None
        if not _mma_v2(parent):
            problems.append(f"operand {name} is not a #ttg.dot_op of an NVIDIA MMA v2 layout")
    if res is None or res.encoding is None:
        problems.append("the result's layout is not read")
    else:
        if res.element != "i32":
            problems.append(f"the result is {res.element}, not i32")
        if not _mma_v2(res.encoding):
            problems.append("the result is not in an NVIDIA MMA v2 layout")
    sides = {"A": _describe(a), "B": _describe(b), "result": _describe(res),
             "required": "i8 dot_op of nvidia_mma v2 (A, B); i32 nvidia_mma v2 (result)"}
    yield structural("dot_i8", f"{op_names(op)}: mma.sync m16n8k32 i8", not problems, {"operands": [0, 1]}, sides,
                     "; ".join(problems), t0)
