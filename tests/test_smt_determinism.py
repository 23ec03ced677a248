"""A Z3 query's outcome under an rlimit does not depend on what the process built before it.

Z3 numbers terms in the order a context creates them, and its search (so the resources it spends) follows
those numbers: in one shared context the same query could need a different rlimit after other work, and a
query near its budget was proved under ``-j 1`` and ``unknown`` under ``-j 2``. ``bv.check`` decides each
query in a fresh context, so the least rlimit that decides it is a property of the query alone.
"""

from __future__ import annotations

import z3

from llverify.prove import bv


def _query() -> list[z3.BoolRef]:
    x, y, z = z3.BitVecs("qx qy qz", 10)
    return [x * y + z == 345, x ^ (y << 3) == z + 7, z3.ULT(x, y), z3.UGT(z, 100)]


def _least_rlimit(build) -> tuple[int, str]:
    """The least rlimit (to 1 unit) under which the query is decided, and the decision."""
    hi = 1 << 10
    while (top := bv.check(build(), rlimit=hi).status) == "unknown":
        hi *= 2
        assert hi <= 1 << 26, "the query is not decided within 2^26 resource units"
    lo = hi // 2
    while lo < hi:
        mid = (lo + hi) // 2
        if bv.check(build(), rlimit=mid).status == top:
            hi = mid
        else:
            lo = mid + 1
    return lo, top


def _pollute() -> None:
    """Build unrelated terms in the default context and search on them, as earlier checks of a run would.  The
    search is bounded (rlimit 2,000,000, a few seconds): decided, this instance takes Z3 minutes (it was 120-317 s of
    every CI run), and what the test needs is the terms and the solver's work in the context, not the answer."""
    a = [z3.BitVec(f"noise{i}", 16) for i in range(64)]
    s = z3.Solver()
    s.set("rlimit", 2_000_000)
    s.add(z3.Distinct(*a), z3.Sum(a) == 77, *(z3.ULT(v, 500) for v in a[:8]))
    assert s.check() == z3.unknown  # the budget ran out: real search was done, and stopped


def test_the_least_deciding_rlimit_is_the_same_after_unrelated_work() -> None:
    before = _least_rlimit(_query)
    _pollute()
    after = _least_rlimit(_query)
    assert before == after
    # and the budget is real: one unit less leaves it undecided
    assert bv.check(_query(), rlimit=before[0] - 1).status == "unknown" if before[0] > 1 else True


def test_a_model_is_read_in_the_callers_context() -> None:
    x = z3.BitVec("mx", 8)
    r = bv.check([x + 3 == 10])
    assert r.status == "sat"
    assert r.model.eval(x, model_completion=True).as_long() == 7
