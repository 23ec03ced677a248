r"""Path conditions: the condition under which each basic block of a lowered function executes.

Triton's lowering puts shared-memory accesses behind branches on the thread id, the warp id, ``elect.sync``,
a loaded state byte (warp-specialized partitions dispatch with a ``switch``) or a loop's trip count.  An
access is executed only by the threads (and free-variable values) that satisfy its block's condition, so an
obligation quantifies over those only (:mod:`llverify.lowered.validate`).

**What is computed.**  The CFG of the printed IR (terminators ``br``, ``br i1``, ``switch``, ``ret``,
``unreachable``).  An edge ``u -> v`` is a *back edge* when ``v`` dominates ``u``; the other edges form a DAG
(else the CFG is irreducible and nothing is claimed, below).  In topological order of that DAG

    pc(entry) = true,   pc(v) = OR over forward edges u -> v of ( pc(u) AND cond(u -> v) )

with ``cond`` a literal: ``%c == 1`` / ``%c == 0`` for the two sides of ``br i1 %c``, ``%v in {k, ...}`` for a
``switch`` case and ``%v not in {cases}`` for its default.  Conditions are kept in disjunctive normal form,
simplified by absorption and by merging two terms that differ in one literal on the same value
(``X & c | X & !c = X``).  A block ``B`` *control equivalent* to a dominator ``D`` (``B`` post-dominates ``D``)
executes exactly when ``D`` does, and gets ``pc(D)``.  A condition over more than :data:`MAX_TERMS` terms is
replaced by its immediate dominator's.

**Direction of each approximation.**

* A literal's value is an SSA value of the function, evaluated by the same semantics as the addresses
  (thread id, free variables): inside a loop, a loop-carried value is a free variable, so ``pc`` says "in
  *some* iteration"; a back edge's condition is not tracked, so a block in a loop gets its header's entry
  condition (more threads, never fewer: a thread that left the loop is still counted).  A poison branch condition is counted as taken (more threads).
  The immediate dominator's condition is a superset.  Control equivalence assumes every thread that
  reaches ``D`` runs to a ``ret`` (Triton's kernels do; a thread that hangs or traps is counted as
  executing ``B``: more threads).  So ``pc`` **over-approximates** the set of (thread, free values) that
  execute the block: a claim "for every executing thread" (``in_bounds``) checked under ``pc`` can give a
  false alarm, never a false proof.
* Claims about the **exact** set of executing threads (``right_elements``, a conversion's memory replay,
  the wavefronts of a warp-level instruction) need ``pc`` to be exact: :attr:`PathCondition.exact` is false
  for a block of a loop that a thread-dependent branch leaves (threads iterate differently), for a block
  reached from such a loop's exit edge, and where the term limit was hit.
  :attr:`PathCondition.uniform` is true when ``pc`` is exact and every literal is *thread-uniform* (the same
  at every thread of the CTA: built from constants, kernel arguments and block ids, never from the thread
  id, a warp id, a load or an unmodelled value): then every thread executes the block or none does.

**Unreadable control flow** (a terminator other than the above, an irreducible CFG): every block gets
``true`` with ``exact = uniform = False`` (for every thread, as before; exact claims are not made).

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k(i32 %n) {
...   %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
...   %z = icmp eq i32 %t, 0
...   br i1 %z, label %then, label %merge
... then:
...   br label %merge
... merge:
...   ret void
... }''').functions[0]
>>> flow = control_flow(fn)
>>> flow.block("%then").describe(), flow.block("%merge").describe(), flow.block("%then").uniform
('%z == 1', 'true', False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from llverify.lowered.llir import Instr, LlirFunction
from llverify.lowered.concrete import Concrete
from llverify.lowered.decode import INTEGER_OPCODES, LANE_MOVES

__all__ = ["Lit", "PathCondition", "ControlFlow", "control_flow", "launch_threads", "runs_on_first", "launch_parameter",
           "elected", "whichever_lane", "MAX_TERMS"]

MAX_TERMS = 16

_BR1 = re.compile(r"^br\s+label\s+(%[\w$.\-]+)$")
_BR2 = re.compile(r"^br\s+i1\s+(\S+),\s*label\s+(%[\w$.\-]+),\s*label\s+(%[\w$.\-]+)$")
_SWITCH = re.compile(r"^switch\s+(i\d+)\s+(\S+),\s*label\s+(%[\w$.\-]+)\s*\[(.*?)\]?$")
_META = re.compile(r",\s*![\w.]+\s+!\d+")
_CASE = re.compile(r"i\d+\s+(-?\d+),\s*label\s+(%[\w$.\-]+)")
_UNIFORM_CALL = re.compile(r"@llvm\.(?:nvvm\.read\.ptx\.sreg\.(?:ctaid|nctaid|clusterid|nclusterid)\.[xyz]|"
                           r"nvvm\.read\.ptx\.sreg\.cluster\.ctarank|amdgcn\.workgroup\.id\.[xyz])\(")
_REQNTID = re.compile(r'"nvvm\.reqntid"="(\d+)(?:,(\d+))?(?:,(\d+))?"')


@dataclass(frozen=True)
class Lit:
    """The edge is taken when ``value`` (an operand of ``width`` bits) is in ``cases`` (``negated``: is not)."""

    value: str
    width: int
    cases: frozenset[int]
    negated: bool = False

    def key(self) -> tuple[str, int]:
        return (self.value, self.width)

    def holds(self, x: int) -> bool:
        return (x in self.cases) != self.negated

    def describe(self) -> str:
        ks = sorted(self.cases)
        if len(ks) == 1:
            return f"{self.value} {'!=' if self.negated else '=='} {ks[0]}"
        return f"{self.value} {'not in' if self.negated else 'in'} {{{', '.join(map(str, ks))}}}"


Term = frozenset  # a conjunction of Lit
TRUE: frozenset = frozenset([frozenset()])
FALSE: frozenset = frozenset()


def _norm(lit: Lit) -> Lit | None:
    """``lit`` in canonical form; None when it always holds (raises nothing: an empty positive set never holds)."""
    if lit.width == 1:
        cases = frozenset(k for k in (0, 1) if lit.holds(k))
        return None if cases == {0, 1} else Lit(lit.value, 1, cases)
    if lit.negated and not lit.cases:
        return None
    return lit


def _meet(a: Lit, b: Lit) -> Lit | None | bool:
    """``a AND b`` on the same value: a literal, None (always true) or False (never)."""
    if not a.negated and not b.negated:
        r = Lit(a.value, a.width, a.cases & b.cases)
    elif a.negated and b.negated:
        r = Lit(a.value, a.width, a.cases | b.cases, True)
    else:
        pos, neg = (a, b) if not a.negated else (b, a)
        r = Lit(a.value, a.width, pos.cases - neg.cases)
    if not r.negated and not r.cases:
        return False
    return _norm(r)


def _join(a: Lit, b: Lit) -> Lit | None:
    """``a OR b`` on the same value: a literal, or None when it always holds."""
    if not a.negated and not b.negated:
        r = Lit(a.value, a.width, a.cases | b.cases)
    elif a.negated and b.negated:
        r = Lit(a.value, a.width, a.cases & b.cases, True)
    else:
        pos, neg = (a, b) if not a.negated else (b, a)
        r = Lit(a.value, a.width, neg.cases - pos.cases, True)
    return _norm(r)


def _and(terms: frozenset, lit: Lit | None) -> frozenset:
    if lit is None:
        return terms
    out = set()
    for t in terms:
        same = [x for x in t if x.key() == lit.key()]
        if not same:
            out.add(t | {lit})
            continue
        m = _meet(same[0], lit)
        if m is False:
            continue
        rest = t - {same[0]}
        out.add(rest if m is None else rest | {m})
    return _simplify(frozenset(out))


def _simplify(terms: frozenset) -> frozenset:
    """Absorption (drop a term that contains another) and merging (``X & a | X & b = X & (a | b)``)."""
    ts = set(terms)
    changed = True
    while changed:
        changed = False
        for t in sorted(ts, key=len):
            if any(u < t for u in ts):
                ts.discard(t)
                changed = True
        items = sorted(ts, key=lambda t: sorted(map(repr, t)))
        for i, t in enumerate(items):
            for u in items[i + 1:]:
                if len(t) != len(u):
                    continue
                dt, du = t - u, u - t
                if len(dt) == 1 and len(du) == 1:
                    (a,), (b,) = dt, du
                    if a.key() == b.key():
                        j = _join(a, b)
                        ts.discard(t)
                        ts.discard(u)
                        ts.add((t & u) if j is None else (t & u) | {j})
                        changed = True
                        break
            if changed:
                break
    return frozenset(ts)


@dataclass(frozen=True)
class PathCondition:
    """When a block executes: ``terms`` (DNF, a set of conjunctions of :class:`Lit`); ``exact``: no
    over-approximation but the free variables' (see the module docstring); ``uniform``: exact and the same
    at every thread of the CTA (all or none execute)."""

    block: str
    terms: frozenset
    exact: bool
    uniform: bool

    @property
    def trivial(self) -> bool:
        return self.terms == TRUE

    def literals(self) -> list[Lit]:
        return sorted({x for t in self.terms for x in t}, key=repr)

    def describe(self) -> str:
        if self.terms == TRUE:
            return "true"
        if not self.terms:
            return "false"
        parts = [" and ".join(x.describe() for x in sorted(t, key=repr)) for t in self.terms]
        return " or ".join(sorted(f"({p})" if len(self.terms) > 1 and " and " in p else p for p in parts))

    # -- evaluation ---------------------------------------------------------------------------------------
    def threads(self, ev: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(maybe, sure)`` per thread of a :class:`~llverify.lowered.vector.Threads` evaluator: ``maybe``
        where the condition holds or depends on a value not given (a free variable, poison), ``sure`` where
        it holds for certain."""
        n = ev.threads
        maybe, sure = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for t in self.terms:
            tm, ts = np.ones(n, dtype=bool), np.ones(n, dtype=bool)
            for lit in t:
                v = ev.value(lit.value, lit.width)
                hit = np.isin(v.vals, np.array(sorted(lit.cases), dtype=np.uint64)) != lit.negated
                tm &= hit | v.none
                ts &= hit & ~v.none
            maybe |= tm
            sure |= ts
        return maybe, sure

    def term(self, sym: Any) -> Any:
        """The condition as a Z3 Boolean over :class:`~llverify.lowered.symbolic.Symbolic`'s terms (a poison
        branch condition counts as taken)."""
        import z3

        disj = []
        for t in self.terms:
            conj = []
            for lit in t:
                v = sym.value(lit.value, lit.width)
                inside = z3.Or(*[v.term == k for k in sorted(lit.cases)]) if lit.cases else z3.BoolVal(False)
                conj.append(z3.Or(v.poison, z3.Not(inside) if lit.negated else inside))
            disj.append(z3.And(*conj) if conj else z3.BoolVal(True))
        return z3.Or(*disj) if disj else z3.BoolVal(False)

    def free(self, sym: Any) -> frozenset[str]:
        """The free variables the condition depends on (Symbolic's names)."""
        return frozenset().union(*(sym.value(x.value, x.width).free for x in self.literals()))

    def holds(self, replay: Any) -> bool | None:
        """At the thread and free values of a :class:`~llverify.lowered.concrete.Concrete` replay: True when
        the block runs, False when not, None when a literal is poison or needs a value not given."""
        unknown = False
        for t in self.terms:
            ok: bool | None = True
            for lit in t:
                x = replay.value(lit.value, lit.width)
                if x is None:
                    ok = None if ok else ok
                elif not lit.holds(x):
                    ok = False
                    break
            if ok is True:
                return True
            unknown |= ok is None
        return None if unknown else False


