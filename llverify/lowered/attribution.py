"""Which TTGIR op a lowered instruction belongs to, read from its debug location, two ways.

* ``USE_IR_LOC=ttgir`` compiles: every ``!DILocation`` names a ``.ttgir`` line, and the instruction belongs to the
  op on that line (mode ``"ttgir"``).
* Default compiles: a ``!DILocation`` names the Python source (``k.py:9:25``), as the TTGIR op's ``loc(...)``
  does.  The instruction is attributed to the op with that source position only when that op is the *only*
  op there that may access shared memory (mode ``"source"``); ops that only compute in registers (elementwise,
  ranges, splats, pointer arithmetic, global loads and stores, memdesc views, control flow) are not candidates,
  and any op this module does not know is one.  A position with several candidates (one Python line lowered to
  a ``local_load`` of ``a`` and one of ``b``) or none, a location inlined from another function, or one whose file
  does not resolve leaves the instruction unattributed, reported ``unknown`` with the candidates: never guessed.
  One refinement keeps it exact: an op that only stores (``local_alloc``, ``local_store``) issues no load, and
  one that only loads (``local_load``) no store, so a load (``ld.shared``, ``ldmatrix``) at a position holding a
  ``local_alloc`` and a ``local_load`` is the ``local_load``'s.  The direction decides only for such one-way
  ops: an op that both stores and loads (a conversion) is attributed only where it is the position's sole
  candidate, so it is never handed a part of its accesses (its stores without its loads would read as
  unwritten memory).

Code the compiler adds at the kernel's entry carries the *function's* location (the ``tt.func`` line, or in a
default compile the ``def`` line: the ``DISubprogram``'s own line), not an op's: it is reported as such, saying
which code it is (:func:`entry_code`).  The one found on real inputs is the **Tensor Memory allocation
prologue** of a Blackwell kernel (``ttng.tmem_alloc``): warp 0 runs ``tcgen05.alloc``, which writes the base
address of the TMEM columns it got to a shared-memory word, and after a barrier every thread loads that word
back.  Those two accesses serve all the module's ``tmem_alloc`` ops at once, so they are never handed to an op
(:func:`tmem_prologue`; if a location put them on another op's line they would still not be that op's).

Example: ``a = tl.load(...)`` on line 9 and ``tl.dot(a, b)`` on line 14 of ``k.py``; the TTGIR's ``local_alloc``
and ``local_load`` of ``a`` carry ``k.py:9:9``, the ``tt.dot`` ``k.py:14:9``: an ``ld.shared`` at ``k.py:9:9``
has two candidates, and is the ``local_load``'s (the ``local_alloc`` only stores); a ``convert_layout`` alone at
``k.py:12:10`` takes the accesses located there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from llverify.lowered.llir import Access, LlirFunction, LlirModule
from llverify.ttgir.model import Module, Op

__all__ = ["Attribution", "attribute", "may_access_shared", "tmem_prologue", "entry_code"]

#: op names (and name prefixes) that never issue a shared-memory access of their own
_REGISTER_ONLY = frozenset({
    "arith.constant", "tt.make_range", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.addptr", "tt.load",
    "tt.store", "tt.get_program_id", "tt.get_num_programs", "tt.trans", "tt.reshape", "tt.join", "tt.split",
    "tt.bitcast", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int", "tt.clampf", "tt.precise_sqrt",
    "tt.precise_divf", "tt.mulhiui", "tt.extern_elementwise", "tt.elementwise_inline_asm", "tt.dot",
    "tt.return", "tt.func", "tt.call", "tt.reduce.return", "tt.scan.return", "tt.make_tensor_ptr", "tt.advance",
    "ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape", "ttg.local_dealloc",
    "ttng.fence_async_shared", "ttg.barrier", "gpu.barrier",
    "amdg.buffer_load", "amdg.buffer_store", "ub.poison"})
_REGISTER_ONLY_PREFIXES = ("arith.", "math.", "scf.", "cf.")
#: ops that only store to shared memory, and ops that only load from it (an access of the other direction is
#: never theirs)
STORE_ONLY = frozenset({"ttg.local_alloc", "ttg.local_store"})
LOAD_ONLY = frozenset({"ttg.local_load"})
#: access kinds (:class:`~llverify.lowered.llir.Access`) by direction; ``asm`` has none known
_LOADS = frozenset({"load", "ldmatrix"})
_STORES = frozenset({"store", "stmatrix"})


def may_access_shared(op: Op) -> bool:
    """Whether ``op`` may issue shared-memory accesses of its own (unknown ops: yes)."""
    return op.name not in _REGISTER_ONLY and not op.name.startswith(_REGISTER_ONLY_PREFIXES)


@dataclass(frozen=True)
class Attribution:
    """``ops``: debug location id -> the candidate ops there (exactly one in mode ``"ttgir"``); ``mode``:
    ``"ttgir"``, ``"source"`` or ``"none"``."""

    ops: Mapping[str, tuple[Op, ...]]
    mode: str

    def op_of(self, dbg: str | None, kind: str = "") -> Op | None:
        """The op an instruction at ``dbg`` belongs to; ``kind``: its access kind (``load``, ``store``, ...),
        which rules out the one-way ops of the other direction (see the module docstring)."""
        cands = self.ops.get(dbg or "", ())
        if len(cands) == 1:
            return cands[0]
        if self.mode != "source" or not cands:
            return None
        if kind in _LOADS:
            left = [c for c in cands if c.name not in STORE_ONLY]
        elif kind in _STORES:
            left = [c for c in cands if c.name not in LOAD_ONLY]
        else:
            return None
        if len(left) == 1 and left[0].name in (LOAD_ONLY if kind in _LOADS else STORE_ONLY):
            return left[0]
        return None

    def dbgs_of(self, op: Op) -> list[str]:
        """The debug location ids whose only candidate is ``op``."""
        return [k for k, c in self.ops.items() if len(c) == 1 and c[0] is op]

    def reason(self, dbg: str | None, llir: LlirModule) -> str:
        """Why the instruction at ``dbg`` has no op (for its ``attribution`` unknown)."""
        if self.mode == "ttgir" or not dbg or dbg not in llir.locations:
            return ("the access could not be attributed to a TTGIR op (compile with USE_IR_LOC=ttgir so debug "
                    "locations name .ttgir lines)")
        line, col = llir.locations[dbg]
        where = f"{llir.location_files.get(dbg, '?')}:{line}:{col}"
        names = [f"{c.name} at line {c.location.line}" for c in self.ops.get(dbg, ())]
        if names:
            return (f"the access's source position {where} is shared by {len(names)} TTGIR ops that may access "
                    f"shared memory ({', '.join(names)}): not attributed (compile with USE_IR_LOC=ttgir so debug "
                    "locations name .ttgir lines)")
        return (f"no TTGIR op that may access shared memory has the access's source position {where} (compile "
                "with USE_IR_LOC=ttgir so debug locations name .ttgir lines)")


def attribute(module: Module, llir: LlirModule) -> Attribution:
    """Every debug location of ``llir`` attributed to at most one op of ``module`` (see the module docstring)."""
    if any(f.endswith(".ttgir") for f in llir.files):
        by_line = {op.location.line: op for _, op, _ in module.walk()}
        return Attribution({k: (by_line[line],) for k, (line, _) in llir.locations.items() if line in by_line},
                           "ttgir")
    at: dict[tuple[str, int, int], list[Op]] = {}
    for _, op, _ in module.walk():
        src = op.source
        if src is not None and src.file and may_access_shared(op):
            at.setdefault((os.path.basename(src.file), src.line, src.col), []).append(op)
    ops: dict[str, tuple[Op, ...]] = {}
    for k, (line, col) in llir.locations.items():
        file = llir.location_files.get(k)
        cands = at.get((os.path.basename(file), line, col)) if file is not None else None
        if cands:
            ops[k] = tuple(cands)
    return Attribution(ops, "source" if at else "none")


def tmem_prologue(fn: LlirFunction) -> frozenset[int]:
    """The ``.llir`` lines of the Tensor Memory allocation prologue's shared accesses (module docstring): every
    ``tcgen05.alloc`` inline asm and every plain ``load`` through the same pointer (the TMEM base read back)."""
    allocs = [a for a in fn.accesses if a.kind == "asm" and "tcgen05.alloc" in a.instr.body]
    slots = {a.pointer for a in allocs}
    return frozenset(a.instr.line for a in fn.accesses if a in allocs or (a.kind == "load" and a.pointer in slots))


def op_of_access(attr: Attribution, prologue: frozenset[int], acc: Access) -> Op | None:
    """The op ``acc`` belongs to (:meth:`Attribution.op_of`), except that the TMEM allocation prologue's accesses
    (``prologue``: :func:`tmem_prologue` of the function) belong to none, whatever op their location names."""
    return None if acc.instr.line in prologue else attr.op_of(acc.instr.dbg, acc.kind)


def entry_code(module: Module, fn: LlirFunction, acc: Access, name: str | None, where: str) -> str:
    """Why an access located at function ``name`` itself (``where``: that location; ``name`` None: a location
    that names no function, for a TMEM prologue access) belongs to no TTGIR op: which code the compiler added."""
    if acc.kind in ("asm", "load") and acc.instr.line in tmem_prologue(fn):
        allocs = [op for _, op, _ in module.walk() if op.name == "ttng.tmem_alloc"]
        lines = ", ".join(str(op.location.line) for op in allocs[:8]) + (", ..." if len(allocs) > 8 else "")
        role = ("warp 0's tcgen05.alloc, which writes the base address of the Tensor Memory it allocated to this "
                "shared-memory word" if acc.kind == "asm" else
                "every thread's read-back, after a barrier, of the Tensor Memory base address that warp 0's "
                "tcgen05.alloc wrote to this shared-memory word")
        owners = (f"the module's {len(allocs)} ttng.tmem_alloc op(s) (line(s) {lines})" if allocs else
                  "the kernel's Tensor Memory (no ttng.tmem_alloc op is in the TTGIR)")
        located = (f"gives it the function's debug location ({where}), so it belongs to no single TTGIR op" if name
                   else f"it belongs to no single TTGIR op, whatever its debug location ({where}) names")
        return (f"Triton's Tensor Memory allocation prologue: {role}; Triton emits it once at the kernel's entry for "
                f"{owners} and {located} (its in_bounds is checked as for any access)")
    if any(op.name == "ttg.warp_specialize" for _, op, _ in module.walk()):
        return (f"the access's debug location names the function {name} ({where}), not one of its ops: code the "
                "compiler adds to the function (such as warp_specialize's partition dispatch), which no TTGIR op's "
                "semantics covers")
    return (f"the access's debug location names the function {name} ({where}), not one of its ops: code the "
            "compiler adds at the function's entry, which no TTGIR op's semantics covers")
