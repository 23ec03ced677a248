"""The gate's cost against Triton's own compile time to TTGIR, per module, measured in the same run.

For every kernel configuration of examples/kernels/ (cuda:90 and hip:gfx942, 4 warps, by default), a
child process compiles it with Triton, stopping the pipeline after the ``ttgir`` stage (the stages
hook drops the later stages), ``REPEATS`` times warm; the gate then checks the module it produced
(in process, reader + every obligation), ``REPEATS`` times.  Prints the per-module table, the median
and worst ratio gate / compile (target: median <= 0.10), and the corpus throughput of
``llverify ttgir`` with ``-j 1`` and ``-j 2`` (fresh processes, no cache) and a warm-cache re-run.
Writes ``benchmarks/results/bench_ttgir.json``.

    python3 benchmarks/bench_ttgir.py [--repeats N] [--targets cuda:90,hip:gfx942]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "examples" / "kernels"
CORPUS = ROOT / "tests" / "data" / "ttgir"

CHILD = r'''
import json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
import build_corpus
import triton
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
job = json.loads(sys.argv[3]); repeats = int(sys.argv[4])
captured = {}
def hook(*args):
    if not args:
        return "bench-ttgir-only", "bench-ttgir-only"
    backend, stages, options, language, capability = args
    inner = stages["ttgir"]
    def ttgir(src, md):
        mod = inner(src, md)
        captured["text"] = str(mod)
        raise StopIteration  # stop the pipeline after TTGIR
    stages["ttgir"] = ttgir
knobs.runtime.add_stages_inspection_hook = hook
knobs.compilation.always_compile = True
case = {c.name: c for c in build_corpus.load_cases()}[job["kernel"]]
cfg = case.configs[job["config"]]
sig = dict(case.signature, **{k: "constexpr" for k in cfg})
backend, arch = job["target"].split(":")
target = GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)
if case.gluon:
    from triton.experimental.gluon._runtime import GluonASTSource as Source
else:
    Source = ASTSource
times = []
for _ in range(repeats + 1):
    t0 = time.perf_counter()
    try:
        triton.compile(Source(fn=case.fn, signature=sig, constexprs=cfg), target=target,
                       options={"num_warps": job["warps"]})
    except StopIteration:
        pass
    except RuntimeError as e:
        if "StopIteration" not in str(e):
            raise
    times.append(time.perf_counter() - t0)
print(json.dumps({"seconds": statistics.median(times[1:]), "ttgir": captured.get("text", "")}))
'''


def compile_to_ttgir(job: dict, repeats: int) -> dict:
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="bench-ttgir-")}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples"), str(KERNELS), json.dumps(job),
                           str(repeats)], capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def gate_seconds(text: str, path: str, repeats: int) -> tuple[float, int]:
    from llverify.ttgir.gate import check_module
    from llverify.ttgir.layouts import _build
    from llverify.ttgir.reader import parse_module
    from llverify.ttgir.rules import clear_caches
    from llverify.ttgir.syntax import _changes

    times = []
    n = 0
    for _ in range(repeats):
        _build.cache_clear()  # every repeat pays layout construction and every proof again
        clear_caches()
        _changes.cache_clear()
        t0 = time.perf_counter()
        n = len(check_module(parse_module(text, path)))
        times.append(time.perf_counter() - t0)
    return statistics.median(times), n


def cli_seconds(args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", *args], cwd=ROOT, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--targets", default="cuda:90,hip:gfx942")
    opts = ap.parse_args()
    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(KERNELS))
    import build_corpus

    targets = opts.targets.split(",")
    jobs = [j for j in build_corpus.jobs(build_corpus.load_cases(), None) if j["target"] in targets and j["warps"] == 4]
    rows = []
    for job in jobs:
        res = compile_to_ttgir(job, opts.repeats)
        name = build_corpus.module_name(job)
        if "error" in res or not res.get("ttgir"):
            print(f"{name}: skipped ({res.get('error', 'no ttgir')})")
            continue
        g, n = gate_seconds(res["ttgir"], name + ".ttgir", opts.repeats)
        rows.append({"module": name, "compile_s": res["seconds"], "gate_s": g, "obligations": n,
                     "ratio": g / res["seconds"]})
        print(f"{name:60} compile {res['seconds'] * 1000:8.1f} ms  gate {g * 1000:7.1f} ms  "
              f"ratio {g / res['seconds']:.3f}  ({n} obligations)")
    ratios = [r["ratio"] for r in rows]
    files = [str(p) for p in sorted(CORPUS.glob("*.ttgir"))]
    cache = Path(tempfile.mkdtemp()) / "c.sqlite"
    j1 = cli_seconds(["--no-cache", "-j", "1", *files])
    j2 = cli_seconds(["--no-cache", "-j", "2", *files])
    cli_seconds(["--cache", str(cache), *files])
    warm = cli_seconds(["--cache", str(cache), *files])
    summary = {"modules_timed": len(rows), "median_ratio": statistics.median(ratios), "worst_ratio": max(ratios),
               "corpus_modules": len(files), "j1_s": j1, "j2_s": j2, "speedup_j2": j1 / j2,
               "modules_per_s_j1": len(files) / j1, "modules_per_s_j2": len(files) / j2,
               "warm_cache_s": warm, "warm_speedup": j1 / warm}
    print()
    print(f"gate / Triton compile-to-TTGIR over {len(rows)} modules: median {summary['median_ratio']:.3f}, "
          f"worst {summary['worst_ratio']:.3f} (target median <= 0.10)")
    print(f"llverify ttgir over the corpus ({len(files)} modules, fresh process): -j 1 {j1:.2f} s "
          f"({summary['modules_per_s_j1']:.0f}/s), -j 2 {j2:.2f} s ({summary['modules_per_s_j2']:.0f}/s, "
          f"{summary['speedup_j2']:.2f}x), warm cache {warm:.2f} s ({summary['warm_speedup']:.1f}x)")
    out = ROOT / "benchmarks" / "results" / "bench_ttgir.json"
    out.write_text(json.dumps({"benchmark": "bench_ttgir", "cpus": os.cpu_count(), "summary": summary, "rows": rows},
                              indent=2) + "\n")


if __name__ == "__main__":
    main()
