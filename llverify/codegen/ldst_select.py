"""Which instructions a conversion through shared memory uses: ``st.shared`` or ``stmatrix`` (plain or
``.trans``) to store, ``ld.shared`` or ``ldmatrix`` (plain or ``.trans``) to load, and what they cost.

llverify's own statement of the rule Triton 3.9 applies when it swizzles a conversion's scratch buffer on
NVIDIA (learned by reading ``lib/Tools/GenericSwizzling.cpp`` and the NVIDIA lowering; re-derived here,
and checked against what the 3.9 wheel emits: tests/test_ldmatrix_selection.py).

1. *Candidates.*  Each side may use the vector instruction; the store side also ``stmatrix`` (sm_90+) and
   the load side ``ldmatrix`` (sm_75+) when elements are at most 32 bits, and their ``.trans`` forms for
   16-bit elements.  Each candidate is described by which lanes continue the 128-bit contiguous tile
   (*contiguous lanes*: none for a vector access, lanes 0-1 for plain matrix, lanes 2-4 for ``.trans``) and
   which lanes give separate addresses inside one wavefront (*address lanes*: 0-2, 2-4, 0-1); the registers
   fill the rest of a 128-bit tile.
2. *Feasibility of a (store, load) pair.*  Both sides must agree on one 128-bit contiguous tile.  Let the
   side with more registers in its tile be ``a`` (``r_a`` registers) and the other ``b``.  The register bases
   common to the two layouts (flattened tensor coordinates) must number at least ``r_b``; ``b``'s
   contiguous lanes must map, through ``cvt = a^-1 b``, first (``r_a - r_b`` of them) to registers of ``a``
   and then exactly onto ``a``'s contiguous lanes, in order; no contiguous lane may be a broadcast lane.
   The tile is the first ``r_b`` common register bases followed by ``b``'s contiguous lane bases.
   Each side also needs ``3 - |address lanes|`` register bases outside the tile (they complete the 8
   addresses of one wavefront); its *wavefront set* is those registers and its address-lane bases.
3. *The swizzle for a pair.*  Vector bases = the tile; bank bases fill one 1024-bit line; the segment
   (the remaining bases) is chosen by: unit vectors outside both wavefront sets first; if too few, pairs
   ``x_i ^ y_i`` of the two sides' exclusive wavefront bases (sorted) and, when still short, the bases
   themselves (each costing a conflict on one side); bank bases are the unit vectors completing a basis.
   Segment bases that are registers on both sides become *repetitions* (the conversion is done tile by
   tile) except the first two when both sides use a matrix instruction (they are kept so .x4 fits).
4. *Choice.*  Cost of a pair = ``2^dim(segment ∩ store set) - 1 + 2^dim(segment ∩ load set) - 1``
   (Triton's conflict estimate); the cheapest wins, ties go to more repetitions (a smaller buffer), then
   to the first in the order (vector, matrix, matrix.trans) x (vector, matrix, matrix.trans).  If no pair
   is feasible both sides use vector instructions on a swizzle of their own (not re-derived here: the
   cost reported then is llverify's optimal swizzle, :func:`llverify.codegen.swizzle.optimal_swizzle`).

The chosen instructions' wavefronts are then counted exactly on the chosen swizzle: matrix sides by
:func:`llverify.codegen.ldmatrix.matrix_wavefronts` (``.xN`` with ``N = min(4, registers per tile * bits /
32)``), vector sides by lemma 9.4 (:func:`llverify.codegen.banks.bank_wavefronts`).

Known simplifications: intersections of non-unit bases use llverify's F2 intersection (Triton keeps the
order of its own nullspace computation); the vector-only fallback's swizzle is llverify's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from llverify import f2
from llverify.codegen.common import flat_bases, remove_broadcast_registers
from llverify.codegen.ldmatrix import supports
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["LaneTile", "PairChoice", "SharedInstructionPlan", "candidate_tiles", "select_conversion_instructions",
           "plan_shared_conversion", "STORE_NAMES", "LOAD_NAMES", "LocalAccessPlan", "local_access_instruction",
           "plan_local_access"]


@dataclass(frozen=True)
class LaneTile:
    """An instruction's lane roles (module docstring, item 1)."""

    kind: str                      # "vector" | "matrix" | "matrix_trans"
    contiguous_lanes: tuple[int, ...]
    address_lanes: tuple[int, ...]

    @property
    def extra_registers(self) -> int:
        return len(self.contiguous_lanes) + len(self.address_lanes) - 3


