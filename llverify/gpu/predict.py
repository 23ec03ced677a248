"""What a case's kernel should do on the hardware, computed before it runs.

For a shared-memory case: the store and load vector widths the generator
chose, the warp-level ``st.shared`` / ``ld.shared`` instructions one block
executes per conversion, and the wavefronts per instruction from three
sources: ``llverify.codegen.bank_wavefronts`` (lemma 9.4, the codegen
layer's closed form; "predicted" in the report when it is importable),
:func:`~llverify.gpu.banks.lemma_wavefronts` and the brute-force
:func:`~llverify.gpu.banks.simulate_wavefronts`.  A shuffle case has no
shared-memory instruction; its prediction is the number of ``shfl.sync``
rounds.

Example: blocked (1x8 f16 per thread) -> mma v2 at 64x64 through a row-major
buffer stores 16-byte vectors (4 per thread, 4 wavefronts each) and loads
4-byte pairs with 8 wavefronts each (lanes 4 rows apart share banks).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from llverify.gpu.banks import lemma_wavefronts, simulate_wavefronts
from llverify.gpu.cases import Case
from llverify.gpu.kernels import KernelSource
from llverify.gpu.tile import SharedMap

__all__ = ["Prediction", "predict"]


@dataclass(frozen=True)
class Prediction:
    source: str                              # which function gave "wavefronts"
    wavefronts: dict[str, float | None]      # per warp-level instruction
    lemma: dict[str, float | None]
    simulated: dict[str, float | None]
    instructions_per_block: dict[str, int]   # warp-level shared instructions of one conversion
    vector: dict[str, int]                   # elements per instruction
    shuffle_rounds: int
    codegen_error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _codegen_wavefronts(case: Case, access: Any, vec: int) -> tuple[int | None, str | None]:
    try:
        from llverify.codegen.banks import bank_wavefronts  # noqa: PLC0415
    except ImportError as exc:
        return None, f"llverify.codegen.banks unavailable ({exc})"
    try:
        rep = bank_wavefronts(access, case.shared, 8 * case.elem_bytes, max_vector_elems=vec)
    except Exception as exc:  # noqa: BLE001  (report, never crash the harness)
        return None, f"{type(exc).__name__}: {exc}"
    if rep.vector.elems != vec:
        return None, f"codegen vectorised {rep.vector.elems} elements, the kernel {vec}"
    return rep.wavefronts, None


def predict(case: Case, k: KernelSource) -> Prediction:
    a, b = case.maps()
    warps = a.n_warps
    if case.shared is None:
        return Prediction("none (warp shuffles)", {"store": None, "load": None}, {"store": None, "load": None},
                          {"store": None, "load": None}, {"store": 0, "load": 0},
                          {"global_load": k.gvec, "global_store": k.ovec}, k.shuffle_rounds)
    s = SharedMap.of(case.shared)
    eb = case.elem_bytes
    lemma = {"store": float(lemma_wavefronts(a, s, eb, k.svec)), "load": float(lemma_wavefronts(b, s, eb, k.lvec))}
    sim = {"store": float(simulate_wavefronts(a, s, eb, k.svec)), "load": float(simulate_wavefronts(b, s, eb, k.lvec))}
    cg_st, err_st = _codegen_wavefronts(case, case.src, k.svec)
    cg_ld, err_ld = _codegen_wavefronts(case, case.dst, k.lvec)
    if cg_st is not None and cg_ld is not None:
        src, waves = "llverify.codegen.bank_wavefronts", {"store": float(cg_st), "load": float(cg_ld)}
    else:
        src, waves = "llverify.gpu.banks.lemma_wavefronts", dict(lemma)
    insts = {"store": warps * (a.n_reg // k.svec), "load": warps * (b.n_reg // k.lvec)}
    return Prediction(src, waves, lemma, sim, insts,
                      {"store": k.svec, "load": k.lvec, "global_load": k.gvec, "global_store": k.ovec},
                      0, err_st or err_ld)
