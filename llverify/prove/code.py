"""Proofs about index code: equal to a layout, equal to other code, in range, injective, bijective.

Every function parses its code (never executes it), gives it the semantics
of :mod:`llverify.indexcode.bitvector` and decides the claim over the declared
input ranges by a complete method (:func:`llverify.prove.code_engine.decide`):

* ``exhaustive``: evaluate every point of the domain (numpy); chosen by
  ``method="auto"`` when the domain has at most ``AUTO_EXHAUSTIVE_POINTS``
  points;
* ``smt``: Z3 over bit-vectors; ``unsat`` of the negated claim proves it.

A refutation is the lexicographically smallest failing input (first
variable most significant; Z3 narrows each variable by binary search,
enumeration takes the first failing point) and is replayed by the concrete
evaluator before it is reported.  ``details["kind"]`` says what failed:
``mismatch`` (values differ), ``undefined_behaviour`` (C UB, e.g. signed
overflow, at that input), ``runtime_error`` (Python ``ZeroDivisionError`` /
negative shift), ``out_of_range``, ``collision`` (two inputs, one value).
Solver timeouts and resource limits give ``unknown``. The solver comes from
:func:`llverify.prove.bv.solver`: the deterministic default ``rlimit``
(``bv.DEFAULT_RLIMIT``), a wall clock only when ``timeout`` is given.

Ranges are half-open: ``{"row": 64}`` means ``0 <= row < 64`` and
``{"x": (-8, 8)}`` means ``-8 <= x < 8``.

Example (seed 000, definition 4.11 with vec=8, per_phase=1, max_phase=8 on a
64x64 tile, as the inverse of a swizzled shared layout)::

    code_equals_layout("((row % 8) ^ (col / 8)) * 8 + col % 8 + row * 64",
                       smem, {"row": "dim0", "col": "dim1"}, "offset")  # proved
"""

from __future__ import annotations

import time
from math import prod
from typing import Any, Mapping

import numpy as np
import z3

from llverify.indexcode.bitvector import encode, python_width
from llverify.indexcode.c_types import resolve_types
from llverify.indexcode.evaluate import evaluate_arrays, evaluate_point
from llverify.indexcode.parse import C_TYPES, IndexCodeError, ParsedCode, parse_code
from llverify.layout import LinearLayout
from llverify.prove.code_engine import (AUTO_EXHAUSTIVE_POINTS, MAX_EXHAUSTIVE_POINTS, Claim, Ranges, decide,
                                        normalise_ranges, refute, var_width, verdict)
from llverify.prove.verdict import Verdict

__all__ = [
    "AUTO_EXHAUSTIVE_POINTS", "IndexCodeError", "code_equals_layout", "code_equals_code", "in_range",
    "injective", "bijective", "layout_output_term", "normalise_ranges",
]


def _parse(code: str | ParsedCode, lang: str) -> ParsedCode:
    return code if isinstance(code, ParsedCode) else parse_code(code, lang)


def _check_types_hold(p: ParsedCode, types: Mapping[str, str], ranges: Mapping[str, tuple[int, int]]) -> str | None:
    if p.lang != "c":
        return None
    for v in p.variables:
        bits, signed = C_TYPES[types[v]]
        lo, hi = ranges[v]
        tlo, thi = (-(1 << (bits - 1)), 1 << (bits - 1)) if signed else (0, 1 << bits)
        if lo < tlo or hi > thi:
            return f"variable '{v}' ranges over [{lo}, {hi}), which its type {types[v]} cannot hold"
    return None


# ------------------------------------------------------------ layouts --
def layout_output_term(layout: LinearLayout, out_dim: str, terms: Mapping[str, Any]) -> Any:
    """Z3 term of ``layout(x)[out_dim]``: XOR over set input bits of the basis component.

    ``terms[in_dim]`` is a bit-vector holding that in dim's value.
    """
    width = max(1, layout.out_dim_size_log2(out_dim))
    acc = z3.BitVecVal(0, width)
    for d in layout.in_dim_names:
        for i, b in enumerate(layout.bases[d]):
            c = b[layout.out_dim_names.index(out_dim)]
            if c:
                bit = z3.Extract(i, i, terms[d])
                acc = acc ^ z3.If(bit == 1, z3.BitVecVal(c, width), z3.BitVecVal(0, width))
    return acc


