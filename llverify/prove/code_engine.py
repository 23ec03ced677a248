"""Deciding a claim about integer inputs over a box (the engine of :mod:`llverify.prove.code`).

A :class:`Claim` is "for every point ``x`` of the box ``lo_i <= x_i < hi_i``, not ``bad(x)``", given twice:
as a Z3 bit-vector formula (``z3_bad``) and, where one exists, as a numpy predicate over arrays of points
(``np_bad``), with a ``replay`` that evaluates one point concretely.  :func:`decide` chooses a complete method:

* ``exhaustive``: ``np_bad`` on every point of the box (``method="auto"`` picks it up to
  :data:`AUTO_EXHAUSTIVE_POINTS` points; never beyond :data:`MAX_EXHAUSTIVE_POINTS`); proved iff no point is bad;
* ``smt``: Z3 over bit-vectors of each variable's width; proved iff ``z3_bad`` with the range bounds is unsat.

Postcondition: ``refuted`` only with the lexicographically smallest bad point (first variable most significant:
the first bad index of the enumeration, or Z3 narrowing each variable by binary search) and only after
``replay`` confirmed it; a point that does not replay gives ``unknown``, as do Z3's ``unknown`` answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from math import prod
from typing import Any, Callable, Mapping

import numpy as np
import z3

from llverify.indexcode.parse import IndexCodeError
from llverify.prove.bv import canonical_smt2
from llverify.prove.bv import solver as z3_solver
from llverify.prove.solver_budget import z3_version
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["AUTO_EXHAUSTIVE_POINTS", "MAX_EXHAUSTIVE_POINTS", "Claim", "Ranges", "decide", "normalise_ranges",
           "refute", "var_width", "verdict"]

AUTO_EXHAUSTIVE_POINTS = 1 << 16
MAX_EXHAUSTIVE_POINTS = 1 << 24

Ranges = Mapping[str, "int | tuple[int, int]"]


def normalise_ranges(ranges: Ranges) -> dict[str, tuple[int, int]]:
    """``{"x": 8, "y": (-4, 4)}`` -> half-open pairs ``{"x": (0, 8), "y": (-4, 4)}``."""
    out: dict[str, tuple[int, int]] = {}
    for k, r in ranges.items():
        if isinstance(r, bool):
            raise IndexCodeError(f"range of '{k}' must be an int or a (lo, hi) pair, got {r!r}")
        if isinstance(r, int):
            lo, hi = 0, r
        else:
            try:
                lo, hi = (int(x) for x in r)
            except (TypeError, ValueError):
                raise IndexCodeError(f"range of '{k}' must be an int or a (lo, hi) pair, got {r!r}") from None
        if hi <= lo:
            raise IndexCodeError(f"range of '{k}' is empty: [{lo}, {hi})")
        out[str(k)] = (lo, hi)
    return out


def var_width(lo: int, hi: int) -> int:
    """Bits of a bit-vector holding [lo, hi) (two's complement if lo < 0)."""
    top = hi - 1
    if lo >= 0:
        return max(1, top.bit_length())
    return max(lo.bit_length() if lo >= 0 else (-lo - 1).bit_length(), top.bit_length()) + 1


@dataclass(frozen=True)
class Claim:
    """A universally quantified claim over a box domain, negated as ``bad``."""

    names: tuple[str, ...]                      # minimisation order
    ranges: tuple[tuple[int, int], ...]         # half-open
    z3_bad: Callable[[dict[str, tuple[Any, bool]]], Any]
    np_bad: Callable[[dict[str, np.ndarray]], np.ndarray] | None
    replay: Callable[[dict[str, int]], tuple[bool, dict[str, Any], str, str]]


def verdict(status: str, prop: str, subject: str, method: str | None, t0: float, message: str = "",
             cex: Counterexample | None = None, certificate: Any = None, details: dict | None = None) -> Verdict:
    return Verdict(status, prop, subject, method, time.perf_counter() - t0, message, cex,  # type: ignore[arg-type]
                   certificate, details or {})


def refute(claim: Claim, point: dict[str, int], prop: str, subject: str, method: str, t0: float,
            details: dict) -> Verdict:
    bad, sides, kind, note = claim.replay(point)
    if not bad:
        return verdict("unknown", prop, subject, method, t0,
                        f"the {method} method reported a counterexample at {point} that did not replay "
                        "(encoder and evaluator disagree: please report this)", details={**details, "point": point})
    return verdict("refuted", prop, subject, method, t0, note, Counterexample(point, sides, note),
                    details={**details, "kind": kind})


def decide(claim: Claim, prop: str, subject: str, method: str, rlimit: int | None,
            timeout: float | None, details: dict) -> Verdict:
    """Decide ``claim`` (named ``prop`` about ``subject``) by ``method`` (auto, exhaustive or smt; see the module
    docstring), with Z3's ``rlimit`` / ``timeout`` for smt; ``details`` go into the verdict with the domain size.

    Requires: ``method`` exhaustive only for a claim with ``np_bad`` and a box of at most
    :data:`MAX_EXHAUSTIVE_POINTS` points (else :class:`IndexCodeError`).
    """
    t0 = time.perf_counter()
    size = prod(hi - lo for lo, hi in claim.ranges)
    details = {**details, "domain_points": size}
    if method not in ("auto", "exhaustive", "smt"):
        raise IndexCodeError(f"unknown method {method!r}; use auto, exhaustive or smt")
    if method == "exhaustive" and claim.np_bad is None:
        raise IndexCodeError(f"{prop}: no exhaustive method for this claim")
    use_ex = claim.np_bad is not None and (method == "exhaustive" or (method == "auto" and size <= AUTO_EXHAUSTIVE_POINTS))
    if use_ex:
        if size > MAX_EXHAUSTIVE_POINTS:
            raise IndexCodeError(f"{prop}: {size} points is above the exhaustive limit {MAX_EXHAUSTIVE_POINTS}")
        grids = np.indices(tuple(hi - lo for lo, hi in claim.ranges), dtype=np.int64).reshape(len(claim.ranges), -1) \
            if claim.ranges else np.zeros((0, 1), dtype=np.int64)
        env = {n: grids[i] + lo for i, (n, (lo, _)) in enumerate(zip(claim.names, claim.ranges))}
        assert claim.np_bad is not None
        bad = claim.np_bad(env)
        if bad.any():
            i = int(np.argmax(bad))
            point = {n: int(env[n][i]) for n in claim.names}
            return refute(claim, point, prop, subject, "exhaustive", t0, details)
        return verdict("proved", prop, subject, "exhaustive", t0, f"all {size} points checked",
                        certificate={"points": size}, details=details)
    # SMT
    solver, rlimit = z3_solver(rlimit, timeout, logic="QF_BV")
    terms: dict[str, tuple[Any, bool]] = {}
    for n, (lo, hi) in zip(claim.names, claim.ranges):
        w = var_width(lo, hi)
        v = z3.BitVec(n, w)
        signed = lo < 0
        terms[n] = (v, signed)
        if lo != 0 and (signed or lo > 0):
            solver.add(v >= lo if signed else z3.UGE(v, lo))
        if hi != (1 << w) and not (signed and hi == 1 << (w - 1)):
            solver.add(v < hi if signed else z3.ULT(v, hi))
    solver.add(claim.z3_bad(terms))
    details = {**details, "z3_version": z3_version(), "rlimit": rlimit}
    res = solver.check()
    if res == z3.unsat:
        return verdict("proved", prop, subject, "smt", t0, "Z3: the negated claim is unsat",
                        certificate={"smtlib": canonical_smt2(solver.to_smt2())}, details=details)
    if res == z3.unknown:
        return verdict("unknown", prop, subject, "smt", t0, f"Z3 returned unknown ({solver.reason_unknown()})",
                        details=details)
    model = solver.model()

    def value(n: str, m: Any) -> int:
        v, signed = terms[n]
        mv = m.eval(v, model_completion=True)
        return mv.as_signed_long() if signed else mv.as_long()

    point = {n: value(n, model) for n in claim.names}
    # lexicographic minimisation: binary search per variable, fix it, go on
    solver.push()
    for n, (lo, _) in zip(claim.names, claim.ranges):
        v, signed = terms[n]
        best = point[n]
        low = lo
        while low < best:
            mid = (low + best) // 2
            solver.push()
            solver.add(v <= mid if signed else z3.ULE(v, mid))
            r = solver.check()
            if r == z3.sat:
                m = solver.model()
                point = {k: value(k, m) for k in claim.names}
                best = point[n]
            solver.pop()
            if r == z3.unsat:
                low = mid + 1
            elif r == z3.unknown:
                break
        solver.add(v == best)
    solver.pop()
    return refute(claim, point, prop, subject, "smt", t0, details)
