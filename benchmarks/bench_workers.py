"""The gate's parallel speed-up by CPU time, which a shared machine's load disturbs far less than wall time.

Each repeat runs the real command (``llverify ttgir --no-cache -j N PATHS``, click included) in a fresh
process, ``-j 1`` and ``-j 2`` interleaved.  The process's own CPU time (``resource.getrusage``, Python's
start-up and every import included) is the ``-j 1`` cost.  For ``-j 2`` the units are wrapped so that each
reports its worker's ``time.process_time()`` (a forked child's clock starts at zero, so its last report is
everything it did after the fork); the estimate of the wall time on an idle machine with one core per
worker is

    parent's whole CPU time  +  the busiest worker's CPU time

which is conservative: the parent's share while the workers run (forking, reading their results) is
counted as if it ran alone, and nothing that runs in parallel is counted twice.  The printed ratio is
``-j 1`` over that estimate; the load average is printed beside it.

    python3 benchmarks/bench_workers.py [--repeats 3] [--baseline CHECKOUT] [PATHS...]
    # PATHS default: tests/data/ttgir/*.ttgir; --baseline: another checkout measured alike, interleaved

It also reports the share of llverify's modules that have bytecode (this machine sets
``PYTHONDONTWRITEBYTECODE``, so an editable checkout compiles every module it imports in every process).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The child: run the command in process with each unit reporting its worker's CPU time.
CHILD = r"""
import functools, json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
REPORTS = []

def timed_unit(fn, unit):
    out = fn(unit)
    return out, os.getpid(), time.process_time()

import llverify.executor.pool as pool

def unwrap(results):
    for r in results:
        if isinstance(r, tuple):
            REPORTS.append((r[1], r[2]))
            yield r[0]
        else:
            yield r

if hasattr(pool.UnitExecutor, "imap"):  # map goes through imap
    _imap = pool.UnitExecutor.imap
    pool.UnitExecutor.imap = lambda self, fn, units, weights=None: unwrap(
        _imap(self, functools.partial(timed_unit, fn), units, weights))
else:  # an older checkout (--baseline)
    _map = pool.UnitExecutor.map
    pool.UnitExecutor.map = lambda self, fn, units, progress=None, weights=None: list(unwrap(
        _map(self, functools.partial(timed_unit, fn), units, progress, weights)))
from llverify.cli import cli
devnull = open(os.devnull, "w")
real = sys.stdout
sys.stdout = devnull
try:
    cli.main(sys.argv[2:], prog_name='llverify', standalone_mode=False)
except SystemExit:
    pass
sys.stdout = real
me = os.getpid()
workers = {}
for pid, cpu in REPORTS:
    if pid != me:
        workers[pid] = max(workers.get(pid, 0.0), cpu)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"parent": ru.ru_utime + ru.ru_stime, "workers": sorted(workers.values())}))
"""


def measure(jobs: int, paths: list[str], root: Path = ROOT) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), "ttgir", "--no-cache", "-j", str(jobs), *paths],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise SystemExit(f"the measured run failed (exit {out.returncode}): {out.stderr.strip()[-2000:]}")
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    doc["estimate"] = doc["parent"] + max(doc["workers"], default=0.0)
    return doc


def bytecode_share() -> str:
    """How many of llverify's modules have current bytecode beside them (else each process compiles them)."""
    sources = list(ROOT.joinpath("llverify").rglob("*.py"))
    tag = sys.implementation.cache_tag
    fresh = 0
    for p in sources:
        pyc = p.parent / "__pycache__" / f"{p.stem}.{tag}.pyc"
        if pyc.exists() and pyc.stat().st_mtime >= p.stat().st_mtime:
            fresh += 1
    return f"{fresh} of {len(sources)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", type=Path, default=None,
                    help="Another checkout (e.g. a git worktree of main) measured the same way, interleaved.")
    ap.add_argument("paths", nargs="*")
    opts = ap.parse_args()
    paths = opts.paths or sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "data" / "ttgir").glob("*.ttgir"))
    roots = {"this": ROOT, **({"baseline": opts.baseline.resolve()} if opts.baseline else {})}
    one: dict[str, list[float]] = {k: [] for k in roots}
    two: dict[str, list[float]] = {k: [] for k in roots}
    for _ in range(opts.repeats):
        for name, root in roots.items():
            a = measure(1, paths, root)
            b = measure(2, paths, root)
            one[name].append(a["estimate"])
            two[name].append(b["estimate"])
            print(f"{name:8} -j 1: {a['estimate']:.2f} s CPU; -j 2: parent {b['parent']:.2f} s + workers "
                  f"{', '.join(f'{w:.2f}' for w in b['workers'])} s CPU = {b['estimate']:.2f} s "
                  f"(load average {os.getloadavg()[0]:.1f})")
    for name in roots:
        a, b = statistics.median(one[name]), statistics.median(two[name])
        print(f"{name}: {len(paths)} paths; median -j 1 {a:.2f} s, -j 2 estimate {b:.2f} s: {a / b:.2f}x "
              f"(best pair {min(one[name]) / min(two[name]):.2f}x)")
    print(f"llverify modules with bytecode: {bytecode_share()}")


if __name__ == "__main__":
    main()
