"""Layout properties as verdicts: the public entry points of the prover.

Each function decides one claim with one of three complete methods and
returns a :class:`~llverify.prove.verdict.Verdict`:

* ``f2`` (:mod:`~llverify.prove.certificates`): F2 algebra with a checked
  certificate; microseconds; what ``method="auto"`` picks for every claim here;
* ``exhaustive`` (:mod:`~llverify.prove.exhaustive`): every point of the
  domain; ``unknown`` above the size guard;
* ``smt`` (:mod:`~llverify.prove.smt`): ``unsat`` of the negated claim in Z3
  under a deterministic ``rlimit``; ``unknown`` when the budget runs out.

The claims (seed 000, section 4): :func:`surjective`, :func:`injective`,
:func:`bijective` (definitions 4.1-4.5), :func:`distributed` (definition
4.10), :func:`memory` (definition 4.14), :func:`equal`, :func:`conversion`
(section 5.2: ``B(C(x)) == A(x)`` with ``C = B^-1 A``), :func:`in_bounds`
and :func:`duplicates` (free variables).  Ill-formed claims (dims that do not
match) give an ``error`` verdict that says why; a counterexample that does
not replay, or a certificate that fails its check, gives an ``error``
verdict marked as an internal error (never ``refuted``/``proved``).

Example::

    >>> from llverify.layout import LinearLayout as LL
    >>> L = LL.identity_1d(4, "register", "dim0") * LL.zeros_1d(2, "register", "dim0")
    >>> v = injective(L)
    >>> v.status, dict(v.counterexample.inputs)
    ('refuted', {'register': 4, "register'": 0})
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence

from llverify import f2
from llverify.errors import LayoutError, LlverifyError
from llverify.layout import LinearLayout
from llverify.prove import certificates
from llverify.prove.certificates import CertificateError
from llverify.prove.finding import Finding
from llverify.prove.points import describe, flatten_in, unflatten_in
from llverify.prove.replay import ReplayFailure
from llverify.prove.verdict import Counterexample, Verdict

__all__ = [
    "ClaimError", "DISTRIBUTED_DIMS", "METHOD_CHOICES", "bijective", "conversion", "distributed",
    "duplicates", "equal", "in_bounds", "injective", "memory", "surjective",
]

METHOD_CHOICES = ("auto", "f2", "exhaustive", "smt")
DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")


class ClaimError(LlverifyError, ValueError):
    """A call to the prover is malformed (unknown method, not a layout)."""


def _layout(L: Any, what: str) -> LinearLayout:
    if not isinstance(L, LinearLayout):
        raise ClaimError(f"{what} must be a LinearLayout, got {type(L).__name__}")
    return L


def _pick(method: str) -> str:
    if method not in METHOD_CHOICES:
        raise ClaimError(f"unknown proof method {method!r}; choose one of {', '.join(METHOD_CHOICES)}")
    return "f2" if method == "auto" else method


def _error(prop: str, subject: str, message: str, t0: float, **details: Any) -> Verdict:
    return Verdict("error", prop, subject, None, time.perf_counter() - t0, message, details=details)


def _run(prop: str, subject: str, method: str, run: Callable[[str], Finding], t0: float,
         details: Mapping[str, Any] | None = None, rlimit: int | None = None) -> Verdict:
    """Run the method, convert internal failures to ``error``, time and package."""
    m = _pick(method)
    extra = dict(details or {})
    if method == "auto":
        extra["auto"] = "f2 (cheapest complete method for linear claims)"
    try:
        f = run(m)
    except (ReplayFailure, CertificateError) as e:
        return _error(prop, subject, f"internal error of the {m} method: {e}", t0, **extra)
    if m == "smt":
        from llverify.prove import bv
        extra.setdefault("z3", bv.z3_version())
        extra.setdefault("rlimit", rlimit if rlimit is not None else bv.default_rlimit())
    return Verdict(f.status, prop, subject, m, time.perf_counter() - t0, f.message, f.counterexample,  # type: ignore[arg-type]
                   f.certificate if f.status == "proved" else None, {**extra, **f.details})


def _dispatch(name: str, m: str, args: tuple[Any, ...], rlimit: int | None, timeout: float | None) -> Finding:
    if m == "f2":
        return getattr(certificates, name)(*args)
    if m == "exhaustive":
        from llverify.prove import exhaustive  # numpy is loaded only when a claim is enumerated

        return getattr(exhaustive, name)(*args)
    from llverify.prove import smt  # Z3 is loaded only when a claim asks for it (start-up, issue 16)

    return getattr(smt, name)(*args, rlimit=rlimit, timeout=timeout)


def _simple(name: str, L: Any, method: str, rlimit: int | None, timeout: float | None,
            subject: str | None) -> Verdict:
    t0 = time.perf_counter()
    L = _layout(L, "the layout")
    return _run(name, subject or describe(L), method,
                lambda m: _dispatch(name, m, (L,), rlimit, timeout), t0, rlimit=rlimit)


def surjective(L: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
               timeout: float | None = None, subject: str | None = None) -> Verdict:
    """Every output is reached: ``forall y exists x. L(x) == y`` (rank == out bits)."""
    return _simple("surjective", L, method, rlimit, timeout, subject)


def injective(L: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
              timeout: float | None = None, subject: str | None = None) -> Verdict:
    """Distinct inputs, distinct outputs (rank == in bits); refutations name ``x`` and ``x'``."""
    return _simple("injective", L, method, rlimit, timeout, subject)


