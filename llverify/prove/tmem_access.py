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

A view (``ttng.tmem_subslice``) reads the allocation's elements moved by its offset; rows ``64 + r`` of
``U`` hold element ``r`` of a second column, so a 64-row view of 2 warps proves at column 0, not at column 1:

>>> U = LinearLayout.from_bases({"row": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 1]],
...                              "col": []}, ["dim0", "dim1"])
>>> V = LinearLayout.from_bases({"register": [], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
...                              "warp": [[32, 0]]}, ["dim0", "dim1"], [64, 1])
>>> [tmem_lane_quarters(V, U, offset={"dim0": 0, "dim1": c}).status for c in (0, 1)]
['proved', 'refuted']
"""

from __future__ import annotations

import time
from typing import Mapping, Sequence

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
                       first_warp: int = 0, offset: Mapping[str, int] | None = None,
                       cta_tiles: Sequence[Sequence[int]] | None = None) -> Verdict:
    """Decide that every warp of ``R`` finds each of its elements in its own TMEM lane quarter of ``T``
    (warp ``w`` of ``R`` is CTA warp ``first_warp + w``).

    ``offset``: ``R`` reads a view of the allocation ``T`` (``ttng.tmem_subslice``): the view's element ``e``
    is the allocation's element ``e + offset`` (per out dim, integer addition), and the claim is decided for
    that element.  Without it the view is the whole allocation.

    ``cta_tiles``: for ``R`` over several CTAs (a ``block`` dim of ``2^k > 1``), the ``k`` block bases of the
    TMEM layout in elements of the whole tensor (the CGA bases times the per-CTA shape): CTA ``b`` holds, in
    its own tensor memory, the tile at origin ``B(b)`` (XOR of the bases of ``b``'s set bits) laid out by
    ``T``.  A warp of CTA ``b`` reaches only that CTA's tensor memory, so each element of ``R`` at block ``b``
    must lie in ``B(b)``'s tile, at a row of the warp's quarter.

    Requires: ``R`` in dims ``register, lane, warp`` (and ``block``), ``T`` in dims ``row, col``, the same out
    dim names in the same order; with ``offset``, the view inside the allocation (``0 <= offset[d]`` and
    ``offset[d] + size_R(d) <= size_T(d)``); with ``cta_tiles``, ``size_R(d) = size_T(d) * 2^j`` and every
    base a multiple of ``size_T`` below ``size_R`` along the dims the CTAs split (no ``offset`` there).
    Postcondition: ``proved`` iff for every hardware index ``x`` of ``R`` (block ``b``) some ``(row, col)``
    with ``T(row, col) = R(x) - B(b) + offset`` has ``row // 32 == (first_warp + warp(x)) mod 4``
    (``B = 0`` on one CTA) and ``R(x) - B(b)`` is inside the tile.
    """
    import numpy as np

    from llverify.evaluate import xor_table

    t0 = time.perf_counter()

    def unknown(msg: str) -> Verdict:
        return Verdict("unknown", _PROP, subject, None, time.perf_counter() - t0, msg)

    shift_by = {d: int((offset or {}).get(d, 0)) for d in R.out_dim_names}
    if set(T.in_dim_names) != {"row", "col"} or not {"register", "lane", "warp"} <= set(R.in_dim_names):
        return unknown("unexpected in dims for a TMEM access")
    if list(R.out_dim_names) != list(T.out_dim_names):
        return unknown(f"register dims {list(R.out_dim_names)} are not the TMEM dims {list(T.out_dim_names)}")
    blocks = R.in_dim_size("block") if "block" in R.in_dim_names else 1
    if blocks == 1 and offset is None and list(R.out_dims.items()) != list(T.out_dims.items()):
        return unknown(f"register tile {dict(R.out_dims)} is not the TMEM tile {dict(T.out_dims)} and no view "
                       "offset was given (a subslice whose offset is not known)")
    tiles = _cta_tiles(R, T, blocks, cta_tiles, shift_by)
    if isinstance(tiles, str):
        return unknown(tiles)
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
    r_full = xor_table(R.flat_columns)
    index = np.arange(R.total_in_size, dtype=np.int64)
    if blocks > 1:
        # the element's CTA tile must be the block's: high bits (above T's sizes) equal to the block's origin
        origin = xor_table([_pack(R, dict(zip(R.out_dim_names, b))) for b in tiles])
        low = _pack(R, {d: min(T.out_dim_size(d), R.out_dim_size(d)) - 1 for d in R.out_dim_names})
        own = (r_full & ~low) == origin[_in_dim_index(R, "block", index)]
        local = r_full & low
    else:
        own, local = np.ones(R.total_in_size, dtype=bool), r_full
    r_elem = _to_allocation(local, R, T, shift_by)
    warp = _in_dim_index(R, "warp", index)
    ok = own & (((quarters[r_elem] >> ((warp + first_warp) % 4)) & 1) == 1)
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return Verdict("proved", _PROP, subject, "exhaustive", time.perf_counter() - t0,
                       "every warp's elements are in its own TMEM lane quarter",
                       certificate={"register_points": int(R.total_in_size), "tmem_points": int(T.total_in_size),
                                    **({"first_warp": first_warp} if first_warp else {}),
                                    **({"view offset": shift_by} if any(shift_by.values()) else {}),
                                    **({"CTA tiles": [list(b) for b in tiles]} if blocks > 1 else {})})
    return _witness(R, T, int(bad[0]), first_warp, shift_by, tiles, subject, t0)


def _in_dim_index(R: LinearLayout, dim: str, flat):
    """The value of in dim ``dim`` at each flattened input index of ``R`` (first in dim least significant)."""
    sizes = [R.in_dim_size(d) for d in R.in_dim_names]
    k = list(R.in_dim_names).index(dim)
    stride = 1
    for n in sizes[:k]:
        stride *= n
    return (flat // stride) % sizes[k]


def _cta_tiles(R: LinearLayout, T: LinearLayout, blocks: int, cta_tiles: Sequence[Sequence[int]] | None,
               shift_by: Mapping[str, int]) -> list[list[int]] | str:
    """The checked CTA tile origins' bases (see :func:`tmem_lane_quarters`), ``[]`` on one CTA, or why the
    access is not decided.  Along an out dim the CTAs split, the register tile is a whole grid of TMEM tiles
    (no view offset); along any other, the view at its offset lies inside the allocation."""
    bases: list[list[int]] = []
    if blocks > 1:
        if cta_tiles is None:
            return "a layout over several CTAs and no CTA layout of the tensor memory: not modelled"
        bases = [[int(c) for c in b] for b in cta_tiles]
        if len(bases) != blocks.bit_length() - 1 or any(len(b) != len(R.out_dim_names) for b in bases):
            return f"the TMEM CTA layout {bases} does not match the register layout's {blocks} CTAs"
    for i, d in enumerate(R.out_dim_names):
        m, n, o = T.out_dim_size(d), R.out_dim_size(d), shift_by[d]
        if any(b[i] for b in bases):
            if o or n % m or any(b[i] % m or not 0 <= b[i] < n for b in bases):
                return (f"the register tile {dict(R.out_dims)} (view offset {dict(shift_by)}) is not a grid of the "
                        f"TMEM tile {dict(T.out_dims)} with CTA tile origins {bases}: not modelled")
        elif o < 0 or o + n > m:
            return (f"the view {dict(R.out_dims)} at offset {dict(shift_by)} reaches past the TMEM allocation "
                    f"{dict(T.out_dims)} (view_in_bounds decides that)")
    return bases


def _witness(R: LinearLayout, T: LinearLayout, flat: int, first_warp: int, shift_by: Mapping[str, int],
             tiles: list[list[int]], subject: str, t0: float) -> Verdict:
    """The refutation at flattened input ``flat``, replayed with :meth:`LinearLayout.apply`: the element, the
    CTA tile and warp quarter it needs, and every TMEM row of the tile holding it."""
    x = {}
    for d in R.in_dim_names:
        n = R.in_dim_size(d)
        x[d] = flat % n
        flat //= n
    dims = list(R.out_dim_names)
    view_element = dict(R.apply(**x))
    origin = [0] * len(dims)
    for bit, b in enumerate(tiles):
        if x.get("block", 0) >> bit & 1:
            origin = [o ^ c for o, c in zip(origin, b)]
    quarter = (x["warp"] + first_warp) % 4
    who = f"warp {x['warp']}" + (f" (CTA warp {first_warp + x['warp']})" if first_warp else "")
    where = {"CTA": x["block"], "its TMEM tile origin": dict(zip(dims, origin))} if tiles else {}
    local = {d: view_element[d] - o for d, o in zip(dims, origin)}
    if any(not 0 <= local[d] < T.out_dim_size(d) for d in dims):
        if not tiles:
            return Verdict("error", _PROP, subject, None, time.perf_counter() - t0,
                           "internal: replay found an element outside the TMEM tile of one CTA")
        cx = Counterexample(x, {"element": view_element, **where}, "replayed with LinearLayout.apply")
        return Verdict("refuted", _PROP, subject, "exhaustive", time.perf_counter() - t0,
                       f"{who} of CTA {x['block']} holds an element that is not in its CTA's tensor memory", cx)
    alloc_element = {d: v + shift_by[d] for d, v in local.items()}
    element = _pack(T, alloc_element)
    rows, cols = T.in_dim_size("row"), T.in_dim_size("col")
    holders = sorted({r for r in range(rows) for c in range(cols)
                      if _flat(T, {"row": r, "col": c}) == element}) if T.total_in_size <= 1 << 16 else None
    if holders is not None and any(r // 32 == quarter for r in holders):
        return Verdict("error", _PROP, subject, None, time.perf_counter() - t0,
                       "internal: replay found the element in the warp's quarter")
    seen = {"element": view_element, **where,
            **({"allocation element": alloc_element} if alloc_element != view_element else {})}
    cx = Counterexample(x, {**seen, "CTA warp": first_warp + x["warp"],
                            "warp quarter (lanes)": [32 * quarter, 32 * quarter + 31],
                            "TMEM rows holding it": holders if holders is not None else "not replayed (> 2^16)"},
                        "replayed with LinearLayout.apply")
    return Verdict("refuted", _PROP, subject, "exhaustive", time.perf_counter() - t0,
                   f"{who} holds an element stored outside its TMEM lane quarter", cx)
