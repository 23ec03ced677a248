"""Which shared-memory instructions Triton 3.9 emits for one-conversion Gluon kernels on cuda:90.

    python3 examples/ldmatrix_evidence.py [--out tests/data/ldmatrix_evidence.json]

Each pair (SRC -> DST, element type, shape, warps) is compiled by the installed Triton wheel in a child
process (``triton.compile`` for ``cuda:90``, no GPU needed); the record keeps the two layouts as Triton
prints them in the TTGIR (``#ttg...`` attribute text, aliases resolved by llverify's parser at test
time) and which of ``stmatrix``, ``stmatrix...trans``, ``ldmatrix``, ``ldmatrix...trans``, ``st.shared``
and ``ld.shared`` occur in the PTX.  tests/test_ldmatrix_selection.py compares llverify's instruction
choice (:func:`llverify.codegen.ldst_select.select_conversion_instructions`) with these facts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "tests" / "data" / "ldmatrix_evidence.json"

CHILD = r'''
import json, sys, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
import ldmatrix_evidence as m
print(json.dumps(m.compile_case(json.loads(sys.argv[2]))))
'''


def _layouts():
    from triton.experimental.gluon import language as gl

    def blocked(spt, tpw, wpc, order):
        return gl.BlockedLayout(spt, tpw, wpc, order)

    def mma2(w):
        return gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=w, instr_shape=[16, 8])

    def dot(i, parent, kw):
        return gl.DotOperandLayout(operand_index=i, parent=parent, k_width=kw)

    return blocked, mma2, dot, gl


def case_layouts(name: str, warps: int):
    """(SRC, DST) Gluon layouts of a named pair."""
    blocked, mma2, dot, gl = _layouts()
    w = [warps, 1]
    mw = [2, warps // 2]
    m2 = mma2(mw)
    table = {
        "mma_to_blocked8": (m2, blocked([1, 8], [4, 8], w, [1, 0])),
        "mma_to_blocked4": (m2, blocked([1, 4], [2, 16], w, [1, 0])),
        "blocked8_to_mma": (blocked([1, 8], [4, 8], w, [1, 0]), m2),
        "blocked8_to_dotA": (blocked([1, 8], [4, 8], w, [1, 0]), dot(0, m2, 2)),
        "blocked8_to_dotB": (blocked([1, 8], [4, 8], w, [1, 0]), dot(1, m2, 2)),
        "blocked8T_to_dotA": (blocked([8, 1], [8, 4], [1, warps], [0, 1]), dot(0, m2, 2)),
        "blocked8T_to_dotB": (blocked([8, 1], [8, 4], [1, warps], [0, 1]), dot(1, m2, 2)),
        "blocked1_to_dotA": (blocked([1, 1], [4, 8], w, [1, 0]), dot(0, m2, 2)),
        "blocked4_to_dotB": (blocked([1, 4], [2, 16], w, [1, 0]), dot(1, m2, 2)),
        "mma_to_dotA": (m2, dot(0, m2, 2)),
        "mma_to_dotB": (m2, dot(1, m2, 2)),
        "rowmajor_to_colmajor": (blocked([1, 4], [8, 4], w, [1, 0]), blocked([4, 1], [4, 8], [1, warps], [0, 1])),
        "warp_swap": (blocked([1, 8], [4, 8], w, [1, 0]), blocked([1, 8], [4, 8], [1, warps], [1, 0])),
        "blocked1_to_mma": (blocked([1, 1], [1, 32], w, [1, 0]), m2),
        "mma_to_blockedT": (m2, blocked([8, 1], [8, 4], [1, warps], [0, 1])),
        "mma_to_blocked1": (m2, blocked([1, 1], [1, 32], w, [1, 0])),
        "blocked2_to_blocked8": (blocked([1, 2], [8, 4], w, [1, 0]), blocked([1, 8], [4, 8], w, [1, 0])),
        "blocked16_to_dotA4": (blocked([1, 16], [8, 4], w, [1, 0]), dot(0, m2, 4)),
        "blocked16_to_dotB4": (blocked([1, 16], [8, 4], w, [1, 0]), dot(1, m2, 4)),
        "mma41_to_blocked8": (mma2([warps, 1]), blocked([1, 8], [4, 8], w, [1, 0])),
        "blocked8_to_mma41": (blocked([1, 8], [4, 8], [1, warps], [1, 0]), mma2([warps, 1])),
        "mma41_to_dotB": (mma2([warps, 1]), dot(1, mma2([warps, 1]), 2)),
    }
    return table[name]


NAMES = ["mma_to_blocked8", "mma_to_blocked4", "blocked8_to_mma", "blocked8_to_dotA", "blocked8_to_dotB",
         "blocked8T_to_dotA", "blocked8T_to_dotB", "blocked1_to_dotA", "blocked4_to_dotB", "mma_to_dotA",
         "mma_to_dotB", "rowmajor_to_colmajor", "warp_swap", "blocked1_to_mma", "mma_to_blockedT",
         "mma_to_blocked1", "blocked2_to_blocked8", "mma41_to_blocked8", "blocked8_to_mma41", "mma41_to_dotB"]
DTYPES = {"fp16": 16, "bf16": 16, "fp32": 32, "fp8e4nv": 8}


def shared_layout(name: str):
    from triton.experimental.gluon import language as gl

    return {
        "swz8": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
        "swz8T": gl.SwizzledSharedLayout(8, 1, 8, [0, 1]),
        "plain": gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
        "plainT": gl.SwizzledSharedLayout(1, 1, 1, [0, 1]),
        "nvmma128": gl.NVMMASharedLayout(128, 16, 2),
    }[name]


LOCAL = [  # (name, SRC pair member used for the store, shared layout, DST for the load)
    ("mma_swz8_dotA", "mma_to_dotA", "swz8"),
    ("mma_plain_dotA", "mma_to_dotA", "plain"),
    ("blocked8_swz8_dotB", "blocked8_to_dotB", "swz8"),
    ("blocked8_swz8_dotA", "blocked8_to_dotA", "swz8"),
    ("blocked8T_swz8T_dotA", "blocked8T_to_dotA", "swz8T"),
    ("blocked8T_swz8T_dotB", "blocked8T_to_dotB", "swz8T"),
    ("mma_swz8T_blockedT", "mma_to_blockedT", "swz8T"),
    ("mma_plainT_dotB", "mma_to_dotB", "plainT"),
    ("blocked8_nvmma128_dotA", "blocked8_to_dotA", "nvmma128"),
    ("mma_swz8_blocked1", "mma_to_blocked1", "swz8"),
]


def compile_local(job: dict) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def through_smem(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SH: gl.constexpr,
                     DST: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(x.dtype.element_ty, [M, N], SH, v)
        w = smem.load(DST)
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * N + on[None, :], w)

    name, pair, sh = next(c for c in LOCAL if c[0] == job["local"])
    src, dst = case_layouts(pair, job["warps"])
    M, N = job["shape"]
    ty = "*" + job["dtype"]
    sig = {"x": ty, "y": ty, "M": "constexpr", "N": "constexpr", "SRC": "constexpr", "SH": "constexpr",
           "DST": "constexpr"}
    s = GluonASTSource(fn=through_smem, signature=sig,
                       constexprs={"M": M, "N": N, "SRC": src, "SH": shared_layout(sh), "DST": dst})
    k = triton.compile(s, target=GPUTarget("cuda", 90, 32), options={"num_warps": job["warps"]})
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    lines = [ln for ln in ttgir.splitlines() if "ttg.local_alloc" in ln or "ttg.local_load" in ln]
    return {"ok": True, "ttgir": ttgir, "ptx_facts": ptx_facts(ptx), "convert_lines": lines}


def compile_case(job: dict) -> dict:
    if "local" in job:
        return compile_local(job)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def convert(x, y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        v = gl.load(x + rm[:, None] * N + rn[None, :])
        w = gl.convert_layout(v, DST)
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(y + om[:, None] * N + on[None, :], w)

    src, dst = case_layouts(job["pair"], job["warps"])
    M, N = job["shape"]
    ty = "*" + job["dtype"]
    sig = {"x": ty, "y": ty, "M": "constexpr", "N": "constexpr", "SRC": "constexpr", "DST": "constexpr"}
    s = GluonASTSource(fn=convert, signature=sig, constexprs={"M": M, "N": N, "SRC": src, "DST": dst})
    k = triton.compile(s, target=GPUTarget("cuda", 90, 32), options={"num_warps": job["warps"]})
    ttgir, ptx = k.asm["ttgir"], k.asm["ptx"]
    cvt = [ln for ln in ttgir.splitlines() if "ttg.convert_layout" in ln]
    return {"ok": True, "ttgir": ttgir, "ptx_facts": ptx_facts(ptx), "convert_lines": cvt}


def ptx_facts(ptx: str) -> dict:
    def count(pat: str) -> int:
        return len(re.findall(pat, ptx))

    return {
        "stmatrix": count(r"\bstmatrix\.sync\.aligned\.m8n8\.x\d(?!\S*\.trans)"),
        "stmatrix_trans": count(r"\bstmatrix\.sync\.aligned\.m8n8\.x\d\.trans"),
        "ldmatrix": count(r"\bldmatrix\.sync\.aligned\.m8n8\.x\d(?!\S*\.trans)"),
        "ldmatrix_trans": count(r"\bldmatrix\.sync\.aligned\.m8n8\.x\d\.trans"),
        "matrix_shapes": sorted(set(re.findall(r"\b(?:st|ld)matrix\.sync\.aligned\.m8n8\.x\d(?:\.trans)?", ptx))),
        "st_shared": count(r"\bst\.shared"),
        "ld_shared": count(r"\bld\.shared"),
        "shfl": count(r"\bshfl\.sync"),
    }


def run_child(job: dict) -> dict:
    env = {**os.environ, "TRITON_CACHE_DIR": os.environ.get("LLVERIFY_CORPUS_CACHE", "/tmp/llverify-ldm-cache")}
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(HERE), json.dumps(job)], capture_output=True, text=True,
                           timeout=300, env=env)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timeout"}
    if p.returncode != 0 or not p.stdout.strip():
        tail = p.stderr.strip().splitlines() or ["(no message)"]
        return {"ok": False, "error": tail[-1][:300]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def jobs() -> list[dict]:
    out = []
    for name in NAMES:
        out.append({"pair": name, "dtype": "fp16", "shape": [64, 64], "warps": 4})
    for name in ("mma_to_blocked8", "blocked8_to_dotA", "blocked8T_to_dotB", "blocked8T_to_dotA", "mma_to_blockedT"):
        out.append({"pair": name, "dtype": "fp16", "shape": [128, 64], "warps": 8})
    for name in ("mma_to_blocked8", "blocked8_to_dotA", "blocked8_to_mma"):
        out.append({"pair": name, "dtype": "fp32", "shape": [64, 64], "warps": 4})
    for name in ("mma_to_blocked8", "blocked8T_to_dotA"):
        out.append({"pair": name, "dtype": "bf16", "shape": [32, 64], "warps": 4})
    for name in ("mma_to_blocked8", "blocked16_to_dotA4", "blocked16_to_dotB4", "blocked8_to_mma"):
        out.append({"pair": name, "dtype": "fp8e4nv", "shape": [64, 64], "warps": 4})
    for name in ("blocked2_to_blocked8", "mma41_to_dotB", "blocked8_to_dotB"):
        out.append({"pair": name, "dtype": "fp16", "shape": [64, 128], "warps": 2})
    for name, _, _ in LOCAL:
        out.append({"pair": name, "local": name, "dtype": "fp16", "shape": [64, 64], "warps": 4})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", default=None)
    ap.add_argument("--merge", action="store_true", help="keep the records of --out that were not recompiled")
    opts = ap.parse_args()
    todo = [j for j in jobs() if not opts.only or opts.only in j["pair"]]
    with ThreadPoolExecutor(max_workers=opts.j) as pool:
        results = list(pool.map(run_child, todo))
    import triton

    recs = []
    if opts.merge and Path(opts.out).exists():
        keyf = lambda r: (r["pair"], r["dtype"], tuple(r["shape"]), r["warps"])  # noqa: E731
        done = {keyf(j) for j in todo}
        recs = [r for r in json.loads(Path(opts.out).read_text())["cases"] if keyf(r) not in done]
    for job, res in zip(todo, results):
        rec = {**job, "bits": DTYPES[job["dtype"]]}
        if not res.get("ok"):
            rec["error"] = res.get("error")
        else:
            rec["convert_lines"] = res["convert_lines"]
            rec["ptx"] = res["ptx_facts"]
            rec["aliases"] = [ln for ln in res["ttgir"].splitlines() if ln.startswith("#")]
        recs.append(rec)
    Path(opts.out).write_text(json.dumps({"triton": triton.__version__, "target": "cuda:90", "cases": recs},
                                         indent=1) + "\n")
    print(f"{sum('ptx' in r for r in recs)} compiled, {sum('error' in r for r in recs)} failed -> {opts.out}")


if __name__ == "__main__":
    main()
