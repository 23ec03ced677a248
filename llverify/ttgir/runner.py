"""The gate's module runner: which modules of a command are served from the module cache and which are checked,
in process or by a pool of workers, and the cache records the checked ones leave.

A command's paths become *units* (:func:`llverify.ttgir.units.run_unit`: read, check and render one path).  A
unit whose bytes, options and llverify code match a stored record (:mod:`llverify.ttgir.modcache`) is served
from it without being read as TTGIR; the others run in process (``-j 1``, or work too small to pay for a pool:
:func:`worth_a_pool`) or in one pool for the whole command (:class:`llverify.executor.pool.UnitExecutor`),
their outcomes yielded in the order of the paths as soon as each is ready.  Records of the checked units are
written when the runner is left (docs/scale.md).
"""

from __future__ import annotations

import sqlite3
import sys
from typing import Any, Callable, Iterator, Sequence

__all__ = ["ModuleRunner", "MIN_PARALLEL_COST", "worth_a_pool", "default_cache"]


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


#: a pool costs each worker's fork and its own import of the gate (in parallel with the other's: a few
#: milliseconds more than -j 1 on idle cores, more on a loaded machine): modules expected to cost less than
#: this in all (:func:`llverify.ttgir.units.unit_cost`'s bytes of text: about 0.15 s of checking), or fewer
#: than two, are checked in process whatever -j says
MIN_PARALLEL_COST = 100_000


def worth_a_pool(costs: Sequence[int]) -> bool:
    """Whether modules of these expected costs are checked faster by a pool than in process."""
    return len(costs) >= 2 and sum(costs) >= MIN_PARALLEL_COST




def default_cache() -> str:
    """The module cache's file when the command line names none (:func:`llverify.executor.store.default_cache_file`)."""
    from llverify.executor.store import default_cache_file

    return default_cache_file()