_ALWAYS = PathCondition("", TRUE, True, True)


@dataclass(frozen=True)
class ControlFlow:
    """Every block's :class:`PathCondition`; ``reason`` says why control flow was not read (then every
    block's condition is ``true``, neither exact nor uniform).  ``divergent``: the SSA values that may differ
    between threads of the CTA, and ``divergent_phis`` the ``phi`` s whose predecessor may (:class:`_Uniformity`);
    both None when control flow was not read (then nothing is known uniform)."""

    conditions: Mapping[str, PathCondition]
    reason: str = ""
    divergent: frozenset[str] | None = None
    divergent_phis: frozenset[str] | None = None

    def block(self, name: str) -> PathCondition:
        pc = self.conditions.get(name)
        if pc is not None:
            return pc
        if self.reason:
            return PathCondition(name, TRUE, False, False)
        return PathCondition(name, FALSE, True, True)  # not reachable from the entry block

    def of(self, instr: Instr) -> PathCondition:
        return self.block(instr.block)


def launch_threads(fn: LlirFunction, attributes: Mapping[str, str], default: int) -> int:
    """Threads per CTA the kernel is launched with: NVVM's ``"nvvm.reqntid"`` of the function's attribute
    group (Triton 3.9 sets it; a warp-specialized kernel's partitions add warps to the TTGIR's count), else
    ``default``; never less than ``default``."""
    want = default
    for ref in re.findall(r"#(\d+)", fn.header):
        m = _REQNTID.search(attributes.get(ref, ""))
        if m:
            want = max(want, int(m.group(1)) * int(m.group(2) or 1) * int(m.group(3) or 1))
    return want


