"""Proof of a gather plan (:mod:`llverify.codegen.gather`, seed 000 section 5.5).

:func:`prove_gather` (f2): the plan's warp-locality claim holds on the
layout: where it says warp-local, each axis bit's preimage (register,
lane) is checked by evaluating the layout and the register offsets are
closed under it; where it says not, some axis bit is outside the span of
the register and lane columns (else refuted with the F2 solution).
"""

from __future__ import annotations

import time

from llverify import f2
from llverify.codegen.common import flat_bases
from llverify.codegen.gather import GatherPlan
from llverify.prove.points import hardware_element
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_gather"]


def prove_gather(plan: GatherPlan) -> Verdict:
    """Check the plan's warp-locality claim on the layout (F2, preimages checked by evaluation)."""
    t0 = time.perf_counter()
    L = plan.layout
    details = plan.to_json()
    out = list(L.out_dim_names)[plan.axis]
    regs, lanes = flat_bases(L, "register"), flat_bases(L, "lane")
    shift = L.flat_out_shifts()[out]
    subj = f"gather[axis={plan.axis}]"
    for j in range(L.out_dim_size_log2(out)):
        target = 1 << (shift + j)
        pre = plan.axis_preimages[j] if j < len(plan.axis_preimages) else None
        if plan.warp_local:
            ok = pre is not None and hardware_element(L, pre[0], pre[1], 0, 0) == target and \
                all((pre[0] ^ r) in plan.register_offsets or r not in plan.register_offsets
                    for r in plan.register_offsets) and pre[0] in plan.register_offsets
            if not ok:
                sol = f2.solve(regs + lanes + flat_bases(L, "warp") + flat_bases(L, "block"), target)
                return Verdict("refuted", "gather_warp_local", subj, "f2", time.perf_counter() - t0,
                               f"axis bit {j}: the element at axis offset {1 << j} is not where the plan reads it",
                               Counterexample({"axis_offset": 1 << j},
                                              {"plan_holder": list(pre) if pre else None,
                                               "some_holder_flat_input": sol}), details=details)
    if not plan.warp_local and all(f2.in_span(1 << (shift + j), regs + lanes) for j in range(L.out_dim_size_log2(out))):
        return Verdict("refuted", "gather_warp_local", subj, "f2", time.perf_counter() - t0,
                       "the plan says not warp-local, but every axis bit is held within a warp",
                       Counterexample({"axis_offset": 1}, {"register|lane flat solution": f2.solve(regs + lanes, 1 << shift)}),
                       details=details)
    return Verdict("proved", "gather_warp_local", subj, "f2", time.perf_counter() - t0,
                   ("warp-local: " + f"{plan.rounds_per_register} shuffle rounds per register")
                   if plan.warp_local else "not warp-local: an axis bit needs another warp or block",
                   details=details)
