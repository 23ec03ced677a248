"""What a run amounts to: counts, the exit code, and the JSON record of a result.

Exit codes (DESIGN.md): 0 every check ended as expected; 1 some check was
decided the other way (refuted where ``proved`` was expected, or proved where
``refuted`` was); 2 the spec or the command line is wrong (including checks
that ended in ``error``); 3 only unknowns stand between the run and success
(0 instead with ``--allow-unknown``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify import __version__
from llverify.prove.verdict import STATUSES, Counterexample, to_jsonable
from llverify.spec.model import CheckResult

__all__ = ["counts", "exit_code", "result_json", "results_json", "summary_line", "cx_table",
           "EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "EXIT_UNKNOWN", "failure_message"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNKNOWN = 0, 1, 2, 3


def counts(results: Sequence[CheckResult]) -> dict[str, int]:
    """Number of results per verdict status (every status present, in order)."""
    out = {s: 0 for s in STATUSES}
    for r in results:
        out[r.status] += 1
    return out


def exit_code(results: Sequence[CheckResult], fail_on_unknown: bool = True) -> int:
    """The exit code for a finished run (see the module docstring)."""
    outcomes = [r.outcome() for r in results]
    if "fail" in outcomes:
        return EXIT_FAIL
    if "error" in outcomes:
        return EXIT_USAGE
    if "unknown" in outcomes and fail_on_unknown:
        return EXIT_UNKNOWN
    return EXIT_OK


def summary_line(results: Sequence[CheckResult]) -> str:
    """Alive2-style: ``12 proved, 1 refuted, 0 unknown, 0 errors`` plus how many were not as expected."""
    c = counts(results)
    bad = sum(1 for r in results if not r.ok)
    specs = len({r.check.spec for r in results})
    tail = "all as expected" if not bad else f"{bad} not as expected"
    return (f"{c['proved']} proved, {c['refuted']} refuted, {c['unknown']} unknown, {c['error']} errors "
            f"({len(results)} checks in {specs} spec{'s' if specs != 1 else ''}, {tail})")


def failure_message(r: CheckResult) -> str:
    """One sentence for a result that is not as expected."""
    v = r.verdict
    if r.outcome() == "error":
        return f"check '{r.check.name}' could not be decided: {v.message}"
    what = f"check '{r.check.name}' was {v.status}, expected {r.check.expect}"
    return f"{what}: {v.message}" if v.message else what


def _cell(v: Any) -> str:
    v = to_jsonable(v)
    if isinstance(v, Mapping):
        return "(" + ", ".join(f"{k}={_cell(x)}" for k, x in v.items()) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_cell(x) for x in v) + "]"
    return str(v)


def conversion_text(details: Mapping[str, Any]) -> str:
    """How a conversion moves its data, for the tables: its class and, through shared memory, the store and
    load instructions with their wavefronts per instruction; "" for a verdict that is not a conversion's.

    >>> conversion_text({"classification": "shared_memory", "shared_plan": {"store": "stmatrix",
    ...     "store_wavefronts": 4, "load": "vector", "load_wavefronts": 2}})
    'shared_memory: stmatrix 4 wf, ld.shared 2 wf'
    >>> conversion_text({"classification": "register_permutation"})
    'register_permutation'
    """
    cls = details.get("classification")
    if not isinstance(cls, str):
        return ""
    plan = details.get("shared_plan")
    if cls != "shared_memory" or not isinstance(plan, Mapping):
        return cls
    store = "st.shared" if plan.get("store") == "vector" else str(plan.get("store"))
    load = "ld.shared" if plan.get("load") == "vector" else str(plan.get("load"))
    return f"{cls}: {store} {plan.get('store_wavefronts')} wf, {load} {plan.get('load_wavefronts')} wf"


def cx_table(cx: Counterexample) -> tuple[list[str], list[list[str]]]:
    """A counterexample as a small table: one column per hardware index, then one per side."""
    ins = [str(k) for k in cx.inputs]
    sides = [str(k) for k in cx.sides]
    header = ins + sides
    row = [str(cx.inputs[k]) for k in cx.inputs] + [_cell(cx.sides[k]) for k in cx.sides]
    return header, [row]


def result_json(r: CheckResult) -> dict[str, Any]:
    """The JSON record of one result, with exactly the keys DESIGN.md lists."""
    v = r.verdict.to_json()  # the verdict's own serialisation; the check's identity goes around it
    return {
        "spec": r.check.spec,
        "check": r.check.name,
        "property": r.check.property,
        "subject": r.check.subject,
        "expected": r.check.expect,
        "status": v["status"],
        "ok": r.ok,
        **{k: v[k] for k in ("method", "seconds", "counterexample", "message", "details")},
    }


def results_json(results: Sequence[CheckResult]) -> dict[str, Any]:
    """``{"llverify": version, "results": [...], "summary": {...}}`` (DESIGN.md)."""
    return {"llverify": __version__, "results": [result_json(r) for r in results], "summary": counts(results)}
