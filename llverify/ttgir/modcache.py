"""The gate's module cache: an unchanged module's verdicts come back without reading it as TTGIR.

A *record* is everything the gate printed or decided for one module file: its number of modules,
its verdict counts, the text report's lines for it (the diagnostics of its obligations that are not
proved, its conversion table rows) and every finding in full (for the other formats, a policy, a
baseline).  It is stored in the ``modules`` table of the verdict cache file
(:mod:`llverify.executor.store`) under a key that is the SHA-256 of:

* the SHA-256 of the file's bytes (exactly the bytes that were parsed: the worker that checked the
  module hashes what it read, so a file edited during the run is never stored under the old text);
* the *context*: llverify's version and code fingerprint (every ``*.py`` and ``*.json`` of the
  package, so an edited checkout never reuses a stale record), the Python version, the installed Z3
  (distribution and native library size and time) and numpy, the options verdicts depend on
  (``LLVERIFY_PARANOID``, ``--lowered``, ``--target``: a module checked under another default target is
  another record) and this record format's version (the RUN lines that may name a target are part of the
  file's bytes);
* the file's path, only where the record mentions it anywhere but in the obligations' own location
  (then it is not valid at another path), and always with ``--lowered`` (whose findings name the
  ``.llir`` beside the module), together with the SHA-256 of the ``.llir`` and ``.json`` beside it.

What is stored, and so what can be served: only modules whose every obligation is ``proved`` or
``unknown``, read without error.  A module with a refutation or an error is checked again on every run
(every counterexample printed was replayed in that run).  An ``unknown`` is served: it is not a proof,
and the key covers everything it depends on (the gate gives the solver a deterministic resource
budget, never a wall-clock timeout; an unknown whose message speaks of a timeout, a cancellation or
memory is not stored).

Locations: a record is stored with the module's path replaced by a NUL character (which no module
text contains: the reader refuses NUL bytes) and served with the current path put back, so the same
text at another path reports its own path; the worker checks that substituting its path into the
stored lines gives exactly the lines it printed, else the record is not stored.

Trust: each record's two columns carry SHA-256 digests, checked when the column is read (a damaged or
hand-edited row is deleted and the module checked again); the file's own rules (foreign, truncated,
corrupt: moved aside and rebuilt; WAL; concurrent writers) are :mod:`llverify.executor.store`'s.  The
digests detect corruption, not a malicious writer: the cache file is trusted as much as the checkout.

Standard library only: a warm run loads neither the reader nor the prover.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
import zlib
from typing import Any, Iterable, Sequence

from llverify import __version__
from llverify.executor.evict import max_bytes, prune, read_and_touch, record_usage, total_bytes
from llverify.executor.store import (code_fingerprint, dependency_identity, fresh_db, is_contention, open_db,
                                     write_transaction)

__all__ = ["Outcome", "ModuleCache", "key_context", "module_key", "RECORD_VERSION", "PLACEHOLDER", "STATUSES",
           "side_digests", "finding_from_doc", "encode_fragments", "json_path", "JSON_PLACEHOLDER"]

RECORD_VERSION = 3
PLACEHOLDER = "\x00"
STATUSES = ("proved", "refuted", "unknown", "error")
#: words in an unknown's message that mean it depended on time or memory, not on the inputs alone (Z3's
#: reasons: "timeout", "canceled", "memout", "max. memory exceeded"; Python's MemoryError: "out of memory").  Not
#: the bare word "memory": "shared memory" and "#ttng.tensor_memory" name what a claim is about, and matching
#: them kept every module with such an unknown out of the cache
VOLATILE = ("timeout", "time out", "timed out", "canceled", "cancelled", "memout", "out of memory",
            "memory exceeded", "memory limit", "memoryerror", "interrupted")


class Outcome:
    """What the gate produced for one input path (fresh or served).

    ``diag``/``conv``: the text report's lines for it (path in place); ``per_op``: ``{op: {status: count}}``;
    ``rules``: ``{rule name: claim}`` of its findings; ``fragments``: its results in the JSON report
    (:func:`llverify.ttgir.report.json_fragment`) for a ``--format json`` run; ``sarif``: its
    ``(status, SARIF result)`` pairs for a ``--format sarif`` run; ``findings``: the
    :class:`~llverify.ttgir.findings.Finding` objects when the run needs them (junit, markdown, a policy,
    a baseline, ``-v``, ``--report``), else None; ``record``: ``(key, summary, findings, outputs)`` to store,
    if storable (``outputs``: the JSON fragments, or None when this run did not render them).
    """

    __slots__ = ("path", "modules", "errors", "n", "counts", "diag", "conv", "findings", "record", "cached",
                 "per_op", "rules", "fragments", "sarif")

    def __init__(self, path: str, modules: int, errors: Sequence[str], n: int, counts: dict[str, int],
                 diag: list[str], conv: list[str], findings: Sequence[Any] | None = None,
                 record: tuple[str, str, str, str | None] | None = None, cached: bool = False,
                 per_op: dict[str, dict[str, int]] | None = None, rules: dict[str, str] | None = None,
                 fragments: list[str] | None = None, sarif: list[tuple[str, dict[str, Any]]] | None = None) -> None:
        self.path, self.modules, self.errors, self.n, self.counts = path, modules, tuple(errors), n, counts
        self.diag, self.conv, self.findings, self.record, self.cached = diag, conv, findings, record, cached
        self.per_op, self.rules = per_op or {}, rules or {}
        self.fragments, self.sarif = fragments, sarif

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, s) for s in self.__slots__)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for s, v in zip(self.__slots__, state):
            setattr(self, s, v)


def key_context(lowered: bool, target: str | None = None) -> str:
    """The part of every key that is not the module (see the module docstring), as canonical JSON; ``target``:
    the ``--target`` option (the target of modules without ``ttg.target``), None when not given."""
    return json.dumps({"record": RECORD_VERSION, "llverify": __version__, "code": code_fingerprint(),
                       "deps": dependency_identity(),
                       "options": {"paranoid": os.environ.get("LLVERIFY_PARANOID") == "1", "lowered": bool(lowered),
                                   "target": target or None}},
                      sort_keys=True, separators=(",", ":"))


def module_key(context: str, digest: str, extra: dict[str, Any] | None = None) -> str:
    """The key of a module whose bytes hash to ``digest``; ``extra``: the path and side files, when bound to them."""
    payload = json.dumps({"context": context, "module": digest, "extra": extra}, sort_keys=True,
                         separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def side_digests(path: str) -> dict[str, Any]:
    """For ``--lowered``: the path and the SHA-256 of the ``.llir`` and ``.json`` beside it (None where absent
    or not a regular file); :func:`llverify.ttgir.units.lowered_findings` computes the same from what it reads."""
    from llverify.ttgir.loader import read_bytes
    from llverify.errors import TtgirError

    stem = os.path.splitext(path)[0]
    out: dict[str, Any] = {"path": path, "ttgir_suffix": path.endswith(".ttgir")}
    for ext in ("llir", "json"):
        try:
            out[ext] = hashlib.sha256(read_bytes(f"{stem}.{ext}")).hexdigest()
        except TtgirError:
            out[ext] = None
    return out


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def volatile(message: str) -> bool:
    low = message.lower()
    return any(w in low for w in VOLATILE)


def encode_record(modules: int, counts: dict[str, int], n: int, diag: list[str], conv: list[str],
                  findings_docs: list[dict[str, Any]], per_op: dict[str, dict[str, int]] | None = None,
                  rules: dict[str, str] | None = None, sarif: list[tuple[str, dict[str, Any]]] | None = None
                  ) -> tuple[str, str]:
    """The two stored columns: the summary (counts, text lines, per-op counts, rule claims, SARIF results)
    and the findings, as JSON."""
    summary = json.dumps({"v": RECORD_VERSION, "modules": modules, "n": n, "counts": counts, "diag": diag,
                          "conv": conv, "per_op": per_op or {}, "rules": rules or {},
                          # a JSON text of its own: its results keep their key order (the summary's are sorted)
                          "sarif": json.dumps([list(x) for x in sarif or []], separators=(",", ":"),
                                              ensure_ascii=True)},
                         sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    # keys in their own order: a served finding's details (a cost table) print in the order a fresh one does
    findings = json.dumps(findings_docs, separators=(",", ":"), ensure_ascii=True)
    return summary, findings


def _sub(lines: Iterable[str], path: str) -> list[str]:
    return [line.replace(PLACEHOLDER, path) for line in lines]


#: the placeholder as JSON writes it inside a string, and the separator of the stored JSON fragments
#: (a control character, which JSON always escapes, so no fragment holds it)
JSON_PLACEHOLDER = "\\u0000"
FRAGMENT_SEPARATOR = "\x1e"


def json_path(path: str) -> str:
    """``path`` as it appears inside a JSON string."""
    return json.dumps(path, ensure_ascii=True)[1:-1]


def encode_fragments(fragments: Sequence[str]) -> bytes:
    """The ``outputs`` column: the JSON fragments (placeholder for the path), compressed (zlib, fast level)."""
    return zlib.compress(FRAGMENT_SEPARATOR.join(fragments).encode("utf-8"), 1)


def _sarif_at(results: Sequence[Sequence[Any]], path: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for status, res in results:
        art = res["locations"][0]["physicalLocation"]["artifactLocation"]
        if art["uri"] == PLACEHOLDER:
            art["uri"] = path
        out.append((str(status), res))
    return out


class ModuleCache:
    """The ``modules`` table of a cache file (see the module docstring)."""

    def __init__(self, path: str) -> None:
        self.path = str(path)
        self.conn, self.rebuilt = open_db(self.path)

    def _recover(self) -> None:
        if is_contention(sys.exc_info()[1]):
            return  # another run holds the file: this read or write is skipped, the file is not damaged
        try:
            self.conn.close()
        except sqlite3.Error:
            pass
        self.rebuilt = True
        self.conn = fresh_db(self.path)

    def lookup(self, keys: Sequence[str], outputs: bool = False) -> dict[str, tuple[Any, ...]]:
        """``{key: (summary JSON, its digest[, outputs, their digest])}`` for the stored ``keys`` (``outputs``:
        also the JSON fragments' column, for a JSON run), each found row marked as used now in the same
        transaction (:func:`llverify.executor.evict.read_and_touch`); a damaged file is rebuilt: no hits."""
        columns = "summary, summary_digest" + (", outputs, outputs_digest" if outputs else "")
        try:
            rows = read_and_touch(self.conn, "modules", columns, keys)
        except sqlite3.DatabaseError:
            self._recover()
            return {}
        return {r[0]: tuple(r[1:]) for r in rows}

    def serve(self, key: str, row: tuple[Any, ...], path: str, need: str | None = None) -> Outcome | None:
        """An outcome from a stored summary, or None (and the row deleted) when it does not check out.

        ``need`` (:func:`llverify.ttgir.units.run_unit`'s): only what that run prints is decoded: the per-op
        counts for ``json``, the rules and SARIF results for ``sarif``, everything for None; counts and text
        lines always (a text run does not parse the stored SARIF results)."""
        summary, digest = row[0], row[1]
        try:
            if _digest(summary) != digest:
                raise ValueError("digest mismatch")
            doc = json.loads(summary)
            counts = {s: int(doc["counts"].get(s, 0)) for s in STATUSES}
            if doc.get("v") != RECORD_VERSION or counts["refuted"] or counts["error"]:
                raise ValueError("not a servable record")
            if sum(counts.values()) != int(doc["n"]) or int(doc["modules"]) < 1:
                raise ValueError("inconsistent record")
            diag = _sub(doc["diag"], path)
            conv = _sub(doc["conv"], path)
            per_op = {str(op): {s: int(row.get(s, 0)) for s in STATUSES} for op, row in doc["per_op"].items()} \
                if need in (None, "json") else None
            rules = sarif = None
            if need in (None, "sarif"):
                rules = {str(k): str(v) for k, v in doc["rules"].items()}
                sarif = _sarif_at(json.loads(doc["sarif"]), path)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            self.delete(key)
            return None
        return Outcome(path, int(doc["modules"]), (), int(doc["n"]), counts, diag, conv, cached=True,
                       per_op=per_op, rules=rules, sarif=sarif)

    def fragments(self, key: str, row: tuple[Any, ...], path: str, n: int) -> list[str] | None:
        """The JSON fragments of a row read by ``lookup(..., outputs=True)``, at ``path`` (digest-checked, ``n``
        of them), or None where the record has none (stored by a run of another format) or they do not check
        out (then the row is deleted)."""
        blob, digest = row[2], row[3]
        if blob is None:
            return None
        try:
            if hashlib.sha256(blob).hexdigest() != digest:
                raise ValueError("digest mismatch")
            text = zlib.decompress(blob).decode("utf-8").replace(JSON_PLACEHOLDER, json_path(path))
            out = text.split(FRAGMENT_SEPARATOR) if n else []
            if len(out) != n or (n == 0 and text):
                raise ValueError("inconsistent record")
        except (ValueError, TypeError, zlib.error, UnicodeDecodeError):
            self.delete(key)
            return None
        return out

    def findings(self, key: str, path: str) -> list[Any] | None:
        """The stored findings of ``key`` at ``path`` (digest-checked), or None."""
        try:
            row = self.conn.execute("SELECT findings, findings_digest FROM modules WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError:
            self._recover()
            return None
        if row is None:
            return None
        try:
            if _digest(row[0]) != row[1]:
                raise ValueError("digest mismatch")
            return [finding_from_doc(d, path) for d in json.loads(row[0])]
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            self.delete(key)
            return None

    def store(self, records: Sequence[tuple[Any, ...]], limit: int | None = None) -> None:
        """Write ``(key, summary, findings[, outputs])`` records in one transaction (``outputs``: the
        :func:`encode_fragments` bytes or None), then keep the file under ``limit``
        bytes (default :func:`llverify.executor.evict.max_bytes`) by evicting the least recently used rows.
        A write failure only costs time."""
        if not records:
            return
        now = time.time()
        full = [(r[0], r[1], r[2], r[3] if len(r) > 3 else None) for r in records]
        rows = [(k, s, _digest(s), f, _digest(f), now, o, None if o is None else hashlib.sha256(o).hexdigest())
                for k, s, f, o in full]
        try:
            with write_transaction(self.conn):
                self.conn.executemany("INSERT OR REPLACE INTO modules VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
                record_usage(self.conn, "modules", [(k, len(s) + len(f) + len(o or b"")) for k, s, f, o in full],
                             now)
            bound = max_bytes() if limit is None else limit
            if total_bytes(self.conn) > bound:
                prune(self.conn, bound)
        except sqlite3.DatabaseError:
            self._recover()

    def add_outputs(self, outputs: Sequence[tuple[str, bytes]]) -> None:
        """Add :func:`encode_fragments` bytes to stored records that have none, in one transaction."""
        if not outputs:
            return
        try:
            with write_transaction(self.conn):
                for key, blob in outputs:
                    cur = self.conn.execute("UPDATE modules SET outputs = ?, outputs_digest = ? WHERE key = ? "
                                            "AND outputs IS NULL", (blob, hashlib.sha256(blob).hexdigest(), key))
                    if cur.rowcount:
                        self.conn.execute("UPDATE usage SET bytes = bytes + ? WHERE tbl = 'modules' AND key = ?",
                                          (len(blob), key))
        except sqlite3.DatabaseError:
            self._recover()

    def delete(self, key: str) -> None:
        try:
            with write_transaction(self.conn):
                self.conn.execute("DELETE FROM modules WHERE key = ?", (key,))
                self.conn.execute("DELETE FROM usage WHERE tbl = 'modules' AND key = ?", (key,))
        except sqlite3.DatabaseError:
            self._recover()

    def __len__(self) -> int:
        try:
            return int(self.conn.execute("SELECT COUNT(*) FROM modules").fetchone()[0])
        except sqlite3.DatabaseError:
            self._recover()
            return 0

    def close(self) -> None:
        self.conn.close()


def finding_from_doc(doc: dict[str, Any], path: str) -> Any:
    """The :class:`~llverify.ttgir.findings.Finding` a stored doc (:func:`llverify.ttgir.units.finding_doc`)
    describes, located in ``path``; only proved and unknown verdicts are accepted."""
    from llverify.prove.verdict import Verdict
    from llverify.ttgir.findings import Finding
    from llverify.ttgir.model import Location, SourceLocation

    if doc["status"] not in ("proved", "unknown"):
        raise ValueError("not a servable verdict")
    v = Verdict(doc["status"], doc["property"], doc["subject"], doc["method"], float(doc["seconds"]), doc["message"],
                None, doc["certificate"], doc["details"])
    src = doc["source"]
    return Finding(v, doc["rule"], doc["op"], Location(path, int(doc["line"]), int(doc["col"])),
                   None if src is None else SourceLocation(src[0], int(src[1]), int(src[2]), src[3]),
                   doc["kernel"], doc["target"], doc["stage"], int(doc["index"]), doc["expect"])
