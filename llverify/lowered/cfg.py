"""The control-flow graph of a lowered function as Triton prints it: blocks, successor edges with their branch
literals, dominators, reachability.

Terminators read: ``br label``, ``br i1 %c, label %a, label %b`` (a constant condition is an unconditional
branch), ``switch`` (its cases and default), ``ret`` and ``unreachable``; any other terminator is not read
(:func:`branch_edges` returns None and the caller claims nothing about control flow).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from llverify.lowered.conditions import Lit
from llverify.lowered.llir import Instr, LlirFunction

__all__ = ["block_bodies", "branch_edges", "dominators", "reachable", "leaves_loop"]


_BR1 = re.compile(r"^br\s+label\s+(%[\w$.\-]+)$")
_BR2 = re.compile(r"^br\s+i1\s+(\S+),\s*label\s+(%[\w$.\-]+),\s*label\s+(%[\w$.\-]+)$")
_SWITCH = re.compile(r"^switch\s+(i\d+)\s+(\S+),\s*label\s+(%[\w$.\-]+)\s*\[(.*?)\]?$")
_META = re.compile(r",\s*![\w.]+\s+!\d+")
_CASE = re.compile(r"i\d+\s+(-?\d+),\s*label\s+(%[\w$.\-]+)")


def block_bodies(fn: LlirFunction) -> tuple[list[str], dict[str, list[Instr]]]:
    """The labels of ``fn``'s blocks in program order (``""``: an unlabelled entry block) and each block's
    instructions."""
    order: list[str] = []
    body: dict[str, list[Instr]] = {}
    for ins in fn.instrs:
        if ins.block not in body:
            order.append(ins.block)
            body[ins.block] = []
        body[ins.block].append(ins)
    return order, body


def branch_edges(instrs: list[Instr]) -> list[tuple[str, Lit | None]] | None:
    """The successors of a block with each edge's literal (None: unconditional); None when the terminator
    is not read."""
    for k, ins in enumerate(instrs):
        if ins.opcode == "switch":
            text = " ".join(i.body for i in instrs[k:])
            m = _SWITCH.match(text.split("]")[0] + "]")
            if m is None:
                return None
            w, v, default = int(m.group(1)[1:]), m.group(2), m.group(3)
            cases: dict[str, set[int]] = {}
            for c, label in _CASE.findall(m.group(4)):
                cases.setdefault(label, set()).add(int(c) % (1 << w))
            every = frozenset().union(*cases.values()) if cases else frozenset()
            out: list[tuple[str, Lit | None]] = [(lab, Lit(v, w, frozenset(cs))) for lab, cs in cases.items()]
            out.append((default, Lit(v, w, every, True)))
            return out
    last = instrs[-1]
    if last.opcode in ("ret", "unreachable"):
        return []
    text = _META.sub("", last.body).strip()  # `br label %h, !llvm.loop !82`
    m = _BR1.match(text)
    if m:
        return [(m.group(1), None)]
    m = _BR2.match(text)
    if m:
        c = m.group(1)
        if c in ("true", "false"):
            return [(m.group(2) if c == "true" else m.group(3), None)]
        return [(m.group(2), Lit(c, 1, frozenset([1]))), (m.group(3), Lit(c, 1, frozenset([0])))]
    return None


def dominators(order: list[str], preds: Mapping[str, list[str]], entry: str) -> dict[str, set[str]]:
    """``dom[b]``: the blocks on every path from ``entry`` to ``b`` (``b`` included), the greatest fixpoint of
    ``dom[entry] = {entry}``, ``dom[b] = {b} | AND over predecessors p of dom[p]`` (iterated to stability)."""
    every = set(order)
    dom = {b: ({b} if b == entry else set(every)) for b in order}
    changed = True
    while changed:
        changed = False
        for b in order:
            if b == entry:
                continue
            ps = [dom[p] for p in preds[b] if p in dom]
            new = {b} | (set.intersection(*ps) if ps else set())
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def reachable(start: Iterable[str] | str, succs: Mapping[str, list[str]], stop: str | None = None) -> set[str]:
    """Blocks reachable from ``start`` (a block or several) along ``succs``, not going past ``stop``."""
    seen, todo = set(), [start] if isinstance(start, str) else list(start)
    while todo:
        b = todo.pop()
        if b not in seen:
            seen.add(b)
            if b != stop:
                todo.extend(succs.get(b, ()))
    return seen


def leaves_loop(b: str, loop: set[str], succs: Mapping[str, list[str]]) -> bool:
    """Whether block ``b`` of ``loop`` branches out of it (its condition decides how long a thread iterates)."""
    return b in loop and any(s not in loop for s in succs[b])
