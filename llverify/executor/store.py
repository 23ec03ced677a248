"""The cache file itself: one SQLite database shared by the per-obligation verdict cache
(:mod:`llverify.executor.cache`) and the gate's per-module cache (:mod:`llverify.ttgir.modcache`),
plus the identity of the code and environment that every key includes.

Standard library only, so that a warm ``llverify ttgir`` run, which answers from this file, loads
neither the prover nor numpy nor Z3.

File rules (the cache may be stale, truncated, shared between concurrent runs or edited by hand):

* tables ``meta`` (magic and schema version), ``verdicts``, ``modules`` and ``usage`` (each stored row's
  size and when it was last written or served, for the bound on the file's size:
  :mod:`llverify.executor.evict`); a file with any other
  tables, another magic, or that SQLite cannot read (foreign, truncated, a damaged page met by any
  read or write) is moved aside as ``PATH.corrupt-<time>`` and rebuilt, never trusted; a file of an
  older schema of this cache is emptied and recreated in place;
* WAL journal, ``synchronous=NORMAL`` (a crash may lose the last writes of a run, never corrupt the
  file: the cache is only a cache), a 30 s busy timeout, writes in short transactions with
  ``INSERT OR REPLACE`` (equal keys carry equal values), so concurrent runs sharing a file lose nothing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import sqlite3
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from llverify.installed import installed_distribution

if TYPE_CHECKING:  # pragma: no cover - pathlib (about 4 ms) is not loaded by a warm gate run
    from pathlib import Path

__all__ = ["write_transaction", "is_contention", "open_db", "SCHEMA_VERSION", "MAGIC", "default_cache_path", "default_cache_file", "code_fingerprint",
           "source_fingerprint", "dependency_identity"]

SCHEMA_VERSION = 3
MAGIC = "llverify-verdict-cache"
TABLES = {"meta", "verdicts", "modules", "usage"}


def default_cache_path() -> Path:
    """``$LLVERIFY_CACHE`` if set, else ``$XDG_CACHE_HOME/llverify/verdicts.sqlite``
    (``~/.cache/llverify/verdicts.sqlite``)."""
    from pathlib import Path  # noqa: PLC0415

    return Path(default_cache_file())


def default_cache_file() -> str:
    """:func:`default_cache_path` as a string, without loading pathlib (a warm gate run does not)."""
    env = os.environ.get("LLVERIFY_CACHE")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "llverify", "verdicts.sqlite")


# -- identity of the code and of what it runs on ------------------------------------------------

@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 (hex, 16 digits) of llverify's own source files (``*.py``, ``*.json``), path and content.

    A verdict depends on the code that reached it, not only on the version number: an editable
    checkout changes code without changing ``__version__``, and a stale verdict must never be served.
    Reading the package's ~2 MB takes about 5 ms, once per process.
    """
    return source_fingerprint(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def source_fingerprint(root: str | os.PathLike[str]) -> str:
    """SHA-256 (hex, 16 digits) over the relative paths and contents of the ``*.py`` and ``*.json`` files under ``root``."""
    digest = hashlib.sha256()
    base = os.fspath(root)
    files: list[tuple[tuple[str, ...], str]] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, base)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        files.extend((parts + (f,), os.path.join(dirpath, f)) for f in filenames if f.endswith((".py", ".json")))
    for parts, f in sorted(files):
        with open(f, "rb") as fh:
            data = fh.read()
        digest.update("/".join(parts).encode() + b"\0" + data + b"\0")
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def dependency_identity() -> dict[str, str]:
    """What the verdicts depend on besides llverify's code, found without importing any of it: the Python
    version, and for Z3 and numpy the installed distribution (``z3_solver-4.15.4.0``) and the size and
    modification time of Z3's native library (a rebuilt ``libz3`` under the same version is another solver)."""
    out = {"python": sys.version, "z3": "none", "libz3": "none", "numpy": "none"}
    for name, dist in (("z3", "z3_solver"), ("numpy", "numpy")):
        found = installed_distribution(name, dist)
        if found is None:
            continue
        pkg_dir = found.package_dir
        out[name] = f"{pkg_dir}|{','.join(found.dist_infos) or 'unknown'}"
        if name == "z3":
            libs = []
            lib_dir = os.path.join(pkg_dir, "lib")
            try:
                for entry in sorted(os.listdir(lib_dir)):
                    if entry.startswith("libz3"):
                        st = os.stat(os.path.join(lib_dir, entry))
                        libs.append(f"{entry}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                pass
            out["libz3"] = ",".join(libs) or "none"
    return out


# -- the file -----------------------------------------------------------------------------------

def _connect(path: str) -> sqlite3.Connection:
    if path != ":memory:":
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _state(conn: sqlite3.Connection) -> str:
    """``new`` (no tables), ``ok`` (this schema), ``old`` (this cache, an older schema) or ``foreign``."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return "new"
    if "meta" not in tables or not tables <= TABLES:
        return "foreign"
    meta = dict(conn.execute("SELECT key, value FROM meta"))
    if meta.get("magic") != MAGIC:
        return "foreign"
    return "ok" if meta.get("schema") == str(SCHEMA_VERSION) and tables == TABLES else "old"


#: SQLite's primary result codes for a lock another connection holds (SQLITE_BUSY, SQLITE_LOCKED) or a WAL lock
#: race it gave up retrying (SQLITE_PROTOCOL): the file is fine, only taken for now
_CONTENTION_CODES = (5, 6, 15)


def is_contention(exc: BaseException | None) -> bool:
    """Whether ``exc`` is SQLite's "busy" / "locked" (another writer holds the file), not a damaged file.

    A damaged file is moved aside and rebuilt; a busy one never is: moving it would pull the file from under
    the writer that holds it (two concurrent runs then damaged each other's view of it).

    >>> is_contention(sqlite3.OperationalError("database is locked")), is_contention(ValueError("x"))
    (True, False)
    """
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _CONTENTION_CODES
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` around the block; any exception rolls the transaction back (a failing
    ``ROLLBACK`` is ignored, the block's exception is the one raised).  The one way this cache writes."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        conn.execute("COMMIT")
    except BaseException:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass
        raise


def _create(conn: sqlite3.Connection) -> None:
    if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0:
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # pruning can then give pages back to the file system
    with write_transaction(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, status TEXT NOT NULL, "
                     "json TEXT NOT NULL, digest TEXT NOT NULL, created REAL NOT NULL)")
        conn.execute("CREATE TABLE IF NOT EXISTS modules (key TEXT PRIMARY KEY, summary TEXT NOT NULL, "
                     "summary_digest TEXT NOT NULL, findings TEXT NOT NULL, findings_digest TEXT NOT NULL, "
                     "created REAL NOT NULL, outputs BLOB, outputs_digest TEXT)")
        conn.execute("CREATE TABLE IF NOT EXISTS usage (tbl TEXT NOT NULL, key TEXT NOT NULL, bytes INTEGER NOT NULL, "
                     "last_used REAL NOT NULL, PRIMARY KEY (tbl, key))")
        conn.execute("CREATE INDEX IF NOT EXISTS usage_lru ON usage (last_used)")
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('magic', ?), ('schema', ?)", (MAGIC, str(SCHEMA_VERSION)))


def _reset(conn: sqlite3.Connection) -> None:
    """An older schema of this cache: drop its tables (their keys would never be asked again)."""
    with write_transaction(conn):
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')


def move_aside(path: str) -> None:
    """Keep a damaged or foreign file (and its WAL) for inspection as ``PATH.corrupt-<time>``."""
    if path == ":memory:":
        return
    stamp = time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}"
    for suffix in ("", "-wal", "-shm"):
        old = path + suffix
        if os.path.isfile(old):  # never a directory or a device someone pointed the cache at
            try:
                os.replace(old, f"{path}.corrupt-{stamp}{suffix}")
            except OSError:
                pass


#: how long :func:`open_db` keeps retrying a file another run is setting up or holds (SQLite's busy handler is not
#: called for every lock: two connections that open a new file at once can deadlock on its first journal-mode
#: change, and one of them is then told "locked" at once)
OPEN_RETRY_SECONDS = 30.0


def open_db(path: str) -> tuple[sqlite3.Connection, bool]:
    """A connection to a valid cache file at ``path`` and whether it had to be rebuilt (see the module docstring).

    Contention (another run creating or holding the file) is retried with a short growing back-off for up to
    :data:`OPEN_RETRY_SECONDS`; only then does this run go on without the file (an in-memory cache, the file
    untouched).  A damaged or foreign file is moved aside and rebuilt."""
    deadline = time.monotonic() + OPEN_RETRY_SECONDS
    pause = 0.005
    while True:
        conn = None
        try:
            conn = _connect(path)
            state = _state(conn)
            if state == "old":
                _reset(conn)
                state = "new"
            if state in ("new", "ok"):
                if state == "new":
                    _create(conn)
                return conn, False
            conn.close()
            break
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if not is_contention(exc):
                break
            if time.monotonic() >= deadline:  # held past the deadline: no cache for this run, file untouched
                conn = _connect(":memory:")
                _create(conn)
                return conn, False
            time.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 2, 0.25)
    return fresh_db(path), True


def fresh_db(path: str) -> sqlite3.Connection:
    """Move the file at ``path`` aside and start an empty cache there."""
    move_aside(path)
    conn = _connect(path)
    _create(conn)
    return conn
