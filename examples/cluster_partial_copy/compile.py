"""Compile the two 2-CTA modules of tests/data/ttgir_cta/partial_copy/ with Triton 3.9 for sm_90 into OUT
(``<name>.cubin`` and ``<name>.json``: kernel name, shared bytes, warps), for ``run_on_gpu.py`` on a GPU.

Each CTA of the cluster stores its half of a 64x32 f16 tile into a buffer both CTAs keep whole (``CGALayout = [[0,
0]]``: Triton writes only the CTA's own copy), then loads it back: in the same split (``own_half``: each CTA reads
what it wrote; the gate proves the store) or whole in every CTA (``read_whole``: CTA 0 reads rows 32..63 of its copy,
which nobody wrote; the gate refutes the store, naming the load).  Also Triton's own 2-CTA wgmma matmul
(``mm_real``) and its mutant with B's buffer kept whole by every CTA (``mm_b_whole``: each CTA writes half of its
copy and its wgmma reads all of it; the gate refutes the store), for ``run_on_gpu.py`` too.

    python3 examples/cluster_partial_copy/compile.py OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget

DATA = Path(__file__).resolve().parent.parent.parent / "tests" / "data" / "ttgir_cta" / "partial_copy"

if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    real = (DATA.parent / "cluster_mm-b128x128x64-cuda_90-w4.ttgir").read_text()
    line = next(line for line in real.splitlines() if line.startswith("#shared1 = "))
    (out / "mm_real.ttgir").write_text(real)
    (out / "mm_b_whole.ttgir").write_text(real.replace(line, line.replace("CGALayout = [[0, 1]]",
                                                                          "CGALayout = [[0, 0]]")))
    for name, path in (("own_half", DATA / "own_half.ttgir"), ("read_whole", DATA / "read_whole.ttgir"),
                       ("mm_real", out / "mm_real.ttgir"), ("mm_b_whole", out / "mm_b_whole.ttgir")):
        k = triton.compile(str(path), target=GPUTarget("cuda", 90, 32))
        (out / f"{name}.cubin").write_bytes(k.asm["cubin"])
        (out / f"{name}.json").write_text(json.dumps({"name": k.metadata.name, "shared": k.metadata.shared,
                                                       "num_warps": k.metadata.num_warps}) + "\n")
