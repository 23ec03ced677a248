"""The refutations of a conversion's ``right_elements`` (:mod:`llverify.lowered.convert`), each replayed before
it is reported: addresses by fresh concrete interpreters, elements by ``LinearLayout.apply``.

A *slot* is ``(access index, label, source lane over threads, byte offset over threads)``
(:func:`llverify.lowered.elements.element_slots`): its element's byte address at thread ``t`` is the
access's address at thread ``source[t]`` plus ``offset[t]``.
"""

from __future__ import annotations

import time

import numpy as np

from llverify.lowered.concrete import Concrete
from llverify.lowered.thread_layouts import element_at
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["PROP", "label", "refuted", "element_address", "racing_writer", "refute_race", "refute_slot",
           "falsifying_observations"]


PROP = "right_elements"


def label(accesses, slot) -> str:
    """A slot's label (``line N element k``, ``line N matrix m ...``)."""
    return slot[1]


def refuted(subject, t0, kind, message, inputs, sides, note, details=None) -> Verdict:
    """A ``right_elements`` refutation of ``kind`` (race, unwritten, poison, wrong_element, coverage) with its
    counterexample (``inputs``, ``sides``, how it was replayed: ``note``)."""
    return Verdict("refuted", PROP, subject, "exhaustive", time.perf_counter() - t0, message,
                   Counterexample(inputs, sides, note if isinstance(note, str) else str(note)),
                   details={"kind": kind, **(details or {})})


def element_address(fn, accesses, slot, t: int) -> int | None:
    """The byte address of a slot's element at thread ``t``, replayed: a fresh interpreter's pointer at the
    lane that supplies it (itself, or an ``ldmatrix`` / ``stmatrix`` row's lane) plus the element's offset."""
    i, _, src, extra = slot
    p = Concrete(fn, int(src[t]), {}).value(accesses[i].pointer, 32)
    return None if p is None else p + int(extra[t])


def racing_writer(events, interval_of_line, byte: int, t: int, iv: tuple[int, int], lanes: int, js) -> int:
    """The least thread that writes ``byte`` unordered with thread ``t``'s read in intervals ``iv``: another
    warp in the same CTA interval, or another thread of the warp in the same warp interval."""
    out = []
    for line, is_store, _, at, _ in events:
        if not is_store:
            continue
        civ, wiv = interval_of_line[line]
        hit = np.flatnonzero(np.isin(byte - at.astype(np.int64), np.array(js)))
        same_warp = hit // lanes == t // lanes
        if civ == iv[0]:
            out += hit[~same_warp].tolist()
        if wiv == iv[1]:
            out += hit[same_warp & (hit != t)].tolist()
    return min(out)


def refute_race(subject, t0, fn, accesses, load_slot, t, byte, t2, iv, store_slots, events, interval_of_line,
                 b, lanes):
    # the store writing the byte at thread t2 unordered with the read (same CTA interval across warps, same
    # warp interval within a warp), replayed
    k = 1 if t // lanes == t2 // lanes else 0
    for line, is_store, slot, at, src in events:
        if is_store and interval_of_line[line][k] == iv[k] and at[t2] <= byte < at[t2] + b:
            return refuted(subject, t0, "race",
                            f"{load_slot[1]} at thread {t} reads byte {byte}, which thread {t2} writes "
                            f"({store_slots[slot][1]}) with no barrier between them (intervals {iv})",
                            {"tid": t, "writer tid": t2},
                            {"load": load_slot[1], "store": store_slots[slot][1], "byte": byte,
                             "store element address (replayed)": element_address(fn, accesses, store_slots[slot], t2),
                             "load element address (replayed)": element_address(fn, accesses, load_slot, t)},
                            "both addresses replayed by fresh concrete interpreters")
    return refuted(subject, t0, "race", f"{load_slot[1]} at thread {t} reads byte {byte} that thread {t2} writes "
                    f"in the same barrier interval", {"tid": t, "writer tid": t2}, {"byte": byte}, "memory replay")


