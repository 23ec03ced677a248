"""Bank claims for ``ldmatrix`` / ``stmatrix`` accesses (:mod:`llverify.codegen.ldmatrix`; plain and ``.trans``),
each refutable with a witness.

``prove_matrix_bank_count`` decides the exact wavefronts per warp-level instruction of a matrix
instruction (the model of :mod:`llverify.codegen.ldmatrix`) by *exhaustive enumeration*: the brute-force
simulator (:func:`llverify.codegen.bank_sim.simulate_matrix_wavefronts`) builds every instruction's row
addresses from the PTX fragment definition, checks every element of every lane, and counts; the closed form
must give the same number for every instruction, else the verdict is an ``error`` (soundness alarm).  A
layout too large to enumerate gives ``unknown``, never a closed-form-only ``proved``.

Claims on the proved count ``n`` (``N`` matrices per instruction, the conflict-free minimum):

* ``max_wavefronts: m`` holds iff ``n <= m``; ``wavefronts: c`` iff ``n == c``; ``conflict_free: true`` iff
  ``n == N``.

Witnesses (concrete, replayed on the simulator's addresses, never placeholders):

* too many because of a conflict: the two lanes that supply rows 0 and ``r`` of matrix 0 in instruction 0,
  with their byte addresses: different addresses in the same 16-byte bank group;
* too many with no conflict (``m < N``): one address lane from each matrix (lanes 0, 8, 16, 24), whose
  rows the unit serves in separate wavefronts;
* fewer than claimed: the simulated count of every instruction.
"""

from __future__ import annotations

import time

from llverify.codegen.bank_model import NVIDIA, BankModel
from llverify.codegen.bank_sim import simulate_matrix_wavefronts
from llverify.codegen.ldmatrix import matrix_tile, matrix_wavefronts
from llverify.errors import LayoutError, SizeGuardError
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_matrix_bank_count", "matrix_bank_claims"]


def prove_matrix_bank_count(access: LinearLayout, shared: LinearLayout, bitwidth: int, instruction: str,
                            matrices: int | None = None, model: BankModel = NVIDIA,
                            subject: str = "matrix_wavefronts") -> Verdict:
    """The exact wavefronts per ``instruction`` (module docstring), proved by exhaustive enumeration."""
    t0 = time.perf_counter()
    try:
        rep = matrix_wavefronts(access, shared, bitwidth, instruction, model, matrices)
        tile = matrix_tile(access, shared, bitwidth, instruction, matrices)
    except LayoutError as e:
        return Verdict("error", "bank_conflicts", subject, None, time.perf_counter() - t0, str(e))
    details = {**rep.to_json(), "phases": rep.min_wavefronts, "vector_bits": 128, "lanes_per_phase": 8,
               "row_groups": model.banks * model.bank_bytes // 16, "banks_per_group": 16 // model.bank_bytes}
    try:
        sim = simulate_matrix_wavefronts(access, shared, bitwidth, instruction, model, tile=tile)
    except SizeGuardError as e:
        return Verdict("unknown", "bank_conflicts", subject, None, time.perf_counter() - t0,
                       f"too large to enumerate every {instruction} instruction ({e})", details=details)
    except LayoutError as e:
        return Verdict("error", "bank_conflicts", subject, None, time.perf_counter() - t0,
                       f"soundness alarm: the closed form accepted the tile, the simulator did not: {e}", details=details)
    details = {**details, "simulator": sim.to_json()}
    secs = time.perf_counter() - t0
    if sim.max_wavefronts != rep.wavefronts or sim.min_wavefronts != rep.wavefronts:
        return Verdict("error", "bank_conflicts", subject, None, secs,
                       f"soundness alarm: simulator {sim.min_wavefronts}..{sim.max_wavefronts} vs closed form "
                       f"{rep.wavefronts}", details=details)
    return Verdict("proved", "bank_conflicts", subject, "exhaustive", secs,
                   f"exactly {rep.wavefronts} wavefronts per {instruction}.x{rep.matrices} instruction "
                   f"({rep.wavefronts_per_matrix} per matrix; every one of {sim.instructions} instructions enumerated)",
                   certificate={"instructions_enumerated": sim.instructions}, details=details)


def matrix_bank_claims(v: Verdict, *, max_wavefronts: int | None = None, wavefronts: int | None = None,
                       conflict_free: bool | None = None) -> Verdict:
    """Decide the claims on a proved matrix count ``v`` (module docstring)."""
    if v.status != "proved" or (max_wavefronts is None and wavefronts is None and not conflict_free):
        return v
    d = v.details
    n, m = int(d["wavefronts"]), int(d["matrices"])
    claims = []
    if max_wavefronts is not None:
        claims.append(("max_wavefronts", n <= max_wavefronts, max_wavefronts,
                       f"{n} wavefronts per instruction > {max_wavefronts}"))
    if wavefronts is not None:
        claims.append(("wavefronts", n == wavefronts, wavefronts,
                       f"exactly {n} wavefronts per instruction, not {wavefronts}"))
    if conflict_free:
        claims.append(("conflict_free", n == m, m,
                       f"{n} wavefronts per instruction where a conflict-free .x{m} takes {m}"))
    failed = [c for c in claims if not c[1]]
    if not failed:
        return v.with_(message=v.message + "; " + ", ".join(c[0] for c in claims) + " hold")
    name, _, claimed, msg = failed[0]
    rows = list(d["simulator"]["lane_rows"])
    if n > claimed:
        if d["colliding_rows"]:
            r = int(d["colliding_rows"][0])
            a, b = rows[0], rows[r]
            g, per = int(d["row_groups"]), int(d["banks_per_group"])
            # replay: different addresses, one 16-byte bank group (one wavefront serves g rows)
            if a == b or (a // 16) % g != (b // 16) % g:
                return Verdict("error", "bank_conflicts", v.subject, None, v.seconds,
                               f"soundness alarm: rows 0 and {r} do not collide on the simulated addresses")
            cx = Counterexample({"lane_a": 0, "lane_b": r},
                                {"row address(lane_a)": a, "row address(lane_b)": b, "bank group": (a // 16) % g,
                                 "banks": [per * ((a // 16) % g) + k for k in range(per)]},
                                "two lanes of matrix 0 supply 16-byte rows at different addresses in one bank group "
                                "(instruction 0, addresses from the layouts)")
        else:
            cx = Counterexample({f"lane_{j}": 8 * j for j in range(m)},
                                {"matrices": m, "wavefronts": n, "row addresses": [rows[8 * j] for j in range(m)]},
                                "one address lane per matrix: each matrix is a wavefront of its own")
    else:
        cx = Counterexample({"instruction": 0}, {"simulated wavefronts": d["simulator"]["max"], "claimed": claimed},
                            "every instruction simulated: the access needs fewer wavefronts than claimed")
    return Verdict("refuted", "bank_conflicts", v.subject, v.method, v.seconds, msg, cx,
                   details={**d, "claim": name})
