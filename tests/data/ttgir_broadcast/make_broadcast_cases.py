"""Regenerate the broadcast conversion cases: TTGIR + LLVM IR that Triton 3.9 (CPU wheel) emits for sm_90.

    python3 tests/data/ttgir_broadcast/make_broadcast_cases.py

Each case converts an ``M x N`` f32 tile from blocked layout SRC to DST (4 warps) where a layout holds
copies (lanes, registers or warps broadcast).  tests/test_conversion_lowering.py checks that
``llverify.codegen.shuffle.triton_lowering`` names the class the LLVM IR shows (``shfl.sync`` vs shared
memory).  ``pr11646_*`` is the 16x1 case of Triton PR #11646 (every warp of SRC holds every row); the
``*_register_shift`` cases are warp-local only through a warp-dependent *register* choice, which Triton
does not do (shared memory).  Blocked parameters: [size_per_thread, threads_per_warp, warps_per_cta, order].
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = {
    "pr11646_rows_warp_copies": (16, 1, [[1, 1], [32, 1], [4, 1], [1, 0]], [[1, 8], [4, 8], [4, 1], [1, 0]]),
    "bc0_register_shift": (8, 2, [[2, 4], [1, 32], [1, 4], [0, 1]], [[2, 4], [1, 32], [4, 1], [0, 1]]),
    "bc1": (4, 32, [[4, 4], [1, 32], [4, 1], [1, 0]], [[1, 1], [1, 32], [4, 1], [0, 1]]),
    "bc2": (8, 8, [[4, 2], [4, 8], [2, 2], [0, 1]], [[1, 4], [2, 16], [1, 4], [1, 0]]),
    "bc3_register_shift": (4, 16, [[1, 2], [1, 32], [1, 4], [1, 0]], [[1, 4], [2, 16], [2, 2], [1, 0]]),
    "bc5": (2, 4, [[4, 1], [1, 32], [1, 4], [0, 1]], [[4, 1], [4, 8], [4, 1], [0, 1]]),
    "bc9": (4, 1, [[2, 1], [4, 8], [4, 1], [0, 1]], [[4, 2], [4, 8], [4, 1], [1, 0]]),
    "bc12": (8, 1, [[1, 4], [8, 4], [4, 1], [0, 1]], [[1, 2], [4, 8], [4, 1], [0, 1]]),
}

CHILD = r'''
import json, sys
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

M, N, s, d = json.loads(sys.argv[1])
sig = {"x": "*fp32", "y": "*fp32", "M": "constexpr", "N": "constexpr", "SRC": "constexpr", "DST": "constexpr"}
src = GluonASTSource(fn=convert, signature=sig,
                     constexprs={"M": M, "N": N, "SRC": gl.BlockedLayout(*s), "DST": gl.BlockedLayout(*d)})
k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
print(json.dumps({"ttgir": k.asm["ttgir"], "llir": k.asm["llir"]}))
'''


def main() -> None:
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1"}
    for name, case in CASES.items():
        proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(case)], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            print("failed", name, proc.stderr[-300:])
            continue
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        for ext in ("ttgir", "llir"):
            (HERE / f"{name}-cuda_90-w4.{ext}").write_text(out[ext])
        print(name)


if __name__ == "__main__":
    main()
