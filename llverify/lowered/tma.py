"""TMA copies in the lowered code: each message's box footprint, and the boxes of one op tiling its buffer.

A TMA copy (``cp.async.bulk.tensor`` / ``cp.reduce.async.bulk.tensor`` inline assembly) reads or writes, at its
shared address, one *box* of ``boxDim[d]`` elements per dim laid out densely: ``prod(boxDim) * bytes`` bytes
(the 128/64/32-byte swizzle permutes 16-byte chunks inside the box's footprint, which keeps its byte range).
The box dims are in the tensor map, not in the asm; Triton 3.9 derives them from the shared buffer's type
(``getTMABlockShape``, ``llverify.hw.shared.tma_block_shape``): the per-CTA block, every dim clipped to 256,
the contiguous dim (the last; the first when ``transposed``) set to one swizzle row,
``8 * swizzlingByteWidth / elementBitWidth`` elements.  A block larger than the box is copied as several
messages, ``prod(block[d] / box[d])`` boxes (issued by lane ``elect.sync`` of successive warps), the ``k``-th
at ``base + k * box_bytes`` (the NVMMA layout grows the box over the block, so each box is contiguous).
Example: a 64x128 f16 store through a 128-byte swizzle is two 64x64 boxes of 8192 bytes.

The rule is not trusted on its own: :func:`tiling` checks, for one TTGIR op, that the boxes its instructions
issue are exactly ``{b + k * box_bytes : k < count}`` for some ``b`` (every issuing thread's address evaluated
at every thread and every assignment of the free variables): a box rule that is too small or too large, or
a count that is wrong, gives other start addresses and is caught.  Together with ``in_bounds`` of each message
over ``[address, address + box_bytes)`` this bounds every byte the op moves.  ``elect.sync`` picks one lane of
each warp: when a predicate uses it, the rest of the predicate and the address must be the same on every
lane of the warp (else which lane issues is not determined: ``unknown``), and the warp issues one box.

Not modelled (``unknown`` with the reason): gather/scatter and im2col modes, multi-CTA layouts (CTA split),
``fp4Padded`` buffers, a block shape that differs from the buffer's, encodings other than NVMMA shared.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from llverify.errors import LlverifyError
from llverify.hw.shared import tma_block_shape
from llverify.lowered.llir import Access, LlirFunction, asm_call
from llverify.lowered.remainder import base_assignment
from llverify.lowered.concrete import Concrete
from llverify.lowered.decode import Unmodelled, const_value, decoded
from llverify.lowered.vector import Threads, VecValue
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import element_bits
from llverify.ttgir.model import Op

__all__ = ["TMA_OPS", "TmaBox", "is_tma_copy", "tma_box", "operand_error", "tiling", "PROPERTY"]

PROPERTY = "tma_tiling"

#: TTGIR ops whose lowering issues tiled TMA messages on one NVMMA buffer
TMA_OPS = frozenset({"ttng.async_tma_copy_global_to_local", "ttng.async_tma_copy_local_to_global",
                     "ttng.async_tma_reduce"})

_TENSOR_COPY = re.compile(r"\bcp(?:\.reduce)?\.async\.bulk\.tensor\.")
_SHARED_DST = re.compile(r"\.tensor\.\d+d\.shared::(?:cta|cluster)\.global\b")
_SHARED_SRC = re.compile(r"\.tensor\.\d+d\.global\.shared::cta\b")
_EXTRACT_PRED = re.compile(r"^extractvalue\s+\{\s*i32,\s*i1\s*\}\s+(%[\w$.\-]+),\s*1$")
_AND_I1 = re.compile(r"^and\s+i1\s+(%[\w$.\-]+|true|false),\s*(%[\w$.\-]+|true|false)$")
_OTHER_MODES = ("gather4", "scatter4", "im2col", "multicast")


@dataclass(frozen=True)
class TmaBox:
    """The box each message of a TMA op moves: ``box`` elements per dim of ``bits``-bit elements,
    ``box_bytes`` bytes; ``count`` messages tile the ``buffer_bytes`` of the op's shared buffer."""

    box: tuple[int, ...]
    bits: int
    box_bytes: int
    count: int
    buffer_bytes: int

    def describe(self) -> str:
        return (f"TMA box {'x'.join(map(str, self.box))} of {self.bits}-bit elements ({self.box_bytes} bytes), "
                f"{self.count} per op")


