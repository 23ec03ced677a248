"""Obligations on the lowered code: every shared-memory access of a kernel's LLVM IR, against its TTGIR.

For each access (:mod:`llverify.lowered.llir`), with its address as a Z3 term of the thread id
(:mod:`llverify.lowered.symbolic`):

* ``in_bounds`` (:mod:`llverify.lowered.in_bounds`): for every thread id of the launch and every value of the
  free variables, the address is not poison and ``0 <= address`` and ``address + bytes <= shared``, ``shared``
  being the shared memory Triton allocated (its metadata's ``shared``); only the threads that reach the
  access (its block's path condition, :mod:`llverify.lowered.guards`) count.
* ``right_elements`` (per TTGIR op, :mod:`llverify.lowered.elements`): the op's instructions move each
  thread's registers to and from the addresses ``S^-1 R`` gives them, every register covered.
* ``lowered_wavefronts`` (:mod:`llverify.lowered.wavefronts`): when the address depends on the thread id only,
  the wavefronts of every warp, measured on every thread's address, equal the layouts' prediction (lemma 9.4).
* ``tma_tiling`` (per TMA op, :mod:`llverify.lowered.tma`) and ``right_elements`` of a conversion
  (:mod:`llverify.lowered.convert`).

Attribution (:mod:`llverify.lowered.attribution`): Triton's ``USE_IR_LOC=ttgir`` points the debug locations at
``.ttgir`` lines, and the access is attributed to the TTGIR op on that line; without it the locations name the
Python source, and the access is attributed to the one op at that source position that may access shared memory.
An access that cannot be attributed is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

from llverify.lowered.assignments import enumerable
from llverify.lowered.attribution import Attribution, attribute, entry_code, op_of_access, tmem_prologue
from llverify.lowered.conditions import PathCondition
from llverify.lowered.convert import convert_elements, function_users
from llverify.lowered.elements import right_elements
from llverify.lowered.guards import control_flow
from llverify.lowered.in_bounds import in_bounds
from llverify.lowered.launch import launch_threads, runs_on_first
from llverify.lowered.llir import Access, LlirError, LlirFunction, LlirModule
from llverify.lowered.orbits import lane_orbit, phi_range
from llverify.lowered.predicates import guard_threads
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.tma import PROPERTY as TMA_PROPERTY
from llverify.lowered.tma import TmaBox, is_tma_copy, operand_error, tma_box
from llverify.lowered.tma import tiling as tma_tiling
from llverify.lowered.stored_values import stored_values
from llverify.lowered.vector import Threads
from llverify.lowered.wavefronts import Predictions, wavefronts_verdict
from llverify.prove.verdict import Verdict
from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Location, Module, Op

#: ops whose first operand is a register tensor they store (``stored_values`` applies)
STORES_A_TENSOR = ("ttg.local_store", "ttg.local_alloc")

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


def same_kernel(module: Module, llir: LlirModule) -> None:
    """Raise :class:`~llverify.lowered.llir.LlirError` when the LLVM IR is not the lowering of the TTGIR: none of
    its defined functions is one of the TTGIR's ``tt.func``s (Triton keeps the kernel's name).  Without this, a
    mismatched pair would be validated, its accesses attributed to whatever ops share their debug lines."""
    kernels = {f.name for f in module.functions}
    defined = {fn.name for fn in llir.functions}
    if kernels and defined and not kernels & defined:
        raise LlirError(f"{llir.path}:1:1: error: the LLVM IR defines {', '.join('@' + n for n in sorted(defined))} but "
                        f"{module.path} defines {', '.join('@' + n for n in sorted(kernels))}: not this TTGIR's "
                        "lowering")


def validate(module: Module, llir: LlirModule, shared_bytes: int) -> list[LoweredFinding]:
    """Every obligation of every shared-memory access (see the module docstring).

    Requires: ``llir`` is ``module``'s lowering (:func:`same_kernel`, checked here)."""
    same_kernel(module, llir)
    threads = module.num_warps * module.threads_per_warp
    attr = attribute(module, llir)
    owners = {id(op): f for f, op, _ in module.walk()}  # op -> its tt.func
    out: list[LoweredFinding] = []
    for fn in llir.functions:
        fn = replace(fn, wave=module.threads_per_warp)  # readfirstlane's wave: 32 lanes on RDNA, 64 on CDNA
        sym = Symbolic(fn, threads, phi_range, lane_orbit)
        vec = Threads(fn, threads)  # every value at every thread, computed once, shared by every access
        flow = control_flow(fn)  # each block's path condition and the divergent values (llverify.lowered.guards)
        launch = launch_threads(fn, llir.attributes, threads)  # warp-specialized kernels launch more
        lvec = vec if launch == threads else Threads(fn, launch)
        predicted = Predictions(module.target)
        choices: dict = {}  # free-variable assignment -> its evaluator (shared by the accesses)
        groups: dict[int, tuple[Op, list[Access]]] = {}
        prologue = tmem_prologue(fn)  # the TMEM allocation prologue's accesses: no op's (lowered.attribution)
        for acc in fn.accesses:
            op = op_of_access(attr, prologue, acc)
            if op is not None:
                groups.setdefault(id(op), (op, []))[1].append(acc)
        # its own evaluators: the TMA tiling evaluates threads 0..threads-1, in_bounds the launch's threads
        boxes, tilings = _tma_boxes(module, fn, groups, threads, vec, {}, llir.path)
        for k, acc in enumerate(fn.accesses):
            out.extend(_access_findings(module, llir, fn, sym, acc, k, threads, shared_bytes, attr, vec, predicted,
                                        choices, flow, lvec, boxes.get(acc.instr.line), prologue))
        fn_users = None
        for op, accs in groups.values():
            subject = f"{op.name} at {module.path}:{op.location.line}: {len(accs)} access(es) in {llir.path}"
            v = None
            if id(op) in tilings:
                v = tilings[id(op)]
            elif op.name == "ttg.convert_layout":
                fn_users = fn_users if fn_users is not None else function_users(fn)  # once per function
                dbgs = attr.dbgs_of(op)
                v = convert_elements(op, fn, sym, accs, threads, module.threads_per_warp, subject, flow, vec,
                                     dbgs, fn_users)
            values = None
            if id(op) not in tilings and op.name != "ttg.convert_layout":
                proved_slots: list = []
                v = right_elements(op, fn, sym, accs, threads, module.threads_per_warp, subject, flow, vec,
                                   proved_slots, legacy_dialect=module.legacy_dialect)
                if proved_slots and op.name in STORES_A_TENSOR and op.operands:
                    values = stored_values(op, owners[id(op)], fn, sym, vec, accs, proved_slots[0], threads, subject,
                                           flow)
            partial = next((a for a in accs if not runs_on_first(flow.of(a.instr), lvec, threads)), None)
            for v in (v, values):
                if v is not None and partial is not None:  # the claim takes threads 0..threads-1 as executing
                    pc = flow.of(partial.instr)
                    v = Verdict("unknown", v.property, subject, None, v.seconds,
                                f"the access at {llir.path}:{partial.instr.line} runs under the path condition "
                                f"{pc.describe()} of block {pc.block or 'entry'}, which is not known to select "
                                f"exactly threads 0..{threads - 1}: not claimed"
                                + (f" ({flow.reason})" if flow.reason else ""))
                if v is not None:
                    out.append(LoweredFinding(Finding(v, v.property, op.name, op.location, op.source, fn.name,
                                                      module.target, index=len(out)),
                                              Location(llir.path, accs[0].instr.line, 1)))
        if attr.ops:  # a conversion lowered through warp shuffles: visible, not claimed
            shuffled: dict[int, tuple[int, Op]] = {}
            for ins in fn.instrs:
                shuffle_op = attr.op_of(ins.dbg) if "shfl.sync" in ins.body else None
                if shuffle_op is not None:
                    shuffled.setdefault(shuffle_op.location.line, (ins.line, shuffle_op))
            for line, (lowered_line, op) in sorted(shuffled.items()):
                if op.name != "ttg.convert_layout" or any(o is op for o, _ in groups.values()):
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
            v = tma_tiling(op, box, tma, fn, threads, module.threads_per_warp, vec, choices, enumerable,
                           guard_threads, subject)
        tilings[id(op)] = v
        for a in tma:
            boxes[a.instr.line] = box if v.status == "proved" else f"its op's {TMA_PROPERTY} is {v.status}: {v.message}"
    return boxes, tilings


