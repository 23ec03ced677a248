"""Construct 10^4 random layouts per kind with llverify and with Triton's to_linear_layout, same run.

    python3 benchmarks/bench_zoo.py [--n 10000] [--seed 0]

Cases come from ``llverify.hw.sampling.random_case`` (valid parameters only;
cases llverify rejects are dropped for both sides).  Triton runs in a child
process (it may abort on bad input); its time covers building the attribute
and ``to_linear_layout`` — what a user of the Gluon API pays per layout.
Prints a table (microseconds per layout, ratio llverify/Triton) and writes
``benchmarks/results/bench_zoo.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from llverify.errors import LayoutError  # noqa: E402
from llverify.hw import build  # noqa: E402
from llverify.hw.sampling import SAMPLED_KINDS, random_case  # noqa: E402

CHILD = r"""
import json, sys, time, os
sys.path.insert(0, sys.argv[1])
import oracle_triton as o
from triton._C.libtriton import gluon_ir, ir
ctx = ir.context(); ir.load_dialects(ctx); b = gluon_ir.GluonOpBuilder(ctx)
cases = json.loads(sys.stdin.read())
prepared = [(c["kind"], dict(c["params"]), list(c["shape"])) for c in cases]
t0 = time.perf_counter()
fails = 0
for kind, p, shape in prepared:
    try:
        b.to_linear_layout(o._attr(b, gluon_ir, kind, p), shape)
    except Exception:  # Gluon's Python wrapper refuses one-element shared layouts
        fails += 1
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "fails": fails, "triton": __import__("triton").__version__})); sys.stdout.flush()
os._exit(0)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = []
    version = None
    for kind in SAMPLED_KINDS:
        rng = random.Random(f"{args.seed}-{kind}")
        cases = []
        while len(cases) < args.n:
            c = random_case(kind, rng)
            try:
                build(c["kind"], c["shape"], **c["params"])
            except LayoutError:
                continue
            cases.append(c)
        t0 = time.perf_counter()
        for c in cases:
            build(c["kind"], c["shape"], **c["params"])
        ours = time.perf_counter() - t0
        out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "tests")], input=json.dumps(cases),
                             capture_output=True, text=True)
        line = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if not line:
            print(f"{kind}: triton child failed: {out.stderr[-500:]}", file=sys.stderr)
            theirs = float("nan")
        else:
            res = json.loads(line[0])
            theirs, version = res["seconds"], res["triton"]
        rows.append({"kind": kind, "n": len(cases), "llverify_us": 1e6 * ours / len(cases),
                     "triton_us": 1e6 * theirs / len(cases), "ratio": ours / theirs})
    print(f"triton {version}, python {platform.python_version()}, {args.n} layouts per kind")
    print(f"{'kind':<18}{'llverify us':>13}{'triton us':>12}{'ratio':>8}")
    for r in rows:
        print(f"{r['kind']:<18}{r['llverify_us']:>13.1f}{r['triton_us']:>12.1f}{r['ratio']:>8.2f}")
    out_path = ROOT / "benchmarks" / "results" / "bench_zoo.json"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps({"triton": version, "python": platform.python_version(), "n": args.n,
                                    "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
