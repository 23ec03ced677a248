"""The bound on the cache file: each stored row's size and last use, and least-recently-used eviction.

Every row of ``verdicts`` and ``modules`` has a row in ``usage`` (table, key, bytes stored, last used).
Writing a row records its size and time in the same transaction; serving a row sets its time in the same
transaction as the read (:func:`read_and_touch`), so a concurrent prune either ran before the read (the
row is a miss, and the unit is decided again) or sees the row as just used.

The bound: ``$LLVERIFY_CACHE_MAX_SIZE`` (``512M``, ``2G``, ``100000K`` or bytes) or
:data:`DEFAULT_MAX_BYTES` (256 MiB; the whole TTGIR corpus of the tests takes about 9 MB).  A run that
wrote rows and finds the stored total above the bound deletes the least recently used rows until the
total is at most :data:`PRUNE_TO` of the bound (so that the next run does not prune again at once);
``llverify cache --prune [--max-size SIZE]`` does the same on demand.  Pruning is one ``BEGIN IMMEDIATE``
transaction (concurrent runs wait for it, WAL readers keep their snapshot); a pruned row costs only
time: it is decided again.

>>> parse_size("512M"), parse_size("2g"), parse_size("1000")
(536870912, 2147483648, 1000)
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

from llverify.executor.store import write_transaction

__all__ = ["DEFAULT_MAX_BYTES", "PRUNE_TO", "parse_size", "max_bytes", "record_usage", "read_and_touch",
           "total_bytes", "prune", "PruneResult", "SizeError", "DATA_TABLES"]

DEFAULT_MAX_BYTES = 256 * 1024 * 1024
PRUNE_TO = 0.8
#: the tables whose rows are counted and evicted, with their size expression
DATA_TABLES = {"verdicts": "LENGTH(json)", "modules": "LENGTH(summary) + LENGTH(findings) + COALESCE(LENGTH(outputs), 0)"}
_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "M": 1024 ** 2, "MB": 1024 ** 2, "G": 1024 ** 3, "GB": 1024 ** 3}


class SizeError(ValueError):
    """A size that is not ``N``, ``NK``, ``NM`` or ``NG`` (N a non-negative integer)."""


def parse_size(text: str) -> int:
    """Bytes in ``text``: an integer with an optional unit K, M, G (powers of 1024; case and a trailing B ignored)."""
    raw = text.strip().upper()
    digits = raw.rstrip("KMGB")
    unit = raw[len(digits):]
    if not digits.isdigit() or unit not in _UNITS:
        raise SizeError(f"not a size: {text!r} (expected e.g. 256M, 2G or a number of bytes)")
    return int(digits) * _UNITS[unit]


def max_bytes() -> int:
    """The bound in force: ``$LLVERIFY_CACHE_MAX_SIZE`` or :data:`DEFAULT_MAX_BYTES` (an unreadable value
    is ignored: the cache is only a cache)."""
    env = os.environ.get("LLVERIFY_CACHE_MAX_SIZE")
    if env:
        try:
            return parse_size(env)
        except SizeError:
            pass
    return DEFAULT_MAX_BYTES


def record_usage(conn: sqlite3.Connection, table: str, rows: Iterable[tuple[str, int]], now: float) -> None:
    """Inside the caller's write transaction: ``(key, bytes)`` of rows just written to ``table``."""
    conn.executemany("INSERT OR REPLACE INTO usage VALUES (?, ?, ?, ?)", [(table, k, n, now) for k, n in rows])


def read_and_touch(conn: sqlite3.Connection, table: str, columns: str, keys: Sequence[str],
                   now: float | None = None) -> list[tuple]:
    """``SELECT key, columns FROM table WHERE key IN keys``, and the found rows' last use set to now, in one
    transaction.  Where the file cannot be written (read-only), the rows are read without the touch."""
    now = time.time() if now is None else now
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return _select(conn, table, columns, keys)
    try:
        rows = _select(conn, table, columns, keys)
        conn.executemany("UPDATE usage SET last_used = ? WHERE tbl = ? AND key = ?", [(now, table, r[0]) for r in rows])
        conn.execute("COMMIT")
    except BaseException:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        raise
    return rows


def _select(conn: sqlite3.Connection, table: str, columns: str, keys: Sequence[str]) -> list[tuple]:
    out: list[tuple] = []
    for i in range(0, len(keys), 500):
        chunk = list(keys[i:i + 500])
        marks = ",".join("?" * len(chunk))
        out.extend(conn.execute(f"SELECT key, {columns} FROM {table} WHERE key IN ({marks})", chunk))
    return out


def total_bytes(conn: sqlite3.Connection) -> int:
    """What the stored rows hold (the sizes recorded when they were written)."""
    return int(conn.execute("SELECT COALESCE(SUM(bytes), 0) FROM usage").fetchone()[0])


@dataclass(frozen=True)
class PruneResult:
    """What a prune did: rows deleted and the stored bytes before and after."""

    deleted: int
    bytes_before: int
    bytes_after: int


def prune(conn: sqlite3.Connection, limit: int, target: float = PRUNE_TO, force: bool = False) -> PruneResult:
    """If more than ``limit`` bytes are stored (or ``force``), delete the least recently used rows until at most
    ``target * limit`` remain (``force`` with ``limit`` 0 empties the cache).  One write transaction.

    Rows of a data table with no usage row (written by no version of this schema) go first; usage rows
    whose data row is gone are dropped."""
    with write_transaction(conn):
        for table, size in DATA_TABLES.items():  # adopt any row without a usage entry, as least recently used
            conn.execute(f"INSERT OR IGNORE INTO usage SELECT '{table}', key, {size}, 0 FROM {table} "
                         f"WHERE key NOT IN (SELECT key FROM usage WHERE tbl = '{table}')")
            conn.execute(f"DELETE FROM usage WHERE tbl = '{table}' AND key NOT IN (SELECT key FROM {table})")
        before = total_bytes(conn)
        if before <= limit and not force:
            return PruneResult(0, before, before)
        keep = int(limit * target) if before > limit else limit
        doomed: list[tuple[str, str]] = []
        remaining = before
        for tbl, key, n in conn.execute("SELECT tbl, key, bytes FROM usage ORDER BY last_used, tbl, key"):
            if remaining <= keep:
                break
            doomed.append((tbl, key))
            remaining -= int(n)
        for table in DATA_TABLES:
            conn.executemany(f"DELETE FROM {table} WHERE key = ?", [(k,) for t, k in doomed if t == table])
        conn.executemany("DELETE FROM usage WHERE tbl = ? AND key = ?", doomed)
    try:
        conn.execute("PRAGMA incremental_vacuum").fetchall()  # free pages back to the file system (files made by schema 3)
    except sqlite3.Error:
        pass
    return PruneResult(len(doomed), before, remaining)
