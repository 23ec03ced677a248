"""Run the cubins ``kernel.py`` wrote (Triton 3.9, sm_90) on a GPU with CuPy, each in its own process (a misaligned
access leaves the CUDA context unusable), and print one JSON line per cubin: whether the launch failed and with
which error, and otherwise whether ``y`` equals ``x`` (the kernel copies the tile through shared memory).

    python3 examples/padded_misaligned/run_on_gpu.py DIR [--sanitizer]   # DIR holds pad{4,8}.{cubin,json}

``--sanitizer`` runs each child under ``compute-sanitizer`` (memcheck) and prints its report: the faulting
instruction, thread and shared address.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CHILD = r'''
import json, sys
import numpy as np
import cupy as cp
stem = sys.argv[1]
meta = json.load(open(stem + ".json"))
out = {"cubin": stem.rsplit("/", 1)[-1] + ".cubin"}
try:
    mod = cp.RawModule(path=stem + ".cubin")
    fn = mod.get_function(meta["name"])
    x = cp.asarray(np.arange(64 * 64, dtype=np.float16) % 2048)
    y = cp.zeros_like(x)
    null = cp.uint64(0)
    fn((1, 1, 1), (32 * meta["num_warps"], 1, 1), (x, y, null, null), shared_mem=meta["shared"])
    cp.cuda.runtime.deviceSynchronize()
    out.update(launched=True, error=None, y_equals_x=bool((y == x).all()))
except Exception as exc:
    out.update(launched=False, error=f"{type(exc).__name__}: {exc}")
print(json.dumps(out))
'''


def main() -> None:
    folder = Path(sys.argv[1])
    wrap = ["compute-sanitizer", "--print-limit", "4"] if "--sanitizer" in sys.argv[2:] else []
    for meta in sorted(folder.glob("*.json")):
        stem = str(meta.with_suffix(""))
        proc = subprocess.run([*wrap, sys.executable, "-c", CHILD, stem], capture_output=True, text=True, timeout=300)
        if wrap:
            print(proc.stdout, proc.stderr[-2000:], flush=True)
            continue
        line = (proc.stdout.strip().splitlines() or [json.dumps({"cubin": meta.stem, "child_failed": proc.stderr[-500:]})])[-1]
        print(line, flush=True)


if __name__ == "__main__":
    main()
