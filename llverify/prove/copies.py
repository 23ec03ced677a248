"""How many inputs of some dims hold the same element: a bound on broadcast copies.

For in dims ``D`` of a layout ``L`` (the other in dims held fixed), the inputs
that hold one element form a coset of the kernel of ``L`` restricted to ``D``'s
bits, so every element reached is held by exactly ``2^k`` of them, ``k = |D
bits| - rank(D columns)`` (the nullity; seed 000, section 5.1: zero or
dependent columns are broadcast).  The claim ``copies(L, D) <= max + 1`` ("each
element is held at most ``max + 1`` times", i.e. at most ``max`` duplicates) is
decided by:

* ``f2``: independent columns with a checked left inverse certify ``rank >=
  r``, hence ``2^k <= 2^(n - r)``; a refutation lists ``max + 2`` distinct
  inputs from the kernel span, all holding the element ``L(0)``;
* ``exhaustive``: enumerate every input, group by (other dims, value), count;
* ``smt``: ``max + 2`` pairwise-distinct inputs supported on ``D`` with equal
  outputs (only for ``max + 2 <= 16``, else ``unknown``).

Example: ``lane`` bases ``[(1,), (0,), (0,)]`` hold each element in 4 lanes:
``max = 3`` proves, ``max = 2`` is refuted with lanes ``0, 2, 4, 6``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import z3

from llverify import f2
from llverify.layout import LinearLayout
from llverify.prove import bv
from llverify.prove.certificates import CertificateError, check_left_inverse, left_inverse
from llverify.prove.finding import Finding, proved, refuted, unknown
from llverify.prove.points import flatten_in, unflatten_in
from llverify.prove.replay import plain, replayed_counterexample

__all__ = ["at_most"]


def _dims_mask(L: LinearLayout, dims: list[str]) -> int:
    return flatten_in(L, {d: L.in_dim_size(d) - 1 for d in dims})


def _holders_cx(L: LinearLayout, holders: list[int]) -> Any:
    pts = [unflatten_in(L, h) for h in holders]

    def holds(_: dict[str, int]) -> bool:
        vals = [plain(L.apply(p)) for p in pts]
        return len(set(holders)) == len(holders) and all(v == vals[0] for v in vals)

    return replayed_counterexample({"L(x)": L.apply}, pts[0], holds=holds,
                                   extra={"holders": lambda p: pts, "L(holders)": lambda p: [plain(L.apply(q)) for q in pts]},
                                   note=f"{len(pts)} different inputs hold the same element", shrink=False)


def _f2(L: LinearLayout, dims: list[str], max_dup: int) -> Finding:
    mask = _dims_mask(L, dims)
    idx = [j for j in range(L.total_in_bits) if (mask >> j) & 1]
    cols = [L.flat_columns[j] for j in idx]
    e = f2.Echelon.of(cols)
    piv = [cols[k] for k in e.pivot_inputs]
    P = left_inverse(piv, L.total_out_bits)
    if P is None or not check_left_inverse(piv, P):
        raise CertificateError("left inverse on the pivot columns failed its check")
    k = len(cols) - len(piv)
    if (1 << k) <= max_dup + 1:
        return proved({"kind": "rank_lower_bound", "rank_at_least": len(piv), "bits": len(cols),
                       "left_inverse": P, "check": "P is a left inverse of the pivot columns"},
                      f"each element is held by {1 << k} input(s) of {dims} (at most {max_dup + 1})",
                      copies=1 << k)
    kernel = [sum(1 << idx[i] for i in range(len(idx)) if (v >> i) & 1) for v in f2.nullspace(cols)]
    holders = []
    for c in range(max_dup + 2):
        h = 0
        for b, kv in enumerate(kernel):
            if (c >> b) & 1:
                h ^= kv
        holders.append(h)
    return refuted(_holders_cx(L, holders), f"each element is held by {1 << k} inputs of {dims}, "
                   f"more than {max_dup + 1}", copies=1 << k)


def _exhaustive(L: LinearLayout, dims: list[str], max_dup: int) -> Finding:
    from llverify.prove.exhaustive import _TooBig, _table
    try:
        T = _table(L).astype(np.uint64)
    except _TooBig as e:
        return unknown(f"exhaustive enumeration refused: {e}", refused="size guard")
    mask = _dims_mask(L, dims)
    other = np.arange(T.size, dtype=np.uint64) & np.uint64(((1 << L.total_in_bits) - 1) & ~mask)
    keys = np.stack([other, T], axis=1)
    uniq, inv, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    worst = int(counts.max()) if counts.size else 1
    if worst <= max_dup + 1:
        return proved({"kind": "enumeration", "points": int(T.size)},
                      f"each element is held by at most {worst} input(s) of {dims}", copies=worst)
    g = int(np.argmax(counts))
    holders = [int(i) for i in np.flatnonzero(inv.reshape(-1) == g)[:max_dup + 2]]
    return refuted(_holders_cx(L, holders), f"an element is held by {worst} inputs of {dims}", copies=worst)


def _smt(L: LinearLayout, dims: list[str], max_dup: int, rlimit: int | None, timeout: float | None) -> Finding:
    m = max_dup + 2
    if m > 16:
        return unknown(f"the SMT encoding needs max + 2 <= 16 distinct copies, got {m}")
    n = L.total_in_bits
    if n == 0:
        r = bv.check(z3.BoolVal(False), rlimit, timeout)
    else:
        mask = z3.BitVecVal(((1 << n) - 1) & ~_dims_mask(L, dims), n)
        xs = [bv.input_vars(L, prefix=f"h{i}_") for i in range(m)]
        fl = [bv.flat_input(L, x) for x in xs]
        outs = [bv.layout_terms(L, x) for x in xs]
        cons = [z3.Distinct(*fl)] if m > 1 else []
        cons += [(fl[i] & mask) == (fl[0] & mask) for i in range(1, m)]
        cons += [outs[i][d] == outs[0][d] for i in range(1, m) for d in outs[0]]
        r = bv.check(cons, rlimit, timeout)
        if r.status == "sat":
            holders = [r.model.eval(f, model_completion=True).as_long() for f in fl]
            f = refuted(_holders_cx(L, holders), f"{m} inputs of {dims} hold the same element")
            return Finding(f.status, f.counterexample, None, f.message, {"smt2": r.smt2})
    if r.status == "unsat":
        return proved(r.certificate(), f"no {m} inputs of {dims} hold the same element")
    return unknown(f"Z3 gave up: {r.reason} (rlimit {r.rlimit})", smt2=r.smt2)


def at_most(L: LinearLayout, dims: list[str], max_dup: int, method: str, rlimit: int | None = None,
            timeout: float | None = None) -> Finding:
    """Decide "each element is held by at most ``max_dup + 1`` inputs of ``dims``" with ``method``."""
    if method == "f2":
        return _f2(L, dims, max_dup)
    f = _exhaustive(L, dims, max_dup) if method == "exhaustive" else _smt(L, dims, max_dup, rlimit, timeout)
    if "copies" in f.details:
        return f
    mask = _dims_mask(L, dims)  # informational: the exact count, by rank
    cols = [c for j, c in enumerate(L.flat_columns) if (mask >> j) & 1]
    return Finding(f.status, f.counterexample, f.certificate, f.message,
                   {**f.details, "copies": 1 << (len(cols) - f2.rank(cols))})
