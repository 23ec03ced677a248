"""What a gate process loads: a cold `llverify ttgir` run over modules whose checks never build an SMT query
does not load Z3 (about 40 ms per process, paid by every pool worker otherwise); a warm run loads neither the
checker nor numpy (tests/test_ttgir_cache.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ttgir"

CHILD = r"""
import json, sys
from llverify.ttgir.units import run_unit
counts = {}
for path in sys.argv[1:]:
    o = run_unit((path, "text", False, None))
    for k, v in o.counts.items():
        counts[k] = counts.get(k, 0) + v
print(json.dumps({"z3": "z3" in sys.modules, "bv": "llverify.prove.bv" in sys.modules,
                  "banks": "llverify.prove.plan_banks" in sys.modules, "counts": counts}))
"""


def test_a_cold_gate_run_without_smt_queries_does_not_load_z3() -> None:
    files = [str(p) for p in sorted(CORPUS.glob("*.ttgir"))
             if p.name.startswith(("matmul-t64s3-", "transpose-", "attention-q64k64d64-"))]
    assert len(files) >= 10
    out = subprocess.run([sys.executable, "-c", CHILD, *files], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    assert doc["counts"]["proved"] > 100  # the modules were really checked, bank claims included
    assert doc["banks"]  # the bank-count prover is loaded ...
    assert not doc["z3"] and not doc["bv"]  # ... but Z3 and its encoding only when a query is built
