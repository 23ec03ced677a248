"""Padded round trips of 27 configurations against Triton 3.9's PTX: the store vector the gate models, and whether it
refutes the store as misaligned, next to the ``st.shared`` widths Triton emits (f16; 8, 4 and 2 elements per thread
per row, i.e. 16-, 8- and 4-byte vectors; nine paddings).

    python3 examples/padded_misaligned/sweep.py OUT      # writes OUT/<config>.ttgir, prints one line per config

Last run (Triton 3.9.0, sm_90): every width the gate models equals the PTX's (v4.b32, v4.b16, v2.b16), and it refutes
the 12 configurations whose padding is not a multiple of the vector (every one of the 4 run on an H200 faults).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import triton
import triton.experimental.gluon.language as gl
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "examples" / "kernels"))
sys.path.insert(0, str(ROOT))
from gluon_padded import padded_roundtrip  # noqa: E402

from llverify.ttgir.gate import gate_file  # noqa: E402

PADDINGS = ([[32, 2]], [[32, 4]], [[64, 2]], [[64, 4]], [[16, 4]], [[128, 4]], [[32, 1]], [[64, 8]], [[32, 4], [256, 8]])


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for spt in (8, 4, 2):
        for pairs in PADDINGS:
            across = min(64 // spt, 32)
            cx = {"M": 64, "N": 64, "SRC": gl.BlockedLayout([1, spt], [32 // across, across], [4, 1], [1, 0]),
                  "DST": gl.BlockedLayout([spt, 1], [across, 32 // across], [1, 4], [0, 1]),
                  "SMEM": gl.PaddedSharedLayout.with_identity_for(pairs, [64, 64], [1, 0])}
            source = gluon._runtime.GluonASTSource(padded_roundtrip, {"x": "*fp16", "y": "*fp16",
                                                                      **{k: "constexpr" for k in cx}}, cx)
            k = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
            name = f"spt{spt}_" + "_".join(f"{a}p{b}" for a, b in pairs)
            path = out / f"{name}.ttgir"
            path.write_text(k.asm["ttgir"])
            ptx = sorted(set(re.findall(r"st\.shared(?:\.v\d)?\.b\d+", k.asm["ptx"])))
            found = gate_file(str(path)).findings
            refuted = [f.verdict.details["vector_bytes"] for f in found if f.verdict.property == "vector_alignment"]
            store = [f.verdict.details.get("vector_bits") for f in found
                     if f.verdict.property == "bank_conflicts" and f.op == "ttg.local_store"]
            print(f"{name:24} ptx {ptx}  gate: store vector bits {store}, refuted as misaligned {refuted}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
