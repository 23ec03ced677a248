"""The gate's parallel speed-up by CPU time, which a shared machine's load disturbs far less than wall time.

Runs the corpus through :class:`~llverify.executor.pool.UnitExecutor` as ``llverify ttgir`` does
(``-j 1`` in process, ``-j 2`` in two forked workers), each unit reporting its worker's
``time.process_time()``; a worker's last report is its whole CPU time (imports included).  On an idle
machine with as many cores as workers, wall time is about the parent's start-up plus the busiest
worker's CPU time; the estimate printed is that ratio.

    python3 benchmarks/bench_workers.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from llverify.executor.pool import UnitExecutor  # noqa: E402

STARTUP_S = 0.1  # python, site, click, discover: the parent's serial part before any unit runs


def unit_with_cpu(unit: tuple) -> tuple[int, float]:
    from llverify.ttgir.units import run_unit

    run_unit(unit)
    return os.getpid(), time.process_time()


def busiest(jobs: int) -> tuple[float, list[float]]:
    files = sorted(str(p) for p in (ROOT / "tests" / "data" / "ttgir").glob("*.ttgir"))
    units = [(f, False, False, None) for f in files]
    with UnitExecutor(jobs=jobs, min_parallel=1) as ex:
        out = ex.map(unit_with_cpu, units, weights=[os.stat(f).st_size for f in files])
    per: dict[int, float] = {}
    for pid, cpu in out:
        per[pid] = max(per.get(pid, 0.0), cpu)
    return max(per.values()), sorted(per.values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    opts = ap.parse_args()
    j1, j2 = [], []
    for _ in range(opts.repeats):
        # -j 1 in a fresh process of its own (an inline run here would warm this process for the next)
        import subprocess

        code = ("import sys, time; sys.path.insert(0, sys.argv[1]); import glob\n"
                "from llverify.ttgir.units import run_unit\n"
                "for f in sorted(glob.glob(sys.argv[1] + '/tests/data/ttgir/*.ttgir')):\n"
                "    run_unit((f, False, False, None))\n"
                "print(time.process_time())\n")
        one = float(subprocess.run([sys.executable, "-c", code, str(ROOT)], capture_output=True, text=True,
                                   check=True).stdout.split()[-1])
        two, workers = busiest(2)
        j1.append(one)
        j2.append(two)
        print(f"-j 1: {one:.2f} s CPU; -j 2: workers {', '.join(f'{w:.2f}' for w in workers)} s CPU")
    a, b = statistics.median(j1), statistics.median(j2)
    print(f"median: -j 1 {a:.2f} s, -j 2 busiest worker {b:.2f} s; idle-machine estimate "
          f"({STARTUP_S} s start-up each): {(a + STARTUP_S) / (b + STARTUP_S):.2f}x "
          f"(load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
