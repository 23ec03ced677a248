"""TMEM lane quarters: every warp reads and writes tensor memory only in the 32 lanes it can reach.

On Blackwell a warp ``w`` of a warp group reaches TMEM lanes ``32 (w mod 4) .. 32 (w mod 4) + 31`` only
(PTX ISA, ``tcgen05.ld`` / ``tcgen05.st``: "each warp in a warpgroup can access a fixed quarter of the
lanes").  A ``ttng.tmem_load`` / ``tmem_store`` between a register layout ``R`` (register, lane, warp ->
dims) and a TMEM layout ``T`` (row = TMEM lane, col -> dims, :mod:`llverify.hw.tmem`) can therefore only be
lowered when every element ``R`` gives warp ``w`` is stored in ``T`` at some row ``r`` with
``r // 32 == w mod 4`` (a row broadcast in ``T`` -- a zero row basis -- offers several rows; any one in
the quarter serves).

Inside a ``ttg.warp_specialize`` partition the layout's warp ``w`` is the partition's own; it runs as CTA warp
``first_warp + w``, so its quarter is ``(first_warp + w) mod 4`` (``first_warp`` = 0 outside partitions).

Decision: exhaustive.  Every TMEM address of ``T`` is enumerated into a table element -> set of quarters,
then every hardware index of ``R``; the claim holds iff each index's warp quarter is in its element's set.
Complete for the whole domain (both layouts are finite); refutations are replayed by evaluating ``R`` and
``T`` with :meth:`LinearLayout.apply` at the witness.

>>> from llverify.layout import LinearLayout
>>> T = LinearLayout.from_bases({"row": [[1], [2], [4], [8], [16], [32], [64]], "col": []}, ["dim0"])
>>> R = LinearLayout.from_bases({"register": [], "lane": [[1], [2], [4], [8], [16]],
...                              "warp": [[32], [64]]}, ["dim0"])
>>> tmem_lane_quarters(R, T).status
'proved'
>>> W = LinearLayout.from_bases({"register": [], "lane": [[1], [2], [4], [8], [16]],
...                              "warp": [[64], [32]]}, ["dim0"])
>>> tmem_lane_quarters(W, T).counterexample.inputs
{'register': 0, 'lane': 0, 'warp': 1}
>>> tmem_lane_quarters(R, T, first_warp=4).status, tmem_lane_quarters(R, T, first_warp=6).status
('proved', 'refuted')
"""

from __future__ import annotations

import time
from typing import Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["tmem_lane_quarters", "MAX_POINTS_LOG2"]

#: both layouts are enumerated up to this many points (log2)
MAX_POINTS_LOG2 = 22

_PROP = "tmem_lane_quarter"


def _flat(L: LinearLayout, values: dict[str, int]) -> int:
    out, acc, shift = L.apply(**values), 0, 0
    for d in L.out_dim_names:
        acc |= out[d] << shift
        shift += L.out_dim_size_log2(d)
    return acc


def _pack(L: LinearLayout, element: Mapping[str, int]) -> int:
    """``element`` packed as :func:`_flat` packs ``L``'s outputs (out dims first lowest, ``L``'s sizes)."""
    acc, shift = 0, 0
    for d in L.out_dim_names:
        acc |= element[d] << shift
        shift += L.out_dim_size_log2(d)
    return acc


def _to_allocation(packed, R: LinearLayout, T: LinearLayout, shift_by: Mapping[str, int]):
    """Packed elements of the view ``R`` (``R``'s out sizes) as packed elements of the allocation ``T``:
    each out dim's field moved by its offset (integer addition) and repacked at ``T``'s sizes.
    Requires: the view at ``shift_by`` inside ``T`` (every sum below ``T``'s size)."""
    if all(R.out_dim_size(d) == T.out_dim_size(d) and not shift_by[d] for d in R.out_dim_names):
        return packed
    out, src, dst = packed & 0, 0, 0
    for d in R.out_dim_names:
        field = (packed >> src) & (R.out_dim_size(d) - 1)
        out = out | ((field + shift_by[d]) << dst)
        src += R.out_dim_size_log2(d)
        dst += T.out_dim_size_log2(d)
    return out


def _by_row(t_elem, rows: int, cols: int, row_first: bool):
    """The table of ``T``'s elements (flattened input, first in dim lowest) as a ``[row, col]`` array (a view)."""
    return t_elem.reshape(cols, rows).T if row_first else t_elem.reshape(rows, cols)


