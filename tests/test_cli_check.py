"""`llverify check` through the real entry point: every format and exit code."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from llverify.cli import cli

OK_SPEC = """\
# a small spec whose checks all end as expected
layouts:
  raw:
    bases:
      register: [[0, 1], [0, 2]]
      lane: [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]
    out: {dim0: 8, dim1: 16}
  bcast:
    bases:
      register: [[1], [0]]
      lane: [[2], [4]]
checks:
  - surjective: raw
  - bijective: raw
  - injective: bcast
    expect: refuted
  - equal: [raw, raw]
"""

BAD_SPEC = """\
layouts:
  bcast:
    bases:
      register: [[1], [0]]
      lane: [[2], [4]]
    out: {dim0: 16}
  id:
    bases:
      register: [[1], [2], [4]]
checks:
  - surjective: bcast
  - bijective: id
  - injective: id
    expect: refuted
"""

BIG = "\n".join(f"      - [{1 << (i % 20)}]" for i in range(28))
UNKNOWN_SPEC = f"""\
layouts:
  big:
    bases:
      register:
{BIG}
checks:
  - surjective: big
    method: exhaustive
"""


def run(args: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        res = runner.invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture()
def specs(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in [("ok", OK_SPEC), ("bad", BAD_SPEC), ("unknown", UNKNOWN_SPEC)]:
        p = tmp_path / f"{name}.yaml"
        p.write_text(text)
        out[name] = p
    return out


def test_all_as_expected_exits_0_with_table_and_summary(specs) -> None:
    code, out, err = run(["check", str(specs["ok"])])
    assert code == 0, out + err
    assert "surjective(raw)" in out and "injective(bcast)" in out
    assert out.strip().splitlines()[-1].startswith("3 proved, 1 refuted, 0 unknown, 0 errors (4 checks in 1 spec")


def test_wrong_verdicts_exit_1_with_located_diagnostics_and_counterexample(specs) -> None:
    code, out, _ = run(["check", str(specs["bad"])])
    assert code == 1
    p = str(specs["bad"])
    assert f"{p}:11:5: error: check 'surjective(bcast)' was refuted, expected proved" in out
    assert f"{p}:13:5: error: check 'injective(id)' was proved, expected refuted" in out
    # the counterexample table: the element no input reaches
    assert "counterexample" in out and "dim0" in out


def test_bad_spec_exits_2_without_traceback(tmp_path) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: b\n")
    code, out, err = run(["check", str(p)])
    assert code == 2
    assert f"{p}:4:17: error: argument 'layout' of check 'surjective' refers to unknown layout 'b'" in err
    assert "Traceback" not in out + err and "0 checks" in out


def test_one_bad_file_never_hides_the_others(tmp_path, specs) -> None:
    """Issue 13 item 8: the good files are checked, every requested output is written with the errors, exit 2."""
    bad = tmp_path / "broken.yaml"
    bad.write_text("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: b\n")
    good = specs["good"] if "good" in specs else next(iter(specs.values()))
    for fmt in ("json", "junit", "sarif", "markdown"):
        out_file = tmp_path / f"r.{fmt}"
        out_file.write_text("stale")
        code, out, err = run(["check", "--format", fmt, "-o", str(out_file), str(bad), str(good)])
        assert code == 2 and "Traceback" not in out + err
        body = out_file.read_text()
        assert body != "stale" and "broken.yaml" in body
        if fmt == "json":
            doc = json.loads(body)
            assert doc["results"] and doc["errors"][0]["line"] == 4


def test_bad_spec_with_sarif_still_writes_located_sarif(tmp_path) -> None:
    p = tmp_path / "broken.yaml"
    p.write_text("layouts:\n  a: {kind: blocked, shape: [3, 4]}\nchecks: []\n")
    out_file = tmp_path / "out.sarif"
    code, out, err = run(["check", str(p), "--format", "sarif", "--output", str(out_file)])
    assert code == 2 and "power of two" in err
    doc = json.loads(out_file.read_text())
    (result,) = doc["runs"][0]["results"]
    assert result["ruleId"] == "spec-error" and result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 2 and "power of two" in result["message"]["text"]


def test_missing_path_and_usage_errors_exit_2(tmp_path) -> None:
    code, _, err = run(["check", str(tmp_path / "nope.yaml")])
    assert code == 2 and "no such file or directory" in err
    code, _, err = run(["check", "--format", "xml", str(tmp_path)])
    assert code == 2 and "Invalid value for '--format'" in err


def test_unknown_exits_3_unless_allowed(specs) -> None:
    code, out, _ = run(["check", str(specs["unknown"])])
    assert code == 3, out
    assert "0 proved, 0 refuted, 1 unknown, 0 errors" in out
    code, _, _ = run(["check", "--allow-unknown", str(specs["unknown"])])
    assert code == 0


def test_expected_unknown_is_ok(tmp_path) -> None:
    p = tmp_path / "u.yaml"
    p.write_text(UNKNOWN_SPEC + "    expect: unknown\n")
    assert run(["check", str(p)])[0] == 0


def _strip_times(doc: dict) -> dict:
    for r in doc["results"]:
        r["seconds"] = 0
    return doc


def test_json_has_exactly_the_designed_keys_and_is_stable(specs) -> None:
    code, out, _ = run(["check", "--format", "json", str(specs["ok"]), str(specs["bad"])])
    assert code == 1
    doc = json.loads(out)
    assert list(doc) == ["llverify", "results", "summary"]
    assert list(doc["summary"]) == ["proved", "refuted", "unknown", "error"]
    keys = ["spec", "check", "property", "subject", "expected", "status", "ok", "method", "seconds",
            "counterexample", "message", "details"]
    assert all(list(r) == keys for r in doc["results"])
    assert len(doc["results"]) == 7
    refuted = [r for r in doc["results"] if r["status"] == "refuted"]
    assert refuted and all(r["counterexample"]["inputs"] for r in refuted)
    again = json.loads(run(["check", "--format", "json", str(specs["ok"]), str(specs["bad"])])[1])
    assert _strip_times(doc) == _strip_times(again)


def test_parallel_run_equals_sequential(specs) -> None:
    seq = json.loads(run(["check", "--format", "json", "-j", "1", str(specs["ok"]), str(specs["bad"])])[1])
    par = json.loads(run(["check", "--format", "json", "-j", "2", str(specs["ok"]), str(specs["bad"])])[1])
    assert _strip_times(seq) == _strip_times(par)


def test_junit_one_testcase_per_check(specs) -> None:
    code, out, _ = run(["check", "--format", "junit", str(specs["ok"]), str(specs["bad"])])
    assert code == 1
    root = ET.fromstring(out)
    cases = root.findall(".//testcase")
    assert len(cases) == 7
    assert root.get("tests") == "7" and root.get("failures") == "2"
    failed = [c.get("name") for c in cases if c.find("failure") is not None]
    assert failed == ["surjective(bcast)", "injective(id)"]


def test_sarif_locates_failing_checks(specs) -> None:
    code, out, _ = run(["check", "--format", "sarif", str(specs["bad"])])
    assert code == 1
    doc = json.loads(out)
    assert doc["version"] == "2.1.0"
    results = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["surjective", "injective"]
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 11 and region["startColumn"] == 5 and region["endLine"] == 11
    assert results[1]["locations"][0]["physicalLocation"]["region"]["endLine"] == 14
    rules = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)


def test_markdown_and_output_file(specs, tmp_path) -> None:
    target = tmp_path / "out.md"
    code, out, err = run(["check", "--format", "markdown", "--output", str(target), str(specs["bad"])])
    assert code == 1 and out == ""
    text = target.read_text()
    assert text.startswith("# llverify check")
    assert "| ❌ |" in text and "## Not as expected" in text
    assert "2 not as expected" in err


def test_quiet_and_verbose(specs) -> None:
    _, quiet, _ = run(["check", "-q", str(specs["ok"])])
    assert quiet.strip().count("\n") == 0 and "proved" in quiet
    _, verbose, _ = run(["check", "-v", str(specs["ok"])])
    assert "right inverse" in verbose or "certificate" in verbose or "checked" in verbose


def test_report_option_writes_markdown_and_html(specs, tmp_path) -> None:
    code, _, err = run(["check", "-q", "--report", str(tmp_path / "rep"), str(specs["bad"])])
    assert code == 1
    md = (tmp_path / "rep" / "report.md").read_text()
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "surjective(bcast)" in md and "<svg" in html


def test_no_path_uses_specs_of_the_current_directory(tmp_path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "one.yaml").write_text(OK_SPEC)
    code, out, _ = run(["check", "-q"], cwd=tmp_path)
    assert code == 0 and "4 checks in 1 spec" in out


def test_directories_are_searched_recursively(tmp_path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.yml").write_text(OK_SPEC)
    (tmp_path / "a" / "y.json").write_text(json.dumps({"checks": []}))
    (tmp_path / "a" / "notes.txt").write_text("not a spec")
    code, out, _ = run(["check", "-q", str(tmp_path / "a")])
    assert code == 0 and "4 checks in 1 spec" in out


def test_real_entry_point_subprocess(specs) -> None:
    proc = subprocess.run([sys.executable, "-m", "llverify.cli", "check", "--format", "json", str(specs["bad"])],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["summary"] == {"proved": 2, "refuted": 1, "unknown": 0, "error": 0}
    proc = subprocess.run([sys.executable, "-m", "llverify.cli", "check", str(specs["bad"]) + "x"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_schema_command_prints_a_json_schema_that_accepts_the_examples(specs) -> None:
    code, out, _ = run(["schema"])
    assert code == 0
    schema = json.loads(out)
    assert schema["$schema"].startswith("https://json-schema.org/")
    jsonschema = pytest.importorskip("jsonschema")
    import yaml

    for name in ("ok", "bad"):
        jsonschema.validate(yaml.safe_load(specs[name].read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"checks": [{"surjective": "a", "bogus": 1}]}, schema)


def test_bundled_examples_run_outside_a_checkout(tmp_path) -> None:
    code, out, err = run(["check", "-q"], cwd=tmp_path)  # no ./specs here
    assert code == 0, out + err
    assert "all as expected" in out


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40)
@given(st.integers(0, len(OK_SPEC) - 1), st.integers(0, 12), st.text(alphabet="[]{}:,- \n#abcdelnrstuvy0123456789'\"", max_size=8))
def test_fuzz_mutated_specs_through_the_cli_never_trace_back(at: int, cut: int, insert: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.yaml"
        p.write_text(OK_SPEC[:at] + insert + OK_SPEC[at + cut:])
        runner = CliRunner()
        res = runner.invoke(cli, ["check", "-q", str(p)])
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert res.exit_code in (0, 1, 2, 3)
        assert "Traceback" not in res.stdout + res.stderr
        if res.exit_code == 2 and "error:" in res.stderr:
            assert re.search(rf"{re.escape(str(p))}:\d+:\d+: error: ", res.stderr)


def test_parallel_run_reports_spec_errors_and_checks_the_rest(specs, tmp_path) -> None:
    broken = tmp_path / "zz_broken.yaml"
    broken.write_text("layouts: {}\nchecks:\n  - surjective: nope\n")
    code, out, err = run(["check", "-j", "2", str(specs["ok"]), str(broken)])
    assert code == 2 and "surjective(raw)" in out  # the good file was checked
    assert f"{broken}:3:17: error:" in err and "the other files were checked" in err
    one = run(["check", "-j", "1", str(specs["ok"]), str(broken)])
    assert one[0] == 2 and one[1] .count("proved") == out.count("proved")


def test_python_dash_m_runs_the_same_command_line(tmp_path: Path) -> None:
    """``python -m llverify check`` is the console script: same verdicts, same exit codes."""
    ok, bad = tmp_path / "ok.yaml", tmp_path / "bad.yaml"
    ok.write_text(OK_SPEC)
    bad.write_text("layouts: [\n")
    run = lambda *a: subprocess.run([sys.executable, "-m", "llverify", *a], capture_output=True, text=True,
                                    timeout=120)
    good = run("check", "--format", "json", str(ok))
    assert good.returncode == 0, good.stderr
    results = json.loads(good.stdout)["results"]
    assert [r["status"] for r in results] == ["proved", "proved", "refuted", "proved"]
    assert all(r["ok"] for r in results)
    broken = run("check", str(bad))
    assert broken.returncode == 2
    assert "bad.yaml:" in broken.stderr + broken.stdout and "Traceback" not in broken.stderr


def test_text_table_shows_conversion_class_and_bracketed_names_verbatim(tmp_path: Path) -> None:
    """The class of a conversion is printed next to its property, and brackets in a check's name survive
    (rich used to read "[shared_memory]" as console markup and drop it)."""
    spec = tmp_path / "cvt.yaml"
    spec.write_text("""\
layouts:
  blocked:
    kind: blocked
    shape: [64, 64]
    size_per_thread: [1, 4]
    threads_per_warp: [8, 4]
    warps_per_cta: [4, 1]
    order: [1, 0]
  mma:
    kind: nvidia_mma
    shape: [64, 64]
    version: [2, 0]
    warps_per_cta: [4, 1]
    instr_shape: [16, 8]
checks:
  - conversion: [blocked, mma]
    name: "[bold]cvt[/bold]"
""")
    code, out, _ = run(["check", "--format", "json", str(spec)])
    details = json.loads(out)["results"][0]["details"]
    plan = details["shared_plan"]
    code, out, _ = run(["check", str(spec)])
    assert code == 0 and details["classification"] == "shared_memory"
    assert f"conversion [shared_memory: " in out and "[bold]cvt[/bold]" in out
    store = "st.shared" if plan["store"] == "vector" else plan["store"]
    assert f"{store} {plan['store_wavefronts']} wf" in out  # the cost, as the plan computed it
