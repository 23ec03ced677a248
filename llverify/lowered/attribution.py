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

Example: ``a = tl.load(...)`` on line 9 and ``tl.dot(a, b)`` on line 14 of ``k.py``; the TTGIR's ``local_alloc``
and ``local_load`` of ``a`` carry ``k.py:9:9``, the ``tt.dot`` ``k.py:14:9``: an ``ld.shared`` at ``k.py:9:9``
has two candidates, and is the ``local_load``'s (the ``local_alloc`` only stores); a ``convert_layout`` alone at
``k.py:12:10`` takes the accesses located there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

from llverify.lowered.llir import LlirModule
from llverify.ttgir.model import Module, Op

__all__ = ["Attribution", "attribute", "may_access_shared"]

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