def _access_findings(module: Module, llir: LlirModule, fn: LlirFunction, sym: Symbolic, acc: Access, k: int,
                     threads: int, shared_bytes: int, attr: Attribution,
                     vec: Threads, predicted: "Predictions", choices: dict, flow: Any = None,
                     lvec: Threads | None = None, tma: TmaBox | str | None = None,
                     prologue: frozenset[int] = frozenset()) -> list[LoweredFinding]:
    """The findings of one access, ``k``-th of ``fn``: its attribution (when it names no op), ``in_bounds``
    under its block's path condition (``flow``), and ``lowered_wavefronts`` when its address depends on the
    thread id only and exactly the TTGIR's threads run it."""
    loc = llir.locations.get(acc.instr.dbg or "", None)
    op = op_of_access(attr, prologue, acc)
    ttgir_loc = loc if attr.mode == "ttgir" else None  # a source-mode location is a Python line, not a .ttgir one
    where = (op.location if op is not None
             else Location(module.path, ttgir_loc[0] if ttgir_loc else 1, ttgir_loc[1] + 1 if ttgir_loc else 1))
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
    func = next((f.name for f in module.functions if ttgir_loc and f.location.line == ttgir_loc[0]), None)
    if func is None and attr.mode == "source" and loc is not None:  # a default compile: the kernel's `def` line
        func = llir.location_functions.get(acc.instr.dbg or "")
    if op is None and (func is not None or acc.instr.line in prologue):
        # the location names the function itself: code Triton adds to the function, not to one op (the TMEM
        # allocation prologue, warp_specialize's partition dispatch); not attributable to an op
        at = (f"{module.path}:{loc[0] if loc else 0}" if attr.mode != "source" else
              f"{llir.location_files.get(acc.instr.dbg or '', '?')}:{loc[0]}:{loc[1]}" if loc else "?")
        results.append(finding(Verdict("unknown", "attribution", subject, None, 0.0,
                                       entry_code(module, fn, acc, f"@{func}" if func else None, at))))
    elif op is None:
        results.append(finding(Verdict("unknown", "attribution", subject, None, 0.0,
                                       attr.reason(acc.instr.dbg, llir))))
    lvec = vec if lvec is None else lvec  # the launch's threads (more than the TTGIR's in a warp-specialized kernel)
    pc = flow.of(acc.instr) if flow is not None else PathCondition(acc.instr.block, frozenset([frozenset()]), True, True)
    results.append(finding(in_bounds(fn, sym, acc, subject, shared_bytes, vec, lvec, pc, choices, tma,
                                     module.threads_per_warp)))
    # wavefronts of the real addresses (a predicated access: not claimed, the active lanes vary)
    at = vec.value(acc.pointer, 32)
    if not at.free and acc.bytes and acc.guard is None and runs_on_first(pc, lvec, threads):
        v = wavefronts_verdict(at, acc, op, module.target, predicted, subject, threads)
        if v is not None:
            results.append(finding(v))
    return results


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
