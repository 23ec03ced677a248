"""The bound on the verdict cache file (llverify.executor.evict): least recently used rows go first, a read
marks its rows as used, runs that write keep the file under the bound, two writers and a prune during a run
lose nothing, and a pruned module is simply checked again (same report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from llverify.executor.cache import VerdictCache
from llverify.executor.evict import SizeError, max_bytes, parse_size, prune, total_bytes
from llverify.executor.store import open_db
from llverify.prove.verdict import Verdict
from llverify.ttgir.modcache import ModuleCache

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ttgir"
FILES = [str(p.relative_to(ROOT)) for p in sorted(CORPUS.glob("transpose-*.ttgir"))]


def _record(key: str, size: int) -> tuple[str, str, str]:
    return key, json.dumps({"k": key}), "x" * size


def test_sizes_parse_and_bad_ones_are_refused(monkeypatch) -> None:
    assert parse_size("256M") == 256 * 2 ** 20 and parse_size("1k") == 1024 and parse_size("7") == 7
    for bad in ("", "M", "-1", "1.5G", "12Q"):
        with pytest.raises(SizeError):
            parse_size(bad)
    monkeypatch.setenv("LLVERIFY_CACHE_MAX_SIZE", "3M")
    assert max_bytes() == 3 * 2 ** 20
    monkeypatch.setenv("LLVERIFY_CACHE_MAX_SIZE", "lots")
    assert max_bytes() == 256 * 2 ** 20  # an unreadable bound is ignored, never fatal


def test_the_least_recently_used_rows_go_first(tmp_path: Path) -> None:
    cache = ModuleCache(str(tmp_path / "c.sqlite"))
    for i, key in enumerate(("a", "b", "c")):
        cache.store([_record(key, 1000)], limit=10 ** 9)
        cache.conn.execute("UPDATE usage SET last_used = ? WHERE key = ?", (100.0 + i, key))  # a < b < c
    cache.lookup(["a"])  # a read marks "a" as used now: "b" is now the oldest
    res = prune(cache.conn, 2100, target=1.0)
    assert res.deleted == 1 and sorted(cache.lookup(["a", "b", "c"])) == ["a", "c"]
    assert total_bytes(cache.conn) == res.bytes_after <= 2100
    cache.close()


def test_a_run_that_writes_keeps_the_file_under_the_bound(tmp_path: Path) -> None:
    cache = ModuleCache(str(tmp_path / "c.sqlite"))
    for i in range(20):
        cache.store([_record(f"k{i}", 1000)], limit=10_000)
        assert total_bytes(cache.conn) <= 10_000
    stored = sorted(cache.lookup([f"k{i}" for i in range(20)]))
    assert "k19" in stored and "k0" not in stored  # the newest stay
    # the usage rows account exactly for the data rows that remain
    assert len(cache) == len(stored) == cache.conn.execute("SELECT COUNT(*) FROM usage").fetchone()[0]
    cache.close()


def test_verdict_reads_mark_rows_as_used(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    with VerdictCache(path) as cache:
        for i, key in enumerate(("old", "new")):
            cache.put(key, Verdict("proved", "surjective", key, "f2", certificate="rank 2"))
            cache._conn.execute("UPDATE usage SET last_used = ? WHERE key = ?", (10.0 + i, key))
        assert cache.get("old") is not None  # now the most recently used
        size = total_bytes(cache._conn)
        prune(cache._conn, size // 2 + 1, target=1.0)
        assert cache.get("old") is not None and cache.get("new") is None


def test_a_row_without_usage_is_adopted_as_oldest(tmp_path: Path) -> None:
    cache = ModuleCache(str(tmp_path / "c.sqlite"))
    cache.store([_record("kept", 100), _record("orphan", 100)], limit=10 ** 9)
    cache.conn.execute("DELETE FROM usage WHERE key = 'orphan'")  # e.g. written by hand
    prune(cache.conn, 150, target=1.0)
    assert sorted(cache.lookup(["kept", "orphan"])) == ["kept"]
    cache.close()


def test_two_writers_under_a_small_bound_lose_nothing_they_keep(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT)!r})
        from llverify.ttgir.modcache import ModuleCache
        c = ModuleCache({str(path)!r})
        for i in range(150):
            key = sys.argv[1] + str(i)
            c.store([(key, json.dumps({{"k": key}}), "y" * 500)], limit=40_000)
            c.lookup([sys.argv[1] + str(i // 2)])
        c.close()
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", script, tag], env=env, stderr=subprocess.PIPE, text=True)
             for tag in ("a", "b")]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    conn, rebuilt = open_db(str(path))
    assert not rebuilt
    assert total_bytes(conn) <= 40_000
    data = conn.execute("SELECT COUNT(*) FROM modules").fetchone()[0]
    usage = conn.execute("SELECT COUNT(*) FROM usage").fetchone()[0]
    assert data == usage > 0  # every remaining row is accounted for, none half-deleted
    import hashlib

    rows = conn.execute("SELECT key, summary, summary_digest, findings, findings_digest FROM modules").fetchall()
    assert {"a149", "b149"} & {r[0] for r in rows}  # the last writer's newest row survives
    for _key, summary, sd, findings, fd in rows:  # no row damaged by the interleaved writes and deletes
        assert hashlib.sha256(summary.encode()).hexdigest() == sd and hashlib.sha256(findings.encode()).hexdigest() == fd
    conn.close()


def _gate(*args: str, env: dict | None = None):
    from llverify.ttgir.cli import ttgir

    return CliRunner().invoke(ttgir, list(args), env=env)


def _strip(text: str) -> dict:
    doc = json.loads(text)
    for r in doc["results"]:
        r.pop("seconds")
        r["details"].pop("seconds", None)
    doc["summary"].pop("seconds")
    return doc


def test_a_pruned_module_is_simply_checked_again(tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    cold = _gate("--cache", cache, *FILES)
    warm = _gate("--cache", cache, *FILES)
    assert f"{len(FILES)} from the cache" in warm.output
    from llverify.executor.cache_cli import cache as cache_command

    out = CliRunner().invoke(cache_command, ["--cache", cache, "--prune", "--max-size", "0"])
    assert out.exit_code == 0 and f"pruned {len(FILES)} rows" in out.output
    again = _gate("--cache", cache, *FILES)
    assert "from the cache" not in again.output
    assert again.output == cold.output and again.exit_code == cold.exit_code
    assert f"{len(FILES)} from the cache" in _gate("--cache", cache, *FILES).output  # stored again


def test_a_prune_during_a_run_only_costs_time(tmp_path: Path, monkeypatch) -> None:
    """Another run prunes the whole file between this run's lookup and its reading of the findings (a run
    that needs them: -v): those modules are checked again and the report is the same."""
    cache = str(tmp_path / "c.sqlite")
    cold = _gate("--cache", cache, "-v", *FILES)
    real_lookup = ModuleCache.lookup

    def lookup_then_pruned_elsewhere(self, keys, outputs=False):
        rows = real_lookup(self, keys, outputs)
        conn, _ = open_db(cache)
        prune(conn, 0, target=1.0)
        conn.close()
        return rows

    monkeypatch.setattr(ModuleCache, "lookup", lookup_then_pruned_elsewhere)
    during = _gate("--cache", cache, "-v", *FILES)
    assert "from the cache" not in during.output and during.output == cold.output
    assert during.exit_code == cold.exit_code
    # a JSON run reads its stored texts with the lookup itself: what it read is what it prints
    monkeypatch.setattr(ModuleCache, "lookup", real_lookup)
    json_cold = _strip(_gate("--cache", cache, "--format", "json", *FILES).output)
    monkeypatch.setattr(ModuleCache, "lookup", lookup_then_pruned_elsewhere)
    json_during = _strip(_gate("--cache", cache, "--format", "json", *FILES).output)
    json_cold["summary"].pop("cached_files")
    json_during["summary"].pop("cached_files")
    assert json_during == json_cold


def test_the_cache_command_reports_and_refuses_bad_sizes(tmp_path: Path) -> None:
    from llverify.executor.cache_cli import cache as cache_command

    path = str(tmp_path / "c.sqlite")
    assert "no cache file" in CliRunner().invoke(cache_command, ["--cache", path]).output
    _gate("--cache", path, *FILES)
    out = CliRunner().invoke(cache_command, ["--cache", path])
    assert out.exit_code == 0 and f"{len(FILES)} modules" in out.output
    bad = subprocess.run([sys.executable, "-m", "llverify.cli", "cache", "--cache", path, "--max-size", "12Q"],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().count("\n") == 0 and "error: --max-size" in bad.stderr
