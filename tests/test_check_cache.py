"""`llverify check --cache`: proved verdicts are served by content; refutations are always re-decided."""

from __future__ import annotations

from pathlib import Path

from llverify.spec.parse import load_spec
from llverify.spec.runner import Budget, check_key, run_specs, _tasks

SPEC = """
layouts:
  A: {kind: blocked, shape: [16, 16], size_per_thread: [1, 4], threads_per_warp: [8, 4], warps_per_cta: [2, 1], order: [1, 0]}
  B: {kind: blocked, shape: [16, 16], size_per_thread: [4, 1], threads_per_warp: [4, 8], warps_per_cta: [1, 2], order: [0, 1]}
checks:
  - distributed: A
  - equal: [A, B]
    expect: refuted
"""


def _load(tmp_path: Path, text: str, name: str = "s.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return load_spec(str(p))


def test_second_run_serves_the_proof_and_redecides_the_refutation(tmp_path: Path) -> None:
    spec = _load(tmp_path, SPEC)
    budget = Budget(cache=str(tmp_path / "c.sqlite"))
    first = run_specs([spec], budget)
    second = run_specs([spec], budget)
    assert [r.verdict.status for r in first] == [r.verdict.status for r in second] == ["proved", "refuted"]
    assert not first[0].verdict.details.get("cached")
    assert second[0].verdict.details.get("cached") is True
    assert second[0].verdict.message == first[0].verdict.message
    assert not second[1].verdict.details.get("cached") and second[1].verdict.counterexample is not None


def test_the_key_is_the_content_not_the_names_or_lines(tmp_path: Path) -> None:
    a = _load(tmp_path, SPEC, "a.yaml")
    moved = _load(tmp_path, "\n\n# moved\n" + SPEC, "b.yaml")
    other = _load(tmp_path, SPEC.replace("warps_per_cta: [2, 1]", "warps_per_cta: [1, 2]"), "c.yaml")
    ka = check_key(_tasks([a], Budget())[0])
    assert ka == check_key(_tasks([moved], Budget())[0])
    assert ka != check_key(_tasks([other], Budget())[0])
    assert ka != check_key(_tasks([a], Budget(rlimit=5))[0])


def test_an_unusable_cache_file_still_decides(tmp_path: Path) -> None:
    bad = tmp_path / "dir-not-file"
    bad.mkdir()
    spec = _load(tmp_path, SPEC)
    res = run_specs([spec], Budget(cache=str(bad)))
    assert [r.verdict.status for r in res] == ["proved", "refuted"]


def test_no_cache_wins_over_cache_on_the_command_line(tmp_path: Path) -> None:
    """`llverify check --no-cache` is accepted (as by `llverify ttgir`) and neither reads nor writes the file."""
    from click.testing import CliRunner

    from llverify.spec.cli import check

    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC)
    cache = tmp_path / "c.sqlite"
    runner = CliRunner()
    off = runner.invoke(check, ["--format", "json", "--cache", str(cache), "--no-cache", str(spec)])
    assert off.exit_code == 0, off.output
    assert not cache.exists()
    on = runner.invoke(check, ["--format", "json", "--cache", str(cache), str(spec)])
    assert on.exit_code == 0 and cache.exists()
    import json

    served = runner.invoke(check, ["--format", "json", "--cache", str(cache), str(spec)])
    bypassed = runner.invoke(check, ["--format", "json", "--cache", str(cache), "--no-cache", str(spec)])
    cached = [r.get("details", {}).get("cached") for r in json.loads(served.output)["results"]]
    fresh = [r.get("details", {}).get("cached") for r in json.loads(bypassed.output)["results"]]
    assert cached[0] is True and not any(fresh)
