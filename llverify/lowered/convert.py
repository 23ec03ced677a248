"""The right elements of a ``ttg.convert_layout`` lowered through shared memory (issue 15).

A conversion's lowered code stores the source registers into Triton's scratch buffer, synchronises, and
loads the destination registers, possibly in several rounds separated by barriers, possibly with
``ldmatrix`` / ``stmatrix``.  The scratch layout is Triton's choice and appears nowhere in the TTGIR, so the
claim is end to end and needs none of it:

    for every destination thread ``t`` and every element the conversion's loads give it, the value is the
    one a source thread ``t'`` stored, and the source register it came from holds, under the source layout
    ``L_src``, the same tensor element that the destination register holds under ``L_dst`` at ``t``.

**Data flow, exhaustively.**  Every thread's address of every access instruction is evaluated by the concrete
LLVM interpreter (:class:`~llverify.lowered.concrete.Concrete`; the thread id is the only input, a free
variable makes the obligation ``unknown``).  The accesses are replayed in program order over all threads as
a byte-addressed memory, the function's straight-line code cut into *intervals* by full barriers
(``llvm.nvvm.barrier.cta.sync.aligned.all``, ``llvm.nvvm.barrier0``, ``llvm.amdgcn.s.barrier``): a load sees
the last store of an earlier interval, or its own thread's earlier store of the same interval; a byte that
another thread writes in the load's interval is a **race** (refuted, e.g. a dropped barrier), a byte nobody
wrote is **unwritten** (refuted).  ``ldmatrix`` / ``stmatrix`` move another lane's row (PTX semantics, shared
with :mod:`llverify.lowered.elements`).  Each element read is thus one *(store slot, source thread)*: a
store slot is one element position of one store instruction's value (vector element ``k``, or matrix ``m``
byte ``j`` of ``stmatrix``).

**Registers.**  Triton 3.9's LLVM IR keeps no trace of the register structs: MLIR folds the
``extractvalue`` / ``insertvalue`` of ``unpackLLElements`` / ``packLLElements`` before the IR is printed, even
with LLVM's optimiser off.  Which register a store slot or a load slot carries is therefore not written in
the IR; as in :mod:`llverify.lowered.elements`, straight-line SIMT code gives it one *fixed* register in every
thread.  The claim proved is: there are maps ``sigma`` (store slot -> source register) and ``tau`` (load slot
-> destination register) such that every observed element satisfies
``L_dst(tau(d), t) == L_src(sigma(s), t')`` and ``tau`` covers every destination register.  Registers are
taken up to the layouts' register kernels (two registers with the same element in every thread are one).
The maps are found by propagation: fixing ``tau(d)`` forces ``sigma`` of every slot ``d`` reads from (a thread
holds each element in at most one register class), so each load slot's candidates are filtered by internal
consistency, then by agreement with the other slots; a found assignment is re-checked on every observation
(the proof).  A slot with no candidate, or forced slots that disagree, is a refutation (propagation only
removes impossible values).  The provenance of every stored and loaded element is traced through the value
packing Triton emits (``insertelement``, ``extractelement``, ``shufflevector``, ``bitcast``, ``zext``,
``trunc``, ``shl``/``lshr``/``or`` by whole bytes): a data ``select``, shuffle or ``phi`` there (a register
chosen per thread) makes the fixed-register premise false, so the obligation is ``unknown`` with the reason.

Not claimed: which of two load slots carries which register when they are a consistent relabeling (a swap
of two whole load instructions, or of two stores' values, is invisible without the folded structs; the
producer and consumer ops define it); conversions lowered through warp shuffles (no shared access: no
obligation); sub-byte elements; multi-CTA layouts.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from llverify.errors import LlverifyError
from llverify.lowered.elements import NotModelled, element_slots
from llverify.lowered.barriers import barrier_intervals
from llverify.lowered.conditions import ControlFlow
from llverify.lowered.llir import Access, LlirFunction
from llverify.lowered.provenance import Unknown as _Unknown
from llverify.lowered.provenance import check_loaded, check_stored, function_users, live, slot_kinds, stored_value
from llverify.lowered.replay import Event, replay
from llverify.lowered.convert_witnesses import (PROP, element_address, falsifying_observations, label, racing_writer,
                                                 refute_race, refute_slot, refuted)
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.thread_layouts import element_at, element_table, register_classes, unsupported
from llverify.lowered.uniform import nonuniform
from llverify.lowered.vector import Threads
from llverify.prove.verdict import Verdict
from llverify.ttgir.layouts import BuiltLayout, element_bits, layout_of
from llverify.ttgir.model import Op

__all__ = ["convert_elements", "function_users"]


# ---------------------------------------------------------------------------------------------- the check


def convert_elements(op: Op, fn: LlirFunction, sym: Symbolic, accesses: Sequence[Access], threads: int,
                     lanes: int, subject: str, flow: ControlFlow, vec: Threads | None = None,
                     dbgs: Sequence[str] = (), users: dict[str, list] | None = None) -> Verdict | None:
    """Decide the claim of the module docstring for a ``ttg.convert_layout`` and its attributed accesses;
    ``flow``: ``control_flow(fn)`` (which free variables may differ between threads)."""
    t0 = time.perf_counter()
    if op.name != "ttg.convert_layout" or not accesses or not op.operand_types or not op.results:
        return None

    def unknown(msg: str) -> Verdict:
        return Verdict("unknown", PROP, subject, None, time.perf_counter() - t0, msg)

    src_t, dst_t = op.operand_types[0], op.results[0].type
    if src_t is None or dst_t is None or src_t.kind != "tensor" or dst_t.kind != "tensor":
        return None
    try:
        return _decide(op, fn, sym, list(accesses), threads, lanes, subject, flow, vec, src_t, dst_t, t0, dbgs,
                       users if users is not None else function_users(fn))
    except _Unknown as exc:
        return unknown(str(exc))


def _decide(op, fn, sym, accesses, threads, lanes, subject, flow, vec, src_t, dst_t, t0, dbgs, users) -> Verdict:
    Ls, Ld = layout_of(src_t), layout_of(dst_t)
    for B in (Ls, Ld):
        if not isinstance(B, BuiltLayout):
            raise _Unknown(B.reason)
    if tuple(src_t.shape) != tuple(dst_t.shape):
        raise _Unknown("source and destination shapes differ")
    bits = element_bits(src_t.element)
    if bits < 8 or bits % 8:
        raise _Unknown(f"{bits}-bit elements: not modelled")
    b = bits // 8
    for L in (Ls.layout, Ld.layout):
        why = unsupported(L, threads)
        if why is not None:
            raise _Unknown(why)
    kinds = {a.kind for a in accesses}
    if not kinds <= {"load", "store", "ldmatrix", "stmatrix"}:
        raise _Unknown(f"accesses of kind {', '.join(sorted(kinds))}: only ld/st.shared and ldmatrix/stmatrix "
                       "are modelled")
    accesses = sorted(accesses, key=lambda a: a.instr.line)
    interval_of_line = barrier_intervals(fn, accesses)  # program order, cut by barriers
    # provenance guards: every stored / loaded element is a fixed register's value in every thread
    seen: set[str] = set()
    # the conversion's own code: its accesses' debug locations and every location naming the same TTGIR line
    # (``dbgs``); an instruction without a location is traced through too (the guard errs towards unknown)
    mine_dbg = frozenset({a.instr.dbg for a in accesses if a.instr.dbg} | set(dbgs or ()))
    for a in accesses:
        if a.kind in ("store", "stmatrix"):
            vals = stored_value(a)
            if not vals:
                raise _Unknown(f"the stored value at line {a.instr.line} was not read")
            for v in vals:
                check_stored(fn, v, seen, mine_dbg)
        elif a.instr.result:
            check_loaded(fn, users, a.instr.result, mine_dbg)
    # every thread's address of every access
    vec = vec if vec is not None else Threads(fn, threads)
    frees = sorted(set().union(*(vec.value(a.pointer, 32).free for a in accesses)))
    if any(not f.rsplit(":", 1)[0].endswith(".choice") for f in frees) or len(frees) > 6:
        raise _Unknown(f"the conversion's addresses depend on free variables ({', '.join(frees)}): not modelled")
    varying = nonuniform(fn, frees, flow)
    if varying:  # each combination below is one choice for all threads: exact only for uniform choices
        raise _Unknown(f"the conversion's addresses depend on {', '.join(varying)}, which may differ between threads")
    addr = None
    combos = [dict(zip(frees, bits_)) for bits_ in _combos([int(f.rsplit(":", 1)[1]) for f in frees])]
    for combo in combos:  # a join phi's choice: every combination, and the addresses must not depend on it
        ev = vec if not frees else Threads(fn, threads, combo)
        at = np.zeros((len(accesses), threads), dtype=np.int64)
        for i, a in enumerate(accesses):
            v = ev.value(a.pointer, 32)
            if v.none.any():
                t = int(np.flatnonzero(v.none)[0])
                raise _Unknown(f"the address at line {a.instr.line} is poison or unmodelled at thread {t}")
            at[i] = v.vals.astype(np.int64)
        if addr is not None and not np.array_equal(addr, at):
            raise _Unknown(f"the conversion's addresses depend on which predecessor of a join phi ran "
                           f"({', '.join(frees)}): not modelled")
        addr = at
    try:
        parts = element_slots(accesses, addr, b, threads, lanes)
    except NotModelled as exc:
        raise _Unknown(str(exc)) from None
    # slots: (access index, label) -> id; per slot, arrays over threads of the element's byte address
    store_slots: list[tuple] = []  # (access index, label, source lane over threads, byte offset over threads)
    load_slots: list[tuple] = []
    dead = 0
    odd_store: dict[int, set[str]] = {}  # store slot -> {"poison", "const", "value"} when not all "value"
    events = []  # (line, is_store, slot id, byte addresses over threads, source lane over threads)
    live_memo: dict = {}
    for i, what, src, extra in parts:
        a = accesses[i]
        at = addr[i][src] + extra
        if a.kind in ("store", "stmatrix"):
            kinds_ = slot_kinds(fn, a, what, int(extra[0]) if a.kind == "store" else None, b)
            if kinds_ != {"value"}:
                odd_store[len(store_slots)] = kinds_
            store_slots.append((i, what, src, extra))
            events.append((a.instr.line, True, len(store_slots) - 1, at, src))
        else:
            if not live(users, a, what, int(extra[0]) if a.kind == "load" else 0, b, live_memo):
                dead += 1
                continue  # an element nothing uses fills no register
            load_slots.append((i, what, src, extra))
            events.append((a.instr.line, False, len(load_slots) - 1, at, src))
    if not store_slots or not load_slots:
        raise _Unknown("the conversion's accesses are only stores or only loads")
    events.sort(key=lambda e: (e[0], not e[1]))
    # replay the memory at every thread (llverify/lowered/replay.py): what each read sees, races, unwritten
    # cells: whole elements when every element address is aligned to the element size, else bytes
    unit = b if all(not np.any(e[3] % b) for e in events) else 1
    js = tuple(range(0, b, unit))
    rep = replay([Event(is_store, slot, at, interval_of_line[line]) for line, is_store, slot, at, _ in events],
                 threads, lanes, js)
    if rep.first_failure is not None:
        r = rep.first_failure
        slot, t, base = int(rep.reads_slot[r]), int(rep.reads_t[r]), int(rep.reads_base[r])
        iv = (int(rep.reads_iv[r][0]), int(rep.reads_iv[r][1]))
        for k, j in enumerate(js):
            if rep.race[r, k]:
                t2 = racing_writer(events, interval_of_line, base + j, t, iv, lanes, js)
                return refute_race(subject, t0, fn, accesses, load_slots[slot], t, base + j, t2, iv,
                                    store_slots, events, interval_of_line, b, lanes)
            if rep.unwritten[r, k]:
                return refuted(subject, t0, "unwritten",
                                f"{label(accesses, load_slots[slot])} at thread {t} reads byte {base + j}, "
                                "which no store of the conversion wrote",
                                {"tid": t}, {"load": label(accesses, load_slots[slot]), "byte": base + j,
                                             "load element address (replayed)":
                                                 element_address(fn, accesses, load_slots[slot], t)},
                                "the load's address replayed by a fresh interpreter; the stores' addresses of "
                                "every thread evaluated: none covers the byte")
        raise _Unknown(f"{label(accesses, load_slots[slot])} at thread {t} assembles an element from "
                       "bytes of different stored elements (not modelled)")
    read_of, jpos, writer, wslot, _ = rep.seen
    first_cell = jpos == 0
    obs_d = rep.reads_slot[read_of[first_cell]].tolist()
    obs_t = rep.reads_t[read_of[first_cell]].tolist()
    obs_s = wslot[first_cell].tolist()
    obs_tp = writer[first_cell].tolist()
    for s_odd, kinds_ in sorted(odd_store.items()):
        hit = [k for k, s2 in enumerate(obs_s) if s2 == s_odd]
        if not hit:
            continue  # never read: harmless
        k = hit[0]
        if "poison" in kinds_:
            return refuted(subject, t0, "poison",
                            f"{label(accesses, load_slots[obs_d[k]])} at thread {obs_t[k]} reads "
                            f"{label(accesses, store_slots[s_odd])} of thread {obs_tp[k]}, whose value is poison "
                            "(a lane no insertelement wrote): no source register is stored there",
                            {"dest tid": obs_t[k], "source tid": obs_tp[k]},
                            {"load": label(accesses, load_slots[obs_d[k]]), "store": label(accesses, store_slots[s_odd]),
                             "element address (replayed)": element_address(fn, accesses, store_slots[s_odd], obs_tp[k])},
                            "the stored value's provenance traced through its insertelement chain")
        raise _Unknown(f"{label(accesses, store_slots[s_odd])} stores a constant that a load reads: which register "
                       "it stands for is not identifiable (not modelled)")
    od, ot, os_, otp = (np.array(x, dtype=np.int64) for x in (obs_d, obs_t, obs_s, obs_tp))
    try:
        Es, Ed = element_table(Ls.layout, threads), element_table(Ld.layout, threads)
    except LlverifyError as exc:
        raise _Unknown(f"layout not evaluated: {exc}") from None
    rep_s, cls_s = register_classes(Es)
    rep_d, cls_d = register_classes(Ed)
    Cs, Cd = Es[rep_s], Ed[rep_d]  # [class, thread]
    n_el = int(max(Cs.max(), Cd.max())) + 1
    inv = np.full((threads, n_el), -1, dtype=np.int64)  # (source thread, element) -> source class
    for c in range(Cs.shape[0]):
        inv[np.arange(threads), Cs[c]] = c
    nS, nD = len(store_slots), len(load_slots)
    # candidates per load slot: classes r for which the forced sigma is defined and consistent; per load slot
    # d, forced[d] = (candidate classes R ascending, the store slots S it reads, N[i, k] = the class slot
    # S[k] must carry when d carries R[i])
    forced: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    by_d = np.argsort(od, kind="stable")
    bounds = np.searchsorted(od[by_d], np.arange(nD + 1))
    # all load slots at once: need[r, o] = the source class observation o forces when its load slot carries r
    need_all = inv[otp[None, :], Cd[:, ot]]
    pair = od * nS + os_
    upair, ufirst, uinv = np.unique(pair, return_index=True, return_inverse=True)
    agree = (need_all >= 0) & (need_all == need_all[:, ufirst[uinv.reshape(-1)]])
    agree_d = np.ones((need_all.shape[0], nD), dtype=bool)
    has = bounds[1:] > bounds[:-1]
    if len(od):
        agree_d[:, has] = np.logical_and.reduceat(agree[:, by_d], bounds[:-1][has], axis=1)
    ubounds = np.searchsorted(upair // nS, np.arange(nD + 1))
    for d in range(nD):
        ok = agree_d[:, d]
        if not ok.any():
            sel = by_d[bounds[d]:bounds[d + 1]]
            return refute_slot(subject, t0, fn, accesses, d, load_slots, store_slots, sel, od, ot, os_, otp,
                                need_all[:, sel], Cd, Cs, rep_d, rep_s, Ld.layout, Ls.layout, events)
        R = np.flatnonzero(ok)
        u = slice(ubounds[d], ubounds[d + 1])
        forced[d] = (R, upair[u] % nS, need_all[:, ufirst[u]][R])
    initial = {d: len(f[0]) for d, f in forced.items()}
    # agreement between load slots: propagate sigma choices
    tau_guess: list[int] = []
    sig_a = np.full(nS, -1)  # sigma: store slot -> class (-1: not yet)
    tau: dict[int, int] = {}
    pending = set(range(nD))
    touch: dict[int, set[int]] = {}  # store slot -> the load slots that read it
    for d in range(nD):
        for s_ in forced[d][1].tolist():
            touch.setdefault(s_, set()).add(d)
    work = set(range(nD))
    while pending:
        while work:
            d = work.pop()
            if d not in pending:
                continue
            R, S, N = forced[d]
            cur = sig_a[S]
            keep = ((cur < 0)[None, :] | (N == cur[None, :])).all(axis=1)
            if not keep.any():
                if not tau_guess:
                    raise _Unknown(f"{label(accesses, load_slots[d])}: every register it could carry needs a store "
                                   "slot to carry a register other load slots force: propagation finds no assignment, "
                                   "but this is not a single replayable witness (reported unknown, not refuted)")
                raise _Unknown("no register assignment found (a guess for ambiguous slots failed); not decided")
            R, N = R[keep], N[keep]
            forced[d] = (R, S, N)
            if len(R) == 1:
                tau[d] = int(R[0])
                pending.discard(d)
                for s_, v in zip(S.tolist(), N[0].tolist()):
                    if sig_a[s_] < 0:
                        sig_a[s_] = v
                        work |= touch[s_]
        if pending:  # symmetric choices left: pick one (preferring an uncovered register) and propagate again
            d = min(pending)
            used = set(tau.values())
            R, S, N = forced[d]
            i = next((i for i, r in enumerate(R.tolist()) if r not in used), 0)
            forced[d] = (R[i:i + 1], S, N[i:i + 1])
            tau_guess.append(d)
            work.add(d)
    # the proof: every observation re-checked with the assignment
    tau_a = np.array([tau[d] for d in range(nD)])
    if not np.array_equal(Cd[tau_a[od], ot], Cs[sig_a[os_], otp]):
        raise _Unknown("internal: the assignment found does not satisfy every observation")
    missing = sorted(set(range(Cd.shape[0])) - set(tau.values()))
    if missing:
        c = missing[0]
        covered_any = len(set(tau.values()))
        if nD < Cd.shape[0] or not tau_guess:
            seen_r: dict[int, int] = {}
            dup = next(((seen_r[r], d) for d, r in sorted(tau.items()) if seen_r.setdefault(r, d) != d), None)
            sides = {"element at thread 0 (L_dst, replayed by LinearLayout.apply)": element_at(Ld.layout, int(rep_d[c]), 0)}
            details = {}
            if dup is not None and not tau_guess:
                sides["two load slots carrying one register"] = [label(accesses, load_slots[dup[0]]),
                                                                 label(accesses, load_slots[dup[1]])]
                sides["their register"] = int(rep_d[tau[dup[0]]])
                if all(initial[x] == 1 for x in dup):  # each slot's register is forced by its own reads
                    fal = {}
                    for x in dup:
                        selx = np.flatnonzero(od == x)
                        needx = inv[otp[selx][None, :], Cd[:, ot[selx]]]
                        f = falsifying_observations(fn, accesses, x, load_slots, store_slots, selx, ot, os_, otp, needx, rep_d,
                                        {tau[x]})
                        if isinstance(f, str):
                            return Verdict("error", PROP, subject, None, time.perf_counter() - t0, f)
                        fal[label(accesses, load_slots[x])] = f
                    details["falsifiers"] = fal
            return refuted(subject, t0, "coverage",
                            f"destination register {int(rep_d[c])} is filled by no load of the conversion "
                            f"({nD} load slot(s) carry {covered_any} of {Cd.shape[0]} distinct registers)",
                            {"register": int(rep_d[c])}, sides,
                            "every load slot's register is forced by the data it reads (no guess was made)",
                            details)
        raise _Unknown("the register assignment found does not cover every destination register")
    n_int = max(v[0] for v in interval_of_line.values()) + 1 if interval_of_line else 1
    return Verdict("proved", PROP, subject, "exhaustive", time.perf_counter() - t0,
                   f"{len(accesses)} instruction(s) in {n_int} barrier interval(s) give every destination register of "
                   f"all {threads} threads the element L_dst gives it, from the source register holding it "
                   f"({nS} store slot(s), {nD} load slot(s); every thread's addresses evaluated, "
                   "no race, nothing unwritten)",
                   certificate={"threads": threads, "intervals": n_int, "observations": int(len(od)),
                                "store_slots": nS, "load_slots": nD},
                   details={"tau": {label(accesses, load_slots[d]): int(rep_d[tau[d]]) for d in range(min(nD, 8))}})


def _combos(widths: list[int]) -> list[tuple[int, ...]]:
    import itertools

    return list(itertools.product(*(range(1 << w) for w in widths)))


