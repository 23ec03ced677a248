"""AMD matrix-core layouts: ``#ttg.amd_mfma`` (CDNA) and ``#ttg.amd_wmma`` (RDNA).

MFMA (warp size 64; ``height`` = 1 for 64-bit elements else 4), for an
``M x N`` instruction: non-transposed tile ``I(height, register, M) *
I(N, lane, N) * I(64/N, lane, M)`` then ``M*N/(64*height)`` extra register
tiles along M (transposed swaps the roles of M and N); out order ``[N, M]``;
then ``tiles_per_warp[N]`` register tiles and the N warps, registers to cover
the whole N extent of the shape, ``tiles_per_warp[M]`` register tiles, the M
warps, the batch warps; fitted to the shape.

``instr_shape`` is ``[M, N, K]`` as Triton 3.6+ prints it, or ``[M, N]`` as Triton 3.5 and older do: K
selects the instruction but is not an input of the accumulator layout nor of the MFMA dot operand layout
(whose K extent per instruction is ``64 / nonK * k_width``).

WMMA (warp size 32) is :func:`amd_wmma`; dot operands of both live in :mod:`llverify.hw.amd_dot`.
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_bases, as_int_list, cga_bases, check_pow2, check_rank, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["amd_mfma", "amd_wmma", "wmma_params", "WMMA_INSTR_SHAPES"]


def amd_mfma(version: int, instr_shape: Sequence[int], transposed: bool, warps_per_cta: Sequence[int],
             shape: Sequence[int], element_bitwidth: int | None = None, tiles_per_warp: Sequence[int] | None = None,
             cga_layout: Sequence[Sequence[int]] | None = None, ctas_per_cga: Sequence[int] | None = None,
             cta_split_num: Sequence[int] | None = None, cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The MFMA accumulator layout on ``shape`` (see the module docstring)."""
    kind = "amd_mfma"
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= 4:
        raise LayoutError(f"{kind}: version = {version!r} must be in [1, 4]")
    instr = as_int_list(instr_shape, "instr_shape", kind)
    if len(instr) not in (2, 3):
        # Triton 3.5 and older print [M, N]; the instruction's K enters neither this layout nor its operands'
        raise LayoutError(f"{kind}: instr_shape = {instr} must be [M, N, K] (or [M, N], as Triton 3.5 prints it)")
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


#: WMMA instruction shapes ``[M, N, K]`` Triton 3.9.0 accepts, per version (1: RDNA3, 2: RDNA4, 3: gfx1250).
WMMA_INSTR_SHAPES: dict[int, tuple[tuple[int, int, int], ...]] = {
    1: ((16, 16, 16),),
    2: ((16, 16, 16), (16, 16, 32)),
    3: ((16, 16, 4), (16, 16, 32), (16, 16, 64), (16, 16, 128), (32, 16, 64), (32, 16, 128)),
}


def wmma_params(version: object, transposed: object, warp_bases: object, reg_bases: object,
                instr_shape: object, cga_layout: object, rank: object, kind: str = "amd_wmma"
                ) -> tuple[int, bool, list[list[int]], list[list[int]], list[int], list[list[int]], int]:
    """Validate WMMA parameters; returns (version, transposed, warp, reg, instr, cga, rank)."""
    if isinstance(version, bool) or not isinstance(version, int) or version not in WMMA_INSTR_SHAPES:
        raise LayoutError(f"{kind}: version = {version!r} must be in [1, 3]")
    r = 2 if rank is None else rank
    if isinstance(r, bool) or not isinstance(r, int) or r not in (2, 3):
        raise LayoutError(f"{kind}: rank = {rank!r} must be 2 or 3")
    instr = [16, 16, 16] if instr_shape is None else as_int_list(instr_shape, "instr_shape", kind)
    if tuple(instr) not in WMMA_INSTR_SHAPES[version]:
        raise LayoutError(f"{kind}: instr_shape = {instr} is not a WMMA v{version} shape "
                          f"(expected one of {[list(x) for x in WMMA_INSTR_SHAPES[version]]})")
    warp = as_bases(warp_bases, "warp_bases", kind, r)
    reg = as_bases(reg_bases, "reg_bases", kind, r)
    for name, bs in (("warp_bases", warp), ("reg_bases", reg)):
        for i, b in enumerate(bs):
            nz = [c for c in b if c]
            if len(nz) > 1 or (nz and nz[0] & (nz[0] - 1)):
                raise LayoutError(f"{kind}: {name}[{i}] = {b} must be zero or one power of two along one dim "
                                  "(in units of instruction tiles)")
    if warp or reg:
        try:
            LinearLayout.from_bases({"register": reg, "warp": warp}, [f"dim{i}" for i in range(r)])
        except LayoutError:
            raise LayoutError(f"{kind}: reg_bases = {reg}, warp_bases = {warp} do not cover a whole grid of "
                              "instruction tiles (the layout they form must be surjective)") from None
    cga = cga_bases(r, kind, cga_layout)
    return version, bool(transposed), warp, reg, instr, cga, r


