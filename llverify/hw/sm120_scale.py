"""The layout of the E8M0 scales that sm120's block-scaled ``mma.sync.m16n8k32...block_scale.scale_vec::1X`` reads.

A scale tensor is ``[nonK, K/32]`` (``nonK`` = M for operand A, N for operand B).  With ``scale_vec::1X`` one
32-bit scale register per thread carries one byte per row (A) or column (B); Triton selects thread-id 0 and a
byte id from the row, so every lane of a quad holds the same scale and only the quad index (lane bits 2-4) moves
along nonK.  As an F2 map from (register, lane, warp) bits to (dim0 = nonK, dim1 = K/32) offsets:

* register: all of K/32 first, ``(0, 2^j)``;
* lane: A ``(8, 0), (0, 0), (1, 0), (2, 0), (4, 0)`` (the m16 instruction's rows ``r`` and ``r + 8``: lane bit 0
  picks the half), B ``(0, 0), (0, 0), (1, 0), (2, 0), (4, 0)`` (n8);
* warp: the warp id's bits over the parent's ``warpsPerCTA = [wM, wN]`` with dim 1 fastest; bits of the warps along
  nonK step ``(tile 2^i, 0)`` (tile = 16 for A, 8 for B), the others ``0`` (broadcast);
* register again: the nonK repetitions above ``tile * warps_nonK``.

Every component not below the shape is then zeroed (broadcast).

Requires: a rank-2 power-of-two shape and power-of-two ``warpsPerCTA``.
Postcondition: the bases of a ``#ttg.linear`` layout with in dims register, lane, warp (no block bits).
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError

__all__ = ["sm120_scale_bases"]

Bases = list[list[int]]


def _bits(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise LayoutError(f"{what} = {n} is not a power of two")
    return n.bit_length() - 1


def sm120_scale_bases(op_idx: int, shape: Sequence[int], warps_per_cta: Sequence[int]) -> dict[str, Bases]:
    """The (register, lane, warp) bases of the scale layout for operand ``op_idx`` (0: A, 1: B).

    >>> b = sm120_scale_bases(1, [128, 4], [2, 2])
    >>> b["register"], b["warp"]
    ([[0, 1], [0, 2], [16, 0], [32, 0], [64, 0]], [[8, 0], [0, 0]])
    """
    if op_idx not in (0, 1):
        raise LayoutError(f"opIdx = {op_idx}: a scaled mma has operands 0 and 1")
    if len(shape) != 2 or len(warps_per_cta) != 2:
        raise LayoutError(f"scale shape {list(shape)}: only rank 2 is modelled")
    non_k, ks = shape
    side = 0 if op_idx == 0 else 1
    tile = 16 if op_idx == 0 else 8
    lane = ([[8, 0]] if op_idx == 0 else [[0, 0]]) + [[0, 0], [1, 0], [2, 0], [4, 0]]
    reg = [[0, 1 << j] for j in range(_bits(ks, "scale K extent"))]
    warp: Bases = []
    for d in (1, 0):  # dim 1 of warpsPerCTA is the fastest-varying bit of the warp id
        for i in range(_bits(warps_per_cta[d], "warpsPerCTA")):
            warp.append([tile << i, 0] if d == side else [0, 0])
    step = tile * warps_per_cta[side]
    reg += [[step << i, 0] for i in range(max(0, _bits(non_k, "scale nonK extent") - _bits(step, "tile")))]

    def clip(bs: Bases) -> Bases:
        return [[c if c < lim else 0 for c, lim in zip(b, shape)] for b in bs]
    return {"register": clip(reg), "lane": clip(lane), "warp": clip(warp)}
