"""Obligations on the lowered code: every shared-memory access of a kernel's LLVM IR, against its TTGIR.

For each access (:mod:`llverify.lowered.llir`), with its address as a Z3 term of the thread id
(:mod:`llverify.lowered.symbolic`):

* ``in_bounds``: for every thread id of the module's warp count and every value of the free variables,
  the address is not poison and ``0 <= address`` and ``address + bytes <= shared``, ``shared`` being the
  shared memory Triton allocated (its metadata's ``shared``).  When the only inputs are the thread id and
  at most 256 assignments of free variables (:func:`_enumerable`), every thread is evaluated at every
  assignment (:mod:`llverify.lowered.vector`: exhaustive, complete); otherwise SMT ``unsat`` of the negation
  = proved.  A failing thread is replayed by the scalar interpreter (independent of both) before it is
  reported with its address; a failure that needs a free variable (a loop's ``phi``, a kernel argument) is
  ``unknown`` naming it, since that value may never occur.  Only the threads that reach the access count:
  where the claim fails for some thread it is re-checked under the access's block's path condition
  (:mod:`llverify.lowered.guards`), and a witness must take the branches to the access.
* ``right_elements`` (per TTGIR op, :mod:`llverify.lowered.elements`): the op's instructions move each
  thread's registers to and from the addresses ``S^-1 R`` gives them, every register covered.
* ``lowered_wavefronts``: when the address depends on the thread id only, every thread's address is
  evaluated concretely (complete: the thread id is the only input), the wavefronts of every warp counted
  with the target's bank model; when the access is attributed to a ``ttg.local_load`` / ``local_store`` /
  ``local_alloc`` of known layouts, the count must equal the layouts' prediction for the vector width the
  code uses (lemma 9.4): a difference means the address arithmetic does not implement the shared layout.

Attribution: Triton's ``USE_IR_LOC=ttgir`` points the debug locations at ``.ttgir`` lines; the access is
attributed to the TTGIR op on that line.  An access that cannot be attributed is reported as such.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import z3

from llverify.codegen.bank_model import DIRECTIONS, NVIDIA, BankModel, bank_model_for_target
from llverify.codegen.bank_sim import simulate_addresses
from llverify.codegen.target_banks import target_wavefronts
from llverify.errors import LlverifyError
from llverify.lowered.convert import convert_elements, function_users
from llverify.lowered.elements import right_elements
from llverify.lowered.conditions import PathCondition
from llverify.lowered.guards import control_flow
from llverify.lowered.launch import elected, launch_parameter, launch_threads, runs_on_first, whichever_lane
from llverify.lowered.llir import Access, LlirFunction, LlirModule
from llverify.lowered.orbits import phi_range
from llverify.lowered.remainder import parse_key
from llverify.lowered.concrete import Concrete
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.tma import PROPERTY as TMA_PROPERTY
from llverify.lowered.tma import TmaBox, is_tma_copy, operand_error, tma_box
from llverify.lowered.tma import tiling as tma_tiling
from llverify.lowered.vector import Threads, VecValue
from llverify.prove.bv import check as smt_check
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.findings import Finding
from llverify.ttgir.layouts import BuiltLayout, element_bits, layout_of
from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, register_and_memory
from llverify.ttgir.model import Location, Module, Op

__all__ = ["validate", "LoweredFinding"]


@dataclass(frozen=True)
class LoweredFinding:
    """A finding on the lowered code: the gate's finding plus the ``.llir`` location."""

    finding: Finding
    lowered: Location

    def to_json(self) -> dict:
        out = self.finding.to_json()
        out["lowered"] = {"file": self.lowered.file, "line": self.lowered.line, "col": self.lowered.col}
        return out


def _ops_by_line(module: Module) -> dict[int, Op]:
    return {op.location.line: op for _, op, _ in module.walk()}


def _wavefronts(addresses: np.ndarray, model: BankModel, vec_bytes: int, direction: str) -> int | None:
    """Most wavefronts of one wave-level access on ``model``; None where the model has no established phase
    rule for it or its documented candidate rules give different counts (then nothing is claimed)."""
    arr = addresses.reshape(-1, model.lanes)
    try:
        rules = model.phase_rules(max(vec_bytes, 1), direction)
    except LlverifyError:
        return None
    counts = {int(simulate_addresses(arr, max(vec_bytes, 1), model, r).max()) for r in rules}
    return counts.pop() if len(counts) == 1 else None


