"""Construct 10^4 random layouts per kind with llverify and with Triton's to_linear_layout, same run.

    python3 benchmarks/bench_zoo.py [--n 10000] [--seed 0]

Cases come from ``llverify.hw.sampling.random_case`` (valid parameters only;
cases llverify rejects are dropped for both sides), plus ``padded_shared``
(:func:`random_padded_case`): Triton has no linear layout of a padded layout
(``to_linear_layout`` aborts), so its side is building and verifying the
attribute (which holds the linear component), and ours is
``llverify.hw.padded.padded_shared`` (the linear component and the padding).
A multi-buffered memdesc builds its encoding's layout on the trailing dims, so
its cost is the kind's.  Triton runs in a child
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
from llverify.hw.padded import padded_shared  # noqa: E402
from llverify.hw.sampling import SAMPLED_KINDS, random_case  # noqa: E402


def random_padded_case(rng: random.Random) -> dict:
    """A random ``#ttg.padded_shared``: rank 1-3, up to 2^14 elements, the offset bases a random
    permutation of the unit bases (every linear component Triton accepts without CTA bases), one to three
    power-of-two ``[interval, padding]`` pairs with distinct intervals."""
    rank = rng.randint(1, 3)
    logs = [rng.randint(0, 5) for _ in range(rank)]
    while sum(logs) > 14 or sum(logs) == 0:
        logs = [rng.randint(0, 5) for _ in range(rank)]
    units = [[(1 << k) if d == dim else 0 for d in range(rank)] for dim in range(rank) for k in range(logs[dim])]
    rng.shuffle(units)
    n = sum(logs)
    intervals = rng.sample(range(n + 1), min(n + 1, rng.randint(1, 3)))
    pairs = [[1 << i, 1 << rng.randint(0, 4)] for i in intervals]
    return {"kind": "padded_shared", "params": {"interval_padding_pairs": pairs, "offset_bases": units},
            "shape": [1 << l for l in logs]}


def _build_case(c: dict) -> object:
    if c["kind"] == "padded_shared":
        return padded_shared(shape=c["shape"], **c["params"])
    return build(c["kind"], c["shape"], **c["params"])

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
        if kind == "padded_shared":
            intervals, paddings = zip(*p["interval_padding_pairs"])
            b.get_padded_shared_layout(list(intervals), list(paddings), p["offset_bases"], [], shape)
            continue
        b.to_linear_layout(o.gluon_attr(o.GluonOracleBuilder(b, gluon_ir), kind, p), shape)
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
    for kind in [*SAMPLED_KINDS, "padded_shared"]:
        rng = random.Random(f"{args.seed}-{kind}")
        cases = []
        while len(cases) < args.n:
            c = random_padded_case(rng) if kind == "padded_shared" else random_case(kind, rng)
            try:
                _build_case(c)
            except LayoutError:
                continue
            cases.append(c)
        t0 = time.perf_counter()
        for c in cases:
            _build_case(c)
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
            if res["fails"] > len(cases) // 10:  # a time over failed calls measures nothing
                print(f"{kind}: Triton refused {res['fails']} of {len(cases)} cases", file=sys.stderr)
                theirs = float("nan")
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
