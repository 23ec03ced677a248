"""The check-kind declaration and its table: one :class:`CheckKind` per property a spec may check.

A check kind is declared once, next to the function that decides it
(:mod:`llverify.spec.check_properties`, :mod:`llverify.spec.check_plans`,
:mod:`llverify.spec.check_code`), with :func:`declare_check_kind`; the spec
validator, the JSON Schema, the command line's help, the runner, the reports
and SARIF's rule table all read :data:`KINDS` (collected by
:mod:`llverify.spec.kinds`).

``args`` declares the argument mapping (see :mod:`llverify.spec.argtypes`);
``positional`` says how the short forms map onto it: ``surjective: src`` is
``{layout: src}``, ``equal: [a, b]`` is ``{a: a, b: b}``.  ``impl`` is the
adapter: ``impl(check, layouts, *, method, timeout, rlimit)`` turns the
validated arguments into a call of the prover / code-generation / index layer
and returns a :class:`~llverify.prove.verdict.Verdict`.  :meth:`CheckKind.run`
routes every call through :func:`llverify.prove.kernel.decide` (timing, the
budget record, replay errors), so a kind's adapter decides nothing itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

from llverify.layout import LinearLayout
from llverify.prove.kernel import Budget as KernelBudget
from llverify.prove.kernel import decide
from llverify.prove.verdict import Verdict
from llverify.spec.argtypes import Arg
from llverify.spec.model import CheckDecl

__all__ = ["ALL_METHODS", "CheckKind", "COMMON_KEYS", "KINDS", "LAYOUT", "declare_check_kind", "options"]

#: keys every check may carry next to its property
COMMON_KEYS: tuple[str, ...] = ("name", "expect", "timeout", "method", "rlimit", "description")

#: the proof methods a command-line default may ask for, when a kind accepts all of them
ALL_METHODS: tuple[str, ...] = ("f2", "exhaustive", "smt")

#: a required layout argument (the common case)
LAYOUT = Arg("layout", required=True)


@dataclass(frozen=True)
class CheckKind:
    """A check kind: its argument schema, what it claims, and its adapter (see the module docstring).

    ``doc`` is the method in words (the schema's and the help's description), ``needs`` the layers the
    adapter calls, ``methods`` the proof methods a command-line default (``--method``) may ask of it
    (empty: its proof chooses its own complete methods).

    A kind's example specs (``specs/``, ``proofs/``) are its tests (``tests/test_declared_kinds.py``): they
    must hold a check of it expected ``proved`` and one expected ``refuted`` (the must-fail case), all
    ending as expected.  ``must_fail`` is only for a kind that checks llverify's own construction, so that no
    spec can state a false claim of it: the test (``tests/<file>.py::<function>``) in which mutants of that
    construction are refuted.
    """

    name: str
    args: Mapping[str, Arg]
    positional: tuple[str, ...]
    claim: str
    impl: Callable[..., Verdict]
    doc: str = ""
    needs: tuple[str, ...] = field(default=())
    methods: tuple[str, ...] = ALL_METHODS
    must_fail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))

    def layout_names(self, args: Mapping[str, Any]) -> tuple[str, ...]:
        """The layout names ``args`` (a check's validated arguments) refers to, in argument order."""
        names: list[str] = []
        for key, arg in self.args.items():
            if key in args and arg.type == "layout":
                names.append(args[key])
            elif key in args and arg.type == "layouts":
                names.extend(args[key])
        return tuple(names)

    def run(self, check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
            timeout: float | None = None, rlimit: int | None = None) -> Verdict:
        """Decide ``check`` through the soundness kernel with the given budget."""
        budget = KernelBudget(method=method, rlimit=rlimit, timeout=timeout)
        return decide(check.property, check.subject,
                      lambda b: self.impl(check, layouts, method=method, timeout=timeout, rlimit=rlimit), budget)


_TABLE: dict[str, CheckKind] = {}

#: Every check kind by property name: a read-only view of the table, so kinds declared later appear too.
KINDS: Mapping[str, CheckKind] = MappingProxyType(_TABLE)


def declare_check_kind(*kinds: CheckKind) -> None:
    """Add check kinds: the one declaration from which the spec validator, the JSON Schema
    (``llverify schema``), the runner, the reports and SARIF's rule table all read each.

    Requires: no ``kind.name`` declared already (the same declaration again is a no-op).
    """
    for kind in kinds:
        if _TABLE.get(kind.name) == kind:
            continue
        if kind.name in _TABLE or kind.name in COMMON_KEYS:
            raise ValueError(f"check kind {kind.name!r} is declared twice")
        _TABLE[kind.name] = kind


def options(method: str | None, timeout: float | None, rlimit: int | None,
            subject: str | None = None) -> dict[str, Any]:
    """The prover keyword arguments that were given (``subject``, ``method``, ``timeout``, ``rlimit``)."""
    out: dict[str, Any] = {}
    if subject is not None:
        out["subject"] = subject
    if method is not None:
        out["method"] = method
    if timeout is not None:
        out["timeout"] = timeout
    if rlimit is not None:
        out["rlimit"] = rlimit
    return out
