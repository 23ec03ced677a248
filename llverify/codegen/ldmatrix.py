"""Bank wavefronts of ``ldmatrix`` / ``stmatrix`` (plain and ``.trans``, ``.x1/.x2/.x4``) in closed form.

PTX semantics modelled (``ldmatrix.sync.aligned.m8n8.xN{.trans}.b16`` and ``stmatrix``, identical
addressing): one instruction moves ``N`` in {1, 2, 4} matrices of 8 x 8 16-bit elements, i.e. 8 rows of
16 bytes each.  Row ``r`` of matrix ``j`` is one 16-byte-aligned row whose address is supplied by lane
``8 j + r``.  Plain: lane ``l`` holds (as one 32-bit register) the 4 bytes ``4 (l % 4) .. +3`` of row
``l / 4``.  ``.trans`` (16-bit elements only): lane ``l`` holds elements ``(row 2 (l % 4) + k, column
l / 4)``, ``k = 0, 1``.  Elements narrower or wider than 16 bits travel packed in the 32-bit register
(plain only; Triton uses the b16 form for 8- and 32-bit elements).

In llverify's terms, with ``cvt = S^-1 L`` (hardware -> shared offset, broadcast registers removed) and
``d = log2(32 / bits)``:

* plain tile: ``d`` registers (after a permutation) map to offsets ``1 .. 2^(d-1)``, lanes 0 and 1 to
  ``2^d, 2^(d+1)`` (four lanes cover one 16-byte row) and nothing else touches offset bits ``< d + 2``;
  the three *row bases* are lanes 2, 3, 4;
* ``.trans`` tile (16 bits): lanes 2, 3, 4 map to offsets 1, 2, 4 (eight lanes walk one row) and nothing
  else touches offset bits 0..2; the row bases are register 0 and lanes 0, 1 (Triton's lowering takes
  register 0 of the divided layout as the row bit);
* the next ``log2 N`` registers select the matrix; ``N = min(4, registers * bits / 32)``.

Wavefront model (``BankModel``, no hard-coded bank count): the shared-memory unit serves
``banks * bank_bytes`` bytes per wavefront, i.e. ``G = banks * bank_bytes / 16`` rows (NVIDIA: 8, one
matrix).  A 16-byte-aligned row covers one *bank group* of ``16 / bank_bytes`` banks; rows at the same
address are served together (broadcast), rows in the same group at different addresses serialise.  Let
``c_i = (offset(row basis i) * bits / 8) >> 4`` (16-byte chunk of a row, linear over F2 because rows are
16-byte aligned).  Every hit group holds the same number of distinct rows, so

    wavefronts per matrix = 2 ** dim(span(c) ∩ {x : x mod G == 0}),  per instruction = N * that.

Hand-computed examples: a 64 x 64 f16 tile swizzled with ``vec = 8, per_phase = 1, max_phase = 8`` read
by an mma operand layout: the 8 rows of a matrix land in 8 different groups: 1 wavefront per matrix.  The
same tile unswizzled (rows 128 bytes apart): all 8 rows in group 0: 8 wavefronts per matrix.

The brute-force counterpart is :func:`llverify.codegen.bank_sim.simulate_matrix_wavefronts` (concrete
per-lane row addresses from the PTX fragment definition, every instruction enumerated).
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.bank_model import NVIDIA, BankModel
from llverify.codegen.banks import access_to_offsets, offset_bases
from llverify.codegen.common import check_bitwidth, log2, span_dim_intersection_with_high_bits
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["MATRIX_INSTRUCTIONS", "INSTRUCTIONS", "MatrixTile", "MatrixReport", "matrix_tile", "matrix_wavefronts",
           "row_offset", "supports"]

MATRIX_INSTRUCTIONS = ("ldmatrix", "ldmatrix_trans", "stmatrix", "stmatrix_trans")
INSTRUCTIONS = ("vector",) + MATRIX_INSTRUCTIONS


def supports(instruction: str, target: str) -> bool:
    """Whether ``target`` (``cuda:NN``) has the instruction: ldmatrix from sm_75, stmatrix from sm_90."""
    if instruction == "vector":
        return True
    backend, _, arch = target.partition(":")
    if backend != "cuda" or not arch.split(":")[0].rstrip("a").isdigit():
        return False
    sm = int(arch.split(":")[0].rstrip("a"))
    return sm >= (75 if instruction.startswith("ld") else 90)


@dataclass(frozen=True)
class MatrixTile:
    """How one warp's registers split into matrix instructions (see the module docstring).

    After reordering the registers by ``register_order``, register bits ``[0, tile_bits)`` are inside one
    lane's share of a matrix (plain: the ``d`` element bits of the 32-bit word; ``.trans``: the row bit),
    bits ``[tile_bits, tile_bits + matrix_bits)`` select the matrix, the rest select the instruction.
    ``row_offsets`` are the element offsets of the three row bases (row bit 0, 1, 2)."""

    instruction: str
    bitwidth: int
    register_order: tuple[int, ...]
    tile_bits: int
    matrix_bits: int
    row_offsets: tuple[int, int, int]

    @property
    def matrices(self) -> int:
        return 1 << self.matrix_bits

    @property
    def transposed(self) -> bool:
        return self.instruction.endswith("_trans")


def matrix_tile(access: LinearLayout, shared: LinearLayout, bitwidth: int, instruction: str,
                matrices: int | None = None, row_register: int = 0) -> MatrixTile:
    """The tile decomposition of ``instruction`` for ``access`` on ``shared``, or ``LayoutError`` saying why
    the instruction does not fit (``matrices`` forces ``.x1/.x2/.x4``; default the widest that fits;
    ``row_register`` is the register basis (broadcast registers removed) that is the ``.trans`` row bit)."""
    check_bitwidth(bitwidth)
    if instruction not in MATRIX_INSTRUCTIONS:
        raise LayoutError(f"unknown matrix instruction {instruction!r} (expected one of {', '.join(MATRIX_INSTRUCTIONS)})")
    trans = instruction.endswith("_trans")
    cvt = access_to_offsets(access, shared)
    regs, lanes = offset_bases(cvt, "register"), offset_bases(cvt, "lane")
    others = offset_bases(cvt, "warp") + offset_bases(cvt, "block")
    if len(lanes) != 5:
        raise LayoutError(f"{instruction} is a 32-lane warp instruction; the access has {1 << len(lanes)} lanes")
    if trans:
        if bitwidth != 16:
            raise LayoutError(f"{instruction} is modelled for 16-bit elements only (b16), not {bitwidth}-bit")
        if lanes[2:5] != [1, 2, 4]:
            raise LayoutError(f"{instruction}: lanes 2, 3, 4 must walk one 16-byte row (offsets 1, 2, 4), they map to "
                              f"{lanes[2:5]}")
        if any(b & 7 for b in regs + lanes[:2] + others):
            raise LayoutError(f"{instruction}: a register, lane 0/1, warp or block basis moves inside a 16-byte row")
        if not 0 <= row_register < len(regs):
            raise LayoutError(f"{instruction}: needs at least two registers per lane (the row bit), register basis "
                              f"{row_register} does not exist")
        order = (row_register,) + tuple(i for i in range(len(regs)) if i != row_register)
        tile_bits = 1
        rows = (regs[row_register], lanes[0], lanes[1])
    else:
        if bitwidth > 32:
            raise LayoutError(f"{instruction}: elements wider than 32 bits do not fit a b16 matrix register")
        d = log2(32 // bitwidth)
        chosen: list[int] = []
        for j in range(d):
            idx = next((i for i, b in enumerate(regs) if b == 1 << j), None)
            if idx is None:
                raise LayoutError(f"{instruction}: no register holds offset {1 << j}; a lane's 32-bit word must be "
                                  f"{32 // bitwidth} contiguous elements")
            chosen.append(idx)
        if lanes[0] != 1 << d or lanes[1] != 1 << (d + 1):
            raise LayoutError(f"{instruction}: lanes 0, 1 must continue the 16-byte row (offsets {1 << d}, "
                              f"{1 << (d + 1)}), they map to {lanes[:2]}")
        mask = (1 << (d + 2)) - 1
        rest = [b for i, b in enumerate(regs) if i not in chosen]
        if any(b & mask for b in rest + lanes[2:] + others):
            raise LayoutError(f"{instruction}: a basis outside the tile moves inside a 16-byte row")
        order = tuple(chosen) + tuple(i for i in range(len(regs)) if i not in chosen)
        tile_bits = d
        rows = (lanes[2], lanes[3], lanes[4])
    free = len(regs) - tile_bits
    widest = min(2, free)
    if matrices is None:
        mbits = widest
    else:
        if matrices not in (1, 2, 4):
            raise LayoutError(f"matrices must be 1, 2 or 4 (.x1/.x2/.x4), not {matrices!r}")
        mbits = log2(matrices)
        if mbits > free:
            raise LayoutError(f"{instruction}.x{matrices}: a lane holds only {1 << free} matrix register(s)")
    return MatrixTile(instruction, bitwidth, order, tile_bits, mbits, rows)


def row_offset(tile: MatrixTile, row: int) -> int:
    """Element offset of row ``row`` (0..7) of matrix 0 of instruction 0, relative to row 0."""
    off = 0
    for i in range(3):
        if row >> i & 1:
            off ^= tile.row_offsets[i]
    return off


@dataclass(frozen=True)
class MatrixReport:
    """Result of :func:`matrix_wavefronts`: per-instruction counts and the rows that collide."""

    instruction: str
    bitwidth: int
    matrices: int                 # N of .xN
    instructions: int             # per warp (and per non-tile register combination)
    row_chunks: tuple[int, ...]   # 16-byte chunk index of the three row bases
    conflict_dim: int
    wavefronts_per_matrix: int
    wavefronts: int               # per instruction
    min_wavefronts: int           # conflict-free: one per matrix
    colliding_rows: tuple[int, ...]   # rows of matrix 0 sharing row 0's bank group at another address
    model: str

    @property
    def conflict_free(self) -> bool:
        return self.wavefronts == self.min_wavefronts

    def to_json(self) -> dict:
        return {"instruction": self.instruction, "bitwidth": self.bitwidth, "matrices": self.matrices,
                "instructions": self.instructions, "row_chunks": list(self.row_chunks),
                "conflict_dim": self.conflict_dim, "wavefronts_per_matrix": self.wavefronts_per_matrix,
                "wavefronts": self.wavefronts, "min_wavefronts": self.min_wavefronts, "phases": self.min_wavefronts,
                "colliding_rows": list(self.colliding_rows), "model": self.model}


def matrix_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int, instruction: str,
                      model: BankModel = NVIDIA, matrices: int | None = None, row_register: int = 0) -> MatrixReport:
    """Wavefronts per warp-level ``instruction`` of ``access`` on ``shared`` (closed form, module docstring)."""
    if model.lanes != 32:
        raise LayoutError(f"{instruction} is an NVIDIA 32-lane instruction; the {model.name} model has "
                          f"{model.lanes} lanes")
    wave_bytes = model.banks * model.bank_bytes
    if wave_bytes % 16 or 16 % model.bank_bytes:
        raise LayoutError(f"the {model.name} model's wavefront ({wave_bytes} bytes) is not a whole number of 16-byte rows")
    groups = wave_bytes // 16
    if groups != 8:
        raise LayoutError(f"the closed form assumes one matrix (8 rows) per wavefront; the {model.name} model serves "
                          f"{groups} rows (use bank_sim.simulate_matrix_wavefronts)")
    tile = matrix_tile(access, shared, bitwidth, instruction, matrices, row_register)
    chunks = tuple((o * bitwidth // 8) >> 4 for o in tile.row_offsets)
    k = span_dim_intersection_with_high_bits(list(chunks), log2(groups))
    per_matrix = 1 << k
    n_regs = len(tile.register_order)
    instructions = 1 << (n_regs - tile.tile_bits - tile.matrix_bits)
    colliding = []
    for r in range(1, 8):
        c = (row_offset(tile, r) * bitwidth // 8) >> 4
        if c and c % groups == 0:
            colliding.append(r)
    return MatrixReport(instruction, bitwidth, tile.matrices, instructions, chunks, k, per_matrix,
                        tile.matrices * per_matrix, tile.matrices, tuple(colliding), model.name)
