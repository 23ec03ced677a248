"""`llverify ttgir`'s text report is streamed: each module's lines are printed, in the order of the paths, as
soon as its verdicts are ready, not after the whole run; the report's bytes are those of an unstreamed run
(``--output``), of ``-j 2`` and of a warm re-run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from llverify.ttgir.cli import ttgir

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ttgir"
# modules whose text report has diagnostics (unknowns: no bank model for gfx950), so that each prints lines
NOISY = [str(p) for p in sorted(CORPUS.glob("*-hip_gfx950-*.ttgir"))][:6]


def test_each_module_is_printed_before_the_next_one_is_checked(monkeypatch) -> None:
    import llverify.ttgir.units as units

    real = units.run_unit

    def marked(unit):  # runs in process (-j 1): says on stdout when each module's check starts
        sys.stdout.write(f"<checking {unit[0]}>\n")
        return real(unit)

    monkeypatch.setattr(units, "run_unit", marked)
    res = CliRunner().invoke(ttgir, ["--no-cache", "-j", "1", *NOISY])
    assert res.exit_code in (0, 3), res.output
    lines = res.output.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("<checking ")]
    assert len(starts) == len(NOISY)
    printed = 0
    for k, path in enumerate(NOISY):
        # the lines of module k (they name its path) come after its check started and before module k+1's did
        end = starts[k + 1] if k + 1 < len(NOISY) else len(lines)
        mine = [i for i, line in enumerate(lines) if line.startswith(path + ":") and "<checking" not in line]
        printed += bool(mine)
        assert all(starts[k] < i < end for i in mine), (path, mine, starts)
    assert printed >= 2  # the property above says something only for modules that print lines


def test_streamed_report_equals_the_written_one_and_parallel_and_warm(tmp_path: Path) -> None:
    files = NOISY + [str(p) for p in sorted(CORPUS.glob("transpose-*.ttgir"))][:10]
    out_file = tmp_path / "report.txt"
    cache = tmp_path / "c.sqlite"

    def body(text: str) -> str:  # all but the summary line, which holds the seconds
        return text.rsplit("\n", 2)[0]

    streamed = CliRunner().invoke(ttgir, ["--no-cache", "-j", "1", *files])
    written = CliRunner().invoke(ttgir, ["--no-cache", "-j", "1", "-o", str(out_file), *files])
    parallel = CliRunner().invoke(ttgir, ["--no-cache", "-j", "2", *files])
    cold = CliRunner().invoke(ttgir, ["--cache", str(cache), "-j", "2", *files])
    warm = CliRunner().invoke(ttgir, ["--cache", str(cache), "-j", "2", *files])
    assert streamed.exit_code == written.exit_code == parallel.exit_code == cold.exit_code == warm.exit_code == 3
    assert body(streamed.output) == body(out_file.read_text()) == body(parallel.output) == body(cold.output) \
        == body(warm.output)
    assert "from the cache" in warm.output.splitlines()[-1]


def test_unreadable_modules_are_printed_in_their_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttgir"
    bad.write_bytes(b"\xff\xfe not utf-8")
    files = [NOISY[0], str(bad), NOISY[1]]
    res = CliRunner().invoke(ttgir, ["--no-cache", *files])
    assert res.exit_code == 2
    lines = res.output.splitlines()
    where = [next(i for i, line in enumerate(lines) if line.startswith(p + ":")) for p in files]
    assert where == sorted(where), lines
    assert ": error:" in lines[where[1]]


@pytest.mark.parametrize("args", [["--format", "json"], ["-v"]])
def test_whole_document_formats_are_not_streamed_piecemeal(args: list[str]) -> None:
    res = CliRunner().invoke(ttgir, ["--no-cache", *args, *NOISY[:2]])
    assert res.exit_code == 3
    if args[1:] == ["json"]:
        import json

        json.loads(res.output)  # one document
