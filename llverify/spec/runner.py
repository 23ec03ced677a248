"""Running the checks of loaded specs, sequentially or over a process pool.

:func:`run_check` decides one check: it looks up the check kind's adapter in
the dispatch table (:mod:`llverify.spec.kinds`; :meth:`~llverify.spec.checkkind.CheckKind.run`
routes it through the soundness kernel) and returns a :class:`~llverify.spec.model.CheckResult`.  It never raises:
a layer that is not importable, a check the layer rejects, or an unexpected
exception all become ``error`` verdicts with a message.

:func:`run_specs` runs every check of every spec, with ``jobs`` worker
processes (``fork``; results are put back into spec order, so ``-j 2`` prints
exactly what ``-j 1`` prints, times aside).  Command-line budgets
(``timeout``, ``rlimit``, ``method``) fill in what a check does not set itself.
"""

from __future__ import annotations

import pickle
import time
import traceback
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict, to_jsonable
from llverify.spec.kinds import KINDS
from llverify.spec.model import CheckDecl, CheckResult, Spec

__all__ = ["Budget", "run_check", "run_specs", "run_files", "Task"]


@dataclass(frozen=True)
class Budget:
    """Defaults from the command line; a check's own settings win."""

    timeout: float | None = None
    rlimit: int | None = None
    method: str | None = None
    cache: str | None = None  # a verdict-cache file: proved verdicts are remembered by content (--cache)


@dataclass(frozen=True)
class Task:
    """One check with the layouts it refers to (what a worker process receives)."""

    check: CheckDecl
    layouts: Mapping[str, LinearLayout]
    budget: Budget


def _error(check: CheckDecl, message: str, seconds: float = 0.0) -> Verdict:
    return Verdict(status="error", property=check.property, subject=check.subject, method=None,
                   seconds=seconds, message=message)


def check_key(task: Task) -> str:
    """The verdict-cache key of a check: its kind, arguments, effective method and budget, and the content
    (bases and out-dim sizes) of every layout it names; llverify's code and Z3's version are added by
    :func:`llverify.executor.cache.obligation_key`.  Spec positions, subjects and expectations are not part
    of it: the same claim in another file or line is the same obligation."""
    from llverify.executor.cache import obligation_key

    check = task.check
    layouts = {name: {"bases": {d: [list(b) for b in bs] for d, bs in L.bases.items()},
                      "out": dict(L.out_dims)} for name, L in sorted(task.layouts.items())}
    return obligation_key({"spec_check": check.property, "args": to_jsonable(_thaw(check.args)),
                           "method": check.method or task.budget.method,
                           "timeout": check.timeout if check.timeout is not None else task.budget.timeout,
                           "rlimit": check.rlimit if check.rlimit is not None else task.budget.rlimit,
                           "layouts": layouts})


_CACHES: dict[str, Any] = {}


def run_check(task: Task) -> CheckResult:
    """Decide one check (never raises; see the module docstring).  With ``budget.cache`` a proved verdict
    of the same obligation is served from the cache (marked ``details["cached"]``); only proved verdicts
    are stored, so refutations are always re-decided and replayed."""
    if not task.budget.cache:
        return _decide(task)
    from llverify.executor.cache import VerdictCache

    try:
        cache = _CACHES.get(task.budget.cache) or _CACHES.setdefault(task.budget.cache,
                                                                      VerdictCache(task.budget.cache))
        key = check_key(task)
        hit = cache.get(key)
    except Exception:  # noqa: BLE001 - an unusable cache never stops a check: decide it
        return _decide(task)
    if hit is not None and not hit.replay_needed and hit.verdict.status == "proved":
        v = hit.verdict.with_(property=task.check.property, subject=task.check.subject,
                              details={**hit.verdict.details, "cached": True})
        return CheckResult(task.check, v)
    result = _decide(task)
    if result.verdict.status == "proved":
        try:
            cache.put(key, result.verdict)
        except Exception:  # noqa: BLE001 - a full disk loses the memo, not the verdict
            pass
    return result


def _decide(task: Task) -> CheckResult:
    from llverify.spec import adapters

    check = task.check
    kind = KINDS[check.property]
    default = task.budget.method if task.budget.method in kind.methods else None
    method = check.method or default
    options = {
        "method": None if method in (None, "auto") else method,
        "timeout": check.timeout if check.timeout is not None else task.budget.timeout,
        "rlimit": check.rlimit if check.rlimit is not None else task.budget.rlimit,
    }
    fn: Callable[..., Verdict] = kind.run
    start = time.perf_counter()
    try:
        verdict = fn(check, task.layouts, **options)
    except adapters.NotAvailable as exc:
        verdict = _error(check, f"check kind '{check.property}' is not available: {exc}")
    except (ImportError, AttributeError) as exc:
        verdict = _error(check, f"check kind '{check.property}' is not available: {exc}")
    except Exception as exc:  # noqa: BLE001 - a check must never take the run down
        from llverify.errors import LlverifyError

        if isinstance(exc, (LlverifyError, ValueError)):
            verdict = _error(check, str(exc) or type(exc).__name__)
        else:
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
            verdict = _error(check, f"internal error{where}: {type(exc).__name__}: {exc}")
    elapsed = time.perf_counter() - start
    if not verdict.seconds:
        verdict = verdict.with_(seconds=elapsed)
    if verdict.property != check.property or verdict.subject != check.subject:
        # keep the layer's own words in details, present the spec's names
        verdict = verdict.with_(property=check.property, subject=check.subject)
    return CheckResult(check, verdict)


