"""The gate's read + check, in thread-CPU time, for two trees on the stored corpus: a base tree (``git archive
<commit> | tar -x -C DIR``) and this one, base and new alternated module by module in fresh processes.

Per module of bench_ttgir_ab's set (``tests/data/ttgir/*-cuda_90-w4.ttgir`` and ``*-hip_gfx942-w4.ttgir``, the
TTGIR Triton 3.9 printed for those kernels) and per tree: ``ROUNDS`` fresh processes, each timing ``parse_module``
and ``check_module`` with every memo cleared before each of 5 repeats (one warm-up discarded); the minimum thread
CPU time over all of them, for the gate (parse + check) and for the check alone.  No Triton compile runs here, so
the numbers are the gate's only, and the thread-CPU minimum is what a loaded shared machine disturbs least.  Prints
per-module rows and the median and total ratio new / base; writes ``benchmarks/results/bench_check_ab.json``.

    git archive BASE_COMMIT | tar -x -C /tmp/base && python3 benchmarks/bench_check_ab.py /tmp/base [ROUNDS]
"""
import json, os, statistics, sys
from pathlib import Path

from tree_run import run_in_tree

NEW = str(Path(__file__).resolve().parent.parent)
if len(sys.argv) < 2 or not Path(sys.argv[1], "llverify").is_dir():
    sys.exit("usage: bench_check_ab.py BASE_TREE [ROUNDS]  (BASE_TREE: a checkout with llverify/)")
BASE = str(Path(sys.argv[1]).resolve())
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
DATA = Path(NEW, "tests", "data", "ttgir")
MODULES = sorted([*DATA.glob("*-cuda_90-w4.ttgir"), *DATA.glob("*-hip_gfx942-w4.ttgir")])
CHILD = r'''
import sys, time
from llverify.ttgir.gate import check_module
from llverify.ttgir.layouts import _build
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules import clear_caches
from llverify.ttgir.syntax import _changes
text = open(sys.argv[1]).read(); reps = int(sys.argv[2])
gate, check, n = [], [], 0
for _ in range(reps + 1):
    _build.cache_clear(); clear_caches(); _changes.cache_clear()
    t0 = time.thread_time(); m = parse_module(text, "x.ttgir"); t1 = time.thread_time()
    n = len(check_module(m)); t2 = time.thread_time()
    gate.append(t2 - t0); check.append(t2 - t1)
import llverify
print(min(gate[1:]), min(check[1:]), n, llverify.__file__)
'''


def run(tree: str, path: Path) -> tuple[float, float, int]:
    g, c, n, where = run_in_tree(tree, CHILD, [str(path), "5"]).split()
    assert where == str(Path(tree, "llverify", "__init__.py")), (tree, where)  # the tree asked for ran
    return float(g), float(c), int(n)


rows = []
loads = [os.getloadavg()[0]]
for k, path in enumerate(MODULES):
    best = {"base": [9.0, 9.0, -1], "new": [9.0, 9.0, -1]}
    for r in range(ROUNDS):
        for tag, tree in ((("base", BASE), ("new", NEW)) if (k + r) % 2 == 0 else (("new", NEW), ("base", BASE))):
            g, c, n = run(tree, path)
            best[tag] = [min(best[tag][0], g), min(best[tag][1], c), n]
    assert best["base"][2] == best["new"][2], (path.name, best)  # the same number of findings
    row = {"module": path.stem, "gate_base_s": best["base"][0], "gate_new_s": best["new"][0],
           "check_base_s": best["base"][1], "check_new_s": best["new"][1], "findings": best["new"][2]}
    rows.append(row)
    loads.append(os.getloadavg()[0])
    print(f"{path.stem:58} gate {row['gate_base_s'] * 1e3:6.1f} -> {row['gate_new_s'] * 1e3:6.1f} ms | check "
          f"{row['check_base_s'] * 1e3:6.1f} -> {row['check_new_s'] * 1e3:6.1f} ms", flush=True)


def ratios(base: str, new: str) -> dict:
    return {"median new/base": round(statistics.median(r[new] / r[base] for r in rows), 3),
            "total new/base": round(sum(r[new] for r in rows) / sum(r[base] for r in rows), 3),
            "total base s": round(sum(r[base] for r in rows), 4), "total new s": round(sum(r[new] for r in rows), 4)}


summary = {"modules": len(rows), "rounds": ROUNDS, "gate (read + check), thread cpu": ratios("gate_base_s", "gate_new_s"),
           "check only, thread cpu": ratios("check_base_s", "check_new_s"), "loadavg_1min": [round(x, 1) for x in loads]}
print(json.dumps(summary, indent=1))
Path(NEW, "benchmarks", "results", "bench_check_ab.json").write_text(json.dumps({"summary": summary, "rows": rows},
                                                                                indent=1) + "\n")
