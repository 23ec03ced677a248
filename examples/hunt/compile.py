"""Compile the hunt kernels (kernels.py), one child process per job, with USE_IR_LOC=ttgir.

    python3 examples/hunt/compile.py OUT_DIR [KERNEL_SUBSTRING]

Writes OUT_DIR/NAME.{ttgir,llir,json} (the json is Triton's metadata: `llverify lowered` reads its `shared`), or
NAME.fail with Triton's message (and NAME.nollir.ttgir where the TTGIR was made but not lowered).  HUNT_KERNELS=DIR takes kernels.py from DIR (examples/hunt14); a case with
"gluon": True compiles through GluonASTSource, a case's "env" is added to its compile's environment.  Every target of a kernel is compiled once, warps and stages rotating over
the targets (all combinations for kernels of at most 3 targets)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
KDIR = Path(os.environ.get("HUNT_KERNELS", HERE)).resolve()
OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/hunt-out")
ONLY = sys.argv[2] if len(sys.argv) > 2 else None


def load():
    sys.path.insert(0, str(KDIR))
    import kernels
    return {c["name"]: c for c in kernels.CASES}


def jobs(cases):
    for c in cases.values():
        W, S = c["warps"], c["stages"]
        picked = [(t, W[i % len(W)], S[i % len(S)]) for i, t in enumerate(c["targets"])]
        if len(c["targets"]) <= 3:  # few targets: every warp count and stage
            picked = [(t, w, s) for t in c["targets"] for w in W for s in S]
        for cfg in c["configs"]:
            for t, w, s in picked:
                if ONLY and ONLY not in c["name"]:
                    continue
                yield {"kernel": c["name"], "config": cfg, "target": t, "warps": w, "stages": s}


def name(j):
    s = f"-s{j['stages']}" if j["stages"] else ""
    return f"{j['kernel']}-{j['config']}-{j['target'].replace(':', '_')}-w{j['warps']}{s}"


def child(j):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    c = load()[j["kernel"]]
    be, arch = j["target"].split(":")
    wave = 32 if be == "cuda" or arch.startswith(("gfx11", "gfx12")) else 64  # RDNA / gfx1250: wave32
    tgt = GPUTarget(be, int(arch) if be == "cuda" else arch, wave)
    cx = c["configs"][j["config"]]
    sig = dict(c["sig"]); sig.update({k: "constexpr" for k in cx})
    opts = {"num_warps": j["warps"], **c["options"]}
    if j["stages"]:
        opts["num_stages"] = j["stages"]
    if c.get("gluon"):
        from triton.experimental.gluon._runtime import GluonASTSource as ASTSource
    triton.compile(ASTSource(fn=c["fn"], signature=sig, constexprs=cx), target=tgt, options=opts)


def run(j):
    n = name(j)
    if (OUT / f"{n}.ttgir").exists() or (OUT / f"{n}.fail").exists():
        return n, "cached"
    cache = tempfile.mkdtemp(prefix="h6c-")
    env = {**os.environ, **load()[j["kernel"]].get("env", {}), "USE_IR_LOC": "ttgir", "TRITON_CACHE_DIR": cache, "TRITON_DEFAULT_FP_FUSION": "1"}
    code = "import sys,json; sys.path.insert(0,sys.argv[2]); import compile as C; C.child(json.loads(sys.argv[1]))"
    try:
        p = subprocess.run([sys.executable, "-c", code, json.dumps(j), str(HERE)], env=env, capture_output=True, text=True, timeout=300)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = -1, "timeout"
    tt = [p for p in Path(cache).rglob("*.ttgir")]
    ll = [p for p in Path(cache).rglob("*.llir")]
    if rc != 0 or not tt or not ll:
        (OUT / f"{n}.fail").write_text(err[-3000:])
        if tt:  # Triton accepted the TTGIR but failed to lower it: the gate still reads the module
            shutil.copy(tt[0], OUT / f"{n}.nollir.ttgir")
        shutil.rmtree(cache, ignore_errors=True)
        return n, "fail"
    shutil.copy(tt[0], OUT / f"{n}.ttgir")
    shutil.copy(ll[0], OUT / f"{n}.llir")
    meta = next(p for p in Path(cache).rglob("*.json") if not p.name.startswith("__grp"))
    shutil.copy(meta, OUT / f"{n}.json")
    shutil.rmtree(cache, ignore_errors=True)
    return n, "ok"


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    js = list(jobs(load()))
    print(len(js), "jobs", flush=True)
    with ThreadPoolExecutor(2) as ex:
        for n, st in ex.map(run, js):
            print(st, n, flush=True)