def _layout_values(layout: LinearLayout, out_dim: str, env: Mapping[str, np.ndarray]) -> np.ndarray:
    k = layout.out_dim_names.index(out_dim)
    n = len(next(iter(env.values())))
    acc = np.zeros(n, dtype=np.int64)
    for d in layout.in_dim_names:
        x = env[d]
        for i, b in enumerate(layout.bases[d]):
            if b[k]:
                acc ^= np.where((x >> i) & 1 == 1, np.int64(b[k]), np.int64(0))
    return acc


def _any_fault(faults: list[tuple[np.ndarray, str, int]], n: int) -> np.ndarray:
    m = np.zeros(n, dtype=bool)
    for mask, _, _ in faults:
        m |= mask
    return m


def _eval_fast(p: ParsedCode, env: Mapping[str, np.ndarray], types: Mapping[str, str],
               ranges: Mapping[str, tuple[int, int]]) -> tuple[np.ndarray, list]:
    use_object = None
    if p.lang == "python":
        use_object = python_width(p, {v: (lo, hi - 1) for v, (lo, hi) in ranges.items()}) > 62
    return evaluate_arrays(p, env, types, use_object=use_object)


def _fault_kind(p: ParsedCode) -> str:
    return "undefined_behaviour" if p.lang == "c" else "runtime_error"


def code_equals_layout(code: str | ParsedCode, layout: LinearLayout, inputs: Mapping[str, str], output: str,
                       lang: str = "c", types: Mapping[str, str] | None = None, *, method: str = "auto",
                       rlimit: int | None = None, timeout: float | None = None) -> Verdict:
    """Prove that ``code`` computes ``output`` of ``layout`` (the ``index_code`` spec check).

    ``inputs`` maps code variables to dims of one side of the layout; ``output``
    is a dim of the other side.  In dims as inputs: the forward map
    ``layout(x)[output]``.  Out dims as inputs (and an in dim as output): the
    inverse map, the ``output`` coordinate of ``layout^-1(y)`` (the layout must
    be invertible).  The claim quantifies over every value of every dim on the
    input side (dims no variable names included), each in ``[0, size)``.
    Bad code or mapping raises :class:`IndexCodeError`; a non-invertible layout
    for the inverse direction, or a type too narrow for a dim, gives an
    ``error`` verdict.
    """
    p = _parse(code, lang)
    prop = "index_code"
    subject = f"{p.lang} `{p.text.strip()}` == {output}"
    t0 = time.perf_counter()
    inputs = {str(k): str(v) for k, v in inputs.items()}
    missing = [v for v in p.variables if v not in inputs]
    if missing:
        raise IndexCodeError(f"the code uses {missing}, which 'inputs' does not map to layout dims "
                             f"(inputs: {inputs})")
    ins, outs = set(layout.in_dim_names), set(layout.out_dim_names)
    dims = set(inputs.values())
    if dims and dims <= ins and output in outs:
        forward = layout
    elif dims and dims <= outs and output in ins:
        if not layout.is_invertible():
            return verdict("error", prop, subject, None, t0,
                            "the code maps out dims to an in dim, i.e. the inverse map, but the layout is not "
                            "invertible (so that map is not a function)")
        forward = layout.invert()
    elif not dims and (output in outs or output in ins):
        forward = layout if output in outs else (layout.invert() if layout.is_invertible() else None)
        if forward is None:
            return verdict("error", prop, subject, None, t0, "the layout is not invertible")
    else:
        raise IndexCodeError(
            f"'inputs' must map code variables to dims of one side of the layout and 'output' must be a dim of "
            f"the other side; got inputs {inputs}, output {output!r}, layout in dims "
            f"{list(layout.in_dim_names)}, out dims {list(layout.out_dim_names)}")
    tmap = resolve_types(p, types)
    dim_ranges = {d: (0, forward.in_dim_size(d)) for d in forward.in_dim_names}
    var_ranges = {v: dim_ranges[inputs[v]] for v in p.variables}
    msg = _check_types_hold(p, tmap, var_ranges)
    if msg:
        return verdict("error", prop, subject, None, t0, msg)
    order = [inputs[v] for v in inputs if inputs[v] in dim_ranges]
    order = list(dict.fromkeys(order + [d for d in forward.in_dim_names]))
    out_size = forward.out_dim_size(output)
    pyw = python_width(p, {v: (lo, hi - 1) for v, (lo, hi) in var_ranges.items()}, extra=out_size) \
        if p.lang == "python" else None
    details = {"lang": p.lang, "types": tmap, "operations": p.operations,
               "direction": "forward" if forward is layout else "inverse"}
    if pyw:
        details["python_width"] = pyw

    def z3_bad(terms: dict[str, tuple[Any, bool]]) -> Any:
        r = encode(p, {v: terms[inputs[v]] for v in p.variables}, tmap, pyw)
        want = layout_output_term(forward, output, {d: terms[d][0] for d in forward.in_dim_names})
        w = max(r.term.size(), want.size()) + 2
        diff = r.as_int_bv(w) != z3.ZeroExt(w - want.size(), want)
        return z3.Or(diff, *[f.when for f in r.faults])

    def np_bad(env: dict[str, np.ndarray]) -> np.ndarray:
        val, faults = _eval_fast(p, {v: env[inputs[v]] for v in p.variables}, tmap, var_ranges)
        want = _layout_values(forward, output, env)
        n = len(want)
        if not p.variables:
            val = np.broadcast_to(val, (n,))
        return _any_fault(faults, n) | (np.asarray(val != want, dtype=bool))

    def replay(point: dict[str, int]) -> tuple[bool, dict[str, Any], str, str]:
        got, fault = evaluate_point(p, {v: point[inputs[v]] for v in p.variables}, tmap)
        want = forward.apply(**point)[output]
        side = "layout" if forward is layout else "layout^-1"
        if fault is not None:
            return True, {"code": f"undefined: {fault}", side: want}, _fault_kind(p), \
                f"{'undefined behaviour' if p.lang == 'c' else 'runtime error'} at {point}: {fault}"
        return got != want, {"code": got, side: want}, "mismatch", f"code gives {got}, {side} gives {want} at {point}"

    claim = Claim(tuple(order), tuple(dim_ranges[d] for d in order), z3_bad, np_bad, replay)
    return decide(claim, prop, subject, method, rlimit, timeout, details)


