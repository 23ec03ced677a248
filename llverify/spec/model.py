"""The values a loaded spec is made of (immutable).

A :class:`Spec` is one file: its named layouts (declarations and the built
:class:`~llverify.layout.LinearLayout` objects) and its checks.  A
:class:`CheckDecl` is one entry of ``checks:`` after validation: the property,
its arguments with layout references resolved to names that exist (and,
in ``layouts``, those names in argument order), the expected verdict and the
solver budget.  :class:`CheckResult` pairs a check
with the :class:`~llverify.prove.verdict.Verdict` it produced and says whether
that is what the spec expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Verdict
from llverify.spec.source import Pos

__all__ = ["LayoutDecl", "CheckDecl", "Spec", "CheckResult", "EXPECTS", "METHODS"]

EXPECTS: tuple[str, ...] = ("proved", "refuted", "unknown")
METHODS: tuple[str, ...] = ("auto", "f2", "exhaustive", "smt")


def _plain(value: Any) -> Any:
    """Located containers -> plain dicts/lists (for pickling and JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True)
class LayoutDecl:
    """A named layout as written: how it is given (``source``) and its parameters."""

    name: str
    source: str  # kind | triton | bases | lego | cute
    params: Mapping[str, Any]
    pos: Pos
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(_plain(self.params)))

    def summary(self) -> str:
        """One line saying what the layout is (for reports)."""
        p = self.params
        if self.source == "kind":
            shape = "x".join(str(s) for s in p.get("shape", []))
            return f"{p.get('kind')}[{shape}]"
        if self.source in ("triton", "lego", "cute"):
            return str(p.get(self.source))
        return "explicit bases"


@dataclass(frozen=True)
class CheckDecl:
    """One validated check of a spec."""

    spec: str
    index: int
    name: str
    property: str
    args: Mapping[str, Any]
    expect: str = "proved"
    timeout: float | None = None
    method: str | None = None
    rlimit: int | None = None
    pos: Pos = Pos()
    end_line: int = 0
    description: str = ""
    subject: str = ""
    layouts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", MappingProxyType(_plain(self.args)))
        object.__setattr__(self, "layouts", tuple(self.layouts))

    def __reduce__(self) -> tuple:
        """Pickle through plain data (read-only mappings do not pickle): checks go to worker processes."""
        state = {k: getattr(self, k) for k in self.__dataclass_fields__}
        state["args"] = _plain(self.args)
        return (_rebuild_check, (state,))

    def layout_names(self) -> list[str]:
        """Names of the layouts this check refers to (in argument order; its kind's layout arguments)."""
        return list(self.layouts)


def _rebuild_check(state: dict) -> "CheckDecl":
    return CheckDecl(**state)


@dataclass(frozen=True)
class Spec:
    """A loaded, validated spec file."""

    path: str
    layouts: Mapping[str, LinearLayout]
    decls: Mapping[str, LayoutDecl]
    checks: tuple[CheckDecl, ...]
    title: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "layouts", MappingProxyType(dict(self.layouts)))
        object.__setattr__(self, "decls", MappingProxyType(dict(self.decls)))


@dataclass(frozen=True)
class CheckResult:
    """A check and its verdict; ``ok`` iff the verdict's status is the expected one."""

    check: CheckDecl
    verdict: Verdict
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.verdict.status == self.check.expect

    @property
    def status(self) -> str:
        return self.verdict.status

    def outcome(self) -> str:
        """``pass``, ``fail`` (decided the wrong way), ``error`` or ``unknown``."""
        if self.ok:
            return "pass"
        if self.verdict.status == "error":
            return "error"
        if self.verdict.status == "unknown":
            return "unknown"
        return "fail"
