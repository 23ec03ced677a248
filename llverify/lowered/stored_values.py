"""The values a ``local_store`` / ``local_alloc`` stores: each shared element gets the value its register holds.

``right_elements`` (:mod:`llverify.lowered.elements`) proves the *addresses*: store instruction ``i``'s element
``k`` lands, in every thread ``t``, on the element ``e = R(r_ik, t)`` of one fixed register ``r_ik``.  It does
not say which value is stored there: Triton's LLVM IR has no register numbering, so two stored values swapped
keep every address.  This obligation, ``stored_values``, closes that gap where the stored tensor is an unmasked
``tt.load``'s: a loaded register's value is the global memory at its pointer, ``*ptr(e)``, and a loaded LLVM
byte names its own global address (:mod:`llverify.lowered.global_bytes`).  The claim, for every store
instruction ``i``, element ``k``, byte ``j < b`` and thread ``t``:

    the stored byte is the global byte ``ptr(R(r_ik, t)) + j``,

with ``ptr`` the TTGIR's pointer tensor evaluated at the coordinates (:mod:`llverify.lowered.element_pointers`)
and the LLVM side the load's ``getelementptr`` chain evaluated at every thread (:mod:`llverify.lowered.vector`).
Both must point into the same kernel argument.

When program ids or kernel arguments enter the pointers (free variables of the LLVM side, uniform unknowns of
the TTGIR side), both sides are compared at those values 0 *relative to one reference byte*: the claim proved
is that every byte is ``ptr(e) + j + D`` for one shift ``D`` common to the whole tile (the tile's origin is not
compared); Z3 proves the LLVM pointers' thread dependence does not change with the free variables, and the
TTGIR side's unknowns only shift (assuming its 32-bit offsets do not wrap).  A swap of two stored values, a
duplicated value, a wrong lane or element of a loaded vector moves some byte relative to the others and is
refuted, the witness (thread, instruction, element, byte, register, coordinates, both global offsets) replayed by
a fresh scalar interpreter and a fresh evaluation of the TTGIR pointer at the coordinates (``LinearLayout.apply``).

``unknown`` (with the reason): a stored tensor computed by another op, a masked load, a pointer tensor not
evaluated element by element (a loop-carried pointer, a stride argument times a coordinate), a byte traced to a
constant or through a per-thread choice, ``stmatrix``, loads from different kernel arguments (which may alias).
"""

from __future__ import annotations

import re
import time
from typing import Sequence

import numpy as np
import z3

from llverify.lowered.concrete import Concrete
from llverify.lowered.conditions import ControlFlow
from llverify.lowered.element_pointers import NotModelled, definitions, element_pointers
from llverify.lowered.global_bytes import GlobalLoad, NotTraced, byte_origin, loaded_from, parameters
from llverify.lowered.llir import Access, LlirFunction, as_signed
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.thread_layouts import element_at
from llverify.lowered.uniform import nonuniform
from llverify.lowered.vector import Threads
from llverify.prove.bv import check as smt_check
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.model import Function, Op

__all__ = ["stored_values", "PROP", "SlotRegisters"]

PROP = "stored_values"
#: Z3's budget for the uniformity of the global pointers (the samples' proofs take 30,000-100,000 units; loop
#: counters multiplied by stride arguments in 64 bits can take seconds, and are left ``unknown``)
RLIMIT = 150_000
_STORE = re.compile(r"^store\s+(?:volatile\s+)?(<[^>]+>|\S+)\s+([^,]+),")

#: what ``right_elements`` established, per slot: ``(instruction index, label, element byte offset, register)``,
#: with the register layout ``L`` and the element size ``b`` (:func:`llverify.lowered.elements.right_elements`)
SlotRegisters = tuple  # (L, b, [(i, label, offset, register), ...])


def stored_values(op: Op, ttgir_fn: Function, fn: LlirFunction, sym: Symbolic, vec: Threads,
                  accesses: Sequence[Access], proved: SlotRegisters, threads: int, subject: str,
                  flow: ControlFlow) -> Verdict:
    """Decide the claim of the module docstring for a store op whose ``right_elements`` is proved (``proved``:
    its slots' registers; ``flow``: ``control_flow(fn)``, which free variables may differ between threads)."""
    t0 = time.perf_counter()
    try:
        return _decide(op, ttgir_fn, fn, sym, vec, accesses, proved, threads, subject, t0, flow)
    except (NotModelled, NotTraced) as exc:
        return Verdict("unknown", PROP, subject, None, time.perf_counter() - t0, f"not decided: {exc}")


