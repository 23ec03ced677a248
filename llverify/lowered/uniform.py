"""Which free variables of the lowered code hold the same value in every thread of the CTA (uniformity).

The semantics (:mod:`llverify.lowered.semantics`, :mod:`llverify.lowered.vector`) leaves some values *free*:
kernel arguments, loop-carried ``phi`` s, which predecessor a ``phi`` came from, values it does not compute
(loads, unmodelled calls, vector ``phi`` lanes).  A free variable is one value shared by all threads.  That is
exact for a per-thread claim (``in_bounds``: each thread's own value is one of all values), but a claim that
relates *different* threads (each instruction moves one fixed register in every thread; bank wavefronts)
is only decided by a uniform assignment when the value really is the same in every thread.  A value that
depends on the thread id (a vector ``phi`` carrying per-thread swizzle offsets out of a loop) is not, and
setting it to one value for all threads can both fake a proof and fake a refutation.

A value is **uniform** when it is computed, through any instructions, from kernel arguments, constants, the
CTA's id (``ctaid`` / ``workgroup.id``) and pure integer intrinsics only, and every ``phi`` on the way has
uniform incoming values and a uniform choice of predecessor.  A ``phi``'s choice may diverge only in a block
that a branch on a non-uniform value controls: for such a branch in block ``D``, the blocks reachable from
``D`` before its post-dominators, and the post-dominators first entered from there (the joins: the
predicated loads Triton's AMD lowering wraps in ``br i1 %mask`` diamonds join there).  Any other ``phi``
(a loop header under a uniform trip count, a join of uniform branches) takes the same predecessor in every
thread.  Roots of non-uniformity: the thread id, the
lane / warp id broadcasts (uniform per warp, not per CTA), loads, atomics, inline asm and every other call.
The analysis is syntactic and conservative: it may call a uniform value non-uniform (then a cross-thread
claim is ``unknown``), never the converse.

Requires: names as the semantics writes free variables (``%x:W``, ``%x.choice:W``, ``%v#k:W``).
Postcondition: every name in :func:`nonuniform` 's complement is the same in every thread of every execution.

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k(i32 %n) {
... entry:
...   %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
...   %a = add i32 %n, 4
...   %b = add i32 %t, %a
...   ret void
... }''').functions[0]
>>> nonuniform(fn, ["%a:32", "%b:32", "%n:32"])
['%b:32']
"""

from __future__ import annotations

import re
from functools import lru_cache

from llverify.lowered.llir import Instr, LlirFunction

__all__ = ["nonuniform"]

_NAME = re.compile(r"%[\w$.\-]+")
_LABEL = re.compile(r"label\s+%[\w$.\-]+")
_INCOMING_LABEL = re.compile(r",\s*%[\w$.\-]+\s*\]")
_UNIFORM_CALLS = re.compile(r"@llvm\.(?:nvvm\.read\.ptx\.sreg\.n?ctaid\.[xyz]|amdgcn\.workgroup\.id\.[xyz]|"
                            r"smin|smax|umin|umax|abs|fshl|fshr|ctpop|ctlz|cttz|bitreverse|bswap)\b")
#: Opcodes whose result is a function of their operands alone (the rest, loads and calls among them, are not).
_PURE_OPCODES = frozenset({"add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem",
                           "srem", "zext", "sext", "trunc", "select", "icmp", "getelementptr", "ptrtoint",
                           "inttoptr", "bitcast", "extractelement", "insertelement", "shufflevector", "phi",
                           "freeze", "extractvalue", "insertvalue", "fadd", "fsub", "fmul", "fdiv", "fcmp",
                           "sitofp", "uitofp", "fptosi", "fptoui", "fpext", "fptrunc", "fneg", "addrspacecast"})


def _operands(instr: Instr) -> list[str]:
    """The SSA names an instruction reads (labels excluded; a ``phi``'s incoming values, not its blocks)."""
    body = _LABEL.sub("", instr.body)
    if instr.opcode == "phi":
        body = _INCOMING_LABEL.sub("]", body)
    return [n for n in _NAME.findall(body) if n != instr.result]


def _is_root(instr: Instr) -> bool:
    """True when the instruction's result may differ between threads whatever its operands are."""
    if instr.opcode == "call":
        return "asm" in instr.body or _UNIFORM_CALLS.search(instr.body) is None
    return instr.opcode not in _PURE_OPCODES


