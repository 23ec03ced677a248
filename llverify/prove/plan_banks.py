"""Proof of the bank-conflict count (:mod:`llverify.codegen.banks`, seed 000 lemma 9.4).

``prove_bank_count``: the closed form of :mod:`llverify.codegen.banks` is
*exact* for the hardware model of :mod:`llverify.codegen.bank_sim`, shown by
Z3 over symbolic instructions (non-vector registers, warps, blocks), phases
and lanes, with the byte/word/bank arithmetic of the model (shifts and adds,
not the F2 shortcut):

* upper bound: any two accesses of one phase that hit the same bank hit words
  whose XOR lies in ``span(B)``, ``B`` a basis of ``W ∩ R`` (so a bank serves
  at most ``2^|B|`` words);
* lower bound: ``2^|B|`` witness accesses (lane, word of the vector) hit one
  bank at pairwise distinct words, in every instruction and phase.

Optimal swizzles (lemmas 9.5, 9.6) are proved in :mod:`llverify.prove.plan_swizzle`.
"""

from __future__ import annotations

import time
from itertools import combinations

from llverify import f2
from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import BankReport, access_to_offsets, bank_wavefronts, word_of_offset
from llverify.codegen.common import log2
from llverify.codegen.vectorize import permuted
from llverify.errors import LayoutError, SizeGuardError
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_bank_count", "cross_check_bits", "CROSS_CHECK_BITS", "PARANOID_CROSS_CHECK_BITS"]


def _offsets(cvt: LinearLayout, dim: str) -> list[int]:
    if not cvt.has_in_dim(dim):
        return []
    k = list(cvt.out_dim_names).index("offset")
    return [b[k] for b in cvt.bases[dim]]


def _conflict_witness(rep: BankReport, lanes: list[int], bitwidth: int) -> tuple[dict, dict] | None:
    """Two phase-0 lanes (instruction 0) hitting one bank at different words, with their addresses."""
    if not rep.conflicting_lanes:
        return None
    l2 = rep.conflicting_lanes[0]
    off = 0
    for j, o in enumerate(lanes):
        if l2 >> j & 1:
            off ^= o
    w1, w2 = 0, word_of_offset(off, bitwidth)
    assert w1 % 32 == w2 % 32 and w1 != w2  # replay
    return ({"lane_a": 0, "lane_b": l2}, {"word(lane_a)": w1, "word(lane_b)": w2, "bank": w1 % 32})


#: the brute-force simulator re-counts a proved closed form up to 2^CROSS_CHECK_BITS access points by
#: default (a few milliseconds); ``LLVERIFY_PARANOID=1`` (``llverify check --paranoid``) raises it to
#: 2^PARANOID_CROSS_CHECK_BITS.  The cross-check guards the implementation, not the proof: Z3's unsat of
#: both bounds is the proof, so skipping it never weakens a verdict.
CROSS_CHECK_BITS = 16


PARANOID_CROSS_CHECK_BITS = 22


def cross_check_bits() -> int:
    """The cross-check's size cap in bits (see :data:`CROSS_CHECK_BITS`)."""
    import os

    return PARANOID_CROSS_CHECK_BITS if os.environ.get("LLVERIFY_PARANOID") == "1" else CROSS_CHECK_BITS