def _blocks(fn: LlirFunction) -> tuple[list[str], dict[str, list[Instr]]]:
    order: list[str] = []
    body: dict[str, list[Instr]] = {}
    for ins in fn.instrs:
        if ins.block not in body:
            order.append(ins.block)
            body[ins.block] = []
        body[ins.block].append(ins)
    return order, body


def _edges(instrs: list[Instr]) -> list[tuple[str, Lit | None]] | None:
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


def _dominators(order: list[str], preds: Mapping[str, list[str]], entry: str) -> dict[str, set[str]]:
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


class _Uniformity:
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
                    for op in set(_OPERAND.findall(ins.body)):
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


_OPERAND = re.compile(r"%[\w$.\-]+")
_PURE_CALL = re.compile(r"@llvm\.(?:smin|smax|umin|umax|abs|ctpop|ctlz|cttz|fshl|fshr|bitreverse|bswap|"
                        r"vector\.reduce\.\w+)\.")


def _source(ins: Instr) -> bool:
    """Whether an instruction's value may differ between threads whatever its operands."""
    if ins.opcode == "call":
        return not (_UNIFORM_CALL.search(ins.body) or (_PURE_CALL.search(ins.body) and " asm " not in ins.body))
    return ins.opcode not in _PURE_OPS  # load, atomicrmw, cmpxchg, an unread line ('?'), ...


