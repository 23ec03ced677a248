"""Shrink a counterexample toward small values (Alive2 style).

Given a point (named ints) at which a concrete predicate ``holds`` (the bug
shows), :func:`minimize` greedily looks for a "smaller" point where it still
holds, in three passes repeated to a fixpoint:

1. pin each variable to 0;
2. clear each set bit of each variable, highest bit first;
3. try each small value ``0 .. small-1`` below the current one;
4. bisect ``[0, current)`` for a smaller value (a heuristic for predicates
   that are monotone; each candidate is still checked).

A canonical pass comes first: the least point with at most one bit set (see
:func:`_least_single_bit_point`; for linear claims it is *the* least witness,
the same whatever point a solver returned, so ``-j 1`` and ``-j 2`` print one
counterexample); the greedy passes then start from it, so the result is the same
whatever point the caller began with.  Only when no single-bit point fails does
the greedy search start from the caller's point.

The predicate is re-evaluated concretely at every candidate, so the result is
always a point where ``holds`` is true (it starts from one).  Example: with
``holds = lambda p: p["lane"] & 4 != 0`` the point ``{"lane": 29, "warp":
3}`` shrinks to ``{"lane": 4, "warp": 0}``.

The helper is generic: any ``Callable[[dict[str, int]], bool]`` works, so
other layers (index code, plans) reuse it.
"""

from __future__ import annotations

from typing import Callable, Mapping

__all__ = ["minimize", "CANONICAL_BITS"]

#: bit positions tried per variable by the canonical pass (inputs are at most 32 bits wide here)
CANONICAL_BITS = 32


def _least_single_bit_point(names: list[str], ok: Callable[[dict[str, int]], bool]) -> dict[str, int] | None:
    """The least point with at most one bit set where ``ok`` holds, or None.

    Order: the flattened index with the first-listed variable least significant (as layouts flatten their
    in dims: register, then lane, warp, block), i.e. all zeros, then bit 0, 1, ... of the first variable,
    then of the second, ...  Points outside a variable's range make the predicate raise and are skipped.
    For a linear claim the failing points are the complement of a subspace, and the least of them is
    always a single bit (every smaller point lies in the span of smaller basis vectors, all inside the
    subspace), so this is the canonical least witness; it does not depend on where a solver started.
    """
    zero = {n: 0 for n in names}
    if ok(dict(zero)):
        return zero
    for n in names:
        for b in range(CANONICAL_BITS):
            cand = {**zero, n: 1 << b}
            if ok(cand):
                return cand
    return None


def minimize(point: Mapping[str, int], holds: Callable[[dict[str, int]], bool], *,
             small: int = 16, max_evals: int = 20_000) -> dict[str, int]:
    """A point no larger than ``point`` (variable by variable) where ``holds`` is still true.

    Precondition: ``holds(dict(point))`` is true (else ``point`` is returned
    unchanged).  Variables are tried in the order given.  ``max_evals`` bounds
    the number of predicate evaluations.
    """
    cur = {k: int(v) for k, v in point.items()}
    evals = 0

    def ok(cand: dict[str, int]) -> bool:
        nonlocal evals
        evals += 1
        try:
            return bool(holds(cand))
        except (ValueError, KeyError, IndexError):
            return False

    if not ok(dict(cur)):
        return cur
    canonical = _least_single_bit_point(list(cur), ok)
    if canonical is not None:
        cur = canonical  # a start that does not depend on the solver: the result is canonical too
    changed = True
    while changed and evals < max_evals:
        changed = False
        for k in cur:  # pass 1: pin to 0
            if cur[k] and ok({**cur, k: 0}):
                cur[k] = 0
                changed = True
        for k in cur:  # pass 2: clear bits, highest first
            for b in range(cur[k].bit_length() - 1, -1, -1):
                if evals >= max_evals:
                    break
                if (cur[k] >> b) & 1:
                    cand = cur[k] & ~(1 << b)
                    if ok({**cur, k: cand}):
                        cur[k] = cand
                        changed = True
        for k in cur:  # pass 3: small values below the current one
            for v in range(min(small, cur[k])):
                if evals >= max_evals:
                    break
                if ok({**cur, k: v}):
                    cur[k] = v
                    changed = True
                    break
        for k in cur:  # pass 4: bisect [0, current) (every candidate is re-checked)
            lo, hi = 0, cur[k]
            while lo < hi and evals < max_evals:
                mid = (lo + hi) // 2
                if ok({**cur, k: mid}):
                    hi = mid
                else:
                    lo = mid + 1
            if hi != cur[k]:
                cur[k] = hi
                changed = True
    return cur
