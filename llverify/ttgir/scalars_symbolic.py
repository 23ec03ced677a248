"""Scalar SSA values of a TTGIR function as Z3 bit-vector terms (:class:`SymbolicScalars`).

Where :mod:`llverify.ttgir.scalars` enumerates the exact set of values a name can take, this view keeps
every value it cannot compute (loop block arguments, kernel arguments, loads) as a free variable, so a bound
proved of the term (SMT unsat of its negation) holds for every value of those variables, reachable or not.
Used by the gate's bounds obligations (``memdesc_index`` and subslice offsets) when enumeration gives no set.
"""

from __future__ import annotations

from llverify.ttgir.model import Function, Op
from llverify.ttgir.int_arith import NotComputable, int_width
from llverify.ttgir.scalars import ValueSets

__all__ = ["SymbolicScalars"]


class SymbolicScalars:
    """The same ops as Z3 bit-vector terms, every value it cannot compute (loop block arguments, kernel
    arguments, loads, unmodelled ops) a free variable: a property proved of the term holds for **every**
    value of those variables, reachable or not (so a sat answer proves nothing and is never a refutation).

    >>> from llverify.ttgir.reader import parse_module
    >>> m = parse_module('module attributes {"ttg.num-warps" = 4 : i32} {\\n tt.func @f(%x: i64) {\\n'
    ...                  '  %c3 = arith.constant 3 : i64\\n  %q = arith.divui %x, %c3 : i64\\n'
    ...                  '  %p = arith.muli %q, %c3 : i64\\n  %r = arith.subi %x, %p : i64\\n'
    ...                  '  %i = arith.trunci %r : i64 to i32\\n  tt.return\\n }\\n}\\n')
    >>> SymbolicScalars(m.functions[0]).always_between("%i", 0, 3)
    'unsat'
    >>> SymbolicScalars(m.functions[0]).always_between("%i", 0, 2)
    'sat'
    """

    def __init__(self, fn: Function, vs: ValueSets | None = None) -> None:
        self.vs = vs if vs is not None else ValueSets(fn)
        self._terms: dict[str, object] = {}
        self._arg_widths = self.vs.arg_widths  # kernel arguments, or a partition's block arguments
        self._answers: dict[tuple[str, int, int], str] = {}

    def always_between(self, name: str, lo: int, hi: int) -> str:
        """``"unsat"`` when ``lo <= name < hi`` (signed) for every value of the free variables; else
        ``"sat"``/``"unknown"`` (no claim).  Memoised per (name, lo, hi)."""
        key = (name, lo, hi)
        if key not in self._answers:
            self._answers[key] = self._always_between(name, lo, hi)
        return self._answers[key]

    def _always_between(self, name: str, lo: int, hi: int) -> str:
        import z3

        from llverify.prove.bv import check

        try:
            t = self._term(name, 0)
        except (NotComputable, RecursionError):
            return "unknown"
        w = t.size()
        if not (-(1 << (w - 1)) <= lo and hi <= (1 << (w - 1))):
            return "unknown"
        return check([z3.Or(t < lo, t >= hi)]).status

    def _term(self, name: str, depth: int):  # -> z3.BitVecRef
        import z3

        if depth > 200:
            raise NotComputable("expression too deep")
        if name in self._terms:
            return self._terms[name]
        if name in self.vs.captures and self._arg_widths.get(name):
            try:
                term = z3.BitVecVal(self.vs.fixed_value(name), self._arg_widths[name])
            except NotComputable:
                term = z3.BitVec(f"free{name}", self._arg_widths[name])
            self._terms[name] = term
            return term
        d = self.vs.defs.get(name)
        width = None
        if d is not None and d[0].results:
            width = int_width(d[0].results[d[1]].type.text)
        elif name in self.vs.loop_args:
            loop, k = self.vs.loop_args[name]
            width = int_width(loop.regions[0].blocks[0].arguments[k].type.text)
        elif name in self._arg_widths:
            width = self._arg_widths[name]
        if width is None:
            raise NotComputable(f"the width of {name}")
        term = None
        if d is not None and d[0].name != "scf.for":
            try:
                term = self._op_term(d[0], width, depth)
            except NotComputable:
                term = None
        if term is None:
            term = z3.BitVec(f"free{name}", width)
        self._terms[name] = term
        return term

    def _remainder_of(self, op: Op, depth: int):  # -> z3.BitVecRef | None
        """``x - (x div c) * c`` (either operand order of the product) as ``x rem c`` when ``div`` is
        ``divui`` (URem) or ``divsi`` (SRem): equal for every ``x`` (the definition of the remainder)."""
        import z3

        ops = self.vs.operands_of
        x, prod = ops(op)[:2]
        d = self.vs.defs.get(prod)
        if d is None or d[0].name != "arith.muli":
            return None
        for q, c in (ops(d[0])[:2], ops(d[0])[1::-1]):
            dq = self.vs.defs.get(q)
            if dq is not None and dq[0].name in ("arith.divui", "arith.divsi") and \
                    list(ops(dq[0])[:2]) == [x, c]:
                try:
                    a, b = self._term(x, depth + 1), self._term(c, depth + 1)
                except NotComputable:
                    return None
                cb = z3.simplify(b)
                if not z3.is_bv_value(cb) or cb.as_long() == 0:
                    return None
                return z3.URem(a, b) if dq[0].name == "arith.divui" else z3.SRem(a, b)
        return None

    def _op_term(self, op: Op, w: int, depth: int):  # -> z3.BitVecRef
        import z3

        if op.name == "arith.constant":
            return z3.BitVecVal(self.vs.fixed_result(op), w)
        args = [self._term(o, depth + 1) for o in self.vs.operands_of(op)]
        n = op.name
        if n == "arith.select":
            return z3.If(args[0] == 1, args[1], args[2])
        if n in ("arith.extsi", "arith.extui", "arith.index_cast", "arith.index_castui", "arith.trunci"):
            a = args[0]
            if a.size() >= w:
                return z3.Extract(w - 1, 0, a)
            ext = z3.ZeroExt if n in ("arith.extui", "arith.index_castui") else z3.SignExt
            return ext(w - a.size(), a)
        if n == "arith.cmpi":
            pred = op.text.split("arith.cmpi", 1)[1].strip().split(",")[0].strip()
            a, b = args
            table = {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b, "sge": a >= b,
                     "ult": z3.ULT(a, b), "ule": z3.ULE(a, b), "ugt": z3.UGT(a, b), "uge": z3.UGE(a, b)}
            if pred not in table:
                raise NotComputable(pred)
            return z3.If(table[pred], z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))
        if len(args) != 2:
            raise NotComputable(n)
        a, b = args
        if n in ("arith.divui", "arith.remui", "arith.divsi", "arith.remsi", "arith.shli", "arith.shrui",
                 "arith.shrsi"):
            # a zero divisor or a shift past the width is undefined: only a constant that avoids it is modelled
            c = z3.simplify(b)
            if not z3.is_bv_value(c) or c.as_long() == 0 or (n.startswith("arith.sh") and c.as_long() >= w):
                raise NotComputable("divisor or shift amount not a safe constant")
            ops = {"arith.divui": z3.UDiv, "arith.remui": z3.URem, "arith.divsi": lambda x, y: x / y,
                   "arith.remsi": z3.SRem, "arith.shli": lambda x, y: x << y, "arith.shrui": z3.LShR,
                   "arith.shrsi": lambda x, y: x >> y}
            return ops[n](a, b)
        if n == "arith.subi":
            # x - (x / c) * c is x mod c (unsigned or signed): the remainder form Z3 decides far faster
            rem = self._remainder_of(op, depth)
            if rem is not None:
                return rem
        ops2 = {"arith.addi": lambda: a + b, "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
                "arith.andi": lambda: a & b, "arith.ori": lambda: a | b, "arith.xori": lambda: a ^ b,
                "arith.minsi": lambda: z3.If(a < b, a, b), "arith.maxsi": lambda: z3.If(a > b, a, b),
                "arith.minui": lambda: z3.If(z3.ULT(a, b), a, b), "arith.maxui": lambda: z3.If(z3.UGT(a, b), a, b)}
        if n not in ops2:
            raise NotComputable(n)
        return ops2[n]()
