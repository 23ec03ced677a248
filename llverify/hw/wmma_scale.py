"""The layout of the E8M0 scales that gfx1250's scaled WMMA (``#ttg.amd_wmma`` version 3) reads.

A scale tensor is ``[nonK, K/f]`` (``nonK`` = M for operand A, N for operand B).  As an F2 map from (register, lane,
warp) bits to (dim0 = nonK, dim1 = K/f) offsets, column by column (learned from Triton 3.9's
``get_wmma_scale_layout`` for a parent without register bases, and checked against it by a differential sweep):

* the operand's tile height ``T``: 32 for the operand whose instruction extent is 32 (A of a non-transposed
  ``32 x 16``, B of a transposed one), else 16;
* lane: ``log2 T`` columns ``(2^i, 0)``; for ``T = 16`` the fifth lane bit is, in a ``16 x 16`` instruction, one more
  nonK step placed after the warps (below), and in a ``32 x 16`` instruction ``0`` (the two half-waves share);
* register: first ``max(log2(128/f), log2 K/f)`` columns ``(0, 2^j)`` (an instruction reads 128/f scale columns);
* warp: the parent's warp bases (in tiles) projected on this operand's axis (A: dim 0, B: dim 1), times ``T``;
* register again: the nonK repetitions above what lanes and warps cover, ``(R 2^i, 0)``.

Every component not below the shape is then zeroed (broadcast).

Requires: rank 2, power-of-two shape, an instruction shape ``[16|32, 16, K]``, a parent without register bases,
warp bases each one tile step on one axis, those along this
operand's axis stepping 1, 2, 4, ... tiles in order.
Postcondition: the bases of a ``#ttg.linear`` layout with in dims register, lane, warp (no block bits).
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError

__all__ = ["wmma_scale_bases"]

Bases = list[list[int]]


def _log2(n: int, what: str) -> int:
    if n < 1 or n & (n - 1):
        raise LayoutError(f"{what} = {n} is not a power of two")
    return n.bit_length() - 1


def wmma_scale_bases(op_idx: int, shape: Sequence[int], instr_shape: Sequence[int], transposed: bool,
                     warp_bases: Sequence[Sequence[int]], scale_factor: int = 32) -> dict[str, Bases]:
    """The (register, lane, warp) bases of the scale layout for operand ``op_idx`` (0: A, 1: B) of gfx1250's
    scaled WMMA whose parent has ``warp_bases`` (in tiles) and no register bases; ``scale_factor`` = f.

    >>> b = wmma_scale_bases(0, [32, 4], [16, 16, 64], True, [[0, 1], [1, 0]])
    >>> b["register"], b["lane"], b["warp"]
    ([[0, 1], [0, 2]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], [[0, 0], [16, 0]])
    """
    if op_idx not in (0, 1):
        raise LayoutError(f"opIdx = {op_idx}: a scaled WMMA has operands 0 and 1")
    if len(shape) != 2 or len(instr_shape) < 2:
        raise LayoutError(f"scale shape {list(shape)}: only rank 2 is modelled")
    mdim, ndim = int(instr_shape[0]), int(instr_shape[1])
    if (mdim, ndim) not in ((16, 16), (32, 16)):
        raise LayoutError(f"instrShape {list(instr_shape)}: the scale layout is modelled for 16x16 and 32x16")
    non_k, ks = int(shape[0]), int(shape[1])
    _log2(non_k, "scale nonK extent")
    _log2(ks, "scale K extent")
    wide = (mdim, ndim) == (32, 16) and op_idx == (1 if transposed else 0)
    tile = 32 if wide else 16
    lane = [[1 << i, 0] for i in range(4)]
    warp: Bases = []
    seen = 1
    for b in warp_bases:
        if len(b) != 2:
            raise LayoutError(f"warp basis {list(b)}: only rank 2 is modelled")
        t = int(b[op_idx])
        if t and (t & (t - 1) or int(b[1 - op_idx])):
            raise LayoutError(f"warp basis {list(b)}: not one power-of-two tile step on one axis")
        if t and t != seen:
            raise LayoutError(f"warp bases {[list(x) for x in warp_bases]}: the warps along this operand's axis do "
                              "not step 1, 2, 4, ... tiles in order (not modelled)")
        warp.append([tile * t, 0])
        if t:
            seen *= 2
    step = tile * seen
    if wide:
        lane.append([16, 0])
    elif (mdim, ndim) == (16, 16):
        lane.append([step, 0])
        step *= 2
    else:
        lane.append([0, 0])
    if scale_factor not in (16, 32):
        raise LayoutError(f"scale factor {scale_factor}: a scaled WMMA has 16 or 32")
    reg = [[0, 1 << j] for j in range(max(_log2(128 // scale_factor, "f"), _log2(ks, "K")))]
    reg += [[step << i, 0] for i in range(max(0, _log2(non_k, "nonK") - _log2(step, "tile")))]

    def clip(bs: Bases) -> Bases:
        return [[c if c < lim else 0 for c, lim in zip(b, shape)] for b in bs]
    return {"register": clip(reg), "lane": clip(lane), "warp": clip(warp)}
