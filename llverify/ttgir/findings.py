"""A finding: one obligation's verdict, located in the TTGIR module and in the Python source.

It converts to the spec front end's :class:`~llverify.spec.model.CheckResult`
(the ``.ttgir`` file as the "spec", the op's line and column as the check's
position), so the text, JUnit and Markdown formats of ``llverify check`` print
gate results unchanged; the JSON record adds ``op``, ``location``,
``source``, ``kernel``, ``target`` and ``stage`` to ``llverify check``'s keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from llverify.prove.verdict import Verdict
from llverify.ttgir.model import Location, SourceLocation

if TYPE_CHECKING:  # pragma: no cover
    from llverify.spec.model import CheckResult

# the spec front end (and YAML with it) loads only when a finding is rendered as a check result: a gate
# worker that sends back text lines never needs it

__all__ = ["Finding", "finding_from_json"]

_set = object.__setattr__  # the frozen dataclass's own assignment is refused; its constructor writes the dict once


@dataclass(frozen=True, init=False)
class Finding:
    """``verdict`` of obligation ``rule`` for op ``op`` at ``location`` (kernel ``kernel`` of a module)."""

    verdict: Verdict
    rule: str
    op: str
    location: Location
    source: SourceLocation | None
    kernel: str
    target: str
    stage: str = ""
    index: int = 0
    expect: str = "proved"

    def __init__(self, verdict: Verdict, rule: str, op: str, location: Location, source: SourceLocation | None,
                 kernel: str, target: str, stage: str = "", index: int = 0, expect: str = "proved") -> None:
        # the generated __init__ of a frozen dataclass, in one step: the fields written into the instance's
        # dict (one per obligation, so the gate makes many; the class stays frozen to every later assignment)
        _set(self, "__dict__", {"verdict": verdict, "rule": rule, "op": op, "location": location, "source": source,
                                "kernel": kernel, "target": target, "stage": stage, "index": index,
                                "expect": expect})

    @property
    def ok(self) -> bool:
        return self.verdict.status == self.expect

    def to_check_result(self) -> CheckResult:
        from llverify.spec.model import CheckDecl, CheckResult
        from llverify.spec.source import Pos

        name = f"{self.rule}: {self.op} ({self.kernel}" + (f", {self.stage}" if self.stage else "") + ")"
        check = CheckDecl(spec=self.location.file, index=self.index, name=name, property=self.verdict.property,
                          args={}, expect=self.expect, pos=Pos(self.location.line, self.location.col),
                          end_line=self.location.line, subject=self.verdict.subject)
        return CheckResult(check, self.verdict)

    def to_json(self) -> dict[str, Any]:
        from llverify.spec.summary import result_json

        out = result_json(self.to_check_result())
        out["rule"] = self.rule
        out["op"] = self.op
        out["location"] = {"file": self.location.file, "line": self.location.line, "col": self.location.col}
        out["source"] = None if self.source is None else {"file": self.source.file, "line": self.source.line,
                                                           "col": self.source.col}
        if isinstance(self.verdict.details.get("lowered"), Mapping):
            out["lowered"] = dict(self.verdict.details["lowered"])
        out["kernel"] = self.kernel
        out["target"] = self.target
        if self.stage:
            out["stage"] = self.stage
        return out


def finding_from_json(doc: dict[str, Any]) -> Finding:
    """Inverse of :meth:`Finding.to_json` (for the verdict cache)."""
    from llverify.executor.cache import verdict_from_json

    loc = doc["location"]
    src = doc.get("source")
    verdict = verdict_from_json({**doc, "property": doc["property"], "subject": doc["subject"],
                                 "certificate": doc.get("certificate")})
    return Finding(verdict, doc["rule"], doc["op"], Location(loc["file"], loc["line"], loc["col"]),
                   None if src is None else SourceLocation(src["file"], src["line"], src["col"]),
                   doc["kernel"], doc["target"], doc.get("stage", ""), doc.get("index", 0), doc.get("expected", "proved"))
