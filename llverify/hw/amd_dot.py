"""Dot operands of AMD matrix-core parents (``#ttg.dot_op`` with an ``amd_mfma`` or ``amd_wmma`` parent).

Operand A (``operand_index = 0``) is ``[..., M, K]``, B (``1``) is ``[..., K, N]``;
``nonK`` is M for A and N for B.  Both build one instruction's operand tile with
out dims ordered ``K, nonK, batch`` (K fastest: each lane holds ``k_width``
consecutive K elements) and are fitted to the shape with the parent's CGA.

* **MFMA** (warp size 64; ``nonKDim`` = instr M for A, N for B)::

      I(k_width, register, K) * I(nonKDim, lane, nonK) * I(64 / nonKDim, lane, K)
        [* I(16, register, K) for A of 64x4 / B of 4x64]
        * I(K_total / kTile, register, K)       # when shape[K] > kTile = 64/nonKDim*k_width (*16)
        * I(tiles_per_warp[nonK], register, nonK)
        * identityND(warp, warps_per_cta, [N, M, batch])   # warps NOT broadcast along K

* **WMMA** (warp size 32; the operand tile has 16 non-K rows for every
  instruction shape, ``depth = 2``)::

      I(k_width, register, K) * I(16, lane, nonK)
        * (Z(2, lane, K) for version 1 | I(2, lane, K) otherwise)
        * I(max(1, instrK / (2 * k_width)), register, K)
        * I(2, register, nonK)   # 32x16 (v3) tiles: A if not transposed, B if transposed
        * the parent's nonzero ``reg_bases`` that do not point along K (others dropped)
        * the parent's ``warp_bases`` with their K component zeroed
  (bases in units of that tile), CGA with its K component zeroed.
  ``k_width`` must be 8/16 (v1) or 4/8/16 (v2).

Worked example (MFMA 32x32x8, warps [1, 1], A, k_width 4, shape [32, 8]):
registers ``(0,1),(0,2)``, lanes ``(1,0),(2,0),(4,0),(8,0),(16,0),(0,4)``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.amd import amd_mfma, wmma_params
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_int_list, cga_bases, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["amd_dot_operand", "mfma_dot_operand", "wmma_dot_operand"]


def _common(operand_index: object, k_width: object) -> None:
    if operand_index not in (0, 1) or isinstance(operand_index, bool):
        raise LayoutError(f"dot_operand: operand_index = {operand_index!r} must be 0 (A) or 1 (B)")
    if isinstance(k_width, bool) or not isinstance(k_width, int) or k_width <= 0 or k_width & (k_width - 1):
        raise LayoutError(f"dot_operand: k_width = {k_width!r} must be a positive power of two for an AMD parent")


def amd_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                    shape: Sequence[int]) -> LinearLayout:
    """Dispatch on the parent kind (``amd_mfma`` or ``amd_wmma``)."""
    if parent.get("kind") in ("amd_mfma", "mfma"):
        return mfma_dot_operand(operand_index, parent, k_width, shape)
    return wmma_dot_operand(operand_index, parent, k_width, shape)


def _params(parent: Mapping[str, Any]) -> dict[str, Any]:
    p = dict(parent)
    p.pop("kind", None)
    return p


def mfma_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                     shape: Sequence[int]) -> LinearLayout:
    """Operand of an ``amd_mfma`` parent spec (see the module docstring)."""
    kind = "dot_operand"
    p = _params(parent)
    # Validate the parent exactly as the accumulator does (on a shape every CGA divides).
    wpc = as_int_list(p.get("warps_per_cta", ()), "warps_per_cta", "dot_operand: parent amd_mfma")
    try:
        amd_mfma(shape=[1024] * len(wpc), **p)
    except TypeError as exc:
        raise LayoutError(f"{kind}: bad amd_mfma parent parameters: {exc}") from None
    except LayoutError as exc:
        raise LayoutError(f"{kind}: parent {exc}") from None
    _common(operand_index, k_width)
    rank = len(wpc)
    shp = check_shape(shape, rank, kind)
    instr = list(p["instr_shape"])
    m, n = instr[0], instr[1]
    tpw = list(p.get("tiles_per_warp") or [1] * rank)
    is_a = operand_index == 0
    k_d, nk_d = (rank - 1, rank - 2) if is_a else (rank - 2, rank - 1)
    non_k = m if is_a else n
    t = Tile(rank)
    t.order = [k_d, nk_d] + ([0] if rank == 3 else [])
    t.identity(k_width, "register", k_d)
    t.identity(non_k, "lane", nk_d).identity(64 // non_k, "lane", k_d)
    k_tile = 64 // non_k * k_width
    if (m, n, is_a) in ((64, 4, True), (4, 64, False)):
        t.identity(16, "register", k_d)
        k_tile *= 16
    if shp[k_d] > k_tile:
        t.identity(shp[k_d] // k_tile, "register", k_d)
    t.identity(tpw[nk_d], "register", nk_d)
    t.in_dim("warp")
    for d in [rank - 1, rank - 2] + ([0] if rank == 3 else []):
        t.identity(wpc[d], "warp", d)
    cga = cga_bases(rank, kind, p.get("cga_layout"), p.get("ctas_per_cga"), p.get("cta_split_num"),
                    p.get("cta_order"))
    return combine_with_shape(t, cga, shp, kind)


def wmma_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                     shape: Sequence[int]) -> LinearLayout:
    """Operand of an ``amd_wmma`` parent spec (see the module docstring)."""
    kind = "dot_operand"
    p = _params(parent)
    unknown = set(p) - {"version", "transposed", "warp_bases", "reg_bases", "instr_shape", "cga_layout", "rank"}
    if unknown:
        raise LayoutError(f"{kind}: unknown amd_wmma parent parameter(s) {', '.join(sorted(unknown))}")
    version, tr, warp, reg, instr, cga, rank = wmma_params(
        p.get("version"), p.get("transposed", False), p.get("warp_bases", []), p.get("reg_bases"),
        p.get("instr_shape"), p.get("cga_layout"), p.get("rank"), "dot_operand: parent amd_wmma")
    _common(operand_index, k_width)
    allowed = {1: (8, 16), 2: (4, 8, 16)}.get(version)
    if allowed and k_width not in allowed:
        raise LayoutError(f"{kind}: k_width = {k_width} must be one of {allowed} for a WMMA v{version} parent")
    shp = check_shape(shape, rank, kind)
    is_a = operand_index == 0
    k_d, nk_d = (rank - 1, rank - 2) if is_a else (rank - 2, rank - 1)
    depth = 2  # 32 lanes / 16 rows of the operand tile
    t = Tile(rank)
    t.order = [k_d, nk_d] + ([0] if rank == 3 else [])
    t.identity(k_width, "register", k_d)
    t.identity(16, "lane", nk_d)
    if version == 1:
        t.zeros(depth, "lane", k_d)
    else:
        t.identity(depth, "lane", k_d)
    t.identity(max(1, instr[2] // (depth * k_width)), "register", k_d)
    if instr[0] == 32 and is_a != tr:  # the 32-long side of a 32x16 tile is this operand's nonK
        t.identity(2, "register", nk_d)
    tile = list(t.sizes)
    ext = [1] * rank
    for name, bs in (("register", [v for v in reg if any(v) and not v[k_d]]), ("warp", warp)):
        t.ins[name] = t.ins.get(name, []) + [[0 if d == k_d else c * tile[d] for d, c in enumerate(v)] for v in bs]
        for v in bs:
            for d, c in enumerate(v):
                if c and d != k_d:
                    ext[d] = max(ext[d], 2 * c)
    t.sizes = [tile[d] * ext[d] for d in range(rank)]
    cga = [[0 if d == k_d else c for d, c in enumerate(b)] for b in cga]
    return combine_with_shape(t, cga, shp, kind)
