"""Compile our example kernels to TTGIR with another Triton version, installed in its own virtualenv.

    python3 examples/build_versions.py --python /tmp/tv360/bin/python --out /tmp/ver/3.6.0 [-j 2]
        [--only NAME] [--dump NAME ...]

Runs every (kernel, configuration, target, warp count) of ``examples/kernels/*.py``, of
``examples/more_kernels.py`` and of ``examples/version_kernels.py`` under the given interpreter, one child
process per compile (Triton aborts on some inputs).  The child stops Triton right after its ``ttgir``
stage (the backend's later stages need ptxas / ROCm tools and are not what the gate reads), so each
compile is quick and needs no GPU toolchain.  A kernel file whose imports fail under that version (Gluon
in old Triton) is skipped with its message; so is a kernel using an API the version lacks.

``--dump NAME`` also runs the named kernels with ``MLIR_ENABLE_DUMP=1`` (cuda:90 and gfx942, 4 warps,
first configuration) and keeps the pass-by-pass dump as ``<module>.dump.mlir``.
``--lowered`` compiles on to LLVM IR (``USE_IR_LOC=ttgir``) and keeps each module's ``.llir`` and a ``.json``
with the shared-memory size beside its ``.ttgir``, for ``llverify lowered`` (Triton's generated addresses
checked against llverify's reading of that version's layouts).
``index.json`` in ``--out`` lists modules and skips with Triton's message.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("cuda:80", "cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950")

# Runs under the other Triton.  Lists the jobs (mode "list") or compiles one (mode "compile").
CHILD = r'''
import importlib.util, json, os, sys, warnings
warnings.filterwarnings("ignore")
here = sys.argv[1]
mode = sys.argv[2]
sys.path.insert(0, os.path.join(here, "kernels"))
sys.path.insert(0, here)

def load_file(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

def all_cases():
    cases, skipped = {}, []
    kdir = os.path.join(here, "kernels")
    for fname in sorted(os.listdir(kdir)):
        if not fname.endswith(".py") or fname.startswith("_"):
            continue
        try:
            mod = load_file(os.path.join(kdir, fname))
        except Exception as exc:
            skipped.append({"file": fname, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        for c in mod.CASES:
            cases[c.name] = {"fn": c.fn, "signature": c.signature, "configs": c.configs, "targets": list(c.targets),
                             "warps": list(c.warps), "gluon": c.gluon, "options": c.options}
    for fname, jobs_name in (("more_kernels.py", None), ("version_kernels.py", "JOBS")):
        path = os.path.join(here, fname)
        if not os.path.exists(path):
            continue
        try:
            mod = load_file(path)
        except Exception as exc:
            skipped.append({"file": fname, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        if jobs_name is None:  # more_kernels.py's job table lives in build_more_kernels.py
            src = open(os.path.join(here, "build_more_kernels.py")).read()
            start = src.index("JOBS = [")
            table = src[start:src.index("]\n", start) + 2]
            ns = {}
            exec(compile(table, "build_more_kernels.py", "exec"), ns)  # our own literal table
            jobs = ns["JOBS"]
        else:
            jobs = getattr(mod, jobs_name)
        for job in jobs:
            name, sig, cx = job[:3]
            warps = job[3] if len(job) > 3 else [4]
            cases[name] = {"fn": getattr(mod, name), "signature": sig, "configs": {"k": cx},
                           "targets": None, "warps": warps, "gluon": False, "options": {}}
    return cases, skipped

if mode == "list":
    cases, skipped = all_cases()
    out = {"cases": {k: {"configs": list(v["configs"]), "targets": v["targets"], "warps": v["warps"]}
                     for k, v in cases.items()}, "skipped": skipped}
    import triton
    out["triton"] = triton.__version__
    print(json.dumps(out))
    sys.exit(0)

job = json.loads(sys.argv[3])
cases, _ = all_cases()
case = cases[job["kernel"]]
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

class Stop(Exception):
    pass

captured = {}

STOP = os.environ.get("LLVERIFY_STOP_AFTER", "ttgir")

def patch(cls):
    orig = cls.add_stages
    def add_stages(self, stages, options, *rest):
        orig(self, stages, options, *rest)
        ttgir, llir = stages["ttgir"], stages["llir"]
        def stop_ttgir(src, metadata):
            mod = ttgir(src, metadata)
            captured["ttgir"] = str(mod)  # the text Triton writes to its cache (and, with USE_IR_LOC, re-reads)
            if STOP == "ttgir":
                raise Stop()
            return mod
        def stop_llir(src, metadata):
            mod = llir(src, metadata)
            captured["llir"] = str(mod)
            captured["shared"] = metadata.get("shared")
            raise Stop()
        stages["ttgir"], stages["llir"] = stop_ttgir, stop_llir
    cls.add_stages = add_stages

import triton.compiler.compiler as _cc
_make_backend = _cc.make_backend
_patched = set()

def make_backend(*a, **k):  # patch the class of whatever backend object this version makes
    b = _make_backend(*a, **k)
    if type(b) not in _patched:
        _patched.add(type(b))
        patch(type(b))
    return b

_cc.make_backend = make_backend
backend, arch = job["target"].split(":")
target = GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32 if backend == "cuda" else 64)
constexprs = case["configs"][job["config"]]
sig = dict(case["signature"])
sig.update({k: "constexpr" for k in constexprs})
if case["gluon"]:
    from triton.experimental.gluon._runtime import GluonASTSource as Source
else:
    Source = ASTSource
import inspect
if "constexprs" in inspect.signature(Source.__init__).parameters:
    src = Source(fn=case["fn"], signature=sig, constexprs=constexprs)
elif tuple(int(x) for x in triton.__version__.split(".")[:2]) >= (3, 2):
    # Triton 3.2: `constants` by argument name, the signature naming every argument (constexprs as "constexpr")
    src = Source(fn=case["fn"], signature=sig, constants=constexprs)
else:
    # Triton 3.0 / 3.1: signature and constants keyed by argument index, constexprs out of the signature
    index = {n: i for i, n in enumerate(case["fn"].arg_names)}
    src = Source(fn=case["fn"], signature={index[k]: v for k, v in sig.items() if v != "constexpr"},
                 constants={index[k]: v for k, v in constexprs.items()})
try:
    triton.compile(src, target=target, options={"num_warps": job["warps"], **case["options"]})
except Stop:
    pass
print(json.dumps({"ok": "ttgir" in captured and (STOP == "ttgir" or "llir" in captured), **captured}))
'''


def child(python: str, args: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-c", CHILD, str(HERE), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="interpreter of the virtualenv holding that Triton")
    ap.add_argument("--out", required=True)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated substrings of the kernels to compile")
    ap.add_argument("--dump", nargs="*", default=[])
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--lowered", action="store_true",
                    help="compile on to LLVM IR with USE_IR_LOC=ttgir and keep <name>.ttgir/.llir/.json "
                         "(Triton's shared-memory size) for `llverify lowered`")
    opts = ap.parse_args()
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TRITON_CACHE_DIR": str(out / ".cache"), "TRITON_DEFAULT_FP_FUSION": "1"}
    env.pop("PYTHONPATH", None)
    if opts.lowered:
        env.update({"LLVERIFY_STOP_AFTER": "llir", "USE_IR_LOC": "ttgir"})
    listing = child(opts.python, ["list"], env, 300)
    if listing.returncode != 0:
        sys.exit(f"listing failed: {listing.stderr.strip()[-500:]}")
    info = json.loads(listing.stdout.strip().splitlines()[-1])
    todo = []
    for name, c in info["cases"].items():
        if opts.only and not any(part in name for part in opts.only.split(",")):
            continue
        for cfg in c["configs"]:
            for target in c["targets"] or TARGETS:
                for warps in c["warps"]:
                    todo.append({"kernel": name, "config": cfg, "target": target, "warps": warps})

    def one(job: dict) -> tuple[dict, dict]:
        try:
            p = child(opts.python, ["compile", json.dumps(job)], env, opts.timeout)
        except subprocess.TimeoutExpired:
            return job, {"ok": False, "error": f"timeout after {opts.timeout} s"}
        lines = p.stdout.strip().splitlines()
        if p.returncode != 0 or not lines:
            tail = p.stderr.strip().splitlines() or ["(no message)"]
            msg = next((ln for ln in reversed(tail) if "error" in ln.lower()), tail[-1])
            return job, {"ok": False, "error": f"rc={p.returncode}: {msg[:300]}"}
        return job, json.loads(lines[-1])

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(one, todo))
    index = {"triton": info["triton"], "modules": [], "skipped": [], "skipped_files": info["skipped"]}
    for job, res in results:
        name = f"{job['kernel']}-{job['config']}-{job['target'].replace(':', '_')}-w{job['warps']}"
        if not res.get("ok"):
            index["skipped"].append({**job, "name": name, "error": res.get("error", "no ttgir")})
            continue
        (out / f"{name}.ttgir").write_text(res["ttgir"])
        if opts.lowered:
            (out / f"{name}.llir").write_text(res["llir"])
            (out / f"{name}.json").write_text(json.dumps({"shared": res.get("shared"), "num_warps": job["warps"],
                                                          "target": job["target"]}) + "\n")
        index["modules"].append({**job, "name": name})
    for name in opts.dump:
        c = info["cases"].get(name)
        if c is None:
            continue
        for target in ("cuda:90", "hip:gfx942"):
            job = {"kernel": name, "config": c["configs"][0], "target": target, "warps": 4}
            denv = {**env, "MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"}
            p = child(opts.python, ["compile", json.dumps(job)], denv, opts.timeout)
            mname = f"{name}-{job['config']}-{target.replace(':', '_')}-w4.dump.mlir"
            (out / mname).write_text(p.stderr)
            index["modules"].append({**job, "name": mname, "dump": True})
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"triton {info['triton']}: {len(index['modules'])} modules, {len(index['skipped'])} skipped, "
          f"{len(info['skipped'])} files skipped, {time.perf_counter() - t0:.1f} s -> {out}")


if __name__ == "__main__":
    main()
