"""A pool of forked worker processes that run batches of units: the ``process`` executor's engine.

Each worker is forked from the parent and owns two pipes.  It reads a *task* frame (the pickled pair
``(fn, batch)``), computes ``[fn(u) for u in batch]``, writes a *result* frame (the pickled
``("ok", values)``, or ``("error", text)`` when ``fn`` raised or the values do not pickle), and reads the
next task; at the end of its task pipe it leaves with ``os._exit`` (so it runs none of the exit handlers it
inherited).  A frame is an 8-byte big-endian length and that many bytes.

The parent sends a worker one batch at a time, the next as soon as its result is read, in the order the
caller listed the batches (:meth:`ForkPool.start`): whichever worker is free takes the next batch, so the
workers end together when the last batches are small.  One batch in flight per worker also means neither
side ever waits on a full pipe that the other is not reading (a task is written only to a worker that is
reading, a result only read by a parent that is waiting for it).

A worker that dies (killed for memory, a crash in native code) fails only the batch it held: its result
pipe ends before the frame is whole, the parent reaps it, reports the batch as failed (with the exit
status or the signal) and forks another worker in its place.

Compared with :class:`concurrent.futures.ProcessPoolExecutor` (what this replaces): the parent imports
neither ``multiprocessing`` nor ``concurrent.futures`` (about 30 ms of its serial start-up), runs no
feeder or manager thread beside the workers, and a dead worker no longer breaks the whole pool.  POSIX only
(``os.fork``), as the ``fork`` pool it replaces was.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
from collections import deque
from typing import Any, Callable, Sequence

__all__ = ["ForkPool"]

_HEADER = 8


def _read_exact(fd: int, n: int) -> bytes:
    """Exactly ``n`` bytes from ``fd``; ``EOFError`` when it ends first."""
    parts = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _read_frame(fd: int) -> bytes:
    return _read_exact(fd, int.from_bytes(_read_exact(fd, _HEADER), "big"))


def _write_frame(fd: int, payload: bytes) -> None:
    view = memoryview(len(payload).to_bytes(_HEADER, "big") + payload)
    while view:
        view = view[os.write(fd, view):]


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def _reply(fn: Callable[[Any], Any], batch: Sequence[Any]) -> bytes:
    """The result frame's payload for one batch (never raises but for ``pickle`` of a plain tuple)."""
    try:
        values: tuple[str, Any] = ("ok", [fn(u) for u in batch])
    except Exception as exc:  # noqa: BLE001 - the parent turns it into a failure of this batch
        values = ("error", f"{type(exc).__name__}: {exc}")
    try:
        return pickle.dumps(values, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - e.g. a value that does not pickle
        return pickle.dumps(("error", f"the results do not pickle: {type(exc).__name__}: {exc}"))


def _serve(tasks: int, results: int) -> None:
    """A worker's loop: tasks in, results out, until the task pipe ends (or the parent is gone)."""
    while True:
        try:
            fn, batch = pickle.loads(_read_frame(tasks))
        except EOFError:
            return
        try:
            _write_frame(results, _reply(fn, batch))
        except OSError:  # the parent is gone
            return


class _Worker:
    """One worker as the parent sees it: its process id, the parent's ends of its task pipe (write) and result
    pipe (read), and the batch it holds (its index in the current run), if any."""

    __slots__ = ("pid", "tasks", "results", "batch")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.batch: int | None = None


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"the worker process was killed by signal {name}"
    return f"the worker process ended with exit status {os.waitstatus_to_exitcode(status)}"


class ForkPool:
    """``jobs`` forked workers (see the module docstring); ``start`` runs first in each new worker.

    >>> pool = ForkPool(2)
    >>> pool.start(abs, [[-1, -2], [-3]])
    >>> sorted(pool.wait())
    [(0, 'ok', [1, 2]), (1, 'ok', [3])]
    >>> pool.close()
    """

    def __init__(self, jobs: int, start: Callable[[], None] | None = None) -> None:
        self._start = start
        self._workers: list[_Worker] = []
        self._fn: Callable[[Any], Any] | None = None
        self._batches: Sequence[Sequence[Any]] = ()
        self._todo: deque[int] = deque()
        for _ in range(max(1, jobs)):
            self._workers.append(self._fork())

    @property
    def pids(self) -> list[int]:
        """The workers' process ids (a dead worker's replacement has a new one)."""
        return [w.pid for w in self._workers]

    def _fork(self) -> _Worker:
        _flush_std_streams()  # else what the parent has buffered would be printed again by the worker
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: never returns
            code = 0
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it ends us)
                os.close(task_w)
                os.close(result_r)
                for w in self._workers:  # the other workers' pipes: held here, they would never see their end
                    os.close(w.tasks)
                    os.close(w.results)
                if self._start is not None:
                    self._start()
                _serve(task_r, result_w)
            except BaseException:  # noqa: BLE001 - the parent sees the pipe end and reports the batch
                code = 1
            finally:
                _flush_std_streams()
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        return _Worker(pid, task_w, result_r)

    # -- one run: a list of batches -----------------------------------------------------------------
    def start(self, fn: Callable[[Any], Any], batches: Sequence[Sequence[Any]]) -> None:
        """Begin computing ``fn`` over every batch (the earlier run's batches still in flight are waited for and
        dropped); :meth:`poll` and :meth:`wait` return what comes back."""
        while any(w.batch is not None for w in self._workers):
            self.poll(None)
        self._fn, self._batches = fn, batches
        self._todo = deque(range(len(batches)))
        for w in self._workers:
            self._send(w)

    def pending(self) -> bool:
        """Whether a batch of this run is not back yet."""
        return bool(self._todo) or any(w.batch is not None for w in self._workers)

    def _send(self, w: _Worker) -> None:
        if not self._todo:
            return
        k = self._todo.popleft()
        w.batch = k
        try:
            _write_frame(w.tasks, pickle.dumps((self._fn, self._batches[k]), pickle.HIGHEST_PROTOCOL))
        except OSError:  # it died before reading: poll reads its end and reports the batch
            pass

    def poll(self, timeout: float | None) -> list[tuple[int, str, Any]]:
        """The batches back within ``timeout`` seconds (None: until at least one is), as (batch index,
        ``"ok"`` and its values, or ``"error"`` and a message); every worker freed is sent the next batch."""
        busy = {w.results: w for w in self._workers if w.batch is not None}
        if not busy:
            return []
        watch = select.poll()  # not select.select: a descriptor numbered past FD_SETSIZE is fine
        for fd in busy:
            watch.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        ready = watch.poll(None if timeout is None else int(timeout * 1000))
        out: list[tuple[int, str, Any]] = []
        for fd, _ in ready:
            w = busy[fd]
            k = w.batch
            assert k is not None
            w.batch = None
            try:
                frame = _read_frame(fd)
            except (EOFError, OSError):  # the worker died: its batch fails, another worker takes its place
                out.append((k, "error", self._reap(w)))
                w = self._fork()  # each death costs one batch, so a run forks finitely many
                self._workers.append(w)
            else:
                try:
                    status, value = pickle.loads(frame)
                except Exception as exc:  # noqa: BLE001 - e.g. a value whose class the parent cannot load
                    status, value = "error", f"the results could not be read: {type(exc).__name__}: {exc}"
                out.append((k, status, value))
            self._send(w)
        return out

    def wait(self) -> list[tuple[int, str, Any]]:
        """Every batch of this run still out, as :meth:`poll` returns them."""
        out: list[tuple[int, str, Any]] = []
        while self.pending():
            out.extend(self.poll(None))
        return out

    def _reap(self, w: _Worker) -> str:
        """Forget a worker whose result pipe ended; how it died."""
        self._workers.remove(w)
        os.close(w.tasks)
        os.close(w.results)
        try:
            _, status = os.waitpid(w.pid, 0)
        except ChildProcessError:
            return "the worker process is gone"
        return _death(status)

    def close(self) -> None:
        """End every worker: idle ones at the end of their task pipe, busy ones (an abandoned run) killed."""
        workers, self._workers = self._workers, []
        self._todo.clear()
        for w in workers:
            if w.batch is not None:
                try:
                    os.kill(w.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os.close(w.tasks)
        for w in workers:
            os.close(w.results)
            try:
                os.waitpid(w.pid, 0)
            except ChildProcessError:
                pass
