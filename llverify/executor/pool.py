"""Running independent work units in process, over a process pool, or on a Ray cluster.

A *unit* is one obligation (or one file to load): a picklable argument of a
picklable top-level function ``fn`` that never raises (it turns its own
failures into ``error`` verdicts).  :class:`UnitExecutor` maps ``fn`` over a
list of units and returns the results **in the order of the units**, whatever
the executor, so ``-j 2`` prints exactly what ``-j 1`` prints.

* ``inline``: in this process, in order.
* ``process``: ``jobs`` forked workers (:class:`llverify.executor.forkpool.ForkPool`)
  started once per executor (not per call), after ``prepare`` (what every
  worker needs, done once in the parent and inherited), units sent in batches
  (contiguous slices, see :func:`_batches`) to amortise the inter-process
  round trip, the next batch to whichever worker is free.  Below
  ``min_parallel`` units the work runs inline: starting workers would cost
  more than it saves.
* ``ray``: the same batches as Ray tasks (optional extra ``cluster``),
  on ``ray_address`` (an existing cluster) or on a local instance with
  ``jobs`` CPUs.

A worker that dies (killed for memory, a crash in native code) does not
take the run down: each unit of its batch comes back as a
:class:`WorkerFailure`, which the caller turns into an ``error`` verdict, and
(``process``) another worker is forked in its place for the other batches.

>>> with UnitExecutor(jobs=1) as ex:
...     ex.map(abs, [-3, 1, -2])
[3, 1, 2]
"""

from __future__ import annotations

import functools
import gc
import math
import os
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

if TYPE_CHECKING:  # the pool's module is loaded only when a pool is started
    from llverify.executor.forkpool import ForkPool

__all__ = ["UnitExecutor", "WorkerFailure", "EXECUTORS", "MIN_PARALLEL_UNITS"]

T = TypeVar("T")
R = TypeVar("R")

from llverify.executor import EXECUTORS  # noqa: E402 - re-exported

#: Below this many units a process pool is slower than running inline on this
#: kind of machine (fork + pickling round trip ~ 10 ms per worker); measured in
#: benchmarks/bench_scale.py.
MIN_PARALLEL_UNITS = 16


class WorkerFailure:
    """The result slot of a unit whose worker died; ``message`` says how.  An immutable value (a plain class:
    ``dataclasses`` costs a ``-j N`` parent about 5 ms of start-up, which it otherwise never needs)."""

    __slots__ = ("message",)
    message: str

    def __init__(self, message: str) -> None:
        object.__setattr__(self, "message", message)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("WorkerFailure is immutable")

    def __eq__(self, other: object) -> bool:
        return type(other) is WorkerFailure and other.message == self.message

    def __hash__(self) -> int:
        return hash(self.message)

    def __repr__(self) -> str:
        return f"WorkerFailure(message={self.message!r})"

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return WorkerFailure, (self.message,)


#: native thread pools that start with the library (OpenBLAS starts one thread per core when numpy is imported,
#: and they spin for a while even when no BLAS routine is ever called): a worker is one core's share of the
#: run, so each worker's libraries get one thread unless the user chose otherwise
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _worker_start() -> None:
    """Runs first in every pool worker: one thread for the native libraries it will load (see ``_ONE_THREAD``;
    they read the variables when they load, after the fork), and what it inherited from the parent frozen out
    of the cyclic collector (``gc.freeze``: never garbage here, so the worker's full collections neither walk
    nor write to, and so copy, those objects; it cut the workers' collection time by a third on the corpus)."""
    for name in _ONE_THREAD:
        os.environ.setdefault(name, "1")
    gc.freeze()


def _run_batch(fn: Callable[[T], R], batch: Sequence[T]) -> list[R]:
    return [fn(unit) for unit in batch]


