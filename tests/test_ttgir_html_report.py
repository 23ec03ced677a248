"""``llverify ttgir --report DIR``: report.md and report.html carry the gate's own verdicts (located failures
with their replayed counterexamples, conversions, the baseline diff), escaped, and a report that cannot be
written is a located exit-2 error."""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
GOOD = CORPUS / "matmul-t64s1-cuda_80-w4.ttgir"
KWIDTH = ("opIdx = 0, parent = #mma, kWidth = 2", "opIdx = 0, parent = #mma, kWidth = 4")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llverify", "ttgir", "--no-cache", *args], capture_output=True,
                          text=True, timeout=300)


class _Tags(html.parser.HTMLParser):
    """Collects the text and checks that every non-void element closes in order."""

    VOID = {"meta", "br", "hr", "img", "link", "input"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.text: list[str] = []
        self.balanced = True

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.balanced = False

    def handle_data(self, data):
        self.text.append(data)


def test_report_shows_the_refutation_its_counterexample_and_the_baseline_diff(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttgir"
    bad.write_text(GOOD.read_text().replace(*KWIDTH))
    report = tmp_path / "rep"
    res = _cli("--format", "json", "--report", str(report), "--baseline", str(GOOD), str(bad))
    assert res.returncode == 1, res.stderr
    doc = json.loads(res.stdout)
    refuted = [r for r in doc["results"] if r["status"] == "refuted" and r["rule"] == "dot_operands"]
    assert refuted
    r = refuted[0]
    where = f"{r['location']['file']}:{r['location']['line']}:{r['location']['col']}"
    page = (report / "report.html").read_text()
    parser = _Tags()
    parser.feed(page)
    assert parser.balanced and not parser.stack
    text = "".join(parser.text)
    assert where in text
    assert r["message"] in text
    flat = lambda x: re.sub(r"[\[\]() ]", "", str(x))
    for key, value in r["counterexample"]["inputs"].items():
        assert key in text and flat(value) in flat(text)
    assert "Baseline diff" in text and r["kernel"] in text
    # counts on the page are the run's
    assert f"{doc['summary']['proved']} proved, {doc['summary']['refuted']} refuted" in text
    md = (report / "report.md").read_text()
    assert "## Not proved" in md and where in md and "## Baseline diff" in md


def test_report_escapes_layout_text(tmp_path: Path) -> None:
    res = _cli("-v", "--report", str(tmp_path), str(GOOD))
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "report.html").read_text()
    assert "#ttg.nvidia_mma&lt;" in page or "&lt;{" in page
    assert "<{" not in page
    assert "Every obligation proved." in page


def test_unwritable_report_directory_is_a_located_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = _cli("--report", str(blocker / "sub"), str(GOOD))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{blocker / 'sub'}:1:1: error:")
    assert "Traceback" not in res.stderr
