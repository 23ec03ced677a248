"""Issue 14's extension test: a new check kind and a new hardware kind are each one declaration.

A toy check kind, declared with :func:`llverify.spec.kinds.declare_check_kind` alone, is validated in
specs, listed in the JSON Schema, ``llverify check --help`` and SARIF's rule table, and decided by
``llverify check``.  A toy hardware kind, declared with :func:`llverify.hw.kinds.declare` alone
(constructor, Triton mnemonic and fields, sampler), is built by name, read and printed as a Triton
attribute, sampled, listed in the schema and the help, and usable from a spec.  With an example spec, both
pass the checks ``tests/test_declared_kinds.py`` makes of every declared kind, and without a must-fail
example the check kind does not.  Both are removed again after each test.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest
from click.testing import CliRunner

from llverify.cli import cli
from llverify.hw import blocked, build, kinds as hw_kinds, sampling
from llverify.hw.kinds import Kind, declare
from llverify.layout import LinearLayout
from llverify.spec import check_properties, checkkind, kinds as check_kinds
from llverify.spec.argtypes import Arg
from llverify.spec.kinds import CheckKind, declare_check_kind
from llverify.triton import format_attr, parse_attr

sys.path.insert(0, str(Path(__file__).parent))
import oracle_triton  # noqa: E402
from test_declared_kinds import check_kind_problems, hardware_kind_problems  # noqa: E402

from llverify.spec.parse import load_spec  # noqa: E402


def toy_rows(shape: Sequence[int], rows_per_thread: int) -> LinearLayout:
    """Each thread of one 32-lane warp holds ``rows_per_thread`` consecutive rows of one column."""
    return blocked(size_per_thread=[rows_per_thread, 1], threads_per_warp=[1, 32], warps_per_cta=[1, 1],
                   order=[0, 1], shape=shape)


def toy_rows_case(rng: random.Random) -> dict[str, Any]:
    r = 1 << rng.randint(0, 3)
    return {"kind": "toy_rows", "shape": [r << rng.randint(0, 2), 32], "params": {"rows_per_thread": r}}


@pytest.fixture
def toy_hw_kind():
    declare(Kind("toy_rows", toy_rows, mnemonic="toy_rows", fields={"rowsPerThread": "rows_per_thread"},
                 sample=toy_rows_case))
    yield
    del hw_kinds._KINDS["toy_rows"]


def toy_rows_gluon(b: Any, p: Mapping[str, Any]) -> Any:
    """How Triton's Gluon builder would build the toy: a blocked attribute."""
    return b.get_blocked_layout([p["rows_per_thread"], 1], [1, 32], [1, 1], [0, 1], b.cga(p))


@pytest.fixture
def toy_hw_kind_with_gluon():
    declare(Kind("toy_rows", toy_rows, mnemonic="toy_rows", fields={"rowsPerThread": "rows_per_thread"},
                 sample=toy_rows_case, gluon=toy_rows_gluon))
    yield
    del hw_kinds._KINDS["toy_rows"]


class FakeGluonBuilder:
    """Records the ``get_*_layout`` calls the oracle derives, in place of Triton's ``GluonOpBuilder``."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args: (name, args)


@pytest.fixture
def toy_check_kind():
    declare_check_kind(CheckKind("toy_covers", {"layout": Arg("layout", required=True)}, ("layout",),
                                 "{layout} covers its tensor (a toy kind)", check_properties.check_surjective,
                                 "the toy: surjectivity under another name"))
    yield
    del checkkind._TABLE["toy_covers"]


SPEC = """\
layouts:
  rows:
    kind: toy_rows
    shape: [8, 32]
    rows_per_thread: 2
  half:
    bases:
      register: [[0, 1], [0, 0]]
      lane: [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]
    out: {dim0: 8, dim1: 16}
checks:
  - toy_covers: rows
  - toy_covers: half
    expect: refuted
  - bijective: rows
