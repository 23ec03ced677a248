"""Warm ``--format json`` and ``--format sarif`` runs are served from what the module cache stores for them
(each result's JSON text, the SARIF results): the same bytes as the cold run (the summary's run time and
cached-file count aside), without loading the reader or the prover, and a damaged stored output is never
printed."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ttgir"
# a CUDA kernel (all proved), a gfx950 one (unknowns: SARIF results) and a warp-specialized one
FILES = [str(CORPUS / n) for n in ("transpose-m64n64-cuda_90-w4.ttgir", "matmul-t64s1-hip_gfx950-w4.ttgir",
                                   "attention-q64k64d64-cuda_100-w4.ttgir")]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)


def _run_facts(text: str) -> str:
    """The report less the two facts of the run itself: its time and how many files the cache served."""
    return re.sub(r'\n    "(seconds|cached_files)": [0-9.e-]+', "", text)


def _cached(text: str) -> int:
    return int(re.search(r'\n    "cached_files": (\d+)', text).group(1))


def test_a_warm_json_run_prints_the_cold_runs_bytes(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    cold = _run("--cache", cache, "--format", "json", *FILES)
    warm = _run("--cache", cache, "--format", "json", *FILES)
    assert _cached(cold.stdout) == 0 and _cached(warm.stdout) == len(FILES)
    assert _run_facts(warm.stdout) == _run_facts(cold.stdout) and warm.returncode == cold.returncode == 3
    # every line but the two run facts is byte-identical, per-result times included (they are the cold run's)
    diff = [(a, b) for a, b in zip(cold.stdout.splitlines(), warm.stdout.splitlines()) if a != b]
    assert [a.split(":")[0].strip() for a, _ in diff] == ['"cached_files"', '"seconds"']
    # -j 2 without a cache prints the same document (times aside)
    par = _run("--no-cache", "-j", "2", "--format", "json", *FILES)
    assert re.sub(r'"seconds": [0-9.e-]+', "", _run_facts(par.stdout)) == \
        re.sub(r'"seconds": [0-9.e-]+', "", _run_facts(cold.stdout))


def test_a_cache_filled_by_a_text_run_serves_json_too(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    _run("--cache", cache, *FILES)
    first = _run("--cache", cache, "--format", "json", *FILES)  # rendered from the stored findings, then kept
    second = _run("--cache", cache, "--format", "json", *FILES)  # from the stored JSON texts
    assert _cached(first.stdout) == _cached(second.stdout) == len(FILES)
    assert first.stdout.replace(first.stdout[first.stdout.rindex('"seconds"'):], "") == \
        second.stdout.replace(second.stdout[second.stdout.rindex('"seconds"'):], "")
    with sqlite3.connect(cache) as conn:
        assert conn.execute("SELECT COUNT(*) FROM modules WHERE outputs IS NULL").fetchone()[0] == 0


def test_a_warm_sarif_run_prints_the_cold_runs_bytes(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    for extra in ((), ("--allow-unknown",)):
        cold = _run("--no-cache", "--format", "sarif", *extra, *FILES)
        _run("--cache", cache, "--format", "sarif", *extra, *FILES)
        warm = _run("--cache", cache, "--format", "sarif", *extra, *FILES)
        assert warm.stdout == cold.stdout and warm.returncode == cold.returncode
        assert ('"level": "warning"' in cold.stdout) == (not extra)  # the gfx950 unknowns, unless allowed


def test_warm_json_and_sarif_runs_load_neither_reader_nor_prover(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    probe = ("import sys\nfrom llverify.cli import main\nsys.argv = ['llverify', 'ttgir', '--cache', sys.argv[1]]"
             " + sys.argv[2:]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
             "heavy = ('z3', 'numpy', 'yaml', 'llverify.ttgir.reader', 'llverify.ttgir.rules', 'llverify.prove',"
             " 'llverify.layout', 'llverify.spec', 'llverify.ttgir.findings', 'multiprocessing')\n"
             "print('LOADED', sorted(m for m in sys.modules if m.startswith(heavy)))\n")
    for fmt in ("json", "sarif"):
        _run("--cache", cache, "--format", fmt, *FILES)
        out = subprocess.run([sys.executable, "-c", probe, cache, "--format", fmt, *FILES], capture_output=True,
                             text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
        assert out.stdout.strip().splitlines()[-1] == "LOADED []", fmt


def test_a_damaged_stored_output_is_never_printed(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    cold = _run("--cache", cache, "--format", "json", *FILES)
    with sqlite3.connect(cache) as conn:
        import zlib

        key, blob = conn.execute("SELECT key, outputs FROM modules WHERE outputs IS NOT NULL").fetchone()
        text = zlib.decompress(blob).decode().replace('"proved"', '"refuted"', 1)
        conn.execute("UPDATE modules SET outputs = ? WHERE key = ?", (zlib.compress(text.encode()), key))
    warm = _run("--cache", cache, "--format", "json", *FILES)
    assert _cached(warm.stdout) == len(FILES) - 1  # that module was checked again
    assert re.sub(r'"seconds": [0-9.e-]+', "", _run_facts(warm.stdout)) == \
        re.sub(r'"seconds": [0-9.e-]+', "", _run_facts(cold.stdout))
