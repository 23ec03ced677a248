"""The ``smt`` method: the negated claim as a quantifier-free bit-vector query.

Layouts are encoded by :mod:`llverify.prove.bv`; ``unsat`` of the negation
proves the claim, ``sat`` gives a model that :mod:`~llverify.prove.witness`
replays, and an exhausted budget is ``unknown``.  The negations:

* not injective: ``x != x'`` and ``L(x) == L(x')``;
* not surjective: ``exists y`` outside the image.  "``y`` outside the image"
  is quantified (``forall x. L(x) != y``); by linear-algebra duality it is
  equivalent to a parity check ``w`` that vanishes on the image but not on
  ``y``: ``<w, L(e_j)> == 0`` for every in bit ``j`` (which by linearity is
  ``<w, L(x)> == 0`` for all ``x``) and ``<w, y> == 1``.  Quantifier-free;
* not distributed / not memory: a one-hot ``x`` (``x != 0``, ``x & (x-1) ==
  0``) whose image has a forbidden weight, two one-hot inputs with the same
  non-zero image, or one of the two above;
* not equal: ``A(x) != B(x)``; not a conversion: ``A(x) != B(C(x))``;
* not in bounds: ``L(x)[d] >= bound[d]`` for some ``d``;
* masks not a duplicate basis: a collision among inputs with the masked bits
  zero, or data ``L(x)`` outside the span of the unmasked columns (parity
  check as for surjectivity).

Example: ``injective(identity_1d(4, "i", "o") * zeros_1d(2, "i", "o"))`` asks
Z3 for ``x != x' and L(x) == L(x')``; the model ``i = 4, i' = 0`` is replayed
and shrunk.  The query text is kept in the verdict (certificate for proofs,
``details["smt2"]`` otherwise).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import z3

from llverify.layout import LinearLayout
from llverify.prove import bv, witness
from llverify.prove.finding import Finding, proved, refuted, unknown
from llverify.prove.points import in_bit_names, one_hot, unflatten_out
from llverify.prove.replay import replayed_counterexample

__all__ = ["bijective", "conversion", "distributed", "duplicates", "equal", "in_bounds", "injective",
           "memory", "surjective"]

Disjunct = tuple[str, z3.BoolRef, Callable[[z3.ModelRef], Finding]]


def _solve(disjuncts: list[Disjunct], rlimit: int | None, timeout: float | None, what: str) -> Finding:
    """Check ``Or(disjuncts)``; unsat proves ``what``, sat refutes via the first disjunct true in the model."""
    if not disjuncts:
        goal: z3.BoolRef = z3.BoolVal(False)
    else:
        goal = z3.Or(*[d for _, d, _ in disjuncts]) if len(disjuncts) > 1 else disjuncts[0][1]
    r = bv.check(goal, rlimit=rlimit, timeout=timeout)
    if r.status == "unsat":
        return proved(r.certificate(), f"{what}: the negated claim is unsat")
    if r.status == "unknown":
        return unknown(f"Z3 gave up: {r.reason} (rlimit {r.rlimit})", smt2=r.smt2, reason=r.reason)
    # sat: report the first failure in the claim's own order (e.g. the offending column before surjectivity)
    model = r.model
    chosen = next(((d, make) for _, d, make in disjuncts if z3.is_true(model.eval(d, model_completion=True))))
    for _, d, make in disjuncts:
        if d is chosen[0]:
            break
        alone = bv.check(d, rlimit=rlimit, timeout=timeout)
        if alone.status == "sat":
            model, chosen = alone.model, (d, make)
            break
    f = chosen[1](model)
    return Finding(f.status, f.counterexample, f.certificate, f.message, {**f.details, "smt2": r.smt2})


def _eq_all(a: Mapping[str, z3.BitVecRef], b: Mapping[str, z3.BitVecRef]) -> z3.BoolRef:
    return z3.And(*[a[k] == b[k] for k in a]) if a else z3.BoolVal(True)


def _ne_input(L: LinearLayout, x: Mapping[str, z3.BitVecRef], y: Mapping[str, z3.BitVecRef]) -> z3.BoolRef:
    fx, fy = bv.flat_input(L, x), bv.flat_input(L, y)
    return z3.BoolVal(False) if fx is None else fx != fy


def _point(m: z3.ModelRef, L: LinearLayout, x: Mapping[str, z3.BitVecRef]) -> dict[str, int]:
    return bv.model_point(m, {d: x[d] for d in L.in_dim_names})


def _unit_images(L: LinearLayout, allowed: int | None = None) -> list[z3.BitVecRef]:
    """``L(e_j)`` as (constant-folded) flat terms of the encoding, for the allowed in bits."""
    out = []
    for j in range(L.total_in_bits):
        if allowed is None or (allowed >> j) & 1:
            p = one_hot(L, j)
            consts = {d: z3.BitVecVal(p[d], bv.width(s)) for d, s in L.in_dims.items()}
            out.append(bv.flat_output(L, bv.layout_terms(L, consts)))
    return out


def _outside_span(L: LinearLayout, y: z3.BitVecRef, allowed: int | None, tag: str) -> z3.BoolRef:
    """Parity check ``w``: zero on ``L(e_j)`` for allowed ``j``, one on ``y``."""
    w = z3.BitVec(f"w{tag}", L.total_out_bits)
    conds = [bv.parity(w & z3.simplify(c)) == 0 for c in _unit_images(L, allowed)]
    return z3.And(*conds, bv.parity(w & y) == 1)


def _not_surjective(L: LinearLayout) -> list[Disjunct]:
    if L.total_out_bits == 0:
        return []
    y = z3.BitVec("y", L.total_out_bits)

    def make(m: z3.ModelRef) -> Finding:
        pt = unflatten_out(L, m.eval(y, model_completion=True).as_long())
        cx = witness.outside_image(lambda p: {n: p[n] for n in L.out_dim_names}, pt, L, label="y",
                                   note="no input of the layout maps to the output y")
        return refuted(cx, "not surjective: an output outside the image exists")
    return [("surjective", _outside_span(L, y, None, "_surj"), make)]


def _not_injective(L: LinearLayout, masked: int = 0) -> list[Disjunct]:
    if L.total_in_bits == 0:
        return []
    x, x2 = bv.input_vars(L), bv.input_vars(L, suffix="_2")
    cond = z3.And(_ne_input(L, x, x2), _eq_all(bv.layout_terms(L, x), bv.layout_terms(L, x2)))
    allowed = None
    if masked:
        fx, fx2 = bv.flat_input(L, x), bv.flat_input(L, x2)
        mk = z3.BitVecVal(masked, L.total_in_bits)
        cond = z3.And(cond, fx & mk == 0, fx2 & mk == 0)
        allowed = ((1 << L.total_in_bits) - 1) & ~masked

    def make(m: z3.ModelRef) -> Finding:
        cx = witness.collision(L, _point(m, L, x), _point(m, L, x2), allowed=allowed)
        return refuted(cx, "not injective: two inputs share an output")
    return [("injective", cond, make)]


def surjective(L: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    return _solve(_not_surjective(L), rlimit, timeout, "surjective")


def injective(L: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    return _solve(_not_injective(L), rlimit, timeout, "injective")


def bijective(L: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    return _solve(_not_surjective(L) + _not_injective(L), rlimit, timeout, "bijective")


def _bit(L: LinearLayout, j: int) -> str:
    d, i = in_bit_names(L)[j]
    return f"{d}={1 << i}"


def _onehot(v: z3.BitVecRef) -> z3.BoolRef:
    return z3.And(v != 0, v & (v - 1) == 0)


def _column_disjuncts(L: LinearLayout, bad: Callable[[z3.BitVecRef], z3.BoolRef], bad_py: Callable[[int], bool],
                      repeats: bool) -> list[Disjunct]:
    if L.total_in_bits == 0:
        return []
    x = bv.input_vars(L, prefix="c_")
    fx = bv.flat_input(L, x)
    t = bv.flat_output(L, bv.layout_terms(L, x))
    t = t if t is not None else z3.BitVecVal(0, 1)

    def make_bad(m: z3.ModelRef) -> Finding:
        j = m.eval(fx, model_completion=True).as_long().bit_length() - 1
        return refuted(witness.bad_column(L, j, bad_py), f"column {_bit(L, j)} has a forbidden number of "
                       "non-zero bits", column=_bit(L, j))
    out: list[Disjunct] = [("column", z3.And(_onehot(fx), bad(t)), make_bad)]
    if repeats:
        x2 = bv.input_vars(L, prefix="c_", suffix="_2")
        fx2 = bv.flat_input(L, x2)
        t2 = bv.flat_output(L, bv.layout_terms(L, x2))
        t2 = t2 if t2 is not None else z3.BitVecVal(0, 1)

        def make_rep(m: z3.ModelRef) -> Finding:
            j = m.eval(fx, model_completion=True).as_long().bit_length() - 1
            k = m.eval(fx2, model_completion=True).as_long().bit_length() - 1
            j, k = min(j, k), max(j, k)
            return refuted(witness.repeated_column(L, j, k),
                           f"columns {_bit(L, j)} and {_bit(L, k)} are the same non-zero column", column=_bit(L, k))
        out.append(("repeat", z3.And(_onehot(fx), _onehot(fx2), fx != fx2, t == t2, t != 0), make_rep))
    return out


def distributed(L: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    cols = _column_disjuncts(L, lambda t: t & (t - 1) != 0, lambda k: k > 1, True)
    return _solve(cols + _not_surjective(L), rlimit, timeout, "distributed")


def memory(L: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    def bad(t: z3.BitVecRef) -> z3.BoolRef:
        u = t & (t - 1)
        return z3.Or(t == 0, u & (u - 1) != 0)
    cols = _column_disjuncts(L, bad, lambda k: k not in (1, 2), False)
    return _solve(cols + _not_surjective(L) + _not_injective(L), rlimit, timeout, "memory layout")


def _differ(A: LinearLayout, lhs: Mapping[str, z3.BitVecRef], rhs: Mapping[str, z3.BitVecRef],
            x: Mapping[str, z3.BitVecRef], sides: Mapping[str, Any], extra: Mapping[str, Any] | None,
            what: str) -> list[Disjunct]:
    if not lhs:
        return []
    cond = z3.Or(*[lhs[k] != rhs[k] for k in lhs])

    def make(m: z3.ModelRef) -> Finding:
        cx = replayed_counterexample(sides, _point(m, A, x), extra=extra)
        return refuted(cx, f"{what} differ")
    return [("differ", cond, make)]


def equal(A: LinearLayout, B: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    x = bv.input_vars(A)
    d = _differ(A, bv.layout_terms(A, x), bv.layout_terms(B, x), x, {"A(x)": A.apply, "B(x)": B.apply}, None,
                "the layouts")
    return _solve(d, rlimit, timeout, "equal")


def conversion(A: LinearLayout, B: LinearLayout, C: LinearLayout, rlimit: int | None = None,
               timeout: float | None = None) -> Finding:
    x = bv.input_vars(A)
    c = bv.layout_terms(C, x)
    y = {k: (bv.fit(c[k], bv.width(s)) if s > 1 else z3.BitVecVal(0, 1)) for k, s in B.in_dims.items()}
    def bcx(p):  # type: ignore[no-untyped-def]
        return B.apply(C.apply(p))
    d = _differ(A, bv.layout_terms(A, x), bv.layout_terms(B, y), x, {"A(x)": A.apply, "B(C(x))": bcx},
                {"C(x)": C.apply}, "A and B o C")
    return _solve(d, rlimit, timeout, "conversion")


def contained(A: LinearLayout, B: LinearLayout, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    """Every ``A(x)`` lies in ``B``'s image: no ``x`` and parity check ``w`` separating ``A(x)`` from it."""
    if A.total_in_bits == 0 or A.total_out_bits == 0:
        return _solve([], rlimit, timeout, "a conversion exists")
    x = bv.input_vars(A)
    y = bv.flat_output(A, bv.layout_terms(A, x))

    def make(m: z3.ModelRef) -> Finding:
        cx = witness.outside_image(A.apply, _point(m, A, x), B, label="A(x)",
                                   note="no input of B holds the element A(x): no conversion exists")
        return refuted(cx, "no conversion exists: A reaches an element that B never holds")
    return _solve([("outside", _outside_span(B, y, None, "_cvt"), make)], rlimit, timeout, "a conversion exists")


