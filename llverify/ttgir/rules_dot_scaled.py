"""Rules on ``tt.dot_scaled``: the verifier's scale shapes, and the layouts each stage and target needs.

``tt.dot_scaled %a [scale %as], %b [scale %bs], %c lhs = F rhs = G`` computes ``(a * 2^as) (b * 2^bs) + c``, one
scale byte per ``f`` (the scale factor, 16 or 32) elements of K.  What is decided, per op:

* shapes, as Triton 3.9's ``DotScaledOp`` verifier: with ``K`` = A's last extent (x 2 for packed ``e2m1``), each
  present scale of more than one element fixes ``f = K_side // scale[-1]`` in {16, 32}, both sides the same ``f``;
  ``as`` is ``M x K/f`` and ``bs`` is ``N x K/f`` (``M``, ``N`` the accumulator's).  The verifier checks no layout.
* layouts: a result in ``#blocked`` is the op's form before AccelerateMatmul (which rewrites it to an MMA or
  decomposes it): Triton then accepts any operand and scale layout, a proved structural finding.  On gfx950 with
  an ``#ttg.amd_mfma`` result the scales must have the layout the scaled MFMA reads
  (:mod:`llverify.hw.mfma_scale`), and on sm120 with an mma v2 result the layout its block-scaled ``mma.sync``
  reads (:mod:`llverify.hw.sm120_scale`): F2 equality, refuted with a replayed witness.  On gfx1250 (an
  ``#ttg.amd_wmma`` version 3 result) the layout Triton chooses for its scaled WMMA (:mod:`llverify.hw.wmma_scale`):
  equal is proved; a difference in the instruction-fixed part (lanes 0-15, the warps, a register's k-group bytes)
  is refuted; a difference only in the half-wave / repetition placement, which Triton's lowering also reads, is
  ``unknown`` with that reason.  Any other target is ``unknown`` with the reason.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Iterable

from llverify.errors import LlverifyError
from llverify.hw.linear import linear
from llverify.hw.mfma_scale import mfma_scale_bases
from llverify.hw.sm120_scale import sm120_scale_bases
from llverify.hw.wmma_scale import wmma_scale_bases
from llverify.layout import LinearLayout
from llverify.prove.properties import equal
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import LayoutProblem, layout_of
from llverify.ttgir.model import Op, TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, op_names, structural, unknown

__all__ = ["ScaledOperands", "scaled_operands", "scaled_dot_checks"]

_OPERANDS = re.compile(r"tt\.dot_scaled\s+(.*?)\s+lhs\s*=\s*(\w+)\s+rhs\s*=\s*(\w+)")


@dataclass(frozen=True)
class ScaledOperands:
    """Operand positions of a ``tt.dot_scaled`` (scales may be absent) and its element formats."""

    a: int
    a_scale: int | None
    b: int
    b_scale: int | None
    c: int
    lhs: str
    rhs: str


def scaled_operands(op: Op) -> ScaledOperands | None:
    """Where A, its scale, B, its scale and C sit among ``op.operands``, read from the printed form
    ``%a scale %as, %b scale %bs, %c lhs = F rhs = G`` (``scale %x`` optional per side); None if not that form."""
    m = _OPERANDS.search(op.text)
    if m is None:
        return None
    parts = [p.split() for p in m.group(1).split(",")]
    if len(parts) != 3 or any(len(p) not in (1, 3) or (len(p) == 3 and p[1] != "scale") for p in parts[:2]) \
            or len(parts[2]) != 1:
        return None
    pos, slots = 0, []
    for p in parts[:2]:
        slots.append((pos, pos + 1 if len(p) == 3 else None))
        pos += len(p) // 2 + 1
    if pos + 1 != len(op.operands):
        return None
    (a, asc), (b, bsc) = slots
    return ScaledOperands(a, asc, b, bsc, pos, m.group(2), m.group(3))


def _type(op: Op, pos: int | None) -> TypeRef | None:
    return op.operand_types[pos] if pos is not None and pos < len(op.operand_types) else None


def _k_pack(op: Op, side: str) -> bool:
    return op.attributes.get(f"{side}_k_pack", "true").split(":")[0].strip() != "false"


def scaled_dot_checks(ctx: OpContext, so: ScaledOperands, t0: float) -> Iterable[Verdict]:
    """The shape claim (always) and the scale-layout claims (per stage and target) of one ``tt.dot_scaled``."""
    op = ctx.op
    v = _shapes(op, so, t0)
    if v is not None:
        yield v
    factor = scale_factor(op, so)
    res = op.results[0].type if op.results else None
    if res is None or res.encoding is None:
        return
    kind = res.encoding.get("kind")
    if kind == "blocked":
        yield structural("dot_operands", f"{op_names(op)}: result {enc_text(res)}", True, {}, {
            "result": "blocked", "stage": "before AccelerateMatmul (or decomposed): operand and scale layouts "
                                          "are free (DotScaledOp's verifier checks none)"}, "", t0)
        return
    for pos, opnd, side in ((so.a_scale, so.a, 0), (so.b_scale, so.b, 1)):
        t = _type(op, pos)
        if t is None or not t.has_layout:
            continue
        subject = f"{op_names(op)} scale of {'AB'[side]}: {enc_text(t)}"
        yield _scale_layout(ctx, t, _type(op, opnd), side, kind, subject, factor)


def scale_factor(op: Op, so: ScaledOperands) -> int:
    """Elements of K per scale byte, deduced from the first scale of more than one element (32 if none)."""
    a, b = _type(op, so.a), _type(op, so.b)
    for pos, operand, fmt, side, kdim in ((so.a_scale, a, so.lhs, "lhs", -1), (so.b_scale, b, so.rhs, "rhs", -2)):
        s = _type(op, pos)
        if s is None or operand is None or len(operand.shape) < 2 or not s.shape or not s.shape[-1] \
                or _prod(s.shape) == 1:
            continue
        return operand.shape[kdim] * (2 if fmt == "e2m1" and _k_pack(op, side) else 1) // s.shape[-1]
    return 32


def _shapes(op: Op, so: ScaledOperands, t0: float) -> Verdict | None:
    a, b, c = _type(op, so.a), _type(op, so.b), _type(op, so.c)
    if a is None or b is None or c is None or min(len(a.shape), len(b.shape), len(c.shape)) < 2:
        return None
    unpack_a = 2 if so.lhs == "e2m1" and _k_pack(op, "lhs") else 1
    unpack_b = 2 if so.rhs == "e2m1" and _k_pack(op, "rhs") else 1
    k = a.shape[-1] * unpack_a
    sides = {"K (A, unpacked)": k}
    factors = []
    problem = None
    for pos, kk, want, name in ((so.a_scale, k, c.shape[-2], "A scale (M x K/f)"),
                                (so.b_scale, b.shape[-2] * unpack_b, c.shape[-1], "B scale (N x K/f)")):
        s = _type(op, pos)
        if s is None:
            continue
        sides[name] = list(s.shape)
        if len(s.shape) < 2 or s.shape[-1] == 0:
            problem = problem or f"{name}: rank {len(s.shape)}"
            continue
        if _prod(s.shape) != 1:
            f = kk // s.shape[-1]
            if f not in (16, 32):
                problem = problem or f"scale factor must be 16 or 32. Got {f}"
            factors.append(f)
    f = factors[0] if factors else 32
    if len(factors) == 2 and factors[0] != factors[1]:
        problem = problem or f"Operands must have the same scale factor; (lhs: {factors[0]} vs rhs: {factors[1]})"
    sides["scale factor f"] = f
    for pos, want, dim in ((so.a_scale, c.shape[-2], "M"), (so.b_scale, c.shape[-1], "N")):
        s = _type(op, pos)
        if s is None or len(s.shape) < 2 or problem:
            continue
        if s.shape[-2] != want:
            problem = f"scales {dim} dimension must match the operand {dim} dimension ({s.shape[-2]} vs {want})"
        elif s.shape[-1] != k // f:
            problem = f"scales K dimension must match the operand K divided by the scale factor ({s.shape[-1]} " \
                      f"vs {k} / {f})"
    if so.a_scale is None and so.b_scale is None:
        return None
    return structural("dot_operands", f"{op_names(op)}: scale shapes", problem is None,
                      {"operands": [p for p in (so.a_scale, so.b_scale) if p is not None]}, sides,
                      problem or "", t0)


def _prod(xs: Iterable[int]) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


#: (result layout kind, target) whose scaled MMA's scale layout is modelled: gfx950's scaled MFMA; the sm_12x
#: family's block-scaled ``mma.sync`` (sm_120 and sm_121 run the same PTX instruction, whose fragment layout PTX
#: defines per instruction, not per chip; Triton 3.9 emits the same dot_scaled form for both)
_SCALED_MMA_TARGETS = frozenset({("amd_mfma", "hip:gfx950"), ("nvidia_mma", "cuda:120"), ("nvidia_mma", "cuda:121")})


def _scale_layout(ctx: OpContext, scale: TypeRef, operand: TypeRef | None, side: int, res_kind: str,
                  subject: str, factor: int) -> Verdict:
    """The declared scale layout vs the one the target's scaled MMA reads (gfx950's MFMA, sm120's mma.sync)."""
    target = ctx.module.target
    if res_kind == "amd_wmma":
        return _wmma_scale_layout(ctx, scale, operand, side, subject, factor)
    if (res_kind, target) not in _SCALED_MMA_TARGETS:
        return unknown("dot_operands", subject, f"a scaled MMA with a #{res_kind} result on target "
                                                f"'{target or '?'}' has no modelled scale layout")
    enc = operand.encoding if operand is not None else None
    parent = enc.get("parent") if enc is not None and enc.get("kind") == "dot_operand" else None
    if not isinstance(parent, dict) or parent.get("kind") != res_kind:
        return unknown("dot_operands", subject, f"the scaled operand is not a #ttg.dot_op of an #{res_kind}: the "
                                                "scale layout it needs is not modelled")
    lanes = 64 if res_kind == "amd_mfma" else 32
    if ctx.module.threads_per_warp != lanes or ctx.module.num_ctas != 1 or parent.get("cga_layout"):
        return unknown("dot_operands", subject, f"the {target} scale layout is modelled for {lanes}-lane warps "
                                                "and one CTA")
    if factor != 32:
        return unknown("dot_operands", subject, f"scale factor {factor}: the {target} scale layout is modelled "
                                                "for one scale per 32 elements (scale_vec::1X) only")
    try:
        if res_kind == "amd_mfma":
            bases = mfma_scale_bases(side, list(scale.shape), int(parent["instr_shape"][0]),
                                     list(parent["warps_per_cta"]), parent.get("tiles_per_warp"))
        else:
            if list(parent.get("version", [0]))[0] != 2 or list(parent.get("instr_shape", [16, 8])) != [16, 8]:
                return unknown("dot_operands", subject, "sm120's scale layout is modelled for mma v2 m16n8")
            bases = sm120_scale_bases(side, list(scale.shape), list(parent["warps_per_cta"]))
        want = _one_cta_layout(scale, bases)
    except (LlverifyError, KeyError, TypeError, ValueError) as exc:
        return unknown("dot_operands", subject, f"{target} scale layout not built: {exc}")
    return _equal_to_required(scale, want, subject, f"{target}'s scaled MMA")