"""


def test_a_toy_hardware_kind_is_one_declaration(toy_hw_kind) -> None:
    layout = build("toy_rows", [8, 32], rows_per_thread=2)
    assert [list(b) for b in layout.bases["register"]] == [[1, 0], [2, 0], [4, 0]]
    spec = parse_attr("#ttg.toy_rows<{rowsPerThread = 2}>")
    assert spec == {"kind": "toy_rows", "rows_per_thread": 2}
    assert format_attr(spec) == "#ttg.toy_rows<{rowsPerThread = 2}>"
    assert "toy_rows" in sampling.SAMPLED_KINDS
    case = sampling.random_case("toy_rows", random.Random(3))
    assert build(case["kind"], case["shape"], **case["params"]).out_dim_size("dim1") == 32


def test_the_oracle_skips_a_toy_without_a_gluon_builder(toy_hw_kind) -> None:
    why = oracle_triton.skip_reason("toy_rows")
    assert why is not None and "declares no Gluon builder" in why
    assert oracle_triton.skip_reason("blocked") is None
    case = sampling.random_case("toy_rows", random.Random(3))
    (res,) = oracle_triton.run_cases([case])  # answered here: no child process, no Triton
    assert res == {"ok": False, "skipped": True, "error": why}


def test_the_oracle_derives_a_toy_branch_from_its_declaration(toy_hw_kind_with_gluon) -> None:
    assert oracle_triton.skip_reason("toy_rows") is None
    b = oracle_triton.GluonOracleBuilder(FakeGluonBuilder(), None)
    assert oracle_triton.gluon_attr(b, "toy_rows", {"rows_per_thread": 4}) == (
        "get_blocked_layout", ([4, 1], [1, 32], [1, 1], [0, 1], []))
    nested = oracle_triton.gluon_attr(b, "slice", {"dim": 0, "parent": {"kind": "toy_rows", "rows_per_thread": 2}})
    assert nested == ("get_slice_layout", (0, ("get_blocked_layout", ([2, 1], [1, 32], [1, 1], [0, 1], []))))


def test_every_sampled_kind_reaches_the_oracle() -> None:
    """The differential compares every sampled kind: each declares its Gluon builder."""
    assert [k for k in sampling.SAMPLED_KINDS if oracle_triton.skip_reason(k) is not None] == []


def test_a_toy_check_kind_is_one_declaration(toy_check_kind, toy_hw_kind, tmp_path) -> None:
    path = tmp_path / "toy.yaml"
    path.write_text(SPEC)
    run = CliRunner().invoke(cli, ["check", "--format", "json", str(path)])
    assert run.exit_code == 0, run.output
    results = json.loads(run.output)["results"]
    assert [(r["property"], r["status"], r["ok"]) for r in results] == [
        ("toy_covers", "proved", True), ("toy_covers", "refuted", True), ("bijective", "proved", True)]
    refuted = results[1]
    assert refuted["counterexample"]["inputs"]  # the toy inherits surjectivity's replayed witness
    schema = json.loads(CliRunner().invoke(cli, ["schema"]).output)
    assert "check_toy_covers" in json.dumps(schema)
    sarif = CliRunner().invoke(cli, ["check", "--format", "sarif", str(path)])
    assert "toy_covers" in sarif.output


def test_the_toys_are_gone_after_their_tests() -> None:
    assert "toy_covers" not in check_kinds.KINDS
    assert "toy_rows" not in sampling.SAMPLED_KINDS
    with pytest.raises(Exception, match="unknown layout kind"):
        build("toy_rows", [8, 32], rows_per_thread=2)


def test_a_kind_declared_twice_differently_is_refused(toy_check_kind) -> None:
    with pytest.raises(ValueError, match="declared twice"):
        declare_check_kind(CheckKind("toy_covers", {}, (), "other", check_properties.check_injective))
    with pytest.raises(ValueError, match="declared twice"):
        declare(Kind("blocked", toy_rows))


def test_the_toys_pass_the_declared_kind_checks_with_their_example_spec(
        toy_check_kind, toy_hw_kind_with_gluon, tmp_path) -> None:
    path = tmp_path / "toy.yaml"
    path.write_text(SPEC)
    examples = [load_spec(str(path))]
    assert check_kind_problems("toy_covers", examples) == []
    assert hardware_kind_problems("toy_rows", examples) == []
    help_text = CliRunner().invoke(cli, ["check", "--help"], terminal_width=200).output
    assert "toy_covers" in help_text and "toy_rows" in help_text
    layout_kind = json.loads(CliRunner().invoke(cli, ["schema"]).output)["$defs"]["layout"]["oneOf"][0]
    assert "toy_rows" in layout_kind["properties"]["kind"]["enum"]


def test_a_toy_without_a_must_fail_example_or_a_sampler_fails_the_declared_kind_checks(
        toy_check_kind, toy_hw_kind, tmp_path) -> None:
    path = tmp_path / "toy.yaml"
    path.write_text(SPEC.replace("    expect: refuted\n", "").replace("  - toy_covers: half\n", ""))
    problems = check_kind_problems("toy_covers", [load_spec(str(path))])
    assert problems == ["check kind 'toy_covers': no example check expected refuted (the must-fail case); a kind "
                        "that checks llverify's own construction names its mutant test in CheckKind.must_fail "
                        "instead"]
    assert "no example spec" in check_kind_problems("toy_covers", [])[0]
    declare(Kind("toy_bare", toy_rows))
    try:
        assert hardware_kind_problems("toy_bare", [load_spec(str(path))]) == [
            "hardware kind 'toy_bare': no example spec in specs/ or proofs/ checks a layout of it",
            "hardware kind 'toy_bare': no sampler, and its declaration does not say why (Kind.unsampled)"]
    finally:
        del hw_kinds._KINDS["toy_bare"]
