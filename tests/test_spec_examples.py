"""The shipped examples: specs/ and proofs/ check as expected, bundled copies match, every check kind is exercised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from llverify.cli import cli
from llverify.spec.kinds import KINDS
from llverify.spec.layouts import LAYOUT_SOURCES
from llverify.spec.parse import load_spec

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.y*ml")) + sorted((ROOT / "specs").glob("*.json"))
PROOFS = sorted((ROOT / "proofs").rglob("*.yaml"))


def _triton_ready() -> bool:
    try:
        import llverify.triton as t
    except ImportError:
        return False
    return hasattr(t, "parse_attr") and hasattr(t, "parse_type")


def _usable(paths: list[Path]) -> list[Path]:
    return [p for p in paths if _triton_ready() or "triton:" not in p.read_text()]


def test_there_are_enough_examples_and_each_says_what_it_shows() -> None:
    assert len(SPECS) >= 15
    for p in SPECS:
        text = p.read_text()
        assert text.startswith("#") or '"description"' in text, p


def test_one_copy_of_the_examples() -> None:
    """specs/ is the bundled examples directory itself (a symlink), so the two can never drift."""
    assert (ROOT / "specs").resolve() == (ROOT / "llverify" / "bundled_specs").resolve()
    from llverify.spec.cli import bundled_specs_dir

    assert sorted(p.name for p in bundled_specs_dir().iterdir() if p.suffix in (".yaml", ".json")) == \
        sorted(p.name for p in SPECS)


def test_every_check_kind_and_layout_source_is_exercised_by_the_examples() -> None:
    used, sources = set(), set()
    for p in _usable(SPECS):
        spec = load_spec(str(p))
        used |= {c.property for c in spec.checks}
        sources |= {d.source for d in spec.decls.values()}
    assert used == set(KINDS)
    expected_sources = set(LAYOUT_SOURCES) - (set() if _triton_ready() else {"triton"})
    assert sources >= expected_sources


def _run_json(paths: list[Path]) -> dict:
    res = CliRunner().invoke(cli, ["check", "--format", "json", *map(str, paths)], catch_exceptions=False)
    assert res.exit_code == 0, res.stdout + res.stderr
    return json.loads(res.stdout)


def test_specs_check_as_expected_with_at_least_one_refutation() -> None:
    doc = _run_json(_usable(SPECS))
    assert all(r["ok"] for r in doc["results"])
    assert doc["summary"]["refuted"] >= 1 and doc["summary"]["error"] == 0


def test_proofs_check_as_expected_and_every_bug_is_refuted() -> None:
    doc = _run_json(PROOFS)
    assert all(r["ok"] for r in doc["results"])
    bugs = [r for r in doc["results"] if "/bugs/" in r["spec"]]
    bug_files = {r["spec"] for r in bugs}
    assert len(bug_files) >= 5
    for f in bug_files:  # each regression spec reproduces its bug: at least one expected refutation
        assert any(r["expected"] == "refuted" and r["status"] == "refuted" for r in bugs if r["spec"] == f), f
    for r in bugs:
        if r["status"] == "refuted":
            assert r["counterexample"]["inputs"], r


def test_figure_1_and_figure_3_are_among_the_examples() -> None:
    names = " ".join(p.name for p in SPECS)
    assert "figure1" in names and "figure3" in names


@pytest.mark.parametrize("path", [p for p in SPECS if "triton" in p.name])
def test_triton_example_needs_the_triton_layer(path: Path) -> None:
    if not _triton_ready():
        res = CliRunner().invoke(cli, ["check", str(path)])
        assert res.exit_code == 2 and "not available" in res.stderr
    else:
        res = CliRunner().invoke(cli, ["check", str(path)])
        assert res.exit_code == 0, res.stdout + res.stderr


def test_every_example_validates_against_the_published_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    from llverify.spec.schema import spec_schema

    schema = spec_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for p in SPECS + PROOFS:
        errors = list(validator.iter_errors(yaml.safe_load(p.read_text())))
        assert not errors, (p, errors[0].message)
