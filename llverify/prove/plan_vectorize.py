"""The ``vectorization`` claim (:mod:`llverify.codegen.vectorize`, theorem 5.1): a vector width proved for a
shared-memory access.

Claim: with ``cvt = shared^-1 o access`` (hardware -> shared-memory offset,
broadcast registers removed), registers ``0 .. width-1`` of every thread hold
``width`` consecutive offsets starting at a multiple of ``width``: ``cvt``
divides on the left by the tile ``T = identity(width, register -> offset)``,
i.e. ``cvt == T * Q`` for some ``Q`` (seed 000, section 5.3, theorem 5.1).

* If the division exists, ``cvt == T * Q`` is handed to
  :func:`llverify.prove.equal` (a checked F2 certificate, or the method asked
  for), so ``proved`` comes from the prover.
* If it does not, a concrete witness is built and *replayed by evaluation*:
  register ``2^k`` (``k < log2 width``) whose offset is not ``2^k`` (the
  vector is not contiguous), or a one-hot input outside the vector whose
  offset is not a multiple of ``width`` (the vector is misaligned).

* If a thread holds fewer distinct registers ``n`` than ``width`` (the
  vector is wider than one iteration of the access: the thread's share of
  the scratch tile), the claim is false, not ill-posed: either registers
  ``0 .. n-1`` already break contiguity (the witness above), or the offset
  ``n`` that the vector ``[0, width)`` of thread 0 needs next is held by
  another thread (a point with a non-zero lane, warp or block, found by
  solving ``cvt(p) = n`` over F2 and replayed), or by no one.

Example: a thread whose registers 0, 1 sit at offsets 0 and 64 (a
column-major access into a row-major buffer) refutes ``width: 2`` with the
point ``register = 1`` at offset 64.
"""

from __future__ import annotations

import time
from typing import Any

from llverify import f2
from llverify.codegen.common import remove_broadcast_registers
from llverify.layout import LinearLayout
from llverify.prove.points import unflatten_in, unit_point
from llverify.prove.properties import equal
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_vectorization"]


def prove_vectorization(access: LinearLayout, shared: LinearLayout, bitwidth: int, width: int, *,
                       subject: str = "vectorization", method: str | None = None, timeout: float | None = None,
                       rlimit: int | None = None) -> Verdict:
    """Decide the claim of the module docstring."""
    t0 = time.perf_counter()
    prop = "vectorization"
    details: dict[str, Any] = {"width": width, "bits": width * bitwidth}
    if width * bitwidth > 128:
        return Verdict("error", prop, subject, None, time.perf_counter() - t0,
                       f"{width} x {bitwidth}-bit vectors are {width * bitwidth} bits; the widest access is 128 bits")
    if "offset" not in shared.in_dim_names:
        return Verdict("error", prop, subject, None, time.perf_counter() - t0,
                       "the shared layout must have an `offset` in dim")
    access = remove_broadcast_registers(access)
    cvt = access.invert_and_compose(shared)
    k = width.bit_length() - 1
    n_regs = cvt.in_dim_size("register") if cvt.has_in_dim("register") else 1
    if n_regs < width:
        return _refute_too_few_registers(cvt, n_regs, width, t0, prop, subject, details)
    tile = LinearLayout.identity_1d(width, "register", "offset")
    quotient = cvt.divide_left(tile)
    if quotient is not None:
        rebuilt = (tile * quotient).transpose_ins(list(cvt.in_dim_names)).transpose_outs(list(cvt.out_dim_names))
        v = equal(cvt, rebuilt, subject=subject, **{k2: v2 for k2, v2 in
                                                    (("method", method), ("timeout", timeout), ("rlimit", rlimit))
                                                    if v2 is not None})
        return v.with_(property=prop, details={**details, **dict(v.details)},
                       message=f"cvt = identity({width}) x Q: " + v.message if v.proved else v.message)
    # refute with a concrete, replayed witness
    for bit in range(k):
        point = unit_point(cvt, "register", bit)
        off = cvt.apply(point)["offset"]
        if off != 1 << bit or any(v for d, v in cvt.apply(point).items() if d != "offset"):
            return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                           f"register {1 << bit} is at offset {off}, not {1 << bit}: the {width} registers are not "
                           "consecutive in shared memory",
                           Counterexample(point, {"offset": off, "vector needs": 1 << bit},
                                          "evaluated: the register's offset breaks the vector"), details=details)
    for d in cvt.in_dim_names:
        for bit in range(cvt.in_dim_size_log2(d)):
            if d == "register" and bit < k:
                continue
            point = unit_point(cvt, d, bit)
            off = cvt.apply(point)["offset"]
            if off % width:
                return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                               f"{d} {1 << bit} starts a vector at offset {off}, not a multiple of {width}: "
                               "misaligned (or overlapping) vectors",
                               Counterexample(point, {"offset": off, "offset % width": off % width},
                                              "evaluated: the vector start is misaligned"), details=details)
    return Verdict("unknown", prop, subject, None, time.perf_counter() - t0,
                   "left division failed but no witness was found", details=details)


