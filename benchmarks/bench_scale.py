"""Scale: start-up, parallel speed-up, the verdict cache and the Ray executor, all measured in one run.

Every configuration runs as a fresh process of the real entry point (imports included), ``REPEATS``
times; the table shows the median and the ratio to the row's baseline (named in the last column).

* start-up: ``llverify --version`` and a one-check spec (baseline: ``python3 -c pass``);
* ``llverify check specs proofs`` with ``-j 1`` (baseline) and ``-j 2``;
* ``llverify ttgir`` over the TTGIR corpus: ``-j 1`` (baseline), ``-j 2``, a cold run filling a new cache,
  the warm re-run (``-j 1``, ``-j 2``, ``--format json``, ``--format sarif``), a cold JSON run, Ray with two
  workers;
* ``llverify sweep prop_4_6_rank2`` (first 40,000 instances): inline (baseline), ``-j 2``, Ray ``-j 2``:
  obligations per second.

Writes ``benchmarks/results/bench_scale.json``.

    python3 benchmarks/bench_scale.py [--repeats N] [--no-ray]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "ttgir"


ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)}


def timed(cmd: list[str], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, capture_output=True, env=ENV)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "llverify.cli", *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-ray", action="store_true")
    opts = ap.parse_args()
    r = opts.repeats
    rows: list[dict] = []

    def row(name: str, seconds: float, base: str, base_s: float, extra: str = "") -> None:
        rows.append({"config": name, "seconds": seconds, "baseline": base, "ratio": seconds / base_s, "note": extra})

    py = timed([sys.executable, "-c", "pass"], r)
    row("python3 -c pass", py, "python3 -c pass", py)
    row("llverify --version", timed(cli("--version"), r), "python3 -c pass", py)
    row("check specs/01_first_check.yaml", timed(cli("check", "-q", "specs/01_first_check.yaml"), r),
        "python3 -c pass", py)
    j1 = timed(cli("check", "-q", "-j", "1", "specs", "proofs"), r)
    row("check specs proofs -j 1", j1, "check -j 1", j1)
    row("check specs proofs -j 2", timed(cli("check", "-q", "-j", "2", "specs", "proofs"), r), "check -j 1", j1)
    files = [str(p) for p in sorted(CORPUS.glob("*.ttgir"))]
    g1 = timed(cli("ttgir", "--no-cache", "-j", "1", *files), r)
    row(f"ttgir corpus ({len(files)} modules) -j 1", g1, "ttgir -j 1", g1)
    row("ttgir corpus -j 2", timed(cli("ttgir", "--no-cache", "-j", "2", *files), r), "ttgir -j 1", g1)
    tmp = Path(tempfile.mkdtemp())
    fills = []
    for i in range(r):
        t0 = time.perf_counter()
        subprocess.run(cli("ttgir", "--cache", str(tmp / f"c{i}.sqlite"), *files), cwd=ROOT, capture_output=True,
                       env=ENV)
        fills.append(time.perf_counter() - t0)
    cache = tmp / "c0.sqlite"
    row("ttgir corpus, filling a new cache", statistics.median(fills), "ttgir -j 1", g1)
    row("ttgir corpus, warm cache", timed(cli("ttgir", "--cache", str(cache), *files), r), "ttgir -j 1", g1)
    row("ttgir corpus, warm cache -j 2", timed(cli("ttgir", "--cache", str(cache), "-j", "2", *files), r),
        "ttgir -j 1", g1)
    # the first JSON run over a cache filled by a text run renders each module's JSON once and keeps it
    subprocess.run(cli("ttgir", "--cache", str(cache), "--format", "json", *files), cwd=ROOT, capture_output=True,
                   env=ENV)
    row("ttgir corpus, warm cache --format json", timed(cli("ttgir", "--cache", str(cache), "--format", "json",
                                                             *files), r), "ttgir -j 1", g1)
    row("ttgir corpus, warm cache --format sarif", timed(cli("ttgir", "--cache", str(cache), "--format", "sarif",
                                                              *files), r), "ttgir -j 1", g1)
    row("ttgir corpus --format json, no cache", timed(cli("ttgir", "--no-cache", "--format", "json", *files), r),
        "ttgir -j 1", g1)
    if not opts.no_ray:
        row("ttgir corpus, Ray 2 local workers", timed(cli("ttgir", "--no-cache", "--executor", "ray", "-j", "2",
                                                           *files), 1), "ttgir -j 1", g1, "includes Ray start-up")
    n = 40000
    s1 = timed(cli("sweep", "prop_4_6_rank2", "--no-cache", "--limit", str(n), "-j", "1"), 1)
    row(f"sweep prop_4_6_rank2 x{n} inline", s1, "sweep inline", s1, f"{n / s1:.0f} obligations/s")
    s2 = timed(cli("sweep", "prop_4_6_rank2", "--no-cache", "--limit", str(n), "-j", "2"), 1)
    row("sweep -j 2", s2, "sweep inline", s1, f"{n / s2:.0f} obligations/s")
    if not opts.no_ray:
        s3 = timed(cli("sweep", "prop_4_6_rank2", "--no-cache", "--limit", str(n), "--executor", "ray", "-j", "2"), 1)
        row("sweep Ray -j 2", s3, "sweep inline", s1, f"{n / s3:.0f} obligations/s (includes Ray start-up)")
    print(f"{'configuration':44} {'seconds':>8} {'ratio':>7}  baseline / note")
    for x in rows:
        print(f"{x['config']:44} {x['seconds']:8.3f} {x['ratio']:7.2f}  {x['baseline']}  {x['note']}")
    print(f"load average: {os.getloadavg()[0]:.1f} (1 min); a shared machine inflates every row")
    out = ROOT / "benchmarks" / "results" / "bench_scale.json"
    out.write_text(json.dumps({"benchmark": "bench_scale", "cpus": os.cpu_count(), "repeats": r, "rows": rows,
                               "loadavg_1min": os.getloadavg()[0]},
                              indent=2) + "\n")


if __name__ == "__main__":
    main()
