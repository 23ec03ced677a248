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

Each test fails loudly, naming the kind and what it lacks.  ``tests/test_extension_points.py`` shows the
other direction: kinds declared at test time reach the schema, the help and the random generator.
"""

from __future__ import annotations

import ast
import functools
import json
import random
import re
import sys
from pathlib import Path
from typing import Any, Iterator

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
    """Every example spec, loaded once (those needing Triton's parser only where it is there)."""
    return tuple(load_spec(str(p)) for p in EXAMPLES)


@functools.lru_cache(maxsize=None)
def outcome(spec_path: str, index: int) -> tuple[bool, str]:
    """Whether check ``index`` of the spec ends as expected, and its verdict in words (each run once)."""
    spec = next(s for s in examples() if s.path == spec_path)
    check = spec.checks[index]
    result = run_check(Task(check, spec.layouts, Budget()))
    return result.ok, f"{spec_path}:{check.pos.line} {check.name}: {result.status} (expected {check.expect}): " \
                      f"{result.verdict.message}"


def _checks_of(kind: str) -> list[tuple[Spec, CheckDecl]]:
    return [(s, c) for s in examples() for c in s.checks if c.property == kind]


def _must_fail_test(ref: str) -> str | None:
    """Why ``path::function`` is not a test that refutes something (``None``: it is)."""
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


@pytest.mark.parametrize("name", list(KINDS))
def test_a_check_kind_has_a_proved_and_a_refuted_example_that_end_as_expected(name: str) -> None:
    kind: CheckKind = KINDS[name]
    checks = _checks_of(name)
    assert checks, f"check kind {name!r} has no example spec in specs/ or proofs/: add one (it is the kind's test)"
    expects = {c.expect for _, c in checks}
    assert "proved" in expects, f"check kind {name!r}: no example check expected proved"
    if kind.must_fail:
        why = _must_fail_test(kind.must_fail)
        assert why is None, f"check kind {name!r}: must_fail {why}"
    else:
        assert "refuted" in expects, (f"check kind {name!r}: no example check expected refuted (the must-fail "
                                      "case); a kind that checks llverify's own construction names its mutant "
                                      "test in CheckKind.must_fail instead")
    wrong = [msg for s, c in checks for ok, msg in [outcome(s.path, c.index)] if not ok]
    assert not wrong, "\n".join(wrong)


def _help() -> str:
    run = CliRunner().invoke(cli, ["check", "--help"], terminal_width=200)
    assert run.exit_code == 0, run.output
    return run.output


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z0-9_]+", text))


def _schema() -> dict[str, Any]:
    return json.loads(CliRunner().invoke(cli, ["schema"]).output)


@pytest.mark.parametrize("name", list(KINDS))
def test_a_check_kind_is_in_the_schema_and_the_help(name: str) -> None:
    assert f"check_{name}" in _schema()["$defs"], name
    assert name in _words(_help().split("Check kinds:")[1].split("Layout kinds:")[0]), name


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


def _uses(kind: str) -> list[tuple[Spec, CheckDecl]]:
    """The example checks on a layout that a layout of ``kind`` builds."""
    out = []
    for s in examples():
        mine = {n for n, d in s.decls.items() if d.source == "kind" and kind in _kinds_in(dict(d.params))}
        out += [(s, c) for c in s.checks if mine & set(c.layout_names())]
    return out


@pytest.mark.parametrize("name", HW_KINDS)
def test_a_hardware_kind_has_an_example_spec_that_ends_as_expected(name: str) -> None:
    checks = _uses(name)
    assert checks, f"hardware kind {name!r}: no example spec in specs/ or proofs/ checks a layout of it: add one"
    wrong = [msg for s, c in checks for ok, msg in [outcome(s.path, c.index)] if not ok]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", HW_KINDS)
def test_a_hardware_kind_is_in_the_help_and_the_schema(name: str) -> None:
    assert name in _words(_help().split("Layout kinds:")[1]), name
    layout_kind = _schema()["$defs"]["layout"]["oneOf"][0]["properties"]["kind"]
    assert name in layout_kind["enum"] and set(lookup(name).aliases) <= set(layout_kind["enum"]), name


@pytest.mark.parametrize("name", HW_KINDS)
def test_a_hardware_kind_is_sampled_or_says_why_not(name: str) -> None:
    kind: Kind = lookup(name)
    if kind.sample is None:
        assert kind.tile or kind.unsampled, f"hardware kind {name!r}: no sampler, and its declaration says not why"
        return
    assert not kind.unsampled, f"hardware kind {name!r} has a sampler but says it is unsampled"
    assert kind.gluon is not None, f"hardware kind {name!r}: sampled, but declares no Gluon builder for the oracle"
    rng = random.Random(name)
    built = 0
    for _ in range(20):
        case = random_case(name, rng)
        assert case["kind"] == name
        try:
            layout = build(name, case["shape"], **case["params"])
        except LayoutError:
            continue  # a sample llverify refuses (the differential compares refusals with Triton's)
        built += 1
        if kind.mnemonic:  # the Triton attribute prints and reads back to the same layout
            text = format_attr({"kind": name, **case["params"]})
            back = parse_attr(text)
            assert build(back.pop("kind"), case["shape"], **back) == layout, text
    assert built >= 5, f"hardware kind {name!r}: its sampler drew only {built} buildable cases of 20"


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


def test_the_must_fail_reference_is_checked(tmp_path) -> None:
    """A ``must_fail`` that names no test, or a test that refutes nothing, is refused."""
    assert _must_fail_test("tests/test_codegen_plans.py::test_gather_warp_local_and_not") is None
    assert "no such test function" in _must_fail_test("tests/test_codegen_plans.py::test_nothing_here")
    assert "no such test file" in _must_fail_test("tests/nowhere.py::test_x")
    assert "asserts no refutation" in _must_fail_test("tests/test_declared_kinds.py::test_a_check_kind_is_in_the_schema_and_the_help")