def bijective(L: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
              timeout: float | None = None, subject: str | None = None) -> Verdict:
    """Injective and surjective (invertible, definition 4.4 / 4.5)."""
    return _simple("bijective", L, method, rlimit, timeout, subject)


def distributed(L: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
                timeout: float | None = None, subject: str | None = None) -> Verdict:
    """Definition 4.10: in dims among register/lane/warp/block, surjective, every column
    has at most one non-zero bit, no two non-zero columns equal.  The offending column is
    in ``details["column"]`` and in the counterexample."""
    t0 = time.perf_counter()
    L = _layout(L, "the layout")
    other = [d for d in L.in_dim_names if d not in DISTRIBUTED_DIMS]
    if other:
        return _error("distributed", subject or describe(L),
                      f"a distributed layout maps {'/'.join(DISTRIBUTED_DIMS)}; this one has in dims {other}", t0)
    return _run("distributed", subject or describe(L), method,
                lambda m: _dispatch("distributed", m, (L,), rlimit, timeout), t0, rlimit=rlimit)


def memory(L: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
           timeout: float | None = None, subject: str | None = None) -> Verdict:
    """Definition 4.14: invertible, and every column has 1 or 2 non-zero bits."""
    return _simple("memory", L, method, rlimit, timeout, subject)


def _same_dims(A: LinearLayout, B: LinearLayout, a: str, b: str) -> str | None:
    if dict(A.in_dims) != dict(B.in_dims):
        return f"in dims differ: {a} has {dict(A.in_dims)}, {b} has {dict(B.in_dims)}"
    if dict(A.out_dims) != dict(B.out_dims):
        return f"out dims differ: {a} has {dict(A.out_dims)}, {b} has {dict(B.out_dims)}"
    return None


def _size_witness(A: LinearLayout, B: LinearLayout) -> Counterexample | None:
    """Same dim names, different sizes: an input that exists for one layout only (evaluated on it),
    or the differing out-dim sizes.  None when every size agrees."""
    for d in A.in_dim_names:
        a, b = A.in_dim_size(d), B.in_dim_size(d)
        if a != b:
            big, name = (A, "A") if a > b else (B, "B")
            x = {n: 0 for n in big.in_dim_names}
            x[d] = min(a, b)
            value = dict(big.apply(**x))
            other = "B" if name == "A" else "A"
            return Counterexample(x, {f"{name}(x)": value, f"{other}(x)": f"undefined ({d} has size {min(a, b)})"},
                                  f"in dim '{d}' has size {a} in A and {b} in B")
    for d in A.out_dim_names:
        a, b = A.out_dim_size(d), B.out_dim_size(d)
        if a != b:
            return Counterexample({}, {f"A's {d} size": a, f"B's {d} size": b},
                                  f"out dim '{d}': the layouts describe tensors of different shapes")
    return None


