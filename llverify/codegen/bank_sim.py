"""Brute-force simulator of the shared-memory bank rule (ground truth for lemma 9.4).

No linear algebra: every element's byte address is computed (numpy), vectors
are checked to be contiguous and aligned, and for every instruction (every
warp, block and non-vector register index) the lanes are split into phases
(NVIDIA: ``32 / n`` consecutive lanes when a vector is ``n >= 1`` words, else
all 32; other targets: the phase rule of :mod:`llverify.codegen.bank_model`),
and each phase costs the largest number of distinct 4-byte words that one of
the rule's banks must serve.  Lanes touching the same word share it.  The result
is wavefronts per instruction; :func:`simulate_wavefronts` checks that every
instruction costs the same and reports that number (and the maximum).

Example: lane ``l`` writing f32 word ``32 l`` (one column): bank 0 serves 32
distinct words, 32 wavefronts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llverify.codegen.bank_model import NVIDIA, BankModel, PhaseRule, consecutive
from llverify.codegen.banks import access_to_offsets, offset_columns
from llverify.codegen.common import check_bitwidth
from llverify.codegen.vectorize import VectorPlan, largest_vectorisation, permuted
from llverify.errors import LayoutError
from llverify.evaluate import xor_table
from llverify.hw.padded import Padding
from llverify.layout import LinearLayout

__all__ = ["MisalignedVectors", "SimResult", "simulate_wavefronts", "simulate_addresses", "MatrixSimResult", "simulate_row_addresses",
           "simulate_matrix_wavefronts"]


@dataclass(frozen=True)
class SimResult:
    wavefronts: int          # per instruction (all instructions agree)
    max_wavefronts: int
    min_wavefronts: int
    instructions: int
    vector: VectorPlan
    per_rule: tuple[tuple[str, int, int], ...] = ()   # (source, max, min) per candidate phase rule

    @property
    def rules_agree(self) -> bool:
        """Every candidate phase rule gives the same count for every instruction."""
        return len({(mx, mn) for _, mx, mn in self.per_rule}) <= 1

    def to_json(self) -> dict:
        out = {"wavefronts": self.wavefronts, "max": self.max_wavefronts, "min": self.min_wavefronts,
               "instructions": self.instructions, "vector_elems": self.vector.elems}
        if len(self.per_rule) > 1:
            out["per_phase_rule"] = [{"source": s, "max": mx, "min": mn} for s, mx, mn in self.per_rule]
        return out


def _misalignment(access: LinearLayout, cvt: LinearLayout, vector: VectorPlan, start: np.ndarray, vec_bytes: int,
                  bytes_per: int, padding: Padding | None, decodable: bool) -> LayoutError:
    """The error for misaligned vectors: :class:`MisalignedVectors` with two vectors whose first bytes differ mod the
    alignment, each decoded from its place in the table (``start[instruction, lane]``, columns in
    :func:`_table_columns`'s order, registers in ``vector.register_order``) to an input of ``cvt`` and replayed by
    evaluating ``cvt`` (and ``padding``); a plain ``LayoutError`` when every vector has the same residue (whether
    they fault then depends on the buffer's base, which the module does not fix) or the table's order cannot be
    decoded (a partial register order)."""
    plain = LayoutError("the chosen vectors are not aligned to their size")
    align = min(vec_bytes, 16)
    residue = (start * bytes_per) % align
    flat = residue.reshape(-1)
    other = np.flatnonzero(flat != flat[0])
    if not decodable or other.size == 0:
        return plain
    first, second = (_replayed_vector(access, cvt, vector, int(k), start, bytes_per, padding) for k in (0, int(other[0])))
    if first is None or second is None or (second["byte"] - first["byte"]) % align == 0:
        return plain
    return MisalignedVectors(align, first, second)


def _replayed_vector(access: LinearLayout, cvt: LinearLayout, vector: VectorPlan, k: int, start: np.ndarray,
                     bytes_per: int, padding: Padding | None) -> dict | None:
    """Vector ``k`` of the table (flat ``instruction * lanes + lane``) as an input of ``cvt`` (registers back in
    their original order), its first byte evaluated from ``cvt`` and ``padding`` and checked against the table's
    (None if they differ), and the tensor element ``access`` puts there."""
    sizes = cvt.in_dims
    nr = sizes["register"].bit_length() - 1
    nv = vector.elems.bit_length() - 1
    lanes = sizes["lane"]
    lane, instr = k % lanes, k // lanes
    permuted_reg = (instr & ((1 << (nr - nv)) - 1)) << nv  # the vector's first element: its own bits are 0
    rest = instr >> (nr - nv)
    order = vector.register_order or tuple(range(nr))
    register = 0
    for i in range(nr):
        if permuted_reg >> i & 1:
            register |= 1 << order[i]
    point = {"register": register, "lane": lane}
    for d, size in sizes.items():
        if d in ("register", "lane"):
            continue
        bits = size.bit_length() - 1
        point[d] = rest & (size - 1)
        rest >>= bits
    offset = int(cvt.apply(point)["offset"])
    if padding is not None:
        offset = int(padding.apply(np.array([offset]))[0])
    byte = offset * bytes_per
    if byte != int(start.reshape(-1)[k]) * bytes_per:
        return None
    return {**point, "byte": byte, "element": dict(access.apply(point))}


def simulate_addresses(byte_addr: np.ndarray, vec_bytes: int, model: BankModel = NVIDIA,
                       rule: PhaseRule | None = None) -> np.ndarray:
    """Wavefronts of each instruction from byte addresses.

    ``byte_addr[i, lane]`` is the first byte of lane ``lane``'s vector in instruction ``i``; each vector
    spans ``vec_bytes`` bytes.  ``model`` gives the bank width, ``rule`` which lanes share a phase and over how
    many banks (``model.banks_of(rule)``; default rule: ``model``'s generic one, consecutive lanes filling
    ``banks * bank_bytes`` bytes).  Returns one count per instruction: the sum over phases of the most distinct
    words one bank serves (distinct sub-word addresses under a ``split_words`` rule)."""
    n_instr, n_lanes = byte_addr.shape
    if rule is None:
        rule = consecutive(model.lanes_per_phase(vec_bytes), model.source)
    words_per_lane = max(1, vec_bytes // model.bank_bytes)
    banks = model.banks_of(rule)
    # the unit two lanes must share to be served together: a bank word, or (split_words) the sub-word access
    unit = vec_bytes if rule.split_words and vec_bytes < model.bank_bytes else model.bank_bytes
    byte_addr = np.asarray(byte_addr)
    first_word = ((byte_addr >> (unit.bit_length() - 1)) if _pow2(unit) and byte_addr.dtype.kind == "i" else
                  byte_addr // unit).astype(np.int64, copy=False)
    # every (instruction, lane, k) unit touched (one per lane: a view, no copy)
    words = (first_word[:, :, None] if words_per_lane == 1 else
             first_word[:, :, None] + np.arange(words_per_lane, dtype=np.int64)[None, None, :])
    lane_phase = rule.phase_ids(n_lanes)
    n_phase = int(lane_phase.max()) + 1 if n_lanes else 1
    if n_instr == 0:
        return np.zeros(0, dtype=np.int64)
    rows = _phase_rows(words, lane_phase, n_phase)
    return _max_words_per_bank(rows, unit, model.bank_bytes, banks).reshape(n_instr, n_phase).sum(axis=1)


def _phase_rows(words: np.ndarray, lane_phase: np.ndarray, n_phase: int) -> np.ndarray:
    """``words[i, lane, k]`` regrouped as one row per (instruction, phase): row ``i * n_phase + p`` holds every
    unit the lanes of phase ``p`` touch in instruction ``i`` (rows padded with a repeat of their first entry where
    phases differ in size, which adds no distinct unit)."""
    n_instr, n_lanes, per_lane = words.shape
    order, sizes, in_order = _phase_order(lane_phase, n_phase)
    width = int(sizes.max()) * per_lane
    if np.all(sizes == sizes[0]):
        # phases of consecutive lanes are already grouped: the rows are a reshape of ``words`` (no gather)
        return (words if in_order else words[:, order, :]).reshape(n_instr * n_phase, width)
    rows = np.empty((n_instr, n_phase, width), dtype=np.int64)
    for p in range(n_phase):
        lanes = np.flatnonzero(lane_phase == p)
        part = words[:, lanes, :].reshape(n_instr, lanes.size * per_lane)
        rows[:, p, :part.shape[1]] = part
        rows[:, p, part.shape[1]:] = part[:, :1]
    return rows.reshape(n_instr * n_phase, width)


def _max_words_per_bank(rows: np.ndarray, unit: int, bank_bytes: int, banks: int) -> np.ndarray:
    """For each row of units (addresses in ``unit`` bytes), the largest number of distinct units that one of the
    ``banks`` banks (``bank_bytes`` wide) must serve: sort each row, keep each unit's first occurrence, and count
    the survivors per (row, bank) with one ``bincount`` on the dense key ``row * banks + bank``.

    Postcondition: ``out[r] == max over b of |{u in rows[r] : (u * unit // bank_bytes) % banks == b}|``."""
    n_rows, width = rows.shape
    srt = np.sort(rows, axis=1)
    first = np.empty(srt.shape, dtype=bool)
    first[:, 0] = True
    np.not_equal(srt[:, 1:], srt[:, :-1], out=first[:, 1:])
    # the bank of unit u, (u * unit // bank_bytes) % banks, with shifts and masks where the sizes are powers of
    # two (the same integers: floor division by 2^k is an arithmetic shift, mod 2^k a mask, negatives included)
    if unit == bank_bytes:
        word = srt
    elif _pow2(unit) and _pow2(bank_bytes) and unit < bank_bytes:
        word = srt >> (bank_bytes.bit_length() - unit.bit_length())
    elif _pow2(unit) and _pow2(bank_bytes):
        word = srt << (unit.bit_length() - bank_bytes.bit_length())
    else:
        word = srt * unit // bank_bytes
    bank = word & (banks - 1) if _pow2(banks) else word % banks
    bank += (np.arange(n_rows, dtype=np.int64) * banks)[:, None]
    per_bank = np.bincount(bank[first], minlength=n_rows * banks)
    return per_bank.reshape(n_rows, banks).max(axis=1)


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _phase_order(lane_phase: np.ndarray, n_phase: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """The lanes sorted by phase (stable), the phases' sizes, and whether the lanes are already in that order
    (phases of consecutive lanes), once per phase-id array (:meth:`PhaseRule.phase_ids` returns one array per
    rule and lane count, so its identity names it)."""
    key = (id(lane_phase), n_phase)
    hit = _ORDERS.get(key)
    if hit is not None and hit[0] is lane_phase:
        return hit[1]
    order = np.argsort(lane_phase, kind="stable")
    out = (order, np.bincount(lane_phase, minlength=n_phase), bool(np.array_equal(order, np.arange(order.size))))
    if not lane_phase.flags.writeable:  # the memoised, read-only arrays only: they are kept, so the id is not reused
        if len(_ORDERS) > 512:
            _ORDERS.clear()
        _ORDERS[key] = (lane_phase, out)
    return out


_ORDERS: dict[tuple[int, int], tuple[np.ndarray, tuple[np.ndarray, np.ndarray, bool]]] = {}


def _offset_columns(cvt: LinearLayout, vector: VectorPlan) -> tuple[list[int], int, int] | None:
    """:func:`~llverify.codegen.banks.offset_columns` of ``cvt`` with the register columns taken in
    ``vector.register_order``, and the register and lane counts: the columns of ``permuted(cvt, vector)`` projected
    on ``offset``.  None when the order is not a permutation of all the register columns (the caller then builds
    the permuted layout)."""
    sizes = cvt.in_dims
    for d in ("register", "lane"):
        if d not in sizes:
            raise LayoutError(f"the access layout needs a '{d}' in dim")
    n_reg_bits = cvt.in_dim_size_log2("register")
    order = vector.register_order
    if order and sorted(order) != list(range(n_reg_bits)):
        return None
    cols = offset_columns(cvt)
    if order:
        off = cvt.flat_in_offsets()["register"]
        regs = cols[off:off + n_reg_bits]
        cols[off:off + n_reg_bits] = [regs[i] for i in order]
    return cols, sizes["register"], sizes["lane"]


def _table_columns(cols: list[int], nv: int, nr: int, nl: int) -> list[int]:
    """Flat columns (``nr`` register bits, the first ``nv`` the vector's, then ``nl`` lane bits, then the rest)
    reordered as vector element, lane, instruction register group, rest (warp, block)."""
    return cols[:nv] + cols[nr:nr + nl] + cols[nv:nr] + cols[nr + nl:]


class MisalignedVectors(LayoutError):
    """Two vectors of one access whose first bytes differ by a non-multiple of the vector's alignment ``align``
    (its size, at most 16 bytes): whatever the buffer's base address, one of them is not aligned (on NVIDIA a
    misaligned-address fault).  ``first`` / ``second``: each vector's access input (register, lane, warp, ...), its
    first byte in the buffer and the tensor element there, replayed by evaluating the layouts (not read off the
    simulator's table)."""

    def __init__(self, align: int, first: dict, second: dict) -> None:
        super().__init__(f"the chosen vectors are not aligned to their size: the {align}-byte vectors at bytes "
                         f"{first['byte']} and {second['byte']} differ by {(second['byte'] - first['byte']) % align} "
                         f"mod {align}, so one of them is misaligned whatever the buffer's base")
        self.align, self.first, self.second = align, first, second


def _misaligned(start: np.ndarray, vec_bytes: int, bytes_per: int) -> bool:
    """Whether some vector's first byte ``start * bytes_per`` is not a multiple of ``m = min(vec_bytes, 16)``:
    tested as ``start mod (m / bytes_per)`` with a mask (powers of two; ``bytes_per <= 8`` divides ``m``)."""
    align = min(vec_bytes, 16) // bytes_per
    return align > 1 and bool(np.any(start & (align - 1)))


def simulate_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int,
                        vector: VectorPlan | None = None, limit: int | None = None,
                        padding: Padding | None = None, model: BankModel = NVIDIA,
                        direction: str = "load") -> SimResult:
    """Simulate every ld/st.shared instruction of ``access`` on ``shared``.

    ``vector`` (default: the largest vectorisation) says which registers form
    one vector; the simulator checks it is contiguous and aligned in memory
    and raises ``LayoutError`` otherwise.  With ``padding`` (a
    ``#ttg.padded_shared`` layout, ``shared`` its linear component) every
    offset ``o`` is stored at ``padding.apply(o)``, and the default vector
    is at most ``padding.min_interval`` elements (a longer run would be split
    by padding).  ``model`` and ``direction`` (``load``/``store``) select the banks and the candidate phase
    rules (:meth:`BankModel.phase_rules`, which raises ``LayoutError`` where the rule is not established);
    every candidate is simulated and the result spans them all (``per_rule`` keeps each one's range).

    Every element is evaluated: the offsets of ``permuted(cvt, vector)`` (flattened input ``reg + n_reg * (lane +
    n_lane * rest)``, ``reg = e + v * i`` with ``e`` the element of the vector and ``i`` the instruction's
    register group) are tabulated directly in the order ``e + v * (lane + n_lane * (i + n_i * rest))`` by
    permuting the columns before the XOR table (:func:`llverify.evaluate.xor_table`), so one row per instruction
    (``rest``-major, then ``i``) of ``n_lane`` vectors needs no transpose.
    """
    check_bitwidth(bitwidth)
    cvt = access_to_offsets(access, shared)
    if vector is None:
        vector = largest_vectorisation(cvt, bitwidth, max_elems=padding.min_interval if padding else None)
    got = _offset_columns(cvt, vector)
    decodable = got is not None  # the table's register order is vector.register_order over cvt's registers
    if got is None:
        got = _offset_columns(permuted(cvt, vector), VectorPlan(vector.elems, vector.bits, ()))
        assert got is not None
    cols, n_reg, n_lane = got
    v = vector.elems
    nv, nr, nl = v.bit_length() - 1, n_reg.bit_length() - 1, n_lane.bit_length() - 1
    if v > n_reg:
        raise LayoutError(f"a vector of {v} elements needs that many registers (the access has {n_reg})")
    offsets = xor_table(_table_columns(cols, nv, nr, nl), limit)
    if padding is not None:
        offsets = padding.apply(offsets)
    a = offsets.reshape(-1, n_lane, v)                         # [instruction, lane, vec]
    bytes_per = bitwidth // 8
    # contiguity is checked on element offsets (addresses are offsets times bytes_per > 0, so they are
    # contiguous exactly when the offsets are); one register per vector is contiguous by itself
    if v > 1 and not np.array_equal(a, a[..., :1] + np.arange(v, dtype=a.dtype)):
        raise LayoutError("the chosen vector registers are not contiguous in shared memory")
    start = a[..., 0]
    vec_bytes = v * bytes_per
    if _misaligned(start, vec_bytes, bytes_per):
        raise _misalignment(access, cvt, vector, start, vec_bytes, bytes_per, padding, decodable)
    per_instr = start * bytes_per                              # [instructions, lane]
    rules = model.phase_rules(vec_bytes, direction)
    per_rule = []
    first = None
    for rule in rules:
        counts = simulate_addresses(per_instr, vec_bytes, model, rule)
        first = counts if first is None else first
        per_rule.append((rule.source, int(counts.max()), int(counts.min())))
    assert first is not None
    return SimResult(int(first[0]), max(r[1] for r in per_rule), min(r[2] for r in per_rule), int(first.size),
                     vector, tuple(per_rule))


# -- ldmatrix / stmatrix -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatrixSimResult:
    """Per-instruction wavefronts of a matrix instruction counted on concrete row addresses."""

    wavefronts: int
    max_wavefronts: int
    min_wavefronts: int
    instructions: int
    matrices: int
    lane_rows: tuple[int, ...]   # byte address supplied by each address lane (8 N of them) in instruction 0

    def to_json(self) -> dict:
        return {"wavefronts": self.wavefronts, "max": self.max_wavefronts, "min": self.min_wavefronts,
                "instructions": self.instructions, "matrices": self.matrices, "lane_rows": list(self.lane_rows)}


def simulate_row_addresses(row_addr: np.ndarray, model: BankModel = NVIDIA) -> np.ndarray:
    """Wavefronts of each instruction from the 16-byte row addresses its lanes supply.

    ``row_addr[i, a]`` is the byte address given by address lane ``a`` (lane ``8 j + r`` gives row ``r`` of
    matrix ``j``).  Consecutive address lanes are served ``banks * bank_bytes / 16`` at a time (one
    wavefront's worth of rows); inside such a phase a bank serves as many wavefronts as distinct
    ``bank_bytes`` words it must deliver; the phases of one instruction add up."""
    row_addr = np.asarray(row_addr, dtype=np.int64)
    n_instr, n_lanes = row_addr.shape
    words_per_row = 16 // model.bank_bytes
    per_phase = max(1, model.banks * model.bank_bytes // 16)
    n_phase = -(-n_lanes // per_phase)
    words = (row_addr // model.bank_bytes)[:, :, None] + np.arange(words_per_row, dtype=np.int64)[None, None, :]
    if n_instr == 0:
        return np.zeros(0, dtype=np.int64)
    rows = _phase_rows(words, np.arange(n_lanes, dtype=np.int64) // per_phase, n_phase)
    counts = _max_words_per_bank(rows, model.bank_bytes, model.bank_bytes, model.banks)
    return counts.reshape(n_instr, n_phase).sum(axis=1)


def simulate_matrix_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int, instruction: str,
                               model: BankModel = NVIDIA, tile=None, limit: int | None = None) -> MatrixSimResult:
    """Enumerate every ``instruction`` (ldmatrix/stmatrix, plain or ``.trans``) of ``access`` on ``shared``.

    The register split (which registers form a lane's share of a matrix, which select the matrix) comes
    from ``tile`` (default :func:`llverify.codegen.ldmatrix.matrix_tile`); everything else is concrete: every
    element's byte address is evaluated, each matrix's 8 row addresses are read off the lanes that PTX says
    hold the start of each row, and *every* element of *every* lane is checked to sit where the PTX
    fragment puts it (``LayoutError`` otherwise).  Lane ``8 j + r`` then supplies row ``r`` of matrix ``j``
    and :func:`simulate_row_addresses` counts the wavefronts."""
    from llverify.codegen.ldmatrix import matrix_tile

    check_bitwidth(bitwidth)
    if tile is None:
        tile = matrix_tile(access, shared, bitwidth, instruction)
    cvt = access_to_offsets(access, shared)
    plan = VectorPlan(1, bitwidth, tile.register_order)
    got = _offset_columns(cvt, plan)
    if got is None:
        got = _offset_columns(permuted(cvt, plan), VectorPlan(1, bitwidth, ()))
        assert got is not None
    cols, n_reg, n_lane = got
    if n_lane != 32:
        raise LayoutError(f"{instruction} needs 32 lanes, the access has {n_lane}")
    offsets = xor_table(cols, limit)                     # the offsets of permuted(cvt), flat order
    rest = offsets.size // (n_reg * n_lane)
    nb = bitwidth // 8
    addr = offsets.reshape(rest, n_lane, n_reg) * nb          # [rest, lane, reg]
    t, m = 1 << tile.tile_bits, tile.matrices
    n_instr_regs = n_reg // (t * m)
    a = addr.reshape(rest, n_lane, n_instr_regs, m, t)       # reg = t_idx + T * (j + M * i)
    lanes = np.arange(n_lane)
    rows = np.empty((rest, n_instr_regs, m, 8), dtype=np.int64)
    if not tile.transposed:
        rows[...] = np.transpose(a[:, 0:32:4, :, :, 0], (0, 2, 3, 1))          # row r starts at lane 4 r
        expect = (np.transpose(rows, (0, 3, 1, 2))[:, lanes // 4] + (4 * (lanes % 4))[None, :, None, None])
        for k in range(t):
            if not np.array_equal(a[..., k], expect + k * nb):
                raise LayoutError(f"{instruction}: element {k} of some lane is not where the PTX fragment puts it")
    else:
        for r in range(8):                                                      # row r: lane r >> 1, bit r & 1
            rows[..., r] = a[:, r >> 1, :, :, r & 1]
        for k in range(t):
            want = np.transpose(rows, (0, 3, 1, 2))[:, 2 * (lanes % 4) + k] + (nb * (lanes // 4))[None, :, None, None]
            if not np.array_equal(a[..., k], want):
                raise LayoutError(f"{instruction}: element {k} of some lane is not where the PTX fragment puts it")
    if np.any(rows % 16):
        raise LayoutError(f"{instruction}: a row address is not 16-byte aligned")
    per_instr = rows.reshape(rest * n_instr_regs, m * 8)                       # address lane 8 j + r
    counts = simulate_row_addresses(per_instr, model)
    return MatrixSimResult(int(counts[0]), int(counts.max()), int(counts.min()), int(counts.size), m,
                           tuple(int(x) for x in per_instr[0]))