def is_tma_copy(acc: Access) -> bool:
    """Whether ``acc`` is a tensor TMA copy or reduction (its shared footprint is a box)."""
    return acc.kind == "asm" and _TENSOR_COPY.search(acc.instr.body) is not None


def operand_error(acc: Access) -> str | None:
    """Why the access's pointer is not the PTX's shared operand of a TMA copy (the destination ``[$k]`` of
    ``.shared::cta.global``, the source of ``.global.shared::cta``), or None when it is."""
    call = asm_call(acc.instr.body)
    if call is None:
        return "the inline asm is not read"
    asm, constraints, args = call
    if any(mode in asm for mode in _OTHER_MODES):
        return "a gather/scatter, im2col or multicast TMA message: its box is not the tile rule's"
    brackets = re.findall(r"\[\s*\$(\d+)", asm)
    if _SHARED_DST.search(asm):
        slot = brackets[0] if brackets else None
    elif _SHARED_SRC.search(asm):
        slot = brackets[1] if len(brackets) > 1 else None
    else:
        return "the copy's direction (.shared::cta.global or .global.shared::cta) is not read"
    outputs = sum(1 for c in constraints.split(",") if c.strip().startswith("="))
    k = None if slot is None else int(slot) - outputs
    if k is None or not 0 <= k < len(args) or args[k].split()[-1] != acc.pointer:
        return "the access's pointer is not the shared operand of the TMA message"
    return None


