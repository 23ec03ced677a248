"""The gate's parallel speed-up by CPU time, which a shared machine's load disturbs far less than wall time.

Each repeat runs the real command (``llverify ttgir --no-cache -j N PATHS``, click included) in a fresh
process, ``-j 1`` and ``-j 2`` interleaved, and splits its CPU time (user + sys) into the parts of the model

    -j 1 wall  ~=  S1 + I + W
    -j 2 wall  ~=  S + I + (W + E) / 2 + imbalance / 2

* ``S``: the parent's CPU time (``resource.getrusage``): the interpreter, click, discovery, starting the pool,
  collecting the results and printing (``pre`` = before the first unit is handed to the executor);
* ``I``: a process's import of the gate (``llverify.ttgir.gate``, the report and the module cache, what a unit
  loads), timed in each process before its first unit;
* ``W``: the sum of the units' CPU time in the ``-j 1`` process;
* ``E``: what the second process adds: its own import, plus the workers' unit CPU beyond ``W`` (layouts and
  proofs that ``-j 1`` memoises across modules, built again in the other worker);
* ``imbalance``: the busiest worker's CPU time at its last unit minus the other's (a forked child's clock
  starts at zero).

Each unit (``llverify.ttgir.units.run_unit``, replaced by a timed one of the same name before the command
starts, so that in-process runs and pool workers both call it) reports its process, its CPU time and the
process's import; a worker appends its reports to a spool file that the parent reads at the end.

The 2-core estimate of ``-j 2``'s wall time is *the parent's whole CPU time + the busiest worker's*: conservative,
since the parent's share while the workers run is counted as if it ran alone.  The printed ratio is the
``-j 1`` process's CPU time over that estimate.

    python3 benchmarks/bench_workers.py [--repeats 3] [--baseline CHECKOUT] [--tree] [PATHS...]
    # PATHS default: tests/data/ttgir/*.ttgir (--tree: every *.ttgir under it, what the corpus bench times);
    # --baseline: another checkout measured alike, interleaved

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

# The child: run the command in process; each unit reports its process, its CPU time and the process's import.
CHILD = r"""
import json, os, resource, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
PARENT = os.getpid()
SPOOL = tempfile.mkdtemp(prefix="bench-workers-")  # a worker appends one line per unit to SPOOL/<pid>
REPORTS = []
IMPORT = {}
PRE = []
import llverify.ttgir.units as units
_run_unit = units.run_unit

def timed_unit(unit):
    pid = os.getpid()
    if pid not in IMPORT:
        a = time.process_time()
        import llverify.ttgir.gate, llverify.ttgir.report, llverify.ttgir.modcache  # what a unit loads
        IMPORT[pid] = time.process_time() - a
    a = time.process_time()
    out = _run_unit(unit)
    b = time.process_time()
    rec = (pid, b, b - a, IMPORT[pid])
    if pid == PARENT:
        REPORTS.append(rec)
    else:
        with open(os.path.join(SPOOL, str(pid)), "a") as fh:
            fh.write(json.dumps(rec) + "\n")
    return out

# the command imports run_unit from the module when it runs and a pool pickles it by name: both get this one
timed_unit.__module__, timed_unit.__qualname__ = units.__name__, "run_unit"
units.run_unit = timed_unit
import llverify.executor.pool as pool
_imap = pool.UnitExecutor.imap

def imap(self, *args, **kwargs):
    if not PRE:
        ru = resource.getrusage(resource.RUSAGE_SELF)
        PRE.append(ru.ru_utime + ru.ru_stime)
    return _imap(self, *args, **kwargs)

pool.UnitExecutor.imap = imap
from llverify.cli import cli
devnull = open(os.devnull, "w")
real = sys.stdout
sys.stdout = devnull
try:
    cli.main(sys.argv[2:], prog_name='llverify', standalone_mode=False)
except SystemExit:
    pass
sys.stdout = real
for name in os.listdir(SPOOL):
    with open(os.path.join(SPOOL, name)) as fh:
        REPORTS.extend(tuple(json.loads(line)) for line in fh)
    os.remove(os.path.join(SPOOL, name))