def _one_cta_layout(scale: TypeRef, bases: dict[str, list[list[int]]]) -> LinearLayout:
    """The layout over the scale's shape with these register / lane / warp ``bases`` and one CTA."""
    return linear(list(scale.shape), reg_bases=bases["register"], lane_bases=bases["lane"],
                  warp_bases=bases["warp"], block_bases=[])


def _equal_to_required(scale: TypeRef, want: LinearLayout, subject: str, reader: str) -> Verdict:
    """The declared layout of ``scale`` against ``want``, the one ``reader`` needs: F2 equality (:func:`equal`) as
    a ``dot_operands`` verdict; ``unknown`` when the declared layout does not build."""
    got = layout_of(scale)
    if isinstance(got, LayoutProblem):
        return unknown("dot_operands", subject, got.reason)
    sub = f"{subject} vs the layout {reader} reads"
    if set(got.layout.in_dim_names) != set(want.in_dim_names):  # other hardware dims (a memory layout on a tensor)
        return structural("dot_operands", sub, False, {}, {"declared": dict(got.layout.in_dims),
                                                           "required": dict(want.in_dims)},
                          "the declared layout is over other hardware dims than the one read", time.perf_counter())
    return equal(want, got.layout, subject=sub).with_(property="dot_operands")


def _wmma_scale_layout(ctx: OpContext, scale: TypeRef, operand: TypeRef | None, side: int, subject: str,
                       factor: int) -> Verdict:
    """gfx1250's scaled WMMA (``#ttg.amd_wmma`` version 3): the declared scale layout vs
    :func:`llverify.hw.wmma_scale.wmma_scale_bases`, F2 equality; ``unknown`` outside what that model covers
    (a parent with register bases, several CTAs, another warp size)."""
    t0 = time.perf_counter()
    enc = operand.encoding if operand is not None else None
    parent = enc.get("parent") if enc is not None and enc.get("kind") == "dot_operand" else None
    if not isinstance(parent, dict) or parent.get("kind") != "amd_wmma":
        return unknown("dot_operands", subject, "the scaled operand is not a #ttg.dot_op of an #amd_wmma: the "
                                                "scale layout it needs is not modelled")
    if int(parent.get("version", 0) or 0) != 3:
        return unknown("dot_operands", subject, f"a scaled WMMA of version {parent.get('version')}: only "
                                                "gfx1250's (version 3) scale layout is modelled")
    if ctx.module.threads_per_warp != 32 or ctx.module.num_ctas != 1 or parent.get("cga_layout") \
            or parent.get("reg_bases"):
        return unknown("dot_operands", subject, "gfx1250's scale layout is modelled for 32-lane warps, one CTA "
                                                "and a parent without register bases")
    try:
        bases = wmma_scale_bases(side, list(scale.shape), list(parent.get("instr_shape") or [16, 16, 16]),
                                 bool(parent.get("transposed")), list(parent.get("warp_bases") or []), factor)
        want = _one_cta_layout(scale, bases)
    except (LlverifyError, KeyError, TypeError, ValueError) as exc:
        return unknown("dot_operands", subject, f"gfx1250 scale layout not built: {exc}")
    v = _equal_to_required(scale, want, subject, "gfx1250's scaled WMMA")
    if v.status != "refuted":
        return v
    got = layout_of(scale)
    assert not isinstance(got, LayoutProblem)  # a refutation compared the built layout
    # Outside the instruction-fixed part (which lane of a 16-lane group holds which row, which warp which tiles,
    # which byte of a register which k-group) Triton's lowering also reads other placements (the fifth lane bit
    # as a half-wave select or a broadcast, the repetition order): a difference only there is not a refutation.
    n_k = max(1, (128 // factor).bit_length() - 1)
    fixed = {"lane": [list(b) for b in want.bases["lane"][:4]], "warp": [list(b) for b in want.bases["warp"]],
             "register": [list(b) for b in want.bases["register"][:n_k]]}
    have = {"lane": [list(b) for b in got.layout.bases.get("lane", ())[:4]],
            "warp": [list(b) for b in got.layout.bases.get("warp", ())],
            "register": [list(b) for b in got.layout.bases.get("register", ())[:n_k]]}
    if have != fixed:
        return structural("dot_operands", f"{subject} vs the lanes and scale bytes gfx1250's scaled WMMA reads",
                          False, {"operand": "AB"[side]}, {"declared": have, "required": fixed},
                          "lanes 0-15 must hold the tile's rows in order, each warp its own tiles' rows (the "
                          "parent's warp bases), and a register's bytes the instruction's k-groups in order", t0)
    return unknown("dot_operands", subject, f"differs from Triton's gfx1250 scale layout only in the half-wave / "
                                            f"repetition placement ({v.message}), which the lowering's choice "
                                            "between half-wave select and extra registers is not modelled for")
