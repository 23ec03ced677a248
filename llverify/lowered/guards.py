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

The pieces: :mod:`llverify.lowered.cfg` (blocks, edges, dominators), :mod:`llverify.lowered.conditions` (the
DNF values and their evaluation), :mod:`llverify.lowered.divergence` (which values differ between threads).

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

from llverify.lowered.cfg import block_bodies, branch_edges, dominators, leaves_loop, reachable
from llverify.lowered.conditions import TRUE, ControlFlow, Lit, PathCondition, conjoin, normalize, simplify
from llverify.lowered.divergence import Uniformity, straight_line_divergence
from llverify.lowered.llir import LlirFunction

__all__ = ["control_flow", "MAX_TERMS"]

MAX_TERMS = 16


_ALWAYS = PathCondition("", TRUE, True, True)


def control_flow(fn: LlirFunction) -> ControlFlow:
    """Every block's path condition (see the module docstring)."""
    order, body = block_bodies(fn)
    if not order:
        return ControlFlow({"": _ALWAYS}, "", *straight_line_divergence(fn))
    entry = order[0]
    edges: dict[str, list[tuple[str, Lit | None]]] = {}
    for b in order:
        e = branch_edges(body[b])
        if e is None:
            return ControlFlow({}, f"the terminator of block {b or 'entry'} is not read")
        if any(t not in body for t, _ in e):
            return ControlFlow({}, f"block {b or 'entry'} branches to a label not found")
        edges[b] = e
    reach = reachable([entry], {b: [t for t, _ in e] for b, e in edges.items()})
    order = [b for b in order if b in reach]
    if all(lit is None for b in order for _, lit in edges[b]):  # no conditional branch: every block runs
        return ControlFlow({b: PathCondition(b, TRUE, True, True) for b in order}, "", *straight_line_divergence(fn))
    succs = {b: [t for t, _ in edges[b]] for b in order}
    preds: dict[str, list[str]] = {b: [] for b in order}
    for b in order:
        for t in succs[b]:
            preds[t].append(b)
    dom = dominators(order, preds, entry)
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
    can_exit = reachable(exits, preds)
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
    uni = Uniformity(fn)
    while True:
        uni.settle()
        divergent = [b for b in order for _, lit in edges[b] if lit is not None and not uni(lit.value)]
        phis: set[str] = set()
        for b in divergent:
            # joins: blocks two arms reach (forward) before they reconverge at b's immediate post-dominator
            after = pdom[b] - {b} if b in can_exit else set()
            stop = max(after, key=lambda d: len(pdom[d])) if after else None
            arms = [reachable(t, forward, stop) for t in dict.fromkeys(succs[b])]
            joins = {x for i, a in enumerate(arms) for c in arms[i + 1:] for x in a & c}
            # arms that go back to a header by different back edges join there
            joins |= {h for h, n in latches.items() if n > 1 and any(b in loop for loop in loops_of[h])}
            leaving = {x for loop in loops if leaves_loop(b, loop, succs) for x in order if x not in loop}  # temporal
            for blk in joins | leaving:
                phis.update(i.result for i in body[blk] if i.opcode == "phi" and i.result)
        if phis <= uni.divergent_phis:
            break
        uni.divergent_phis |= phis
    divergent_set = set(divergent)
    # a loop that a divergent branch leaves: threads iterate differently, later iterations run on fewer
    rough = set().union(*(loop for loop in loops if any(leaves_loop(b, loop, succs) for b in divergent_set))) \
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
                terms |= conjoin(pcs[p].terms, normalize(lit) if lit is not None else None)
        t = simplify(frozenset(terms))
        if len(t) > MAX_TERMS or any(len(x) > MAX_TERMS for x in t):
            t, exact = pcs[idom[b]].terms, False
        uniform = exact and all(uni(x.value) for term in t for x in term)
        pcs[b] = PathCondition(b, t, exact, uniform)
    return ControlFlow(pcs, "", frozenset(uni.divergent), frozenset(uni.divergent_phis))


