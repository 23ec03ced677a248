"""Proof of a conversion plan (:mod:`llverify.codegen.conversion`, seed 000 section 5.1).

:func:`prove_conversion_plan` (f2): ``A(cvt(x)) == B(x)`` on every column
of ``cvt = B^-1 A`` (both sides are linear, so the unit inputs decide it),
and ``cvt`` is the identity on the dims the plan's classification says do
not move (a ``warp_shuffle`` moves nothing across warps and blocks, ...).
A refutation names the unit input and both sides, evaluated.
"""

from __future__ import annotations

import time

from llverify.codegen.conversion import ConversionPlan
from llverify.prove.points import unit_point
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_conversion_plan"]


_STILL = {"noop": ("block", "warp", "lane", "register"), "register_permutation": ("block", "warp", "lane"),
          "warp_shuffle": ("block", "warp"), "shared_memory": ()}


def prove_conversion_plan(plan: ConversionPlan) -> Verdict:
    """``A(cvt(x)) == B(x)`` for every destination slot, and no movement across the dims claimed still."""
    t0 = time.perf_counter()
    A, B, cvt = plan.src, plan.dst, plan.cvt
    details = plan.to_json()
    subj = "convert"
    for d in cvt.in_dim_names:
        for i in range(cvt.in_dim_size_log2(d)):
            x = unit_point(cvt, d, i)
            y = dict(cvt.apply(x))
            lhs = dict(A.apply({k: y.get(k, 0) for k in A.in_dim_names}))
            rhs = dict(B.apply({k: x.get(k, 0) for k in B.in_dim_names}))
            if {k: lhs[k] for k in rhs} != rhs:
                return Verdict("refuted", "conversion", subj, "f2", time.perf_counter() - t0,
                               "the source slot cvt picks holds another element",
                               Counterexample(x, {"A(cvt(x))": lhs, "B(x)": rhs}), details=details)
    for d in _STILL[plan.classification]:
        if not (cvt.has_in_dim(d) or cvt.has_out_dim(d)):
            continue
        if not cvt.is_trivial_over([d]):
            bad = next((i for i in range(cvt.in_dim_size_log2(d))
                        if dict(cvt.apply(unit_point(cvt, d, i))) != {k: (1 << i if k == d else 0) for k in cvt.out_dim_names}),
                       None) if cvt.has_in_dim(d) else None
            if bad is None:  # an other dim moves data into d
                bad_dim, bad_i = next((e, i) for e in cvt.in_dim_names if e != d for i in range(cvt.in_dim_size_log2(e))
                                      if cvt.has_out_dim(d) and cvt.apply(unit_point(cvt, e, i))[d])
            else:
                bad_dim, bad_i = d, bad
            x = unit_point(cvt, bad_dim, bad_i)
            return Verdict("refuted", "conversion", subj, "f2", time.perf_counter() - t0,
                           f"classified {plan.classification} but data moves across '{d}'",
                           Counterexample(x, {"cvt(x)": dict(cvt.apply(x))}), details=details)
    return Verdict("proved", "conversion", subj, "f2", time.perf_counter() - t0,
                   f"{plan.classification}: A(cvt(x)) == B(x) on all {cvt.total_in_bits} columns",
                   certificate={"columns_checked": cvt.total_in_bits}, details=details)
