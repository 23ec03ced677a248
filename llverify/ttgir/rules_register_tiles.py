"""AMD's register-tile ops ``amdg.extract_slice`` and ``amdg.concat``: each thread's result registers are copies of
its own operand registers, picked by one register map for all threads.

Triton's AMD backend lowers both ops without moving data between threads: for every result register ``r`` it
finds, *at thread 0* (lane, warp and block 0), the operand and register ``rho(r)`` holding the element that
register must receive, and every thread then copies its own register ``rho(r)`` of that operand.  Write the
result layout ``D`` and the operand layout ``S`` (hardware index -> logical coordinate, per dim) and ``f`` for the
op's coordinate map from a result coordinate ``c`` to (operand ``k``, coordinate in that operand):

* ``amdg.extract_slice %x [o_0, .., o_{n-1}]``: one operand, ``f(c) = (0, c + o)`` (integer addition per dim);
* ``amdg.concat %x_0, .., %x_{m-1}``: equal operand shapes ``s`` tile the result shape ``d`` (grid ``g = d / s``),
  ``q = c div s`` per dim, ``k`` = ``q`` linearised row-major over ``g`` (last dim fastest), ``f(c) = (k, c - q s)``.

Obligation ``register_tiles`` (exhaustive, complete): with ``(k(r), l(r)) = f(D(r, 0))`` and ``rho(r)`` a register
with ``S(rho(r), 0) = l(r)``, for every result register ``r`` and every thread ``t``::

    f(D(r, t)) == (k(r), S(rho(r), t))

i.e. the uniform copy puts the right element in every register of every thread.  ``S`` is F2-linear
(``S(r, t) = S_reg(r) xor S_thr(t)``), so every register that holds ``l(r)`` at thread 0 holds the same element at
every thread and the choice of ``rho(r)`` does not matter.  A result register with no such ``rho(r)`` is refuted
at thread 0 (Triton's verifier: "no source register holds the element"); a thread where the copy delivers a
different element is refuted at that (register, thread) (what Triton's lane/warp-basis check guards against).
The witness is replayed by evaluating ``D`` and ``S`` at it with :meth:`LinearLayout.apply`.

Obligation ``tile_shape`` (exact comparison, Triton's verifiers): element types equal, ranks equal; a slice stays
inside its operand (``o + d <= s`` per dim); concat operands all have one type, ``s`` divides ``d`` and there is
one operand per grid cell.

Example: ``extract_slice`` of ``tensor<256x128xi32, #blocked<[8,1],[4,16],[8,1]>>`` at ``[0, 0]`` to ``256x16``
with the same ``#blocked``: every thread keeps its own column, proved; to ``256x2`` refuted at lane 2 (that lane's
result element is column 0, its registers hold column 2).
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable, Iterable

import numpy as np

from llverify.evaluate import evaluate
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, enc_text, int_array, op_names, structural, unknown

__all__ = ["REGISTER_TILE_OPS", "register_tiles", "MAX_POINTS"]

REGISTER_TILE_OPS = ("amdg.extract_slice", "amdg.concat")

#: the largest result domain (registers x threads) enumerated; past it the verdict is unknown
MAX_POINTS = 1 << 22

_OFFSETS = re.compile(r"amdg\.extract_slice\s+%[\w.$#-]+\s*\[([^\]]*)\]")


def slice_offsets(op_text: str, attributes: dict[str, str]) -> list[int] | None:
    """The static offsets of an ``amdg.extract_slice`` (``%r = amdg.extract_slice %x [0, 16] : ...`` -> ``[0, 16]``;
    the generic form's ``static_offsets = array<i64: 0, 16>``), or None when they are not integers."""
    m = _OFFSETS.search(op_text)
    if m:
        try:
            return [int(p) for p in m.group(1).split(",") if p.strip()]
        except ValueError:
            return None
    return int_array(attributes.get("static_offsets"))


def _shape_problems(name: str, srcs: list[TypeRef], dst: TypeRef, offsets: list[int] | None) -> list[str]:
    """Triton's verifier conditions on shapes and element types (module docstring, ``tile_shape``)."""
    s, d = srcs[0], dst
    problems = []
    if any(t.text != s.text for t in srcs[1:]):
        problems.append("the operands do not all have one type")
    if s.element != d.element:
        problems.append(f"element types differ ({s.element} vs {d.element})")
    if len(s.shape) != len(d.shape):
        problems.append(f"ranks differ ({len(s.shape)} vs {len(d.shape)})")
        return problems
    if name == "amdg.extract_slice":
        if offsets is None or len(offsets) != len(s.shape):
            problems.append("the offsets are not one integer per dim")
        else:
            for i, (o, n, m) in enumerate(zip(offsets, d.shape, s.shape)):
                if o < 0 or o + n > m:
                    problems.append(f"dim {i}: offset {o} + size {n} exceeds the operand's {m}")
    else:
        cells = 1
        for i, (n, m) in enumerate(zip(d.shape, s.shape)):
            if m <= 0 or n % m:
                problems.append(f"dim {i}: the operand size {m} does not divide the result size {n}")
            else:
                cells *= n // m
        if not problems and cells != len(srcs):
            problems.append(f"{len(srcs)} operands for a grid of {cells} tiles")
    return problems


def _coords(L: LinearLayout, rank: int) -> tuple[np.ndarray, list[str], int]:
    """``L`` evaluated everywhere as an array ``[threads, registers, rank]`` of coordinates (dim0 first), the
    thread in-dims (lowest first) and the register count."""
    others = [n for n in L.in_dim_names if n != "register"]
    order = (["register"] if L.has_in_dim("register") else []) + others
    Lt = L.transpose_ins(order)
    vals = evaluate(Lt)
    nreg = Lt.in_dim_size("register") if Lt.has_in_dim("register") else 1
    cols = [vals[f"dim{i}"].astype(np.int64) for i in range(rank)]
    arr = np.stack(cols, axis=-1).reshape(-1, nreg, rank)
    return arr, others, nreg


def _thread_of(L: LinearLayout, dims: list[str], t: int) -> dict[str, int]:
    out = {}
    for d in dims:
        bits = L.in_dim_size_log2(d)
        out[d] = t & ((1 << bits) - 1)
        t >>= bits
    return out


def _tile_map(name: str, srcs: list[TypeRef], dst: TypeRef, offsets: list[int] | None
              ) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``f`` of the module docstring, vectorised over a ``[..., rank]`` array of result coordinates."""
    s = np.array(srcs[0].shape, dtype=np.int64)
    if name == "amdg.extract_slice":
        off = np.array(offsets, dtype=np.int64)
        return lambda c: (np.zeros(c.shape[:-1], dtype=np.int64), c + off)
    grid = np.array(dst.shape, dtype=np.int64) // s
    strides = np.array([int(np.prod(grid[i + 1:])) for i in range(len(grid))], dtype=np.int64)

    def f(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = c // s
        return (q * strides).sum(axis=-1), c - q * s
    return f


def register_tiles(ctx: OpContext) -> Iterable[Verdict]:
    """``tile_shape`` and ``register_tiles`` of one ``amdg.extract_slice`` / ``amdg.concat`` (module docstring)."""
    op = ctx.op
    t0 = time.perf_counter()
    srcs = [t for t in op.operand_types]
    dst = op.results[0].type if op.results else None
    subject = f"{op_names(op)}: {enc_text(srcs[0] if srcs else None)} -> {enc_text(dst)}"
    if not srcs or dst is None or any(t is None or t.kind != "tensor" for t in srcs) or dst.kind != "tensor":
        yield unknown("tile_shape", subject, "an operand's or the result's tensor type is not read")
        return
    typed: list[TypeRef] = [t for t in srcs if t is not None]
    offsets = slice_offsets(op.text, dict(op.attributes)) if op.name == "amdg.extract_slice" else None
    problems = _shape_problems(op.name, typed, dst, offsets)
    sides: dict[str, Any] = {"operand": list(typed[0].shape), "result": list(dst.shape), "operands": len(typed),
                             "element (operand, result)": [typed[0].element, dst.element]}
    if offsets is not None:
        sides["offsets"] = offsets
    yield structural("tile_shape", subject, not problems, {}, sides, "; ".join(problems), t0)
    if problems:
        return
    S, D = ctx.built(typed[0]), ctx.built(dst)
    for b in (S, D):
        if not hasattr(b, "layout"):
            yield unknown("register_tiles", subject, getattr(b, "reason", "layout not built"))
            return
    yield decide(op.name, S.layout, D.layout, _tile_map(op.name, typed, dst, offsets),  # type: ignore[union-attr]
                 subject, len(dst.shape), t0)


def decide(name: str, S: LinearLayout, D: LinearLayout,
           f: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], subject: str, rank: int,
           t0: float | None = None) -> Verdict:
    """The ``register_tiles`` verdict for operand layout ``S``, result layout ``D`` and coordinate map ``f``.

    Requires: ``S`` and ``D`` have out dims ``dim0 .. dim{rank-1}``.
    Postcondition: proved iff the uniform register map of thread 0 is right at every (register, thread) of ``D``
    (enumerated); refuted with a replayed witness otherwise; unknown past :data:`MAX_POINTS`."""
    t0 = time.perf_counter() if t0 is None else t0
    prop = "register_tiles"
    s_threads = {n: S.in_dim_size(n) for n in S.in_dim_names if n != "register"}
    d_threads = {n: D.in_dim_size(n) for n in D.in_dim_names if n != "register"}
    if {k: v for k, v in s_threads.items() if v > 1} != {k: v for k, v in d_threads.items() if v > 1}:
        return Verdict("refuted", prop, subject, "exhaustive", time.perf_counter() - t0,
                       "operand and result are spread over different threads",
                       Counterexample({}, {"operand threads": s_threads, "result threads": d_threads},
                                      "the thread dims of both layouts, recomputed"))
    dims_wanted = {f"dim{i}" for i in range(rank)}
    if set(S.out_dim_names) != dims_wanted or set(D.out_dim_names) != dims_wanted:
        return Verdict("unknown", prop, subject, None, time.perf_counter() - t0,
                       f"the layouts' out dims {list(S.out_dim_names)} / {list(D.out_dim_names)} are not dim0.."
                       f"dim{rank - 1}")
    if D.total_in_size > MAX_POINTS or S.total_in_size > MAX_POINTS:
        return Verdict("unknown", prop, subject, None, time.perf_counter() - t0,
                       f"more than {MAX_POINTS} hardware indices to enumerate")
    dc, dthreads, dreg = _coords(D, rank)
    s_order = [n for n in ("register", *dthreads) if S.has_in_dim(n)]
    sc, _, sreg = _coords(S.transpose_ins(s_order + [n for n in S.in_dim_names if n not in s_order]), rank)
    k, local = f(dc)  # [threads, registers], [threads, registers, rank]
    # rho at thread 0: the lowest register of S holding each coordinate
    dims = np.array([S.out_dim_size(f"dim{i}") for i in range(rank)], dtype=np.int64)
    strides = np.array([int(np.prod(dims[i + 1:])) for i in range(rank)], dtype=np.int64)
    table = np.full(int(np.prod(dims)), -1, dtype=np.int64)
    key0 = (sc[0] * strides).sum(axis=-1)
    table[key0[::-1]] = np.arange(sreg, dtype=np.int64)[::-1]
    need0 = local[0]
    inside = np.all((need0 >= 0) & (need0 < dims), axis=-1)
    rho = np.where(inside, table[np.where(inside, (need0 * strides).sum(axis=-1), 0)], -1)
    missing = np.flatnonzero(rho < 0)
    if missing.size:
        r = int(missing[0])
        return _replayed_missing(S, D, f, subject, r, dthreads, rank, t0)
    got = sc[:, rho, :]  # [threads, registers, rank]: what the uniform copy delivers
    ok = (k == k[0][None, :]) & np.all(got == local, axis=-1)
    bad = np.argwhere(~ok)
    if bad.size:
        t, r = (int(v) for v in bad[0])
        return _replayed_wrong(S, D, f, subject, r, t, int(rho[r]), int(k[0][r]), dthreads, rank, t0)
    return Verdict("proved", prop, subject, "exhaustive", time.perf_counter() - t0,
                   f"every thread's {dreg} result registers receive the right element by one register map "
                   f"(all {dc.shape[0] * dreg} register x thread points enumerated)",
                   certificate={"register_map": [int(v) for v in rho[:64]], "points": int(dc.shape[0] * dreg),
                                "operands_of_registers": [int(v) for v in k[0][:64]]},
                   details={"lane_warp_bases_equal": all(S.bases.get(n) == D.bases.get(n) for n in ("lane", "warp"))})


def _point(L: LinearLayout, reg: int, thread: dict[str, int], rank: int) -> np.ndarray:
    out = L.apply({"register": reg, **thread} if L.has_in_dim("register") else dict(thread))
    return np.array([out[f"dim{i}"] for i in range(rank)], dtype=np.int64)


def _replayed_missing(S: LinearLayout, D: LinearLayout, f: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                      subject: str, r: int, dthreads: list[str], rank: int, t0: float) -> Verdict:
    """Register ``r`` at thread 0 needs an element no operand register of thread 0 holds (replayed: every
    register of ``S`` at thread 0 evaluated)."""
    zero = {d: 0 for d in dthreads}
    k, need = f(_point(D, r, zero, rank)[None, :])
    nreg = S.in_dim_size("register") if S.has_in_dim("register") else 1
    held = {tuple(_point(S, j, {d: 0 for d in S.in_dim_names if d != "register"}, rank)) for j in range(nreg)}
    want = tuple(int(v) for v in need[0])
    if want in held:  # the vectorised search and the replay disagree: never report an unreplayed witness
        return Verdict("unknown", "register_tiles", subject, None, time.perf_counter() - t0,
                       "internal: a missing register did not replay")
    return Verdict("refuted", "register_tiles", subject, "exhaustive", time.perf_counter() - t0,
                   f"result register {r} needs element {list(want)} of operand {int(k[0])}, which no register of "
                   f"thread 0 holds",
                   Counterexample({"register": r, **zero},
                                  {"needed (operand, coordinate)": [int(k[0]), list(want)],
                                   "held by thread 0": len(held)},
                                  "every operand register of thread 0 evaluated; none holds the element"))


def _replayed_wrong(S: LinearLayout, D: LinearLayout, f: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
                    subject: str, r: int, t: int, rho: int, k0: int, dthreads: list[str], rank: int,
                    t0: float) -> Verdict:
    """Thread ``t`` copies its register ``rho`` of operand ``k0`` into result register ``r`` and gets another
    element than ``D`` places there (replayed with :meth:`LinearLayout.apply`)."""
    thread = _thread_of(D, dthreads, t)
    k, need = f(_point(D, r, thread, rank)[None, :])
    s_thread = {d: thread.get(d, 0) for d in S.in_dim_names if d != "register"}
    got = _point(S, rho, s_thread, rank)
    want = (int(k[0]), [int(v) for v in need[0]])
    have = (k0, [int(v) for v in got])
    if want == have:
        return Verdict("unknown", "register_tiles", subject, None, time.perf_counter() - t0,
                       "internal: a wrong copy did not replay")
    return Verdict("refuted", "register_tiles", subject, "exhaustive", time.perf_counter() - t0,
                   f"thread {thread} must hold element {want[1]} of operand {want[0]} in result register {r}, but "
                   f"copying its register {rho} of operand {k0} (thread 0's choice) gives {have[1]}",
                   Counterexample({"register": r, **thread}, {"expected": list(want), "actual": list(have)},
                                  "both layouts evaluated at the witness"))
