"""Differential tests: llverify.hw against Triton 3.9.0's own toLinearLayout (child processes).

Every case's bases must be identical; a case Triton rejects (raises or aborts)
must raise LayoutError here.  Cases are pre-filtered by our own validation:
accepted ones go to Triton in large batches, rejected ones in small ones (a
Triton abort costs a fresh child process), two children at a time.  llverify is deliberately stricter than Triton in
a few documented places (Triton accepts these and computes meaningless
bases): malformed legacy CGA triples (wrong lengths), MMA instruction shapes
that no instruction has, non-positive swizzle parameters, element bit widths
Gluon's Python class rejects; and rank > 2 ``transposed`` NVMMA shared
layouts are refused as not modelled (Triton 3.9.0's own result there is not
a memory layout: it has zero offset bases even without swizzling).  The only Triton rejection we do not
mirror is Gluon's Python wrapper refusing a shared layout with an empty
``offset`` dim (a one-element-per-CTA buffer), which Triton's C++ computes fine.
"""

from __future__ import annotations

import json
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import oracle_triton  # noqa: E402

from llverify.errors import LayoutError  # noqa: E402
from llverify.hw import build  # noqa: E402
from llverify.hw.sampling import SAMPLED_KINDS, random_case  # noqa: E402

pytestmark = pytest.mark.skipif(not oracle_triton.available(), reason="triton (the oracle) is not installed")

STRICTER = ("has 2 entries", "has 3 entries", "has 4 entries", "has 1 entries", "instr_shape", "must be a positive",
            "element_bitwidth", "not modelled", "version", "components", "must be in [1, 4]",
            "tiles_per_warp has")
GLUON_ARTIFACT = "offset_bases must not be empty"


def _mine(case):
    try:
        ll = build(case["kind"], case["shape"], **case["params"])
    except LayoutError as exc:
        return None, str(exc)
    return {d: [list(b) for b in bs] for d, bs in ll.bases.items()}, None


def _compare(cases, parallel=2):
    """Compare every case with Triton; returns (problems, stats, per-kind stats).

    Cases we accept go to Triton in large batches; cases we reject (Triton
    usually rejects them too, sometimes by aborting, which costs a new child)
    go in batches of 25, so an abort never delays the bulk.  ``parallel``
    children run at once.
    """
    mine = [_mine(c) for c in cases]
    ok_idx = [i for i, (m, _) in enumerate(mine) if m is not None]
    bad_idx = [i for i, (m, _) in enumerate(mine) if m is None]
    chunks = [(ok_idx[j:j + 1500], 1500) for j in range(0, len(ok_idx), 1500)]
    chunks += [(bad_idx[j:j + 100], 25) for j in range(0, len(bad_idx), 100)]
    res: list = [None] * len(cases)

    def work(chunk):
        idx, bs = chunk
        return idx, oracle_triton.run_cases([cases[i] for i in idx], batch_size=bs)

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for idx, got in pool.map(work, chunks):
            for i, r in zip(idx, got):
                res[i] = r
    problems, stats = [], {"same": 0, "both_reject": 0, "stricter": 0, "gluon_artifact": 0}
    per_kind: dict = {}
    for case, r, (m, err) in zip(cases, res, mine):
        if r["ok"] and m is not None:
            if m == r["bases"]:
                verdict = "same"
            else:
                problems.append(("different bases", case, r, m))
                verdict = "problem"
        elif not r["ok"] and m is None:
            verdict = "both_reject"
        elif r["ok"]:
            if any(s in err for s in STRICTER):
                verdict = "stricter"
            else:
                problems.append(("llverify rejects what Triton accepts: " + err, case, r, m))
                verdict = "problem"
        elif GLUON_ARTIFACT in r.get("error", ""):
            verdict = "gluon_artifact"
        else:
            problems.append(("llverify accepts what Triton rejects", case, r, m))
            verdict = "problem"
        if verdict in stats:
            stats[verdict] += 1
        k = per_kind.setdefault(case["kind"], {"same": 0, "both_reject": 0, "stricter": 0, "gluon_artifact": 0,
                                               "problem": 0})
        k[verdict] += 1
    return problems, stats, per_kind


def _run(n_per_kind, invalid, seed):
    rng = random.Random(seed)
    kinds = [k for k in SAMPLED_KINDS if oracle_triton.skip_reason(k) is None]  # the rest: no Gluon builder
    cases = [random_case(k, rng, invalid) for k in kinds for _ in range(n_per_kind)]
    t0 = time.perf_counter()
    problems, stats, per_kind = _compare(cases)
    print(f"\ntriton {oracle_triton.triton_version()}: {len(cases)} cases over {len(kinds)} kinds "
          f"in {time.perf_counter() - t0:.1f}s: {stats}")
    for k in SAMPLED_KINDS:
        if k not in kinds:
            print(f"  {k:16s} skipped: {oracle_triton.skip_reason(k)}")
    for k, v in per_kind.items():
        print(f"  {k:16s} {v}")
    for why, case, r, mine in problems[:5]:
        print(why, json.dumps(case), json.dumps(r)[:400], json.dumps(mine)[:400], sep="\n  ")
    return cases, problems, stats


def test_triton_version_is_the_judge():
    assert oracle_triton.triton_version() == "3.9.0"


def test_differential_default():
    cases, problems, stats = _run(84, 0.1, 1234)
    assert len(cases) >= 1_000
    assert not problems
    assert stats["same"] >= 800
    assert stats["both_reject"] >= 1  # rejection paths exercised


@pytest.mark.slow
def test_differential_sweep():
    cases, problems, stats = _run(1700, 0.1, 99)
    assert len(cases) >= 20_000
    assert not problems