class ModuleRunner:
    """Serves what the module cache holds, runs the rest as units (one pool for the whole command), and
    writes the new records when the command is done with it (a context manager: leaving it closes the pool and
    stores the records).  ``warn`` receives a one-line warning when the cache cannot be used or written (the
    report stands either way: an unusable cache only costs time).

    Example: ``with ModuleRunner(None, 2, "process", None) as r: outcomes = r.gate(["a.ttgir"], "text", False)``."""

    def __init__(self, cache_file: str | None, jobs: int, executor: str, ray_address: str | None,
                 target: str | None = None, warn: Callable[[str], None] = _to_stderr) -> None:
        self.cache_file, self.jobs, self.executor_kind, self.ray_address = cache_file, jobs, executor, ray_address
        self.warn = warn
        self.target = target  # --target: the target of modules without ttg.target (baseline modules too)
        self.cache: Any = None
        self.executor: Any = None
        self.records: list[tuple[Any, ...]] = []
        self.outputs: list[tuple[str, bytes]] = []  # JSON fragments added to records stored by other formats

    def __enter__(self) -> "ModuleRunner":
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.executor is not None:
            self.executor.close()
        if self.cache is not None:
            try:
                self.cache.store(self.records)
                self.cache.add_outputs(self.outputs)
                self.cache.close()
            except (OSError, sqlite3.Error) as exc:  # the report stands; the next run checks again
                self.warn(f"{self.cache_file}:1:1: warning: verdict cache not written: {exc}")

    def gate(self, names: list[str], need: str, lowered: bool) -> list[Any]:
        """One outcome per path of ``names``, in order, with what ``need`` asks for
        (:func:`llverify.ttgir.units.run_unit`)."""
        return list(self.gate_iter(names, need, lowered))

    def gate_iter(self, names: list[str], need: str, lowered: bool) -> Iterator[Any]:
        """:meth:`gate`'s outcomes, yielded in the order of ``names`` as soon as each is ready (served from the
        module cache at once, checked ones as the executor streams them back)."""
        outcomes: list[Any] = [None] * len(names)
        context = None
        if self.cache_file and names:
            from llverify.ttgir.modcache import ModuleCache, key_context

            if self.cache is None:
                try:
                    self.cache = ModuleCache(self.cache_file)
                except (OSError, sqlite3.Error) as exc:  # an unusable cache only costs time
                    self.warn(f"{self.cache_file}:1:1: warning: verdict cache not used: {exc}")
                    self.cache_file = None
            if self.cache is not None:
                context = key_context(lowered, self.target)
                self._serve(names, outcomes, context, need, lowered)
        todo = [i for i, o in enumerate(outcomes) if o is None]
        checked: Iterator[Any] = iter(())
        if todo:
            from llverify.executor.pool import WorkerFailure
            from llverify.ttgir.units import failed_outcome, preload, run_unit, unit_cost

            units = [(names[i], need, lowered, context, self.target) for i in todo]
            # only a pool schedules by cost (an inline run reads no file twice), and only a worthwhile one starts
            inline = self.jobs == 1 and self.executor_kind == "process"
            weights = None if inline else [unit_cost(names[i]) for i in todo]
            if inline or (self.executor_kind == "process" and not worth_a_pool(weights or [])):
                checked = map(run_unit, units)
            else:
                if self.executor is None:
                    from llverify.executor.pool import UnitExecutor

                    # the workers inherit the gate, imported once here (docs/scale.md: it saves a second import
                    # in CPU and the workers' collections over it, and costs no wall time on idle cores)
                    self.executor = UnitExecutor(jobs=self.jobs, executor=self.executor_kind,
                                                 ray_address=self.ray_address, min_parallel=2, prepare=preload)
                checked = self.executor.imap(run_unit, units, weights=weights)
        for name, o in zip(names, outcomes):
            if o is None:  # the next checked one: todo is in the order of names, and so is imap
                r = next(checked)
                o = failed_outcome(name, r.message) if isinstance(r, WorkerFailure) else r
                if o.record is not None:
                    self.records.append(o.record)
            yield o

    def _fragments_from_findings(self, key: str, name: str) -> list[str] | None:
        """A record stored by a run of another format has no JSON fragments: render them from its findings
        (once: they are added to the record when the command is done), or None when they do not check out."""
        from llverify.ttgir.modcache import JSON_PLACEHOLDER, PLACEHOLDER, encode_fragments, json_path
        from llverify.ttgir.report import json_fragment

        placed = self.cache.findings(key, PLACEHOLDER)
        if placed is None:
            return None
        frags = [json_fragment(f) for f in placed]
        whole = f'"{JSON_PLACEHOLDER}"'
        if not all(x.count(JSON_PLACEHOLDER) == x.count(whole) for x in frags):
            return None
        self.outputs.append((key, encode_fragments(frags)))
        where = json_path(name)
        return [x.replace(JSON_PLACEHOLDER, where) for x in frags]

    def _serve(self, names: list[str], outcomes: list[Any], context: str, need: str, lowered: bool) -> None:
        import hashlib

        from llverify.ttgir.loader import read_bytes
        from llverify.ttgir.modcache import module_key, side_digests
        from llverify.errors import TtgirError

        digests: list[str | None] = []
        for name in names:
            try:
                digests.append(hashlib.sha256(read_bytes(name)).hexdigest())
            except TtgirError:
                digests.append(None)  # the unit reports it
        if lowered:
            self._serve_keys({i: module_key(context, d, side_digests(names[i])) for i, d in enumerate(digests)
                              if d is not None}, names, outcomes, need)
            return
        # a record is bound to its path only when it mentions it elsewhere than in locations (rare): those keys
        # are computed and asked for only for the modules the path-free keys did not serve
        self._serve_keys({i: module_key(context, d, None) for i, d in enumerate(digests) if d is not None},
                         names, outcomes, need)
        bound = {i: module_key(context, d, {"path": names[i]}) for i, d in enumerate(digests)
                 if d is not None and outcomes[i] is None}
        if bound:
            self._serve_keys(bound, names, outcomes, need)

    def _serve_keys(self, keys: dict[int, str], names: list[str], outcomes: list[Any], need: str) -> None:
        """Serves ``outcomes[i]`` from the record of ``keys[i]`` where it is stored and checks out."""
        rows = self.cache.lookup(list(keys.values()), outputs=need == "json")
        for i, key in keys.items():
            name = names[i]
            if key in rows:
                o = self.cache.serve(key, rows[key], name, need)
                if o is not None and need == "findings":
                    o.findings = self.cache.findings(key, name)
                    if o.findings is None:
                        o = None
                elif o is not None and need == "json":
                    o.fragments = self.cache.fragments(key, rows[key], name, o.n)
                    if o.fragments is None:
                        o.fragments = self._fragments_from_findings(key, name)
                        if o.fragments is None:
                            o = None
                if o is not None:
                    outcomes[i] = o
