"""Compile the kernels of examples/kernels/ into the TTGIR corpus of tests/data/ttgir/.

    python3 examples/build_corpus.py [-j N] [--only NAME] [--out DIR] [--llir]

Every (kernel, configuration, target, warp count) is compiled by Triton (the installed wheel, 3.9.0) in a
child process with a timeout (Triton aborts on some inputs); each success writes
``<kernel>-<config>-<target>-w<warps>.ttgir`` (``:`` in targets becomes ``_``), ``--llir`` also writes the
LLVM IR beside it for cuda:90 and gfx942 with 4 warps.  ``index.json`` records every module, every skip
with Triton's message, and Triton's own compile time per module (warm, in the child; the gate benchmark
compares against it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"
OUT = HERE.parent / "tests" / "data" / "ttgir"


def load_cases() -> list:
    sys.path.insert(0, str(KERNELS))
    cases = []
    for path in sorted(KERNELS.glob("*.py")):
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)  # our own kernel files, not input
        cases.extend(mod.CASES)
    return cases


def jobs(cases: list, only: str | None) -> list[dict]:
    out = []
    for case in cases:
        if only and only not in case.name:
            continue
        for cfg in case.configs:
            for target in case.targets:
                for warps in case.warps:
                    out.append({"kernel": case.name, "config": cfg, "target": target, "warps": warps})
    return out


CHILD = r'''
import json, sys, time, os, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
job = json.loads(sys.argv[2])
import build_corpus_child
print(json.dumps(build_corpus_child.compile_job(job)))
'''


def compile_source(job: dict):
    """What ``triton.compile`` takes for one job: ``(source, target, options)``, the case's ``tt.divisibility``
    arguments and options included (the corpus and the benchmarks compile the same module)."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    cases = {c.name: c for c in load_cases()}
    case = cases[job["kernel"]]
    backend, arch = job["target"].split(":")
    wave = 32 if backend == "cuda" or arch.startswith(("gfx11", "gfx12")) else 64  # RDNA / gfx1250: wave32
    target = GPUTarget(backend, int(arch) if backend == "cuda" else arch, wave)
    constexprs = case.configs[job["config"]]
    sig = dict(case.signature)
    sig.update({k: "constexpr" for k in constexprs})
    if case.gluon:
        from triton.experimental.gluon._runtime import GluonASTSource as Source
    else:
        Source = ASTSource
    attrs = {(case.fn.arg_names.index(a),): [["tt.divisibility", 16]] for a in case.divisible_by_16}
    src = Source(fn=case.fn, signature=sig, constexprs=constexprs, **({"attrs": attrs} if attrs else {}))
    return src, target, {"num_warps": job["warps"], **case.options}


def compile_job(job: dict) -> dict:
    """Run in the child: compile one job, return its texts and timing."""
    import triton

    src, target, options = compile_source(job)
    t0 = time.perf_counter()
    k = triton.compile(src, target=target, options=options)
    seconds = time.perf_counter() - t0
    return {"ok": True, "ttgir": k.asm["ttgir"], "llir": k.asm.get("llir", ""), "seconds": seconds}


def run_child(job: dict, timeout: float) -> dict:
    env = {**os.environ, "TRITON_CACHE_DIR": os.environ.get("LLVERIFY_CORPUS_CACHE", "/tmp/llverify-corpus-cache"),
           "TRITON_DEFAULT_FP_FUSION": "1"}
    code = CHILD.replace("build_corpus_child", "build_corpus")
    try:
        proc = subprocess.run([sys.executable, "-c", code, str(HERE), json.dumps(job)], capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timeout after {timeout} s"}
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["(no message)"])
        msg = next((ln for ln in reversed(tail) if "error" in ln.lower()), tail[-1])
        return {"ok": False, "error": msg[:300]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def module_name(job: dict) -> str:
    return f"{job['kernel']}-{job['config']}-{job['target'].replace(':', '_')}-w{job['warps']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--llir", action="store_true")
    ap.add_argument("--timeout", type=float, default=120.0)
    opts = ap.parse_args()
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = jobs(load_cases(), opts.only)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda j: (j, run_child(j, opts.timeout)), todo))
    index = {"triton": None, "modules": [], "skipped": []}
    for job, res in results:
        name = module_name(job)
        if not res.get("ok"):
            index["skipped"].append({**job, "name": name, "error": res.get("error")})
            continue
        (out / f"{name}.ttgir").write_text(res["ttgir"])
        if opts.llir and job["warps"] == 4 and job["target"] in ("cuda:90", "hip:gfx942"):
            (out / f"{name}.llir").write_text(res["llir"])
        index["modules"].append({**job, "name": name, "compile_seconds": round(res["seconds"], 4)})
    try:
        import triton

        index["triton"] = triton.__version__
    except ImportError:
        pass
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"{len(index['modules'])} modules, {len(index['skipped'])} skipped, "
          f"{time.perf_counter() - t0:.1f} s -> {out}")


if __name__ == "__main__":
    main()
