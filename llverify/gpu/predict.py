"""What a case's kernel should do on the hardware, computed before it runs.

Glue only: the numbers come from :mod:`llverify.codegen`.  For a
shared-memory case, the kernel's store and load vectors are codegen's
``shared_vector_width`` (so the generator and the prediction cannot
disagree on them), and the wavefronts per warp-level instruction are
``llverify.codegen.bank_wavefronts`` (lemma 9.4, "predicted" in the
report) cross-checked by ``llverify.codegen.simulate_wavefronts`` (brute
force over every instruction of the kernel's vectors).  What this module
adds is the kernel's instruction mix: one ``st.shared`` per store vector
and one ``ld.shared`` per load vector per thread, so a block executes
``warps * registers / vector`` of each per conversion.  A shuffle case has
no shared-memory instruction; it reports its ``shfl.sync`` count.

Example: blocked (1x8 f16 per thread) -> mma v2 at 64x64 through a row-major
buffer stores 16-byte vectors (4 per thread, 4 wavefronts each) and loads
4-byte pairs with 8 wavefronts each (lanes 4 rows apart share banks).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from llverify.codegen import bank_wavefronts, simulate_wavefronts
from llverify.gpu.cases import Case
from llverify.gpu.kernels import KernelSource, shared_vectors

__all__ = ["Prediction", "predict", "PREDICTION_SOURCE"]

PREDICTION_SOURCE = "llverify.codegen.bank_wavefronts"


@dataclass(frozen=True)
class Prediction:
    source: str                              # which function gave "wavefronts"
    wavefronts: dict[str, float | None]      # per warp-level instruction
    simulated: dict[str, float | None]       # codegen's brute-force simulator on the kernel's vectors
    instructions_per_block: dict[str, int]   # warp-level shared instructions of one conversion
    vector: dict[str, int]                   # elements per instruction
    shuffle_rounds: int                      # shfl.sync per thread and conversion
    error: str | None = None                 # codegen's closed form and the kernel's vectors disagree

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def predict(case: Case, k: KernelSource) -> Prediction:
    """Codegen's wavefront prediction for the instruction mix of ``k`` (see the module docstring)."""
    a, b = case.maps()
    if case.shared is None:
        none = {"store": None, "load": None}
        return Prediction("none (warp shuffles)", dict(none), dict(none), {"store": 0, "load": 0},
                          {"global_load": k.gvec, "global_store": k.ovec}, k.shuffle_rounds)
    bits = case.bitwidth
    sp, lp = shared_vectors(case.src, case.dst, case.shared, case.elem_bytes)
    st = bank_wavefronts(case.src, case.shared, bits, max_vector_elems=k.svec)
    ld = bank_wavefronts(case.dst, case.shared, bits, max_vector_elems=k.lvec)
    sim = {"store": float(simulate_wavefronts(case.src, case.shared, bits, vector=sp.plan).wavefronts),
           "load": float(simulate_wavefronts(case.dst, case.shared, bits, vector=lp.plan).wavefronts)}
    err = None
    if (st.vector, ld.vector) != (sp.plan, lp.plan):
        err = f"bank_wavefronts vectorised {st.vector.elems}/{ld.vector.elems}, the kernel {k.svec}/{k.lvec}"
    insts = {"store": a.n_warps * (a.n_reg // k.svec), "load": b.n_warps * (b.n_reg // k.lvec)}
    return Prediction(PREDICTION_SOURCE, {"store": float(st.wavefronts), "load": float(ld.wavefronts)}, sim, insts,
                      {"store": k.svec, "load": k.lvec, "global_load": k.gvec, "global_store": k.ovec}, 0, err)