def _cfg(fn: LlirFunction) -> tuple[list[str], dict[str, list[str]]]:
    """The basic blocks of ``fn`` in order and each block's successors (from its terminator's labels)."""
    blocks: list[str] = []
    succ: dict[str, list[str]] = {}
    for ins in fn.instrs:
        if ins.block not in succ:
            blocks.append(ins.block)
            succ[ins.block] = []
        if ins.opcode in ("br", "switch", "indirectbr", "callbr", "invoke"):
            succ[ins.block] = [m.split()[-1] for m in _LABEL.findall(ins.body)]
    for b in blocks:
        succ[b] = [s for s in succ[b] if s in succ]
    return blocks, succ


def _strict_postdominators(blocks: list[str], succ: dict[str, list[str]]) -> dict[str, int] | None:
    """Per block, the bit set (over ``blocks``' indices) of its strict post-dominators; None when some block
    cannot reach the function's exit (post-dominance is then not defined for it)."""
    index = {b: i for i, b in enumerate(blocks)}
    full = (1 << len(blocks)) - 1
    pdom = {b: (1 << index[b]) if not succ[b] else full for b in blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(blocks):
            if not succ[b]:
                continue
            meet = full
            for s in succ[b]:
                meet &= pdom[s]
            new = meet | (1 << index[b])
            if new != pdom[b]:
                pdom[b], changed = new, True
    if any(pdom[b] == full and len(blocks) > 1 and succ[b] for b in blocks):
        return None
    return {b: pdom[b] & ~(1 << index[b]) for b in blocks}


def _divergent_phi_blocks(fn: LlirFunction, divergent: list[Instr]) -> set[str] | None:
    """Blocks whose ``phi`` s may take different predecessors in different threads: for a branch on a
    non-uniform value in block ``D``, every block reachable from ``D``'s successors before one of ``D``'s
    strict post-dominators, and the post-dominators such a path first enters (the joins).  None: unknown
    (every ``phi`` is then treated as divergent)."""
    blocks, succ = _cfg(fn)
    pdoms = _strict_postdominators(blocks, succ)
    if pdoms is None:
        return None
    index = {b: i for i, b in enumerate(blocks)}
    out: set[str] = set()
    for br in divergent:
        stop = pdoms[br.block]
        seen: set[str] = set()
        todo = list(succ[br.block])
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            out.add(b)  # a join (a post-dominator entered from the region) or a block of the region
            if stop >> index[b] & 1:
                continue
            todo.extend(succ[b])
    return out


@lru_cache(maxsize=64)
def _nonuniform_values(fn: LlirFunction) -> tuple[frozenset[str], frozenset[str] | None]:
    """Every SSA name of ``fn`` that may differ between threads, and the names of the ``phi`` s whose choice
    of predecessor may (None: possibly all).  A least fixpoint from the roots; a ``phi`` in a block that a
    branch on a non-uniform value makes divergent is itself a root, and more branches may then diverge."""
    users: dict[str, list[Instr]] = {}
    for ins in fn.instrs:
        for n in _operands(ins):
            users.setdefault(n, []).append(ins)
    bad: set[str] = set()
    todo = [ins.result for ins in fn.instrs if ins.result is not None and _is_root(ins)]
    phis_of: dict[str, list[str]] = {}
    for ins in fn.instrs:
        if ins.opcode == "phi" and ins.result is not None:
            phis_of.setdefault(ins.block, []).append(ins.result)
    divergent_phis: set[str] | None = set()
    while True:
        while todo:
            n = todo.pop()
            if n in bad:
                continue
            bad.add(n)
            todo.extend(u.result for u in users.get(n, ()) if u.result is not None and u.result not in bad)
        branches = [ins for ins in fn.instrs if ins.opcode in ("br", "switch") and
                    any(n in bad for n in _operands(ins))]
        regions = _divergent_phi_blocks(fn, branches) if branches else set()
        now = ({p for ps in phis_of.values() for p in ps} if regions is None else
               {p for b in regions for p in phis_of.get(b, ())})
        todo = [p for p in now if p not in bad]
        divergent_phis = now
        if not todo:
            break
    return frozenset(bad), frozenset(divergent_phis)


def nonuniform(fn: LlirFunction, frees: list[str] | tuple[str, ...]) -> list[str]:
    """The free variables among ``frees`` that may differ between threads (module docstring)."""
    bad, divergent_phis = _nonuniform_values(fn)
    out = []
    for f in frees:
        name = f.rsplit(":", 1)[0]
        if name.endswith(".choice"):
            if name[: -len(".choice")].partition("#")[0] in divergent_phis:
                out.append(f)  # which predecessor ran may differ between threads
            continue
        base = name.partition("#")[0]
        if base in bad:
            out.append(f)
    return out