def _decide(op, ttgir_fn, fn, sym, vec, accesses, proved, threads, subject, t0, flow) -> Verdict:
    L, b, slots = proved
    defs = definitions(ttgir_fn.body)
    producer = defs.get(op.operands[0]) if op.operands else None
    if producer is None or producer.name != "tt.load":
        what = producer.name if producer is not None else "a block or function argument"
        raise NotModelled(f"the stored tensor {op.operands[0] if op.operands else '?'} is computed by {what}: which "
                          "register an LLVM value is is not written in the IR (Triton folds the register structs); "
                          "only an unmasked tt.load's values are identified, by their global addresses")
    if len(producer.operands) != 1:
        raise NotModelled(f"the stored tensor comes from a masked tt.load (line {producer.location.line}): the "
                          "mask and `other` are not modelled")
    if any(accesses[i].kind != "store" for i, *_ in slots):
        raise NotModelled("stmatrix stores: their value operands are not traced")
    nregs = L.in_dim_size("register")
    regs = sorted({r for *_, r in slots})
    from llverify.evaluate import evaluate

    ev = evaluate(L)
    table = np.stack([ev[d].reshape(-1, nregs)[:threads] for d in L.out_dim_names], axis=-1)  # [t, reg, dim]
    coords = table[:, regs, :].transpose(1, 0, 2).reshape(-1, len(L.out_dim_names))          # [(reg, t), dim]
    ptrs = element_pointers(ttgir_fn, producer.operands[0], coords, defs)
    expected = {r: ptrs.offsets[k * threads:(k + 1) * threads] for k, r in enumerate(regs)}
    arg_index = [a.name for a in ttgir_fn.arguments].index(ptrs.base)
    params = parameters(fn)
    if arg_index >= len(params):
        raise NotModelled(f"the LLVM function has no parameter for the TTGIR's {ptrs.base}")
    want_base = params[arg_index]

    # every stored byte's origin: (store index, element offset, byte, register) -> (global load, byte in it)
    rows: list[tuple[int, str, int, int, int, GlobalLoad, int]] = []
    for i, label, offset, r in slots:
        a = accesses[i]
        value, ty = _stored(a)
        for j in range(b):
            o = byte_origin(fn, value, ty, offset + j)
            if o.kind == "poison":
                return _poison(subject, t0, a, label, j)
            if o.kind == "const":
                raise NotTraced(f"byte {j} of {label} is a constant, not a loaded byte")
            load = loaded_from(fn, o.name)
            if not 0 <= o.offset < load.size:
                raise NotTraced(f"byte {j} of {label}: byte {o.offset} of a {load.size}-byte load")
            if load.base != want_base:
                raise NotModelled(f"byte {j} of {label} is loaded through {load.base}, the TTGIR's pointer is "
                                  f"{ptrs.base} ({want_base}): different kernel arguments may alias")
            rows.append((i, label, j, r, o.offset, load, offset))

    frees = sorted(set().union(*(vec.value(x, w).free for _, _, _, _, _, ld, _ in rows for x, w, _ in ld.terms)))
    varying = nonuniform(fn, frees, flow)
    if varying:
        raise NotTraced(f"the global pointers depend on {', '.join(varying)}, possibly different in different "
                        "threads: not decided with one value for all")
    loads = list({row[5].line: row[5] for row in rows}.values())
    at_zero = _pointers(Threads(fn, threads, {f: 0 for f in frees}) if frees else vec, loads, threads)
    got = [at_zero[row[5].line] + row[4] for row in rows]
    want = [expected[row[3]] + row[2] for row in rows]
    relative = bool(frees or ptrs.uniform)
    if frees:
        why = None if _separable(sym, loads) else (_moves_with(fn, frees, loads, at_zero, threads)
                                                   or _free_dependence(sym, loads, threads))
        if why is not None:
            return Verdict("unknown", PROP, subject, None, time.perf_counter() - t0, why)
    ref_got, ref_want = (got[0][0], want[0][0]) if relative else (0, 0)
    for (i, label, j, r, q, ld, _), g, w in zip(rows, got, want):
        bad = np.flatnonzero((g - ref_got) != (w - ref_want))
        if bad.size:
            t = int(bad[0])
            return _refute(subject, t0, fn, ttgir_fn, producer.operands[0], defs, L, accesses, rows, (i, label, j, r, q, ld),
                           t, frees, relative, ptrs.base)
    n = len(rows)
    shift = (" up to one shift common to the tile (program ids / kernel arguments: "
             f"{', '.join(sorted(set(frees) | ptrs.uniform))}; Z3: the LLVM pointers' thread dependence does not "
             "change with them; the TTGIR's 32-bit offsets assumed not to wrap)") if relative else ""
    return Verdict("proved", PROP, subject, "smt" if frees else "exhaustive", time.perf_counter() - t0,
                   f"every stored byte ({n} per thread, {threads} threads) is the global byte the TTGIR's pointer "
                   f"tensor gives its element ({producer.name} at line {producer.location.line}, through "
                   f"{ptrs.base}){shift}",
                   certificate={"bytes": n, "threads": threads, "relative": relative},
                   details={"free_variables": frees, "uniform_unknowns": sorted(ptrs.uniform)})


