"""Thread locality: every element a thread holds in layout B it already holds in layout A.

This is the claim behind "a shape op (or conversion) moves no data between
threads" (seed 000, theorem 9.3: the declared result layout makes the op a
no-op *per thread*): for every hardware index ``x = (register, t)`` of ``B``
(``t`` = lane, warp, block) there is a register ``r`` with ``A(r, t) = B(x)``.

Decision (F2, complete).  Write ``A(r, t) = A_reg r xor A_thr t``.  The
condition is ``B(x) xor A_thr(t(x)) in span(A_reg)`` for all ``x``; the left
side is linear in ``x``, so it holds for all ``x`` iff it holds for every basis
vector of ``B``'s in dims.  Certificate: for each basis vector ``e`` a
register index ``r_e`` with ``A(r_e, t(e)) == B(e)``, checked by evaluation.
Refutation: a basis vector ``e`` for which no register exists, replayed by
enumerating every register index of ``A`` at thread ``t(e)`` and confirming
none holds ``B(e)`` (or, past :data:`REPLAY_LIMIT`, by the span test).

Requires: ``A`` and ``B`` describe the same tensor (out dims equal as a set,
equal sizes) and have the same thread dims with equal sizes.

>>> from llverify.layout import LinearLayout
>>> A = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4]]}, ["dim0"])
>>> B = LinearLayout.from_bases({"register": [[1]], "lane": [[4], [2]]}, ["dim0"])
>>> thread_local(A, A).status, thread_local(A, B).status
('proved', 'refuted')
"""

from __future__ import annotations

import time
from typing import Any, Callable

from llverify.errors import LayoutError
from llverify.f2 import is_independent
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["thread_local", "REPLAY_LIMIT"]

#: refutations are replayed by enumerating A's registers up to this many
REPLAY_LIMIT = 1 << 20

_THREAD_DIMS = ("lane", "warp", "block")


def thread_local(A: LinearLayout, B: LinearLayout, *, subject: str = "B is thread-local to A") -> Verdict:
    """Decide thread locality of ``B`` with respect to ``A`` (see the module docstring)."""
    t0 = time.perf_counter()
    if A == B:
        fast = _equal_layouts(A, subject, t0)
        if fast is not None:
            return fast
    return _thread_local_general(A, B, subject, t0)


def _equal_layouts(A: LinearLayout, subject: str, t0: float) -> Verdict | None:
    """:func:`thread_local` of ``A`` with itself when ``A``'s register columns are independent, else None.

    With ``B == A`` the general decision solves, for each basis vector ``e`` of ``A``'s in dims,
    ``A_reg r = A(e) xor A_thr(t(e))``: a thread bit gives ``0`` (its own column cancels), the register bit
    ``i`` gives ``A_reg r = A_reg e_i``, whose only solution is ``r = 2^i`` when the register columns are
    independent.  Postcondition: the same verdict (status, certificate, details) as the general path, whose
    evaluation check here is the identity ``A(t(e), r_e) == A(e)`` (the same input)."""
    regs = A._dim_flat("register") if "register" in A.in_dim_names else ()
    if not is_independent(regs):
        return None
    certificate = [{"input": {d: 1 << i}, "register": (1 << i) if d == "register" else 0}
                   for d in A.in_dim_names for i in range(A.in_dim_size_log2(d))]
    return Verdict("proved", "thread_local", subject, "f2", time.perf_counter() - t0,
                   certificate={"register_for_each_basis": certificate})