def in_bounds(L: LinearLayout, bounds: Mapping[str, int], rlimit: int | None = None,
              timeout: float | None = None) -> Finding:
    x = bv.input_vars(L)
    t = bv.layout_terms(L, x)
    conds = []
    for d, b in bounds.items():
        w = max(t[d].size(), b.bit_length()) + 1
        conds.append(z3.UGE(bv.fit(t[d], w), z3.BitVecVal(b, w)))
    if not conds:
        return _solve([], rlimit, timeout, "in bounds")

    def make(m: z3.ModelRef) -> Finding:
        return refuted(witness.out_of_bounds(L, _point(m, L, x), bounds), "an output lies outside the bounds")
    return _solve([("bounds", z3.Or(*conds), make)], rlimit, timeout, "in bounds")


def duplicates(L: LinearLayout, masked: int, rlimit: int | None = None, timeout: float | None = None) -> Finding:
    out = _not_injective(L, masked)
    if L.total_in_bits and L.total_out_bits and masked:
        allowed = ((1 << L.total_in_bits) - 1) & ~masked
        x = bv.input_vars(L, prefix="r_")
        y = bv.flat_output(L, bv.layout_terms(L, x))

        def make(m: z3.ModelRef) -> Finding:
            cx = witness.outside_image(L.apply, _point(m, L, x), L, allowed=allowed, label="L(x)",
                                       note="no input with the masked bits zero holds this data")
            return refuted(cx, "some data is held by no input with the masked bits zero")
        out.append(("reach", _outside_span(L, y, allowed, "_dup"), make))
    return _solve(out, rlimit, timeout, "duplicate masks")

