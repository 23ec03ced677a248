"""bench_ttgir's comparison (the gate vs Triton's compile to TTGIR, per module) for two trees in the same run: a
base tree (``git archive <commit> | tar -x -C DIR``) and this one, so a performance change is judged under one load.

Per module: Triton's compile (bench_ttgir's child, ``REPEATS`` warm; wall median and process-CPU minimum), then
the gate in a fresh process of each tree, in alternating order (``bench_ttgir.gate_seconds``: wall median; and
the thread-CPU minimum, which a loaded shared machine disturbs less).  Prints per-module rows and the median and
worst ratio gate / compile of each tree; writes ``benchmarks/results/bench_ttgir_ab.json``.

    git archive BASE_COMMIT | tar -x -C /tmp/base && python3 benchmarks/bench_ttgir_ab.py /tmp/base [REPEATS]
"""
import json, os, statistics, subprocess, sys, tempfile
from pathlib import Path
NEW = str(Path(__file__).resolve().parent.parent)
if len(sys.argv) < 2 or not Path(sys.argv[1], "llverify").is_dir() or not Path(sys.argv[1], "benchmarks", "bench_ttgir.py").is_file():
    sys.exit("usage: bench_ttgir_ab.py BASE_TREE [REPEATS]  (BASE_TREE: a checkout with llverify/ and benchmarks/)")
BASE = str(Path(sys.argv[1]).resolve())
sys.path.insert(0, NEW + "/benchmarks"); sys.path.insert(0, NEW + "/examples"); sys.path.insert(0, NEW + "/examples/kernels")
import bench_ttgir as b
import build_corpus
from tree_run import run_in_tree
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
CHILD = b.CHILD.replace("times = []", "times = []; cpu = []").replace(
    "    t0 = time.perf_counter()\n    try:", "    t0 = time.perf_counter(); c0 = time.process_time()\n    try:").replace(
    "    times.append(time.perf_counter() - t0)", "    times.append(time.perf_counter() - t0); cpu.append(time.process_time() - c0)").replace(
    '"ttgir": captured.get("text", "")', '"ttgir": captured.get("text", ""), "cpu": min(cpu[1:])')
assert '"cpu"' in CHILD and "c0 = time.process_time()" in CHILD
GATE = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_ttgir
from llverify.ttgir.gate import check_module
from llverify.ttgir.layouts import _build
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules import clear_caches
from llverify.ttgir.syntax import _changes
text = open(sys.argv[2]).read(); name = sys.argv[3]; reps = int(sys.argv[4])
wall, n = bench_ttgir.gate_seconds(text, name, reps)
cpu = []
for _ in range(reps):
    _build.cache_clear(); clear_caches(); _changes.cache_clear()
    t0 = time.thread_time(); check_module(parse_module(text, name)); cpu.append(time.thread_time() - t0)
import llverify
assert llverify.__file__ == sys.argv[1] + "/llverify/__init__.py", (sys.argv[1], llverify.__file__)  # the tree asked for
print(json.dumps([wall, n, min(cpu)]))
'''
def compile_job(job):
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="bench-ttgir-")}
    p = subprocess.run([sys.executable, "-c", CHILD, str(b.ROOT / "examples"), str(b.KERNELS), json.dumps(job), str(REPEATS)],
                       capture_output=True, text=True, env=env, timeout=600)
    if p.returncode: return {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(p.stdout.strip().splitlines()[-1])
def gate(tree, path, name):
    return json.loads(run_in_tree(tree, GATE, [tree, path, name + ".ttgir", str(REPEATS)]))
jobs = [j for j in build_corpus.jobs(build_corpus.load_cases(), None) if j["target"] in ("cuda:90", "hip:gfx942") and j["warps"] == 4]
rows = []; loads = [os.getloadavg()[0]]; TMP = tempfile.mkdtemp(prefix="bench-ttgir-ab-")
for k, job in enumerate(jobs):
    res = compile_job(job)
    name = build_corpus.module_name(job)
    if "error" in res or not res.get("ttgir"):
        print(name, "skipped", res.get("error")); continue
    path = os.path.join(TMP, f"m{k}.ttgir"); open(path, "w").write(res["ttgir"])
    order = [("base", BASE), ("new", NEW)] if k % 2 == 0 else [("new", NEW), ("base", BASE)]
    g = {tag: gate(tree, path, name) for tag, tree in order}
    assert g["base"][1] == g["new"][1], (name, g)
    row = {"module": name, "compile_s": res["seconds"], "compile_cpu_s": res["cpu"], "gate_base_s": g["base"][0],
           "gate_new_s": g["new"][0], "gate_base_cpu_s": g["base"][2], "gate_new_cpu_s": g["new"][2], "obligations": g["new"][1]}
    rows.append(row)
    print(f"{name:58} wall: compile {row['compile_s']*1e3:6.1f} gate {row['gate_base_s']*1e3:6.1f} -> {row['gate_new_s']*1e3:6.1f} ms | "
          f"cpu: compile {row['compile_cpu_s']*1e3:6.1f} gate {row['gate_base_cpu_s']*1e3:5.1f} -> {row['gate_new_cpu_s']*1e3:5.1f} ms", flush=True)
    loads.append(os.getloadavg()[0])
def stats(num, den):
    r = [x[num] / x[den] for x in rows]
    return {"median": round(statistics.median(r), 3), "worst": round(max(r), 3)}
summary = {"modules": len(rows),
           "wall (the bench's numbers)": {"before": stats("gate_base_s", "compile_s"), "after": stats("gate_new_s", "compile_s")},
           "cpu": {"before": stats("gate_base_cpu_s", "compile_cpu_s"), "after": stats("gate_new_cpu_s", "compile_cpu_s")},
           "gate after / before": {"wall median": round(statistics.median(r["gate_new_s"] / r["gate_base_s"] for r in rows), 3),
                                   "cpu median": round(statistics.median(r["gate_new_cpu_s"] / r["gate_base_cpu_s"] for r in rows), 3),
                                   "cpu total": round(sum(r["gate_new_cpu_s"] for r in rows) / sum(r["gate_base_cpu_s"] for r in rows), 3)},
           "loadavg_1min": [round(x, 1) for x in loads]}
print(json.dumps(summary, indent=1))
Path(NEW, "benchmarks", "results", "bench_ttgir_ab.json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1) + "\n")
