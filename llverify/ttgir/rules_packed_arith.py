"""``ttng.packed_arith`` (Meta Triton, Blackwell / Rubin): elementwise ``add`` / ``sub`` / ``mul`` / ``fma`` on packed
registers (``add.f32x2``, ``add.e4m3x4.e2m1x4``, ...), where an ``fp4`` operand arrives as ``i8`` bytes, two e2m1
values per byte along one axis.

The lowering computes every result register from the same thread's operand registers, packing ``w`` consecutive
unique result registers per instruction (``w = 2`` for 32- and 16-bit results, 4 for 8-bit ones) and the fp4
bytes they come from.  For that to be right (the op's verifier, with layouts compared as linear layouts):

* ``packed_shape`` (exact comparison): 2 operands (3 for ``fma``); a non-``i8`` operand has the result's shape;
  an ``i8`` (fp4) operand has the result's shape with one dim halved, the same dim ``a`` for every fp4 operand.
* ``packed_layout`` (F2): a non-fp4 operand's layout equals the result's ``R``; an fp4 operand's layout ``A``
  unpacks in place into ``R``: ``R == U(A)`` where ``U(A)`` has a first register basis ``e_a`` (the two nibbles
  of a byte are consecutive registers, elements ``2k`` and ``2k + 1`` along ``a``) followed by ``A``'s bases
  with their ``a`` coordinate doubled (byte ``k`` holds elements ``2k, 2k + 1``).  So each thread unpacks only
  bytes it holds, into the registers the result layout gives it.
* ``packed_pairs`` (exact comparison): the result has a positive multiple of ``w`` unique elements per thread
  (``2^rank`` of its register columns), so registers split into whole packs.

Example: ``add %x, %y : (tensor<128x2xi8, #fp4>, tensor<128x4xf8E4M3FN, #b>) -> tensor<128x4xf8E4M3FN, #b>`` with
``#fp4 = #blocked<[1, 2], [32, 1], [4, 1]>`` and ``#b = #blocked<[1, 4], [32, 1], [4, 1]>``: fp4 axis 1,
``U(#fp4) == #b`` (a thread's 2 bytes are its 4 values), 4 unique values a thread: proved; with
``#b = #blocked<[1, 4], [16, 2], [4, 1]>`` the result's lanes 16..31 hold columns its bytes do not: refuted.
"""

from __future__ import annotations

import re
import time
from typing import Iterable

from llverify.layout import LinearLayout
from llverify.prove.verdict import Verdict
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, equal_layouts, layout_pair, memo_equal, op_names, \
    structural, unknown

__all__ = ["PACKED_ARITH", "packed_arith", "unpacked_layout", "PACK_WIDTH"]

PACKED_ARITH = "ttng.packed_arith"

#: result element type -> values per packed instruction (one 32-bit register of results)
PACK_WIDTH = {"f32": 2, "f16": 2, "bf16": 2, "f8E4M3FN": 4, "f8E5M2": 4, "f8E8M0FNU": 4}

_KIND = re.compile(r"ttng\.packed_arith\s+(\w+)")


def unpacked_layout(A: LinearLayout, axis: str) -> LinearLayout:
    """``U(A)`` of the module docstring: ``A`` (bytes) unpacked in place along ``axis``.

    Requires: ``axis`` is an out dim of ``A``.
    Postcondition: ``U(A)(2 r + b, t)`` is ``A(r, t)`` with its ``axis`` coordinate ``c`` replaced by ``2 c + b``.

    >>> A = LinearLayout.from_bases({"register": [[1]], "lane": [[2]]}, ["dim0"])
    >>> dict(unpacked_layout(A, "dim0").bases)
    {'register': ((1,), (2,)), 'lane': ((4,),)}
    """
    names = list(A.out_dim_names)
    k = names.index(axis)

    def dbl(b: tuple[int, ...]) -> list[int]:
        return [c * 2 if j == k else c for j, c in enumerate(b)]
    unit = [1 if j == k else 0 for j in range(len(names))]
    bases = {d: ([unit] if d == "register" else []) + [dbl(b) for b in A.bases[d]] for d in A.in_dim_names}
    if "register" not in bases:
        bases = {"register": [unit], **bases}
    dims = {n: (s * 2 if n == axis else s) for n, s in A.out_dims.items()}
    return LinearLayout(bases, dims, require_surjective=False)