VECTOR = LaneTile("vector", (), (0, 1, 2))
MATRIX = LaneTile("matrix", (0, 1), (2, 3, 4))
MATRIX_TRANS = LaneTile("matrix_trans", (2, 3, 4), (0, 1))
STORE_NAMES = {"vector": "vector", "matrix": "stmatrix", "matrix_trans": "stmatrix_trans"}
LOAD_NAMES = {"vector": "vector", "matrix": "ldmatrix", "matrix_trans": "ldmatrix_trans"}


def candidate_tiles(bitwidth: int, target: str) -> tuple[list[LaneTile], list[LaneTile]]:
    """(store candidates, load candidates) in the order ties are broken."""
    store, load = [VECTOR], [VECTOR]
    if bitwidth <= 32:
        if supports("stmatrix", target):
            store.append(MATRIX)
        if supports("ldmatrix", target):
            load.append(MATRIX)
    if bitwidth == 16:
        if supports("stmatrix", target):
            store.append(MATRIX_TRANS)
        if supports("ldmatrix", target):
            load.append(MATRIX_TRANS)
    return store, load


@dataclass(frozen=True, eq=False)
class _Side:
    layout: LinearLayout          # flattened, broadcast registers removed, no block dim
    regs: list[int]
    lanes: list[int]
    inverses: dict = field(default_factory=dict, repr=False)  # other side -> other.layout^-1 o self.layout

    def to(self, other: "_Side") -> LinearLayout:
        """``self.layout.invert_and_compose(other.layout)`` (this side's hardware -> ``other``'s), once per pair."""
        hit = self.inverses.get(id(other))
        if hit is None or hit[0] is not other:
            hit = self.inverses[id(other)] = (other, self.layout.invert_and_compose(other.layout))
        return hit[1]


@lru_cache(maxsize=256)
def _side(L: LinearLayout) -> _Side:
    """The side of a conversion ``L`` is on (its memo: the selection and the costing of one plan read the same
    side, so each ``invert_and_compose`` between two sides runs once; :func:`clear_memo` forgets it)."""
    keep = [d for d in ("register", "lane", "warp") if L.has_in_dim(d)]
    L = remove_broadcast_registers(L.sublayout(keep, list(L.out_dim_names))).flatten_outs()
    return _Side(L, flat_bases(L, "register"), flat_bases(L, "lane"))


def clear_memo() -> None:
    """Forget the memoised sides (benchmarks measure from scratch)."""
    _side.cache_clear()


def _common_registers(xs: list[int], ys: list[int]) -> list[int]:
    if all(v and not v & (v - 1) for v in xs + ys):
        return [v for v in xs if v in ys]
    return f2.intersection(xs, ys)


def _pair_tile(a: _Side, b: _Side, ra: int, rb: int, ta: LaneTile, tb: LaneTile) -> list[int] | None:
    """Item 2 of the module docstring: the common contiguous tile, or None."""
    if ra < rb:
        return _pair_tile(b, a, rb, ra, tb, ta)
    common = _common_registers(a.regs, b.regs)
    if len(common) < rb:
        return None
    lane_a = [a.lanes[i] for i in ta.contiguous_lanes]
    lane_b = [b.lanes[i] for i in tb.contiguous_lanes]
    if 0 in lane_a or 0 in lane_b:
        return None
    cvt = b.to(a)                                      # b's hardware -> a's hardware
    shifts = cvt.flat_out_shifts()
    lanes = flat_bases(cvt, "lane")

    def part(lane_idx: int, dim: str) -> int:
        """Component ``dim`` of the image of ``b``'s lane basis ``lane_idx`` (read off its flat column)."""
        if dim not in shifts:
            return 0
        return (lanes[lane_idx] >> shifts[dim]) & (cvt.out_dim_size(dim) - 1)

    for i in range(ra - rb):
        if part(tb.contiguous_lanes[i], "register") == 0:
            return None
    tail = tb.contiguous_lanes[len(tb.contiguous_lanes) - len(ta.contiguous_lanes):] if ta.contiguous_lanes else ()
    for ia, ib in zip(ta.contiguous_lanes, tail):
        if part(ib, "lane") != 1 << ia:
            return None
    return common[:rb] + lane_b


def _wavefront_set(tile: LaneTile, side: _Side, vbasis: list[int]) -> list[int] | None:
    need = 3 - len(tile.address_lanes)
    regs = [r for r in side.regs if r not in vbasis][:need]
    if len(regs) < need:
        return None
    return regs + [side.lanes[i] for i in tile.address_lanes]