def amd_wmma(version: int, warp_bases: Sequence[Sequence[int]], shape: Sequence[int], transposed: bool = False,
             reg_bases: Sequence[Sequence[int]] | None = None, instr_shape: Sequence[int] | None = None,
             cga_layout: Sequence[Sequence[int]] | None = None, rank: int | None = None,
             ctas_per_cga: Sequence[int] | None = None, cta_split_num: Sequence[int] | None = None,
             cta_order: Sequence[int] | None = None) -> LinearLayout:
    """The WMMA accumulator layout on ``shape`` (warp size 32).

    One instruction tile (``M x N`` = ``instr_shape[:2]``; non-transposed, M =
    dim r-2 and N = dim r-1): version 1 holds rows ``2, 4, 8`` in registers and
    lanes ``N 1..8, M 1``; versions 2/3 rows ``1, 2, 4`` in registers and lanes
    ``N 1..8, M 8``; a 32-row instruction (v3 ``32x16``) adds the register row
    16.  ``transposed`` swaps the roles of the two dims inside the tile.  Then
    ``reg_bases`` and ``warp_bases`` (in units of whole tiles) are multiplied
    in, out dims ordered ``N, M, batch``, and the result is fitted to the shape
    with the CGA (repetitions along N first).  ``transposed`` defaults to false and
    ``instr_shape`` to ``[16, 16, 16]``, as Triton 3.9 reads an ``#ttg.amd_wmma``
    that omits ``isTranspose`` / ``instrShape`` (its printer omits them then).

    >>> L = amd_wmma(2, [[0, 1], [1, 0]], shape=[32, 32])
    >>> [list(b) for b in L.bases["warp"]]
    [[0, 16], [16, 0]]
    """
    kind = "amd_wmma"
    version, tr, warp, reg, instr, _, r = wmma_params(version, transposed, warp_bases, reg_bases, instr_shape,
                                                       cga_layout if ctas_per_cga is None else None, rank, kind)
    cga = cga_bases(r, kind, cga_layout, ctas_per_cga, cta_split_num, cta_order)
    shp = check_shape(shape, r, kind)
    m_i, n_i = r - 2, r - 1
    a, b = (n_i, m_i) if tr else (m_i, n_i)  # a: the dim registers walk; b: the dim lanes walk first
    t = Tile(r)
    t.order = [n_i, m_i] + ([0] if r == 3 else [])
    t.in_dim("register").in_dim("lane")
    if version == 1:
        regs = [2, 4, 8]
        lane_a = 1
    else:
        regs = [1, 2, 4]
        lane_a = 8
    big = instr[0] == 32
    for v in regs + ([16] if big else []):
        t.ins["register"].append(_unit(r, a, v))
    t.ins["lane"] = [_unit(r, b, 1 << k) for k in range(4)] + [_unit(r, a, lane_a)]
    t.sizes[a] = 32 if big else 16
    t.sizes[b] = 16
    scale = list(t.sizes)
    t.ins["register"] += [[c * scale[d] for d, c in enumerate(v)] for v in reg]
    t.ins["warp"] = [[c * scale[d] for d, c in enumerate(v)] for v in warp]
    ext = [1] * r
    for v in reg + warp:
        for d, c in enumerate(v):
            if c:
                ext[d] = max(ext[d], 2 * c)
    t.sizes = [scale[d] * ext[d] for d in range(r)]
    return combine_with_shape(t, cga, shp, kind)


def _unit(rank: int, dim: int, value: int) -> list[int]:
    v = [0] * rank
    v[dim] = value
    return v

