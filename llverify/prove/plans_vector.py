"""The ``vectorization`` claim (theorem 5.1): a vector width proved for a shared-memory access.

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

Example: a thread whose registers 0, 1 sit at offsets 0 and 64 (a
column-major access into a row-major buffer) refutes ``width: 2`` with the
point ``register = 1`` at offset 64.
"""

from __future__ import annotations

import time
from typing import Any

from llverify.codegen.common import remove_broadcast_registers
from llverify.layout import LinearLayout
from llverify.prove.properties import equal
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["prove_vectorization"]


def _one_hot(L: LinearLayout, dim: str, bit: int) -> dict[str, int]:
    return {d: (1 << bit if d == dim else 0) for d in L.in_dim_names}


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
    if not cvt.has_in_dim("register") or cvt.in_dim_size("register") < width:
        n = cvt.in_dim_size("register") if cvt.has_in_dim("register") else 1
        return Verdict("error", prop, subject, None, time.perf_counter() - t0,
                       f"each thread holds only {n} distinct register(s), fewer than the vector width {width}")
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
        point = _one_hot(cvt, "register", bit)
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
            point = _one_hot(cvt, d, bit)
            off = cvt.apply(point)["offset"]
            if off % width:
                return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                               f"{d} {1 << bit} starts a vector at offset {off}, not a multiple of {width}: "
                               "misaligned (or overlapping) vectors",
                               Counterexample(point, {"offset": off, "offset % width": off % width},
                                              "evaluated: the vector start is misaligned"), details=details)
    return Verdict("unknown", prop, subject, None, time.perf_counter() - t0,
                   "left division failed but no witness was found", details=details)