# ------------------------------------------------------ code vs ranges --
def _setup(code: str | ParsedCode, ranges: Ranges, lang: str, types: Mapping[str, str] | None):
    p = _parse(code, lang)
    rng = normalise_ranges(ranges)
    missing = [v for v in p.variables if v not in rng]
    if missing:
        raise IndexCodeError(f"no range given for variable(s) {missing}")
    tmap = resolve_types(p, types)
    return p, rng, tmap


def code_equals_code(code_a: str | ParsedCode, code_b: str | ParsedCode, ranges: Ranges, lang: str = "c",
                     lang_b: str | None = None, types: Mapping[str, str] | None = None,
                     types_b: Mapping[str, str] | None = None, *, method: str = "auto",
                     rlimit: int | None = None, timeout: float | None = None) -> Verdict:
    """Prove two expressions equal (as integers) at every point of ``ranges``; UB in either refutes."""
    t0 = time.perf_counter()
    pa, rng, ta = _setup(code_a, ranges, lang, types)
    pb, _, tb = _setup(code_b, ranges, lang_b or lang, types_b if types_b is not None else types)
    prop, subject = "code_equals_code", f"`{pa.text.strip()}` == `{pb.text.strip()}`"
    for p, t in ((pa, ta), (pb, tb)):
        msg = _check_types_hold(p, t, rng)
        if msg:
            return verdict("error", prop, subject, None, t0, msg)
    names = tuple(rng)
    closed = {v: (lo, hi - 1) for v, (lo, hi) in rng.items()}
    wa = python_width(pa, {v: closed[v] for v in pa.variables}) if pa.lang == "python" else None
    wb = python_width(pb, {v: closed[v] for v in pb.variables}) if pb.lang == "python" else None

    def z3_bad(terms: dict[str, tuple[Any, bool]]) -> Any:
        ra = encode(pa, {v: terms[v] for v in pa.variables}, ta, wa)
        rb = encode(pb, {v: terms[v] for v in pb.variables}, tb, wb)
        w = max(ra.term.size(), rb.term.size()) + 2
        return z3.Or(ra.as_int_bv(w) != rb.as_int_bv(w), *[f.when for f in ra.faults + rb.faults])

    def np_bad(env: dict[str, np.ndarray]) -> np.ndarray:
        n = len(next(iter(env.values()))) if env else 1
        va, fa = _eval_fast(pa, {v: env[v] for v in pa.variables}, ta, rng)
        vb, fb = _eval_fast(pb, {v: env[v] for v in pb.variables}, tb, rng)
        return _any_fault(fa + fb, n) | np.asarray(np.broadcast_to(va, (n,)) != np.broadcast_to(vb, (n,)), dtype=bool)

    def replay(point: dict[str, int]) -> tuple[bool, dict[str, Any], str, str]:
        a, fa = evaluate_point(pa, {v: point[v] for v in pa.variables}, ta)
        b, fb = evaluate_point(pb, {v: point[v] for v in pb.variables}, tb)
        if fa or fb:
            which = pa if fa else pb
            return True, {"a": a if fa is None else f"undefined: {fa}", "b": b if fb is None else f"undefined: {fb}"}, \
                _fault_kind(which), f"{'A' if fa else 'B'} faults at {point}: {fa or fb}"
        return a != b, {"a": a, "b": b}, "mismatch", f"A gives {a}, B gives {b} at {point}"

    claim = Claim(names, tuple(rng[n] for n in names), z3_bad, np_bad, replay)
    return decide(claim, prop, subject, method, rlimit, timeout,
                   {"lang": [pa.lang, pb.lang], "types": [ta, tb], "operations": [pa.operations, pb.operations]})


