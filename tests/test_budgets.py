"""Every check kind whose claim Z3 decides honours the budget: with rlimit 1 it ends `unknown`, never proved
(issue 13: `rlimit`/`timeout` were ignored by some kinds, `bank_conflicts` with rlimit 1 still proved)."""

from __future__ import annotations

from pathlib import Path

from llverify.spec.parse import load_spec
from llverify.spec.runner import Budget, Task, run_check

SPECS = Path(__file__).resolve().parents[1] / "specs"
#: kinds decided by Z3 (the linear properties when asked for method smt; index code; bank counts)
SMT_KINDS = {"surjective", "injective", "bijective", "distributed", "memory", "equal", "conversion", "in_bounds",
             "duplicates", "index_code", "bank_conflicts"}


def test_rlimit_one_makes_every_smt_decided_kind_unknown() -> None:
    seen = set()
    for path in sorted(SPECS.glob("*.yaml")):
        spec = load_spec(str(path))
        for check in spec.checks:
            if check.property not in SMT_KINDS or check.expect != "proved" or check.property in seen:
                continue
            layouts = {n: spec.layouts[n] for n in check.layout_names()}
            res = run_check(Task(check, layouts, Budget(rlimit=1, method="smt")))
            if res.verdict.status == "error":
                continue  # a kind that refuses method smt for this claim says so; not a proof
            assert res.verdict.status == "unknown", (path.name, check.name, res.verdict.status, res.verdict.method)
            seen.add(check.property)
    assert {"bank_conflicts", "index_code", "equal", "surjective"} <= seen, seen
