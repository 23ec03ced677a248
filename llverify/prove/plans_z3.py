"""Z3 encodings used by the plan proofs (self-contained, bit-vector terms).

A layout's out dim ``offset`` as a term: ``XOR over set input bits of the
basis`` (definition 4.1, ``If(bit, basis, 0)``), over bit-vector inputs.
"""

from __future__ import annotations

from typing import Sequence

import z3

__all__ = ["linear_term", "parity_dot", "solve_negation", "RLIMIT"]

RLIMIT = 50_000_000


def linear_term(bits: Sequence[z3.BoolRef], columns: Sequence[int], width: int) -> z3.BitVecRef:
    """``XOR_i If(bits[i], columns[i], 0)`` as a ``width``-bit term."""
    acc = z3.BitVecVal(0, width)
    for b, c in zip(bits, columns):
        if c:
            acc = acc ^ z3.If(b, z3.BitVecVal(c, width), z3.BitVecVal(0, width))
    return acc


def parity_dot(q: int, x: z3.BitVecRef, width: int) -> z3.BoolRef:
    """``popcount(q & x) mod 2 == 1`` as a formula."""
    acc = z3.BoolVal(False)
    for i in range(width):
        if q >> i & 1:
            acc = z3.Xor(acc, z3.Extract(i, i, x) == 1)
    return acc


def solve_negation(negated: z3.BoolRef, rlimit: int = RLIMIT) -> tuple[str, z3.ModelRef | None, str]:
    """Check the negation of a claim: ``("unsat"|"sat"|"unknown", model, smtlib)``."""
    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.add(negated)
    res = s.check()
    text = s.to_smt2()
    if res == z3.unsat:
        return "unsat", None, text
    if res == z3.sat:
        return "sat", s.model(), text
    return "unknown", None, text + f"\n; reason: {s.reason_unknown()}"