def _fp4_axis(result: TypeRef, fp4s: list[TypeRef]) -> int | None:
    """The one dim every fp4 operand halves, or None."""
    axes = set()
    for t in fp4s:
        if len(t.shape) != len(result.shape):
            return None
        diff = [i for i, (a, b) in enumerate(zip(t.shape, result.shape)) if a != b]
        if len(diff) != 1 or 2 * t.shape[diff[0]] != result.shape[diff[0]]:
            return None
        axes.add(diff[0])
    return axes.pop() if len(axes) == 1 else None


def packed_arith(ctx: OpContext) -> Iterable[Verdict]:
    """``packed_shape``, ``packed_layout`` and ``packed_pairs`` of one ``ttng.packed_arith``."""
    op = ctx.op
    t0 = time.perf_counter()
    res = op.results[0].type if op.results else None
    m = _KIND.search(op.text)
    kind = m.group(1) if m else "?"
    subject = f"{op_names(op)} {kind}: -> {enc_text(res)}"
    ops = list(op.operand_types)
    if res is None or res.kind != "tensor" or any(t is None or t.kind != "tensor" for t in ops):
        yield unknown("packed_shape", subject, "an operand's or the result's tensor type is not read")
        return
    typed = [t for t in ops if t is not None]
    fp4s = [t for t in typed if t.element == "i8"]
    axis = _fp4_axis(res, fp4s) if fp4s else None
    problems = []
    want = 3 if kind == "fma" else 2
    if len(typed) != want:
        problems.append(f"{kind} takes {want} operands, not {len(typed)}")
    for i, t in enumerate(typed):
        if t.element != "i8" and tuple(t.shape) != tuple(res.shape):
            problems.append(f"operand {i} has shape {list(t.shape)}, not the result's {list(res.shape)}")
    if fp4s and axis is None:
        problems.append("the fp4 (i8) operands do not all halve the same single dim of the result")
    yield structural("packed_shape", subject, not problems, {},
                     {"operands": [list(t.shape) for t in typed], "result": list(res.shape),
                      "fp4 axis": axis}, "; ".join(problems), t0)
    if problems:
        return
    for i, t in enumerate(typed):
        sub = f"{op_names(op)} operand {i}: {enc_text(t)} vs result {enc_text(res)}"
        if t.element != "i8":
            v = equal_layouts(ctx, t, res, "packed_layout", sub)
            if v is not None:
                yield v
            continue
        pair = layout_pair(ctx, t, res)
        if isinstance(pair, str):
            yield unknown("packed_layout", sub, pair)
            continue
        A, R = pair
        yield memo_equal(unpacked_layout(A, f"dim{axis}"), R).with_(
            property="packed_layout", subject=sub + f" (bytes unpacked along dim {axis})")
    width = PACK_WIDTH.get(res.element)
    built = ctx.built(res)
    if width is None or not hasattr(built, "layout"):
        yield unknown("packed_pairs", subject, f"no pack width known for {res.element}" if width is None
                      else getattr(built, "reason", "layout not built"))
        return
    L = built.layout  # type: ignore[union-attr]
    unique = 1 << (L.sublayout(["register"], list(L.out_dim_names)).rank if L.has_in_dim("register") else 0)
    yield structural("packed_pairs", subject, unique >= width and unique % width == 0, {},
                     {"unique elements per thread": unique, "pack width": width},
                     f"{unique} unique elements per thread do not split into packs of {width}", t0)