def prove_bank_count(access: LinearLayout, shared: LinearLayout, bitwidth: int,
                     max_wavefronts: int | None = None, max_vector_elems: int | None = None,
                     cross_check: bool = True, rlimit: int | None = None, timeout: float | None = None) -> Verdict:
    """Prove ``bank_wavefronts`` exact (Z3), and optionally that it is ``<= max_wavefronts``.

    With ``cross_check`` the simulator re-counts accesses of at most 2^:func:`cross_check_bits` points."""
    t0 = time.perf_counter()
    subject = "bank_wavefronts"
    try:
        rep = bank_wavefronts(access, shared, bitwidth, max_vector_elems)
        cvt = permuted(access_to_offsets(access, shared), rep.vector)
    except LayoutError as e:
        return Verdict("error", "bank_conflicts", subject, None, time.perf_counter() - t0, str(e))
    # Z3 and the bit-vector encoding (about 40 ms to load) only once a query is built: a gate run whose
    # accesses never reach here does not load them
    import z3  # noqa: PLC0415

    from llverify.prove import bv  # noqa: PLC0415

    details = rep.to_json()
    nv = log2(rep.vector.elems)
    lanes = _offsets(cvt, "lane")
    ph_bits = rep.phase_lane_bits
    nbits = max(1, cvt.out_dim_size_log2("offset"))
    bshift = log2(bitwidth // 8) if bitwidth >= 8 else 0
    width = nbits + bshift + 3
    n_words = rep.phases
    # conflict subspace B = W ∩ R (word coordinates) and its annihilator
    words = [word_of_offset(o, bitwidth) for o in lanes[:ph_bits]] + [1 << j for j in range(log2(n_words))]
    wbits = width
    R = [1 << k for k in range(5, wbits)]
    B = f2.intersection(f2.span_basis(words), R)
    ann = f2.nullspace(f2.columns_to_rows(B, wbits)) if B else [1 << i for i in range(wbits)]
    # symbolic instruction (non-vector registers, warps, blocks), phase, two lanes of the phase, two
    # words of the vector; offsets through prove.bv's encoding of cvt (seed 000, definition 4.1)
    n_reg = cvt.in_dim_size_log2("register")
    n_lane = cvt.in_dim_size_log2("lane")
    reg_hi = z3.BitVec("r_hi", n_reg - nv) if n_reg > nv else None
    phase = z3.BitVec("phase", n_lane - ph_bits) if n_lane > ph_bits else None
    others_vars = {d: v for d, v in bv.input_vars(cvt, prefix="i_").items() if d not in ("register", "lane")}
    ja, jb = z3.BitVec("ja", width), z3.BitVec("jb", width)

    def _join(hi: z3.BitVecRef | None, lo: z3.BitVecRef | None, lo_bits: int) -> z3.BitVecRef:
        parts = [p for p in (hi, lo if lo_bits else None) if p is not None]
        if not parts:
            return z3.BitVecVal(0, 1)
        return z3.Concat(*parts) if len(parts) > 1 else parts[0]

    register = _join(reg_hi, z3.BitVecVal(0, nv) if nv else None, nv)

    def word(lane_lo: z3.BitVecRef | None, j: z3.BitVecRef) -> z3.BitVecRef:
        lane = _join(phase, lane_lo, ph_bits)
        off = bv.layout_terms(cvt, {"register": register, "lane": lane, **others_vars})["offset"]
        byte = bv.fit(off, width) << bshift
        return z3.LShR(byte, 2) + j

    la = z3.BitVec("a", ph_bits) if ph_bits else None
    lb = z3.BitVec("b", ph_bits) if ph_bits else None
    wa, wb = word(la, ja), word(lb, jb)
    bank = lambda w: z3.Extract(4, 0, w)  # noqa: E731
    in_range = z3.And(z3.ULT(ja, n_words), z3.ULT(jb, n_words))
    outside = z3.Or([bv.parity_with(wa ^ wb, q) == 1 for q in ann]) if ann else z3.BoolVal(False)
    upper_q = bv.check(z3.And(in_range, bank(wa) == bank(wb), outside), rlimit=rlimit, timeout=timeout)
    st_u, smt_u = upper_q.status, upper_q.smt2
    # lower bound: witnesses = lanes/words reaching each element of span(B) from lane 0 word 0
    witness: list[tuple[int, int]] = []
    lane_words = {}
    for lane in range(1 << ph_bits):
        off = 0
        for j, o in enumerate(lanes[:ph_bits]):
            if lane >> j & 1:
                off ^= o
        for j in range(n_words):
            lane_words.setdefault(word_of_offset(off, bitwidth) + j, (lane, j))
    target = [0]
    for b in B:
        target += [t ^ b for t in target]
    missing = [t for t in target if t not in lane_words]
    st_l = "unknown"
    if not missing:
        witness = [lane_words[t] for t in target]
        ws = []
        for lane, j in witness:
            ws.append(word(z3.BitVecVal(lane, ph_bits) if ph_bits else None, z3.BitVecVal(j, width)))
        bad = [bank(ws[0]) != bank(w) for w in ws[1:]] + [ws[i] == ws[k] for i, k in combinations(range(len(ws)), 2)]
        st_l = bv.check(z3.Or(bad) if bad else z3.BoolVal(False), rlimit=rlimit, timeout=timeout).status
    details = {**details, "smt_upper": st_u, "smt_lower": st_l, "conflict_basis_words": B}
    if cross_check and access.total_in_bits <= cross_check_bits():
        try:
            sim = simulate_wavefronts(access, shared, bitwidth, rep.vector)
            details["simulator_wavefronts"] = sim.wavefronts
            if sim.max_wavefronts != rep.wavefronts or sim.min_wavefronts != rep.wavefronts:
                return Verdict("error", "bank_conflicts", subject, None, time.perf_counter() - t0,
                               f"soundness alarm: simulator {sim.to_json()} vs formula {rep.wavefronts}", details=details)
        except SizeGuardError:
            pass
    secs = time.perf_counter() - t0
    if st_u != "unsat" or st_l != "unsat":
        if st_u == "sat":
            return Verdict("error", "bank_conflicts", subject, "smt", secs,
                           "soundness alarm: Z3 found accesses violating the closed form's upper bound", details=details)
        return Verdict("unknown", "bank_conflicts", subject, "smt", secs, "Z3 did not decide the count", details=details)
    if max_wavefronts is not None and rep.wavefronts > max_wavefronts:
        w = _conflict_witness(rep, lanes[:ph_bits], bitwidth)
        inputs, sides = w if w else ({"lane_a": 0, "lane_b": 0}, {})
        return Verdict("refuted", "bank_conflicts", subject, "smt", secs,
                       f"{rep.wavefronts} wavefronts per instruction > {max_wavefronts}",
                       Counterexample(inputs, sides, "lanes of one phase in one bank at different words"),
                       details=details)
    return Verdict("proved", "bank_conflicts", subject, "smt", secs,
                   f"exactly {rep.wavefronts} wavefronts per instruction (vector {rep.vector.bits} bits)",
                   certificate={"upper": smt_u, "witness": witness}, details=details)
