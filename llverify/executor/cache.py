"""A content-addressed verdict cache in SQLite.

Key: the SHA-256 of an obligation's *canonical form* (see
:func:`obligation_key`: the claim, its canonical arguments, e.g. layout
bases, the method and budget) together with llverify's version and the Z3
version, so a new prover or a new solver never reads an old answer.

Value: the verdict as JSON plus a SHA-256 of that JSON.  Trust rules (the
cache may be stale, truncated, shared between concurrent runs or edited by
hand; it is never believed blindly):

* a file that is not an SQLite database of this schema (a foreign file, a
  truncated one, a damaged page met by any read or write) is moved aside and rebuilt;
* a row whose stored digest does not match its JSON is ignored and deleted;
* only ``proved`` verdicts are served from the cache as they are (their
  method and certificate were recorded when they were proved); a cached
  ``refuted`` verdict is returned as a *hint* (:attr:`CacheHit.replay_needed`)
  and the caller must re-decide it, so every refutation shown is replayed in
  this run; ``unknown`` and ``error`` verdicts are not stored at all (a larger
  budget or a fixed bug must get another chance).

Concurrency: WAL journal mode and a busy timeout, every write one short
transaction with ``INSERT OR REPLACE`` (two runs writing the same key write
the same value), so concurrent runs sharing one file lose nothing.

>>> import tempfile, os
>>> from llverify.prove.verdict import Verdict
>>> path = os.path.join(tempfile.mkdtemp(), "v.sqlite")
>>> cache = VerdictCache(path)
>>> key = obligation_key({"property": "surjective", "bases": [[1], [2]]})
>>> cache.put(key, Verdict("proved", "surjective", "L", "f2", certificate="rank 2"))
>>> cache.get(key).verdict.certificate
'rank 2'
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from dataclasses import dataclass
from typing import Any

from llverify import __version__
from llverify.executor.evict import max_bytes, prune, read_and_touch, record_usage, total_bytes
from llverify.executor.store import (SCHEMA_VERSION, code_fingerprint, default_cache_path, fresh_db, is_contention,
                                     open_db, source_fingerprint, write_transaction)
from llverify.prove.solver_budget import z3_version
from llverify.prove.verdict import Counterexample, Verdict, to_jsonable

__all__ = ["VerdictCache", "CacheHit", "obligation_key", "default_cache_path", "verdict_from_json",
           "SCHEMA_VERSION", "code_fingerprint", "source_fingerprint"]


def _canonical(value: Any) -> Any:
    value = to_jsonable(value)
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def obligation_key(obligation: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``obligation`` + llverify's version and code, and the solver's version.

    Postcondition: equal obligations (dict key order aside) give equal keys;
    any change of version, code, claim, argument, method or budget gives another key.
    """
    payload = json.dumps({"llverify": __version__, "code": code_fingerprint(), "z3": z3_version(),
                          "obligation": _canonical(obligation)},
                         sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def verdict_from_json(doc: dict[str, Any]) -> Verdict:
    """Inverse of :meth:`Verdict.to_json` (details and certificate as JSON values)."""
    cx = doc.get("counterexample")
    return Verdict(status=doc["status"], property=doc["property"], subject=doc["subject"], method=doc["method"],
                   seconds=float(doc.get("seconds", 0.0)), message=doc.get("message", ""),
                   counterexample=None if cx is None else Counterexample(cx["inputs"], cx.get("sides", {}),
                                                                         cx.get("note", "")),
                   certificate=doc.get("certificate"), details=doc.get("details") or {})


#: a cache that only grows checks its bound after this many writes (and when closed)
PRUNE_CHECK_EVERY = 256


@dataclass(frozen=True)
class CacheHit:
    """A cached verdict.  ``replay_needed``: it is a refutation the caller must re-decide."""

    verdict: Verdict
    replay_needed: bool


class VerdictCache:
    """See the module docstring.  ``path=":memory:"`` gives a private in-memory cache."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        self.rebuilt = False
        self.hits = 0
        self.misses = 0
        self._puts = 0
        self._conn = self._open()

    # -- opening, validating, rebuilding (llverify.executor.store) ------------------------------
    def _open(self) -> sqlite3.Connection:
        conn, rebuilt = open_db(self.path)
        self.rebuilt = self.rebuilt or rebuilt
        return conn

    def _recover(self) -> None:
        """A read or write hit a damaged file: set it aside and continue with a fresh one."""
        if is_contention(sys.exc_info()[1]):
            return  # another run holds the file: this read or write is skipped, the file is not damaged
        try:
            self._conn.close()
        except sqlite3.Error:
            pass
        self.rebuilt = True
        self._conn = fresh_db(self.path)

    # -- reading and writing --------------------------------------------------------------------
    def get(self, key: str) -> CacheHit | None:
        """The cached verdict for ``key`` (digest-checked), or None."""
        try:
            rows = read_and_touch(self._conn, "verdicts", "status, json, digest", [key])
        except sqlite3.DatabaseError:
            self._recover()
            rows = []
        if not rows:
            self.misses += 1
            return None
        _, status, text, digest = rows[0]
        try:
            if hashlib.sha256(text.encode()).hexdigest() != digest:
                raise ValueError("digest mismatch")
            verdict = verdict_from_json(json.loads(text))
            if verdict.status != status or status not in ("proved", "refuted"):
                raise ValueError("status mismatch")
        except (ValueError, KeyError, TypeError):
            self._conn.execute("DELETE FROM verdicts WHERE key = ?", (key,))
            self._conn.execute("DELETE FROM usage WHERE tbl = 'verdicts' AND key = ?", (key,))
            self.misses += 1
            return None
        self.hits += 1
        return CacheHit(verdict, replay_needed=status == "refuted")

    def put(self, key: str, verdict: Verdict) -> None:
        """Store a ``proved`` or ``refuted`` verdict (others are not cached)."""
        if verdict.status not in ("proved", "refuted"):
            return
        text = json.dumps(verdict.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        digest = hashlib.sha256(text.encode()).hexdigest()
        now = time.time()
        try:
            with write_transaction(self._conn):
                self._conn.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?)",
                                   (key, verdict.status, text, digest, now))
                record_usage(self._conn, "verdicts", [(key, len(text))], now)
            self._puts += 1
            if self._puts % PRUNE_CHECK_EVERY == 0:
                self.keep_bound()
        except sqlite3.DatabaseError:
            self._recover()  # a cache that cannot be written only costs time

    def keep_bound(self, limit: int | None = None) -> None:
        """Evict the least recently used rows if the file holds more than ``limit`` bytes
        (default :func:`llverify.executor.evict.max_bytes`; see :mod:`llverify.executor.evict`)."""
        bound = max_bytes() if limit is None else limit
        try:
            if total_bytes(self._conn) > bound:
                prune(self._conn, bound)
        except sqlite3.DatabaseError:
            self._recover()

    def __len__(self) -> int:
        try:
            return int(self._conn.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0])
        except sqlite3.DatabaseError:
            self._recover()
            return 0

    def close(self) -> None:
        if self._puts % PRUNE_CHECK_EVERY:
            self.keep_bound()
        self._conn.close()

    def __enter__(self) -> "VerdictCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
