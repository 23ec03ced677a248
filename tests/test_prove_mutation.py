"""Mutation testing over the hardware zoo: every property a mutant changes is refuted, and it replays.

Correct layouts come from ``llverify.hw`` (every sampled kind).  Mutants flip
one basis bit, swap two bases, or zero one basis.  Ground truth for each
property is computed here from the numpy tables (independently of the prover).
The mutation score (refuted-and-replayed / changed) must be 100%.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from llverify import prove as P
from llverify.evaluate import evaluate_flat
from llverify.layout import LinearLayout

hw = pytest.importorskip("llverify.hw")
sampling = pytest.importorskip("llverify.hw.sampling")

from prove_strategies import from_columns  # noqa: E402


def zoo(per_kind: int, max_bits: int, seed: int = 4) -> list[tuple[str, LinearLayout]]:
    rng = random.Random(seed)
    out = []
    for kind in sampling.SAMPLED_KINDS:
        got = 0
        for _ in range(per_kind * 10):
            try:
                c = sampling.random_case(kind, rng)
                L = hw.build(c["kind"], c["shape"], **c["params"])
            except Exception:  # a kind still being written, or a rejected random case
                continue
            if L.total_in_bits <= max_bits and 1 <= L.total_out_bits <= max_bits and L.total_in_bits >= 2:
                out.append((kind, L))
                got += 1
                if got == per_kind:
                    break
    return out


def mutants(L: LinearLayout, rng: random.Random) -> list[tuple[str, LinearLayout]]:
    cols = list(L.flat_columns)
    n, m = len(cols), L.total_out_bits
    out = []
    j, r = rng.randrange(n), rng.randrange(m)
    c = cols.copy(); c[j] ^= 1 << r; out.append((f"flip col {j} bit {r}", from_columns(L, c)))
    nz = [i for i, v in enumerate(cols) if v]
    if len(nz) >= 2:
        a, b = rng.sample(nz, 2)
        c = cols.copy(); c[a], c[b] = c[b], c[a]; out.append((f"swap cols {a},{b}", from_columns(L, c)))
    if nz:
        z = rng.choice(nz)
        c = cols.copy(); c[z] = 0; out.append((f"zero col {z}", from_columns(L, c)))
    return out


def truth(L: LinearLayout) -> dict[str, bool]:
    T = evaluate_flat(L).astype(np.int64)
    n_out = 1 << L.total_out_bits
    surj = np.unique(T).size == n_out
    inj = np.unique(T).size == T.size
    cols = [int(T[1 << j]) for j in range(L.total_in_bits)]
    nz = [c for c in cols if c]
    dist = surj and all(bin(c).count("1") <= 1 for c in cols) and len(set(nz)) == len(nz)
    mem = surj and inj and all(bin(c).count("1") in (1, 2) for c in cols)
    out = {"surjective": surj, "injective": inj, "bijective": surj and inj, "memory": mem}
    if set(L.in_dim_names) <= set(P.properties.DISTRIBUTED_DIMS):
        out["distributed"] = dist
    return out


def run_mutation(per_kind: int, max_bits: int, methods: tuple[str, ...]) -> tuple[int, int, list[str]]:
    rng = random.Random(11)
    changed = detected = 0
    misses: list[str] = []
    for kind, L in zoo(per_kind, max_bits):
        base = truth(L)
        for mname, M in mutants(L, rng):
            mt = truth(M)
            for prop, was in base.items():
                if mt[prop] == was:
                    continue
                for meth in methods:
                    changed += 1
                    v = getattr(P, prop)(M, method=meth)
                    ok = v.status == ("proved" if mt[prop] else "refuted")
                    detected += ok
                    if not ok:
                        misses.append(f"{kind} {mname} {prop} {meth}: {v.status} {v.message}")
            diff = not np.array_equal(evaluate_flat(L), evaluate_flat(M))
            for meth in methods:
                v = P.equal(L, M, method=meth)
                if diff:
                    changed += 1
                    x = dict(v.counterexample.inputs) if v.refuted else None
                    ok = v.refuted and L.apply(x) != M.apply(x)
                    detected += ok
                    if not ok:
                        misses.append(f"{kind} {mname} equal {meth}: {v.status}")
                else:
                    assert v.proved
            if L.is_surjective():  # conversion L -> L through a mutated identity-like C
                C = L.invert_and_compose(L)
                Cm = from_columns(C, [c ^ (1 << (k % max(1, C.total_out_bits))) if k == 0 else c
                                      for k, c in enumerate(C.flat_columns)]) if C.total_out_bits else C
                real = any(L.apply_flat(C.apply_flat(1 << j)) != L.apply_flat(Cm.apply_flat(1 << j))
                           for j in range(L.total_in_bits))
                for meth in methods:
                    v = P.conversion(L, L, Cm, method=meth)
                    if real:
                        changed += 1
                        x = dict(v.counterexample.inputs) if v.refuted else None
                        ok = v.refuted and L.apply(Cm.apply(x)) != L.apply(x)
                        detected += ok
                        if not ok:
                            misses.append(f"{kind} conversion {meth}: {v.status}")
    return changed, detected, misses


def test_zoo_mutation_score_is_100_percent(capsys) -> None:
    changed, detected, misses = run_mutation(per_kind=2, max_bits=12, methods=("f2", "exhaustive", "smt"))
    with capsys.disabled():
        print(f"\nmutation score: {detected}/{changed} changed properties refuted (or re-proved) with replay")
    assert changed > 50
    assert not misses, misses[:5]


def test_equal_L_L_proves_on_the_zoo_with_every_method() -> None:
    for kind, L in zoo(per_kind=3, max_bits=16, seed=9):
        for meth in ("f2", "exhaustive", "smt"):
            v = P.equal(L, L, method=meth)
            assert v.proved, (kind, meth, v.message)


@pytest.mark.slow
def test_zoo_mutation_score_large() -> None:
    changed, detected, misses = run_mutation(per_kind=8, max_bits=18, methods=("f2", "exhaustive", "smt"))
    print(f"\nmutation score: {detected}/{changed}")
    assert not misses, misses[:5]


def test_first_repeat_finds_the_least_repeated_position() -> None:
    """The sort-free collision search (bounded memory) against a direct reference on random tables, across
    chunk boundaries."""
    import numpy as np

    from llverify.prove.exhaustive import _first_repeat

    rng = np.random.default_rng(3)
    for n_out, size in ((64, 40), (1 << 12, 3000), (1 << 22, 1 << 21)):
        for _ in range(3):
            vals = rng.permutation(n_out)[:size].astype(np.uint32)
            assert _first_repeat(vals, n_out) is None
            j = int(rng.integers(1, size))
            i = int(rng.integers(0, j))
            vals[j] = vals[i]
            firsts: dict[int, int] = {}
            want = None
            for k, v in enumerate(vals.tolist()):
                if v in firsts:
                    want = (firsts[v], k)
                    break
                firsts[v] = k
            assert _first_repeat(vals, n_out) == want