def in_range(code: str | ParsedCode, ranges: Ranges, bounds: "int | tuple[int, int]", lang: str = "c",
             types: Mapping[str, str] | None = None, *, method: str = "auto", rlimit: int | None = None,
             timeout: float | None = None) -> Verdict:
    """Prove ``lo <= code < hi`` (``bounds`` half-open, an int n meaning ``[0, n)``) over ``ranges``."""
    t0 = time.perf_counter()
    p, rng, tmap = _setup(code, ranges, lang, types)
    lo, hi = normalise_ranges({"bounds": bounds})["bounds"]
    prop, subject = "in_range", f"`{p.text.strip()}` in [{lo}, {hi})"
    msg = _check_types_hold(p, tmap, rng)
    if msg:
        return verdict("error", prop, subject, None, t0, msg)
    names = tuple(rng)
    pyw = python_width(p, {v: (a, b - 1) for v, (a, b) in rng.items() if v in p.variables},
                       extra=max(abs(lo), abs(hi))) if p.lang == "python" else None

    def z3_bad(terms: dict[str, tuple[Any, bool]]) -> Any:
        r = encode(p, {v: terms[v] for v in p.variables}, tmap, pyw)
        w = max(r.term.size(), var_width(min(lo, 0) - 1, abs(hi) + 1)) + 2
        x = r.as_int_bv(w)
        return z3.Or(x < lo, x >= hi, *[f.when for f in r.faults])

    def np_bad(env: dict[str, np.ndarray]) -> np.ndarray:
        n = len(next(iter(env.values()))) if env else 1
        v, f = _eval_fast(p, {k: env[k] for k in p.variables}, tmap, rng)
        v = np.broadcast_to(v, (n,))
        return _any_fault(f, n) | np.asarray((v < lo) | (v >= hi), dtype=bool)

    def replay(point: dict[str, int]) -> tuple[bool, dict[str, Any], str, str]:
        v, f = evaluate_point(p, {k: point[k] for k in p.variables}, tmap)
        if f:
            return True, {"code": f"undefined: {f}"}, _fault_kind(p), f"fault at {point}: {f}"
        return not (lo <= v < hi), {"code": v, "bounds": [lo, hi]}, "out_of_range", \
            f"code gives {v}, outside [{lo}, {hi}) at {point}"

    claim = Claim(names, tuple(rng[n] for n in names), z3_bad, np_bad, replay)
    return decide(claim, prop, subject, method, rlimit, timeout, {"lang": p.lang, "types": tmap})