def _thaw(value: Any) -> Any:
    """Read-only mappings -> dicts, recursively (they do not pickle)."""
    if isinstance(value, MappingProxyType) or (isinstance(value, Mapping) and not isinstance(value, dict)):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, dict):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_thaw(v) for v in value)
    if isinstance(value, list):
        return [_thaw(v) for v in value]
    return value


def _to_wire(result: CheckResult) -> tuple[CheckDecl, dict[str, Any]]:
    v = result.verdict
    cx = v.counterexample
    state = {
        "status": v.status, "property": v.property, "subject": v.subject, "method": v.method,
        "seconds": v.seconds, "message": v.message, "details": _thaw(v.details),
        "certificate": _thaw(v.certificate),
        "counterexample": None if cx is None else (_thaw(cx.inputs), _thaw(cx.sides), cx.note),
    }
    try:
        pickle.dumps(state)
    except Exception:  # noqa: BLE001 - exotic objects in details: keep their JSON form
        state["details"] = to_jsonable(state["details"])
        state["certificate"] = to_jsonable(state["certificate"])
    return result.check, state


def _from_wire(wire: tuple[CheckDecl, dict[str, Any]]) -> CheckResult:
    check, state = wire
    cx = state.pop("counterexample")
    if cx is not None:
        state["counterexample"] = Counterexample(inputs=cx[0], sides=cx[1], note=cx[2])
    return CheckResult(check, Verdict(**state))


def _run_wire(task: Task) -> tuple[CheckDecl, dict[str, Any]]:
    return _to_wire(run_check(task))


def _tasks(specs: Sequence[Spec], budget: Budget) -> list[Task]:
    tasks = []
    for spec in specs:
        for check in spec.checks:
            names = check.layout_names()
            tasks.append(Task(check, {n: spec.layouts[n] for n in names}, budget))
    return tasks


def run_specs(specs: Sequence[Spec], budget: Budget = Budget(), jobs: int = 1,
              progress: Callable[[int, int, CheckResult], None] | None = None) -> list[CheckResult]:
    """Run every check of ``specs``; results in spec order, whatever ``jobs`` is."""
    tasks = _tasks(specs, budget)
    results: list[CheckResult | None] = [None] * len(tasks)
    if jobs <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = run_check(task)
            if progress:
                progress(i + 1, len(tasks), results[i])  # type: ignore[arg-type]
        return results  # type: ignore[return-value]
    import multiprocessing  # noqa: PLC0415 - a -j 1 run (the one-check start-up) never pays for it
    from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: PLC0415

    ctx = multiprocessing.get_context("fork")
    done = 0
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks)), mp_context=ctx) as pool:
        # longest-first would reorder work, not results: submit in order, collect by index
        futures = {pool.submit(_run_wire, task): i for i, task in enumerate(tasks)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = _from_wire(fut.result())
            except Exception as exc:  # noqa: BLE001 - a worker died (e.g. killed for memory)
                results[i] = CheckResult(tasks[i].check, _error(tasks[i].check, f"worker failed: {exc}"))
            done += 1
            if progress:
                progress(done, len(tasks), results[i])  # type: ignore[arg-type]
    return results  # type: ignore[return-value]


def _file_job(job: tuple[str, Budget]) -> tuple[str, list, list]:
    """Load one spec file and run its checks (in a worker): (path, diagnostics, wire results)."""
    from llverify.spec.parse import load_spec
    from llverify.spec.source import Diagnostic, Pos, SpecErrors

    path, budget = job
    try:
        spec = load_spec(path)
    except SpecErrors as exc:
        return path, list(exc.diagnostics), []
    except Exception as exc:  # noqa: BLE001 - reported like any spec problem
        return path, [Diagnostic(path, Pos(), f"internal error while loading: {type(exc).__name__}: {exc}")], []
    return path, [], [_to_wire(run_check(t)) for t in _tasks([spec], budget)]


def run_files(paths: Sequence[str], budget: Budget = Budget(), jobs: int = 2,
              progress: Callable[[int, int, CheckResult], None] | None = None) -> tuple[list, list[CheckResult]]:
    """Load and run whole files in ``jobs`` worker processes: ``(diagnostics, results)``.

    Loading (building hundreds of hardware layouts) costs as much as proving,
    so the unit of parallel work is a file; the largest files start first and
    results come back in the order of ``paths``, identical to a sequential run.
    If any file has diagnostics the results must be discarded by the caller.
    """
    order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
    out: dict[int, tuple[list, list]] = {}
    import multiprocessing  # noqa: PLC0415 - a -j 1 run (the one-check start-up) never pays for it
    from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: PLC0415

    ctx = multiprocessing.get_context("fork")
    done = 0
    with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(paths))), mp_context=ctx) as pool:
        futures = {pool.submit(_file_job, (paths[i], budget)): i for i in order}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                _, diags, wire = fut.result()
            except Exception as exc:  # noqa: BLE001 - a worker died
                from llverify.spec.source import Diagnostic, Pos

                diags, wire = [Diagnostic(paths[i], Pos(), f"worker failed: {exc}")], []
            results = [_from_wire(w) for w in wire]
            out[i] = (diags, results)
            for r in results:
                done += 1
                if progress:
                    progress(done, done, r)
    diagnostics = [d for i in range(len(paths)) for d in out[i][0]]
    return diagnostics, [r for i in range(len(paths)) for r in out[i][1]]


def _size(path: str) -> int:
    try:
        import os

        return os.path.getsize(path)
    except OSError:
        return 0