def _prediction_key(op: Op | None, vec_bytes: int) -> tuple | None:
    """What the layouts' wavefront prediction for ``op``'s accesses of ``vec_bytes`` depends on: (register
    layout, memory layout, element bits, padding, vector bytes), or None when there is no like-for-like one."""
    moved = register_and_memory(op) if op is not None and op.name in SHARED_ACCESS_OPS else None
    if moved is None:
        return None
    reg, mem, direction = moved
    if reg is None or mem is None or reg.kind != "tensor":
        return None
    R, M = layout_of(reg), layout_of(mem)
    if not (isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)) or tuple(reg.shape) != tuple(M.shape):
        return None
    bits = element_bits(reg.element)
    if bits not in (8, 16, 32, 64) or vec_bytes * 8 % bits:
        return None
    return (R.layout, M.layout, bits, M.padding, vec_bytes, direction)


def _predicted(key: tuple, target: str) -> int | None:
    """Lemma 9.4's wavefronts per warp-level access for :func:`_prediction_key`'s inputs on ``target``."""
    R, M, bits, padding, vec_bytes, direction = key
    try:
        tw = target_wavefronts(R, M, bits, target, padding, max_vector_elems=max(1, vec_bytes * 8 // bits),
                               direction=direction)
        if tw.min_wavefronts != tw.wavefronts:
            return None  # the documented phase rules (or instructions) disagree: no single prediction
        vec_bits, waves = tw.vector_bits, tw.wavefronts
    except LlverifyError:
        return None
    if vec_bits != vec_bytes * 8:
        return None  # the code's vector is not one llverify's plan would form; no like-for-like prediction
    return waves


class _Predictions:
    """:func:`_predicted` memoised per (op, vector bytes), and per layouts: ops of the same layouts share it."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._by_op: dict[tuple[int, int], tuple | None] = {}
        self._memo: dict[tuple, int | None] = {}
        self._keep: list[Op] = []  # keeps the ops alive while their ids are keys

    def __call__(self, op: Op | None, vec_bytes: int) -> int | None:
        if op is None:
            return None
        at = (id(op), vec_bytes)
        if at not in self._by_op:
            self._keep.append(op)
            self._by_op[at] = _prediction_key(op, vec_bytes)
        key = self._by_op[at]
        if key is None:
            return None
        if key not in self._memo:
            self._memo[key] = _predicted(key, self.target)
        return self._memo[key]


def validate(module: Module, llir: LlirModule, shared_bytes: int) -> list[LoweredFinding]:
    """Every obligation of every shared-memory access (see the module docstring)."""
    threads = module.num_warps * module.threads_per_warp
    by_line = _ops_by_line(module)
    ttgir_file = any(f.endswith(".ttgir") for f in llir.files)
    out: list[LoweredFinding] = []
    for fn in llir.functions:
        sym = Symbolic(fn, threads, phi_range)
        vec = Threads(fn, threads)  # every value at every thread, computed once, shared by every access
        flow = control_flow(fn)  # each block's path condition and the divergent values (llverify.lowered.guards)
        launch = launch_threads(fn, llir.attributes, threads)  # warp-specialized kernels launch more
        lvec = vec if launch == threads else Threads(fn, launch)
        predicted = _Predictions(module.target)
        choices: dict = {}  # free-variable assignment -> its evaluator (shared by the accesses)
        groups: dict[int, tuple[Op, list[Access]]] = {}
        for acc in fn.accesses:
            loc = llir.locations.get(acc.instr.dbg or "", None) if ttgir_file else None
            op = by_line.get(loc[0]) if loc else None
            if op is not None:
                groups.setdefault(id(op), (op, []))[1].append(acc)
        # its own evaluators: the TMA tiling evaluates threads 0..threads-1, in_bounds the launch's threads
        boxes, tilings = _tma_boxes(module, fn, groups, threads, vec, {}, llir.path)
        for k, acc in enumerate(fn.accesses):
            out.extend(_access_findings(module, llir, fn, sym, acc, k, threads, shared_bytes,
                                        by_line if ttgir_file else {}, vec, predicted, choices, flow, lvec,
                                        boxes.get(acc.instr.line)))
        fn_users = None
        for op, accs in groups.values():
            subject = f"{op.name} at {module.path}:{op.location.line}: {len(accs)} access(es) in {llir.path}"
            if id(op) in tilings:
                v = tilings[id(op)]
            elif op.name == "ttg.convert_layout":
                fn_users = fn_users if fn_users is not None else function_users(fn)  # once per function
                dbgs = [k for k, (line, _) in llir.locations.items() if line == op.location.line]
                v = convert_elements(op, fn, sym, accs, threads, module.threads_per_warp, subject, flow, vec,
                                     dbgs, fn_users)
            else:
                v = right_elements(op, fn, sym, accs, threads, module.threads_per_warp, subject, flow, vec)
            partial = next((a for a in accs if not runs_on_first(flow.of(a.instr), lvec, threads)), None)
            if v is not None and partial is not None:  # the claim takes threads 0..threads-1 as the executing set
                pc = flow.of(partial.instr)
                v = Verdict("unknown", v.property, subject, None, v.seconds,
                            f"the access at {llir.path}:{partial.instr.line} runs under the path condition "
                            f"{pc.describe()} of block {pc.block or 'entry'}, which is not known to select exactly "
                            f"threads 0..{threads - 1}: not claimed" + (f" ({flow.reason})" if flow.reason else ""))
            if v is not None:
                out.append(LoweredFinding(Finding(v, v.property, op.name, op.location, op.source, fn.name,
                                                  module.target, index=len(out)),
                                          Location(llir.path, accs[0].instr.line, 1)))
        if ttgir_file:  # a conversion lowered through warp shuffles: visible, not claimed
            shuffled: dict[int, int] = {}
            for ins in fn.instrs:
                loc = llir.locations.get(ins.dbg or "")
                if loc and "shfl.sync" in ins.body:
                    shuffled.setdefault(loc[0], ins.line)
            for line, lowered_line in sorted(shuffled.items()):
                op = by_line.get(line)
                if op is None or op.name != "ttg.convert_layout" or any(o is op for o, _ in groups.values()):
                    continue
                v = Verdict("unknown", "right_elements", f"{op.name} at {module.path}:{line} in {llir.path}", None,
                            0.0, "the conversion is lowered through warp shuffles (shfl.sync): their value "
                            "provenance is not modelled (issue 15: not claimed)")
                out.append(LoweredFinding(Finding(v, v.property, op.name, op.location, op.source, fn.name,
                                                  module.target, index=len(out)), Location(llir.path, lowered_line, 1)))
    return out


def _tma_boxes(module: Module, fn: LlirFunction, groups: dict[int, tuple[Op, list[Access]]], threads: int,
               vec: Threads, choices: dict, llir_path: str) -> tuple[dict[int, TmaBox | str], dict[int, Verdict]]:
    """Per TMA access (by ``.llir`` line): its op's box when the op's ``tma_tiling`` is proved, else why the box
    is not established; and per TMA op (by id) its ``tma_tiling`` verdict (:mod:`llverify.lowered.tma`)."""
    boxes: dict[int, TmaBox | str] = {}
    tilings: dict[int, Verdict] = {}
    for op, accs in groups.values():
        tma = [a for a in accs if is_tma_copy(a)]
        if not tma:
            continue
        subject = f"{op.name} at {module.path}:{op.location.line}: {len(tma)} TMA message(s) in {llir_path}"
        box = tma_box(op, module.num_ctas)
        why = box if isinstance(box, str) else next((e for e in map(operand_error, tma) if e), None)
        if why is not None:
            v = Verdict("unknown", TMA_PROPERTY, subject, None, 0.0, f"the TMA box is not established: {why}")
        else:
            assert isinstance(box, TmaBox)
            v = tma_tiling(op, box, tma, fn, threads, module.threads_per_warp, vec, choices, _enumerable,
                           _guard_threads, subject)
        tilings[id(op)] = v
        for a in tma:
            boxes[a.instr.line] = box if v.status == "proved" else f"its op's {TMA_PROPERTY} is {v.status}: {v.message}"
    return boxes, tilings


def _access_findings(module: Module, llir: LlirModule, fn: LlirFunction, sym: Symbolic, acc: Access, k: int,
                     threads: int, shared_bytes: int, by_line: dict[int, Op],
                     vec: Threads, predicted: "_Predictions", choices: dict, flow: Any = None,
                     lvec: Threads | None = None, tma: TmaBox | str | None = None) -> list[LoweredFinding]:
    loc = llir.locations.get(acc.instr.dbg or "", None)
    op = by_line.get(loc[0]) if loc else None
    where = op.location if op is not None else Location(module.path, loc[0] if loc else 1, loc[1] + 1 if loc else 1)
    lowered = Location(llir.path, acc.instr.line, 1)
    kernel = fn.name
    opname = op.name if op is not None else "unattributed"
    subject = f"{acc.kind} of {acc.bytes or '?'} bytes at {llir.path}:{acc.instr.line}"
    if isinstance(tma, TmaBox):  # a TMA message: its box, as its op's proved tiling confirms
        subject = f"{acc.kind} of {tma.box_bytes} bytes ({tma.describe()}) at {llir.path}:{acc.instr.line}"

    def finding(v: Verdict) -> LoweredFinding:
        return LoweredFinding(Finding(v, v.property, opname, where, op.source if op else None, kernel, module.target,
                                      index=k), lowered)

    results: list[LoweredFinding] = []
    func = next((f for f in module.functions if loc and f.location.line == loc[0]), None) if by_line else None
    if op is None and func is not None:
        # the location names the tt.func line itself: code Triton adds to the function, not to one op (Triton
        # 3.9's warp_specialize dispatch reads each partition's state byte so); not attributable to an op
        results.append(finding(Verdict("unknown", "attribution", subject, None, 0.0,
                                       f"the access's debug location names the function @{func.name} "
                                       f"({module.path}:{loc[0] if loc else 0}), not one of its ops: code the "
                                       "compiler adds to the function (such as warp_specialize's partition "
                                       "dispatch), which no TTGIR op's semantics covers")))
    elif op is None:
        results.append(finding(Verdict("unknown", "attribution", subject, None, 0.0,
                                       "the access could not be attributed to a TTGIR op (compile with "
                                       "USE_IR_LOC=ttgir so debug locations name .ttgir lines)")))
    t0 = time.perf_counter()
    size = max(1, acc.bytes or acc.footprint)
    width_unread = acc.kind == "asm" and not acc.footprint  # only the first byte's bounds are decided
    lvec = vec if lvec is None else lvec  # the launch's threads (more than the TTGIR's in a warp-specialized kernel)
    launch = lvec.threads
    pc = flow.of(acc.instr) if flow is not None else PathCondition(acc.instr.block, frozenset([frozenset()]), True, True)
    conditioned = False  # the path condition was needed
    if isinstance(tma, TmaBox):
        size, width_unread = tma.box_bytes, False
    at = vec.value(acc.pointer, 32)
    frees = sorted(at.free)
    guard = _guard_threads(vec, acc)
    inputs = sorted(at.free | (guard.free if guard is not None else frozenset()))
    combos = _enumerable(inputs, fn)
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
        results.append(finding(Verdict("unknown", "in_bounds", subject, method, secs,
                                       f"{width}: only its first byte is proved "
                                       f"inside the {shared_bytes} bytes of shared memory")))
    elif res_status == "unsat" and exhausted is False:
        results.append(finding(Verdict("error", "in_bounds", subject, None, secs,
                                       "internal: Z3 proves what evaluating every assignment refutes")))
    elif res_status == "unsat":
        reach = f" that reach it (path condition {pc.describe()})" if conditioned else ""
        results.append(finding(Verdict("proved", "in_bounds", subject, method, secs,
                                       f"inside the {shared_bytes} bytes of shared memory for all {launch} threads"
                                       + reach + (f" and all values of {', '.join(frees)}" if frees else ""),
                                       certificate=certificate, details={"free_variables": frees})))
    elif res_status == "sat":
        assert tid is not None
        if frees:
            whys = {n: _why_free(sym, n) for n in frees}
            results.append(finding(Verdict("unknown", "in_bounds", subject, method, secs,
                                           "out of bounds only for some values of free variables, which may never "
                                           f"occur: {whys}", details={"free_variables": frees})))
        elif not all(launch_parameter(fn, n) or (elected(fn, n) and whichever_lane(
                fn, pc, acc.pointer, tid, values, module.threads_per_warp)) for n in values):
            # a loaded value, say, decides the branch
            got = Concrete(fn, tid, values).value(acc.pointer, 32)
            results.append(finding(Verdict("unknown", "in_bounds", subject, method, secs,
                                           f"out of bounds at tid {tid} (address {got}) if that thread reaches the "
                                           f"access, which needs the path condition {pc.describe()} to hold with "
                                           f"{', '.join(sorted(n for n in values if not launch_parameter(fn, n)))} "
                                           "at values that may never occur there",
                                           details={"if_reached": {"tid": tid, **values, "address": got}})))
        else:
            replay = Concrete(fn, tid, values)
            got = replay.value(acc.pointer, 32)
            off = acc.guard is not None and _guard_value(replay, acc) is False
            runs = pc.holds(replay)  # the witness takes the branches to the access
            if runs is None:
                results.append(finding(Verdict("unknown", "in_bounds", subject, method, secs,
                                               f"out of bounds at tid {tid}, whose path condition {pc.describe()} "
                                               "is poison or undetermined there")))
            elif off or not runs or (got is not None and got < (1 << 31) and got + size <= shared_bytes):
                who = "Z3" if method == "smt" else "every-thread evaluation"
                results.append(finding(Verdict("error", "in_bounds", subject, None, secs,
                                               f"internal: {who} and the interpreter disagree at tid {tid}")))
            else:
                shown = "poison" if got is None else got
                results.append(finding(Verdict(
                    "refuted", "in_bounds", subject, method, secs, "a thread accesses outside the shared allocation"
                    + (f" (it reaches the access: {pc.describe()})" if conditioned else ""),
                    Counterexample({"tid": tid, **values}, {"address": shown, "bytes": size, "shared": shared_bytes},
                                   "replayed by the concrete LLVM interpreter"
                                   + (", following the branches" if conditioned else "")))))
    else:
        results.append(finding(Verdict("unknown", "in_bounds", subject, method, secs, f"Z3: {reason}")))
    # wavefronts of the real addresses (a predicated access: not claimed, the active lanes vary)
    if not frees and acc.bytes and acc.guard is None and runs_on_first(pc, lvec, threads):
        model = bank_model_for_target(module.target) if _known_target(module.target) else None
        direction = acc.kind if acc.kind in DIRECTIONS else ("load" if model == NVIDIA else None)
        if model is not None and direction is not None:
            t1 = time.perf_counter()
            waves = _wavefronts(at.vals.astype(np.int64), model, acc.bytes, direction) if not at.none.any() else None
            if waves is not None:
                want = predicted(op, acc.bytes)
                details = {"wavefronts": waves, "vector_bytes": acc.bytes, "predicted": want}
                msg = f"{waves} wavefronts per warp-level instruction, measured on every thread's address"
                if want is None or want == waves:
                    v = Verdict("proved", "lowered_wavefronts", subject, "exhaustive", time.perf_counter() - t1,
                                msg + ("" if want is None else " = the layouts' prediction"),
                                certificate={"threads_evaluated": threads}, details=details)
                else:
                    v = Verdict("refuted", "lowered_wavefronts", subject, "exhaustive", time.perf_counter() - t1,
                                f"the code's addresses cost {waves} wavefronts, the layouts predict {want}",
                                Counterexample({"warp": 0}, {"measured": waves, "predicted": want},
                                               "every thread's address evaluated concretely"), details=details)
                results.append(finding(v))
    return results


def _why_free(sym: Symbolic, name: str) -> str:
    """What the free variable ``name`` of the vector evaluator stands for (a remainder: its counter's)."""
    reduced = parse_key(name)
    base = reduced[0] if reduced is not None else name
    why = sym.frees[base][1] if base in sym.frees else "a free variable"
    return why if reduced is None else f"{base} modulo {reduced[1]}, {base}: {why}"


def _enumerable(inputs: list[str], fn: LlirFunction, max_bits: int = 8) -> list[dict[str, int]] | None:
    r"""Every assignment of the free variables ``inputs`` when together they have at most ``max_bits`` bits
    and none is a loop-carried ``phi`` (the evaluator gives such a phi one value wherever it is used, a
    narrower domain than Z3's), else None; ``[{}]`` for none.  A remainder ``v:W.urem<C>:b`` has the domain
    ``[0, C)`` (:mod:`llverify.lowered.remainder`: exactly the values ``urem v, C`` takes).  A join ``phi``'s choice (``%p.choice:1``) and
    an unmodelled value (``%5:1``, an ``elect.sync`` predicate) are independent variables of their width, so
    these assignments are their whole domain.

    >>> from llverify.lowered.llir import parse_llir
    >>> fn = parse_llir("define void @k() {\n  %p = phi i1 [ 0, %a ], [ %q, %b ]\n}").functions[0]
    >>> _enumerable(["%a.choice:1"], fn), len(_enumerable(["%a.choice:1", "%5:1"], fn))
    ([{'%a.choice:1': 0}, {'%a.choice:1': 1}], 4)
    >>> _enumerable(["%43:64"], fn), _enumerable(["%p:1"], fn), _enumerable(["%43:64.urem3:2"], fn)
    (None, None, [{'%43:64.urem3:2': 0}, {'%43:64.urem3:2': 1}, {'%43:64.urem3:2': 2}])
    """
    import itertools

    domains: list[range] = []
    for f in inputs:
        name, width = f.rsplit(":", 1)
        ins = fn.defs.get(name)
        reduced = parse_key(f)
        if reduced is not None:
            domains.append(range(reduced[1]))  # urem v, C: every value in [0, C) (llverify.lowered.remainder)
        elif not name.endswith(".choice") and ins is not None and ins.opcode == "phi":
            counted = phi_range(fn, ins)
            if counted is None or counted.width != int(width):
                return None
            domains.append(counted.values())  # every value a counted loop's phi holds
        else:
            domains.append(range(1 << int(width)))
    if math.prod(d.stop - d.start for d in domains) > 1 << max_bits:
        return None
    return [dict(zip(inputs, vals)) for vals in itertools.product(*domains)]


def _bad_threads(ev: Threads, acc: Access, size: int, shared_bytes: int) -> np.ndarray:
    """Per thread: the access runs (its PTX predicate, if any, is on or poison) and its address is poison,
    negative as a signed 32-bit offset, or ``[address, address + size)`` reaches past ``shared_bytes``."""
    at = ev.value(acc.pointer, 32)
    bad = at.none | (at.vals >= np.uint64(1 << 31)) | (at.vals + np.uint64(size) > np.uint64(shared_bytes))
    guard = _guard_threads(ev, acc)
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
    active = _guard_term(sym, acc)
    if active is not None:
        bad = z3.And(active, bad)  # a predicated-off thread accesses nothing (PTX `@p`)
    if pc is None:
        return smt_check([z3.ULT(sym.tid, threads), bad, *sym.domain(addr.free)]), addr
    return smt_check([z3.ULT(sym.tid, threads), pc.term(sym), bad, *sym.domain(addr.free | pc.free(sym))]), addr


def _guard_term(sym: Symbolic, acc: Access) -> Any:
    """The Z3 condition under which a predicated inline-asm access executes (a poison predicate may), or None
    when it always does."""
    if acc.guard is None:
        return None
    name, negated = acc.guard
    if name in ("true", "false"):
        return z3.BoolVal((name == "true") != negated)
    g = sym.value(name, 1)
    on = g.term == (0 if negated else 1)
    return z3.Or(g.poison, on)


def _guard_threads(vec: Threads, acc: Access) -> VecValue | None:
    """The predicate of a predicated inline-asm access at every thread (``none``: poison, it may run), or None
    when it always runs."""
    if acc.guard is None:
        return None
    name = acc.guard[0]
    if name in ("true", "false"):
        if (name == "true") != acc.guard[1]:
            return None  # always on
        off = np.full(vec.threads, 1 if acc.guard[1] else 0, dtype=np.uint64)  # the value that turns it off
        return VecValue(off, np.zeros(vec.threads, dtype=bool), frozenset())
    return vec.value(name, 1)


def _guard_value(replay: Concrete, acc: Access) -> bool | None:
    """Whether a predicated access executes for the replayed thread (None: poison, it may)."""
    assert acc.guard is not None
    name, negated = acc.guard
    if name in ("true", "false"):
        return (name == "true") != negated
    v = replay.value(name, 1)
    return None if v is None else (v == 1) != negated


def _known_target(target: str) -> bool:
    try:
        bank_model_for_target(target)
    except LlverifyError:
        return False
    return True


def validate_texts(ttgir_text: str, ttgir_path: str, llir_text: str, llir_path: str,
                   shared_bytes: int) -> list[LoweredFinding]:
    """Parse both texts and validate (the API the gate and tests call)."""
    from llverify.lowered.llir import parse_llir
    from llverify.ttgir.reader import parse_module

    return validate(parse_module(ttgir_text, ttgir_path), parse_llir(llir_text, llir_path), shared_bytes)


def summarize(findings: Sequence[LoweredFinding]) -> dict[str, int]:
    out = {"proved": 0, "refuted": 0, "unknown": 0, "error": 0}
    for f in findings:
        out[f.finding.verdict.status] += 1
    return out
