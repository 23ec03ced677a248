"""Every declared kind is tested from its declaration and its example specs: a new kind needs no test file.

For every check kind of :data:`llverify.spec.kinds.KINDS` (read when the tests are collected, so a kind
declared in a new module is here without a line of this file changing):

* the example specs (``specs/``, ``proofs/``) hold a check of it expected ``proved`` and one expected
  ``refuted`` (the must-fail case; a kind that checks llverify's own construction names instead, in
  ``CheckKind.must_fail``, the test whose mutants of that construction are refuted), and every such check
  ends as expected;
* it is in the JSON Schema (``llverify schema``) and in ``llverify check --help``.

For every hardware kind of :func:`llverify.hw.kinds.declared`:

* an example spec builds a layout of it (``kind:``, or a nested ``parent:`` / ``partition_layout:``) and
  every check on such a layout ends as expected;
* it is sampled (``Kind.sample``) or its declaration says why not (``Kind.unsampled``; instruction tiles
  are fixed by their instruction); a sampled kind has a Triton attribute that prints and reads back to the
  same layout, and its samples go through the Triton differential (``tests/oracle_triton.py``): no
  disagreement, and at least one case both build;
* it is in ``llverify check --help`` and in the schema's list of layout kinds.

Each test fails loudly, naming the kind and what it lacks (:func:`check_kind_problems`,
:func:`hardware_kind_problems`).  ``tests/test_extension_points.py`` runs the same checks on toy kinds
declared at test time, with and without a must-fail example.
"""

from __future__ import annotations

import ast
import functools
import json
import random
import re
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest
from click.testing import CliRunner

from llverify.cli import cli
from llverify.errors import LayoutError
from llverify.hw import build
from llverify.hw.kinds import Kind, declared, lookup
from llverify.hw.sampling import random_case
from llverify.spec.kinds import KINDS, CheckKind
from llverify.spec.model import CheckDecl, Spec
from llverify.spec.parse import load_spec
from llverify.spec.runner import Budget, Task, run_check
from llverify.triton import format_attr, parse_attr

sys.path.insert(0, str(Path(__file__).parent))
import oracle_triton  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "specs").glob("*.y*ml")) + sorted((ROOT / "specs").glob("*.json")) + \
    sorted((ROOT / "proofs").rglob("*.yaml"))
HW_KINDS = [k.name for k in declared()]


@functools.lru_cache(maxsize=None)
def examples() -> tuple[Spec, ...]:
    """Every example spec, loaded once."""
    return tuple(load_spec(str(p)) for p in EXAMPLES)


_OUTCOMES: dict[tuple[str, int], tuple[bool, str]] = {}


def outcome(spec: Spec, check: CheckDecl) -> tuple[bool, str]:
    """Whether ``check`` ends as expected, and its verdict in words (each example check runs once)."""
    key = (spec.path, check.index)
    if key not in _OUTCOMES:
        result = run_check(Task(check, spec.layouts, Budget()))
        _OUTCOMES[key] = (result.ok, f"{spec.path}:{check.pos.line} {check.name}: {result.status} "
                                     f"(expected {check.expect}): {result.verdict.message}")
    return _OUTCOMES[key]


def _wrong(checks: list[tuple[Spec, CheckDecl]]) -> list[str]:
    return [msg for s, c in checks for ok, msg in [outcome(s, c)] if not ok]


def must_fail_problem(ref: str) -> str | None:
    """Why ``tests/<file>.py::<function>`` is not a test that asserts a refutation (``None``: it is)."""
    path, _, name = ref.partition("::")
    file = ROOT / path
    if not path.startswith("tests/") or not file.is_file():
        return f"{ref}: no such test file"
    fn = next((n for n in ast.walk(ast.parse(file.read_text())) if isinstance(n, ast.FunctionDef) and n.name == name),
              None)
    if fn is None or not name.startswith("test"):
        return f"{ref}: no such test function"
    if "refuted" not in ast.unparse(fn):
        return f"{ref}: the test asserts no refutation"
    return None


def check_kind_problems(name: str, specs: Sequence[Spec]) -> list[str]:
    """What check kind ``name`` lacks, with ``specs`` as the examples: an example check expected proved, one
    expected refuted (or a ``must_fail`` test), every one ending as expected, its place in the schema and the
    help.  Empty: none."""
    kind: CheckKind = KINDS[name]
    checks = [(s, c) for s in specs for c in s.checks if c.property == name]
    if not checks:
        return [f"check kind {name!r} has no example spec in specs/ or proofs/: add one (it is the kind's test)"]
    expects = {c.expect for _, c in checks}
    out = [] if "proved" in expects else [f"check kind {name!r}: no example check expected proved"]
    if kind.must_fail:
        why = must_fail_problem(kind.must_fail)
        out += [f"check kind {name!r}: must_fail {why}"] if why else []
    elif "refuted" not in expects:
        out.append(f"check kind {name!r}: no example check expected refuted (the must-fail case); a kind that "
                   "checks llverify's own construction names its mutant test in CheckKind.must_fail instead")
    out += _wrong(checks)
    if f"check_{name}" not in _schema()["$defs"]:
        out.append(f"check kind {name!r} is not in the JSON Schema")
    if name not in _words(_help().split("Check kinds:")[1].split("Layout kinds:")[0]):
        out.append(f"check kind {name!r} is not in 'llverify check --help'")
    return out


