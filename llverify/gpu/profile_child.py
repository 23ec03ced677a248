"""Child process run under ``ncu``: launch every kernel of a JSON file once (one block, reps = 1).

``python3 -m llverify.gpu.profile_child KERNELS.json`` where the file holds
``{"cache": cubin folder, "kernels": [kernels_to_json entries]}``.  The
inputs are all-ones words (the counters do not depend on the data).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    import cupy  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    from llverify.gpu.kernels import KernelSource  # noqa: PLC0415
    from llverify.gpu.runner import compile_kernels  # noqa: PLC0415

    spec = json.loads(Path(argv[0]).read_text())
    kernels = [KernelSource(**k) for k in spec["kernels"]]
    fns = compile_kernels(kernels, Path(spec["cache"]))
    dt = {1: np.uint8, 2: np.uint16, 4: np.uint32}
    for k in kernels:
        inp = cupy.ones(k.tile_elems, dtype=dt[k.elem_bytes])
        out = cupy.zeros(k.threads * k.n_dst_regs, dtype=dt[k.elem_bytes])
        fns[k.name]((1,), (k.threads,), (inp, out, np.int32(1), np.uint32(0)), shared_mem=k.smem_bytes)
    cupy.cuda.runtime.deviceSynchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
