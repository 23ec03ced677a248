"""Every check kind honours the spec's budget (issue 14 item 1).

Parametrised over the check-kind registry, so a new kind is covered
automatically: an example check of that kind from the bundled specs that
ends ``proved`` is rerun with ``method: smt`` and ``rlimit: 1``; Z3 cannot
decide a non-trivial query in one resource unit, so the verdict must be
``unknown`` (never ``proved``), and the budget must be in the report.
Kinds that have no SMT method yet are expected to fail this (strict xfail),
so whoever adds one sees the test flip.
"""
from __future__ import annotations

import dataclasses
import glob
import os

import pytest
import z3

from llverify.spec.kinds import KINDS
from llverify.spec.parse import load_spec
from llverify.spec.runner import Budget, Task, run_check

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _examples() -> dict:
    found: dict = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "specs", "*.yaml"))):
        spec = load_spec(path)
        for check in spec.checks:
            if check.expect == "proved" and check.property not in found:
                found[check.property] = (check, spec.layouts)
    return found


EXAMPLES = _examples()


def _params():
    for name, kind in KINDS.items():
        marks = []
        if "smt" not in kind.methods:
            marks.append(pytest.mark.xfail(strict=True, reason=f"'{name}' has no SMT method yet"))
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("kind", list(_params()))
def test_rlimit_one_gives_unknown(kind):
    assert kind in EXAMPLES, f"no proved example of '{kind}' in specs/: add one"
    check, layouts = EXAMPLES[kind]
    plain = run_check(Task(check, layouts, Budget())).verdict
    assert plain.status == "proved", plain.message
    assert plain.details["budget"]["solver_version"] == z3.get_version_string()
    starved = dataclasses.replace(check, method="smt", rlimit=1)
    v = run_check(Task(starved, layouts, Budget())).verdict
    assert v.details["budget"]["rlimit"] == 1
    assert v.status == "unknown", (v.status, v.message)
