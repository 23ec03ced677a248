"""The executors and the verdict cache: order, failures, trust rules, concurrency."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from llverify.executor.cache import VerdictCache, obligation_key, verdict_from_json
from llverify.executor.pool import UnitExecutor, WorkerFailure
from llverify.prove.verdict import Counterexample, Verdict


def _square(x: int) -> int:
    return x * x


def _die_on_seven(x: int) -> int:
    if x == 7:
        os._exit(3)  # a worker killed mid-batch
    return x


def test_process_pool_preserves_order_and_equals_inline() -> None:
    units = list(range(100, 0, -1))
    with UnitExecutor(jobs=1) as one, UnitExecutor(jobs=2, min_parallel=1) as two:
        assert two.map(_square, units) == one.map(_square, units) == [u * u for u in units]


def test_weighted_batches_keep_the_order_and_send_heavy_slices_first() -> None:
    from llverify.executor.pool import _batches

    units = list(range(50))
    weights = [1] * 50
    weights[40] = 1000
    batches = _batches(50, 2, None, weights)
    assert 40 in batches[0] and sorted(i for b in batches for i in b) == units  # every unit once
    assert all(list(b) == list(range(b[0], b[-1] + 1)) for b in batches)  # contiguous slices
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        assert ex.map(_square, units, weights=weights) == [u * u for u in units]


def test_balanced_batches_isolate_heavy_units_and_cut_the_tail_finer() -> None:
    from llverify.executor.pool import _batches

    weights = [1.0] * 200
    weights[150] = 60.0  # heavier than a coarse batch's share: a batch of its own, sent first
    batches = _batches(200, 2, None, weights)
    assert list(batches[0]) == [150]
    assert sorted(i for b in batches for i in b) == list(range(200))
    assert all(list(b) == list(range(b[0], b[-1] + 1)) for b in batches)
    sizes = [sum(weights[i] for i in b) for b in batches[1:]]
    assert max(sizes[-4:]) * 3 < max(sizes)  # the last batches are small: workers finish together


def _wait_for_flag(unit: tuple[str, int, float]) -> str:
    """Unit 0 returns at once; every other unit waits until the flag file exists (or the shared deadline, a
    ``time.time()``, passes)."""
    import time

    flag, k, deadline = unit
    if k == 0:
        return "first"
    while not os.path.exists(flag):
        if time.time() > deadline:
            return "timed out"
        time.sleep(0.01)
    return f"after {k}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_imap_yields_each_value_before_the_later_units_finish(tmp_path, jobs: int) -> None:
    # the later units finish only once the consumer has seen the first value: a map that returned everything
    # at the end (or out of order) would see them time out
    import time

    flag = str(tmp_path / "flag")
    deadline = time.time() + 15
    units = [(flag, k, deadline) for k in range(40)]
    with UnitExecutor(jobs=jobs, min_parallel=1, batch_size=1) as ex:  # unit 0 in a batch of its own
        it = ex.imap(_wait_for_flag, units)
        assert next(it) == "first"
        open(flag, "w").close()
        assert list(it) == [f"after {k}" for k in range(1, 40)]


def test_imap_equals_map_whatever_the_batch_order() -> None:
    units = list(range(60))
    weights = [1.0] * 60
    weights[50] = weights[3] = 100.0  # batches of their own, sent first
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        assert list(ex.imap(_square, units, weights)) == ex.map(_square, units, weights=weights) \
            == [u * u for u in units]
    with UnitExecutor(jobs=2, min_parallel=1, batch_size=5) as ex:
        out = list(ex.imap(_die_on_seven, list(range(20))))
    assert isinstance(out[7], WorkerFailure)
    assert all(v == i for i, v in enumerate(out) if not isinstance(v, WorkerFailure))


def _blas_threads(_: int) -> str | None:
    return os.environ.get("OPENBLAS_NUM_THREADS")


def test_pool_workers_load_native_libraries_single_threaded(monkeypatch) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        assert set(ex.map(_blas_threads, range(8))) == {"1"}
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # the user's choice stands
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        assert set(ex.map(_blas_threads, range(8))) == {"3"}


_PREPARED: list[int] = []


def _prepare() -> None:
    _PREPARED.append(os.getpid())


def _prepared_where(_: int) -> list[int]:
    return list(_PREPARED)


def test_prepare_runs_once_in_the_parent_and_the_workers_inherit_it() -> None:
    import gc

    _PREPARED.clear()
    with UnitExecutor(jobs=2, min_parallel=1, prepare=_prepare) as ex:
        out = ex.map(_prepared_where, list(range(12)))
        ex.map(_prepared_where, list(range(12)))
    assert _PREPARED == [os.getpid()] and all(o == [os.getpid()] for o in out)
    assert gc.get_freeze_count() == 0  # the parent's objects were frozen only across the fork
    _PREPARED.clear()
    with UnitExecutor(jobs=2, prepare=_prepare) as ex:  # inline (few units): nothing to prepare for
        ex.map(_prepared_where, [1, 2])
    assert _PREPARED == []


def test_pool_starts_once_per_executor() -> None:
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        ex.map(_square, list(range(20)))
        pool = ex._pool
        ex.map(_square, list(range(20)))
        assert ex._pool is pool and pool is not None


def test_small_runs_stay_inline() -> None:
    with UnitExecutor(jobs=2) as ex:
        assert ex.map(_square, [1, 2, 3]) == [1, 4, 9]
        assert ex._pool is None  # below MIN_PARALLEL_UNITS no worker was started


def test_a_dead_worker_fails_only_its_batch() -> None:
    with UnitExecutor(jobs=2, min_parallel=1, batch_size=5) as ex:
        out = ex.map(_die_on_seven, list(range(20)))
    failed = [i for i, v in enumerate(out) if isinstance(v, WorkerFailure)]
    assert 7 in failed
    assert all(out[i] == i for i in range(20) if i not in failed)


def test_unknown_executor_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown executor"):
        UnitExecutor(jobs=2, executor="threads")


# -- cache ---------------------------------------------------------------------------------------

def _proved() -> Verdict:
    return Verdict("proved", "surjective", "blocked[64x64]", "f2", seconds=0.01,
                   certificate={"right_inverse": [[1, 0], [0, 1]]}, details={"rank": 12})


def _refuted() -> Verdict:
    return Verdict("refuted", "injective", "L", "f2", counterexample=Counterexample(
        {"register": 1, "lane": 0}, {"L(x)": {"dim0": 0}, "L(0)": {"dim0": 0}}))


def test_key_is_canonical_and_sensitive() -> None:
    a = obligation_key({"property": "equal", "bases": {"lane": [[1]], "register": [[2]]}, "method": "f2"})
    b = obligation_key({"method": "f2", "bases": {"register": [[2]], "lane": [[1]]}, "property": "equal"})
    c = obligation_key({"property": "equal", "bases": {"lane": [[1]], "register": [[4]]}, "method": "f2"})
    assert a == b and a != c


def test_key_changes_with_the_code_not_only_the_version(monkeypatch) -> None:
    import llverify.executor.cache as cache_module

    obligation = {"property": "equal", "bases": {"lane": [[1]]}, "method": "f2"}
    before = obligation_key(obligation)
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "edited-checkout")
    assert obligation_key(obligation) != before


def test_source_fingerprint_follows_code_edits_only(tmp_path) -> None:
    from llverify.executor.cache import source_fingerprint

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "rule.py").write_text("LIMIT = 1\n")
    first = source_fingerprint(tmp_path)
    (tmp_path / "notes.txt").write_text("not code")
    assert source_fingerprint(tmp_path) == first
    (tmp_path / "pkg" / "rule.py").write_text("LIMIT = 2\n")
    assert source_fingerprint(tmp_path) != first


def test_round_trip_and_trust_rules(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    with VerdictCache(path) as cache:
        cache.put("p", _proved())
        cache.put("r", _refuted())
        cache.put("u", Verdict("unknown", "equal", "A", "smt", message="rlimit"))
    with VerdictCache(path) as cache:
        hit = cache.get("p")
        assert hit and not hit.replay_needed
        assert hit.verdict.to_json() == {**_proved().to_json(), "seconds": 0.01}
        r = cache.get("r")
        assert r and r.replay_needed and r.verdict.counterexample.inputs == {"register": 1, "lane": 0}
        assert cache.get("u") is None  # unknowns are never cached


def test_tampered_row_is_ignored(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    with VerdictCache(path) as cache:
        cache.put("k", _refuted())
    conn = sqlite3.connect(path)
    conn.execute("UPDATE verdicts SET json = replace(json, 'refuted', 'proved'), status = 'proved'")
    conn.commit()
    conn.close()
    with VerdictCache(path) as cache:
        assert cache.get("k") is None  # digest no longer matches: not trusted, deleted
        assert len(cache) == 0


@pytest.mark.parametrize("content", [b"", b"not a database at all\n" * 50, b"SQLite format 3\x00" + b"\xff" * 4000])
def test_foreign_or_truncated_file_is_rebuilt(tmp_path, content) -> None:
    path = tmp_path / "c.sqlite"
    with VerdictCache(path) as cache:
        cache.put("k", _proved())
    if content:
        path.write_bytes(content)
    else:  # truncated to half its size
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        for extra in ("-wal", "-shm"):
            if os.path.exists(str(path) + extra):
                os.remove(str(path) + extra)
    with VerdictCache(path) as cache:
        assert cache.get("k") is None
        cache.put("k2", _proved())
        assert cache.get("k2") is not None


def test_foreign_sqlite_schema_is_rebuilt(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE verdicts (key TEXT, json TEXT)")
    conn.execute("INSERT INTO verdicts VALUES ('k', '{}')")
    conn.commit()
    conn.close()
    with VerdictCache(path) as cache:
        assert cache.rebuilt and cache.get("k") is None


def test_concurrent_writers_lose_nothing(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    VerdictCache(path).close()
    script = textwrap.dedent(f"""
        import sys
        from llverify.executor.cache import VerdictCache
        from llverify.prove.verdict import Verdict
        tag = sys.argv[1]
        with VerdictCache({str(path)!r}) as c:
            for i in range(300):
                c.put(f"{{tag}}-{{i}}", Verdict("proved", "surjective", f"L{{i}}", "f2"))
                c.put(f"shared-{{i}}", Verdict("proved", "surjective", f"S{{i}}", "f2"))
    """)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    procs = [subprocess.Popen([sys.executable, "-c", script, tag], env=env) for tag in ("a", "b")]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    with VerdictCache(path) as cache:
        assert len(cache) == 900
        assert all(cache.get(f"{t}-{i}") for t in "ab" for i in range(300))


def test_verdict_from_json_inverts_to_json() -> None:
    for v in (_proved(), _refuted()):
        assert verdict_from_json(v.to_json()).to_json() == v.to_json()


def _ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.skipif(not _ray_available(), reason="the optional 'cluster' extra (ray) is not installed")
def test_ray_two_local_workers_equal_inline() -> None:
    units = list(range(-20, 20))  # a function the workers can import (tests/ is not on their path)
    with UnitExecutor(jobs=2, executor="ray") as ex:
        assert ex.map(abs, units) == [abs(u) for u in units]


@pytest.mark.skipif(not _ray_available(), reason="the optional 'cluster' extra (ray) is not installed")
def test_gate_on_ray_equals_one_process() -> None:
    """`llverify ttgir --executor ray -j 2` gives exactly the JSON of `-j 1` (times aside), in the same order."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    corpus = Path(__file__).resolve().parent / "data" / "ttgir"
    files = [str(p) for p in sorted(corpus.glob("*cuda_90-w4.ttgir"))][:12]

    def run(*opts: str) -> dict:
        out = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", "--format", "json",
                              *opts, *files], capture_output=True, text=True, timeout=600)
        doc = json.loads(out.stdout)
        for r in doc["results"]:
            r.pop("seconds")
            r["details"].pop("seconds", None)
        doc["summary"].pop("seconds")
        return doc

    one = run("-j", "1")
    assert one["results"] and one == run("-j", "2", "--executor", "ray")


@pytest.mark.slow
@pytest.mark.skipif(not _ray_available(), reason="the optional 'cluster' extra (ray) is not installed")
def test_whole_gate_corpus_on_ray_equals_one_process() -> None:
    """The whole gate corpus (every module under tests/data/ttgir) through `--executor ray -j 2` prints
    byte for byte what `-j 1` prints, with the same exit code (pytest -m slow; about 30 s)."""
    from pathlib import Path

    corpus = str(Path(__file__).resolve().parent / "data" / "ttgir")

    def run(*opts: str) -> tuple[int, str]:
        out = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", *opts, corpus],
                             capture_output=True, text=True, timeout=900)
        return out.returncode, out.stdout

    one = run("-j", "1")
    assert one[0] == 3 and " 0 refuted" in one[1]  # unknowns (targets without a bank model), nothing refuted
    assert run("-j", "2", "--executor", "ray") == one
