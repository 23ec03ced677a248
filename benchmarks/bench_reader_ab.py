"""The TTGIR reader alone (``parse_modules``) over the corpus, for two trees in the same run: a base tree
(``git archive <commit> | tar -x -C DIR``) and this one, in alternating fresh processes so both see one load.

Per tree and round: every ``tests/data/ttgir/**/*.ttgir`` file parsed ``REPEATS`` times (the bracket-scan memo
cleared before each parse, as ``bench_ttgir`` does), the minimum thread-CPU time per file kept; the rounds'
totals are compared (median of per-round ratios new / base).  Also checks that both trees read every file to the
same modules (``repr`` digest per file): a speed-up must not change the reader's output.

    git archive BASE_COMMIT | tar -x -C /tmp/base && python3 benchmarks/bench_reader_ab.py /tmp/base [ROUNDS] [REPEATS]
"""
import json, os, statistics, sys
from pathlib import Path

from tree_run import run_in_tree

NEW = str(Path(__file__).resolve().parent.parent)
if len(sys.argv) < 2 or not Path(sys.argv[1], "llverify").is_dir():
    sys.exit("usage: bench_reader_ab.py BASE_TREE [ROUNDS] [REPEATS]")
BASE = str(Path(sys.argv[1]).resolve())
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
REPEATS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
FILES = sorted(str(p) for p in Path(NEW, "tests", "data", "ttgir").rglob("*.ttgir"))

CHILD = r'''
import hashlib, json, sys, time
import llverify
assert llverify.__file__.startswith(sys.argv[3]), (llverify.__file__, sys.argv[3])
from llverify.ttgir.model import TtgirError
from llverify.ttgir.reader import parse_modules
from llverify.ttgir.syntax import _changes
files, reps = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for f in files:
    text = open(f).read()
    best, digest = float("inf"), ""
    for _ in range(reps):
        _changes.cache_clear()
        t0 = time.thread_time()
        try:
            mods = parse_modules(text, f)
        except TtgirError as exc:
            mods = "error: " + str(exc)
        best = min(best, time.thread_time() - t0)
    digest = hashlib.sha256(repr(mods).encode()).hexdigest()
    out[f] = [best, digest]
print(json.dumps(out))
'''


def run(tree: str) -> dict:
    return json.loads(run_in_tree(tree, CHILD, [json.dumps(FILES), str(REPEATS), tree]))


loads = [os.getloadavg()[0]]
totals = {"base": [], "new": []}
per_file = {"base": {}, "new": {}}
for k in range(ROUNDS):
    order = [("base", BASE), ("new", NEW)] if k % 2 == 0 else [("new", NEW), ("base", BASE)]
    for tag, tree in order:
        res = run(tree)
        totals[tag].append(sum(v[0] for v in res.values()))
        for f, (t, d) in res.items():
            prev = per_file[tag].get(f)
            per_file[tag][f] = (min(t, prev[0]) if prev else t, d)
    loads.append(os.getloadavg()[0])
    print(f"round {k}: base {totals['base'][-1]*1e3:7.1f} ms  new {totals['new'][-1]*1e3:7.1f} ms", flush=True)
differ = [f for f in FILES if per_file["base"][f][1] != per_file["new"][f][1]]
ratios = [b / n for b, n in zip(totals["base"], totals["new"])]
file_ratios = [per_file["base"][f][0] / per_file["new"][f][0] for f in FILES if per_file["new"][f][0] > 0]
summary = {"files": len(FILES), "rounds": ROUNDS, "repeats": REPEATS,
           "base total ms (median of rounds)": round(statistics.median(totals["base"]) * 1e3, 1),
           "new total ms (median of rounds)": round(statistics.median(totals["new"]) * 1e3, 1),
           "speed-up base/new (median of rounds)": round(statistics.median(ratios), 2),
           "speed-up per file (median, min)": [round(statistics.median(file_ratios), 2), round(min(file_ratios), 2)],
           "files whose parsed modules differ": [os.path.relpath(f, NEW) for f in differ],
           "loadavg_1min": [round(x, 1) for x in loads]}
print(json.dumps(summary, indent=1))
Path(NEW, "benchmarks", "results").mkdir(exist_ok=True)
Path(NEW, "benchmarks", "results", "bench_reader_ab.json").write_text(json.dumps(summary, indent=1) + "\n")
sys.exit(1 if differ else 0)
