"""Benchmark the prover: each property x each method x domain size, plus a naive Z3 baseline.

Layouts: ``n`` in bits over register/lane/warp/block onto dim0 x dim1, the
columns a random permutation of the unit vectors (distributed, invertible, a
memory layout: every claim holds, so every method must do its full work).
Domain sizes 2^10, 2^16, 2^20, 2^30, 2^40; ``exhaustive`` only where the size
guard allows (2^26 points).

The naive baseline is the textbook Z3 encoding of surjectivity, quantified:
``exists y. forall x. L(x) != y`` with the ``If(bit, basis, 0)`` encoding (its
``unsat`` proves surjectivity), next to ours (``f2`` and the quantifier-free
``smt`` duality encoding).  Reported: the ratio naive / ours at 2^20.

Run:  python3 benchmarks/bench_prove.py  [--quick]
Writes benchmarks/results/bench_prove.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

import z3

from llverify import prove as P
from llverify.layout import LinearLayout
from llverify.prove import bv

SIZES = (10, 16, 20, 30, 40)
METHODS = ("f2", "exhaustive", "smt")
NAIVE_TIMEOUT_S = 20.0


def perm_layout(n: int, seed: int) -> LinearLayout:
    rng = random.Random(seed)
    split = [n // 4, min(5, n // 4), n // 4]
    split.append(n - sum(split))
    o0 = n // 2
    units = list(range(n))
    rng.shuffle(units)
    bases, j = [], 0
    for d, k in zip(("register", "lane", "warp", "block"), split):
        bs = []
        for _ in range(k):
            u = units[j]
            j += 1
            bs.append([1 << u, 0] if u < o0 else [0, 1 << (u - o0)])
        bases.append((d, bs))
    return LinearLayout(bases, [("dim0", 1 << o0), ("dim1", 1 << (n - o0))])


def timed(fn, reps: int) -> tuple[float, str]:
    best, status = float("inf"), ""
    for _ in range(reps):
        t0 = time.perf_counter()
        v = fn()
        best = min(best, time.perf_counter() - t0)
        status = v if isinstance(v, str) else v.status
    return best, status


def naive_surjective(L: LinearLayout) -> str:
    """``exists y forall x. L(x) != y`` (quantified): unsat <=> surjective."""
    x = bv.input_vars(L, prefix="q_")
    terms = bv.layout_terms(L, x, encoding="ite")
    y = {n: z3.BitVec(f"y_{n}", t.size()) for n, t in terms.items()}
    qvars = [v for v in x.values() if not z3.is_bv_value(v)]
    body = z3.Or(*[terms[n] != y[n] for n in terms])
    s = z3.Solver()
    s.set("timeout", int(NAIVE_TIMEOUT_S * 1000))
    s.add(z3.ForAll(qvars, body) if qvars else body)
    r = s.check()
    return "refuted" if r == z3.sat else "proved" if r == z3.unsat else "unknown"


def claims(L: LinearLayout, B: LinearLayout):
    C = L.invert_and_compose(B)
    Lt = L.transpose_ins(list(reversed(L.in_dim_names)))
    return {
        "surjective": lambda m: P.surjective(L, method=m),
        "injective": lambda m: P.injective(L, method=m),
        "bijective": lambda m: P.bijective(L, method=m),
        "distributed": lambda m: P.distributed(L, method=m),
        "memory": lambda m: P.memory(L, method=m),
        "equal": lambda m: P.equal(L, Lt, method=m),
        "conversion": lambda m: P.conversion(L, B, C, method=m),
        "in_bounds": lambda m: P.in_bounds(L, list(L.out_dims.values()), method=m),
        "duplicates": lambda m: P.duplicates(L, ["lane", "warp"], method=m),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one repetition, skip 2^40 naive")
    args = ap.parse_args()
    reps = 1 if args.quick else 3
    rows = []
    for n in SIZES:
        L, B = perm_layout(n, 1), perm_layout(n, 2)
        for prop, run in claims(L, B).items():
            for m in METHODS:
                if m == "exhaustive" and n > 26:
                    rows.append({"log2_domain": n, "property": prop, "method": m, "seconds": None,
                                 "status": "refused (size guard)"})
                    continue
                t, st = timed(lambda: run(m), reps if n <= 20 or m != "exhaustive" else 1)
                rows.append({"log2_domain": n, "property": prop, "method": m, "seconds": t, "status": st})
        t, st = timed(lambda: naive_surjective(L), 1)
        rows.append({"log2_domain": n, "property": "surjective", "method": "naive-z3 (quantified)",
                     "seconds": t, "status": st})

    print(f"{'2^n':>4} {'property':<12} {'method':<22} {'time':>12}  status")
    for r in rows:
        s = "-" if r["seconds"] is None else (f"{r['seconds'] * 1e3:9.3f} ms")
        print(f"{r['log2_domain']:>4} {r['property']:<12} {r['method']:<22} {s:>12}  {r['status']}")

    def get(n: int, prop: str, m: str) -> float | None:
        return next((r["seconds"] for r in rows if r["log2_domain"] == n and r["property"] == prop
                     and r["method"] == m and r["status"] == "proved"), None)

    naive20 = get(20, "surjective", "naive-z3 (quantified)")
    bound = naive20 is None  # the naive encoding hit its timeout: the ratio is a lower bound
    naive_t = naive20 if naive20 is not None else next(
        r["seconds"] for r in rows if r["log2_domain"] == 20 and r["method"].startswith("naive"))
    ratios = {}
    for m in METHODS:
        ours = get(20, "surjective", m)
        if ours:
            ratios[f"naive/{m}" + (" (lower bound: naive timed out)" if bound else "")] = naive_t / ours
    f2_max = max(r["seconds"] for r in rows if r["method"] == "f2")
    smt_max = max(r["seconds"] for r in rows if r["method"] == "smt")
    print("\nnaive-Z3 / ours on surjective at 2^20: " + ", ".join(f"{k} = {v:,.0f}x" for k, v in ratios.items()))
    print(f"slowest f2 call: {f2_max * 1e3:.3f} ms (target < 1 ms); slowest smt call: {smt_max:.3f} s (target < 1 s)")
    out = {"rows": rows, "ratios_at_2^20": ratios, "f2_max_s": f2_max, "smt_max_s": smt_max,
           "median_f2_s": statistics.median(r["seconds"] for r in rows if r["method"] == "f2"),
           "z3": bv.z3_version(), "python": platform.python_version(), "machine": platform.machine(),
           "rlimit": bv.default_rlimit()}
    path = Path(__file__).parent / "results" / "bench_prove.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