def _help() -> str:
    run = CliRunner().invoke(cli, ["check", "--help"], terminal_width=200)
    assert run.exit_code == 0, run.output
    return run.output


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9_]+", text))


def _schema() -> dict[str, Any]:
    return json.loads(CliRunner().invoke(cli, ["schema"]).output)


def _kinds_in(value: Any) -> Iterator[str]:
    """The hardware kinds a layout declaration's parameters build (its own and nested ones)."""
    if isinstance(value, dict):
        if isinstance(value.get("kind"), str):
            yield lookup(value["kind"]).name
        for v in value.values():
            yield from _kinds_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from _kinds_in(v)


def hardware_kind_problems(name: str, specs: Sequence[Spec]) -> list[str]:
    """What hardware kind ``name`` lacks, with ``specs`` as the examples: an example check on a layout of
    it, every such check ending as expected, a sampler (or why not) whose samples build and whose Triton
    attribute reads back to the same layout, its place in the help and the schema.  Empty: none.  (The
    Triton differential of its samples is :func:`test_a_sampled_kind_agrees_with_triton`.)"""
    kind: Kind = lookup(name)
    checks = []
    for s in specs:
        mine = {n for n, d in s.decls.items() if d.source == "kind" and name in _kinds_in(dict(d.params))}
        checks += [(s, c) for c in s.checks if mine & set(c.layout_names())]
    out = [] if checks else [f"hardware kind {name!r}: no example spec in specs/ or proofs/ checks a layout of it"]
    out += _wrong(checks)
    if name not in _words(_help().split("Layout kinds:")[1]):
        out.append(f"hardware kind {name!r} is not in 'llverify check --help'")
    layout_kind = _schema()["$defs"]["layout"]["oneOf"][0]["properties"]["kind"]
    if name not in layout_kind["enum"] or not set(kind.aliases) <= set(layout_kind["enum"]):
        out.append(f"hardware kind {name!r} (or an alias) is not in the schema's layout kinds")
    if kind.sample is None:
        if not (kind.tile or kind.unsampled):
            out.append(f"hardware kind {name!r}: no sampler, and its declaration does not say why (Kind.unsampled)")
        return out
    if kind.unsampled:
        out.append(f"hardware kind {name!r} has a sampler but says it is unsampled")
    if kind.gluon is None:
        out.append(f"hardware kind {name!r}: sampled, but declares no Gluon builder for the Triton differential")
    rng = random.Random(name)
    built = 0
    for _ in range(20):
        case = random_case(name, rng)
        try:
            layout = build(name, case["shape"], **case["params"])
        except LayoutError:
            continue  # a sample llverify refuses (the differential compares refusals with Triton's)
        built += 1
        if kind.mnemonic:  # the Triton attribute prints and reads back to the same layout
            text = format_attr({"kind": name, **case["params"]})
            back = parse_attr(text)
            if build(back.pop("kind"), case["shape"], **back) != layout:
                out.append(f"hardware kind {name!r}: {text} reads back as another layout")
    if built < 5:
        out.append(f"hardware kind {name!r}: its sampler drew only {built} buildable cases of 20")
    return out


@pytest.mark.parametrize("name", list(KINDS))
def test_a_check_kind_is_tested_by_its_examples(name: str) -> None:
    problems = check_kind_problems(name, examples())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", HW_KINDS)
def test_a_hardware_kind_is_tested_by_its_examples_and_its_sampler(name: str) -> None:
    problems = hardware_kind_problems(name, examples())
    assert not problems, "\n".join(problems)


SAMPLED = [k.name for k in declared() if k.sample is not None]


@pytest.fixture(scope="module")
def differential() -> dict[str, dict[str, Any]]:
    """24 samples of every sampled kind (a tenth deliberately broken) compared with Triton, in one batch."""
    if not oracle_triton.available():
        pytest.fail("triton (the oracle) is not installed: the hardware kinds cannot be compared with it")
    from test_hw_differential import _compare

    rng = random.Random(14)
    cases = [random_case(k, rng, 0.1) for k in SAMPLED for _ in range(24)]
    problems, _stats, per_kind = _compare(cases)
    return {k: {**per_kind.get(k, {}), "problems": [p[:2] for p in problems if p[1]["kind"] == k]} for k in SAMPLED}


@pytest.mark.parametrize("name", SAMPLED)
def test_a_sampled_kind_agrees_with_triton(name: str, differential: dict[str, dict[str, Any]]) -> None:
    got = differential[name]
    assert not got["problems"], f"{name}: {got['problems'][:3]}"
    assert got.get("same", 0) >= 1, f"{name}: no sample that both llverify and Triton build ({got})"


def test_a_must_fail_reference_that_refutes_nothing_is_refused() -> None:
    assert must_fail_problem("tests/test_codegen_plans.py::test_gather_warp_local_and_not") is None
    assert "no such test function" in must_fail_problem("tests/test_codegen_plans.py::test_nothing_here")
    assert "no such test file" in must_fail_problem("tests/nowhere.py::test_x")
    here = "tests/test_declared_kinds.py::test_a_check_kind_is_tested_by_its_examples"
    assert "asserts no refutation" in must_fail_problem(here)
