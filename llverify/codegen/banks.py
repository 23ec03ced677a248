"""Shared-memory bank conflicts in closed form (seed 000, lemma 9.4).

Hardware model (NVIDIA, as Nsight Compute counts it; unit: *wavefronts per
warp-level shared-memory instruction*): 32 banks of 4-byte words.  Each lane
accesses one vector of ``vec_bytes`` bytes.  Vectors of ``n = vec_bytes / 4
>= 1`` words are served ``32 / n`` consecutive lanes at a time (one 128-byte
phase each); narrower accesses serve all 32 lanes in one phase.  Lanes that
touch the same 4-byte word are served together.  A phase takes as many
wavefronts as the largest number of distinct words any one bank must serve.

Closed form.  Let ``cvt = S^-1 L`` map hardware to shared offsets, ``w(o) =
(o * bytes) >> 2`` the word of an offset (linear over F2: a shift), Λ the lane
bases of one phase, and ``W = span(w(cvt(Λ)) ∪ {1, 2, .., n/2})`` the words
one phase touches (a subspace, up to a translation).  Two words share a bank
iff their XOR lies in ``R = {x : x mod 32 == 0}``, so every bank that is hit
serves exactly ``|W ∩ R|`` distinct words and

    wavefronts = max(1, n) * 2 ** dim(W ∩ R),   dim(W ∩ R) = rank W - rank(W mod 32).

For vectors of >= 32 bits this is lemma 9.4's ``n c``.  Triton
(``get_shared_bank_conflicts``) reports ``2 ** dim - 1`` with the
intersection taken in *element* offsets, which agrees except when a
sub-word access (< 32 bits) has lanes whose offsets carry sub-word bits:
there Triton under-counts (measured on an H200 with ``ncu``: lanes 0-15
writing halfwords ``2l`` and lanes 16-31 writing ``128 + (2l ^ 1)`` take 2
wavefronts; Triton's formula gives 0 conflicts, i.e. 1).  We follow the
hardware; :attr:`BankReport.triton_formula_conflicts` records Triton's value.

Worked example: 32 lanes each storing a 16-byte f32 vector down one column
of an unswizzled 32x32 tile: n = 4, phase lanes = rows 1, 2, 4 -> words 32,
64, 128, all in R, so dim = 3 and wavefronts = 4 * 8 = 32 (Triton: 7).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from llverify import f2
from llverify.codegen.common import check_bitwidth, log2, remove_broadcast_registers, span_dim_intersection_with_high_bits
from llverify.codegen.vectorize import VectorPlan, largest_vectorisation
from llverify.errors import LayoutError
from llverify.evaluate import xor_table
from llverify.layout import LinearLayout

__all__ = ["BankReport", "bank_wavefronts", "access_to_offsets", "offset_bases", "offset_columns", "clear_memo", "word_of_offset", "NUM_BANKS", "WARP_LANES"]

NUM_BANKS = 32
WARP_LANES = 32


@dataclass(frozen=True)
class BankReport:
    """Result of :func:`bank_wavefronts` (see the module docstring)."""

    bitwidth: int
    vector: VectorPlan
    phases: int                      # wavefronts of a conflict-free instruction (max(1, vec_bytes / 4))
    lanes_per_phase: int
    phase_lane_bits: int             # lane bases of one phase (the low ones)
    conflict_dim: int                # dim(W ∩ R)
    wavefronts: int                  # per warp-level instruction
    conflicting_lanes: tuple[int, ...]   # phase-0 lanes hitting lane 0's bank at a different word
    triton_conflicts: int            # wavefronts / phases - 1 (Triton's unit)
    triton_formula_conflicts: int    # what Triton's element-space formula gives
    subword_lane_offsets: bool       # sub-word access whose lane offsets carry sub-word bits

    @property
    def vector_elems(self) -> int:
        return self.vector.elems

    @property
    def vector_bits(self) -> int:
        return self.vector.bits

    def to_json(self) -> dict:
        return {
            "bitwidth": self.bitwidth, "vector_elems": self.vector.elems, "vector_bits": self.vector.bits,
            "register_order": list(self.vector.register_order), "phases": self.phases,
            "lanes_per_phase": self.lanes_per_phase, "wavefronts": self.wavefronts,
            "conflict_dim": self.conflict_dim, "conflicting_lanes": list(self.conflicting_lanes),
            "triton_conflicts": self.triton_conflicts, "triton_formula_conflicts": self.triton_formula_conflicts,
            "subword_lane_offsets": self.subword_lane_offsets,
        }


@lru_cache(maxsize=1024)
def access_to_offsets(access: LinearLayout, shared: LinearLayout) -> LinearLayout:
    """``cvt = S^-1 L`` (broadcast registers removed): hardware -> shared ``offset``.

    Memoised (a pure function of two immutable layouts; the bank count, the vector choice and the matrix-tile
    search of one access all start from it): ``access_to_offsets.cache_clear()`` forgets it."""
    if not shared.has_in_dim("offset"):
        raise LayoutError("the shared layout needs an 'offset' in dim")
    if not shared.is_surjective():
        raise LayoutError("the shared layout must cover the whole tensor (a memory layout is invertible, definition 4.14)")
    if set(access.out_dim_names) != set(shared.out_dim_names):
        raise LayoutError(f"access out dims {list(access.out_dim_names)} differ from shared out dims {list(shared.out_dim_names)}")
    reduced = remove_broadcast_registers(access)
    fast = _through_inverse(reduced, shared)
    return fast if fast is not None else reduced.invert_and_compose(shared)


def _through_inverse(access: LinearLayout, shared: LinearLayout) -> LinearLayout | None:
    """``shared.invert_and_compose``'s answer ``C`` with ``shared(C(x)) == access(x)`` when ``shared`` is invertible
    (a memory layout) and both have the same out dims and sizes: then ``C`` is unique, ``C = S^-1 L``, and each
    column of ``C`` is ``S^-1`` applied to ``access``'s column (:func:`_inverse_columns`, once per ``shared`` and
    out-dim order: a buffer is read and written by several layouts).  None otherwise (the caller solves in
    general)."""
    outs = tuple(access.out_dims.items())
    if dict(outs) != dict(shared.out_dims):
        return None
    inv = _inverse_columns(shared, tuple(n for n, _ in outs))
    if inv is None:
        return None
    ins = tuple((d, access.in_dim_size_log2(d)) for d in access.in_dim_names)
    out = tuple((d, shared.in_dim_size(d)) for d in shared.in_dim_names)
    return LinearLayout._raw(ins, out, tuple(f2.combine(inv, c) for c in access.flat_columns))


@lru_cache(maxsize=256)
def _inverse_columns(shared: LinearLayout, outs: tuple[str, ...]) -> tuple[int, ...] | None:
    """For an invertible ``shared``, the flat input (its in dims packed, first lowest) that ``shared`` maps to each
    flat out bit ``k`` (out dims in the order ``outs``, first lowest): the columns of ``S^-1``.  None when
    ``shared`` is not invertible.  Postcondition: ``shared.apply_flat(inv[k])`` is bit ``k`` (checked)."""
    dest = shared.transpose_outs(list(outs))
    n = dest.total_out_bits
    if dest.total_in_bits != n:
        return None
    e = f2.Echelon.of(dest.flat_columns)
    if e.rank != n:
        return None
    inv = []
    for k in range(n):
        residual, combo = e.reduce(1 << k)
        if residual or dest.apply_flat(combo) != 1 << k:
            raise LayoutError("internal: the inverse of a memory layout failed its check")
        inv.append(combo)
    return tuple(inv)


def clear_memo() -> None:
    """Forget the memoised shared-layout inverses (:func:`_inverse_columns`; benchmarks measure from scratch)."""
    _inverse_columns.cache_clear()


def word_of_offset(offset: int, bitwidth: int) -> int:
    """4-byte word index of an element offset: ``(offset * bitwidth / 8) >> 2``."""
    return (offset * bitwidth) >> 5


def offset_columns(cvt: LinearLayout) -> list[int]:
    """The ``offset`` component of every flat column of ``cvt = S^-1 L`` (in dims in order): column ``c`` gives
    ``(c >> shift) & (size - 1)`` with ``shift`` the offset dim's place in the flat out bits."""
    shift, mask = cvt.flat_out_shifts()["offset"], cvt.out_dim_size("offset") - 1
    return [(c >> shift) & mask for c in cvt.flat_columns]


