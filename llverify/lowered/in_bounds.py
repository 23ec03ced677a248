"""``in_bounds``: every shared-memory access of the lowered code stays inside the shared memory Triton allocated.

For every thread id of the launch and every value of the free variables, the address is not poison and
``0 <= address`` and ``address + bytes <= shared``, ``shared`` being the shared memory Triton allocated (its
metadata's ``shared``; ``bytes`` the access's width, an inline asm's footprint, or a TMA message's box).  When
the only inputs are the thread id and at most 256 assignments of free variables
(:func:`llverify.lowered.assignments.enumerable`), every thread is evaluated at every assignment
(:mod:`llverify.lowered.vector`: exhaustive, complete); otherwise SMT ``unsat`` of the negation = proved.  A
failing thread is replayed by the scalar interpreter (independent of both) before it is reported with its
address; a failure that needs a free variable (a loop's ``phi``, a kernel argument) is ``unknown`` naming it,
since that value may never occur.  Only the threads that reach the access count: where the claim fails for
some thread it is re-checked under the access's block's path condition (:mod:`llverify.lowered.guards`), and
a witness must take the branches to the access.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import z3

from llverify.lowered.assignments import enumerable
from llverify.lowered.concrete import Concrete
from llverify.lowered.conditions import PathCondition
from llverify.lowered.launch import elected, launch_parameter, whichever_lane
from llverify.lowered.llir import Access, LlirFunction
from llverify.lowered.predicates import guard_term, guard_threads, guard_value
from llverify.lowered.remainder import parse_key
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.tma import TmaBox
from llverify.lowered.vector import Threads
from llverify.prove.bv import check as smt_check
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["in_bounds"]


def in_bounds(fn: LlirFunction, sym: Symbolic, acc: Access, subject: str, shared_bytes: int, vec: Threads,
              lvec: Threads, pc: PathCondition, choices: dict, tma: TmaBox | str | None, lanes: int) -> Verdict:
    """The ``in_bounds`` verdict of ``acc`` (module docstring).  ``vec`` evaluates the TTGIR's threads, ``lvec``
    the launch's (more in a warp-specialized kernel); ``pc``: the access's block's path condition; ``choices``:
    the evaluators per free-variable assignment, shared by the function's accesses; ``tma``: a TMA message's
    proved box (or why it is not established); ``lanes``: threads per warp."""
    t0 = time.perf_counter()
    size = max(1, acc.bytes or acc.footprint)
    width_unread = acc.kind == "asm" and not acc.footprint  # only the first byte's bounds are decided
    launch = lvec.threads
    conditioned = False  # the path condition was needed
    if isinstance(tma, TmaBox):
        size, width_unread = tma.box_bytes, False
    at = vec.value(acc.pointer, 32)
    frees = sorted(at.free)
    guard = guard_threads(vec, acc)
    inputs = sorted(at.free | (guard.free if guard is not None else frozenset()))
    combos = enumerable(inputs, fn)
    exhausted = None
    if combos is not None:
        # the thread id and a few bits of free variables are the only inputs: every thread evaluated at every
        # assignment of them (complete over the whole domain)
        exhausted = True
        for combo in combos:
            key = tuple(sorted(combo.items()))
            if key not in choices:
                choices[key] = Threads(fn, launch, combo)
            ev = choices[key] if combo else lvec
            bad = _bad_threads(ev, acc, size, shared_bytes)
            if bad.any() and not pc.trivial:  # only the threads that may reach the access
                maybe, sure = pc.threads(ev)
                bad &= maybe
                conditioned = True
            if bad.any():
                exhausted = False
                break
    if exhausted is not None and (exhausted or not inputs):
        res_status, tid, values, method, reason = "unsat", None, {}, "exhaustive", ""
        certificate: Any = {"threads_evaluated": launch}
        if inputs:
            certificate["assignments"] = len(combos or ())
        if not exhausted:  # the least failing thread: replayed below by the scalar interpreter
            res_status, tid = "sat", int(np.flatnonzero(bad)[0])
            if conditioned and not (bad & sure).any():
                exhausted = None  # reached only for some free values: Z3 decides under the path condition
            elif conditioned:
                tid = int(np.flatnonzero(bad & sure)[0])  # a thread that takes the branch
    if exhausted is None or not (exhausted or not inputs):
        res, addr = _smt_in_bounds(sym, acc, launch, shared_bytes, size)
        if res.status == "sat" and not pc.trivial:
            res, addr = _smt_in_bounds(sym, acc, launch, shared_bytes, size, pc)
            conditioned = True
        res_status, method, reason = res.status, "smt", res.reason
        tid, values, certificate = None, {}, None
        if res.status == "sat":
            model = res.model
            tid = model.eval(sym.tid, model_completion=True).as_long()
            values = {name: model.eval(var, model_completion=True).as_long() for name, (var, _) in sym.frees.items()
                      if name in addr.free or (conditioned and name in pc.free(sym))}
        elif res.status == "unsat":
            certificate = res.certificate()
    secs = time.perf_counter() - t0
    if res_status == "unsat" and width_unread:
        width = "the inline asm's access width is not read" if tma is None else f"the TMA box is not established ({tma})"
        return Verdict("unknown", "in_bounds", subject, method, secs,
                       f"{width}: only its first byte is proved "
                       f"inside the {shared_bytes} bytes of shared memory")
    elif res_status == "unsat" and exhausted is False:
        return Verdict("error", "in_bounds", subject, None, secs,
                       "internal: Z3 proves what evaluating every assignment refutes")
    elif res_status == "unsat":
        reach = f" that reach it (path condition {pc.describe()})" if conditioned else ""
        return Verdict("proved", "in_bounds", subject, method, secs,
                       f"inside the {shared_bytes} bytes of shared memory for all {launch} threads"
                       + reach + (f" and all values of {', '.join(frees)}" if frees else ""),
                       certificate=certificate, details={"free_variables": frees})
    elif res_status == "sat":
        assert tid is not None
        if frees:
            whys = {n: _why_free(sym, n) for n in frees}
            return Verdict("unknown", "in_bounds", subject, method, secs,
                           "out of bounds only for some values of free variables, which may never "
                           f"occur: {whys}", details={"free_variables": frees})
        elif not all(launch_parameter(fn, n) or (elected(fn, n) and whichever_lane(
                fn, pc, acc.pointer, tid, values, lanes)) for n in values):
            # a loaded value, say, decides the branch
            got = Concrete(fn, tid, values).value(acc.pointer, 32)
            return Verdict("unknown", "in_bounds", subject, method, secs,
                           f"out of bounds at tid {tid} (address {got}) if that thread reaches the "
                           f"access, which needs the path condition {pc.describe()} to hold with "
                           f"{', '.join(sorted(n for n in values if not launch_parameter(fn, n)))} "
                           "at values that may never occur there",
                           details={"if_reached": {"tid": tid, **values, "address": got}})
        else:
            replay = Concrete(fn, tid, values)
            got = replay.value(acc.pointer, 32)
            off = acc.guard is not None and guard_value(replay, acc) is False
            runs = pc.holds(replay)  # the witness takes the branches to the access
            if runs is None:
                return Verdict("unknown", "in_bounds", subject, method, secs,
                               f"out of bounds at tid {tid}, whose path condition {pc.describe()} "
                               "is poison or undetermined there")
            elif off or not runs or (got is not None and got < (1 << 31) and got + size <= shared_bytes):
                who = "Z3" if method == "smt" else "every-thread evaluation"
                return Verdict("error", "in_bounds", subject, None, secs,
                               f"internal: {who} and the interpreter disagree at tid {tid}")
            else:
                shown = "poison" if got is None else got
                return Verdict(
                    "refuted", "in_bounds", subject, method, secs, "a thread accesses outside the shared allocation"
                    + (f" (it reaches the access: {pc.describe()})" if conditioned else ""),
                    Counterexample({"tid": tid, **values}, {"address": shown, "bytes": size, "shared": shared_bytes},
                                   "replayed by the concrete LLVM interpreter"
                                   + (", following the branches" if conditioned else "")))
    else:
        return Verdict("unknown", "in_bounds", subject, method, secs, f"Z3: {reason}")


def _why_free(sym: Symbolic, name: str) -> str:
    """What the free variable ``name`` of the vector evaluator stands for (a remainder: its counter's)."""
    reduced = parse_key(name)
    base = reduced[0] if reduced is not None else name
    why = sym.frees[base][1] if base in sym.frees else "a free variable"
    return why if reduced is None else f"{base} modulo {reduced[1]}, {base}: {why}"


def _bad_threads(ev: Threads, acc: Access, size: int, shared_bytes: int) -> np.ndarray:
    """Per thread: the access runs (its PTX predicate, if any, is on or poison) and its address is poison,
    negative as a signed 32-bit offset, or ``[address, address + size)`` reaches past ``shared_bytes``."""
    at = ev.value(acc.pointer, 32)
    bad = at.none | (at.vals >= np.uint64(1 << 31)) | (at.vals + np.uint64(size) > np.uint64(shared_bytes))
    guard = guard_threads(ev, acc)
    if guard is not None:
        on = guard.vals == np.uint64(0 if acc.guard[1] else 1)  # type: ignore[index]
        bad &= guard.none | on  # a predicated-off thread accesses nothing (PTX `@p`)
    return bad


def _smt_in_bounds(sym: Symbolic, acc: Access, threads: int, shared_bytes: int, size: int,
                   pc: PathCondition | None = None) -> tuple[Any, Any]:
    """Z3 on the negated claim: some thread below ``threads`` whose (active) access is poison, or reaches past
    the ``shared_bytes`` (and, given ``pc``, that reaches the access); returns the check result and the address
    term."""
    addr = sym.value(acc.pointer, 32)
    wide = z3.ZeroExt(1, addr.term)
    bad = z3.Or(addr.poison, z3.Extract(31, 31, addr.term) == 1, z3.UGT(wide + size, z3.BitVecVal(shared_bytes, 33)))
    active = guard_term(sym, acc)
    if active is not None:
        bad = z3.And(active, bad)  # a predicated-off thread accesses nothing (PTX `@p`)
    if pc is None:
        return smt_check([z3.ULT(sym.tid, threads), bad, *sym.domain(addr.free)]), addr
    return smt_check([z3.ULT(sym.tid, threads), pc.term(sym), bad, *sym.domain(addr.free | pc.free(sym))]), addr
