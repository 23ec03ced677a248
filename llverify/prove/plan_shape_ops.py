"""Proof of a shape-op plan (:mod:`llverify.codegen.shape_ops`, seed 000 theorem 9.3).

:func:`prove_shape_op`: for every output slot, the op's semantics applied
to the output element equals the operand element at the mapped slot (the
op moves no data).  ``f2`` (default): column-wise on each affine piece of
the bit maps, every checked point also replayed with the op's integer
semantics; ``exhaustive``: every slot, up to a limit (else ``unknown``).
"""

from __future__ import annotations

import time
from itertools import product

from llverify.codegen.shape_ops import ShapeOpPlan
from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.prove.points import unflatten_in
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_shape_op"]


def _shape_op_mismatch(plan: ShapeOpPlan, k: int, hw: dict[str, int]) -> tuple[dict, dict] | None:
    """Replay one output slot with the op's integer semantics: None if it holds, else the two sides."""
    Lo = plan.outputs[k]
    op_i, c_in = plan.in_coord(k, dict(Lo.apply(hw)))
    op_j, hw_in = plan.in_point(k, hw)
    Li = plan.inputs[op_j]
    actual = dict(Li.apply({d: hw_in.get(d, 0) for d in Li.in_dim_names}))
    if op_i != op_j or {n: actual.get(n, 0) for n in c_in} != c_in:
        return {"operand": op_i, **c_in}, {"operand": op_j, **actual}
    return None


def _data_moves(k: int, hw: dict[str, int], sem: tuple[dict, dict], method: str, t0: float, subj: str,
                details: dict) -> Verdict:
    """The refutation at output ``k``, slot ``hw``, whose replayed sides ``sem`` differ."""
    return Verdict("refuted", "shape_op_noop", subj, method, time.perf_counter() - t0,
                   "the op would move data: this slot does not already hold its element",
                   Counterexample({"output": k, **hw}, {"op(output element)": sem[0], "operand element at slot": sem[1]}),
                   details=details)


def _prove_shape_op_f2(plan: ShapeOpPlan, t0: float, subj: str, details: dict) -> Verdict:
    """Column-wise F2 proof: ``coord(L_out(x)) == (op, L_op(point(x)))`` on each affine piece.

    ``coord`` and ``point`` are bit-moving affine maps (:class:`BitMap`), the
    layouts are linear, so on each piece of the domain where the operand index
    is fixed (join: one register bit fixed) both sides are affine, and they
    agree everywhere iff they agree at the piece's base point and at base XOR
    each free unit vector.  Every checked point is also evaluated with the
    op's integer semantics (``in_coord``/``in_point``): the maps must agree
    with them, else the verdict is an internal ``error``.
    """
    shapes = {tuple(L.out_dims.values()) for L in plan.inputs}
    if len(shapes) != 1:
        return Verdict("error", "shape_op_noop", subj, None, time.perf_counter() - t0,
                       f"operands have different shapes {sorted(shapes)}", details=details)
    def named(L: LinearLayout) -> LinearLayout:   # flat coordinates with dim0 lowest, as the bit maps read them
        return L.transpose_outs([f"dim{i}" for i in range(L.num_out_dims)])

    try:
        outs, ins = [named(L) for L in plan.outputs], [named(L) for L in plan.inputs]
    except LayoutError as exc:
        return Verdict("error", "shape_op_noop", subj, None, time.perf_counter() - t0,
                       f"shape-op layouts must name their out dims dim0, dim1, ...: {exc}", details=details)
    checked = 0
    for k, Lo in enumerate(outs):
        cmap, pmap = plan.coord_bitmap(k), plan.point_bitmap(k)
        Li0 = ins[0]
        top_c, top_p = Li0.total_out_bits, Li0.total_in_bits
        sel = [i for i, d in enumerate(pmap.dest) if d == top_p]   # hw bits choosing the operand
        n = Lo.total_in_bits
        pieces = [0] if not sel else [0, 1 << sel[0]]
        for base in pieces:
            free = [1 << i for i in range(n) if i not in sel]
            for x in [base] + [base ^ f for f in free]:
                checked += 1
                lhs = cmap(Lo.apply_flat(x))
                y = pmap(x)
                o = y >> top_p & 1
                if o >= len(plan.inputs):
                    o = 0
                rhs = ins[o].apply_flat(y & ((1 << top_p) - 1)) | ((y >> top_p & 1) << top_c)
                hw = unflatten_in(Lo, x)
                sem = _shape_op_mismatch(plan, k, hw)
                if (lhs == rhs) != (sem is None):
                    return Verdict("error", "shape_op_noop", subj, None, time.perf_counter() - t0,
                                   "internal error of the f2 method: the op's bit map disagrees with its semantics "
                                   f"at output {k}, slot {hw}", details=details)
                if sem is not None:
                    return _data_moves(k, hw, sem, "f2", t0, subj, details)
    return Verdict("proved", "shape_op_noop", subj, "f2", time.perf_counter() - t0,
                   f"{plan.op}: coord(L_out) == L_in(point) on every affine piece ({checked} points checked)",
                   certificate={"kind": "f2-affine-columns", "points_checked": checked}, details=details)


def prove_shape_op(plan: ShapeOpPlan, limit: int = 1 << 16, method: str = "auto") -> Verdict:
    """For every output slot: op semantics(output element) == operand element at the mapped slot.

    ``method``: ``"f2"`` (default via ``"auto"``; any size) or ``"exhaustive"``
    (every slot, refused above ``limit`` slots -> ``unknown``).
    """
    t0 = time.perf_counter()
    details = plan.to_json()
    subj = f"{plan.op}[{plan.direction}]"
    if method not in ("auto", "f2", "exhaustive"):
        raise LayoutError(f"prove_shape_op: unknown method {method!r} (use 'auto', 'f2' or 'exhaustive')")
    if method in ("auto", "f2"):
        return _prove_shape_op_f2(plan, t0, subj, details)
    total = sum(L.total_in_size for L in plan.outputs)
    if total > limit:
        return Verdict("unknown", "shape_op_noop", subj, None, time.perf_counter() - t0,
                       f"{total} slots exceed the exhaustive limit {limit}", details=details)
    for k, Lo in enumerate(plan.outputs):
        dims = list(Lo.in_dims.items())
        for idx in product(*[range(s) for _, s in dims]):
            hw = {d: v for (d, _), v in zip(dims, idx)}
            sem = _shape_op_mismatch(plan, k, hw)
            if sem is not None:
                return _data_moves(k, hw, sem, "exhaustive", t0, subj, details)
    return Verdict("proved", "shape_op_noop", subj, "exhaustive", time.perf_counter() - t0,
                   f"{plan.op} is a no-op on all {total} slots", certificate={"points": total}, details=details)
