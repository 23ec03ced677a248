"""Path conditions as values: disjunctions of conjunctions of branch literals, and their evaluation.

A :class:`Lit` says that an SSA value lies in (or outside) a set of constants: ``%c == 1`` / ``%c == 0`` for
the two sides of ``br i1 %c``, ``%v in {k, ...}`` for a ``switch`` case, ``%v not in {cases}`` for its default.
A condition is a set of terms (disjunctive normal form), each term a set of literals (a conjunction), at
most one literal per value.  :func:`conjoin` adds a literal to every term (meeting the term's literal on
the same value: the intersection of the sets), :func:`simplify` applies absorption (a term that contains
another is dropped) and merging (``X & a | X & b = X & (a | b)`` for ``a``, ``b`` on the same value).  Both
are equivalences: the condition holds at exactly the same values before and after.

:class:`PathCondition` is one block's condition, evaluated at every thread (numpy), as a Z3 Boolean, or at
one replayed thread; :class:`ControlFlow` holds every block's (:func:`llverify.lowered.guards.control_flow`
computes them).

>>> a, b = Lit("%c", 1, frozenset([1])), Lit("%c", 1, frozenset([0]))
>>> simplify(conjoin(TRUE, a) | conjoin(TRUE, b)) == TRUE
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from llverify.lowered.llir import Instr

__all__ = ["Lit", "TRUE", "FALSE", "normalize", "conjoin", "simplify", "PathCondition", "ControlFlow"]


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


def normalize(lit: Lit) -> Lit | None:
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
    return normalize(r)


def _join(a: Lit, b: Lit) -> Lit | None:
    """``a OR b`` on the same value: a literal, or None when it always holds."""
    if not a.negated and not b.negated:
        r = Lit(a.value, a.width, a.cases | b.cases)
    elif a.negated and b.negated:
        r = Lit(a.value, a.width, a.cases & b.cases, True)
    else:
        pos, neg = (a, b) if not a.negated else (b, a)
        r = Lit(a.value, a.width, neg.cases - pos.cases, True)
    return normalize(r)


def conjoin(terms: frozenset, lit: Lit | None) -> frozenset:
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
    return simplify(frozenset(out))


def simplify(terms: frozenset) -> frozenset:
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


@dataclass(frozen=True)
class ControlFlow:
    """Every block's :class:`PathCondition`; ``reason`` says why control flow was not read (then every
    block's condition is ``true``, neither exact nor uniform).  ``divergent``: the SSA values that may differ
    between threads of the CTA, and ``divergent_phis`` the ``phi`` s whose predecessor may
    (:class:`~llverify.lowered.divergence.Uniformity`);
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
