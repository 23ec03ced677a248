"""The reverse of a broadcast store: every replica receives a value its writer produced (issue: Triton #7402).

When several hardware indices hold one element (the layout's free variables, seed 000 section 5.3), an
operation whose result only one of them computes (an atomic, a reduction into one lane) must deliver that
result to every replica.  With the broadcast predicate's masks ``m`` (per in dim, default: the free
variables), the writer of hardware index ``x`` is ``w(x) = x & ~m`` (every predicated bit cleared).  The
claim: for every ``x``, ``L(w(x)) == L(x)``, i.e. the value ``x`` reads back was produced for its own
element.  ``L`` is linear, so ``L(w(x)) xor L(x) = L(x & m)`` and the claim holds for all ``x`` iff
``L`` maps every masked basis vector to 0 (checked per basis vector: an F2 certificate).  A masked bit
that is not free is refuted with that basis vector ``x``: its writer ``w(x)`` holds another element,
replayed by evaluating ``L`` at both.

``details["delivery"]`` says how the value can travel: ``in_thread`` (masks only on registers),
``warp_shuffle`` (also lanes), ``shared_memory`` (warps or blocks are replicas).

>>> from llverify.layout import LinearLayout
>>> L = LinearLayout.from_bases({"register": [], "lane": [[1], [0]], "warp": []}, ["dim0"])
>>> broadcast_load(L).details["delivery"], broadcast_load(L, {"lane": 0b01}).status
('warp_shuffle', 'refuted')
"""

from __future__ import annotations

import time
from typing import Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["broadcast_load"]


def broadcast_load(L: LinearLayout, masks: Mapping[str, int] | None = None, *,
                   subject: str = "broadcast load") -> Verdict:
    t0 = time.perf_counter()
    masks = dict(L.free_variable_masks() if masks is None else masks)
    zero = {d: 0 for d in L.in_dim_names}
    for d, m in masks.items():
        if d not in L.in_dim_names:
            return Verdict("error", "broadcast_load", subject, None, time.perf_counter() - t0,
                           f"mask for unknown in dim {d!r} (the layout has {list(L.in_dim_names)})")
        for i in range(L.in_dim_size_log2(d)):
            if not m >> i & 1:
                continue
            x = {**zero, d: 1 << i}
            if any(dict(L.apply(**x)).values()):
                writer = zero  # x with its masked bit cleared
                mine, theirs = dict(L.apply(**x)), dict(L.apply(**writer))
                assert mine != theirs  # replay
                return Verdict("refuted", "broadcast_load", subject, "f2", time.perf_counter() - t0,
                               f"the replica at {d}={1 << i} reads the writer's value of another element",
                               Counterexample(x, {"element at x": mine, "writer": writer,
                                                  "element at writer": theirs},
                                              "both elements evaluated on the layout"))
    used = {d for d, m in masks.items() if m}
    delivery = ("shared_memory" if used & {"warp", "block"} else "warp_shuffle" if "lane" in used else "in_thread")
    return Verdict("proved", "broadcast_load", subject, "f2", time.perf_counter() - t0,
                   f"every replica reads its own element's value (delivery: {delivery})",
                   certificate={"masked_bases_map_to_zero": {d: m for d, m in masks.items() if m}},
                   details={"masks": masks, "delivery": delivery})