def _refute_too_few_registers(cvt: LinearLayout, n_regs: int, width: int, t0: float, prop: str, subject: str,
                              details: dict[str, Any]) -> Verdict:
    """Refute a ``width``-vector claim for threads holding only ``n_regs < width`` distinct registers.

    Requires ``n_regs < width`` (powers of two).  Thread 0's vector would be
    offsets ``0 .. width-1`` in registers ``0 .. width-1``; register ``n_regs``
    does not exist.  Witness, replayed by evaluating ``cvt``: a register
    ``2^j < n_regs`` off its place, else the holder of offset ``n_regs``
    (another thread: it is not register ``n_regs`` of thread 0).
    """
    details = {**details, "distinct_registers": n_regs}
    for bit in range(n_regs.bit_length() - 1):
        point = unit_point(cvt, "register", bit)
        got = dict(cvt.apply(point))
        if got["offset"] != 1 << bit or any(v for d, v in got.items() if d != "offset"):
            return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                           f"register {1 << bit} is at offset {got['offset']}, not {1 << bit}: the registers are "
                           "not consecutive in shared memory",
                           Counterexample(point, {"offset": got["offset"], "vector needs": 1 << bit},
                                          "evaluated: the register's offset breaks the vector"), details=details)
    target = {d: (n_regs if d == "offset" else 0) for d in cvt.out_dim_names}
    shifts = cvt.flat_out_shifts()
    flat_target = sum(v << shifts[d] for d, v in target.items())
    sol = f2.solve(list(cvt.flat_columns), flat_target)
    msg = (f"each thread holds only {n_regs} distinct register(s), fewer than the vector width {width}: "
           f"register {n_regs} of the {width}-vector does not exist")
    if sol is not None:
        point = unflatten_in(cvt, sol)
        got = dict(cvt.apply(point))
        if got == target and any(v for d, v in point.items() if d != "register"):   # replayed
            return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                           msg + f"; offset {n_regs}, inside thread 0's vector, is held by another thread",
                           Counterexample(point, {"offset": got["offset"], "vector of thread 0": [0, width - 1],
                                                  "registers per thread": n_regs},
                                          "evaluated: this point, not register "
                                          f"{n_regs} of thread 0, holds the offset"), details=details)
    point = {d: 0 for d in cvt.in_dim_names}
    if "register" in point:
        point["register"] = n_regs - 1
    got = dict(cvt.apply(point))
    return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                   msg + f"; no thread holds offset {n_regs} at all",
                   Counterexample(point, {"offset": got["offset"], "last register": n_regs - 1,
                                          "vector needs register": width - 1},
                                  "evaluated: the thread's last register ends before the vector"), details=details)