def tmem_lane_quarters(R: LinearLayout, T: LinearLayout, *, subject: str = "tmem access",
                       first_warp: int = 0, offset: Mapping[str, int] | None = None) -> Verdict:
    """Decide that every warp of ``R`` finds each of its elements in its own TMEM lane quarter of ``T``
    (warp ``w`` of ``R`` is CTA warp ``first_warp + w``).

    ``offset``: ``R`` reads a view of the allocation ``T`` (``ttng.tmem_subslice``): the view's element ``e``
    is the allocation's element ``e + offset`` (per out dim, integer addition), and the claim is decided for
    that element.  Without it the view is the whole allocation.

    Requires: ``R`` in dims ``register, lane, warp`` (a ``block`` dim of size 1 allowed), ``T`` in dims
    ``row, col``, the same out dim names in the same order (one CTA); with ``offset``, the view inside the
    allocation: ``0 <= offset[d]`` and ``offset[d] + size_R(d) <= size_T(d)`` for every out dim ``d``.
    Postcondition: ``proved`` iff for every hardware index ``x`` of ``R`` some ``(row, col)`` with
    ``T(row, col) = R(x) + offset`` has ``row // 32 == (first_warp + warp(x)) mod 4``.
    """
    import numpy as np

    from llverify.evaluate import xor_table

    t0 = time.perf_counter()

    def unknown(msg: str) -> Verdict:
        return Verdict("unknown", _PROP, subject, None, time.perf_counter() - t0, msg)

    shift_by = {d: int((offset or {}).get(d, 0)) for d in R.out_dim_names}
    if list(R.out_dim_names) != list(T.out_dim_names):
        return unknown(f"register dims {list(R.out_dim_names)} are not the TMEM dims {list(T.out_dim_names)}")
    if offset is None and list(R.out_dims.items()) != list(T.out_dims.items()):
        return unknown(f"register tile {dict(R.out_dims)} is not the TMEM tile {dict(T.out_dims)} and no view "
                       "offset was given (multi-CTA, or a subslice whose offset is not known)")
    outside = [d for d in R.out_dim_names
               if shift_by[d] < 0 or shift_by[d] + R.out_dim_size(d) > T.out_dim_size(d)]
    if outside:
        return unknown(f"the view {dict(R.out_dims)} at offset {shift_by} reaches past the TMEM allocation "
                       f"{dict(T.out_dims)} (view_in_bounds decides that)")
    if "block" in R.in_dim_names and R.in_dim_size("block") > 1:
        return unknown("a layout over several CTAs: TMEM is per CTA, not modelled")
    if set(T.in_dim_names) != {"row", "col"} or not {"register", "lane", "warp"} <= set(R.in_dim_names):
        return unknown("unexpected in dims for a TMEM access")
    if max(R.total_in_bits, T.total_in_bits) > MAX_POINTS_LOG2:
        return unknown(f"more than 2^{MAX_POINTS_LOG2} points to enumerate")
    # every TMEM address's element (out dims packed first lowest: the flat columns' packing), and per element the
    # set of lane quarters (bit q: some row in 32 q .. 32 q + 31) holding it
    t_elem = xor_table(T.flat_columns)
    shift = T.total_out_bits
    rows, cols = T.in_dim_size("row"), T.in_dim_size("col")
    # flattened input, first in dim least significant: T's in dims are (row, col) in its own order
    by_row = _by_row(t_elem, rows, cols, list(T.in_dim_names)[0] == "row")
    quarters = np.zeros(1 << shift, dtype=np.int64)
    for q in range(-(-rows // 32)):
        quarters[by_row[32 * q:32 * q + 32].ravel()] |= 1 << q
    r_elem = _to_allocation(xor_table(R.flat_columns), R, T, shift_by)
    sizes = [R.in_dim_size(d) for d in R.in_dim_names]
    k = list(R.in_dim_names).index("warp")
    stride = int(np.prod(sizes[:k], dtype=np.int64))
    warp = (np.arange(R.total_in_size, dtype=np.int64) // stride) % sizes[k]
    ok = (quarters[r_elem] >> ((warp + first_warp) % 4)) & 1
    bad = np.flatnonzero(ok == 0)
    if bad.size == 0:
        return Verdict("proved", _PROP, subject, "exhaustive", time.perf_counter() - t0,
                       "every warp's elements are in its own TMEM lane quarter",
                       certificate={"register_points": int(R.total_in_size), "tmem_points": int(T.total_in_size),
                                    **({"first_warp": first_warp} if first_warp else {}),
                                    **({"view offset": shift_by} if any(shift_by.values()) else {})})
    flat = int(bad[0])
    x = {}
    for d, n in zip(R.in_dim_names, sizes):
        x[d] = flat % n
        flat //= n
    # replay with apply: the element, the warp's quarter, and every TMEM row holding the element
    view_element = dict(R.apply(**x))
    alloc_element = {d: v + shift_by[d] for d, v in view_element.items()}
    element = _pack(T, alloc_element)
    holders = sorted({r for r in range(rows) for c in range(T.in_dim_size("col"))
                      if _flat(T, {"row": r, "col": c}) == element}) if T.total_in_size <= 1 << 16 else None
    quarter = (x["warp"] + first_warp) % 4
    if holders is not None and any(r // 32 == quarter for r in holders):
        return Verdict("error", _PROP, subject, None, time.perf_counter() - t0,
                       "internal: replay found the element in the warp's quarter")
    seen = {"element": view_element, **({"allocation element": alloc_element} if any(shift_by.values()) else {})}
    cx = Counterexample(x, {**seen, "CTA warp": first_warp + x["warp"],
                            "warp quarter (lanes)": [32 * quarter, 32 * quarter + 31],
                            "TMEM rows holding it": holders if holders is not None else "not replayed (> 2^16)"},
                        "replayed with LinearLayout.apply")
    who = f"warp {x['warp']}" + (f" (CTA warp {first_warp + x['warp']})" if first_warp else "")
    return Verdict("refuted", _PROP, subject, "exhaustive", time.perf_counter() - t0,
                   f"{who} holds an element stored outside its TMEM lane quarter", cx)
