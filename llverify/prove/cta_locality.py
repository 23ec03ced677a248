"""CTA locality: every element a CTA needs under layout ``need`` is held by the same CTA under ``supply``.

A CTA of a cluster reads and writes only its own shared memory with ``ld/st.shared`` (and its own tensor memory),
so a register tensor stored into a buffer (``ttg.local_alloc``, ``ttg.local_store``) must hold, in CTA ``b``,
every element CTA ``b``'s copy of the buffer keeps; a load (``ttg.local_load``) must find in CTA ``b``'s buffer
every element CTA ``b``'s registers receive; an MMA (``ttng.warp_group_dot``, ``ttng.tc_gen5_mma``) must find in
CTA ``b``'s operands the rows (columns) of every accumulator element CTA ``b`` computes, for every ``k``.  The
layouts' ``block`` in dim is the CTA (``CGALayout``); every other in dim (``register``, ``lane``, ``warp``,
``offset``, the MMA's ``k``) is local to the CTA.

Decision (F2, complete).  Write ``S(l, b) = S_loc l xor S_blk b`` and ``N(l, b) = N_loc l xor N_blk b``.  CTA ``b``
holds the coset ``S_blk b + span(S_loc)`` and needs ``N_blk b + span(N_loc)``; the second is inside the first for
every ``b`` iff (i) every column of ``N_loc`` is in ``span(S_loc)`` and (ii) ``N_blk e_i xor S_blk e_i`` is in
``span(S_loc)`` for every block bit ``i`` (both sides are linear in ``b``).  Certificate: for each checked column,
the local input of ``supply`` that reaches it, checked by evaluating ``supply``.  Refutation: the first column
that fails names a CTA (``0`` for (i), ``e_i`` for (ii)) and an element it needs (``need`` evaluated at that
input); the witness is replayed by evaluating ``need`` with :meth:`LinearLayout.apply` and confirming, by
enumerating ``supply``'s local inputs in that CTA (or, past :data:`REPLAY_LIMIT`, by elimination), that none
reaches the element.

Requires: both layouts describe the same tensor (out dims equal as a set, equal sizes); ``block`` of equal
size in both, or absent in both.

>>> from llverify.layout import LinearLayout
>>> regs = LinearLayout.from_bases({"register": [[1]], "block": [[2]]}, ["dim0"])      # CTA b holds {2b, 2b+1}
>>> whole = LinearLayout.from_bases({"offset": [[1], [2]], "block": [[0]]}, ["dim0"])  # every CTA keeps all 4
>>> half = LinearLayout.from_bases({"offset": [[1]], "block": [[2]]}, ["dim0"])       # CTA b keeps {2b, 2b+1}
>>> cta_local(regs, half).status, cta_local(regs, whole).status, cta_local(whole, regs).status
('proved', 'refuted', 'proved')
"""

from __future__ import annotations

import time
from typing import Any

from llverify.layout import LinearLayout
from llverify.prove.locality import _reducer
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["cta_local", "REPLAY_LIMIT"]

#: refutations are replayed by enumerating the supplying CTA's local inputs up to this many
REPLAY_LIMIT = 1 << 20

_BLOCK = "block"


def cta_local(supply: LinearLayout, need: LinearLayout, *, subject: str = "need is CTA-local to supply",
              prop: str = "cta_local") -> Verdict:
    """Decide CTA locality of ``need`` with respect to ``supply`` (see the module docstring); the verdict's
    property is ``prop``."""
    t0 = time.perf_counter()

    def err(msg: str) -> Verdict:
        return Verdict("error", prop, subject, None, time.perf_counter() - t0, msg)

    if set(supply.out_dim_names) != set(need.out_dim_names) or any(
            supply.out_dim_size(d) != need.out_dim_size(d) for d in supply.out_dim_names):
        return err(f"the layouts describe different tensors: {dict(supply.out_dims)} vs {dict(need.out_dims)}")
    s_blocks = supply.in_dim_size_log2(_BLOCK) if supply.has_in_dim(_BLOCK) else 0
    n_blocks = need.in_dim_size_log2(_BLOCK) if need.has_in_dim(_BLOCK) else 0
    if s_blocks != n_blocks:
        return err(f"the layouts span {1 << s_blocks} and {1 << n_blocks} CTAs")
    need = need.transpose_outs(list(supply.out_dim_names))
    local = [c for d, cols in supply._dim_columns() if d != _BLOCK for c in cols]
    local_inputs = [(d, i) for d in supply.in_dim_names if d != _BLOCK for i in range(supply.in_dim_size_log2(d))]
    s_block = list(supply._dim_flat(_BLOCK)) if s_blocks else []
    reduce = _reducer(local)
    certificate: list[dict[str, Any]] = []
    for d, cols in need._dim_columns():
        for i, col in enumerate(cols):
            cta = (1 << i) if d == _BLOCK else 0
            target = col ^ (s_block[i] if d == _BLOCK else 0)
            r = reduce(target)
            if r is None:
                return _refute(supply, need, {d: 1 << i}, cta, subject, prop, t0)
            point = _point(local_inputs, r)
            if cta:
                point[_BLOCK] = cta
            if supply.apply_flat(_flat(supply, point)) != col:
                return err("internal: a CTA-locality certificate failed its check")
            certificate.append({"need": {d: 1 << i}, "cta": cta, "supply": point})
    return Verdict("proved", prop, subject, "f2", time.perf_counter() - t0,
                   certificate={"supply_for_each_basis": certificate})


def _point(inputs: list[tuple[str, int]], mask: int) -> dict[str, int]:
    """The local input of ``supply`` whose flat local bits are ``mask`` (``inputs`` lists each bit's dim)."""
    point: dict[str, int] = {}
    for j, (d, i) in enumerate(inputs):
        if mask >> j & 1:
            point[d] = point.get(d, 0) | 1 << i
    return point


def _flat(layout: LinearLayout, point: dict[str, int]) -> int:
    offsets = layout.flat_in_offsets()
    return sum(v << offsets[d] for d, v in point.items())


def _refute(supply: LinearLayout, need: LinearLayout, x: dict[str, int], cta: int, subject: str, prop: str,
            t0: float) -> Verdict:
    """The refutation at ``need``'s basis input ``x`` (CTA ``cta``), replayed: the element is evaluated from
    ``need`` and every local input of ``supply`` in that CTA is shown not to reach it."""
    point = {d: x.get(d, 0) for d in need.in_dim_names}
    element = dict(need.apply(point))
    local_dims = [d for d in supply.in_dim_names if d != _BLOCK]
    count = 1
    for d in local_dims:
        count *= supply.in_dim_size(d)
    if count <= REPLAY_LIMIT:
        for k in range(count):
            p: dict[str, int] = {}
            rest = k
            for d in local_dims:
                p[d] = rest % supply.in_dim_size(d)
                rest //= supply.in_dim_size(d)
            if supply.has_in_dim(_BLOCK):
                p[_BLOCK] = cta
            if dict(supply.apply(p)) == element:
                return Verdict("error", prop, subject, None, time.perf_counter() - t0,
                               "internal: a CTA-locality refutation failed its replay")
        how = f"all {count} local inputs of the supplying layout in CTA {cta} enumerated"
    else:
        how = "the element is outside the supplying CTA's coset (elimination)"
    return Verdict("refuted", prop, subject, "f2", time.perf_counter() - t0,
                   f"CTA {cta} needs element {element} but holds it nowhere: {how}",
                   Counterexample({"cta": cta, **point}, {"need(x)": element, "held by CTA": False}, how))