def equal(A: LinearLayout, B: LinearLayout, *, method: str = "auto", rlimit: int | None = None,
          timeout: float | None = None, subject: str | None = None) -> Verdict:
    """``A(x) == B(x)`` for every input; dims are matched by name (orders may differ).

    Different dim *names* give an ``error`` verdict (the claim is ill-formed); equal names with different
    sizes are ``refuted``, the witness an input only one layout has (or the differing out sizes)."""
    t0 = time.perf_counter()
    A, B = _layout(A, "A"), _layout(B, "B")
    subj = subject or f"{describe(A)} vs {describe(B)}"
    if set(A.in_dim_names) != set(B.in_dim_names) or set(A.out_dim_names) != set(B.out_dim_names):
        return _error("equal", subj, _same_dims(A, B, "A", "B") or "dims differ", t0)
    size_witness = _size_witness(A, B)
    if size_witness is not None:
        return Verdict("refuted", "equal", subj, "exhaustive", time.perf_counter() - t0,
                       "the layouts have different domains or codomains", size_witness)
    B2 = B.transpose_ins(list(A.in_dim_names)).transpose_outs(list(A.out_dim_names))
    return _run("equal", subj, method, lambda m: _dispatch("equal", m, (A, B2), rlimit, timeout), t0, rlimit=rlimit)


def _solve_conversion(A: LinearLayout, B: LinearLayout) -> LinearLayout | None:
    """``C`` with ``B(C(x)) == A(x)`` (``invert_and_compose``, else F2 solving), or None if none exists."""
    try:
        return A.invert_and_compose(B)
    except LayoutError:
        pass
    B2 = B.transpose_outs(list(A.out_dim_names))
    e = f2.Echelon.of(B2.flat_columns)
    sol = []
    for c in A.flat_columns:
        res, combo = e.reduce(c)
        if res:
            return None
        sol.append(combo)
    bases = {}
    j = 0
    for d, s in A.in_dims.items():
        bases[d] = [list(unflatten_in(B2, sol[j + i]).values()) for i in range(s.bit_length() - 1)]
        j += s.bit_length() - 1
    return LinearLayout(bases, list(B2.in_dims.items()), require_surjective=False)