def _low_pivots(vectors: list[int]) -> set[int]:
    """Bit positions that are the lowest set bit of some element of span(vectors) (the pivots of a
    reduced echelon form whose rows are led by their lowest bit)."""
    rows: list[int] = []
    for v in vectors:
        for r in rows:
            if v & (r & -r):
                v ^= r
        if v:
            rows.append(v)
    return {(r & -r).bit_length() - 1 for r in rows}


def _segment(set_src: list[int], set_dst: list[int], dim: int, length: int) -> list[int]:
    s, t = {v for v in set_src if v}, {v for v in set_dst if v}
    seg = [1 << i for i in range(dim) if (1 << i) not in s and (1 << i) not in t]
    if len(seg) >= length:
        return seg[:length]
    x = sorted(v for v in s if v not in t)
    y = sorted(v for v in t if v not in s)
    if len(x) > len(y):
        x, y = y, x
    conflicts = min(max(0, length - len(x) - len(seg)), len(x))
    seg += [x[i] ^ y[i] for i in range(conflicts, len(x))]
    seg += x[:conflicts] + y[:conflicts]
    return seg[:length]


@dataclass(frozen=True)
class PairChoice:
    """One feasible (store, load) pair: its swizzle and Triton-unit conflict estimate."""

    store: str
    load: str
    vector: tuple[int, ...]
    bank: tuple[int, ...]
    segment: tuple[int, ...]
    reps: tuple[int, ...]
    store_set: tuple[int, ...]
    load_set: tuple[int, ...]
    conflicts: int

    def to_json(self) -> dict:
        return {"store": self.store, "load": self.load, "conflicts": self.conflicts, "reps": 1 << len(self.reps)}


