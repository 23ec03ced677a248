"""Triton's view of a warp-local conversion as a permutation of hardware bits, and how Triton 3.9 lowers it.

:func:`transposition_decomposition` factors ``cvt`` (when it permutes register
and lane bits) into register<->register swaps (free renaming), lane<->lane
swaps (one shuffle each) and register<->lane swaps (select, shuffle, select);
:func:`transposition_packing` reads off the register bits that travel as one
32-bit word; :func:`triton_lowering` is the class Triton really emits
(seed 000 section 5.4 plus Triton's ``cvtNeedsWarpShuffle`` cost rule).
Re-exported by :mod:`llverify.codegen.shuffle`.
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.conversion import ConversionPlan, convert
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["Transposition", "transposition_decomposition", "transposition_packing", "triton_lowering"]


@dataclass(frozen=True)
class Transposition:
    """Swap of two hardware bits: ``kind`` is register_swap, lane_swap or register_lane_swap."""

    kind: str
    a: tuple[str, int]
    b: tuple[str, int]


def transposition_decomposition(src: LinearLayout, dst: LinearLayout) -> tuple[Transposition, ...] | None:
    """Factor ``cvt`` into bit transpositions when it permutes register and lane bits.

    Returns None when ``cvt`` restricted to registers and lanes is not a bit
    permutation (then only :func:`shuffle_plan` applies).  Applying the
    transpositions in order to the identity gives ``cvt``'s permutation.
    """
    plan = convert(src, dst)
    if plan.classification == "shared_memory":
        return None
    cvt = plan.cvt
    slots = [("register", i) for i in range(cvt.in_dim_size_log2("register"))] + \
            [("lane", i) for i in range(cvt.in_dim_size_log2("lane"))]
    index = {s: j for j, s in enumerate(slots)}
    target: list[int] = []
    for d, i in slots:
        b = cvt.bases[d][i]
        hits = [(o, c) for o, c in zip(cvt.out_dim_names, b) if c]
        if len(hits) != 1 or hits[0][0] not in ("register", "lane") or hits[0][1] & (hits[0][1] - 1):
            return None
        slot = (hits[0][0], hits[0][1].bit_length() - 1)
        if slot not in index:  # the source has more register (or lane) bits than the destination
            return None
        target.append(index[slot])
    if sorted(target) != list(range(len(slots))):
        return None
    cur = list(range(len(slots)))
    steps: list[Transposition] = []
    for j in range(len(slots)):
        if cur[j] == target[j]:
            continue
        k = cur.index(target[j])
        cur[j], cur[k] = cur[k], cur[j]
        a, b = slots[j], slots[k]
        kind = "register_swap" if a[0] == b[0] == "register" else "lane_swap" if a[0] == b[0] == "lane" \
            else "register_lane_swap"
        steps.append(Transposition(kind, a, b))
    return tuple(steps)


def transposition_packing(src: LinearLayout, dst: LinearLayout, bitwidth: int) -> tuple[int, ...] | None:
    """Register bits that every step of :func:`transposition_decomposition` leaves alone, as word packing.

    Registers that differ only in these bits travel together: a lane swap or
    a register<->lane swap moves them as one 32-bit word, so up to
    ``32 // bitwidth`` elements share one shuffle.  Returns the lowest such
    bits, at most ``log2(32 // bitwidth)`` of them (``()`` for 32-bit
    elements), or None when ``cvt`` is not a bit permutation.  Example: f16,
    a single swap of register bit 1 with lane bit 4: bit 0 packs, ``(0,)``,
    two elements per shuffle.
    """
    if bitwidth not in (8, 16, 32):
        raise LayoutError(f"transposition_packing: element bitwidth {bitwidth} must be 8, 16 or 32")
    steps = transposition_decomposition(src, dst)
    if steps is None:
        return None
    touched = {s[1] for t in steps for s in (t.a, t.b) if s[0] == "register"}
    n_reg = convert(src, dst).cvt.in_dim_size_log2("register")
    free = [j for j in range(n_reg) if j not in touched]
    return tuple(free[:(32 // bitwidth).bit_length() - 1])


def triton_lowering(src: LinearLayout, dst: LinearLayout, plan: ConversionPlan | None = None) -> str:
    """How Triton (3.6 and 3.9, measured) lowers ``convert_layout(src -> dst)``: the plan's classification,
    except that a warp-shuffle conversion goes through shared memory unless ``cvt`` is a bit permutation of
    registers and lanes with fewer than two register<->lane transpositions (Triton's
    ``cvtNeedsWarpShuffle``, lib/Analysis/Utility.cpp, counts the "mixed" transpositions of its
    decomposition the same way).

    Broadcast copies (Triton 3.9, PR #11646): when ``cvt`` is not a bit permutation because a layout
    holds copies, or moves data across warps only because it picked a copy in another warp while the
    destination's own warp of the source holds one too, in a lane selected by the warp alone (register
    shift 0 in :func:`llverify.codegen.shuffle_broadcast.warp_shifts`), Triton reads the warp-local copy and counts the mixed transpositions of its padded bit permutation
    (:func:`~llverify.codegen.shuffle_broadcast.triton_mixed_transpositions`): fewer than two, a warp
    shuffle; else shared memory.

    Checked against the LLVM IR Triton emits for the conversions of the corpus, of the H200 run and of the
    broadcast cases (shared-memory accesses vs ``shfl.sync``): all agree (tests/test_conversion_lowering.py).

    ``plan``: ``convert(src, dst)`` when the caller has it already (computed once; Requires: that very plan).
    """
    from llverify.codegen.shuffle_broadcast import reading_map, triton_mixed_transpositions, warp_shifts

    cls = (plan if plan is not None else convert(src, dst)).classification
    if cls in ("noop", "register_permutation"):
        return cls
    steps = transposition_decomposition(src, dst) if cls == "warp_shuffle" else None
    if steps is not None:
        return "shared_memory" if sum(t.kind == "register_lane_swap" for t in steps) >= 2 else cls
    A = src.transpose_outs(list(dst.out_dim_names))
    shifts = [warp_shifts(A, dst, d) for d in ("warp", "block")]
    # Triton selects the copy by source lane only: a warp that needs other registers goes through memory
    if any(s is None or any(r for r, _ in s) for s in shifts) or reading_map(A, dst) is None:
        return "shared_memory"
    mixed = triton_mixed_transpositions(A, dst)
    return "warp_shuffle" if mixed is not None and mixed < 2 else "shared_memory"
