"""Warp-locality of ``tt.gather``: the predicate under which Triton lowers a gather with warp shuffles.

``out[..., i, ...] = src[..., index[..., i, ...], ...]`` along ``axis`` (seed 000, section 5.5).  Triton 3.9
marks a gather whose layouts it chose for this with ``efficient_layout`` and lowers it without shared
memory exactly when (``GatherLoweringHelper::isWarpLocal``, lib/Analysis/Utility.cpp; stated here in our
words):

1. the ``block`` and ``warp`` bases of both ``src`` and ``index`` have no component along ``axis`` (a
   column along the axis lives inside one warp: every source element an index could name is in the warp);
2. ``src`` and ``index`` map ``(block, warp)`` identically onto the other dims (the warp holding an index
   element holds the column it indexes);
3. ``src`` and ``index`` map ``lane`` identically onto the other dims (the same lanes hold a column in
   both: Triton's codegen relies on it to shuffle by index alone).

1 and 2 are the paper's condition (every axis unit vector in ``span(register, lane)``, same warps); 3 is
Triton's simplification of its code generator.  All three are statements about basis vectors (each
sublayout is linear, so equal on bases means equal), decided by evaluating both layouts at every basis
vector of the named in dims: complete, an F2 certificate.  A refutation names the basis vector and the
two values, recomputed by evaluation.

>>> from llverify.layout import LinearLayout
>>> L = LinearLayout.from_bases({"register": [[0, 1]], "lane": [[0, 2], [1, 0]], "warp": [[2, 0]]},
...                             ["dim0", "dim1"])
>>> gather_warp_local(L, L, axis=1).status, gather_warp_local(L, L, axis=0).status
('proved', 'refuted')
"""

from __future__ import annotations

import time
from typing import Any

from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["gather_warp_local"]


def _basis_value(L: LinearLayout, dim: str, i: int) -> dict[str, int]:
    return dict(L.apply(**{n: (1 << i if n == dim else 0) for n in L.in_dim_names}))


def gather_warp_local(src: LinearLayout, index: LinearLayout, axis: int, *,
                      subject: str = "tt.gather is warp-local") -> Verdict:
    """Decide Triton's warp-local gather predicate for ``src`` and ``index`` along ``axis`` (module docstring).

    Requires: both are distributed layouts of tensors of one rank (in dims ``register, lane, warp[, block]``,
    out dims ``dim0..``); their shapes may differ along ``axis`` only.
    """
    t0 = time.perf_counter()
    prop = "gather_warp_local"
    ax = f"dim{axis}"
    if ax not in src.out_dim_names or ax not in index.out_dim_names:
        return Verdict("error", prop, subject, None, time.perf_counter() - t0,
                       f"axis {axis} is not a dim of both layouts ({list(src.out_dim_names)})")
    others = [d for d in src.out_dim_names if d != ax]
    checked = 0

    def refute(inputs: dict[str, Any], sides: dict[str, Any], message: str) -> Verdict:
        cx = Counterexample(inputs, sides, "recomputed: both layouts evaluated at this basis vector")
        return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0, message, cx)

    # 1. no block / warp basis moves along the axis
    for name, L in (("src", src), ("index", index)):
        for d in ("block", "warp"):
            for i in range(L.in_dim_size_log2(d) if d in L.in_dim_names else 0):
                value = _basis_value(L, d, i)
                checked += 1
                if value[ax]:
                    return refute({"tensor": name, d: 1 << i}, {name: value},
                                  f"{d} bit {i} of {name} moves along the gather axis: a column spans warps")
    # 2 and 3. the same (block, warp) and lane maps onto the other dims
    for group in (("block", "warp"), ("lane",)):
        for d in group:
            ns = src.in_dim_size_log2(d) if d in src.in_dim_names else 0
            ni = index.in_dim_size_log2(d) if d in index.in_dim_names else 0
            if ns != ni:
                return refute({d: 1 << min(ns, ni)}, {"src bits": ns, "index bits": ni},
                              f"src and index have different '{d}' sizes")
            for i in range(ns):
                a = {o: _basis_value(src, d, i)[o] for o in others}
                b = {o: _basis_value(index, d, i)[o] for o in others}
                checked += 1
                if a != b:
                    return refute({d: 1 << i}, {"src": a, "index": b},
                                  f"{d} bit {i} maps to different columns in src and index")
    return Verdict("proved", prop, subject, "f2", time.perf_counter() - t0,
                   f"warp-local along axis {axis}: Triton lowers it with warp shuffles, no shared memory",
                   certificate={"basis_vectors_compared": checked})