def offset_bases(cvt: LinearLayout, dim: str) -> list[int]:
    """The ``offset`` component of each basis of ``dim`` of ``cvt = S^-1 L`` (the slice of :func:`offset_columns`
    for ``dim``; ``[]`` when ``cvt`` has no such in dim)."""
    if not cvt.has_in_dim(dim):
        return []
    off = cvt.flat_in_offsets()[dim]
    return offset_columns(cvt)[off:off + cvt.in_dim_size_log2(dim)]


def _lane_offsets(phase_lanes: list[int]) -> list[int]:
    """Every phase-0 lane's offset: ``out[lane]`` is the XOR of ``phase_lanes[j]`` over the set bits ``j`` of
    ``lane`` (:func:`llverify.evaluate.xor_table`)."""
    return xor_table(phase_lanes).tolist()


def bank_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int,
                    max_vector_elems: int | None = None) -> BankReport:
    """Wavefronts per warp-level ld/st.shared instruction of ``access`` on ``shared`` (lemma 9.4).

    The vector is the largest one ``S^-1 L`` divides (registers may be
    permuted, capped at 128 bits and at ``max_vector_elems``).
    """
    check_bitwidth(bitwidth)
    cvt = access_to_offsets(access, shared)
    vec = largest_vectorisation(cvt, bitwidth, "offset", max_vector_elems)
    vec_bits = vec.elems * bitwidth
    phases = max(1, vec_bits // 32)
    lanes = offset_bases(cvt, "lane")
    drop = min(log2(phases), len(lanes))
    phase_lanes = lanes[:len(lanes) - drop]
    lanes_per_phase = 1 << len(phase_lanes)
    words = [word_of_offset(o, bitwidth) for o in phase_lanes] + [1 << j for j in range(log2(phases))]
    conflict_dim = span_dim_intersection_with_high_bits(words, log2(NUM_BANKS))
    wavefronts = phases << conflict_dim
    # which phase-0 lanes hit lane 0's bank at another word (lane 0 is at word 0 after translation)
    lane_offsets = _lane_offsets(phase_lanes)
    conflicting = []
    for lane in range(1, lanes_per_phase):
        w = word_of_offset(lane_offsets[lane], bitwidth)
        if w and w % NUM_BANKS == 0:
            conflicting.append(lane)
    # Triton's formula: element offsets, segment = offsets beyond one 128-byte row
    seg_bit = log2(max(1, 1024 // bitwidth))
    triton_formula = (1 << span_dim_intersection_with_high_bits(phase_lanes, seg_bit)) - 1
    sub = vec_bits < 32 and any(o & ((32 // bitwidth) - 1) for o in phase_lanes)
    return BankReport(bitwidth, vec, phases, lanes_per_phase, len(phase_lanes), conflict_dim, wavefronts,
                      tuple(conflicting), (1 << conflict_dim) - 1, triton_formula, sub)