#: Opcodes whose value is a function of their operands alone: the integer ones the semantics evaluates, the lane
#: moves, and pointer, aggregate, ``phi`` and floating-point instructions the semantics does not evaluate.
_PURE_OPS = INTEGER_OPCODES | LANE_MOVES | frozenset(
    "fcmp getelementptr ptrtoint inttoptr bitcast addrspacecast extractvalue insertvalue phi fadd fsub fmul fdiv "
    "frem fneg fpext fptrunc fptoui fptosi uitofp sitofp".split())


def _reach(start: Iterable[str] | str, succs: Mapping[str, list[str]], stop: str | None = None) -> set[str]:
    """Blocks reachable from ``start`` (a block or several) along ``succs``, not going past ``stop``."""
    seen, todo = set(), [start] if isinstance(start, str) else list(start)
    while todo:
        b = todo.pop()
        if b not in seen:
            seen.add(b)
            if b != stop:
                todo.extend(succs.get(b, ()))
    return seen


def _exits(b: str, loop: set[str], succs: Mapping[str, list[str]]) -> bool:
    """Whether block ``b`` of ``loop`` branches out of it (its condition decides how long a thread iterates)."""
    return b in loop and any(s not in loop for s in succs[b])


def control_flow(fn: LlirFunction) -> ControlFlow:
    """Every block's path condition (see the module docstring)."""
    order, body = _blocks(fn)
    if not order:
        return ControlFlow({"": _ALWAYS}, "", *_straight_line_uniformity(fn))
    entry = order[0]
    edges: dict[str, list[tuple[str, Lit | None]]] = {}
    for b in order:
        e = _edges(body[b])
        if e is None:
            return ControlFlow({}, f"the terminator of block {b or 'entry'} is not read")
        if any(t not in body for t, _ in e):
            return ControlFlow({}, f"block {b or 'entry'} branches to a label not found")
        edges[b] = e
    reach = _reach([entry], {b: [t for t, _ in e] for b, e in edges.items()})
    order = [b for b in order if b in reach]
    if all(lit is None for b in order for _, lit in edges[b]):  # no conditional branch: every block runs
        return ControlFlow({b: PathCondition(b, TRUE, True, True) for b in order}, "", *_straight_line_uniformity(fn))
    succs = {b: [t for t, _ in edges[b]] for b in order}
    preds: dict[str, list[str]] = {b: [] for b in order}
    for b in order:
        for t in succs[b]:
            preds[t].append(b)
    dom = _dominators(order, preds, entry)
    back = {(u, v) for u in order for v in succs[u] if v in dom[u]}
    fwd_preds = {b: [p for p in preds[b] if (p, b) not in back] for b in order}
    topo, indeg = [], {b: len(set(fwd_preds[b])) for b in order}
    ready = [entry]
    while ready:
        b = ready.pop(0)
        topo.append(b)
        for t in dict.fromkeys(succs[b]):
            if (b, t) not in back:
                indeg[t] -= 1
                if indeg[t] == 0:
                    ready.append(t)
    if len(topo) != len(order):
        return ControlFlow({}, "the CFG is irreducible")
    # post-dominators over the whole CFG, exits = blocks without successors
    exits = {b for b in order if not succs[b]}
    can_exit = _reach(exits, preds)
    pdom = {b: ({b} if b in exits else set(order)) for b in order}
    changed = True
    while changed:
        changed = False
        for b in reversed(topo):
            if b in exits:
                continue
            ps = [pdom[s] for s in succs[b]]
            new = {b} | set.intersection(*ps)
            if new != pdom[b]:
                pdom[b], changed = new, True
    # natural loops (body of each back edge u -> h)
    loops: list[set[str]] = []
    for u, h in sorted(back):
        loop, todo = {h}, [u]
        while todo:
            x = todo.pop()
            if x not in loop:
                loop.add(x)
                todo.extend(preds[x])
        loops.append(loop)
    forward = {x: [y for y in succs[x] if (x, y) not in back] for x in order}
    latches = {h: sum(1 for _, v in back if v == h) for _, h in back}
    loops_of: dict[str, list[set[str]]] = {}
    for (_, h), loop in zip(sorted(back), loops):
        loops_of.setdefault(h, []).append(loop)
    # uniformity: iterate until the divergent phis are stable
    uni = _Uniformity(fn)
    while True:
        uni.settle()
        divergent = [b for b in order for _, lit in edges[b] if lit is not None and not uni(lit.value)]
        phis: set[str] = set()
        for b in divergent:
            # joins: blocks two arms reach (forward) before they reconverge at b's immediate post-dominator
            after = pdom[b] - {b} if b in can_exit else set()
            stop = max(after, key=lambda d: len(pdom[d])) if after else None
            arms = [_reach(t, forward, stop) for t in dict.fromkeys(succs[b])]
            joins = {x for i, a in enumerate(arms) for c in arms[i + 1:] for x in a & c}
            # arms that go back to a header by different back edges join there
            joins |= {h for h, n in latches.items() if n > 1 and any(b in loop for loop in loops_of[h])}
            leaving = {x for loop in loops if _exits(b, loop, succs) for x in order if x not in loop}  # temporal
            for blk in joins | leaving:
                phis.update(i.result for i in body[blk] if i.opcode == "phi" and i.result)
        if phis <= uni.divergent_phis:
            break
        uni.divergent_phis |= phis
    divergent_set = set(divergent)
    # a loop that a divergent branch leaves: threads iterate differently, later iterations run on fewer
    rough = set().union(*(loop for loop in loops if any(_exits(b, loop, succs) for b in divergent_set))) \
        if loops else set()
    # forward path conditions
    idom: dict[str, str] = {}
    for b in order:
        strict = dom[b] - {b}
        if strict:
            idom[b] = max(strict, key=lambda d: len(dom[d]))
    pcs: dict[str, PathCondition] = {}
    for b in topo:
        if b == entry:
            pcs[b] = PathCondition(b, TRUE, True, True)
            continue
        equivalent = [d for d in dom[b] - {b} if b in pdom[d] and d in can_exit and b in can_exit]
        if equivalent:  # control equivalent to a dominator: runs exactly when it does (threads terminate)
            d = min(equivalent, key=lambda d: len(dom[d]))
            exact = pcs[d].exact and b not in rough  # a loop's later iterations: only its uniform branches
            pcs[b] = PathCondition(b, pcs[d].terms, exact, exact and pcs[d].uniform)
            continue
        terms: set = set()
        exact = b not in rough
        for p in dict.fromkeys(fwd_preds[b]):
            exact &= pcs[p].exact
            for _, lit in (e for e in edges[p] if e[0] == b):
                terms |= _and(pcs[p].terms, _norm(lit) if lit is not None else None)
        t = _simplify(frozenset(terms))
        if len(t) > MAX_TERMS or any(len(x) > MAX_TERMS for x in t):
            t, exact = pcs[idom[b]].terms, False
        uniform = exact and all(uni(x.value) for term in t for x in term)
        pcs[b] = PathCondition(b, t, exact, uniform)
    return ControlFlow(pcs, "", frozenset(uni.divergent), frozenset(uni.divergent_phis))


