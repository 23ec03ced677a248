"""``--format json``: the machine-readable record of a run (schema in DESIGN.md).

``{"llverify": "0.1.0", "results": [{"spec", "check", "property", "subject",
"expected", "status", "ok", "method", "seconds", "counterexample", "message",
"details"}], "summary": {"proved", "refuted", "unknown", "error"}}``; keys in
that order, two-space indentation, so two runs differ only in ``seconds``.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from llverify.spec.model import CheckResult
from llverify.spec.summary import results_json

__all__ = ["render"]


def render(results: Sequence[CheckResult], **_: Any) -> str:
    return json.dumps(results_json(results), indent=2, sort_keys=False) + "\n"
