"""Proof of a broadcast-store plan (:mod:`llverify.codegen.broadcast`, seed 000 section 5.1).

:func:`prove_broadcast_store` (f2): the kept points (the predicate's masked
bits zero) map bijectively onto the layout's image, so each element is
stored exactly once: the kept columns are independent (else two kept
points store one element, the witness replayed) and span the image (else
an element is never stored, the witness a unit input outside the span).
"""

from __future__ import annotations

import time

from llverify import f2
from llverify.codegen.broadcast import BroadcastPlan
from llverify.codegen.common import flat_bases
from llverify.prove.points import unit_point
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_broadcast_store"]


def prove_broadcast_store(plan: BroadcastPlan) -> Verdict:
    """Each element of the image is stored by exactly one kept hardware point (F2 certificate)."""
    t0 = time.perf_counter()
    L = plan.layout
    details = plan.to_json()
    cols, names = [], []
    for d in L.in_dim_names:
        for i, c in enumerate(flat_bases(L, d)):
            if not (plan.predicate_masks.get(d, 0) >> i & 1):
                cols.append(c)
                names.append((d, i))
    subj = "broadcast_predicate"
    null = f2.nullspace(cols)
    if null:
        x = {d: 0 for d in L.in_dim_names}
        for j, (d, i) in enumerate(names):
            if null[0] >> j & 1:
                x[d] |= 1 << i
        zero = {d: 0 for d in L.in_dim_names}
        a, b = dict(L.apply(zero)), dict(L.apply(x))
        assert a == b and plan.keeps(x) and plan.keeps(zero)  # replay
        return Verdict("refuted", "broadcast_store", subj, "f2", time.perf_counter() - t0,
                       "two kept points store the same element", Counterexample(x, {"L(0)": a, "L(x)": b},
                                                                                "also stored by the zero point"),
                       details=details)
    if f2.rank(cols) != L.rank:
        all_cols = [(d, i, c) for d in L.in_dim_names for i, c in enumerate(flat_bases(L, d))]
        d, i, c = next((d, i, c) for d, i, c in all_cols if not f2.in_span(c, cols))
        x = unit_point(L, d, i)
        elem = dict(L.apply(x))
        return Verdict("refuted", "broadcast_store", subj, "f2", time.perf_counter() - t0,
                       "an element is never stored (its holders all fail the predicate)",
                       Counterexample(x, {"element": elem, "kept": plan.keeps(x)},
                                      "no kept point maps to this element: it is outside the span of the kept columns"),
                       details=details)
    return Verdict("proved", "broadcast_store", subj, "f2", time.perf_counter() - t0,
                   f"{len(cols)} kept columns are independent and span the image: each element stored once",
                   certificate={"kept_columns": len(cols)}, details=details)
