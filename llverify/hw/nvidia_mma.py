"""NVIDIA tensor-core layouts: ``#ttg.nvidia_mma`` (mma.sync v2, wgmma v3) and their dot operands.

The accumulator tile of one ``mma``/``wgmma`` instruction (seed 000, section
4.2 and proposition 4.12) is, with ``N`` the last dim and ``M`` the one before,
out dims ordered ``N`` fastest::

    I(2, register, N) * I(4, lane, N) * I(8, lane, M)
      * I(m/8, register, M) * I(n/8, register, N)

(``m x n`` = ``instr_shape[-2:]`` for v2, ``16 x instr_shape[1]`` for v3), times
the warps (``N`` fastest for v2, ``M`` fastest for v3), fitted to the shape.
Dot operands use the same tile with ``k_width`` consecutive K elements per
thread: A = ``(M: instrM, K: k_width * mult)``, B = ``(K: k_width * mult, N: 8)``,
``mult = 4 if instrM == 8 else 8``; warps along K broadcast.  For a v3 parent
``instrM = instr_shape[rank - 2]`` as in Triton 3.9: M at rank 2, but the
instruction's N at rank 3 (``[4, 1, 1]`` warps, ``[16, 64, 16]``: a 64-row tile)
and its K at rank 4.

>>> from llverify.hw import nvidia_mma
>>> L = nvidia_mma([3, 0], [4, 1], [16, 32, 16], shape=[64, 32])
>>> [list(b) for b in L.bases["register"]]
[[0, 1], [8, 0], [0, 8], [0, 16]]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_int_list, cga_bases, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["nvidia_mma", "nvidia_dot_operand", "mma_params", "matrix_order"]


def matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's ``getMatrixOrder``: ``[r-1, r-2, ..., 0]``, or with the first two swapped."""
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def _version(version: object, kind: str) -> tuple[int, int]:
    if isinstance(version, int) and not isinstance(version, bool):
        return version, 0
    v = as_int_list(version, "version", kind)
    if not v:
        raise LayoutError(f"{kind}: version must be [major, minor] (or an int), got {version!r}")
    return v[0], (v[1] if len(v) > 1 else 0)


def mma_params(version: object, warps_per_cta: Sequence[int], instr_shape: Sequence[int],
               kind: str = "nvidia_mma", operand: bool = False) -> tuple[int, list[int], list[int], list[int]]:
    """Validate; returns (major, warps, instr_shape, tile m x n padded to rank).

    ``operand``: the parent of a dot operand, where Triton 3.9 also builds a
    version 3 parent of rank 3 or 4 (its accumulator layout aborts there).
    """
    major, _minor = _version(version, kind)
    wpc = as_int_list(warps_per_cta, "warps_per_cta", kind)
    instr = as_int_list(instr_shape, "instr_shape", kind)
    rank = len(wpc)
    if rank < 2:
        raise LayoutError(f"{kind}: warps_per_cta = {wpc} must have rank >= 2")
    check_pow2(wpc, "warps_per_cta", kind)
    if major == 2:
        check_rank(instr, "instr_shape", rank, kind)
        check_pow2(instr, "instr_shape", kind)
        # Triton 3.9 takes a v2 instr_shape as the tile of nvidiaMmaTile: M = instr[-2] and N = instr[-1] rows
        # and columns, any multiples of 8 (m16n8 and m8n8 are the instructions; a wider tile repeats them in
        # registers), the batch entries unused (LinearLayoutConversions.cpp, NvidiaMmaEncodingAttr::toLinearLayout)
        if instr[-2] % 8 or instr[-1] % 8:
            raise LayoutError(f"{kind}: instr_shape = {instr} is not an mma.sync (v2) tile: its last two entries "
                              f"(M, N) must be multiples of 8, e.g. [..., 16, 8] or [..., 8, 8]")
        tile = list(instr)
    elif major == 3:
        if rank != 2 and not (operand and rank in (3, 4)):
            raise LayoutError(f"{kind}: version 3 (wgmma) needs rank 2{' (3 or 4 as a dot operand parent)' if operand else ''}, "
                              f"got warps_per_cta = {wpc} (Triton 3.9 aborts on this accumulator layout)")
        if len(instr) != 3:
            raise LayoutError(f"{kind}: instr_shape = {instr} must be [M, N, K] for version 3")
        if instr[0] != 16 or instr[1] % 8 or not 8 <= instr[1] <= 256:
            raise LayoutError(f"{kind}: instr_shape = {instr} is not a wgmma shape: M must be 16 and N a "
                              f"multiple of 8 in [8, 256]")
        tile = [instr[0], instr[1]]
    else:
        raise LayoutError(f"{kind}: version = {major} has no linear layout here (supported: 2, 3)")
    return major, wpc, instr, tile


