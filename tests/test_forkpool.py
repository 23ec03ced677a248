"""The fork pool under the ``process`` executor: dispatch, failures, and what the workers inherit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from llverify.executor.forkpool import ForkPool
from llverify.executor.pool import UnitExecutor, WorkerFailure


def _pid_after(delay: float) -> int:
    time.sleep(delay)
    return os.getpid()


def _die_on_seven(x: int) -> int:
    if x == 7:
        os._exit(3)
    return x


def _raise_on_three(x: int) -> int:
    if x == 3:
        raise ValueError("three")
    return x


def _unpicklable(_: int):
    return lambda: 0


def _only_in_the_worker(_: int) -> object:
    """A value of a class that the worker's module table has and the parent's does not."""
    import types

    mod = types.ModuleType("llverify_test_worker_only")
    exec("class Here:\n    pass\n", mod.__dict__)
    sys.modules[mod.__name__] = mod
    return mod.Here()


def _alive(pid: int) -> bool:
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return waited == 0


def test_a_free_worker_takes_the_next_batch() -> None:
    # batch 0 holds one worker for 0.6 s; the other must take every later batch meanwhile, in order
    pool = ForkPool(2)
    try:
        pool.start(_pid_after, [[0.6]] + [[0.0]] * 6)
        got = sorted(pool.wait())
    finally:
        pool.close()
    slow = got[0][2][0]
    rest = {values[0] for _, _, values in got[1:]}
    assert slow not in rest and len(rest) == 1
    assert [k for k, _, _ in got] == list(range(7)) and all(status == "ok" for _, status, _ in got)


def test_a_dead_worker_fails_its_batch_only_and_is_replaced() -> None:
    with UnitExecutor(jobs=2, min_parallel=1, batch_size=5) as ex:
        out = ex.map(_die_on_seven, list(range(20)))
        pids = ex._pool.pids
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        assert ex.map(abs, [-1] * 10) == [1] * 10  # the pool still works
    failed = [i for i, v in enumerate(out) if isinstance(v, WorkerFailure)]
    assert failed == [5, 6, 7, 8, 9]
    assert "exit status 3" in out[7].message
    assert [out[i] for i in range(20) if i not in failed] == [i for i in range(20) if i not in failed]


def test_an_exception_or_an_unpicklable_value_fails_the_batch_with_its_reason() -> None:
    with UnitExecutor(jobs=2, min_parallel=1, batch_size=2) as ex:
        out = ex.map(_raise_on_three, list(range(6)))
        bad = ex.map(_unpicklable, [0, 1])
    assert out[:2] == [0, 1] and out[4:] == [4, 5]
    assert all(isinstance(v, WorkerFailure) and "ValueError: three" in v.message for v in out[2:4])
    assert all(isinstance(v, WorkerFailure) and "do not pickle" in v.message for v in bad)
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        unread = ex.map(_only_in_the_worker, [0, 1])
        assert ex.map(abs, [-2, -3]) == [2, 3]  # the workers are still there
    assert all(isinstance(v, WorkerFailure) and "could not be read" in v.message for v in unread)


def test_close_ends_every_worker_even_mid_run() -> None:
    pool = ForkPool(2)
    pool.start(_pid_after, [[30.0], [30.0], [0.0]])
    pids = pool.pids
    t0 = time.perf_counter()
    pool.close()  # the run is abandoned: busy workers are killed, not waited for
    assert time.perf_counter() - t0 < 10
    assert not any(_alive(p) for p in pids)


def test_workers_print_nothing_the_parent_had_buffered_and_run_none_of_its_exit_handlers(tmp_path) -> None:
    script = textwrap.dedent(f"""
        import atexit, sys
        sys.path.insert(0, {os.getcwd()!r})
        from llverify.executor.pool import UnitExecutor
        atexit.register(lambda: print("exit handler"))
        sys.stdout.write("buffered before the fork\\n")  # a pipe: block-buffered, not yet written
        with UnitExecutor(jobs=2, min_parallel=1) as ex:
            assert ex.map(abs, list(range(-10, 0))) == list(range(10, 0, -1))
        print("done")
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout must be block-buffered
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["buffered before the fork", "done", "exit handler"]
