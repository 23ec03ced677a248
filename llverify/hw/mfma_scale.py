"""The layout of the E8M0 scales that gfx950's scaled MFMA (``v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4``) reads.

A scale tensor is ``[nonK, K/32]`` (``nonK`` = M for operand A, N for operand B; one byte per 32 elements of K).
One MFMA instruction of ``mdim x mdim`` covers ``mdim`` rows and ``64 / mdim`` scale columns (16x16x128: 4, 32x32x64:
2); lane ``l`` of the 64-lane wave holds the scale of row ``l mod mdim`` and column ``l div mdim``.  As an F2 map
from (register, lane, warp) bits to (dim0 = nonK, dim1 = K/32) offsets, column by column:

* lane: ``log2 mdim`` columns ``(2^i, 0)``, then ``log2(64/mdim)`` columns ``(0, 2^j)``;
* register: first the K repetitions ``(0, (64/mdim) 2^j)``, then the parent's ``tilesPerWarp`` along nonK
  ``(mdim 2^i, 0)``;
* warp: the warp id's bits in the parent's order (dim 1 of ``warpsPerCTA`` fastest): the bits of the warps along
  nonK step ``(mdim tiles 2^i, 0)``, the others are ``0`` (those warps share the scales: broadcast);
* register again: the nonK repetitions above one CTA tile, ``(mdim tiles warps_nonK 2^i, 0)``.

Every component not below the shape is then zeroed (the tensor is smaller than the tile: broadcast).

Requires: a rank-2 power-of-two shape, ``mdim`` in {16, 32}, power-of-two ``warpsPerCTA`` / ``tilesPerWarp``.
Postcondition: the bases of a ``#ttg.linear`` layout with in dims register, lane, warp (no block bits).
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError

__all__ = ["mfma_scale_bases"]

Bases = list[list[int]]


def _log2(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise LayoutError(f"{what} = {n} is not a power of two")
    return n.bit_length() - 1


def mfma_scale_bases(op_idx: int, shape: Sequence[int], mdim: int, warps_per_cta: Sequence[int],
                     tiles_per_warp: Sequence[int] | None = None) -> dict[str, Bases]:
    """The (register, lane, warp) bases of the scale layout for operand ``op_idx`` (0: A, 1: B) of a scaled MFMA.

    >>> b = mfma_scale_bases(0, [64, 8], 16, [2, 2])
    >>> b["register"], b["warp"]
    ([[0, 4], [32, 0]], [[0, 0], [16, 0]])
    """
    if op_idx not in (0, 1):
        raise LayoutError(f"opIdx = {op_idx}: a scaled MFMA has operands 0 and 1")
    if mdim not in (16, 32):
        raise LayoutError(f"instrShape M = {mdim}: gfx950's scaled MFMA is 16x16x128 or 32x32x64")
    if len(shape) != 2 or len(warps_per_cta) != 2:
        raise LayoutError(f"scale shape {list(shape)}: only rank 2 is modelled")
    non_k, ks = shape
    _log2(non_k, "scale nonK extent")
    _log2(ks, "scale K extent")
    tiles = list(tiles_per_warp or [1, 1])
    side = 0 if op_idx == 0 else 1  # the warpsPerCTA / tilesPerWarp dim that runs along nonK
    n_tiles = tiles[side]
    k_per = 64 // mdim
    lane = [[1 << i, 0] for i in range(_log2(mdim, "mdim"))] + [[0, 1 << j] for j in range(_log2(k_per, "k"))]
    reg = [[0, k_per << j] for j in range(max(0, _log2(ks, "K") - _log2(k_per, "k")))]
    reg += [[mdim << i, 0] for i in range(_log2(n_tiles, "tilesPerWarp"))]
    warp: Bases = []
    step = mdim * n_tiles
    for d in (1, 0):  # dim 1 of warpsPerCTA is the fastest-varying bit of the warp id
        for i in range(_log2(warps_per_cta[d], "warpsPerCTA")):
            warp.append([step << i, 0] if d == side else [0, 0])
    tile = step * warps_per_cta[side]
    reg += [[tile << i, 0] for i in range(max(0, _log2(non_k, "nonK") - _log2(tile, "tile")))]

    def clip(bs: Bases) -> Bases:
        return [[c if c < lim else 0 for c, lim in zip(b, shape)] for b in bs]
    return {"register": clip(reg), "lane": clip(lane), "warp": clip(warp)}
