"""Executors and the verdict cache: how obligations are run (in process, a process pool, a Ray cluster)
and remembered between runs (a content-addressed SQLite cache)."""

from llverify.executor.cache import CacheHit, VerdictCache, default_cache_path, obligation_key, verdict_from_json
from llverify.executor.pool import EXECUTORS, UnitExecutor, WorkerFailure

__all__ = ["CacheHit", "VerdictCache", "default_cache_path", "obligation_key", "verdict_from_json",
           "EXECUTORS", "UnitExecutor", "WorkerFailure"]
