"""Instruction tiles as linear layouts (seed 000, section 5.3): vectorised ``ld/st.shared``, ``ldmatrix``/``stmatrix``.

An instruction *tile* ``T`` says which elements one instruction moves for one
warp; a conversion ``L = A^-1 o B`` (registers/lanes -> shared offsets) can be
lowered to the instruction when the left division ``L /_t T`` exists
(theorem 5.1).  Two families of layouts are given here.

**Paper tiles** (in dims ``register``, ``lane``; out dim ``offset``, in elements):

* :func:`vector_tile` -- a vectorised ``ld.shared.v*``/``st.shared.v*`` of
  ``vector_bits`` (32, 64 or 128) moves ``vector_bits / bitwidth`` consecutive
  elements per thread: ``identity(vector_bits / bitwidth, register, offset)``.
  16-bit elements and 128-bit vectors: register bases ``1, 2, 4``.
* :func:`matrix_tile` -- ``ldmatrix``/``stmatrix`` make each thread move 4
  contiguous bytes and 4 consecutive lanes one 16-byte row:
  ``id_d^{register,offset} x id_2^{lane,offset}``, ``d = log2(32 / bitwidth)``.

**Warp fragments** of the PTX instructions (in dims ``register``, ``lane``;
out dims ``dim0`` = *row slot*, ``dim1`` = element in the 16-byte row).  In
``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (and
``stmatrix``, which moves the same fragment the other way) matrix ``i`` (of
``num`` = 1, 2, 4) is 8 rows of 16 bytes whose row ``r`` starts at the address
held by lane ``8 i + r`` (lanes 0-7 for ``.x1``, 0-15 for ``.x2``, all 32 for
``.x4``; the other lanes' addresses are ignored).  Row slot ``8 i + r`` is that
row.  Each thread receives one 32-bit register ``d_i`` per matrix:

* plain: lane ``t``'s ``d_i`` holds row ``t / 4``, bytes ``4 (t % 4) .. +3`` of
  matrix ``i`` (for 16-bit elements: columns ``2 (t % 4)`` and ``+1``, the lower
  one in the low half);
* ``.trans`` (16-bit only): lane ``t``'s ``d_i`` holds column ``t / 4`` of rows
  ``2 (t % 4)`` (low half) and ``2 (t % 4) + 1`` (high half) of matrix ``i``.

``register`` bit ``k`` with ``2^k < 32 / bitwidth`` selects the element inside
the 32-bit register; the bits above select the matrix ``i``.  The non-``.trans``
instruction moves bytes and does not care about the element type, so 8- and
32-bit elements are modelled as 4 resp. 1 elements per register (the ``.b16``
instruction applied to packed data); ``.trans`` exists only for ``.b16`` in
the ``m8n8`` shape (the ``.b8`` ``m16n16``/``m16n8`` forms of sm_100 are not
modelled here and raise :class:`~llverify.errors.LayoutError`).

Worked example, ``ldmatrix(16, num=4)``: register ``(0,1), (8,0), (16,0)``;
lane ``(0,2), (0,4), (1,0), (2,0), (4,0)``.
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["vector_tile", "matrix_tile", "ldmatrix", "stmatrix", "ld_shared", "st_shared", "row_address_lane",
           "TILE_KINDS"]

#: The kind names :func:`llverify.hw.build` accepts for instruction tiles.
TILE_KINDS: tuple[str, ...] = ("ld_shared", "st_shared", "ldmatrix", "stmatrix")


def _bits(bitwidth: object, allowed: Sequence[int], what: str) -> int:
    if isinstance(bitwidth, bool) or bitwidth not in allowed:
        raise LayoutError(f"{what}: bitwidth = {bitwidth!r} must be one of {list(allowed)}")
    return int(bitwidth)  # type: ignore[arg-type]


def _log2(n: int) -> int:
    return n.bit_length() - 1


def vector_tile(bitwidth: int, vector_bits: int = 128) -> LinearLayout:
    """The register -> offset tile of one vectorised shared access of ``vector_bits`` bits.

    >>> [b[0] for b in vector_tile(16, 128).bases["register"]]
    [1, 2, 4]
    """
    bits = _bits(bitwidth, (8, 16, 32, 64), "ld_shared")
    if isinstance(vector_bits, bool) or vector_bits not in (8, 16, 32, 64, 128) or vector_bits < bits:
        raise LayoutError(f"ld_shared: vector_bits = {vector_bits!r} must be 8, 16, 32, 64 or 128 and at least "
                          f"the element bitwidth {bits}")
    n = vector_bits // bits
    return LinearLayout._make([("register", [(1 << k,) for k in range(_log2(n))]), ("lane", [])],
                              [("offset", n)])


def matrix_tile(bitwidth: int) -> LinearLayout:
    """The paper's ``ldmatrix``/``stmatrix`` tile ``id_d^{register,offset} x id_2^{lane,offset}``, ``d = log2(32/bitwidth)``.

    >>> [b[0] for b in matrix_tile(16).bases["register"]], [b[0] for b in matrix_tile(16).bases["lane"]]
    ([1], [2, 4])
    """
    bits = _bits(bitwidth, (8, 16, 32), "ldmatrix")
    d = _log2(32 // bits)
    return LinearLayout._make([("register", [(1 << k,) for k in range(d)]),
                               ("lane", [(1 << (d + k),) for k in range(2)])],
                              [("offset", 1 << (d + 2))])


def _check_shape(shape: Sequence[int] | None, natural: list[int], kind: str) -> None:
    if shape is not None and list(shape) != natural:
        raise LayoutError(f"{kind}: shape {list(shape)} differs from the instruction's fixed fragment shape {natural}")


def _fragment(kind: str, bitwidth: int, num: int, trans: bool, shape: Sequence[int] | None) -> LinearLayout:
    bits = _bits(bitwidth, (8, 16, 32), kind)
    if isinstance(num, bool) or num not in (1, 2, 4):
        raise LayoutError(f"{kind}: num = {num!r} must be 1, 2 or 4 (.x1, .x2, .x4)")
    if trans and bits != 16:
        raise LayoutError(f"{kind}: .trans is modelled for 16-bit elements only (m8n8 .b16); the 8-bit "
                          f"m16n16/m16n8 .b8 forms are not modelled (bitwidth = {bits})")
    per_reg = 32 // bits
    row_len = 128 // bits
    reg: list[tuple[int, int]] = []
    lane: list[tuple[int, int]] = []
    if not trans:
        reg += [(0, 1 << k) for k in range(_log2(per_reg))]
        lane += [(0, per_reg), (0, 2 * per_reg), (1, 0), (2, 0), (4, 0)]
    else:
        reg += [(1, 0)]
        lane += [(2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]
    reg += [(8 << k, 0) for k in range(_log2(num))]
    _check_shape(shape, [8 * num, row_len], kind)
    return LinearLayout._make([("register", reg), ("lane", lane)], [("dim0", 8 * num), ("dim1", row_len)])


def ldmatrix(bitwidth: int = 16, num: int = 4, trans: bool = False,
             shape: Sequence[int] | None = None) -> LinearLayout:
    """The warp fragment of ``ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`` (see the module docstring).

    ``shape``, if given, must be the fragment's ``[8 * num, 128 / bitwidth]``.
    """
    return _fragment("ldmatrix", bitwidth, num, bool(trans), shape)


def stmatrix(bitwidth: int = 16, num: int = 4, trans: bool = False,
             shape: Sequence[int] | None = None) -> LinearLayout:
    """The warp fragment of ``stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16`` (same as :func:`ldmatrix`)."""
    return _fragment("stmatrix", bitwidth, num, bool(trans), shape)


def row_address_lane(matrix: int, row: int) -> int:
    """The lane whose address operand gives row ``row`` (0..7) of matrix ``matrix`` (0..3): ``8 * matrix + row``."""
    if not (0 <= matrix < 4 and 0 <= row < 8):
        raise LayoutError(f"row_address_lane: matrix {matrix} must be in 0..3 and row {row} in 0..7")
    return 8 * matrix + row


def ld_shared(bitwidth: int = 16, vector_bits: int = 128, shape: Sequence[int] | None = None) -> LinearLayout:
    """:func:`vector_tile` under the registry's calling convention (``shape`` = ``[vector_bits / bitwidth]`` if given)."""
    t = vector_tile(bitwidth, vector_bits)
    _check_shape(shape, [t.out_dims["offset"]], "ld_shared")
    return t


def st_shared(bitwidth: int = 16, vector_bits: int = 128, shape: Sequence[int] | None = None) -> LinearLayout:
    """Same tile as :func:`ld_shared` (a vectorised store moves the same register -> offset map)."""
    return ld_shared(bitwidth, vector_bits, shape)