os.rmdir(SPOOL)
procs = {}
for pid, end, cpu, imp in REPORTS:
    p = procs.setdefault(pid, {"end": 0.0, "work": 0.0, "import": imp, "units": 0})
    p["end"] = max(p["end"], end)
    p["work"] += cpu
    p["units"] += 1
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"parent": ru.ru_utime + ru.ru_stime, "pre": PRE[0] if PRE else None,
                  "inline": procs.pop(PARENT, None), "workers": sorted(procs.values(), key=lambda p: p["end"])}))
"""


def measure(jobs: int, paths: list[str], root: Path = ROOT) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root)] + ([os.environ["PYTHONPATH"]]
                                                                       if os.environ.get("PYTHONPATH") else []))}
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), "ttgir", "--no-cache", "-j", str(jobs), *paths],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise SystemExit(f"the measured run failed (exit {out.returncode}): {out.stderr.strip()[-2000:]}")
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    doc["estimate"] = doc["parent"] + max((w["end"] for w in doc["workers"]), default=0.0)
    return doc


def model(a: dict, b: dict) -> dict[str, float]:
    """S, I, W, E and the imbalance from one ``-j 1`` run ``a`` and one ``-j 2`` run ``b`` (module docstring)."""
    one = a["inline"] or {"import": 0.0, "work": 0.0}
    ws = b["workers"]
    imbalance = ws[-1]["end"] - ws[0]["end"] if len(ws) > 1 else 0.0
    return {"S1": a["parent"] - one["import"] - one["work"], "S": b["parent"], "S_pre": b["pre"] or 0.0,
            "I": one["import"], "W": one["work"],
            "E": sum(w["work"] for w in ws) - one["work"] + sum(w["import"] for w in ws) - one["import"],
            "imbalance": imbalance, "j1": a["parent"], "j2": b["estimate"]}


def _worker(w: dict) -> str:
    return f"{w['end']:.2f} ({w['units']} units, import {w['import']:.2f})"


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
    ap.add_argument("--tree", action="store_true", help="Every *.ttgir under tests/data/ttgir (344 modules).")
    ap.add_argument("paths", nargs="*")
    opts = ap.parse_args()
    corpus = ROOT / "tests" / "data" / "ttgir"
    paths = opts.paths or sorted(str(p.relative_to(ROOT)) for p in corpus.glob("**/*.ttgir" if opts.tree else "*.ttgir"))
    roots = {"this": ROOT, **({"baseline": opts.baseline.resolve()} if opts.baseline else {})}
    rows: dict[str, list[dict[str, float]]] = {k: [] for k in roots}
    for _ in range(opts.repeats):
        for name, root in roots.items():
            a = measure(1, paths, root)
            b = measure(2, paths, root)
            m = model(a, b)
            rows[name].append(m)
            print(f"{name:8} -j 1: {m['j1']:.2f} s CPU (S1 {m['S1']:.2f}, I {m['I']:.2f}, W {m['W']:.2f}); "
                  f"-j 2: parent {m['S']:.2f} (before the pool {m['S_pre']:.2f}) + workers "
                  f"{', '.join(_worker(w) for w in b['workers'])}"
                  f" = {m['j2']:.2f} s; E {m['E']:+.2f}, imbalance {m['imbalance']:.2f}; {m['j1'] / m['j2']:.2f}x "
                  f"(load average {os.getloadavg()[0]:.1f})")
    for name in roots:
        med = {k: statistics.median(r[k] for r in rows[name]) for k in rows[name][0]}
        best = min(rows[name], key=lambda r: r["j2"] / r["j1"])
        print(f"{name}: {len(paths)} paths; medians S1 {med['S1']:.2f}, S {med['S']:.2f} (pre {med['S_pre']:.2f}), "
              f"I {med['I']:.2f}, W {med['W']:.2f}, E {med['E']:+.2f}, imbalance {med['imbalance']:.2f} s; "
              f"-j 1 {med['j1']:.2f} s, -j 2 estimate {med['j2']:.2f} s: {med['j1'] / med['j2']:.2f}x "
              f"(best pair {best['j1'] / best['j2']:.2f}x)")
    print(f"llverify modules with bytecode: {bytecode_share()}")


if __name__ == "__main__":
    main()
