"""Linear layouts as Z3 bit-vector terms, and one solver call with a budget.

Encoding (seed 000, definition 4.1: ``L(x) = XOR of the bases of x's set
bits``): every in dim ``d`` of size ``2^k`` is a bit-vector variable of width
``k`` (width 1 fixed to 0 for size-1 dims, Z3 has no 0-bit vectors); every out
dim of size ``2^m`` is a term of width ``max(m, 1)``.  Two equivalent
encodings of the outputs are offered:

* ``"bits"`` (default): the matrix product bit by bit; out bit ``r`` is the
  XOR of the input bits ``j`` with ``M[r, j] = 1``, and the out dim is the
  ``Concat`` of its bits.  Pure XOR/extract terms, which Z3 bit-blasts
  straight to XOR clauses;
* ``"ite"``: ``XOR over (d, i) of If(bit i of x_d, basis_d_i, 0)``, the
  literal reading of the definition.

Example: for ``identity_1d(4, "i", "o")``, ``layout_terms(L, {"i": x})["o"]``
is ``Concat(Extract(1,1,x), Extract(0,0,x))``, i.e. ``x``.

:func:`check` runs one query under a deterministic resource budget (Z3's
``rlimit``; optionally also a wall-clock timeout) and maps ``unknown``
(budget exhausted, timeout, incompleteness) to the status ``"unknown"`` with
Z3's reason; it also returns the query as SMT-LIB text (see
:mod:`llverify.prove.smtlib`).  The default budget is module-wide and
settable with :func:`set_default_rlimit` (the CLI exposes it).
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from functools import reduce
from typing import Any, Iterable, Mapping, Sequence

import z3

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = [
    "DEFAULT_RLIMIT",
    "CheckResult",
    "check",
    "default_rlimit",
    "fit",
    "flat_input",
    "flat_output",
    "input_bits",
    "input_vars",
    "layout_terms",
    "model_point",
    "parity",
    "parity_with",
    "set_default_rlimit",
    "solver",
    "width",
    "xor_all",
    "z3_version",
]

from llverify.prove.solver_budget import DEFAULT_RLIMIT, default_rlimit, set_default_rlimit  # noqa: E402
from llverify.prove.solver_budget import z3_version  # noqa: E402


def width(size: int) -> int:
    """Bit width of the term for a dim of ``size`` (at least 1)."""
    return max(1, size.bit_length() - 1)


def input_vars(L: LinearLayout, prefix: str = "", suffix: str = "") -> dict[str, z3.BitVecRef]:
    """Fresh variables ``{in dim: BitVec(prefix + dim + suffix)}``; size-1 dims are the constant 0."""
    out: dict[str, z3.BitVecRef] = {}
    for d, size in L.in_dims.items():
        if size == 1:
            out[d] = z3.BitVecVal(0, 1)
        else:
            out[d] = z3.BitVec(f"{prefix}{d}{suffix}", width(size))
    return out


def xor_all(terms: Sequence[z3.BitVecRef], w: int) -> z3.BitVecRef:
    """XOR of ``terms`` (width ``w``); 0 when empty."""
    return reduce(lambda a, b: a ^ b, terms) if terms else z3.BitVecVal(0, w)


def input_bits(L: LinearLayout, inputs: Mapping[str, z3.BitVecRef]) -> list[z3.BitVecRef]:
    """1-bit terms for every flat input bit of ``L``, in flat order."""
    bits = []
    for d, size in L.in_dims.items():
        k = size.bit_length() - 1
        if d not in inputs:
            raise LayoutError(f"no Z3 term given for in dim '{d}'")
        v = inputs[d]
        if k and v.size() != k:
            raise LayoutError(f"the Z3 term for in dim '{d}' has width {v.size()}, expected {k}")
        bits.extend(z3.Extract(i, i, v) for i in range(k))
    return bits


def layout_terms(L: LinearLayout, inputs: Mapping[str, z3.BitVecRef],
                 encoding: str = "bits") -> dict[str, z3.BitVecRef]:
    """``{out dim: term}`` with ``term == L(inputs)[out dim]`` for every value of the inputs."""
    bits = input_bits(L, inputs)
    cols = L.flat_columns
    out: dict[str, z3.BitVecRef] = {}
    for n, shift in L.flat_out_shifts().items():
        size = L.out_dim_size(n)
        m = size.bit_length() - 1
        w = width(size)
        if encoding == "bits":
            obits = [xor_all([bits[j] for j, c in enumerate(cols) if (c >> (shift + r)) & 1], 1)
                     for r in range(m)]
            out[n] = z3.Concat(*reversed(obits)) if len(obits) > 1 else (obits[0] if obits else z3.BitVecVal(0, 1))
        elif encoding == "ite":
            terms = []
            for j, c in enumerate(cols):
                comp = (c >> shift) & (size - 1)
                if comp:
                    terms.append(z3.If(bits[j] == 1, z3.BitVecVal(comp, w), z3.BitVecVal(0, w)))
            out[n] = xor_all(terms, w)
        else:
            raise LayoutError(f"unknown layout encoding {encoding!r} (use 'bits' or 'ite')")
    return out


def flat_input(L: LinearLayout, inputs: Mapping[str, z3.BitVecRef]) -> z3.BitVecRef | None:
    """The flat input (in dims concatenated, first lowest) as one term; None if L has no in bits."""
    parts = [inputs[d] for d, s in L.in_dims.items() if s > 1]
    if not parts:
        return None
    return z3.Concat(*reversed(parts)) if len(parts) > 1 else parts[0]


def flat_output(L: LinearLayout, terms: Mapping[str, z3.BitVecRef]) -> z3.BitVecRef | None:
    """The flat output (out dims concatenated, first lowest); None if L has no out bits."""
    parts = [terms[n] for n, s in L.out_dims.items() if s > 1]
    if not parts:
        return None
    return z3.Concat(*reversed(parts)) if len(parts) > 1 else parts[0]


def fit(term: z3.BitVecRef, w: int) -> z3.BitVecRef:
    """Zero-extend or truncate ``term`` to width ``w``."""
    if term.size() == w:
        return term
    if term.size() < w:
        return z3.ZeroExt(w - term.size(), term)
    return z3.Extract(w - 1, 0, term)


def parity(v: z3.BitVecRef) -> z3.BitVecRef:
    """XOR of all bits of ``v`` (a 1-bit term)."""
    return xor_all([z3.Extract(i, i, v) for i in range(v.size())], 1)


def parity_with(w: z3.BitVecRef, const: int) -> z3.BitVecRef:
    """``<w, const>`` over F2: XOR of the bits of ``w`` where ``const`` has a 1 (1-bit term)."""
    return xor_all([z3.Extract(i, i, w) for i in range(w.size()) if (const >> i) & 1], 1)


def model_point(model: z3.ModelRef, variables: Mapping[str, z3.BitVecRef]) -> dict[str, int]:
    """Values of named terms in a model (unconstrained ones read as 0)."""
    return {k: model.eval(v, model_completion=True).as_long() for k, v in variables.items()}


@dataclass(frozen=True)
class CheckResult:
    """One solver answer: ``status`` in sat/unsat/unknown, the model if sat, the query text."""

    status: str
    model: Any
    smt2: str
    reason: str
    rlimit: int | None

    def certificate(self) -> dict[str, Any]:
        """What a proof by this query records: the query, the answer, Z3 and the budget."""
        return {"kind": "smt-unsat", "smt2": self.smt2, "answer": self.status,
                "z3": z3_version(), "rlimit": self.rlimit}


def solver(rlimit: int | None = None, timeout: float | None = None,
           logic: str | None = None, ctx: z3.Context | None = None) -> tuple[z3.Solver, int | None]:
    """The one place a Z3 solver is made: returns ``(solver, rlimit used)``.

    ``rlimit``: Z3 resource units (deterministic); ``None`` means
    :func:`default_rlimit` (``DEFAULT_RLIMIT`` unless changed), so every query
    in CI has the same deterministic budget. ``timeout``: optional wall-clock
    seconds (not deterministic; only set when asked). ``logic``: e.g. ``"QF_BV"``.

    Example: ``s, lim = solver(rlimit=1)`` gives a solver whose every
    non-trivial ``check()`` is ``unknown`` ("max. resource limit exceeded").
    """
    s = z3.SolverFor(logic, ctx=ctx) if logic else z3.Solver(ctx=ctx)
    lim = default_rlimit() if rlimit is None else rlimit
    if lim is not None:
        s.set("rlimit", int(lim))
    if timeout is not None:
        s.set("timeout", max(1, int(timeout * 1000)))
    return s, lim


_LET_NAME = re.compile(r"([?$])x(\d+)")


def canonical_smt2(text: str) -> str:
    """Z3's SMT-LIB text with its let-bound names (``?x512``, ``$x77``) renumbered in order of first
    appearance, so the same query prints the same text whatever else the process asked Z3 before."""
    names: dict[str, str] = {}

    def rename(m: "re.Match[str]") -> str:
        key = m.group(0)
        if key not in names:
            names[key] = f"{m.group(1)}x{len(names)}"
        return names[key]

    return _LET_NAME.sub(rename, text)


def check(assertions: Iterable[z3.BoolRef] | z3.BoolRef, rlimit: int | None = None,
          timeout: float | None = None) -> CheckResult:
    """Check the conjunction of ``assertions`` under a budget.

    ``rlimit``: Z3 resource units (deterministic); default :func:`default_rlimit`.
    ``timeout``: optional wall-clock seconds (not deterministic).
    ``unknown`` carries Z3's ``reason_unknown`` (e.g. "max. resource limit exceeded").
    """
    if isinstance(assertions, z3.BoolRef):
        assertions = [assertions]
    assertions = list(assertions)
    # Each query runs in a fresh Z3 context, its terms translated in a fixed traversal order: Z3's search (and so
    # the resources it spends against the rlimit) depends on the ids of the terms in its context, which depend on
    # everything the process built before.  In the caller's context a query near its rlimit could be proved in
    # one process and `unknown` in another (`-j 2` against `-j 1`); in its own context it is decided the same way
    # every time.  The model is translated back to the caller's context.
    home = assertions[0].ctx if assertions else z3.main_ctx()
    ctx = z3.Context()
    s, lim = solver(rlimit, timeout, ctx=ctx)
    for a in assertions:
        s.add(a.translate(ctx))
    text = canonical_smt2(s.to_smt2())
    r = s.check()
    if r == z3.sat:
        return CheckResult("sat", s.model().translate(home), text, "", lim)
    if r == z3.unsat:
        return CheckResult("unsat", None, text, "", lim)
    return CheckResult("unknown", None, text, s.reason_unknown() or "unknown", lim)
