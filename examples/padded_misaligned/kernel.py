"""A padded shared layout whose padding is not a multiple of 16 bytes, stored with 16-byte vectors.

``padded_roundtrip`` (examples/kernels/gluon_padded.py) loads a 64x64 f16 tile with each thread holding 8 consecutive elements of a row (16 bytes), stores
it into a ``PaddedSharedLayout`` and loads it back in another layout.  With padding intervals ``[[32, PAD], [256, 8]]``
(PAD f16 elements after every 32), element ``i`` of the tile sits at ``i + PAD * (i // 32) + 8 * (i // 256)``: with
PAD = 4 the runs starting at ``i = 32, 96, ...`` begin 8 bytes past a 16-byte boundary.  The gate reads the store as
vectors that are not aligned to their size; ``run_on_gpu.py`` runs Triton 3.9's cubin for PAD = 4 and PAD = 8 (every
run 16-byte aligned, the control) on a GPU.

    python3 examples/padded_misaligned/kernel.py OUT      # OUT/pad{4,8}.{ttgir,ptx,cubin,json}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import triton
import triton.experimental.gluon.language as gl
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "kernels"))
from gluon_padded import padded_roundtrip  # noqa: E402  (the corpus's padded round trip, another padding here)


def compile_one(pad: int, out: Path) -> None:
    src = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    dst = gl.BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
    smem = gl.PaddedSharedLayout.with_identity_for([[32, pad], [256, 8]], [64, 64], [1, 0])
    constexprs = {"M": 64, "N": 64, "SRC": src, "DST": dst, "SMEM": smem}
    source = gluon._runtime.GluonASTSource(padded_roundtrip,
                                           {"x": "*fp16", "y": "*fp16", **{k: "constexpr" for k in constexprs}},
                                           constexprs)
    k = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    stem = out / f"pad{pad}"
    stem.with_suffix(".ttgir").write_text(k.asm["ttgir"])
    stem.with_suffix(".ptx").write_text(k.asm["ptx"])
    stem.with_suffix(".cubin").write_bytes(k.asm["cubin"])
    meta = {"name": k.metadata.name, "shared": k.metadata.shared, "num_warps": k.metadata.num_warps,
            "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0),
            "profile_scratch_size": getattr(k.metadata, "profile_scratch_size", 0)}
    stem.with_suffix(".json").write_text(json.dumps(meta) + "\n")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for pad in (4, 8):
        compile_one(pad, out)
