"""Another run holding the cache file is contention, not damage: the file is never moved aside for it.

Two concurrent gate runs sharing one cache used to damage each other: a "database is locked" from one is a
``sqlite3.DatabaseError`` too, and was handled as a damaged file, moved aside under the other run's open
connection, which then read a malformed image (CI, `test_two_writers_under_a_small_bound_lose_nothing_they_keep`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from llverify.executor.store import is_contention
from llverify.ttgir.modcache import ModuleCache


def _locked_error(path: Path) -> tuple[sqlite3.Connection, sqlite3.OperationalError]:
    holder = sqlite3.connect(str(path), timeout=0, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    probe = sqlite3.connect(str(path), timeout=0, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        return holder, exc
    raise AssertionError("a second writer got the lock")


def test_a_locked_file_is_contention_and_is_not_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = ModuleCache(str(path))
    cache.store([("k", '{"k": 1}', "f")])
    holder, exc = _locked_error(path)
    assert is_contention(exc)
    conn = cache.conn
    try:
        raise exc
    except sqlite3.DatabaseError:
        cache._recover()  # what every read and write does on a database error
    assert cache.conn is conn and not cache.rebuilt
    assert not list(tmp_path.glob("*.corrupt-*"))
    holder.execute("ROLLBACK")
    assert "k" in cache.lookup(["k"])  # the row written before the contention is still there


def test_a_damaged_file_is_still_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cache = ModuleCache(str(path))
    exc = sqlite3.DatabaseError("database disk image is malformed")
    assert not is_contention(exc)
    try:
        raise exc
    except sqlite3.DatabaseError:
        cache._recover()
    assert cache.rebuilt and list(tmp_path.glob("*.corrupt-*"))