def _straight_line_uniformity(fn: LlirFunction) -> tuple[frozenset[str], frozenset[str]]:
    """Divergent values of a function without a conditional branch (no ``phi`` can diverge)."""
    uni = _Uniformity(fn)
    uni.settle()
    return frozenset(uni.divergent), frozenset()


def runs_on_first(pc: PathCondition, ev: Any, threads: int) -> bool:
    """Whether the threads that execute a block are exactly ``0 .. threads - 1`` (or, uniformly, all or none
    of them), where ``ev`` evaluates the launch's threads (:class:`~llverify.lowered.vector.Threads`): the
    premise of the obligations that quantify over the TTGIR's ``threads`` as the exact executing set.

    Requires: ``pc`` exact; its literals then decide the set at every thread without free variables."""
    if pc.uniform and ev.threads == threads:
        return True
    if not pc.exact:
        return False
    maybe, sure = pc.threads(ev)
    return bool((maybe == sure).all() and (maybe == (np.arange(ev.threads) < threads)).all())


def launch_parameter(fn: LlirFunction, free: str) -> bool:
    """Whether a free variable (``%3:32``) is a launch parameter, which a launch may set to any value: a
    kernel argument or a block id (a witness may name its value; a loaded or loop-carried one it may not)."""
    base = free.rsplit(":", 1)[0]
    if base.endswith(".choice"):
        return False
    ins = fn.defs.get(base)
    return ins is None or (ins.opcode == "call" and _UNIFORM_CALL.search(ins.body) is not None)


