"""The `Verdict`: what every check in llverify returns.

A verdict is an immutable record of one decided (or undecided) claim:

* ``status``: ``proved`` (a complete method established the claim: a checked
  F2 certificate, an exhaustive enumeration of the whole domain, or an SMT
  ``unsat`` of the negated claim), ``refuted`` (a concrete counterexample was
  found *and replayed*), ``unknown`` (timeout, resource limit, an operation the
  encoder cannot model) or ``error`` (the claim itself is ill-formed, e.g. the
  two layouts of ``equal`` have different domains).
* ``property`` and ``subject``: what was claimed of what (``"surjective"``,
  ``"blocked[64x64]"``).
* ``method``: ``f2``, ``exhaustive`` or ``smt`` (``None`` for ``error``).
* ``counterexample``: for ``refuted`` only, concrete named inputs and the
  values each side takes there.
* ``certificate``: for ``proved``, the evidence (an F2 certificate in words or
  data, the number of points enumerated, or the SMT-LIB query).
* ``details``: whatever the check computed (wavefronts, vector width, a plan).

Everything is JSON-serialisable with :meth:`Verdict.to_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

Status = Literal["proved", "refuted", "unknown", "error"]
Method = Literal["f2", "exhaustive", "smt"]

STATUSES: tuple[str, ...] = ("proved", "refuted", "unknown", "error")
METHODS: tuple[str, ...] = ("f2", "exhaustive", "smt")


class FrozenDict(dict):  # type: ignore[type-arg]
    """A read-only dict: hashable-free but immutable and picklable.

    (``types.MappingProxyType`` cannot be pickled, and verdicts travel
    between processes when ``llverify check -j N`` runs.)
    """

    def _readonly(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("verdict data is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> "FrozenDict":
        return self

    def __deepcopy__(self, memo: Any) -> "FrozenDict":
        return self


def _freeze(value: Any) -> Any:
    """Deep-freeze dicts into read-only mappings and lists into tuples.

    A :class:`FrozenDict` is returned as it is: only :func:`_freeze` builds one, so its values are frozen.
    """
    cls = type(value)
    if cls is FrozenDict or cls in _ATOMS:
        return value
    atoms = _ATOMS  # an atom is its own frozen form: tested inline, no call
    if cls is dict or isinstance(value, Mapping):
        return FrozenDict({k: v if type(v) in atoms else _freeze(v) for k, v in value.items()})
    if cls is list or cls is tuple or isinstance(value, (list, tuple)):
        return tuple([v if type(v) in atoms else _freeze(v) for v in value])
    return value


def _refreeze(details: Mapping[str, Any], frozen: Mapping[str, Any]) -> "FrozenDict":
    """``_freeze(dict(details))`` where the values taken unchanged from ``frozen`` (a verdict's frozen details,
    whose values :func:`_freeze` already returned) are kept, not frozen again: ``{**v.details, "shape": [...]}``
    re-freezes only ``shape``.

    Postcondition: equal to ``_freeze(dict(details))`` (a frozen value is a fixed point of :func:`_freeze` up to
    equality; the identity test admits only values that came out of ``frozen``)."""
    get = frozen.get
    return FrozenDict({k: v if get(k, _MISSING) is v else _freeze(v) for k, v in details.items()})


_MISSING = object()

#: the details :meth:`Verdict.with_` assumes when its changes give none (a frozen value: the current ones are kept)
_FROZEN = FrozenDict()


def to_jsonable(value: Any) -> Any:
    """Convert frozen mappings/tuples (and numpy ints) back to plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return value.item()
    if hasattr(value, "to_json") and callable(value.to_json):
        return value.to_json()
    return value


#: the default of :class:`Verdict`'s ``details`` (a fresh empty dict, as ``field(default_factory=dict)`` gives)
_NO_DETAILS: Any = object()

#: immutable leaf types that :func:`_freeze` returns unchanged without further checks
_ATOMS = frozenset({str, int, float, bool, type(None)})


@dataclass(frozen=True)
class Counterexample:
    """A concrete witness that a claim fails.

    ``inputs`` names the point (``{"register": 3, "lane": 17, "warp": 1}``);
    ``sides`` gives, in order, each side's value there (``{"A(x)": {"dim0": 5,
    "dim1": 2}, "B(C(x))": {"dim0": 5, "dim1": 3}}``).  A counterexample is
    only ever built after replaying it: evaluating both sides concretely at
    ``inputs`` showed the difference recorded in ``sides``.
    """

    inputs: Mapping[str, int]
    sides: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "inputs", _freeze(dict(self.inputs)))
        object.__setattr__(self, "sides", _freeze(dict(self.sides)))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"inputs": to_jsonable(self.inputs), "sides": to_jsonable(self.sides)}
        if self.note:
            out["note"] = self.note
        return out


