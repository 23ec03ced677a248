"""The gate's schedule over a process pool: what each module is expected to cost, and where that puts it.

Only speed depends on the schedule (results come back in the order of the paths whatever it is: see
test_executor.py and test_ttgir_stream.py); these tests pin the decisions that make ``-j 2`` end its
workers together on the corpus (docs/scale.md)."""

from __future__ import annotations

import gc
from pathlib import Path

from llverify.executor.pool import UnitExecutor, _batches
from llverify.ttgir.units import DIVISION_COST, unit_cost

CORPUS = Path(__file__).parent / "data" / "ttgir"
#: the corpus's modules whose buffer indices go through an integer division (each a Z3 query of ~0.3 s)
DIVIDING = {"more_kernels/ws_matmul-cuda_90.ttgir", "versions/3.4.0/ws_matmul-k-cuda_90-w4.ttgir"}


def test_a_division_costs_a_solver_query_not_its_bytes(tmp_path: Path) -> None:
    plain = tmp_path / "plain.ttgir"
    plain.write_bytes(b"%q = arith.addi %x, %c3 : i64\n" * 10)
    dividing = tmp_path / "dividing.ttgir"
    dividing.write_bytes(b"%q = arith.divui %x, %c3 : i64\n%r = arith.divsi %y, %c3 : i32\n")
    assert unit_cost(str(plain)) == plain.stat().st_size
    assert unit_cost(str(dividing)) == dividing.stat().st_size + 2 * DIVISION_COST
    assert unit_cost(str(tmp_path / "missing.ttgir")) == 0  # the unit itself reports the unreadable file


def test_the_corpus_modules_with_divisions_go_first_each_in_a_batch_of_its_own() -> None:
    # file size alone put versions/3.4.0/ws_matmul-k (0.9 s, a 33 kB file) among the last small batches: one
    # worker checked it while the other idled (0.6-0.7 s of imbalance on the 344 modules)
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.glob("**/*.ttgir"))
    assert DIVIDING <= set(files)
    costs = [unit_cost(str(CORPUS / f)) for f in files]
    assert min(c for f, c in zip(files, costs) if f in DIVIDING) > max(c for f, c in zip(files, costs)
                                                                       if f not in DIVIDING)
    batches = _batches(len(files), 2, None, costs)
    assert {files[b[0]] for b in batches[:2]} == DIVIDING and all(len(b) == 1 for b in batches[:2])
    assert sorted(i for b in batches for i in b) == list(range(len(files)))


def _freeze_count(_: int) -> int:
    return gc.get_freeze_count()


def test_pool_workers_freeze_what_they_inherit() -> None:
    # the parent's objects are never garbage in a worker: frozen, its full collections skip them (and do not
    # write to, so copy, the pages it shares with the parent)
    keep = [[] for _ in range(100)]  # tracked objects the workers inherit
    with UnitExecutor(jobs=2, min_parallel=1) as ex:
        assert min(ex.map(_freeze_count, list(range(8)))) >= len(keep)
    assert gc.get_freeze_count() == 0  # not in the parent


def _gate(names: list[str], jobs: int) -> tuple[list[tuple], bool]:
    """What the gate's runner yields for ``names`` with ``-j jobs`` (no cache), and whether it started a pool
    (forked after importing the gate: ``preload``)."""
    from llverify.ttgir.runner import ModuleRunner
    from llverify.ttgir.units import preload

    with ModuleRunner(None, jobs, "process", None) as runner:
        out = [(o.path, o.n, o.counts, o.diag, o.conv, o.errors) for o in runner.gate_iter(names, "text", False)]
        started = runner.executor is not None and runner.executor._pool is not None
        assert not started or runner.executor.prepare is preload
    return out, started


def test_a_pool_starts_only_for_work_that_pays_for_it() -> None:
    files = sorted(CORPUS.glob("**/*.ttgir"), key=lambda p: p.stat().st_size)
    tiny = [str(p) for p in files[:10]]  # ten modules of a few kB: 20-40 ms of checking in all
    assert sum(unit_cost(p) for p in tiny) < 100_000
    out, started = _gate(tiny, 2)
    assert not started and out == _gate(tiny, 1)[0]
    heavy = sorted(str(CORPUS / f) for f in DIVIDING)  # two modules, but about 2 s of checking
    out, started = _gate(heavy, 2)
    assert started and out == _gate(heavy, 1)[0]


def test_preload_imports_the_gate_but_not_z3() -> None:
    import subprocess
    import sys

    script = ("import sys; from llverify.ttgir.units import preload; preload(); "
              "print(sorted(m for m in ('llverify.ttgir.gate', 'llverify.ttgir.reader', 'llverify.ttgir.modcache', "
              "'llverify.ttgir.report', 'numpy', 'z3') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parent.parent)
    assert out.stdout.split() == ["['llverify.ttgir.gate',", "'llverify.ttgir.modcache',", "'llverify.ttgir.reader',",
                                  "'llverify.ttgir.report',", "'numpy']"], out.stderr