def elected(fn: LlirFunction, free: str) -> bool:
    """Whether a free variable is the predicate of ``llvm.nvvm.elect.sync`` (``extractvalue {i32, i1} %e, 1``):
    true at exactly one lane of the warp, which one unknown."""
    ins = fn.defs.get(free.rsplit(":", 1)[0])
    if ins is None or ins.opcode != "extractvalue" or not re.search(r",\s*1$", ins.body):
        return False
    src = fn.defs.get(ins.body.split()[-2].rstrip(","))
    return src is not None and "@llvm.nvvm.elect.sync(" in src.body


def whichever_lane(fn: LlirFunction, pc: PathCondition, pointer: str, tid: int, values: Mapping[str, int],
                   warp: int) -> bool:
    """Whether a witness that needs ``elect.sync`` predicates (``values`` sets them to 1) is real whichever lane
    is elected: at every lane of ``tid``'s warp, with the same values, the path condition holds and the
    address is the same (the scalar interpreter, lane by lane).  Postcondition: True only if the elected lane,
    whichever it is, reaches the access at that address."""
    if not all(v == 1 for n, v in values.items() if elected(fn, n)):
        return False
    first = tid - tid % warp
    want = None
    for t in range(first, first + warp):
        replay = Concrete(fn, t, dict(values))
        if pc.holds(replay) is not True:
            return False
        got = replay.value(pointer, 32)
        if got is None or (want is not None and got != want):
            return False
        want = got
    return True
