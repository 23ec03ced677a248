"""The right elements: the lowered code of a ``local_store`` / ``local_load`` moves each thread's registers to
and from the shared addresses its layouts say.

For an op with register layout ``R``, shared layout ``S`` (its padding included) and element size ``b``
bytes, ``O = S^-1 R`` (:func:`llverify.codegen.banks.access_to_offsets`, broadcast registers removed) gives
register ``r`` of thread ``t`` the element offset ``O(r, t)``.  Let ``a_i(t)`` be the address of the op's
``i``-th access instruction (vector of ``v_i`` bytes) at thread ``t``.  The claim:

1. there is one base ``B`` (the buffer's address) such that, for every instruction ``i`` and every element
   ``k < v_i / b`` of its vector, one *fixed* register ``r_ik`` satisfies ``a_i(t) + b k = B + b O(r_ik, t)``
   for **every** thread ``t`` (an instruction stores / loads the same registers in every thread, as
   straight-line SIMT code does);
2. every register's element is some ``r_ik``'s (every element is written / every register is filled).

This is seed 000's ``S^-1 L`` (section 5.4) read off the compiler's own address arithmetic.  The register
an instruction handles is found by evaluation (``r_ik`` is any register whose offsets over all threads
equal the instruction's), so the claim needs no value tracking through the optimised IR, and it is a claim
about **addresses only**: that the value a store carries is register ``r_ik``'s (and not another register's
that the same thread holds) is not established here (a swap of two stored values keeps every address, and
the claim still holds); :mod:`llverify.lowered.stored_values` establishes it where the stored tensor is a
``tt.load``'s, building on the registers found here.

Decision.  Addresses that depend on the thread id only are evaluated at every thread id by the concrete
LLVM interpreter (:class:`~llverify.lowered.concrete.Concrete`): exhaustive, complete.  When an address
also depends on free variables ``f`` (a loop's ``phi`` choosing the buffer, a kernel argument), the
exhaustive check runs at ``f = 0`` and Z3 proves that nothing else depends on ``f``: for all ``t`` and
``f``, ``a_i(t, f) - a_1(0, f) = a_i(t, 0) - a_1(0, 0)`` (the buffer moves as a whole).  A sat model
there is ``unknown`` (the free values may never occur); a failure of 1 or 2 is ``refuted`` with the
instruction, the thread and both addresses, recomputed by a fresh interpreter and ``LinearLayout.apply``.

``ldmatrix`` / ``stmatrix`` are modelled with PTX's semantics: a lane's element sits at another lane's row
address (:func:`element_slots`).  Not modelled (``unknown``): other asm accesses, multi-CTA layouts,
subviews, sub-byte elements.
"""

from __future__ import annotations

import time
from typing import Sequence

import z3

from llverify.codegen.banks import access_to_offsets
from llverify.errors import LlverifyError
from llverify.lowered.conditions import ControlFlow
from llverify.lowered.llir import LDMATRIX, Access, LlirFunction
from llverify.lowered.remainder import base_assignment
from llverify.lowered.concrete import Concrete
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.thread_layouts import at_thread, unsupported
from llverify.lowered.uniform import nonuniform
from llverify.lowered.vector import Threads
from llverify.prove.bv import check as smt_check
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, element_bits, layout_of, legacy_operand_order
from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, register_and_memory
from llverify.ttgir.model import Op

__all__ = ["right_elements", "element_slots", "NotModelled"]

PROP = "right_elements"