def _batches(n: int, workers: int, batch_size: int | None, weights: Sequence[float] | None = None
             ) -> list[Sequence[int]]:
    """Index batches, in the order they are sent.

    Without ``weights``: contiguous slices, about four per worker.  With ``weights`` (each unit's expected
    cost) the batches balance the workers' finishing times:

    * a unit heavier than a coarse batch's share (``total / (8 * workers)``) is a batch of its own;
    * the rest are contiguous slices (neighbouring units, one kernel's variants, share the per-process
      caches of layouts and proofs) of about that share, except the last quarter of the total weight,
      cut four times finer;
    * sent heaviest first (the units of their own, heaviest of all first), then the coarse slices, then the fine
      ones, so that at the end every worker takes small pieces instead of one worker finishing a long batch
      while the others idle.  The coarse and fine slices go in the order of the units (they weigh about the
      same, so their order does not change the balance): results streamed in unit order
      (:meth:`UnitExecutor.imap`) come back steadily rather than all at the end.

    >>> [list(b) for b in _batches(6, 2, None, [1, 1, 100, 1, 1, 1])][0]
    [2]
    """
    if weights is None or len(weights) != n:
        size = batch_size or max(1, math.ceil(n / (workers * 4)))
        return [range(i, min(n, i + size)) for i in range(0, n, size)]
    if batch_size:
        slices = [range(i, min(n, i + batch_size)) for i in range(0, n, batch_size)]
        return sorted(slices, key=lambda r: (-sum(weights[i] for i in r), r.start))
    total = float(sum(weights)) or 1.0
    coarse = total / (workers * 8)
    fine_from = total * 0.75  # cumulative weight where the fine slices begin
    heavy: list[range] = []
    bulk: list[range] = []
    tail: list[range] = []
    start, acc, seen = 0, 0.0, 0.0

    def close(end: int) -> None:
        if end > start:
            (tail if seen > fine_from else bulk).append(range(start, end))

    for i, w in enumerate(weights):
        share = coarse if seen < fine_from else coarse / 4
        if w >= coarse:
            close(i)
            heavy.append(range(i, i + 1))
            start, acc = i + 1, 0.0
        elif acc + w > share and i > start:
            close(i)
            start, acc = i, float(w)
        else:
            acc += w
        seen += w
    close(n)

    heavy.sort(key=lambda r: (-weights[r.start], r.start))
    return heavy + bulk + tail


