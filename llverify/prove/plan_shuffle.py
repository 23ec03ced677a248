"""Proof of a warp-shuffle plan (:mod:`llverify.codegen.shuffle`, seed 000 section 5.4).

:func:`prove_shuffle_plan` (exhaustive + smt): simulating the rounds on
every (warp, lane, register) leaves every destination slot holding exactly
the element B assigns it, written once; each shuffle moves <= 32 bits per
lane; the plan's word structure (affine srcLane / sent / received word
maps) expands to exactly those tables on every lane; Z3 re-checks each
round for a symbolic lane and slot.  Plans that read broadcast copies
(:mod:`llverify.codegen.shuffle_broadcast`) are simulated as a kernel runs
them: in warp w (block b) lane t sends warp 0's registers for lane
``t ^ λ`` XOR ``ρ`` (``plan.shift``), lanes idle in a round store nothing,
and destination registers that copy another register (``plan.dst_copy``)
must end with their own element too.
"""

from __future__ import annotations

import time
from itertools import product

import z3

from llverify.codegen.shuffle import ShufflePlan
from llverify.prove import bv
from llverify.prove.points import hardware_element
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_shuffle_plan"]


def prove_shuffle_plan(plan: ShufflePlan) -> Verdict:
    """Simulate the rounds exhaustively (and per round in Z3): every slot ends with B's element."""
    t0 = time.perf_counter()
    A, B = plan.src, plan.dst.transpose_outs(list(plan.src.out_dim_names))
    details = {**plan.to_json(), "bits_per_shuffle": plan.bits_per_shuffle}
    for key in ("rounds", "word_rounds", "a_words", "b_words", "dst_copy"):
        details.pop(key, None)
    subj = "shuffle_plan"
    if plan.bits_per_shuffle > 32 or any(len(r) * plan.bitwidth > 32 for rnd in plan.rounds for r in rnd.send_regs):
        return Verdict("refuted", "shuffle_plan", subj, "exhaustive", time.perf_counter() - t0,
                       "a shuffle moves more than 32 bits per lane",
                       Counterexample({"round": 0}, {"bits": plan.bits_per_shuffle}), details=details)
    n_lanes = B.in_dim_size("lane")
    n_regs_b = B.in_dim_size("register")
    n_warps = B.in_dim_size("warp") if B.has_in_dim("warp") else 1
    n_blocks = B.in_dim_size("block") if B.has_in_dim("block") else 1
    for blk, w in product(range(n_blocks), range(n_warps)):
        # in this warp, lane t sends what warp 0's lane t ^ lx sends, registers XOR rx (plan.shift)
        rx, lx = plan.shift(w, blk)
        written: dict[tuple[int, int], int] = {}
        for k, rnd in enumerate(plan.rounds):
            for u in range(n_lanes):
                s = rnd.src_lane[u] ^ lx
                for j, (sr, rr) in enumerate(zip(rnd.send_regs[s ^ lx], rnd.recv_regs[u])):
                    got = hardware_element(A, sr ^ rx, s, w, blk)
                    want = hardware_element(B, rr, u, w, blk)
                    if (u, rr) in written or got != want:
                        note = "slot written twice" if (u, rr) in written else "wrong element delivered"
                        return Verdict("refuted", "shuffle_plan", subj, "exhaustive", time.perf_counter() - t0, note,
                                       Counterexample({"round": k, "lane": u, "slot": j, "warp": w, "block": blk},
                                                      {"received (A element)": got, "expected (B element)": want,
                                                       "src_lane": s, "register": rr}, note), details=details)
                    written[(u, rr)] = got
        # every destination slot: written by a round, or copied (plan.dst_copy) from a slot that was
        for u, r in product(range(n_lanes), range(n_regs_b)):
            frm = plan.dst_copy[r] if plan.dst_copy else r
            want = hardware_element(B, r, u, w, blk)
            if (u, frm) not in written or written[(u, frm)] != want:
                note = "a destination slot is never written" if (u, frm) not in written else \
                    "a register copy after the rounds gives the wrong element"
                return Verdict("refuted", "shuffle_plan", subj, "exhaustive", time.perf_counter() - t0, note,
                               Counterexample({"lane": u, "register": r, "warp": w, "block": blk},
                                              {"expected (B element)": want, "copied from register": frm,
                                               "value there": written.get((u, frm))}, note), details=details)
    # the word structure (affine maps, a generator's view) expands to exactly the tables just proved
    bad_word = _word_structure_mismatch(plan)
    if bad_word is not None:
        k, u, note = bad_word
        return Verdict("refuted", "shuffle_plan", subj, "exhaustive", time.perf_counter() - t0, note,
                       Counterexample({"round": k, "lane": u}, {"table": note}, note), details=details)
    # Z3 (prove.bv's encoding of B): each round and slot j, a symbolic receiving lane u, warp 0
    lb = B.in_dim_size_log2("lane")
    d = max(1, A.total_out_bits)
    u = z3.BitVec("u", max(1, lb)) if lb else z3.BitVecVal(0, 1)
    smt = []

    def table(vals: list[int], w: int) -> z3.BitVecRef:
        t = z3.BitVecVal(vals[-1], w)
        for i in range(len(vals) - 2, -1, -1):
            t = z3.If(u == i, z3.BitVecVal(vals[i], w), t)
        return t

    for k, rnd in enumerate(plan.rounds):
        for j in range(plan.elems_per_shuffle):
            # lanes that store slot j this round (a lane idle in a round stores nothing)
            act = [x for x in range(n_lanes) if j < len(rnd.recv_regs[x])]
            if not act:
                continue
            # what lane u receives: the A element its source lane sends at slot j (a per-lane table)
            got = table([hardware_element(A, rnd.send_regs[rnd.src_lane[x]][j], rnd.src_lane[x], 0, 0) if x in act else 0
                         for x in range(n_lanes)], d)
            inputs = {dim: z3.BitVecVal(0, bv.width(B.in_dim_size(dim))) for dim in B.in_dim_names}
            inputs["lane"] = u
            inputs["register"] = table([rnd.recv_regs[x][j] if x in act else 0 for x in range(n_lanes)],
                                       bv.width(B.in_dim_size("register")))
            want = bv.flat_output(B, bv.layout_terms(B, inputs))
            want = bv.fit(want, d) if want is not None else z3.BitVecVal(0, d)
            active = z3.Or([u == x for x in act]) if len(act) < n_lanes else z3.BoolVal(True)
            smt.append(bv.check(z3.And(active, got != want)).status)
    details["smt"] = "unsat" if all(s == "unsat" for s in smt) else "not all unsat"
    if details["smt"] != "unsat":  # pragma: no cover (exhaustive passed)
        return Verdict("error", "shuffle_plan", subj, None, time.perf_counter() - t0,
                       "soundness alarm: Z3 disagrees with the exhaustive simulation", details=details)
    return Verdict("proved", "shuffle_plan", subj, "exhaustive", time.perf_counter() - t0,
                   f"{plan.num_rounds} rounds of {plan.bits_per_shuffle}-bit shuffles deliver every element once",
                   certificate={"points": n_blocks * n_warps * n_lanes * n_regs_b}, details=details)


def _word_structure_mismatch(plan: ShufflePlan) -> tuple[int, int, str] | None:
    """(round, lane, what) where ``word_rounds`` disagrees with ``rounds``, or None when they agree everywhere."""
    if not plan.word_rounds:
        return None
    if len(plan.word_rounds) != len(plan.rounds):
        return 0, 0, "word structure and tables have different numbers of rounds"
    for k, (rnd, wr) in enumerate(zip(plan.rounds, plan.word_rounds)):
        for u in range(len(rnd.src_lane)):
            t = rnd.src_lane[u]
            if wr.src_lane.at(u) != t:
                return k, u, "word structure: src_lane differs from the table"
            sw, rw, q = wr.send_word.at(t), wr.recv_word.at(u), wr.word_perm.at(u)
            if not (0 <= sw < len(plan.a_words) and 0 <= rw < len(plan.b_words)):
                return k, u, "word structure: a word index out of range"
            n = len(rnd.recv_regs[u])
            if q >= n or tuple(plan.a_words[sw]) != tuple(rnd.send_regs[t]) or \
                    tuple(plan.b_words[rw][p ^ q] for p in range(n)) != tuple(rnd.recv_regs[u]):
                return k, u, "word structure: sent or received word differs from the table"
    return None
