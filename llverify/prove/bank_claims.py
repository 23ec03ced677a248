"""Claims about a proved bank-wavefront count, each refutable with a witness (issue: exact bank claims).

Given the verdict of :func:`llverify.prove.plan_banks.prove_bank_count` (the exact wavefronts ``n`` per
instruction, and ``phases``, the minimum for the vector width: one wavefront per 128-byte phase):

* ``max_wavefronts: m`` holds iff ``n <= m``;
* ``wavefronts: c`` (exact) holds iff ``n == c``;
* ``conflict_free: true`` holds iff ``n == phases``.

Witnesses, all computed from the layouts by concrete evaluation, never placeholders:

* too many because of a conflict: two lanes of one phase of the first instruction whose vectors touch two
  different words of one bank (addresses evaluated on the access and shared layouts);
* too many with no conflict (a wide vector's phases): one lane from each phase, e.g. lanes 0, 8, 16, 24 of a
  128-bit access, which the hardware serves in separate wavefronts;
* fewer than claimed: the brute-force simulator's count of every instruction.

Every refutation is replayed: the simulator (an independent enumeration) must count ``n`` too, else the
verdict is an ``error``.

>>> from llverify.hw.registry import build
>>> from llverify.prove.plan_banks import prove_bank_count
>>> acc = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
...             order=[1, 0])
>>> sh = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])
>>> v = bank_claims(prove_bank_count(acc, sh, 16), acc, sh, 16, conflict_free=True)
>>> v.status, sorted(v.counterexample.inputs)
('refuted', ['lane_a', 'lane_b'])
"""

from __future__ import annotations

from typing import Any

from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import access_to_offsets, bank_wavefronts
from llverify.codegen.vectorize import permuted
from llverify.errors import LlverifyError
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["bank_claims", "colliding_lanes"]


def colliding_lanes(access: LinearLayout, shared: LinearLayout, bits: int, max_vector: int | None = None
                    ) -> dict[str, Any] | None:
    """Two lanes of one phase of instruction 0 that hit one bank at different words, or None."""
    rep = bank_wavefronts(access, shared, bits, max_vector)
    cvt = permuted(access_to_offsets(access, shared), rep.vector)
    vec_bytes = rep.vector.elems * bits // 8
    words_per_lane = max(1, vec_bytes // 4)
    lanes_per_phase = max(1, 32 // words_per_lane)
    base = {d: 0 for d in cvt.in_dim_names}
    for start in range(0, cvt.in_dim_size("lane"), lanes_per_phase):
        seen: dict[int, tuple[int, int]] = {}
        for lane in range(start, min(start + lanes_per_phase, cvt.in_dim_size("lane"))):
            byte = cvt.apply(**{**base, "lane": lane})["offset"] * bits // 8
            for w in range(byte // 4, byte // 4 + words_per_lane):
                bank = w % 32
                if bank in seen and seen[bank][1] != w:
                    other, ow = seen[bank]
                    return {"inputs": {"lane_a": other, "lane_b": lane},
                            "sides": {"word(lane_a)": ow, "word(lane_b)": w, "bank": bank}}
                seen.setdefault(bank, (lane, w))
    return None


def bank_claims(v: Verdict, access: LinearLayout, shared: LinearLayout, bits: int, *,
                max_wavefronts: int | None = None, wavefronts: int | None = None,
                conflict_free: bool | None = None) -> Verdict:
    """Decide the claims on a proved count ``v`` (see the module docstring)."""
    if v.status != "proved" or (max_wavefronts is None and wavefronts is None and not conflict_free):
        return v
    n, phases = int(v.details["wavefronts"]), int(v.details["phases"])
    claims = []
    if max_wavefronts is not None:
        claims.append(("max_wavefronts", n <= max_wavefronts, f"{n} wavefronts per instruction > {max_wavefronts}"))
    if wavefronts is not None:
        claims.append(("wavefronts", n == wavefronts, f"exactly {n} wavefronts per instruction, not {wavefronts}"))
    if conflict_free:
        claims.append(("conflict_free", n == phases,
                       f"{n} wavefronts per instruction where a conflict-free access takes {phases}"))
    failed = [(name, msg) for name, ok, msg in claims if not ok]
    if not failed:
        return v.with_(message=v.message + "; " + ", ".join(name for name, _, _ in claims) + " hold")
    name, msg = failed[0]
    try:
        sim = simulate_wavefronts(access, shared, bits)
        simulated = sim.max_wavefronts if sim.vector.elems == int(v.details["vector_elems"]) else None
    except LlverifyError:
        simulated = None
    if simulated is not None and simulated != n:
        return Verdict("error", "bank_conflicts", v.subject, None, v.seconds,
                       f"soundness alarm: the simulator counts {simulated}, the proof {n}")
    claimed = {"max_wavefronts": max_wavefronts, "wavefronts": wavefronts, "conflict_free": phases}[name]
    if n > (claimed or 0):
        hit = colliding_lanes(access, shared, bits)
        if hit is not None:
            cx = Counterexample(hit["inputs"], hit["sides"], "two lanes of one phase in one bank at different words "
                                                             "(addresses evaluated on the layouts)")
        else:
            lpp = int(v.details["lanes_per_phase"])
            cx = Counterexample({f"lane_{i}": i * lpp for i in range(phases)},
                                {"vector bits": int(v.details["vector_bits"]), "lanes per phase": lpp,
                                 "phases": phases, "wavefronts": n},
                                "one lane from each phase: a vector this wide is served in separate wavefronts")
    else:
        cx = Counterexample({"instruction": 0}, {"simulated wavefronts": simulated if simulated is not None else n,
                                                 "claimed": claimed},
                            "every instruction simulated: the access needs fewer wavefronts than claimed")
    return Verdict("refuted", "bank_conflicts", v.subject, v.method, v.seconds, msg, cx,
                   details={**v.details, "claim": name})
