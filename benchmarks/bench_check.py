"""Wall time of `llverify check specs proofs` with -j 1 and -j 2 (target: under 10 s on 2 cores).

Each configuration runs as a fresh subprocess (the real entry point, imports
included) ``REPEATS`` times; the table shows the best and the median, the
ratio of each to the ``-j 1`` baseline measured in the same run, and the
interpreter start-up plus import cost (``llverify --version``) for scale.
Writes ``benchmarks/results/bench_check.json``.

    python3 benchmarks/bench_check.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 10.0


def timed(args: list[str]) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "llverify.cli", *args], cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode, (proc.stdout.strip().splitlines() or [""])[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    opts = ap.parse_args()
    configs = [("startup (llverify --version)", ["--version"]),
               ("check specs proofs -j 1", ["check", "-q", "-j", "1", "specs", "proofs"]),
               ("check specs proofs -j 2", ["check", "-q", "-j", "2", "specs", "proofs"])]
    rows = []
    for label, args in configs:
        times, summary, rc = [], "", 0
        for _ in range(opts.repeats):
            t, rc, summary = timed(args)
            times.append(t)
        rows.append({"config": label, "best_s": min(times), "median_s": statistics.median(times), "exit": rc,
                     "summary": summary, "times_s": times})
    base = rows[1]["median_s"]
    print(f"{'configuration':32} {'best s':>8} {'median s':>9} {'vs -j 1':>8} {'exit':>5}")
    for r in rows:
        r["ratio_to_j1"] = r["median_s"] / base
        print(f"{r['config']:32} {r['best_s']:8.2f} {r['median_s']:9.2f} {r['ratio_to_j1']:8.2f} {r['exit']:5d}")
    print(rows[1]["summary"])
    worst = max(rows[1]["median_s"], rows[2]["median_s"])
    print(f"target < {TARGET_S:.0f} s: {'met' if worst < TARGET_S else 'NOT met'} (worst median {worst:.2f} s)")
    out = ROOT / "benchmarks" / "results" / "bench_check.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "bench_check", "cpus": os.cpu_count(), "python": platform.python_version(),
                               "repeats": opts.repeats, "target_s": TARGET_S, "rows": rows}, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