def right_elements(op: Op, fn: LlirFunction, sym: Symbolic, accesses: Sequence[Access], threads: int,
                   lanes: int, subject: str, flow: ControlFlow, vec: Threads | None = None,
                   proved_slots: list | None = None, legacy_dialect: bool = False) -> Verdict | None:
    """Decide the claim of the module docstring for ``op`` and the access instructions attributed to it.
    ``flow``: ``control_flow(fn)`` (which free variables may differ between threads); ``vec``: the function's
    values at every thread with no free variables, shared with the caller's other obligations (its memo of
    already evaluated values is reused).  When the claim is proved and ``proved_slots`` is a list, it gets
    ``(R, b, [(instruction index, label, byte offset of the element in the instruction's value at thread 0,
    register), ...])``: what :func:`llverify.lowered.stored_values.stored_values` builds on.  ``legacy_dialect``:
    the module is Triton 3.2's or older (:attr:`~llverify.ttgir.model.Module.legacy_dialect`), whose mma v2 operand
    loads of other than 16-bit elements put elements in registers in an order of their own (measured on Triton
    3.2.0's LLVM IR of our i8 and tf32 dots: not today's dot operand layout): unknown for those, not refuted."""
    t0 = time.perf_counter()
    sides = register_and_memory(op) if op.name in SHARED_ACCESS_OPS else None
    if sides is None or not accesses:
        return None
    reg_t, mem_t, direction = sides

    def unknown(msg: str) -> Verdict:
        return Verdict("unknown", PROP, subject, None, time.perf_counter() - t0, msg)

    if reg_t is None or mem_t is None or reg_t.kind != "tensor":
        return None
    allowed = {"load": ("load", "ldmatrix"), "store": ("store", "stmatrix")}[direction]
    if any(a.kind not in allowed for a in accesses):
        kinds = sorted({a.kind for a in accesses})
        return unknown(f"accesses of kind {', '.join(kinds)} for a {direction}: only ld/st.shared and "
                       "ldmatrix/stmatrix are modelled")
    R, M = layout_of(reg_t), layout_of(mem_t)
    if not isinstance(R, BuiltLayout):
        return unknown(R.reason)
    if not isinstance(M, BuiltLayout):
        return unknown(M.reason)
    if tuple(reg_t.shape) != tuple(M.shape):
        return unknown(f"an access of shape {list(reg_t.shape)} into a buffer of shape {list(M.shape)}: not modelled")
    bits = element_bits(reg_t.element)
    if bits < 8 or bits % 8:
        return unknown(f"{bits}-bit elements: not modelled")
    legacy = legacy_operand_order(legacy_dialect, reg_t.encoding, bits)
    if legacy is not None:
        return unknown(legacy)
    b = bits // 8
    L = R.layout
    why = unsupported(L, threads)
    if why is not None:
        return unknown(why)
    try:
        import numpy as np

        from llverify.evaluate import evaluate

        O = access_to_offsets(L, M.layout)
        off = evaluate(O)["offset"].astype(np.int64).reshape(-1, O.in_dim_size("register"))  # [thread, reg]
    except LlverifyError as exc:
        return unknown(f"S^-1 R not built: {exc}")
    if M.padding is not None:
        off = M.padding.apply(off)
    off = off.T  # [reg, thread]
    # addresses at every thread, free variables at 0
    vec = vec if vec is not None else Threads(fn, threads)
    vals = [vec.value(a.pointer, 32) for a in accesses]
    frees = sorted(set().union(*(v.free for v in vals)))
    varying = nonuniform(fn, frees, flow)
    if varying:
        return unknown(f"the addresses depend on {', '.join(varying)}, left free by the semantics and possibly "
                       "different in different threads: a claim across threads is not decided with one value for all")
    if frees:
        at_zero = Threads(fn, threads, {f: 0 for f in frees})
        vals = [at_zero.value(a.pointer, 32) for a in accesses]
    addr = np.zeros((len(accesses), threads), dtype=np.int64)
    for i, (a, v) in enumerate(zip(accesses, vals)):
        if v.none.any():
            t = int(np.flatnonzero(v.none)[0])
            return unknown(f"the address of {fn.name} line {a.instr.line} is poison or unmodelled at thread {t}")
        addr[i] = v.vals.astype(np.int64)
    try:
        slots = element_slots(accesses, addr, b, threads, lanes)
    except NotModelled as exc:
        return unknown(str(exc))
    base = min(int(addr[i][src[0]] + extra[0]) for i, _, src, extra in slots) - b * int(off[:, 0].min())
    covered = np.zeros(off.shape[0], dtype=bool)
    regs_of: dict[bytes, list[int]] = {}  # a register's offsets over all threads -> the registers with them
    off = np.ascontiguousarray(off, dtype=np.int64)
    for r in range(off.shape[0]):
        regs_of.setdefault(off[r].tobytes(), []).append(r)
    def refute_if_free_independent(v: Verdict) -> Verdict:
        """A failure found at ``f = 0`` is a failure for every ``f`` only when the addresses' thread
        dependence does not change with ``f``; otherwise ``f = 0`` may never occur: ``unknown``."""
        if not frees:
            return v
        bad = _free_dependence(sym, [sym.value(a.pointer, 32) for a in accesses], threads)
        if bad is None:
            return v
        return unknown(f"{v.message} with {', '.join(frees)} = 0, which may never occur ({bad})")

    registers: list[tuple[int, str, int, int]] = []
    for i, what, src, extra in slots:
        a = accesses[i]
        at = addr[i][src] + extra
        rel = at - base
        if np.any(rel % b):
            t = int(np.flatnonzero(rel % b)[0])
            return refute_if_free_independent(_refute(
                subject, t0, fn, a, t, int(at[t]), None, frees, f"{what}: an address is not element-aligned",
                source=(int(src[t]), int(extra[t]))))
        target = (rel // b).astype(np.int64)
        hit = regs_of.get(target.tobytes())
        if hit is None:
            r0 = int(np.argmax((off == target[None, :]).sum(axis=1)))
            t = int(np.flatnonzero(off[r0] != target)[0])
            return refute_if_free_independent(_refute(
                subject, t0, fn, a, t, int(at[t]), base + b * int(off[r0, t]), frees,
                f"{what} is no fixed register's element in every thread (closest: register {r0})",
                O, r0, M.padding, source=(int(src[t]), int(extra[t]))))
        covered[hit] = True  # every register with that element function
        registers.append((i, what, int(extra[0]), hit[0]))
    if not covered.all():
        r = int(np.flatnonzero(~covered)[0])
        verb = "written" if direction == "store" else "loaded"
        cx = Counterexample({"register": r}, {"element offset at thread 0": int(off[r, 0])},
                            "no access instruction's addresses equal this register's in every thread")
        return refute_if_free_independent(Verdict("refuted", PROP, subject, "exhaustive", time.perf_counter() - t0,
                                                  f"register {r}'s element is never {verb}", cx))
    if frees:
        bad = _free_dependence(sym, [sym.value(a.pointer, 32) for a in accesses], threads)
        if bad is not None:
            return unknown(bad)
    n = len(accesses)
    if proved_slots is not None:
        proved_slots.append((L, b, registers))
    how = ("every thread evaluated" if not frees else
           f"every thread evaluated at {', '.join(frees)} = 0; Z3: the thread dependence does not change with them")
    return Verdict("proved", PROP, subject, "exhaustive" if not frees else "smt", time.perf_counter() - t0,
                   f"{n} instruction(s) address S^-1 R's offsets: each instruction's address is one fixed "
                   f"register's offset in every thread, every register's offset addressed ({how}; the addresses "
                   "only: which register's value an instruction carries is "
                   + ("the stored_values claim's)" if direction == "store" else "not tracked)"),
                   certificate={"instructions": n, "threads": threads, "base": base},
                   details={"free_variables": frees})


class NotModelled(Exception):
    """An access form whose element slots are not modelled (the claim is then ``unknown`` with the reason)."""


def element_slots(accesses: Sequence[Access], addr, b: int, threads: int, lanes: int) -> list:
    """Per access instruction and per element it moves in each thread: ``(instruction index, label, source
    thread, byte offset)``, both arrays over the threads: the element's byte address at thread ``t`` is the
    instruction's address at thread ``source[t]`` plus ``offset[t]``.

    * ``ld/st.shared`` of ``v`` bytes: element ``k`` of the thread's own vector, at ``addr + k b``;
    * ``ldmatrix`` / ``stmatrix`` ``.m8n8.x{n}.b16`` (PTX ISA): lanes ``8m .. 8m + 7`` give the 16-byte row
      addresses of matrix ``m``; lane ``l`` holds, of matrix ``m``, the 4 bytes ``4 (l mod 4) ..`` of row
      ``l / 4``; with ``.trans`` (16-bit elements) the two elements of column ``l / 4`` in rows
      ``2 (l mod 4)`` and ``2 (l mod 4) + 1``.  The address of a lane's element is another lane's row address.
    """
    import numpy as np

    t = np.arange(threads)
    warp_base, lane = t - t % lanes, t % lanes
    slots = []
    for i, a in enumerate(accesses):
        if a.kind in ("load", "store"):
            for k in range(max(1, a.bytes // b)):
                slots.append((i, f"line {a.instr.line} element {k}", t, np.full(threads, k * b)))
            continue
        m = LDMATRIX.search(a.instr.body)
        if m is None or lanes != 32:
            raise NotModelled(f"{a.kind} form at line {a.instr.line} not modelled")
        count, trans = int(m.group(2)), bool(m.group(3))
        if trans and b != 2:
            raise NotModelled(f"{a.kind}.trans of {8 * b}-bit elements not modelled")
        for mat in range(count):
            if trans:
                for h in range(2):
                    src = warp_base + 8 * mat + 2 * (lane % 4) + h
                    slots.append((i, f"line {a.instr.line} matrix {mat} row-half {h}", src, 2 * (lane // 4)))
            else:
                src = warp_base + 8 * mat + lane // 4
                for j in range(4 // b):
                    slots.append((i, f"line {a.instr.line} matrix {mat} element {j}", src, 4 * (lane % 4) + j * b))
    return slots


def _free_dependence(sym: Symbolic, terms: list, threads: int) -> str | None:
    """None when ``a_i(t, f) - a_1(0, f) == a_i(t, 0) - a_1(0, 0)`` for all ``t < threads`` and ``f``."""
    zero_f = [(var, z3.BitVecVal(0, var.size())) for var, _ in sym.frees.values()]
    at0 = z3.substitute(terms[0].term, (sym.tid, z3.BitVecVal(0, 32)))
    diffs = []
    for t in terms:
        d = t.term - at0
        diffs.append(d != z3.substitute(d, *zero_f) if zero_f else z3.BoolVal(False))
    res = smt_check([z3.ULT(sym.tid, threads), z3.Or(*diffs)])
    if res.status == "unsat":
        return None
    if res.status == "sat":
        return ("the addresses' dependence on the thread changes with free variables "
                f"({', '.join(sorted(set().union(*(t.free for t in terms))))}): not decided for all their values")
    return f"Z3: {res.reason}"


def _refute(subject: str, t0: float, fn: LlirFunction, a: Access, t: int, got: int, expected: int | None,
            frees: list[str], message: str, O=None, r0: int | None = None, padding=None,
            source: tuple[int, int] | None = None) -> Verdict:
    """A refutation, replayed: the address by a fresh interpreter (at the thread whose pointer carries the
    element, plus its offset: ``source``), the expectation by ``LinearLayout.apply``."""
    src_t, extra = source if source is not None else (t, 0)
    pointer = Concrete(fn, src_t, base_assignment({f: 0 for f in frees})).value(a.pointer, 32)
    again = None if pointer is None else pointer + extra
    if again != got:
        return Verdict("error", PROP, subject, None, time.perf_counter() - t0,
                       f"internal: the interpreter is not deterministic at thread {t}")
    sides: dict = {"instruction": f"line {a.instr.line}", "address": got}
    if expected is not None:
        sides["expected (S^-1 R)"] = expected
    if O is not None and r0 is not None:
        off = at_thread(O, r0, t)["offset"]
        sides["register"] = r0
        sides["replayed offset"] = padding.apply(off) if padding is not None else off
    note = "address replayed by the concrete interpreter" + (f" with {', '.join(frees)} = 0" if frees else "")
    return Verdict("refuted", PROP, subject, "exhaustive", time.perf_counter() - t0, message,
                   Counterexample({"tid": t}, sides, note))