def refute_slot(subject, t0, fn, accesses, d, load_slots, store_slots, sel, od, ot, os_, otp, need, Cd, Cs,
                 rep_d, rep_s, Ld, Ls, events):
    """No destination register fits load slot ``d``: pick the register that fits most observations and
    report the first one it fails, replayed (addresses by fresh interpreters, elements by
    ``LinearLayout.apply``)."""
    fits = []
    for r in range(need.shape[0]):
        row = need[r]
        ok = row >= 0
        fits.append(int(ok.sum()))
    r = int(np.argmax(fits))
    bad = np.flatnonzero(need[r] < 0)
    if len(bad):
        k = int(bad[0])
        reason = "the source thread holds that element in no register"
    else:
        # consistent per observation but the same store slot would need two registers: show both
        row = need[r]
        first: dict[int, int] = {}
        k = 0
        for k, (s_, v) in enumerate(zip(os_[sel].tolist(), row.tolist())):
            if first.setdefault(s_, k) != k and row[first[s_]] != v:
                break
        reason = (f"the store slot would carry source register {int(rep_s[row[k]])} here but register "
                  f"{int(rep_s[row[first[int(os_[sel][k])]]])} at thread {int(ot[sel][first[int(os_[sel][k])]])}")
    o = int(sel[k])
    t, s_, tp = int(ot[o]), int(os_[o]), int(otp[o])
    reg_d = int(rep_d[r])
    want = element_at(Ld, reg_d, t)
    # what the source thread's store slot holds, for the register the source thread keeps at that slot
    got_l = element_address(fn, accesses, load_slots[d], t)
    got_s = element_address(fn, accesses, store_slots[s_], tp)
    if got_l is None or got_l != got_s:
        return Verdict("error", PROP, subject, None, time.perf_counter() - t0,
                       f"internal: the replayed addresses disagree ({got_l} vs {got_s})")
    src_regs = [int(rep_s[c]) for c in range(Cs.shape[0])]
    found = falsifying_observations(fn, accesses, d, load_slots, store_slots, sel, ot, os_, otp, need, rep_d, set())
    if isinstance(found, str):
        return Verdict("error", PROP, subject, None, time.perf_counter() - t0, found)
    return refuted(subject, t0, "wrong_element",
                    f"{load_slots[d][1]}: no destination register receives its element in every thread "
                    f"(closest: register {reg_d}); at thread {t} it reads {store_slots[s_][1]} of thread {tp}, "
                    f"but {reason}",
                    {"dest tid": t, "dest register": reg_d, "source tid": tp},
                    {"element wanted (L_dst)": want, "load": load_slots[d][1], "store": store_slots[s_][1],
                     "element address (replayed at both)": got_l,
                     "source thread's elements (L_src)": sorted({tuple(element_at(Ls, r2, tp)) for r2 in src_regs})[:4]},
                    "addresses replayed by fresh concrete interpreters; elements by LinearLayout.apply",
                    {"falsifiers": found})


def falsifying_observations(fn, accesses, d, load_slots, store_slots, sel, ot, os_, otp, need, rep_d,
                            skip) -> list | str:
    """For every destination register class not in ``skip``, one falsifying observation of load slot ``d``
    (the claim "slot d carries register r" fails for it), each data-flow edge replayed by fresh interpreters;
    a string on an internal inconsistency."""
    out = []
    ss_sel, t_sel, tp_sel = os_[sel], ot[sel], otp[sel]
    for rr in range(need.shape[0]):
        if rr in skip:
            continue
        row = need[rr]
        badr = np.flatnonzero(row < 0)
        if len(badr):
            ks = [int(badr[0])]
            kind = "absent"
        else:
            firsts: dict[int, int] = {}
            ks = []
            for k2, (s2, v2) in enumerate(zip(ss_sel.tolist(), row.tolist())):
                k1 = firsts.setdefault(s2, k2)
                if row[k1] != v2:
                    ks = [k1, k2]
                    break
            kind = "two registers"
            if not ks:
                return f"internal: register {int(rep_d[rr])} is not falsified"
        obs = []
        for k2 in ks:
            tt, tpp, sl = int(t_sel[k2]), int(tp_sel[k2]), int(ss_sel[k2])
            a_l = element_address(fn, accesses, load_slots[d], tt)
            a_s = element_address(fn, accesses, store_slots[sl], tpp)
            if a_l is None or a_l != a_s:
                return f"internal: the replayed addresses disagree ({a_l} vs {a_s})"
            obs.append({"dest tid": tt, "source tid": tpp, "store": store_slots[sl][1], "address": a_l})
        out.append({"register": int(rep_d[rr]), "kind": kind, "observations": obs})
    return out
