"""Range-aware simplification of index expressions, every side condition proved.

The rules (seed 004, section 4.1, Table 1, plus nested floors, which LEGO
leaves alone); ``a``, ``b``, ``d`` are positive integer constants, variables
range over declared half-open intervals:

================================  ==========================  ===============================
pattern                           result                      side condition (proved)
================================  ==========================  ===============================
``(d*q + r) % d``                 ``r % d``                   none (floor semantics)
``(d*q + r) // d``                ``q + r // d``              none
``(d*q + r) // d``                ``q``                       ``0 <= r < d``
``x // a``                        ``0``                       ``0 <= x < a``
``x % a``                         ``x``                       ``0 <= x < a``
``a*(x // a) + x % a``            ``x``                       none
``(x // a) // b``                 ``x // (a*b)``              none (a, b > 0)
``(x % (a*b)) // a``              ``(x // a) % b``            none (a, b > 0)
``(x % (a*b)) % a``               ``x % a``                   none
``(c*x) // (c*k)``, ``(c*x) % (c*k)``  ``x // k``, ``c*(x % k)``   none (c > 0)
``x ^ y`` (and ``x | y``)          ``x + y``                   ``x ^ y == x + y`` on the ranges
``(c*x) ^ (c*y)``                 ``c * (x ^ y)``             c a power of two
================================  ==========================  ===============================

A conditional rule fires only when Z3 proves its condition under the
variables' ranges (:func:`llverify.prove.code.in_range` /
``code_equals_code`` on the printed subexpression, Python semantics); an
unproved (or undecided) condition leaves the expression alone.
Unconditional rules are identities of floor division by positive constants.

:func:`simplify` tries the expression as given and expanded, and keeps the
variant with the fewest operations (LEGO's cost model); the result records
each rewrite and both operation counts.  Example: with ``0 <= i < 3``,
``(3*j + i) // 3`` becomes ``j`` and ``(3*j + i) % 3`` becomes ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import sympy as sp

from llverify.index.expr import BitOr, BitXor, FloorDiv, Modulo, count_ops, to_code
from llverify.prove.code import code_equals_code, in_range

__all__ = ["Rewrite", "Simplified", "SideConditionProver", "simplify", "simplify_expr"]


@dataclass(frozen=True)
class Rewrite:
    """One rule application: ``before -> after``, with the condition that was proved (if any)."""

    rule: str
    before: str
    after: str
    condition: str = ""


@dataclass(frozen=True)
class Simplified:
    """The simplest variant found, its operation count, and how it was reached."""

    expr: sp.Expr
    original: sp.Expr
    ops_before: int
    ops_after: int
    rewrites: tuple[Rewrite, ...]
    variants: Mapping[str, int] = field(default_factory=dict)


class SideConditionProver:
    """Proves side conditions with Z3 under fixed variable ranges (results cached)."""

    def __init__(self, ranges: Mapping[str, tuple[int, int]], rlimit: int | None = None,
                 timeout: float | None = 10.0) -> None:
        self.ranges = {k: (int(a), int(b)) for k, a, b in ((k, *v) for k, v in ranges.items())}
        self.rlimit, self.timeout = rlimit, timeout
        self._cache: dict[tuple, bool] = {}
        self.calls = 0

    def _rng(self, *es: sp.Expr) -> dict[str, tuple[int, int]] | None:
        names = {s.name for e in es for s in e.free_symbols}
        if not names <= set(self.ranges):
            return None
        return {n: self.ranges[n] for n in sorted(names)}

    def in_range(self, e: sp.Expr, lo: int, hi: int) -> bool:
        """Is ``lo <= e < hi`` for every point of the ranges?"""
        if e.is_Integer:
            return lo <= int(e) < hi
        rng = self._rng(e)
        if rng is None:
            return False
        key = ("in", e, lo, hi)
        if key not in self._cache:
            self.calls += 1
            v = in_range(to_code(e), rng, (lo, hi), lang="python", method="smt", rlimit=self.rlimit,
                         timeout=self.timeout)
            self._cache[key] = v.proved
        return self._cache[key]

    def equal(self, a: sp.Expr, b: sp.Expr) -> bool:
        rng = self._rng(a, b)
        if rng is None:
            return False
        key = ("eq", a, b)
        if key not in self._cache:
            self.calls += 1
            v = code_equals_code(to_code(a), to_code(b), rng, lang="python", method="smt", rlimit=self.rlimit,
                                 timeout=self.timeout)
            self._cache[key] = v.proved
        return self._cache[key]


def _pos_int(e: sp.Expr) -> int | None:
    return int(e) if e.is_Integer and e > 0 else None


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class _Simplifier:
    def __init__(self, prover: SideConditionProver) -> None:
        self.p = prover
        self.log: list[Rewrite] = []

    def note(self, rule: str, before: sp.Expr, after: sp.Expr, cond: str = "") -> sp.Expr:
        self.log.append(Rewrite(rule, to_code(before), to_code(after), cond))
        return after

    def run(self, e: sp.Basic, depth: int = 0) -> sp.Basic:
        if e.is_Atom or depth > 60:
            return e
        e = e.func(*[self.run(a, depth + 1) for a in e.args])
        for _ in range(50):
            r = self.step(e)
            if r is None or r == e:
                return e
            e = self.run(r, depth + 1) if not r.is_Atom else r
        return e

    def step(self, e: sp.Basic) -> sp.Basic | None:
        if isinstance(e, FloorDiv):
            return self.floordiv(e)
        if isinstance(e, Modulo):
            return self.modulo(e)
        if isinstance(e, sp.Add):
            return self.add(e)
        if isinstance(e, (BitXor, BitOr)):
            return self.bitop(e)
        return None

    def floordiv(self, e: FloorDiv) -> sp.Expr | None:
        x, a_ = e.args
        a = _pos_int(a_)
        if a is None:
            return None
        if isinstance(x, FloorDiv) and _pos_int(x.args[1]):
            return self.note("(x // a) // b -> x // (a*b)", e, FloorDiv(x.args[0], a * int(x.args[1])))
        if isinstance(x, Modulo) and _pos_int(x.args[1]) and int(x.args[1]) % a == 0:
            m = int(x.args[1])
            return self.note("(x % (a*b)) // a -> (x // a) % b", e, Modulo(FloorDiv(x.args[0], a), m // a))
        if isinstance(x, sp.Add):
            q, r = [], []
            for t in x.args:
                c, rest = t.as_coeff_Mul()
                (q if c.is_Integer and int(c) % a == 0 else r).append(t)
            if q:
                Q = sp.Add(*[t / a for t in q])
                R = sp.Add(*r)
                if R == 0:
                    return self.note("(d*q) // d -> q", e, Q)
                if self.p.in_range(R, 0, a):
                    return self.note("(d*q + r) // d -> q", e, Q, f"0 <= {to_code(R)} < {a}")
                return self.note("(d*q + r) // d -> q + r // d", e, Q + FloorDiv(R, a))
            split = self.common_factor(x, a)
            if split is not None:
                g, Y, R = split
                return self.note("(g*y + r) // (g*k) -> y // k", e, FloorDiv(Y, a // g), f"0 <= {to_code(R)} < {g}")
        c, rest = x.as_coeff_Mul()
        if c.is_Integer and int(c) > 1 and rest != 1:
            c = int(c)
            if c % a == 0:
                return self.note("(c*x) // a -> (c/a)*x", e, (c // a) * rest)
            if a % c == 0:
                return self.note("(c*x) // (c*k) -> x // k", e, FloorDiv(rest, a // c))
        if self.p.in_range(x, 0, a):
            return self.note("x // a -> 0", e, sp.Integer(0), f"0 <= {to_code(x)} < {a}")
        return None

    def common_factor(self, x: sp.Add, a: int) -> tuple[int, sp.Expr, sp.Expr] | None:
        """Split ``x = g*Y + R`` with ``g | a``, ``g > 1`` and ``0 <= R < g`` proved."""
        g = 0
        for t in x.args:
            c = t.as_coeff_Mul()[0]
            if c.is_Integer and int(c) > 1 and a % int(c) != a:
                g = sp.igcd(g, sp.igcd(int(c), a))
        if g <= 1 or g == a:
            return None
        big = [t for t in x.args if t.as_coeff_Mul()[0].is_Integer and int(t.as_coeff_Mul()[0]) % g == 0]
        R = sp.Add(*[t for t in x.args if t not in big])
        if not big or R == 0 or not self.p.in_range(R, 0, g):
            return None
        return g, sp.Add(*[t / g for t in big]), R

    def modulo(self, e: Modulo) -> sp.Expr | None:
        x, a_ = e.args
        a = _pos_int(a_)
        if a is None:
            return None
        if isinstance(x, sp.Add):
            keep = [t for t in x.args if not (t.as_coeff_Mul()[0].is_Integer and int(t.as_coeff_Mul()[0]) % a == 0)]
            if len(keep) < len(x.args):
                return self.note("(d*q + r) % d -> r % d", e, Modulo(sp.Add(*keep), a))
            split = self.common_factor(x, a)
            if split is not None:
                g, Y, R = split
                return self.note("(g*y + r) % (g*k) -> g*(y % k) + r", e, g * Modulo(Y, a // g) + R,
                                 f"0 <= {to_code(R)} < {g}")
        c, rest = x.as_coeff_Mul()
        if c.is_Integer and int(c) > 1 and rest != 1:
            c = int(c)
            if c % a == 0:
                return self.note("(d*q) % d -> 0", e, sp.Integer(0))
            if a % c == 0:
                return self.note("(c*x) % (c*k) -> c*(x % k)", e, c * Modulo(rest, a // c))
        if isinstance(x, Modulo) and _pos_int(x.args[1]) and int(x.args[1]) % a == 0:
            return self.note("(x % (a*b)) % a -> x % a", e, Modulo(x.args[0], a))
        if self.p.in_range(x, 0, a):
            return self.note("x % a -> x", e, x, f"0 <= {to_code(x)} < {a}")
        return None

    def add(self, e: sp.Add) -> sp.Expr | None:
        terms = list(e.args)
        for t in terms:
            c, m = t.as_coeff_Mul()
            if isinstance(m, Modulo) and _pos_int(m.args[1]):
                x, a = m.args
                partner = c * int(a) * FloorDiv(x, a)
                if partner in terms:
                    rest = [u for u in terms if u is not t and u != partner]
                    return self.note("a*(x // a) + x % a -> x", e, sp.Add(c * x, *rest))
        return None

    def bitop(self, e: sp.Basic) -> sp.Expr | None:
        args = list(e.args)
        # common power-of-two factor: (c*x) ^ (c*y) -> c * (x ^ y)
        coeffs = [a.as_coeff_Mul()[0] for a in args]
        if all(c.is_Integer and int(c) > 0 for c in coeffs):
            g = 0
            for c in coeffs:
                g = sp.igcd(g, int(c))
            g2 = 1 << ((g & -g).bit_length() - 1) if g else 1
            if g2 > 1:
                return self.note("(c*x) ^ (c*y) -> c * (x ^ y)", e, g2 * e.func(*[a / g2 for a in args]))
        name = "^" if isinstance(e, BitXor) else "|"
        summed = sp.Add(*args)
        if self.p.equal(e, summed):
            return self.note(f"x {name} y -> x + y (disjoint bits)", e, summed,
                             f"{to_code(e)} == {to_code(summed)}")
        if isinstance(e, BitXor) and 2 < len(args) <= 5:
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    pair = BitXor(args[i], args[j])
                    if self.p.equal(pair, args[i] + args[j]):
                        rest = [a for k, a in enumerate(args) if k not in (i, j)]
                        return self.note("x ^ y -> x + y (disjoint bits)", e, BitXor(args[i] + args[j], *rest),
                                         f"{to_code(pair)} == {to_code(args[i] + args[j])}")
        return None


def simplify_expr(expr: sp.Expr, prover: SideConditionProver) -> tuple[sp.Expr, list[Rewrite]]:
    """One simplification pass (bottom-up, to a fixpoint at every node)."""
    s = _Simplifier(prover)
    out = s.run(sp.sympify(expr))
    return out, s.log


def simplify(expr: sp.Expr, ranges: Mapping[str, "int | tuple[int, int]"], *, rlimit: int | None = None,
             timeout: float | None = 10.0) -> Simplified:
    """Simplify ``expr`` under ``ranges`` (half-open; an int n means ``[0, n)``); keep the cheapest variant."""
    rng = {k: ((0, v) if isinstance(v, int) else (int(v[0]), int(v[1]))) for k, v in ranges.items()}
    prover = SideConditionProver(rng, rlimit, timeout)
    expr = sp.sympify(expr)
    variants: dict[str, tuple[sp.Expr, list[Rewrite]]] = {"as given": (expr, [])}
    variants["simplified"] = simplify_expr(expr, prover)
    expanded = sp.expand(expr)
    if expanded != expr:
        variants["expanded+simplified"] = simplify_expr(expanded, prover)
    best_name = min(variants, key=lambda k: (count_ops(variants[k][0]), len(str(variants[k][0]))))
    best, log = variants[best_name]
    return Simplified(best, expr, count_ops(expr), count_ops(best), tuple(log),
                      {k: count_ops(v[0]) for k, v in variants.items()})
