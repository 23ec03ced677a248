"""`Finding`: what one proof method concluded, before timing and naming.

Each method module (:mod:`~llverify.prove.certificates` for F2,
:mod:`~llverify.prove.exhaustive`, :mod:`~llverify.prove.smt`) returns a
``Finding``; :mod:`~llverify.prove.properties` adds the property, subject,
method and time and turns it into a :class:`~llverify.prove.verdict.Verdict`.
A ``refuted`` finding always carries a counterexample that was already
replayed (it is built by :mod:`~llverify.prove.witness`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llverify.prove.verdict import Counterexample

__all__ = ["Finding", "proved", "refuted", "unknown"]


@dataclass(frozen=True)
class Finding:
    status: str
    counterexample: Counterexample | None = None
    certificate: Any = None
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)


def proved(certificate: Any, message: str = "", **details: Any) -> Finding:
    return Finding("proved", certificate=certificate, message=message, details=details)


def refuted(cx: Counterexample, message: str, **details: Any) -> Finding:
    return Finding("refuted", counterexample=cx, message=message, details=details)


def unknown(message: str, **details: Any) -> Finding:
    return Finding("unknown", message=message, details=details)
