"""Lowered-code validation time per kernel against Triton's compile time to LLVM IR, in the same run.

For each sample of ``tests/data/lowered`` (rebuilt by ``tests/data/lowered/make.py``), a child process
compiles the same kernel configuration with Triton, stopping after the ``llir`` stage (median of
``REPEATS`` warm compiles); then ``llverify.lowered.validate`` checks the sample's TTGIR + LLVM IR in this
process (median of ``REPEATS``).  Both sides are measured in CPU time of their process
(``time.process_time``: all of Triton's threads in the child; the machine is shared, and wall time there
mostly measures the other users).  Prints the ratio per kernel, the median (target: under 0.25) and the
accesses validated per second, and the time of the conversions' ``right_elements`` (issue 15).  Writes
``benchmarks/results/bench_lowered.json``.

    python3 benchmarks/bench_lowered.py [--repeats N]
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
DATA = ROOT / "tests" / "data" / "lowered"

CHILD = r'''
import json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
import build_corpus
import triton
from triton import knobs
job = json.loads(sys.argv[3]); repeats = int(sys.argv[4])
def hook(*args):
    if not args:
        return "bench-llir-only", "bench-llir-only"
    backend, stages, options, language, capability = args
    inner = stages["llir"]
    def llir(src, md):
        inner(src, md)
        raise StopIteration
    stages["llir"] = llir
knobs.runtime.add_stages_inspection_hook = hook
knobs.compilation.always_compile = True
src, target, options = build_corpus.compile_source(job)
times = []
for _ in range(repeats + 1):
    t0 = time.process_time()
    try:
        triton.compile(src, target=target, options=options)
    except StopIteration:
        pass
    except RuntimeError as e:
        if "StopIteration" not in str(e):
            raise
    times.append(time.process_time() - t0)
print(json.dumps({"seconds": statistics.median(times[1:])}))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None, help="results file (default benchmarks/results/bench_lowered.json)")
    opts = ap.parse_args()
    sys.path.insert(0, str(DATA))
    from make import JOBS  # the sample list

    from llverify.lowered.llir import parse_llir
    from llverify.lowered.validate import validate
    from llverify.ttgir.reader import parse_module

    rows = []
    for kernel, config, target, warps in JOBS:
        name = f"{kernel}-{config}-{target.replace(':', '_')}-w{warps}"
        if not (DATA / f"{name}.llir").exists():
            continue
        job = {"kernel": kernel, "config": config, "target": target, "warps": warps}
        env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": tempfile.mkdtemp()}
        proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples"), str(ROOT / "examples" / "kernels"),
                               json.dumps(job), str(opts.repeats)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print(f"{name}: compile failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        compile_s = json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]
        ttgir, llir = (DATA / f"{name}.ttgir").read_text(), (DATA / f"{name}.llir").read_text()
        shared = int(json.loads((DATA / f"{name}.json").read_text())["shared"] or 0)
        times, n = [], 0
        for _ in range(opts.repeats):
            t0 = time.process_time()
            llm = parse_llir(llir, name)
            res = validate(parse_module(ttgir, name), llm, shared)
            n = len(res)
            times.append(time.process_time() - t0)
        convert_s = sum(f.finding.verdict.seconds for f in res if f.finding.op == "ttg.convert_layout"
                        and f.finding.verdict.property == "right_elements")
        accesses = sum(len(f.accesses) for f in llm.functions)
        v = statistics.median(times)
        rows.append({"kernel": name, "compile_to_llir_s": compile_s, "validate_s": v, "ratio": v / compile_s,
                     "accesses": accesses, "obligations": n, "accesses_per_s": accesses / v,
                     "convert_right_elements_s": convert_s})
        print(f"{name:55} compile {compile_s * 1000:8.1f} ms  validate {v * 1000:8.1f} ms  ratio {v / compile_s:6.2f}"
              f"  {accesses} accesses ({accesses / v:.0f}/s; conversions' right_elements {convert_s * 1000:.0f} ms)")
    ratios = [r["ratio"] for r in rows]
    summary = {"kernels": len(rows), "clock": "process CPU time", "median_ratio": statistics.median(ratios),
               "worst_ratio": max(ratios),
               "accesses_per_s": sum(r["accesses"] for r in rows) / sum(r["validate_s"] for r in rows)}
    print(f"\nvalidation / Triton compile-to-LLVM-IR: median {summary['median_ratio']:.2f}, worst "
          f"{summary['worst_ratio']:.2f} (target median < 0.25); {summary['accesses_per_s']:.0f} accesses/s")
    out = Path(opts.out) if opts.out else ROOT / "benchmarks" / "results" / "bench_lowered.json"
    out.write_text(json.dumps({"benchmark": "bench_lowered", "summary": summary, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