def conversion(A: LinearLayout, B: LinearLayout, C: LinearLayout | None = None, *, method: str = "auto",
               rlimit: int | None = None, timeout: float | None = None, subject: str | None = None) -> Verdict:
    """``C`` converts ``A`` into ``B``: ``B(C(x)) == A(x)`` for every hardware index ``x`` of ``A``.

    ``C``: in dims = ``A``'s, out dims = ``B``'s in dims.  Without ``C`` it is
    computed first (``A.invert_and_compose(B)``, seed 000 section 5.2) and
    recorded in ``details["C"]``; if ``A`` reaches an element ``B`` never holds
    the verdict is ``refuted`` (no conversion exists).
    """
    t0 = time.perf_counter()
    A, B = _layout(A, "A"), _layout(B, "B")
    subj = subject or f"{describe(A)} -> {describe(B)}"
    if dict(A.out_dims) != dict(B.out_dims):
        return _error("conversion", subj, f"A and B must describe the same tensor: out dims {dict(A.out_dims)} "
                      f"vs {dict(B.out_dims)}", t0)
    details: dict[str, Any] = {}
    if C is None:
        sol = _solve_conversion(A, B)
        if sol is None:  # no C: decide "A's image lies in B's" with the requested method (refutes)
            B2 = B.transpose_outs(list(A.out_dim_names))

            def run(m: str) -> Finding:
                f = _dispatch("contained", m, (A, B2), rlimit, timeout)
                if f.status == "proved":
                    raise CertificateError("no C was found by F2 solving, yet the method proved containment")
                return f
            return _run("conversion", subj, method, run, t0, {"C": None}, rlimit=rlimit)
        C = sol
        details["C"] = {d: [list(b) for b in bs] for d, bs in C.bases.items()}
    C = _layout(C, "C")
    if dict(C.in_dims) != dict(A.in_dims):
        return _error("conversion", subj, f"C must have A's in dims {dict(A.in_dims)}, has {dict(C.in_dims)}", t0)
    if set(C.out_dim_names) != set(B.in_dim_names):
        return _error("conversion", subj,
                      f"C's out dims {list(C.out_dim_names)} must be B's in dims {list(B.in_dim_names)}", t0)
    for n, s in C.out_dims.items():
        if s > B.in_dim_size(n):
            return _error("conversion", subj, f"C's out dim '{n}' has size {s} > B's in-dim size {B.in_dim_size(n)}", t0)
    B2 = B.transpose_outs(list(A.out_dim_names))
    Ct = C.transpose_ins(list(A.in_dim_names)).transpose_outs(list(B.in_dim_names))
    C2 = LinearLayout._checked(Ct.bases.items(), B.in_dims.items())  # Ct's int bases on B's in-dim sizes, checked
    return _run("conversion", subj, method, lambda m: _dispatch("conversion", m, (A, B2, C2), rlimit, timeout),
                t0, details, rlimit=rlimit)


def _bounds(L: LinearLayout, shape_or_size: Any) -> dict[str, int] | str:
    outs = list(L.out_dim_names)
    if isinstance(shape_or_size, bool):
        return "bounds must be integers"
    if isinstance(shape_or_size, int):
        if len(outs) != 1:
            return f"a single size needs a layout with one out dim; this one has {outs}"
        b = {outs[0]: shape_or_size}
    elif isinstance(shape_or_size, Mapping):
        unknown_dims = [k for k in shape_or_size if k not in outs]
        if unknown_dims:
            return f"bounds name out dims {unknown_dims} that the layout does not have (out dims: {outs})"
        b = {str(k): v for k, v in shape_or_size.items()}
    elif isinstance(shape_or_size, Sequence) and not isinstance(shape_or_size, str):
        if len(shape_or_size) != len(outs):
            return f"shape {list(shape_or_size)} has {len(shape_or_size)} entries, the layout has out dims {outs}"
        b = dict(zip(outs, shape_or_size))
    else:
        return f"bounds must be a size, a shape or a mapping out dim -> size, got {shape_or_size!r}"
    for k, v in b.items():
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            return f"bound for out dim '{k}' must be a positive integer, got {v!r}"
    return b


def in_bounds(L: LinearLayout, shape_or_size: int | Sequence[int] | Mapping[str, int] | None = None, *,
              size: int | None = None, shape: Sequence[int] | Mapping[str, int] | None = None,
              method: str = "auto", rlimit: int | None = None, timeout: float | None = None,
              subject: str | None = None) -> Verdict:
    """Every output lies inside the allocation: ``L(x)[d] < bound[d]`` for all ``x``.

    ``shape_or_size`` (or the keywords ``shape=`` / ``size=``): a shape (one
    bound per out dim, in out-dim order), a mapping out dim -> bound, or an
    int.  An int bounds the *flattened* output (out dims concatenated, the
    first lowest: ``dim0 + size0 * dim1 + ...``, a shared-memory offset); for a
    layout with one out dim that is just its value.  Bounds need not be
    powers of two.  Example: ``in_bounds(L, 96)`` refutes a layout whose
    ``offset`` reaches 100 with the input that reaches the maximum.
    """
    t0 = time.perf_counter()
    L = _layout(L, "the layout")
    subj = subject or describe(L)
    given = [v for v in (shape_or_size, size, shape) if v is not None]
    if len(given) != 1:
        return _error("in_bounds", subj, "give exactly one of a size or a shape", t0)
    bound = given[0]
    if isinstance(bound, int) and not isinstance(bound, bool) and L.num_out_dims > 1:
        L = L.flatten_outs()
    b = _bounds(L, bound)
    if isinstance(b, str):
        return _error("in_bounds", subj, b, t0)
    return _run("in_bounds", subj, method, lambda m: _dispatch("in_bounds", m, (L, b), rlimit, timeout), t0,
                {"bounds": b}, rlimit=rlimit)