def _validate(status: Any, method: Any, counterexample: Any) -> None:
    """The rules every verdict obeys (``ValueError`` naming the broken one)."""
    if status not in STATUSES:
        raise ValueError(f"unknown verdict status {status!r}")
    if method is not None and method not in METHODS:
        raise ValueError(f"unknown proof method {method!r}")
    if status == "refuted" and counterexample is None:
        raise ValueError("a refuted verdict needs a (replayed) counterexample")
    if status != "refuted" and counterexample is not None:
        raise ValueError("only refuted verdicts carry a counterexample")


@dataclass(frozen=True, init=False)
class Verdict:
    """The outcome of checking one claim (see the module docstring)."""

    status: Status
    property: str
    subject: str
    method: Method | None
    seconds: float = 0.0
    message: str = ""
    counterexample: Counterexample | None = None
    certificate: Any = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, status: Status, property: str, subject: str, method: Method | None, seconds: float = 0.0,
                 message: str = "", counterexample: Counterexample | None = None, certificate: Any = None,
                 details: Mapping[str, Any] = _NO_DETAILS) -> None:  # type: ignore[assignment]
        # the generated __init__ of a frozen dataclass, in one step (the fields written into the instance's dict;
        # every later assignment is refused), then the same validation
        _validate(status, method, counterexample)
        if details is _NO_DETAILS:
            details = FrozenDict()
        elif type(details) is not FrozenDict:
            details = _freeze(dict(details))
        object.__setattr__(self, "__dict__", {"status": status, "property": property, "subject": subject,
                                              "method": method, "seconds": seconds, "message": message,
                                              "counterexample": counterexample, "certificate": certificate,
                                              "details": details})

    def __post_init__(self) -> None:
        """Validate the fields and freeze ``details`` (what :meth:`__init__` does; :meth:`with_` calls it)."""
        _validate(self.status, self.method, self.counterexample)
        details = self.details
        object.__setattr__(self, "details", details if type(details) is FrozenDict else _freeze(dict(details)))

    @property
    def proved(self) -> bool:
        return self.status == "proved"

    @property
    def refuted(self) -> bool:
        return self.status == "refuted"

    def with_(self, **changes: Any) -> "Verdict":
        """A copy with some fields replaced (verdicts are immutable); validated as a new verdict is."""
        keys = changes.keys()
        if keys <= _UNCHECKED and type(changes.get("details", _FROZEN)) is FrozenDict:
            # no validated field changed and the details (if given) already frozen: the fields, copied then
            # replaced, in one step (a verdict's __dict__ holds exactly its fields)
            new = object.__new__(Verdict)
            object.__setattr__(new, "__dict__", {**self.__dict__, **changes})
            return new
        if not keys <= _VERDICT_FIELDS:
            return replace(self, **changes)  # raises the usual TypeError naming the field
        new = object.__new__(Verdict)
        current = self.__dict__
        details = changes.get("details")
        if details is not None and type(details) is not FrozenDict and isinstance(details, Mapping):
            changes["details"] = _refreeze(details, current["details"])
        # the fields, copied then replaced (a verdict's __dict__ holds exactly its fields)
        fresh = new.__dict__
        fresh.update(current)
        fresh.update(changes)
        if not keys <= _UNCHECKED or type(fresh["details"]) is not FrozenDict:
            new.__post_init__()  # a changed status, method or counterexample is validated as a new verdict is
        return new

    def to_json(self) -> dict[str, Any]:
        return {
            "property": self.property,
            "subject": self.subject,
            "status": self.status,
            "method": self.method,
            "seconds": round(float(self.seconds), 6),
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "message": self.message,
            "certificate": to_jsonable(self.certificate),
            "details": to_jsonable(self.details),
        }


_VERDICT_FIELDS = frozenset(f.name for f in fields(Verdict))
#: the fields :meth:`Verdict.__post_init__` does not validate: changing only these keeps a valid verdict valid
_UNCHECKED = frozenset({"property", "subject", "seconds", "message", "certificate", "details"})
