"""The gate's cost against Triton's own compile time to TTGIR, per module, measured in the same run.

For every kernel configuration of examples/kernels/ (cuda:90 and hip:gfx942, 4 warps, by default), a
child process compiles it with Triton, stopping the pipeline after the ``ttgir`` stage (the stages
hook drops the later stages), ``REPEATS`` times warm; the gate then checks the module it produced
(in process, reader + every obligation), ``REPEATS`` times.  Both sides are timed in CPU time (``process_time``:
Triton's compile runs in its calling thread, so its CPU time equals its wall time on a quiet machine), which other
processes' load does not inflate.  Prints the per-module table, the median
and worst ratio gate / compile (target: median <= 0.10), the same ratio when the modules are gated one
after another in one process as shadow mode does (memos kept across modules, no verdict cache; in the corpus
order and in ``--shuffles`` seeded shuffled orders), the like-for-like ratio of that sequence against Triton
compiling the same kernels in sequence in one process (each once, as a test-suite does), then the corpus table: ``llverify ttgir`` over
tests/data/ttgir as fresh processes of the real command line (Python start-up and imports included),
each configuration ``--cli-repeats`` times, interleaved, median and minimum: ``-j 1`` and ``-j 2``
without a cache, a cold run that fills a cache, the warm re-run, and the warm re-run in process (no
start-up).  Ratios are against ``-j 1`` (targets: ``-j 2`` >= 1.7x, warm >= 20x).  The load average
is printed beside it: on a shared machine the minimum is the better estimate.  Writes
``benchmarks/results/bench_ttgir.json``.

    python3 benchmarks/bench_ttgir.py [--repeats N] [--targets cuda:90,hip:gfx942|all] [--warps 4|4,8|all]
                                      [--corpus-only | --no-corpus] [--cli-repeats N] [--kernels a,b] [--shuffles N]
                                      [--output F]

The default set (cuda:90 and hip:gfx942 at 4 warps, 60 modules) is the one earlier passes reported;
``--targets all --warps all`` times the whole corpus build_corpus.py compiles (271 jobs).
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
jobs = json.loads(sys.argv[3]); repeats = int(sys.argv[4])
sequence = isinstance(jobs, list)  # a list: compile each job once, in order, after one warm-up compile
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
def compile_once(job, warps):
    src, target, options = build_corpus.compile_source(dict(job, warps=warps))
    t0 = time.process_time()
    try:
        triton.compile(src, target=target, options=options)
    except StopIteration:
        pass
    except RuntimeError as e:
        if "StopIteration" not in str(e):
            raise
    return time.process_time() - t0
if sequence:
    try:
        compile_once(jobs[0], 2)  # Triton's first compile in a process pays its own start-up: not a kernel's cost
    except Exception:
        pass
    times = []
    for job in jobs:
        try:
            times.append(compile_once(job, job["warps"]))
        except Exception:
            times.append(None)
    print(json.dumps({"seconds": times}))
else:
    times = [compile_once(jobs, jobs["warps"]) for _ in range(repeats + 1)]
    print(json.dumps({"seconds": statistics.median(times[1:]), "ttgir": captured.get("text", "")}))
'''


def compile_to_ttgir(job: dict, repeats: int) -> dict:
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="bench-ttgir-")}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples"), str(KERNELS), json.dumps(job),
                           str(repeats)], capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compile_sequence(jobs: list[dict]) -> list[float | None]:
    """Triton's compile-to-TTGIR time of each job when the jobs are compiled one after another in one process, each
    once, as a test-suite compiles its kernels (the process's first compile, of another configuration, is left
    out: it pays Triton's start-up).  The like-for-like partner of :func:`suite_seconds`: both sides in sequence,
    neither repeating a kernel.  None where a compile failed."""
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1", "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="bench-ttgir-")}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "examples"), str(KERNELS), json.dumps(jobs), "0"],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        return [None] * len(jobs)
    return json.loads(proc.stdout.strip().splitlines()[-1])["seconds"]


def gate_seconds(text: str, path: str, repeats: int) -> tuple[float, int]:
    from llverify.ttgir.gate import gate_text
    from llverify.ttgir.layouts import _build
    from llverify.ttgir.rules import clear_caches
    from llverify.ttgir.syntax import _changes

    times = []
    n = 0
    for _ in range(repeats):
        _build.cache_clear()  # every repeat pays layout construction and every proof again
        clear_caches()
        _changes.cache_clear()
        t0 = time.process_time()
        n = len(gate_text(text, path))
        times.append(time.process_time() - t0)
    return statistics.median(times), n


def suite_seconds(texts: list[tuple[str, str]], repeats: int, seed: int | None = None) -> list[float]:
    """Each module's gate time when the modules are gated one after another in one process, as shadow mode
    (``llverify.triton_gate``) gates a test-suite's kernels: the per-process memos (built layouts, decided
    proofs) are kept from one module to the next, so a layout or proof that an *earlier* module needed is not
    paid again; no verdict cache (nothing persists between runs).  Every pass starts with empty memos; the
    median over ``repeats`` passes of each module's time is returned, in the order of ``texts``.  ``seed``: gate
    them in a shuffled order (``random.Random(seed)``) instead of the corpus order, where the variants of one kernel
    follow each other: what a module gains from the ones before it should not depend on that order."""
    import random

    order = list(range(len(texts)))
    if seed is not None:
        random.Random(seed).shuffle(order)
    from llverify.ttgir.gate import gate_text
    from llverify.ttgir.layouts import _build
    from llverify.ttgir.rules import clear_caches
    from llverify.ttgir.syntax import _changes

    per: list[list[float]] = [[] for _ in texts]
    for _ in range(repeats):
        _build.cache_clear()
        clear_caches()
        _changes.cache_clear()
        for i in order:
            text, path = texts[i]
            t0 = time.process_time()
            gate_text(text, path)
            per[i].append(time.process_time() - t0)
    return [statistics.median(v) for v in per]


def cli_seconds(args: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", *args], cwd=ROOT, capture_output=True,
                   env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]]
                                                                                   if os.environ.get("PYTHONPATH")
                                                                                   else []))})
    return time.perf_counter() - t0


def in_process_seconds(args: list[str]) -> float:
    from click.testing import CliRunner

    from llverify.ttgir.cli import ttgir

    t0 = time.perf_counter()
    CliRunner().invoke(ttgir, args)
    return time.perf_counter() - t0


def _bytecode_share() -> str:
    """How many of llverify's modules have compiled bytecode (without it each process compiles them)."""
    sources = list(ROOT.joinpath("llverify").rglob("*.py"))
    compiled = [p for p in sources
                if list(p.parent.joinpath("__pycache__").glob(p.stem + ".cpython-*.pyc"))]
    return f"{len(compiled)} of {len(sources)}"