def duplicates(L: LinearLayout, dims: str | Sequence[str] | None = None, *,
               expected: Mapping[str, int] | None = None, max: int | None = None,
               method: str = "auto", rlimit: int | None = None, timeout: float | None = None,
               subject: str | None = None) -> Verdict:
    """Which inputs of ``dims`` (default: all in dims) hold the same data, as bit masks, proved.

    The masks (``details["masks"]``, per dim of ``dims``) are Triton's free
    variable masks (``getFreeVariableMasks``) unless ``expected`` gives them.
    The claim proved, with the masks of the other in dims taken from Triton:
    *the inputs whose masked bits are all zero hold every datum the layout
    holds, each exactly once* (the unmasked bits form a basis of the image).
    So each masked bit is a duplicate: ``x`` and some ``x'`` with that bit
    cleared hold the same data, and no unmasked bit can be dropped.  Example:
    ``lane`` bases ``[(1,), (0,)]`` give mask ``lane: 0b10`` (lanes 0 and 2 hold
    the same data).  A wrong ``expected`` mask is refuted with a collision or
    an unreachable datum.

    With ``max`` the claim is instead a bound on copies (:mod:`~llverify.prove.copies`):
    every element is held by at most ``max + 1`` inputs of ``dims`` (the
    other in dims fixed); ``details["copies"]`` gives the exact count.
    ``dims`` may name dims or give their indices in the layout's in-dim order.
    """
    t0 = time.perf_counter()
    L = _layout(L, "the layout")
    subj = subject or describe(L)
    if dims is None:
        names = list(L.in_dim_names)
    else:
        raw = [dims] if isinstance(dims, (str, int)) else list(dims)
        names = []
        for d in raw:
            if isinstance(d, int) and not isinstance(d, bool):
                if not 0 <= d < L.num_in_dims:
                    return _error("duplicates", subj, f"in-dim index {d} is out of range (in dims "
                                  f"{list(L.in_dim_names)})", t0)
                names.append(L.in_dim_names[d])
            else:
                names.append(str(d))
    missing = [d for d in names if not L.has_in_dim(d)]
    if missing:
        return _error("duplicates", subj, f"in dims {missing} are not in the layout (in dims {list(L.in_dim_names)})", t0)
    if max is not None:
        if not isinstance(max, int) or isinstance(max, bool) or max < 0:
            return _error("duplicates", subj, f"max must be a non-negative integer, got {max!r}", t0)
        from llverify.prove.copies import at_most
        return _run("duplicates", subj, method, lambda m: at_most(L, names, max, m, rlimit, timeout), t0,
                    {"dims": names, "max": max}, rlimit=rlimit)
    free = dict(L.free_variable_masks())
    masks = dict(free)
    if expected is not None:
        extra = [d for d in expected if d not in names]
        if extra:
            return _error("duplicates", subj, f"expected masks for dims {extra} that are not in dims {names}", t0)
        for d, v in expected.items():
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < L.in_dim_size(d):
                return _error("duplicates", subj, f"mask {v!r} for in dim '{d}' is not in [0, {L.in_dim_size(d)})", t0)
            masks[d] = v
    masked = flatten_in(L, masks)
    details = {"masks": {d: masks[d] for d in names}, "triton_masks": {d: free[d] for d in names}}
    return _run("duplicates", subj, method, lambda m: _dispatch("duplicates", m, (L, masked), rlimit, timeout),
                t0, details, rlimit=rlimit)