def _thread_local_general(A: LinearLayout, B: LinearLayout, subject: str, t0: float) -> Verdict:
    """:func:`thread_local` by elimination (any pair of layouts)."""

    def err(msg: str) -> Verdict:
        return Verdict("error", "thread_local", subject, None, time.perf_counter() - t0, msg)

    if set(A.out_dim_names) != set(B.out_dim_names) or any(A.out_dim_size(d) != B.out_dim_size(d)
                                                            for d in A.out_dim_names):
        return err(f"A and B describe different tensors: {dict(A.out_dims)} vs {dict(B.out_dims)}")
    for d in _THREAD_DIMS:
        if (d in A.in_dim_names) != (d in B.in_dim_names) or (d in A.in_dim_names and
                                                              A.in_dim_size(d) != B.in_dim_size(d)):
            a = A.in_dim_size(d) if d in A.in_dim_names else 1
            b = B.in_dim_size(d) if d in B.in_dim_names else 1
            if a != b:
                return err(f"A and B have different '{d}' sizes ({a} vs {b}): not the same threads")
    # both sides as flat columns on A's out-dim order (first out dim lowest)
    b_cols = B.transpose_outs(A.out_dim_names).flat_columns
    a_names = A.in_dim_names
    has_reg = "register" in a_names
    regs = list(A._dim_flat("register"))
    offsets = A.flat_in_offsets()
    reg_off = offsets.get("register", 0)
    reduce = _reducer(regs)
    apply = A.apply_flat
    certificate: list[dict[str, Any]] = []
    j = 0
    for d in B.in_dim_names:
        nbits = B.in_dim_size_log2(d)
        # the thread part of A at B's basis vector: A's own basis of d when d is one of A's non-register dims
        a_cols = A._dim_flat(d) if d != "register" else ()
        n_a = len(a_cols)
        if d != "register" and d in a_names and nbits > n_a:
            raise LayoutError(f"input {1 << n_a!r} for in dim '{d}' is outside [0, {1 << n_a})")
        off = offsets.get(d, 0)
        for i in range(nbits):
            target = b_cols[j + i]
            thread_bit = (1 << (off + i)) if i < n_a else 0
            base = a_cols[i] if i < n_a else 0
            r = reduce(target ^ base)
            if r is None:
                x = {n: 0 for n in B.in_dim_names}
                x[d] = 1 << i
                thread = {n: x.get(n, 0) for n in a_names if n != "register"}
                return _refute(A, B, x, thread, subject, t0)
            # check the certificate by evaluating A at (thread of the basis vector, register r)
            if apply(thread_bit | (r << reg_off if has_reg else 0)) != target:
                return err("internal: a thread-locality certificate failed its check")
            certificate.append({"input": {d: 1 << i}, "register": r})
        j += nbits
    return Verdict("proved", "thread_local", subject, "f2", time.perf_counter() - t0,
                   certificate={"register_for_each_basis": certificate})


def _reducer(columns: list[int]) -> Callable[[int], int | None]:
    """``solve(target)``: a register index r with XOR of columns[j] over bits j of r == target, or None.

    Elimination once, keeping one pivot per leading bit (each with the columns it combines), then one pass per
    target down its leading bits: ``_reducer([1, 2])(3) == 3``, ``_reducer([1, 1])(2) is None``.  A pivot combines
    only independent columns (those outside the span of the columns before them), so the answer is the unique
    solution supported on those columns, whatever the order of the reductions.
    """
    pivots: dict[int, tuple[int, int]] = {}  # leading bit (bit_length) -> (vector, combination)
    for j, c in enumerate(columns):
        v, comb = c, 1 << j
        while v:
            p = pivots.get(v.bit_length())
            if p is None:
                pivots[v.bit_length()] = (v, comb)
                break
            v, comb = v ^ p[0], comb ^ p[1]

    def solve(target: int) -> int | None:
        v, comb = target, 0
        while v:
            p = pivots.get(v.bit_length())
            if p is None:
                return None
            v, comb = v ^ p[0], comb ^ p[1]
        return comb

    return solve


def _refute(A: LinearLayout, B: LinearLayout, x: dict[str, int], thread: dict[str, int], subject: str,
            t0: float) -> Verdict:
    element = B.apply(**x)
    nregs = A.in_dim_size("register") if "register" in A.in_dim_names else 1
    if nregs <= REPLAY_LIMIT:
        for r in range(nregs):
            vals = {**thread, "register": r} if "register" in A.in_dim_names else thread
            if dict(A.apply(**vals)) == dict(element):
                return Verdict("error", "thread_local", subject, None, time.perf_counter() - t0,
                               "internal: replay found the element the F2 test said was missing")
        note = f"replayed: none of A's {nregs} registers of that thread holds the element"
    else:
        note = "replayed by the span test (too many registers to enumerate)"
    cx = Counterexample(x, {"B(x)": dict(element), "thread of x in A holds it": False}, note)
    return Verdict("refuted", "thread_local", subject, "f2", time.perf_counter() - t0,
                   message="an element moves to another thread", counterexample=cx)