def corpus_table(repeats: int, top_level: bool = False) -> dict:
    """The corpus configurations, interleaved ``repeats`` times; median and minimum of each.  The corpus is every
    ``*.ttgir`` under tests/data/ttgir (what ``llverify ttgir tests/data/ttgir`` reads), or with ``top_level`` only
    the top folder's (the 242 modules of earlier reports)."""
    pattern = "*.ttgir" if top_level else "**/*.ttgir"
    files = [str(p.relative_to(ROOT)) for p in sorted(CORPUS.glob(pattern))]
    tmp = Path(tempfile.mkdtemp(prefix="bench-ttgir-cache-"))
    times: dict[str, list[float]] = {k: [] for k in ("j1", "j2", "cold_cache", "warm", "warm_j2", "warm_in_process")}
    load = [os.getloadavg()[0]]
    for r in range(repeats):
        times["j1"].append(cli_seconds(["--no-cache", "-j", "1", *files]))
        times["j2"].append(cli_seconds(["--no-cache", "-j", "2", *files]))
        cache = tmp / f"c{r}.sqlite"
        times["cold_cache"].append(cli_seconds(["--cache", str(cache), "-j", "1", *files]))
        times["warm"].append(cli_seconds(["--cache", str(cache), *files]))
        times["warm_j2"].append(cli_seconds(["--cache", str(cache), "-j", "2", *files]))
        times["warm_in_process"].append(in_process_seconds(["--cache", str(cache), *files]))
        load.append(os.getloadavg()[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    low = {k: min(v) for k, v in times.items()}
    return {"modules": len(files), "repeats": repeats, "median_s": med, "min_s": low, "all_s": times,
            "loadavg_1min": load, "cpus": os.cpu_count(),
            "llverify_bytecode": _bytecode_share(),
            "speedup_j2": {"median": med["j1"] / med["j2"], "min": low["j1"] / low["j2"]},
            "warm_speedup": {"median": med["j1"] / med["warm"], "min": low["j1"] / low["warm"]}}


def print_corpus_table(t: dict) -> None:
    names = {"j1": "-j 1, no cache (cold)", "j2": "-j 2, no cache", "cold_cache": "-j 1, filling a new cache",
             "warm": "warm re-run (-j 1)", "warm_j2": "warm re-run (-j 2)",
             "warm_in_process": "warm re-run in process (no start-up)"}
    med, low = t["median_s"], t["min_s"]
    print(f"\nllverify ttgir over the corpus ({t['modules']} modules, {t['repeats']} interleaved repeats, "
          f"{t['cpus']} CPUs, load average {', '.join(f'{x:.1f}' for x in t['loadavg_1min'])}; "
          f"llverify modules with bytecode: {t['llverify_bytecode']})")
    print(f"{'configuration':40} {'median s':>9} {'min s':>8} {'-j1/this (median)':>18} {'(min)':>7}")
    for k, label in names.items():
        print(f"{label:40} {med[k]:9.3f} {low[k]:8.3f} {med['j1'] / med[k]:17.2f}x {low['j1'] / low[k]:6.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--targets", default="cuda:90,hip:gfx942",
                    help="Comma-separated targets, or 'all' (every target examples/kernels compiles for).")
    ap.add_argument("--warps", default="4", help="Comma-separated warp counts, or 'all' (4 and 8).")
    ap.add_argument("--output", default="", help="Write the JSON here instead of benchmarks/results/.")
    ap.add_argument("--corpus-only", action="store_true", help="Skip the Triton compile comparison.")
    ap.add_argument("--kernels", default="", help="Only these examples/kernels cases (comma-separated names).")
    ap.add_argument("--no-corpus", action="store_true", help="Skip the corpus table (the compile comparison only).")
    ap.add_argument("--cli-repeats", type=int, default=5)
    ap.add_argument("--shuffles", type=int, default=2,
                    help="Also gate the modules in sequence in this many shuffled orders (seeds 1..N).")
    ap.add_argument("--top-level", action="store_true",
                    help="Time only tests/data/ttgir/*.ttgir (242 modules) instead of the whole tree.")
    ap.add_argument("--bytecode", action="store_true",
                    help="Compile llverify's bytecode first (as installing a wheel does; this machine sets "
                         "PYTHONDONTWRITEBYTECODE, so every process otherwise compiles llverify from source), "
                         "and remove it afterwards.")
    opts = ap.parse_args()
    # the in-process measurements use this checkout's llverify, as the fresh processes do (PYTHONPATH), not an
    # installed one: another checkout's code has another fingerprint, so its warm run would miss every module
    sys.path.insert(0, str(ROOT))
    created: list[Path] = []
    if opts.bytecode:
        import compileall

        before = set(ROOT.joinpath("llverify").rglob("__pycache__"))
        compileall.compile_dir(str(ROOT / "llverify"), quiet=1)
        created = sorted(set(ROOT.joinpath("llverify").rglob("__pycache__")) - before)
    try:
        run(opts)
    finally:
        import shutil

        for d in created:
            shutil.rmtree(d, ignore_errors=True)


def run(opts: argparse.Namespace) -> None:
    rows: list[dict] = []
    summary: dict = {}
    if not opts.corpus_only:
        rows = compile_rows(opts)
        ratios = [r["ratio"] for r in rows]
        if ratios:
            summary.update({"modules_timed": len(rows), "median_ratio": statistics.median(ratios),
                            "worst_ratio": max(ratios)})
            print()
            print(f"gate / Triton compile-to-TTGIR over {len(rows)} modules: median {summary['median_ratio']:.3f}, "
                  f"worst {summary['worst_ratio']:.3f} (target median <= 0.10; every memo cleared per module)")
            suite = [r["suite_ratio"] for r in rows]
            summary.update({"suite_median_ratio": statistics.median(suite), "suite_worst_ratio": max(suite)})
            print(f"the same modules gated in sequence in one process (shadow mode: memos kept across modules, "
                  f"no verdict cache): median {summary['suite_median_ratio']:.3f}, "
                  f"worst {summary['suite_worst_ratio']:.3f}")
            like = [r["suite_vs_sequence_ratio"] for r in rows if "suite_vs_sequence_ratio" in r]
            if like:
                cold_like = [r["cold_vs_sequence_ratio"] for r in rows if "cold_vs_sequence_ratio" in r]
                summary.update({"like_for_like_median_ratio": statistics.median(like),
                                "like_for_like_worst_ratio": max(like), "modules_in_sequence": len(like),
                                "cold_vs_sequence_median_ratio": statistics.median(cold_like)})
                print(f"like for like, both in sequence (Triton compiling each kernel once, one process, in corpus "
                      f"order; the gate as above): median {statistics.median(like):.3f}, worst {max(like):.3f} "
                      f"over {len(like)} modules; the cold gate against the same: "
                      f"median {statistics.median(cold_like):.3f}")
            for seed in range(1, opts.shuffles + 1):
                shuffled = [r[f"shuffled{seed}_ratio"] for r in rows]
                summary[f"shuffled{seed}_median_ratio"] = statistics.median(shuffled)
                print(f"  the same, in shuffled order {seed}: median {statistics.median(shuffled):.3f}, "
                      f"worst {max(shuffled):.3f}")
    if not opts.no_corpus:
        table = corpus_table(opts.cli_repeats, opts.top_level)
        print_corpus_table(table)
        summary["corpus"] = table
    name = "bench_ttgir_corpus" if opts.corpus_only else "bench_ttgir"
    out = Path(opts.output) if opts.output else \
        ROOT / "benchmarks" / "results" / (name + ("_bytecode" if opts.bytecode else "") + ".json")
    out.write_text(json.dumps({"benchmark": "bench_ttgir", "cpus": os.cpu_count(), "summary": summary, "rows": rows},
                              indent=2) + "\n")


def compile_rows(opts: argparse.Namespace) -> list[dict]:
    sys.path.insert(0, str(ROOT / "examples"))
    sys.path.insert(0, str(KERNELS))
    import build_corpus

    targets = None if opts.targets == "all" else opts.targets.split(",")
    warps = None if opts.warps == "all" else {int(w) for w in opts.warps.split(",")}
    kernels = set(opts.kernels.split(",")) if opts.kernels else None
    jobs = [j for j in build_corpus.jobs(build_corpus.load_cases(), None)
            if (targets is None or j["target"] in targets) and (warps is None or j["warps"] in warps)
            and (kernels is None or j["kernel"] in kernels)]
    rows = []
    texts: list[tuple[str, str]] = []
    timed_jobs: list[dict] = []
    for job in jobs:
        res = compile_to_ttgir(job, opts.repeats)
        name = build_corpus.module_name(job)
        if "error" in res or not res.get("ttgir"):
            print(f"{name}: skipped ({res.get('error', 'no ttgir')})")
            continue
        g, n = gate_seconds(res["ttgir"], name + ".ttgir", opts.repeats)
        rows.append({"module": name, "compile_s": res["seconds"], "gate_s": g, "obligations": n,
                     "ratio": g / res["seconds"]})
        texts.append((res["ttgir"], name + ".ttgir"))
        timed_jobs.append(job)
        print(f"{name:60} compile {res['seconds'] * 1000:8.1f} ms  gate {g * 1000:7.1f} ms  "
              f"ratio {g / res['seconds']:.3f}  ({n} obligations)")
    for row, seconds in zip(rows, suite_seconds(texts, opts.repeats)):
        row["suite_gate_s"] = seconds
        row["suite_ratio"] = seconds / row["compile_s"]
    for seed in range(1, opts.shuffles + 1):
        for row, seconds in zip(rows, suite_seconds(texts, opts.repeats, seed)):
            row[f"shuffled{seed}_ratio"] = seconds / row["compile_s"]
    for row, seconds in zip(rows, compile_sequence(timed_jobs)):
        row["compile_in_sequence_s"] = seconds
        if seconds:
            row["suite_vs_sequence_ratio"] = row["suite_gate_s"] / seconds
            row["cold_vs_sequence_ratio"] = row["gate_s"] / seconds
    return rows


if __name__ == "__main__":
    main()