def _mma_tile(rank: int, tile_shape: Sequence[int], k_width: int, order: Sequence[int],
              rep_order: Sequence[int]) -> Tile:
    """Triton's ``nvidiaMmaTile``: registers/lanes of one instruction tile."""
    t = Tile(rank)
    for d in rep_order:
        t.identity(1, "register", d)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    t.identity(k_width, "register", inner).identity(4, "lane", inner).identity(8, "lane", outer)
    t.identity(m // 8, "register", outer).identity(n // (k_width * 4), "register", inner)
    return t


def nvidia_mma(version: object, warps_per_cta: Sequence[int], instr_shape: Sequence[int],
               shape: Sequence[int], cga_layout: Sequence[Sequence[int]] | None = None,
               ctas_per_cga: Sequence[int] | None = None, cta_split_num: Sequence[int] | None = None,
               cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The mma accumulator layout (v2 ``mma.sync`` or v3 ``wgmma``) on ``shape``."""
    kind = "nvidia_mma"
    major, wpc, _instr, tile = mma_params(version, warps_per_cta, instr_shape, kind)
    rank = len(wpc)
    shp = check_shape(shape, rank, kind)
    cga = cga_bases(rank, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
    order = matrix_order(rank, True)
    t = _mma_tile(rank, tile, 2, order, order)
    t.identity_nd("warp", wpc, matrix_order(rank, major != 3))
    return combine_with_shape(t, cga, shp, kind)


def nvidia_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                       shape: Sequence[int]) -> LinearLayout:
    """Dot operand ``operand_index`` (0 = A, 1 = B) of an ``nvidia_mma`` parent spec."""
    kind = "dot_operand"
    p = dict(parent)
    p.pop("kind", None)
    try:
        major, wpc, instr, ptile = mma_params(p.get("version"), p.get("warps_per_cta", ()),
                                              p.get("instr_shape", ()), kind="dot_operand: parent nvidia_mma",
                                              operand=True)
    except TypeError as exc:
        raise LayoutError(f"{kind}: bad parent parameters: {exc}") from None
    rank = len(wpc)
    shp = check_shape(shape, rank, kind)
    if k_width in (0, None) and major in (2, 3):
        # Triton 3.2 and older print no kWidth on a wgmma register operand (Triton 2.x on an mma v2 one either):
        # their lowering fixed the packing; the layout it implies is not the one today's kWidth states
        raise LayoutError(f"{kind}: the encoding states no kWidth (Triton 3.2 and older print none on a mma v{major} "
                          "dot operand); the operand layout that older lowering implies is not modelled")
    if isinstance(k_width, bool) or not isinstance(k_width, int) or k_width <= 0 or k_width & (k_width - 1):
        raise LayoutError(f"{kind}: k_width = {k_width!r} must be a positive power of two")
    if operand_index not in (0, 1) or isinstance(operand_index, bool):
        raise LayoutError(f"{kind}: operand_index = {operand_index!r} must be 0 (A) or 1 (B)")
    if major == 3 and operand_index == 1:
        raise LayoutError(f"{kind}: operand_index = 1 (B) of a version 3 (wgmma) parent lives in shared memory "
                          "and has no register layout")
    is_a = operand_index == 0
    # The operand tile's M is the instruction shape indexed by the tensor's rank: ``instr_shape[rank - 2]``
    # (Triton 3.9, nvidiaDotToLinearLayout in lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp).  For a
    # v3 parent ([M, N, K]) that is M at rank 2, but N at rank 3 and K at rank 4; the wheel agrees.
    instr_m = instr[rank - 2] if major == 3 else ptile[-2]
    if instr_m % 8:
        raise LayoutError(f"{kind}: parent instr_shape = {instr} gives a rank-{rank} operand tile of {instr_m} rows "
                          f"(instr_shape[{rank - 2}]), not a multiple of 8")
    mult = 4 if instr_m == 8 else 8
    tile = [1] * rank
    if is_a:
        tile[rank - 2], tile[rank - 1] = instr_m, k_width * mult
    else:
        tile[rank - 2], tile[rank - 1] = k_width * mult, 8
    k_dim = rank - 1 if is_a else rank - 2
    order = matrix_order(rank, is_a)  # K fastest
    t = _mma_tile(rank, tile, k_width, order, order)
    for d in matrix_order(rank, major != 3):
        if d == k_dim:
            t.zeros(wpc[d], "warp", d)
        else:
            t.identity(wpc[d], "warp", d)
    cga = cga_bases(rank, kind, p.get("cga_layout"), p.get("ctas_per_cga"), p.get("cta_split_num"),
                    p.get("cta_order"))
    cga = [[0 if d == k_dim else c for d, c in enumerate(b)] for b in cga]
    return combine_with_shape(t, cga, shp, kind)
