"""Running a family sweep in chunks over an executor, resumable from the verdict cache.

The family's instances ``[start, stop)`` are cut into chunks of ``chunk``
consecutive instances; a chunk is the unit of work and of caching.  A chunk
whose every instance is proved (or skipped) is stored in the cache as one
``proved`` verdict keyed by (family, range, family size, llverify and solver
versions), so an interrupted or repeated sweep skips it; a chunk with any
refuted, unknown or error instance is never cached and is decided again.

Postcondition of :func:`run_sweep`: ``summary.proved + summary.skipped +
len(summary.failures) == stop - start`` when nothing was left unknown by a
worker failure; every failure names its instance and parameters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from llverify.executor.cache import VerdictCache, obligation_key
from llverify.executor.pool import UnitExecutor, WorkerFailure
from llverify.prove.verdict import Verdict
from llverify.sweep.families import FAMILIES, SKIPPED

__all__ = ["SweepSummary", "run_sweep", "decide_chunk"]


@dataclass(frozen=True)
class ChunkResult:
    start: int
    stop: int
    proved: int
    skipped: int
    failures: tuple[dict[str, Any], ...]
    methods: tuple[str, ...]
    cached: bool = False


@dataclass
class SweepSummary:
    family: str
    start: int
    stop: int
    proved: int = 0
    skipped: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    chunks: int = 0
    cached_chunks: int = 0
    seconds: float = 0.0

    @property
    def decided(self) -> int:
        return self.proved + self.skipped + len(self.failures)

    def to_json(self) -> dict[str, Any]:
        fam = FAMILIES[self.family]
        return {"family": self.family, "claim": fam.claim, "paper": fam.paper, "size": fam.size(),
                "range": [self.start, self.stop], "proved": self.proved, "skipped": self.skipped,
                "refuted": sum(f["status"] == "refuted" for f in self.failures),
                "unknown": sum(f["status"] == "unknown" for f in self.failures),
                "error": sum(f["status"] == "error" for f in self.failures),
                "failures": self.failures, "chunks": self.chunks, "cached_chunks": self.cached_chunks,
                "seconds": round(self.seconds, 3),
                "obligations_per_second": round(self.decided / self.seconds, 1) if self.seconds else None}


def decide_chunk(unit: tuple[str, int, int]) -> ChunkResult:
    """Decide instances ``[start, stop)`` of a family (runs in a worker; never raises)."""
    name, start, stop = unit
    fam = FAMILIES[name]
    proved = skipped = 0
    failures: list[dict[str, Any]] = []
    methods: set[str] = set()
    for i in range(start, stop):
        params = fam.params(i)
        try:
            v = fam.decide(params)
        except Exception as exc:  # noqa: BLE001 - an internal failure is an error verdict, not a crash
            failures.append({"index": i, "params": params, "status": "error",
                             "message": f"{type(exc).__name__}: {exc}"})
            continue
        if v == SKIPPED:
            skipped += 1
        elif isinstance(v, Verdict) and v.status == "proved":
            proved += 1
            if v.method:
                methods.add(v.method)
        else:
            assert isinstance(v, Verdict)
            failures.append({"index": i, "params": params, "status": v.status, "message": v.message,
                             "counterexample": v.counterexample.to_json() if v.counterexample else None})
    return ChunkResult(start, stop, proved, skipped, tuple(failures), tuple(sorted(methods)))


def _chunk_key(name: str, start: int, stop: int) -> str:
    return obligation_key({"sweep": name, "start": start, "stop": stop, "size": FAMILIES[name].size()})


def run_sweep(name: str, *, start: int = 0, stop: int | None = None, chunk: int = 2000, jobs: int = 1,
              executor: str = "process", ray_address: str | None = None, cache: VerdictCache | None = None,
              progress: Callable[[int, int], None] | None = None) -> SweepSummary:
    """Decide instances ``[start, stop)`` of family ``name`` (see the module docstring)."""
    fam = FAMILIES[name]
    stop = fam.size() if stop is None else min(stop, fam.size())
    t0 = time.perf_counter()
    summary = SweepSummary(name, start, stop)
    units = [(name, a, min(stop, a + chunk)) for a in range(start, stop, chunk)]
    todo = []
    for unit in units:
        hit = cache.get(_chunk_key(*unit)) if cache is not None else None
        if hit is not None and hit.verdict.status == "proved":
            cert = hit.verdict.certificate or {}
            summary.proved += int(cert.get("proved", 0))
            summary.skipped += int(cert.get("skipped", 0))
            summary.cached_chunks += 1
        else:
            todo.append(unit)
    summary.chunks = len(units)
    with UnitExecutor(jobs=jobs, executor=executor, ray_address=ray_address, min_parallel=2, batch_size=1) as ex:
        results = ex.map(decide_chunk, todo, progress=progress)
    for unit, res in zip(todo, results):
        if isinstance(res, WorkerFailure):
            summary.failures.append({"index": unit[1], "params": {"chunk": [unit[1], unit[2]]}, "status": "unknown",
                                     "message": res.message})
            continue
        summary.proved += res.proved
        summary.skipped += res.skipped
        summary.failures.extend(res.failures)
        if cache is not None and not res.failures:
            cache.put(_chunk_key(*unit), Verdict(
                "proved", f"sweep:{name}", f"instances {res.start}..{res.stop - 1}",
                res.methods[0] if len(res.methods) == 1 else "f2" if not res.methods else res.methods[0],
                certificate={"proved": res.proved, "skipped": res.skipped, "methods": list(res.methods)}))
    summary.failures.sort(key=lambda f: f["index"])
    summary.seconds = time.perf_counter() - t0
    return summary
