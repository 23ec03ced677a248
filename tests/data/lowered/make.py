"""Regenerate the lowered-code test data: TTGIR + LLVM IR pairs whose debug locations are TTGIR lines.

    python3 tests/data/lowered/make.py [KERNEL_SUBSTRING]
    python3 tests/data/lowered/make.py --cvt [CASE_SUBSTRING]   # the conversions of cvt_cases.py

Each kernel of examples/kernels/ listed below is compiled with ``USE_IR_LOC=ttgir`` (Triton then writes the
TTGIR into its cache and points every ``!DILocation`` of the LLVM IR at that file's lines); the cache's
``<kernel>.ttgir`` and ``<kernel>.llir`` are copied here as ``<name>.ttgir`` / ``<name>.llir``, and the
shared-memory size Triton allocated (its metadata's ``shared``) into ``<name>.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
JOBS = [
    ("matmul", "t64s1", "cuda:80", 4), ("matmul", "t64s3", "cuda:90", 4), ("matmul", "t64s1", "hip:gfx942", 4),
    ("transpose", "m64n64", "cuda:90", 4), ("softmax", "r4c128", "cuda:90", 4),
    ("gluon_convert_rowmajor_to_colmajor_w4", "64x64", "cuda:90", 4),
    ("gluon_convert_lane_swap_w4", "64x64", "cuda:90", 4),
    ("gluon_convert_mma_to_blocked_w4", "64x64", "cuda:80", 4),
    ("attention", "q64k64d64", "cuda:90", 4), ("reduction", "m64n64", "cuda:90", 8),
    ("gluon_padded_wave64", "pad16b", "hip:gfx942", 4), ("gluon_padded", "permuted", "cuda:90", 4),
    ("matmul", "t128s1", "hip:gfx942", 4), ("attention", "q64k64d64", "hip:gfx942", 4),
    # issue 15: a conversion ordered by warp-scope barriers only (bar.warp.sync / wave.barrier), and a
    # reduction whose scratch stores take constant getelementptr pointers
    ("gluon_convert_vec4_to_vec1_w4", "64x64", "cuda:90", 4), ("gluon_convert_vec4_to_vec1_wave64_w4", "64x64", "hip:gfx942", 4),
    ("reduction", "m32n256", "cuda:90", 4),
    # a fixed-trip-count loop pipelined with cp.async and wrap-around buffer counters (lowered/orbits.py)
    ("pipelined_tf32x3", "m64n64k32", "cuda:80", 4),
]
# splitk_matmul-k-hip_gfx950-w4 (a vector phi carrying per-thread swizzle offsets out of the loop; its
# conversion branches: lowered/uniform.py) comes from examples/version_kernels.py:
#   python3 examples/build_versions.py --python $(which python3) --out /tmp/v --only splitk_matmul --lowered


def _copy_out(cache: str, name: str, target: str) -> None:
    ttgir = next(Path(cache).rglob("*.ttgir"))
    llir = next(Path(cache).rglob("*.llir"))
    shutil.copy(ttgir, HERE / f"{name}.ttgir")
    shutil.copy(llir, HERE / f"{name}.llir")
    meta = json.loads(next(p for p in Path(cache).rglob("*.json") if not p.name.startswith("__grp")).read_text())
    (HERE / f"{name}.json").write_text(json.dumps({"shared": meta.get("shared"), "num_warps": meta.get("num_warps"),
                                                    "target": target}) + "\n")


def cvt_main(only: str | None) -> None:
    """The conversion samples of ``cvt_cases.py`` (Gluon, explicit layouts), one child process each."""
    sys.path.insert(0, str(HERE))
    import cvt_cases

    for name, (target, warps, *_rest) in cvt_cases.cases().items():
        if only and only not in name:
            continue
        cache = tempfile.mkdtemp(prefix="lowered-cvt-")
        env = {**os.environ, "USE_IR_LOC": "ttgir", "TRITON_CACHE_DIR": cache, "TRITON_DEFAULT_FP_FUSION": "1"}
        code = "import sys; sys.path.insert(0, sys.argv[1]); import cvt_cases; cvt_cases.compile_case(sys.argv[2])"
        proc = subprocess.run([sys.executable, "-c", code, str(HERE), name], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print("failed", name, proc.stderr[-500:])
            continue
        out = f"{name}-{target.replace(':', '_')}-w{warps}"
        _copy_out(cache, out, target)
        shutil.rmtree(cache, ignore_errors=True)
        print(out)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--cvt":
        cvt_main(sys.argv[2] if len(sys.argv) > 2 else None)
        return
    only = sys.argv[1] if len(sys.argv) > 1 else None  # a substring of the kernel name: rebuild only those
    for kernel, config, target, warps in JOBS:
        if only and only not in kernel:
            continue
        cache = tempfile.mkdtemp(prefix="lowered-")
        env = {**os.environ, "USE_IR_LOC": "ttgir", "TRITON_CACHE_DIR": cache, "TRITON_DEFAULT_FP_FUSION": "1"}
        job = {"kernel": kernel, "config": config, "target": target, "warps": warps}
        code = ("import sys, json; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]); "
                "import build_corpus; build_corpus.compile_job(json.loads(sys.argv[3]))")
        proc = subprocess.run([sys.executable, "-c", code, str(ROOT / "examples"), str(ROOT / "examples" / "kernels"),
                               json.dumps(job)], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print("failed", job, proc.stderr[-500:])
            continue
        name = f"{kernel}-{config}-{target.replace(':', '_')}-w{warps}"
        ttgir = next(Path(cache).rglob("*.ttgir"))
        llir = next(Path(cache).rglob("*.llir"))
        shutil.copy(ttgir, HERE / f"{name}.ttgir")
        shutil.copy(llir, HERE / f"{name}.llir")
        meta = json.loads(next(p for p in Path(cache).rglob("*.json") if not p.name.startswith("__grp")).read_text())
        (HERE / f"{name}.json").write_text(json.dumps({"shared": meta.get("shared"), "num_warps": meta.get("num_warps"),
                                                        "target": target}) + "\n")
        shutil.rmtree(cache, ignore_errors=True)
        print(name)


if __name__ == "__main__":
    main()
