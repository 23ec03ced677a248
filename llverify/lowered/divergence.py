"""Which SSA values of a lowered function may differ between the threads of a CTA (divergence).

:class:`Uniformity` computes the least set of *divergent* values closed under its rules (a monotone fixpoint
over the instructions): the sources (:func:`_source`: the thread id, a warp broadcast, a load, an atomic,
inline asm, any call but a block id or a pure integer intrinsic, an instruction not read), every value with
a divergent operand, and the ``phi`` s the caller marks divergent (those whose predecessor a divergent branch
decides: :func:`llverify.lowered.guards.control_flow` iterates the two to a fixpoint).

Requires: ``fn`` parsed by :func:`llverify.lowered.llir.parse_llir`.
Postcondition: a value not in ``divergent`` is the same at every thread (given ``divergent_phis`` contains
every ``phi`` a divergent branch decides); the converse need not hold (conservative).
"""

from __future__ import annotations

import re

from llverify.lowered.decode import INTEGER_OPCODES, LANE_MOVES
from llverify.lowered.llir import SSA_REF, Instr, LlirFunction

__all__ = ["Uniformity", "UNIFORM_CALL", "straight_line_divergence"]


#: calls whose value is the same at every thread of the CTA: block and cluster ids
UNIFORM_CALL = re.compile(r"@llvm\.(?:nvvm\.read\.ptx\.sreg\.(?:ctaid|nctaid|clusterid|nclusterid)\.[xyz]|"
                          r"nvvm\.read\.ptx\.sreg\.cluster\.ctarank|amdgcn\.workgroup\.id\.[xyz])\(")


class Uniformity:
    """Which SSA values are the same at every thread of the CTA: the least set of *divergent* values closed
    under its rules (a monotone fixpoint over the function's instructions).  Sources: the thread id, a warp
    broadcast, a load, an atomic, inline asm, any call but a block id or a pure integer intrinsic, an
    instruction not read; a value with a divergent operand; a ``phi`` in ``divergent_phis``: in a block that
    two arms of a divergent branch reach before its immediate post-dominator (where they reconverge; paths
    that meet only after it are not disjoint), in the header of a loop that the branch is in when the loop
    has several back edges, or past a loop the branch leaves (threads leave at different iterations)."""

    def __init__(self, fn: LlirFunction) -> None:
        self.fn = fn
        self.divergent_phis: set[str] = set()
        self.divergent: set[str] = set()
        self._users: dict[str, list[str]] | None = None

    def settle(self) -> None:
        """Recompute the divergent values from the current ``divergent_phis`` (a worklist over users)."""
        if self._users is None:
            self._users = {}
            for ins in self.fn.instrs:
                if ins.result:
                    for op in set(SSA_REF.findall(ins.body)):
                        self._users.setdefault(op, []).append(ins.result)
        div = {i.result for i in self.fn.instrs if i.result and (_source(i) or i.result in self.divergent_phis)}
        todo = list(div)
        while todo:
            for user in self._users.get(todo.pop(), ()):
                if user not in div:
                    div.add(user)
                    todo.append(user)
        self.divergent = div

    def __call__(self, name: str) -> bool:
        return name.partition("#")[0] not in self.divergent




_PURE_CALL = re.compile(r"@llvm\.(?:smin|smax|umin|umax|abs|ctpop|ctlz|cttz|fshl|fshr|bitreverse|bswap|"
                        r"vector\.reduce\.\w+)\.")


def _source(ins: Instr) -> bool:
    """Whether an instruction's value may differ between threads whatever its operands."""
    if ins.opcode == "call":
        return not (UNIFORM_CALL.search(ins.body) or (_PURE_CALL.search(ins.body) and " asm " not in ins.body))
    return ins.opcode not in _PURE_OPS  # load, atomicrmw, cmpxchg, an unread line ('?'), ...


#: Opcodes whose value is a function of their operands alone: the integer ones the semantics evaluates, the lane
#: moves, and pointer, aggregate, ``phi`` and floating-point instructions the semantics does not evaluate.
_PURE_OPS = INTEGER_OPCODES | LANE_MOVES | frozenset(
    "fcmp getelementptr ptrtoint inttoptr bitcast addrspacecast extractvalue insertvalue phi fadd fsub fmul fdiv "
    "frem fneg fpext fptrunc fptoui fptosi uitofp sitofp".split())


def straight_line_divergence(fn: LlirFunction) -> tuple[frozenset[str], frozenset[str]]:
    """Divergent values of a function without a conditional branch (no ``phi`` can diverge)."""
    uni = Uniformity(fn)
    uni.settle()
    return frozenset(uni.divergent), frozenset()
