"""Compile five corpus kernels for the targets the main corpus leaves out, into tests/data/ttgir/more_targets/.

The main corpus (``build_corpus.py``) covers cuda:80/90/100 and gfx942/950.  Users also compile for
Turing (cuda:75), consumer Blackwell (cuda:120) and RDNA3/RDNA4 (gfx1100, gfx1201: WMMA layouts); these
twenty modules (first configuration of each kernel, 4 warps) keep the reader and the gate honest there.

Run: ``python examples/build_more_targets.py`` (Triton 3.9 wheel; no GPU needed).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import build_corpus  # noqa: E402 - the sibling script, importable once HERE is on the path

KERNELS = ("matmul", "attention", "softmax", "transpose", "reduction")
TARGETS = ("hip:gfx1100", "hip:gfx1201", "cuda:120", "cuda:75")
OUT = HERE.parent / "tests" / "data" / "ttgir" / "more_targets"


def main() -> None:
    cases = {c.name: c for c in build_corpus.load_cases()}
    OUT.mkdir(parents=True, exist_ok=True)
    failed = 0
    for kernel in KERNELS:
        config = next(iter(cases[kernel].configs))
        for target in TARGETS:
            job = {"kernel": kernel, "config": config, "target": target, "warps": 4}
            result = build_corpus.run_child(job, 120.0)
            name = build_corpus.module_name(job)
            if result.get("ok"):
                (OUT / f"{name}.ttgir").write_text(result["ttgir"])
                print("ok  ", name)
            else:
                failed += 1
                print("FAIL", name, result.get("error"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