def injective(code: str | ParsedCode, ranges: Ranges, lang: str = "c", types: Mapping[str, str] | None = None,
              *, method: str = "auto", rlimit: int | None = None, timeout: float | None = None) -> Verdict:
    """Prove distinct inputs (within ``ranges``) give distinct values; UB refutes.

    The counterexample names both inputs: ``x`` and ``x'`` for each variable ``x``.
    """
    t0 = time.perf_counter()
    p, rng, tmap = _setup(code, ranges, lang, types)
    prop, subject = "injective", f"`{p.text.strip()}`"
    msg = _check_types_hold(p, tmap, rng)
    if msg:
        return verdict("error", prop, subject, None, t0, msg)
    names = tuple(rng)
    primed = {n: n + "'" for n in names}
    if any(v in rng for v in primed.values()):
        raise IndexCodeError("variable names ending in ' are reserved")
    pyw = python_width(p, {v: (a, b - 1) for v, (a, b) in rng.items() if v in p.variables}) \
        if p.lang == "python" else None
    size = prod(hi - lo for lo, hi in rng.values())
    details = {"lang": p.lang, "types": tmap}

    def replay(point: dict[str, int]) -> tuple[bool, dict[str, Any], str, str]:
        x = {n: point[n] for n in names}
        y = {n: point[primed[n]] for n in names}
        vx, fx = evaluate_point(p, {k: x[k] for k in p.variables}, tmap)
        vy, fy = evaluate_point(p, {k: y[k] for k in p.variables}, tmap)
        if fx or fy:
            return True, {"code(x)": vx if fx is None else f"undefined: {fx}",
                          "code(x')": vy if fy is None else f"undefined: {fy}"}, _fault_kind(p), \
                f"fault at {x if fx else y}: {fx or fy}"
        return x != y and vx == vy, {"code(x)": vx, "code(x')": vy}, "collision", \
            f"{x} and {y} both give {vx}"

    use_ex = method == "exhaustive" or (method == "auto" and size <= AUTO_EXHAUSTIVE_POINTS)
    if use_ex:
        if size > MAX_EXHAUSTIVE_POINTS:
            raise IndexCodeError(f"injective: {size} points is above the exhaustive limit")
        grids = np.indices(tuple(hi - lo for lo, hi in rng.values()), dtype=np.int64).reshape(len(rng), -1)
        env = {n: grids[i] + rng[n][0] for i, n in enumerate(names)}
        v, faults = _eval_fast(p, {k: env[k] for k in p.variables}, tmap, rng)
        v = np.broadcast_to(v, (size,))
        fm = _any_fault(faults, size)
        pt = None
        if fm.any():
            i = int(np.argmax(fm))
            pt = {**{n: int(env[n][i]) for n in names}, **{primed[n]: int(env[n][i]) for n in names}}
        else:
            order = np.argsort(v, kind="stable")
            sv = v[order]
            dup = np.nonzero(sv[1:] == sv[:-1])[0]
            if len(dup):
                # the smallest point (in enumeration order) that collides with an earlier one
                second = order[dup + 1]
                j = int(np.argmin(second))
                b = int(second[j])
                a = int(np.nonzero(v == v[b])[0][0])
                pt = {**{n: int(env[n][a]) for n in names}, **{primed[n]: int(env[n][b]) for n in names}}
        if pt is not None:
            claim = Claim((), (), lambda _: None, None, replay)
            return refute(claim, pt, prop, subject, "exhaustive", t0, {**details, "domain_points": size})
        return verdict("proved", prop, subject, "exhaustive", t0, f"all {size} values distinct",
                        certificate={"points": size}, details={**details, "domain_points": size})

    def z3_bad(terms: dict[str, tuple[Any, bool]]) -> Any:
        rx = encode(p, {v: terms[v] for v in p.variables}, tmap, pyw)
        ry = encode(p, {v: terms[primed[v]] for v in p.variables}, tmap, pyw)
        differ = z3.Or(*[terms[n][0] != terms[primed[n]][0] for n in names]) if names else z3.BoolVal(False)
        return z3.Or(z3.And(differ, rx.term == ry.term), *[f.when for f in rx.faults + ry.faults])

    all_names = names + tuple(primed[n] for n in names)
    claim = Claim(all_names, tuple(rng[n] for n in names) * 2, z3_bad, None, replay)
    return decide(claim, prop, subject, "smt", rlimit, timeout, details)


def bijective(code: str | ParsedCode, ranges: Ranges, lang: str = "c", types: Mapping[str, str] | None = None,
              *, method: str = "auto", rlimit: int | None = None, timeout: float | None = None) -> Verdict:
    """Prove the code is a bijection from the domain onto ``[0, N)``, N = number of domain points.

    Proof: every value is in ``[0, N)`` and the map is injective; a finite
    injective map of N points into N values is onto (pigeonhole).  This is
    LEGO's claim for its layouts (seed 004, section 3).
    """
    t0 = time.perf_counter()
    rng = normalise_ranges(ranges)
    n = prod(hi - lo for lo, hi in rng.values())
    r1 = in_range(code, ranges, (0, n), lang, types, method=method, rlimit=rlimit, timeout=timeout)
    if r1.status != "proved":
        return r1.with_(property="bijective", seconds=time.perf_counter() - t0)
    r2 = injective(code, ranges, lang, types, method=method, rlimit=rlimit, timeout=timeout)
    if r2.status != "proved":
        return r2.with_(property="bijective", seconds=time.perf_counter() - t0)
    return r2.with_(property="bijective", subject=f"{r2.subject} onto [0, {n})", seconds=time.perf_counter() - t0,
                    message=f"in range [0, {n}) ({r1.method}) and injective ({r2.method})",
                    certificate={"in_range": r1.certificate, "injective": r2.certificate})