def _swizzle_pair(src: _Side, dst: _Side, bits: int, vbasis: list[int], set_src: list[int], set_dst: list[int],
                  leave: int, dim: int) -> tuple[list[int], list[int], list[int], list[int]]:
    n_bank = min(max(0, (1024 // ((1 << len(vbasis)) * bits)).bit_length() - 1), dim - len(vbasis))
    n_seg = dim - n_bank - len(vbasis)
    seg = _segment(vbasis + set_src, vbasis + set_dst, dim, n_seg)
    piv = _low_pivots(vbasis + seg)
    bank = [1 << i for i in range(dim) if i not in piv]
    keep, reps = [], []
    for s in seg:
        if s in src.regs and s in dst.regs:
            if leave > 0:
                leave -= 1
                keep.append(s)
            else:
                reps.append(s)
        else:
            keep.append(s)
    return bank, keep, reps, seg


def select_conversion_instructions(src: LinearLayout, dst: LinearLayout, bitwidth: int,
                                   target: str = "cuda:90") -> tuple[PairChoice | None, list[PairChoice]]:
    """The chosen pair (None: no pair feasible, vector instructions on a fallback swizzle) and every feasible
    pair considered, for ``convert_layout(src -> dst)`` through shared memory (module docstring)."""
    if set(src.out_dim_names) != set(dst.out_dim_names):
        raise LayoutError("the two layouts describe different tensors")
    dst = dst.transpose_outs(list(src.out_dim_names))
    return _select(_side(src), _side(dst), bitwidth, target)


def _select(a: _Side, b: _Side, bitwidth: int, target: str) -> tuple[PairChoice | None, list[PairChoice]]:
    """:func:`select_conversion_instructions` on the two sides."""
    dim = a.layout.total_out_bits
    total = (128 // bitwidth).bit_length() - 1 if bitwidth <= 128 else 0
    store_c, load_c = candidate_tiles(bitwidth, target)
    pairs: list[PairChoice] = []
    for ts in store_c:
        for tl in load_c:
            vb = _pair_tile(a, b, total - len(ts.contiguous_lanes), total - len(tl.contiguous_lanes), ts, tl)
            if vb is None:
                continue
            ss, sl = _wavefront_set(ts, a, vb), _wavefront_set(tl, b, vb)
            if ss is None or sl is None:
                continue
            leave = min(ts.extra_registers, tl.extra_registers)
            bank, seg, reps, _ = _swizzle_pair(a, b, bitwidth, vb, ss, sl, leave, dim)
            w = (1 << len(f2.intersection(seg, ss))) - 1 if seg else 0
            r = (1 << len(f2.intersection(seg, sl))) - 1 if seg else 0
            pairs.append(PairChoice(STORE_NAMES[ts.kind], LOAD_NAMES[tl.kind], tuple(vb), tuple(bank), tuple(seg),
                                    tuple(reps), tuple(ss), tuple(sl), w + r))
    if not pairs:
        return None, []
    best = pairs[0]
    for p in pairs[1:]:
        if p.conflicts < best.conflicts or (p.conflicts == best.conflicts and len(p.reps) > len(best.reps)):
            best = p
    return best, pairs


@dataclass(frozen=True)
class SharedInstructionPlan:
    """A conversion through shared memory as planned: instructions, their exact wavefronts, the swizzle."""

    store: str
    load: str
    store_wavefronts: int            # per warp-level instruction
    load_wavefronts: int
    store_min_wavefronts: int        # conflict-free count for that instruction
    load_min_wavefronts: int
    store_matrices: int              # .xN of a matrix side (0 for vector)
    load_matrices: int
    store_instructions: int          # per warp, all repetitions (a vector side: registers / vector width)
    load_instructions: int
    shared: LinearLayout             # offset -> tensor (vector, bank, segment, repetition bases)
    reps: int
    bitwidth: int
    target: str
    source: str                      # "triton-3.9-rule" or "fallback-optimal-swizzle"
    candidates: tuple[PairChoice, ...] = field(default=())
    store_tile: object = None        # the MatrixTile of a matrix side (for replay by the simulator)
    load_tile: object = None

    def to_json(self) -> dict:
        return {"store": self.store, "load": self.load, "store_wavefronts": self.store_wavefronts,
                "load_wavefronts": self.load_wavefronts, "store_min_wavefronts": self.store_min_wavefronts,
                "load_min_wavefronts": self.load_min_wavefronts, "store_matrices": self.store_matrices,
                "load_matrices": self.load_matrices, "store_instructions": self.store_instructions,
                "load_instructions": self.load_instructions, "reps": self.reps, "bitwidth": self.bitwidth,
                "target": self.target, "source": self.source,
                "candidates": [c.to_json() for c in self.candidates],
                "offset_bases": [list(x) for x in self.shared.bases["offset"]]}


def _side_cost(access: LinearLayout, shared: LinearLayout, bits: int, instruction: str, regs_per_tile: int,
               reps: tuple[int, ...] = (), side: _Side | None = None) -> tuple[int, int, int, int, object]:
    """(wavefronts per instruction, conflict-free minimum, matrices per instruction, instructions per warp,
    the matrix tile or None).  ``side``: ``_side(access)`` when the caller has it."""
    from llverify.codegen.banks import bank_wavefronts
    from llverify.codegen.ldmatrix import matrix_tile, matrix_wavefronts

    side = side or _side(access)
    regs = 1 << len(side.regs)
    if instruction == "vector":
        rep = bank_wavefronts(access, shared, bits)
        return rep.wavefronts, rep.phases, 0, regs // rep.vector.elems, None
    n = max(1, min(4, regs_per_tile * bits // 32))
    # .trans: the row bit is the first register of one repetition (Triton lowers tile by tile)
    row = next((i for i, r in enumerate(side.regs) if r not in reps), 0)
    rep = matrix_wavefronts(access, shared, bits, instruction, matrices=n, row_register=row)
    tile = matrix_tile(access, shared, bits, instruction, n, row)
    return rep.wavefronts, rep.min_wavefronts, rep.matrices, regs * bits // 32 // rep.matrices, tile


def plan_shared_conversion(src: LinearLayout, dst: LinearLayout, bitwidth: int, target: str = "cuda:90"
                           ) -> SharedInstructionPlan:
    """Choose the store/load instructions (Triton 3.9's rule, module docstring) and count their wavefronts
    exactly on the chosen swizzle.  Raises ``LayoutError`` when the layouts do not fit the instructions."""
    from llverify.codegen.swizzle import flat_to_layout, optimal_swizzle

    best, pairs = select_conversion_instructions(src, dst, bitwidth, target)
    A = src.transpose_outs(list(src.out_dim_names))
    B = dst.transpose_outs(list(src.out_dim_names))
    side_a, side_b = _side(A), _side(B)  # the selection's own sides (memoised), with their inverses
    if best is None:
        sw = optimal_swizzle(A, B, bitwidth)
        from llverify.codegen.banks import bank_wavefronts

        ws, wl = bank_wavefronts(A, sw.layout, bitwidth), bank_wavefronts(B, sw.layout, bitwidth)
        ns, nl = (1 << len(side.regs) for side in (side_a, side_b))
        return SharedInstructionPlan("vector", "vector", ws.wavefronts, wl.wavefronts, ws.phases, wl.phases, 0, 0,
                                     ns // ws.vector.elems, nl // wl.vector.elems, sw.layout, 1, bitwidth, target,
                                     "fallback-optimal-swizzle", ())
    S = flat_to_layout(list(best.vector) + list(best.bank) + list(best.segment) + list(best.reps), A)
    if not S.is_invertible():
        raise LayoutError("internal error: the selected swizzle is not a memory layout")
    regs_src = 1 << (len(side_a.regs) - len(best.reps))     # registers per lane in one repetition
    regs_dst = 1 << (len(side_b.regs) - len(best.reps))
    sw_, smin, sm, si, st = _side_cost(A, S, bitwidth, best.store, regs_src, best.reps, side_a)
    lw, lmin, lm, li, lt = _side_cost(B, S, bitwidth, best.load, regs_dst, best.reps, side_b)
    return SharedInstructionPlan(best.store, best.load, sw_, lw, smin, lmin, sm, lm, si, li, S, 1 << len(best.reps),
                                 bitwidth, target, "triton-3.9-rule", tuple(pairs), st, lt)


@dataclass(frozen=True)
class LocalAccessPlan:
    """The instruction of a ``local_load`` / ``local_store`` / ``local_alloc`` with a register source, and its
    exact wavefronts per warp-level instruction."""

    instruction: str                 # vector | ldmatrix | ldmatrix_trans | stmatrix | stmatrix_trans
    wavefronts: int
    min_wavefronts: int
    matrices: int                    # .xN (0 for vector)
    reason: str                      # why a matrix instruction was not used (empty when it was)

    def to_json(self) -> dict:
        return {"instruction": self.instruction, "wavefronts": self.wavefronts, "min_wavefronts": self.min_wavefronts,
                "matrices": self.matrices, "reason": self.reason}


def local_access_instruction(access: LinearLayout, shared: LinearLayout, bitwidth: int, direction: str,
                             target: str = "cuda:90", padded: bool = False) -> tuple[str, str]:
    """(instruction, reason) for moving ``access`` to (``direction="store"``) or from (``"load"``) ``shared``.

    The rule (Triton 3.9's NVIDIA lowering of local_load / local_store / local_alloc, re-derived): on a target
    with the instruction, an unpadded layout and no cross-CTA part, the plain matrix instruction when its tile
    divides ``S^-1 L`` (:func:`llverify.codegen.ldmatrix.matrix_tile`), else ``.trans`` when that divides, else
    vector ld/st.shared."""
    from llverify.codegen.ldmatrix import matrix_tile

    if direction not in ("load", "store"):
        raise LayoutError(f"direction must be 'load' or 'store', not {direction!r}")
    base = "ldmatrix" if direction == "load" else "stmatrix"
    if not supports(base, target):
        return "vector", f"{target} has no {base}"
    if padded:
        return "vector", "padded shared layouts use ld/st.shared"
    reasons = []
    for name in (base, base + "_trans"):
        try:
            matrix_tile(access, shared, bitwidth, name)
            return name, ""
        except LayoutError as e:
            reasons.append(str(e))
    return "vector", "; ".join(reasons)


def plan_local_access(access: LinearLayout, shared: LinearLayout, bitwidth: int, direction: str,
                      target: str = "cuda:90", padded: bool = False) -> LocalAccessPlan:
    """:func:`local_access_instruction` and the exact count of that instruction (vector: lemma 9.4; matrix: the
    model of :mod:`llverify.codegen.ldmatrix`).  A padded layout is not counted here (use
    :func:`llverify.codegen.target_banks.target_wavefronts`)."""
    from llverify.codegen.banks import bank_wavefronts
    from llverify.codegen.ldmatrix import matrix_wavefronts

    instr, reason = local_access_instruction(access, shared, bitwidth, direction, target, padded)
    if instr == "vector":
        if padded:
            raise LayoutError("plan_local_access does not count padded layouts")
        rep = bank_wavefronts(access, shared, bitwidth)
        return LocalAccessPlan("vector", rep.wavefronts, rep.phases, 0, reason)
    rep = matrix_wavefronts(access, shared, bitwidth, instr)
    return LocalAccessPlan(instr, rep.wavefronts, rep.min_wavefronts, rep.matrices, "")
