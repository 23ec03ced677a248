"""Two checkouts of llverify, interleaved in one run: ``llverify ttgir`` over the corpus with ``-j 1``,
``-j 2`` (no cache) and the warm re-run, each as a fresh process, ``REPEATS`` times; median and minimum.

Interleaving pairs every configuration of one checkout with the same configuration of the other under
the same load, which is what makes a before/after comparison on a shared machine worth printing.

    git archive <commit> llverify tests/data/ttgir | tar -x -C /tmp/before
    python3 benchmarks/bench_ab.py /tmp/before [--repeats 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="another checkout (its llverify/ is used)")
    ap.add_argument("--repeats", type=int, default=4)
    opts = ap.parse_args()
    roots = {"before": opts.before.resolve(), "after": ROOT}
    files = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests" / "data" / "ttgir").glob("*.ttgir"))]
    tmp = Path(tempfile.mkdtemp(prefix="bench-ab-"))

    def run(root: Path, args: list[str]) -> tuple[float, str]:
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", *args, *(str(ROOT / f) for f in files)],
                           cwd=root, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)})
        return time.perf_counter() - t0, p.stdout

    for w, root in roots.items():
        run(root, ["--cache", str(tmp / f"{w}.sqlite")])
    times: dict[tuple[str, str], list[float]] = {(w, k): [] for w in roots for k in ("j1", "j2", "warm")}
    outs: dict[tuple[str, str], str] = {}
    loads = [os.getloadavg()[0]]
    for _ in range(opts.repeats):
        for k in ("j1", "j2", "warm"):
            for w, root in roots.items():
                args = ["--cache", str(tmp / f"{w}.sqlite")] if k == "warm" else ["--no-cache", "-j", k[1]]
                s, outs[(w, k)] = run(root, args)
                times[(w, k)].append(s)
        loads.append(os.getloadavg()[0])
    print(f"{len(files)} modules, {opts.repeats} interleaved repeats, load average "
          f"{', '.join(f'{x:.1f}' for x in loads)}")
    for w in roots:
        for name, f in (("median", statistics.median), ("min", min)):
            t = {k: f(times[(w, k)]) for k in ("j1", "j2", "warm")}
            print(f"{w:7} {name:6}: -j 1 {t['j1']:.3f} s, -j 2 {t['j2']:.3f} s ({t['j1'] / t['j2']:.2f}x), "
                  f"warm {t['warm']:.3f} s ({t['j1'] / t['warm']:.1f}x)")
    print("the same -j 1 report before and after:", outs[("before", "j1")] == outs[("after", "j1")])


if __name__ == "__main__":
    main()
