"""Benchmark: LinearLayout algebra and evaluation, llverify vs Triton's C++ (same run).

Prints a table and writes ``benchmarks/results/bench_layout.json``.

    python benchmarks/bench_layout.py [--n 10000]

* ``evaluate``: the full table of a 2^24-input layout (target < 0.5 s);
  baseline: a naive numpy per-bit loop over the same inputs.
* ``product``, ``compose``, ``invert_and_compose``: N random calls on layouts
  of 16-20 input bits, llverify vs ``triton.tools.LinearLayout`` called from
  Python on the same layouts (target: ratio llverify/Triton <= 5).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

import numpy as np

from llverify import LinearLayout
from llverify.evaluate import evaluate_flat

OUT_NAMES = ["dim0", "dim1"]


def rand_layout(r: random.Random, in_bits: int, outs: dict[str, int], ins=("register", "lane", "warp")) -> LinearLayout:
    """A surjective random layout with ``in_bits`` input bits over ``outs``."""
    n_out = sum(s.bit_length() - 1 for s in outs.values())
    while True:
        counts = [0] * len(ins)
        for _ in range(in_bits):
            counts[r.randrange(len(ins))] += 1
        bases = {d: [[r.randrange(s) for s in outs.values()] for _ in range(c)] for d, c in zip(ins, counts)}
        L = LinearLayout(bases, outs, require_surjective=False)
        if in_bits < n_out or L.is_surjective():
            return L


def to_triton(L: LinearLayout):
    from triton.tools import LinearLayout as T

    return T.from_bases([(d, [list(b) for b in bs]) for d, bs in L.bases.items()], list(L.out_dim_names),
                        list(L.out_dims.values()), False)


def timed(fn, reps: int = 1) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000)
    args = ap.parse_args()
    r = random.Random(0)
    rows = []

    big = rand_layout(r, 24, {"dim0": 4096, "dim1": 4096})
    t_ours = min(timed(lambda: evaluate_flat(big)) for _ in range(3))

    def naive():
        x = np.arange(1 << 24, dtype=np.uint32)
        out = np.zeros_like(x)
        for k, col in enumerate(big.flat_columns):
            out ^= np.where((x >> k) & 1, np.uint32(col), np.uint32(0))
        return out

    t_naive = timed(naive)
    assert np.array_equal(naive(), evaluate_flat(big))
    rows.append(("evaluate 2^24 (vs naive numpy)", t_ours, t_naive))

    try:
        import triton  # noqa: F401

        have_triton = True
    except Exception:  # pragma: no cover
        have_triton = False

    outs = {"dim0": 256, "dim1": 256}
    pairs = []
    for _ in range(args.n):
        a = rand_layout(r, r.randint(16, 20), outs)
        b = rand_layout(r, r.randint(16, 20), outs)
        pairs.append((a, b))
    # compose: B's in dims are A's out dims
    comp = []
    for _ in range(args.n):
        a = rand_layout(r, r.randint(16, 20), {"dim0": 256, "dim1": 256})
        b = LinearLayout({"dim0": [[r.randrange(1 << 10)] for _ in range(8)],
                          "dim1": [[r.randrange(1 << 10)] for _ in range(8)]}, {"x": 1 << 10}, require_surjective=False)
        comp.append((a, b))
    prod_pairs = [(a, b.rename_in_dim("register", "block").rename_in_dim("lane", "cta").rename_in_dim("warp", "cluster"))
                  for a, b in pairs]
    ops = {
        "product": (prod_pairs, lambda a, b: a * b),
        "compose": (comp, lambda a, b: a.compose(b)),
        "invert_and_compose": (pairs, lambda a, b: a.invert_and_compose(b)),
    }
    for name, (items, fn) in ops.items():
        t_ours = timed(lambda: [fn(a, b) for a, b in items])
        if have_triton:
            titems = [(to_triton(a), to_triton(b)) for a, b in items]
            t_tri = timed(lambda: [fn(a, b) for a, b in titems])
            for (a, b), (ta, tb) in zip(items[:200], titems[:200]):
                assert str(fn(a, b)) == str(fn(ta, tb)), name
        else:
            t_tri = float("nan")
        rows.append((f"{name} x{args.n} (vs triton)", t_ours, t_tri))

    print(f"{'benchmark':40s} {'llverify s':>12s} {'baseline s':>12s} {'ratio':>8s}")
    for name, a, b in rows:
        print(f"{name:40s} {a:12.4f} {b:12.4f} {a / b:8.2f}")
    os.makedirs(os.path.join(os.path.dirname(__file__), "results"), exist_ok=True)
    with open(os.path.join(os.path.dirname(__file__), "results", "bench_layout.json"), "w") as f:
        json.dump({"rows": [{"name": n, "llverify_s": a, "baseline_s": b, "ratio": a / b} for n, a, b in rows]}, f,
                  indent=2)


if __name__ == "__main__":
    main()