def tma_box(op: Op, num_ctas: int) -> TmaBox | str:
    """The box of ``op``'s messages by Triton 3.9's rule (module docstring), or why it is not established."""
    if op.name not in TMA_OPS:
        return f"{op.name} is not a tiled TMA copy llverify models"
    types = [t for t in op.operand_types if t is not None]
    desc = next((t for t in types if t.kind == "tensordesc"), None)
    mem = next((t for t in types if t.kind == "memdesc"), None)
    if desc is None or mem is None or not mem.shape:
        return "the descriptor or the shared buffer type is not read"
    enc = mem.encoding or {}
    if enc.get("kind") != "nvmma_shared":
        return f"the buffer's encoding is {enc.get('kind') or mem.encoding_text!r}, not nvmma_shared"
    if num_ctas != 1 or enc.get("cga_layout") or enc.get("cta_split_num"):
        return "a multi-CTA layout: the per-CTA block is not modelled"
    if enc.get("fp4_padded"):
        return "an fp4Padded buffer: its padded bytes are not modelled"
    if tuple(desc.shape) != tuple(mem.shape):
        return f"the descriptor's block {list(desc.shape)} differs from the buffer's shape {list(mem.shape)}"
    bits = element_bits(mem.element)
    if bits <= 0 or bits % 8 or enc.get("element_bitwidth", bits) != bits:
        return f"element {mem.element!r} does not match the encoding's element width"
    try:
        box = tma_block_shape(mem.shape, bits, int(enc.get("swizzle_byte_width", 0)), False,
                              bool(enc.get("transposed", False)))
    except LlverifyError as exc:
        return str(exc)
    if any(s % b for s, b in zip(mem.shape, box)):
        return f"the box {box} does not divide the buffer's shape {list(mem.shape)}"
    count = math.prod(s // b for s, b in zip(mem.shape, box))
    box_bytes = math.prod(box) * bits // 8
    return TmaBox(tuple(box), bits, box_bytes, count, math.prod(mem.shape) * bits // 8)


def _is_elect(fn: LlirFunction, free: str) -> bool:
    """Whether the free variable ``free`` (``%5:1``) is the predicate of ``llvm.nvvm.elect.sync``."""
    name, _, width = free.rpartition(":")
    ins = fn.defs.get(name)
    m = _EXTRACT_PRED.match(ins.body) if width == "1" and ins is not None and ins.opcode == "extractvalue" else None
    src = fn.defs.get(m.group(1)) if m else None
    return src is not None and "@llvm.nvvm.elect.sync(" in src.body


_UNIFORM_OPS = frozenset({"icmp", "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "zext", "sext",
                           "trunc", "select", "udiv", "sdiv", "urem", "srem", "smin", "smax", "umin", "umax", "copy",
                           "bitreverse"})


def _uniform(fn: LlirFunction, name: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``name`` has one value for all threads of a CTA: built by arithmetic (no ``phi``, load, call or
    thread id) from constants and kernel arguments only (a conservative, syntactic test)."""
    if const_value(name, 64) is not None:
        return not name.startswith("@") or name == "@global_smem"
    ins = fn.defs.get(name)
    if ins is None:
        return name.startswith("%") and "#" not in name  # a kernel argument
    if name in seen:
        return False
    try:
        d = decoded(ins, "")
    except Unmodelled:
        return False
    return d.op in _UNIFORM_OPS and all(_uniform(fn, x, seen | {name}) for x in d.args)


def _conjuncts(fn: LlirFunction, name: str) -> list[str]:
    """The leaves of the ``and i1`` tree rooted at ``name``."""
    ins = fn.defs.get(name)
    m = _AND_I1.match(ins.body) if ins is not None and ins.opcode == "and" else None
    return _conjuncts(fn, m.group(1)) + _conjuncts(fn, m.group(2)) if m else [name]


def _guard_parts(fn: LlirFunction, ev: Threads, a: Access, guard_of: "GuardOf") -> list[VecValue]:
    """The predicate of ``a`` at every thread, as the values whose conjunction (or, for ``@!p``, whose
    ``p``) turns it on; ``[]`` when it always runs.  Conjuncts the same for every thread of the CTA
    (:func:`_uniform`: a test of kernel arguments, such as a pipeline prologue's ``K > 0``) are left out: when
    such a conjunct is false no thread issues the message, which the tiling allows; when it is true the
    message's issuers are those of the other conjuncts."""
    if a.guard is None:
        return []
    name, negated = a.guard
    if negated or name in ("true", "false"):
        g = guard_of(ev, a)
        return [] if g is None else [g]
    return [ev.value(leaf, 1) for leaf in _conjuncts(fn, name) if not _uniform(fn, leaf)]


GuardOf = Callable[[Threads, Access], "VecValue | None"]
Enumerate = Callable[[list, LlirFunction], "list[dict[str, int]] | None"]


def tiling(op: Op, box: TmaBox, accs: Sequence[Access], fn: LlirFunction, threads: int, lanes: int,
           base: Threads, choices: dict, enumerate_: Enumerate, guard_of: GuardOf, subject: str) -> Verdict:
    """``tma_tiling`` of ``op``: at every assignment of the free variables (``enumerate_``; ``elect.sync``
    predicates 1, see the module docstring) the messages its accesses ``accs`` issue start exactly at
    ``b + k * box.box_bytes`` for ``k < box.count``, one each (or none is issued: the op is predicated off).
    Requires: ``accs`` are the op's TMA accesses whose pointer is the shared operand (:func:`operand_error`)."""
    t0 = time.perf_counter()

    def unknown(msg: str) -> Verdict:
        return Verdict("unknown", PROPERTY, subject, None, time.perf_counter() - t0, msg)

    frees: set[str] = set()
    in_addresses: set[str] = set()
    for a in accs:
        in_addresses |= base.value(a.pointer, 32).free
        for g in _guard_parts(fn, base, a, guard_of):
            frees |= g.free
    frees |= in_addresses
    # elect.sync predicates that only guard (one lane per warp); one an address uses is enumerated as any other
    elect = {f for f in frees - in_addresses if _is_elect(fn, f)}
    combos = enumerate_(sorted(frees - elect), fn)
    if combos is None:
        return unknown(f"the messages depend on free variables that are not enumerable: {sorted(frees - elect)}")
    issued_at = 0
    for combo in combos:
        full = {**combo, **{e: 1 for e in elect}}
        key = tuple(sorted(full.items()))
        if key not in choices:
            choices[key] = Threads(fn, threads, full)
        ev = choices[key]
        issues: list[tuple[int, int, int]] = []  # (address, thread, llir line)
        for a in accs:
            at = ev.value(a.pointer, 32)
            parts = _guard_parts(fn, ev, a, guard_of)
            on = np.ones(threads, dtype=bool)
            negated = a.guard is not None and a.guard[1] and a.guard[0] not in ("true", "false")
            for g in parts:
                if g.none.any():
                    return unknown(f"the predicate of line {a.instr.line} may be poison or unmodelled at thread "
                                   f"{int(np.flatnonzero(g.none)[0])} ({_show(combo)})")
                on &= g.vals == (0 if negated else 1)
            if (at.none & on).any():
                return unknown(f"the address of line {a.instr.line} is poison or unmodelled at thread "
                               f"{int(np.flatnonzero(at.none & on)[0])} ({_show(combo)})")
            if any(g.free & elect for g in parts):
                for w in range(threads // lanes):
                    sl = slice(w * lanes, (w + 1) * lanes)
                    won, wat = on[sl], at.vals[sl]
                    if not won.any():
                        continue
                    if not won.all() or len(set(wat.tolist())) != 1:
                        return unknown(f"line {a.instr.line}: the predicate or the address differs between the "
                                       f"lanes of warp {w} that elect.sync may choose ({_show(combo)})")
                    issues.append((int(wat[0]), w * lanes, a.instr.line))
            else:
                issues.extend((int(at.vals[t]), int(t), a.instr.line) for t in np.flatnonzero(on))
        if not issues:
            continue  # predicated off at this assignment: no message
        issued_at += 1
        starts = sorted(i[0] for i in issues)
        want = [starts[0] + k * box.box_bytes for k in range(box.count)]
        if starts != want:
            return _refute(subject, t0, fn, combo, full, issues, want, box)
    if not issued_at:
        return unknown("no thread issues the op's messages at any assignment of the free variables")
    n = len(combos)
    return Verdict("proved", PROPERTY, subject, "exhaustive", time.perf_counter() - t0,
                   f"the messages are {box.count} box(es) at base + k * {box.box_bytes}, tiling the op's "
                   f"{box.buffer_bytes}-byte buffer ({box.describe()}), at every thread"
                   + (f" and all {n} assignments of {', '.join(sorted(frees - elect))}" if frees - elect else "")
                   + (" (elect.sync: one lane of each warp)" if elect else ""),
                   certificate={"threads_evaluated": threads, "assignments": n},
                   details={"box": list(box.box), "box_bytes": box.box_bytes, "count": box.count,
                            "buffer_bytes": box.buffer_bytes})


def _show(combo: dict[str, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(combo.items())) or "no free variable"


def _refute(subject: str, t0: float, fn: LlirFunction, combo: dict[str, int], full: dict[str, int],
            issues: list[tuple[int, int, int]], want: list[int], box: TmaBox) -> Verdict:
    """The issued start addresses are not the tiling ``want``: each replayed by a fresh interpreter; refuted when
    no free variable other than ``elect.sync``'s is needed, else ``unknown`` (the values may never occur)."""
    got = sorted(issues)
    for addr, t, line in got:
        acc_ptr = next((a for a in fn.accesses if a.instr.line == line), None)
        again = None if acc_ptr is None else Concrete(fn, t, base_assignment(full)).value(acc_ptr.pointer, 32)
        if again != addr:
            return Verdict("error", PROPERTY, subject, None, time.perf_counter() - t0,
                           f"internal: the interpreter gives {again} at thread {t}, line {line}; evaluation {addr}")
    shown = [{"thread": t, "line": line, "address": addr} for addr, t, line in got]
    msg = (f"the op's messages start at {[g[0] for g in got]}, not at the {box.count} boxes of {box.box_bytes} "
           f"bytes {want} that tile its buffer ({box.describe()})")
    if combo:
        return Verdict("unknown", PROPERTY, subject, "exhaustive", time.perf_counter() - t0,
                       msg + f" at {_show(combo)}, which may never occur")
    return Verdict("refuted", PROPERTY, subject, "exhaustive", time.perf_counter() - t0, msg,
                   Counterexample({"issued": shown}, {"expected_starts": want, "box_bytes": box.box_bytes},
                                  "every issuing thread's address replayed by the concrete LLVM interpreter"))
