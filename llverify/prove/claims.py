"""Claims as values, and :func:`prove` over them.

A claim is a frozen dataclass naming a property and its arguments
(``Surjective(L)``, ``Conversion(A, B)``, ``InBounds(L, 4096)``, ...).
``prove(claim, method="auto")`` decides it with
:mod:`~llverify.prove.properties` and returns the
:class:`~llverify.prove.verdict.Verdict`; ``"auto"`` picks the cheapest
complete method (F2 with a checked certificate for every claim here) and the
verdict records it.  :data:`CLAIMS` maps property names (as used in spec
files) to claim classes.

Example::

    prove(Equal(A, B), method="smt").status   # "proved" | "refuted" | ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Sequence

from llverify.layout import LinearLayout
from llverify.prove import properties as P
from llverify.prove.verdict import Verdict

__all__ = ["CLAIMS", "Bijective", "Claim", "Conversion", "Distributed", "Duplicates", "Equal", "InBounds",
           "Injective", "LayoutClaim", "Memory", "Surjective", "prove"]


@dataclass(frozen=True)
class Claim:
    """Base class: ``property`` names the claim; ``run`` decides it."""

    property = "claim"

    def run(self, **kw: Any) -> Verdict:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class LayoutClaim(Claim):
    """A property of one layout, decided by the class's ``decide`` (a function of :mod:`~llverify.prove.properties`)."""

    layout: LinearLayout
    decide: ClassVar[Callable[..., Verdict]]

    def run(self, **kw: Any) -> Verdict:
        return type(self).decide(self.layout, **kw)


@dataclass(frozen=True)
class Surjective(LayoutClaim):
    property = "surjective"
    decide = staticmethod(P.surjective)


@dataclass(frozen=True)
class Injective(LayoutClaim):
    property = "injective"
    decide = staticmethod(P.injective)


@dataclass(frozen=True)
class Bijective(LayoutClaim):
    property = "bijective"
    decide = staticmethod(P.bijective)


@dataclass(frozen=True)
class Distributed(LayoutClaim):
    property = "distributed"
    decide = staticmethod(P.distributed)


@dataclass(frozen=True)
class Memory(LayoutClaim):
    property = "memory"
    decide = staticmethod(P.memory)


@dataclass(frozen=True)
class Equal(Claim):
    a: LinearLayout
    b: LinearLayout
    property = "equal"

    def run(self, **kw: Any) -> Verdict:
        return P.equal(self.a, self.b, **kw)


@dataclass(frozen=True)
class Conversion(Claim):
    src: LinearLayout
    dst: LinearLayout
    cvt: LinearLayout | None = None
    property = "conversion"

    def run(self, **kw: Any) -> Verdict:
        return P.conversion(self.src, self.dst, self.cvt, **kw)


@dataclass(frozen=True)
class InBounds(Claim):
    layout: LinearLayout
    bounds: Any  # int | Sequence[int] | Mapping[str, int]
    property = "in_bounds"

    def run(self, **kw: Any) -> Verdict:
        return P.in_bounds(self.layout, self.bounds, **kw)


@dataclass(frozen=True)
class Duplicates(Claim):
    layout: LinearLayout
    dims: Sequence[str] | str | None = None
    expected: Mapping[str, int] | None = None
    max: int | None = None
    property = "duplicates"

    def run(self, **kw: Any) -> Verdict:
        return P.duplicates(self.layout, self.dims, expected=self.expected, max=self.max, **kw)


CLAIMS: dict[str, type[Claim]] = {c.property: c for c in (
    Surjective, Injective, Bijective, Distributed, Memory, Equal, Conversion, InBounds, Duplicates)}


def prove(claim: Claim, method: str = "auto", *, rlimit: int | None = None, timeout: float | None = None,
          subject: str | None = None) -> Verdict:
    """Decide ``claim`` with ``method`` (``auto``: the cheapest complete one)."""
    if not isinstance(claim, Claim):
        raise P.ClaimError(f"prove() takes a claim object (e.g. Surjective(L)), got {type(claim).__name__}")
    return claim.run(method=method, rlimit=rlimit, timeout=timeout, subject=subject)