class UnitExecutor:
    """Map a function over units with ``jobs`` workers of kind ``executor`` (see the module docstring)."""

    def __init__(self, jobs: int = 1, executor: str = "process", *, batch_size: int | None = None,
                 min_parallel: int = MIN_PARALLEL_UNITS, ray_address: str | None = None,
                 prepare: Callable[[], None] | None = None) -> None:
        if executor not in EXECUTORS:
            raise ValueError(f"unknown executor {executor!r} (expected one of {', '.join(EXECUTORS)})")
        self.jobs = max(1, int(jobs))
        self.kind = "inline" if self.jobs == 1 and executor == "process" else executor
        self.batch_size = batch_size
        self.min_parallel = min_parallel
        self.ray_address = ray_address
        self.prepare = prepare
        self._pool: ForkPool | None = None
        self._ray: Any = None

    # -- lifecycle -----------------------------------------------------------------------------
    def __enter__(self) -> "UnitExecutor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._ray is not None and self.ray_address is None:
            self._ray.shutdown()
        self._ray = None

    def _process_pool(self) -> "ForkPool":
        """The pool, started on first use.  ``prepare`` runs here first (e.g. importing what every unit
        needs), so that the forked workers inherit it instead of each paying for it again; what the
        parent holds then is frozen out of the cyclic collector (``gc.freeze``) across the fork, so that the
        workers' collections do not write to, and so copy, the pages they share with it.  It saves CPU time
        (each worker's share), not wall time on idle cores: the parent does it alone while the other
        cores wait, and the workers then pay for the pages they copy (docs/scale.md: the gate does not
        use it)."""
        if self._pool is None:
            from llverify.executor.forkpool import ForkPool  # noqa: PLC0415 - see TYPE_CHECKING above

            frozen = False
            try:
                if self.prepare is not None:
                    self.prepare()
                    gc.freeze()
                    frozen = True
                self._pool = ForkPool(self.jobs, start=_worker_start)
            finally:
                if frozen:  # the workers are forked: the parent collects as usual again
                    gc.unfreeze()
        return self._pool

    def _ray_module(self) -> Any:
        if self._ray is None:
            try:
                import ray  # noqa: PLC0415 - optional extra, loaded only for --executor ray
            except ImportError as exc:
                raise RuntimeError("--executor ray needs the optional extra: pip install 'llverify[cluster]'") from exc
            if not ray.is_initialized():
                if self.ray_address:
                    ray.init(address=self.ray_address, ignore_reinit_error=True, log_to_driver=False)
                else:
                    ray.init(num_cpus=self.jobs, ignore_reinit_error=True, log_to_driver=False,
                             include_dashboard=False)
            self._ray = ray
        return self._ray

    # -- mapping ---------------------------------------------------------------------------------
    def map(self, fn: Callable[[T], R], units: Sequence[T],
            progress: Callable[[int, int], None] | None = None,
            weights: Sequence[float] | None = None) -> list[R | WorkerFailure]:
        """``[fn(u) for u in units]``, computed by this executor; order preserved (``weights``: each unit's
        expected cost, used only to schedule the heavy ones first)."""
        out: list[R | WorkerFailure] = []
        n = len(units)
        for value in self.imap(fn, units, weights):
            out.append(value)
            if progress:
                progress(len(out), n)
        return out

    def imap(self, fn: Callable[[T], R], units: Sequence[T],
             weights: Sequence[float] | None = None) -> Iterator[R | WorkerFailure]:
        """``fn(u)`` for each unit, yielded **in the order of the units** as soon as it and every unit before
        it are done (a caller streams its output while later units still run).

        Postcondition: ``list(imap(fn, units)) == map(fn, units)`` whatever the executor; every batch is
        submitted before the first value is yielded, so a slow consumer never idles the workers."""
        n = len(units)
        if self.kind == "inline" or (self.kind == "process" and n < self.min_parallel):
            for u in units:
                yield fn(u)
            return
        batches = _batches(n, self.jobs, self.batch_size, weights)
        if self.kind == "process":
            yield from self._imap_pool(fn, units, batches)
            return
        # Ray: one (batch, fetch) per submitted batch; fetch blocks until the batch's values are back
        ray = self._ray_module()
        remote = ray.remote(_run_batch)
        pending = [(b, functools.partial(ray.get, remote.remote(fn, [units[i] for i in b]))) for b in batches]
        holder = _holders(n, batches)
        got: dict[int, list[Any]] = {}  # batch position -> its values, kept until its last unit is yielded
        for i in range(n):
            k = holder[i]
            if k not in got:
                b, fetch = pending[k]
                try:
                    got[k] = list(fetch())
                except Exception as exc:  # noqa: BLE001 - a task failed; its units fail, the run goes on
                    got[k] = [WorkerFailure(f"ray task failed: {type(exc).__name__}: {exc}")] * len(b)
            b = pending[k][0]
            value = got[k][i - b[0]]
            if i == b[-1]:
                del got[k]
            yield value

    def _imap_pool(self, fn: Callable[[T], R], units: Sequence[T], batches: list[Sequence[int]]
                   ) -> Iterator[R | WorkerFailure]:
        """:meth:`imap` over the fork pool: every worker is kept busy while the values are yielded in order
        (the pool is polled, without waiting, before each value goes to the caller)."""
        pool = self._process_pool()
        pool.start(fn, [[units[i] for i in b] for b in batches])
        holder = _holders(len(units), batches)
        got: dict[int, list[Any]] = {}

        def take(results: list[tuple[int, str, Any]]) -> None:
            for k, status, value in results:
                got[k] = value if status == "ok" else [WorkerFailure(f"worker failed: {value}")] * len(batches[k])

        for i in range(len(units)):
            k = holder[i]
            while k not in got:
                take(pool.poll(None))
            b = batches[k]
            value = got[k][i - b[0]]
            if i == b[-1]:
                del got[k]
            take(pool.poll(0))
            yield value


def _holders(n: int, batches: Sequence[Sequence[int]]) -> list[int]:
    """Unit index -> the position of its batch in ``batches``."""
    holder = [0] * n
    for k, b in enumerate(batches):
        for i in b:
            holder[i] = k
    return holder
