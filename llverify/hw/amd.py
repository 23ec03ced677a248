"""AMD matrix-core layouts: ``#ttg.amd_mfma`` (CDNA) and ``#ttg.amd_wmma`` (RDNA).

MFMA (warp size 64; ``height`` = 1 for 64-bit elements else 4), for an
``M x N`` instruction: non-transposed tile ``I(height, register, M) *
I(N, lane, N) * I(64/N, lane, M)`` then ``M*N/(64*height)`` extra register
tiles along M (transposed swaps the roles of M and N); out order ``[N, M]``;
then ``tiles_per_warp[N]`` register tiles and the N warps, registers to cover
the whole N extent of the shape, ``tiles_per_warp[M]`` register tiles, the M
warps, the batch warps; fitted to the shape.

WMMA and AMD dot operands are not modelled yet: they raise ``LayoutError``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_int_list, cga_bases, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["amd_mfma", "amd_wmma", "amd_dot_operand"]


def amd_mfma(version: int, instr_shape: Sequence[int], transposed: bool, warps_per_cta: Sequence[int],
             shape: Sequence[int], element_bitwidth: int | None = None, tiles_per_warp: Sequence[int] | None = None,
             cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
             cta_split_num: Sequence[int] | None = None, cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The MFMA accumulator layout on ``shape`` (see the module docstring)."""
    kind = "amd_mfma"
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= 4:
        raise LayoutError(f"{kind}: version = {version!r} must be in [1, 4]")
    instr = as_int_list(instr_shape, "instr_shape", kind)
    if len(instr) != 3:
        raise LayoutError(f"{kind}: instr_shape = {instr} must be [M, N, K]")
    if instr[:2] not in ([32, 32], [16, 16], [64, 4], [4, 64]):
        raise LayoutError(f"{kind}: instr_shape = {instr} is not an MFMA shape (M x N in 32x32, 16x16, 64x4, 4x64)")
    if instr[:2] == [64, 4] and not transposed:
        raise LayoutError(f"{kind}: instr_shape 64x4 must be transposed")
    bits = 32 if element_bitwidth is None else element_bitwidth
    if bits not in (32, 64):
        raise LayoutError(f"{kind}: element_bitwidth = {element_bitwidth!r} must be 32 or 64")
    wpc = as_int_list(warps_per_cta, "warps_per_cta", kind)
    rank = len(wpc)
    if rank not in (2, 3):
        raise LayoutError(f"{kind}: warps_per_cta = {wpc} must have rank 2 or 3")
    check_pow2(wpc, "warps_per_cta", kind)
    tpw = [1] * rank if tiles_per_warp is None else as_int_list(tiles_per_warp, "tiles_per_warp", kind)
    check_rank(tpw, "tiles_per_warp", rank, kind)
    check_pow2(tpw, "tiles_per_warp", kind)
    shp = check_shape(shape, rank, kind)
    cga = cga_bases(rank, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
    m_i, n_i = rank - 2, rank - 1
    m, n = instr[0], instr[1]
    height = 1 if bits == 64 else 4
    tiles = (m * n) // (64 * height)
    t = Tile(rank)
    if not transposed:
        t.identity(height, "register", m_i).identity(n, "lane", n_i).identity(64 // n, "lane", m_i)
        t.identity(tiles, "register", m_i)
    else:
        t.identity(height, "register", n_i).identity(m, "lane", m_i).identity(64 // m, "lane", n_i)
        t.identity(tiles, "register", n_i)
    t.order = [n_i, m_i]
    t.in_dim("warp")
    t.identity(tpw[n_i], "register", n_i).identity(wpc[n_i], "warp", n_i)
    t.identity(shp[n_i] // (n * wpc[n_i] * tpw[n_i]), "register", n_i)
    t.identity(tpw[m_i], "register", m_i).identity(wpc[m_i], "warp", m_i)
    if rank == 3:
        t.identity(1, "register", 0).identity(1, "lane", 0).identity(wpc[0], "warp", 0)
    return combine_with_shape(t, cga, shp, kind)


def amd_wmma(version: int, transposed: bool, warp_bases: Sequence[Sequence[int]], shape: Sequence[int],
             reg_bases: Sequence[Sequence[int]] | None = None, instr_shape: Sequence[int] | None = None,
             cga_layout: Sequence[Sequence[int]] | None = None, rank: int | None = None) -> LinearLayout:
    """AMD WMMA: not modelled yet (raises ``LayoutError``)."""
    raise LayoutError("amd_wmma: not modelled by llverify yet (no bit-exact construction is implemented)")


def amd_dot_operand(operand_index: int, parent: Mapping[str, Any], k_width: int,
                    shape: Sequence[int]) -> LinearLayout:
    """Dot operands of AMD parents: not modelled yet (raises ``LayoutError``)."""
    raise LayoutError(f"dot_operand: operands of an {parent.get('kind')} parent are not modelled by llverify yet")
