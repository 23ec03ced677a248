"""Write the TTGIR module Triton prints just before one of its passes (for ops that a later pass lowers away).

    python3 examples/dump_before_pass.py KERNEL CONFIG TARGET WARPS PASS OUT.ttgir

``KERNEL`` is a case name of examples/kernels/ (``tma_gather``), ``CONFIG`` one of its configurations,
``TARGET`` like ``cuda:100``, ``PASS`` a pass name as Triton's dump prints it
(``TritonNvidiaGPUTMALoweringPass``).  Triton compiles in a child process with ``MLIR_ENABLE_DUMP=1``; the
module printed under ``IR Dump Before PASS`` is written to ``OUT``.  Example: ``tt.descriptor_gather`` exists
only before ``TritonNvidiaGPUTMALoweringPass`` turns it into ``ttng.async_tma_gather``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import build_corpus
job = json.loads(sys.argv[2])
import triton
src, target, options = build_corpus.compile_source(job)
triton.compile(src, target=target, options=options)
'''


def main(argv: list[str]) -> int:
    if len(argv) != 6:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    kernel, config, target, warps, pass_name, out = argv
    job = {"kernel": kernel, "config": config, "target": target, "warps": int(warps)}
    env = dict(os.environ, MLIR_ENABLE_DUMP="1", TRITON_ALWAYS_COMPILE="1")  # a cached kernel runs no passes
    proc = subprocess.run([sys.executable, "-c", CHILD, str(HERE), json.dumps(job)], env=env, capture_output=True,
                          text=True, timeout=600)
    for part in proc.stderr.split("// -----// IR Dump ")[1:]:
        head, _, body = part.partition("\n")
        if head.startswith(f"Before {pass_name}:"):
            Path(out).write_text(body.strip() + "\n")
            print(f"{out}: the module before {pass_name}")
            return 0
    print(f"no dump before {pass_name!r} (Triton exit {proc.returncode}): {proc.stderr[-400:]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