def _stored(a: Access) -> tuple[str, str]:
    """A plain store's value operand and its type."""
    m = _STORE.match(a.instr.body)
    if m is None:
        raise NotTraced(f"the store at line {a.instr.line} is not read")
    return m.group(2).strip(), m.group(1)


def _poison(subject: str, t0: float, a: Access, label: str, j: int) -> Verdict:
    cx = Counterexample({"instruction line": a.instr.line, "byte": j}, {"stored byte": "poison"},
                        "traced through the store's insertelement / bitcast / shufflevector chain: no thread stores a "
                        "defined value there")
    return Verdict("refuted", PROP, subject, "exhaustive", time.perf_counter() - t0,
                   f"byte {j} of {label} is poison: the register's value is never stored", cx)


def _pointers(at: Threads, loads: list[GlobalLoad], threads: int) -> dict[int, np.ndarray]:
    """Per load (by line), its pointer's byte offset from its kernel argument at every thread (exact integers:
    ``sum sext(index) * scale``), by the evaluator ``at`` (its free-variable values)."""
    out = {}
    for ld in loads:
        total = np.zeros(threads, dtype=object)
        for x, w, scale in ld.terms:
            v = at.value(x, w)
            if v.none.any():
                raise NotTraced(f"the global pointer of the load at line {ld.line} is poison or unmodelled at "
                                f"thread {int(np.flatnonzero(v.none)[0])}")
            total = total + np.array([as_signed(int(u), w) for u in v.vals], dtype=object) * scale
        out[ld.line] = total
    return out


def _moves_with(fn: LlirFunction, frees: list[str], loads: list[GlobalLoad], at_zero: dict[int, np.ndarray],
                threads: int) -> str | None:
    """A cheap search before Z3: at a few values of the free variables, does some pointer move relative to the
    reference (the first load at thread 0) differently than at 0?  The reason when it does, else None."""
    first = loads[0].line
    for pattern in (1, 3, 64, 1000, 0x5555555555555555, (1 << 64) - 1):
        given = {f: pattern % (1 << int(f.rsplit(":", 1)[1])) for f in frees}
        try:
            moved = _pointers(Threads(fn, threads, given), loads, threads)
        except NotTraced:  # poison at these values (an overflow flag): they do not occur, try others
            continue
        for ld in loads:
            d, d0 = moved[ld.line] - moved[first][0], at_zero[ld.line] - at_zero[first][0]
            bad = np.flatnonzero(d != d0)
            if bad.size:
                t = int(bad[0])
                return (f"the global pointers' dependence on the thread changes with free variables: at "
                        f"{', '.join(f'{k} = {v}' for k, v in given.items())} the load at line {ld.line} of thread {t} "
                        f"is {d[t]} bytes from the reference, at 0 {d0[t]}: the stored values are not decided for "
                        "all their values")
    return None


def _separable(sym: Symbolic, loads: list[GlobalLoad]) -> bool:
    """A sufficient condition, exact and cheap: every ``getelementptr`` index of every load depends either on the
    thread id only (no free variable) or on free variables only (no thread id), and the loads share their
    free-variable terms (same index, width and scale).  Then ``P_i(t, f) = U(f) + T_i(t)`` modulo ``2^64`` (each
    index is sign-extended on its own), and ``P_i(t, f) - P_1(0, f) = T_i(t) - T_1(0)`` for every ``f``."""
    uniform_parts = set()
    for ld in loads:
        mine = []
        for x, w, scale in ld.terms:
            v = sym.value(x, w)
            if not v.free:
                continue
            if _mentions(v.term, sym.tid):
                return False
            mine.append((x, w, scale))
        uniform_parts.add(tuple(sorted(mine)))
    return len(uniform_parts) == 1


def _mentions(term: z3.ExprRef, var: z3.ExprRef) -> bool:
    """Whether the Z3 variable ``var`` occurs in ``term`` (a syntactic walk, shared subterms visited once)."""
    seen, stack = set(), [term]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.eq(var):
            return True
        stack.extend(t.children())
    return False


