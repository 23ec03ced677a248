"""TMA copies compiled by the Triton 3.9 wheel: the box rule of ``llverify.lowered.tma`` checked on real code.

    python3 tests/data/lowered_tma/make_tma.py            # compile every case, validate it, print the verdicts
    python3 tests/data/lowered_tma/make_tma.py --save     # the SAVED cases and MATMULS, kept here as .ttgir/.llir/.json

Each case is a tensor-descriptor copy ``out[block] = in[block] + 1`` (one TMA load into an NVMMA buffer, one
TMA store from another) of one block shape and element type, compiled for sm_90 with ``USE_IR_LOC=ttgir`` in
a child process; ``llverify.lowered.validate`` must prove every ``tma_tiling`` and every ``in_bounds`` of the
messages with the box the rule gives (a wrong rule shows up as a tiling that is not proved).  The cases
cover one and several boxes per block (the contiguous dim wider than one 128-byte swizzle row, more boxes
than warps; a dim clipped to 256), 8-, 16- and 32-bit elements.  The descriptors are made on the device, so
the kernel itself writes each tensor map's box dims (``tensormap.replace.tile.box_dim``): they are printed
beside the rule's boxes, an independent record of the rule.
"""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

#: (element type, block rows, block cols, warps)
CASES = [("fp16", 64, 64, 4), ("fp16", 64, 128, 4), ("fp16", 128, 256, 4), ("fp32", 64, 64, 4),
         ("i8", 128, 256, 4), ("fp16", 512, 64, 8), ("fp32", 32, 32, 4), ("fp16", 64, 512, 4)]

#: the cases kept as samples (``--save``): several boxes in two rounds of warps; a dim clipped to 256
SAVED = [("fp16", 64, 512, 4), ("fp16", 512, 64, 8)]

_BOX_DIM = re.compile(r"tensormap\.replace\.tile\.box_dim.*?0x(\d+), \$1;\", \"l,r\"\(ptr addrspace\(3\) (.*?), i32 (\d+)\)")


def device_boxes(llir: str) -> list[tuple[int, ...]]:
    """The box dims the kernel writes into its device-side tensor maps (``tensormap.replace.tile.box_dim``,
    dim 0 the innermost), outermost first as the TTGIR shapes are: an independent record of Triton's rule."""
    maps: dict[str, dict[int, int]] = {}
    for m in _BOX_DIM.finditer(llir):
        maps.setdefault(m.group(2), {})[int(m.group(1), 16)] = int(m.group(3))
    return sorted({tuple(dims[k] for k in sorted(dims, reverse=True)) for dims in maps.values()})



#: kernels of examples/more_kernels.py kept as samples with ``--save`` (name, constexprs, target, warps)
MATMULS = [("tma_matmul", {"BM": 128, "BN": 128, "BK": 64}, "cuda:90", 4)]
_MATMUL = ("import sys, json; sys.path.insert(0, sys.argv[1]); import more_kernels as mk, triton; "
           "from triton.backends.compiler import GPUTarget; n, c, t, w = json.loads(sys.argv[2]); "
           "sig = {'a_ptr': '*fp16', 'b_ptr': '*fp16', 'c_ptr': '*fp16', 'M': 'i32', 'N': 'i32', 'K': 'i32', "
           "'BM': 'constexpr', 'BN': 'constexpr', 'BK': 'constexpr'}; a, cap = t.split(':'); "
           "triton.compile(triton.compiler.ASTSource(fn=getattr(mk, n), signature=sig, constexprs=c), "
           "target=GPUTarget(a, int(cap), 32), options={'num_warps': w})")


def compile_case(dtype: str, bm: int, bn: int, warps: int, cache: str) -> str | None:
    """Compile one case into ``cache`` in a child process; the error text, or None."""
    env = {**os.environ, "USE_IR_LOC": "ttgir", "TRITON_CACHE_DIR": cache}
    code = f"import sys; sys.path.insert(0, sys.argv[1]); import tma_cases; tma_cases.build({dtype!r}, {bm}, {bn}, {warps})"
    proc = subprocess.run([sys.executable, "-c", code, str(HERE)], env=env, capture_output=True, text=True)
    return None if proc.returncode == 0 else proc.stderr[-800:]


def compile_matmul(job: tuple, cache: str) -> str | None:
    """Compile one of :data:`MATMULS` into ``cache`` in a child process; the error text, or None."""
    env = {**os.environ, "USE_IR_LOC": "ttgir", "TRITON_CACHE_DIR": cache}
    proc = subprocess.run([sys.executable, "-c", _MATMUL, str(ROOT / "examples"), json.dumps(job)], env=env,
                          capture_output=True, text=True)
    return None if proc.returncode == 0 else proc.stderr[-800:]


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from llverify.lowered.validate import summarize, validate_texts

    save = "--save" in sys.argv
    for dtype, bm, bn, warps in CASES:
        if save and (dtype, bm, bn, warps) not in SAVED:
            continue
        cache = tempfile.mkdtemp(prefix="lowered-tma-")
        err = compile_case(dtype, bm, bn, warps, cache)
        name = f"tma_copy_{dtype}-{bm}x{bn}-cuda_90-w{warps}"
        if err is not None:
            print("failed", name, err)
            continue
        ttgir, llir = next(Path(cache).rglob("*.ttgir")), next(Path(cache).rglob("*.llir"))
        meta = json.loads(next(p for p in Path(cache).rglob("*.json") if not p.name.startswith("__grp")).read_text())
        res = validate_texts(ttgir.read_text(), ttgir.name, llir.read_text(), llir.name, int(meta["shared"]))
        tma = [f.finding.verdict for f in res if f.finding.verdict.property == "tma_tiling"]
        boxes = Counter((v.status, str(v.details.get("box")), v.details.get("count")) for v in tma)
        rule = sorted(tuple(v.details.get("box", ())) for v in tma)
        written = device_boxes(llir.read_text())
        print(name, summarize(res), dict(boxes), "tensormap box_dim:", written,
              "= the rule's" if written == sorted(set(rule)) else f"!= the rule's {rule}")
        for f in res:
            if f.finding.verdict.status != "proved":
                print("   ", f.finding.verdict.status, f.finding.verdict.property, f.finding.verdict.message[:200])
        if save:
            shutil.copy(ttgir, HERE / f"{name}.ttgir")
            shutil.copy(llir, HERE / f"{name}.llir")
            (HERE / f"{name}.json").write_text(json.dumps({"shared": meta.get("shared"), "num_warps": warps,
                                                            "target": "cuda:90"}) + "\n")
        shutil.rmtree(cache, ignore_errors=True)
    for job in MATMULS if save else ():
        cache = tempfile.mkdtemp(prefix="lowered-tma-")
        err = compile_matmul(job, cache)
        name = f"{job[0]}-t{job[1]['BM']}-{job[2].replace(':', '_')}-w{job[3]}"
        if err is not None:
            print("failed", name, err)
            continue
        meta = json.loads(next(p for p in Path(cache).rglob("*.json") if not p.name.startswith("__grp")).read_text())
        for suffix in ("ttgir", "llir"):
            shutil.copy(next(Path(cache).rglob(f"*.{suffix}")), HERE / f"{name}.{suffix}")
        (HERE / f"{name}.json").write_text(json.dumps({"shared": meta.get("shared"), "num_warps": job[3],
                                                        "target": job[2]}) + "\n")
        print(name)
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
