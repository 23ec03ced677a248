"""The soundness kernel: one budget type and one function that turns a run into a verdict.

``Budget(method, rlimit, timeout)`` is what a check may spend. ``rlimit`` is
Z3's deterministic resource limit (``None`` means :data:`bv.DEFAULT_RLIMIT`,
the same on every machine); ``timeout`` is an optional wall clock (not
deterministic, so never a default); ``method`` picks f2 / exhaustive / smt
(``None``: the cheapest complete one).

``decide(property, subject, run, budget)`` calls ``run(budget)`` and enforces
the verdict rules of DESIGN.md (sec. "Verdicts and soundness"):

* the run is timed (``seconds``);
* ``details["budget"]`` records method, solver, solver version and the
  budget actually in force, on every verdict;
* a counterexample that does not replay (:class:`ReplayFailure`) or a
  certificate that fails its own check (:class:`CertificateError`) gives
  ``error``, never ``proved`` or ``refuted``;
* ``unknown`` (resource limits) is kept as it is.

Example::

    >>> from llverify.prove.verdict import Verdict
    >>> v = decide("toy", "x", lambda b: Verdict(status="proved", property="toy", subject="x", method="f2"))
    >>> v.status, v.details["budget"]["rlimit"] == DEFAULT_RLIMIT
    ('proved', True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from llverify.prove.solver_budget import DEFAULT_RLIMIT, default_rlimit, z3_version
from llverify.prove.certificates import CertificateError
from llverify.prove.replay import ReplayFailure
from llverify.prove.verdict import Verdict

__all__ = ["Budget", "DEFAULT_RLIMIT", "budget_record", "decide"]

METHODS = (None, "auto", "f2", "exhaustive", "smt")


@dataclass(frozen=True)
class Budget:
    """What one check may spend. Requires: rlimit > 0 and timeout > 0 when given."""

    method: str | None = None
    rlimit: int | None = None
    timeout: float | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; use auto, f2, exhaustive or smt")
        if self.rlimit is not None and (isinstance(self.rlimit, bool) or int(self.rlimit) <= 0):
            raise ValueError(f"rlimit must be a positive integer, not {self.rlimit!r}")
        if self.timeout is not None and float(self.timeout) <= 0:
            raise ValueError(f"timeout must be positive, not {self.timeout!r}")

    @property
    def effective_rlimit(self) -> int | None:
        """The rlimit Z3 will run under: the given one, else the process default."""
        return default_rlimit() if self.rlimit is None else int(self.rlimit)

    def options(self) -> dict[str, Any]:
        """Keyword arguments for the provers (``method``, ``rlimit``, ``timeout``), unset ones left out."""
        out: dict[str, Any] = {}
        if self.method not in (None, "auto"):
            out["method"] = self.method
        if self.rlimit is not None:
            out["rlimit"] = int(self.rlimit)
        if self.timeout is not None:
            out["timeout"] = float(self.timeout)
        return out


def budget_record(budget: Budget) -> dict[str, Any]:
    """What a report shows about the budget: method asked, solver, solver version, rlimit, timeout."""
    return {"method": budget.method or "auto", "solver": "z3", "solver_version": z3_version(),
            "rlimit": budget.effective_rlimit, "timeout": budget.timeout}


def decide(property: str, subject: str, run: Callable[[Budget], Verdict], budget: Budget = Budget()) -> Verdict:
    """Run one proof under ``budget`` and return its verdict with the budget recorded.

    Postcondition: the result is a :class:`Verdict` whose ``details["budget"]``
    is :func:`budget_record`; a failed replay or certificate becomes ``error``.
    """
    start = time.perf_counter()
    record = budget_record(budget)
    try:
        verdict = run(budget)
    except (ReplayFailure, CertificateError) as exc:
        kind = "replay" if isinstance(exc, ReplayFailure) else "certificate"
        return Verdict(status="error", property=property, subject=subject, method=None,
                       seconds=time.perf_counter() - start,
                       message=f"{kind} check failed, no verdict: {exc}", details={"budget": record})
    elapsed = time.perf_counter() - start
    details = {**dict(verdict.details), "budget": record}
    return verdict.with_(details=details, seconds=verdict.seconds or elapsed)