def _free_dependence(sym: Symbolic, loads: list[GlobalLoad], threads: int) -> str | None:
    """None when every load pointer ``P_i`` satisfies ``P_i(t, f) - P_1(0, f) == P_i(t, 0) - P_1(0, 0)`` for all
    threads ``t`` and free values ``f`` (Z3), else why not."""
    terms, poison = {}, []
    for ld in loads:
        total = z3.BitVecVal(0, 64)
        for x, w, scale in ld.terms:
            v = sym.value(x, w)
            total = total + (z3.SignExt(64 - w, v.term) if w < 64 else v.term) * scale
            poison.append(v.poison)
        terms[ld.line] = total
    zero_f = [(var, z3.BitVecVal(0, var.size())) for var, _ in sym.frees.values()]
    at_t0 = (sym.tid, z3.BitVecVal(0, 32))
    first = next(iter(terms.values()))
    ref = z3.substitute(first, at_t0)
    diffs = [(p - ref) != z3.substitute(p - ref, *zero_f) for p in terms.values()] if zero_f else []
    if not diffs:
        return None
    # only where the loads are defined: a poison pointer (an `nsw` index that wraps) is undefined behaviour
    defined = [z3.Not(z3.Or(*poison)), z3.Not(z3.substitute(z3.Or(*poison), at_t0))]
    res = smt_check([z3.ULT(sym.tid, threads), *defined, z3.Or(*diffs)], rlimit=RLIMIT)
    if res.status == "unsat":
        return None
    if res.status == "sat":
        return ("the global pointers' dependence on the thread changes with free variables (Z3 found values where "
                "it does): the stored values are not decided for all their values")
    # Z3's reason for an exhausted rlimit reads "canceled", which the module cache takes for a timeout; the limit is
    # deterministic (a fresh context per query), so the message says so instead
    other = "" if res.reason in ("canceled", "max. resource limit exceeded") else f" ({res.reason})"
    return ("Z3 did not show, within its deterministic resource limit for this check" + other + ", that the global "
            "pointers' dependence on the thread is the same for all values of the free variables: the stored values "
            "are not decided")


def _refute(subject, t0, fn, ttgir_fn, ptr_name, defs, L, accesses, rows, row, t, frees, relative, base) -> Verdict:
    """A refutation, replayed: the loaded global offsets by fresh scalar interpreters, the expected ones by a
    fresh evaluation of the TTGIR pointer at ``LinearLayout.apply``'s coordinates."""
    given = {f: 0 for f in frees}

    def replay_got(ld: GlobalLoad, q: int, thread: int) -> int:
        c = Concrete(fn, thread, given)
        total = 0
        for x, w, scale in ld.terms:
            v = c.value(x, w)
            if v is None:
                raise NotTraced(f"the replay of the load at line {ld.line} is poison at thread {thread}")
            total += as_signed(v, w) * scale
        return total + q

    def replay_want(r: int, j: int, thread: int) -> tuple[list[int], int]:
        e = element_at(L, r, thread)
        return e, int(element_pointers(ttgir_fn, ptr_name, np.array([e], dtype=np.int64), defs).offsets[0]) + j

    i, label, j, r, q, ld = row
    g, (e, w) = replay_got(ld, q, t), replay_want(r, j, t)
    sides = {"instruction": f"line {accesses[i].instr.line}", "element": label, "byte": j, "register": r,
             "coordinates": e, "stored: global byte offset": g, f"expected: offset of {base}'s element": w}
    if relative:
        i0, label0, j0, r0, q0, ld0, _ = rows[0]
        g0, (e0, w0) = replay_got(ld0, q0, 0), replay_want(r0, j0, 0)
        if g - g0 == w - w0:
            return Verdict("error", PROP, subject, None, time.perf_counter() - t0,
                           f"internal: the replay at thread {t} does not reproduce the difference")
        sides.update({"reference": f"thread 0, {label0} byte {j0}, register {r0}, coordinates {e0}",
                      "reference stored offset": g0, "reference expected offset": w0})
        msg = (f"byte {j} of {label} at thread {t} is not its register's value: relative to the reference byte it "
               f"is loaded {g - g0} bytes away, its element's pointer is {w - w0} bytes away")
    else:
        if g == w:
            return Verdict("error", PROP, subject, None, time.perf_counter() - t0,
                           f"internal: the replay at thread {t} does not reproduce the difference")
        msg = (f"byte {j} of {label} at thread {t} is not register {r}'s value: it is loaded from global offset {g}, "
               f"the element {e} is at {w}")
    note = "both global offsets replayed (scalar interpreter; TTGIR pointer at LinearLayout.apply's coordinates)" + (
        f", with {', '.join(frees)} = 0: the differences do not depend on them (Z3)" if frees else "")
    return Verdict("refuted", PROP, subject, "exhaustive", time.perf_counter() - t0, msg,
                   Counterexample({"tid": t}, sides, note))
