"""Vectorisation widths and instruction tiles (seed 000, sections 5.1 and 5.3, theorem 5.1).

*Contiguity through the inverse* (section 5.1): a thread's registers form one
vector of ``u`` elements when registers ``0 .. u-1`` hold addresses
``base + 0 .. base + u-1``.  In F2 terms: after a permutation of the
registers, the first ``log2 u`` register bases map to address bits
``1, 2, 4, ...`` (identity) and no other basis (other registers, lanes,
warps, blocks) touches those low address bits, so every vector is aligned.
This is left division by the tile ``identity(u, register -> address)``
(theorem 5.1).

The address is either the element index of a row-major tensor (global
memory, :func:`global_vector_width`) or the shared-memory offset reached
through ``S^-1 L`` (:func:`shared_vector_width`).  Widths are capped at 128
bits, the widest ld/st.

Table 2 example: a blocked layout with ``size_per_thread=[8, 2]``,
``order=[1, 0]`` over a ``[512, 2]`` f8 tensor has register bases
``(0,1), (1,0), (2,0), (4,0)``; row-major addresses ``1, 2, 4, 8``: 16
contiguous elements, 128 bits, where the fastest dimension alone gives 2
elements (16 bits).
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.common import check_bitwidth, log2, remove_broadcast_registers, row_major_flat
from llverify.errors import LayoutError
from llverify.column_action import ColumnAction
from llverify.layout import LinearLayout

__all__ = [
    "VectorPlan", "largest_vectorisation", "global_vector_width", "shared_vector_width",
    "fastest_dim_vector_width", "InstructionTiles", "instruction_tiles",
]


@dataclass(frozen=True)
class VectorPlan:
    """A vectorised access: ``elems`` registers per vector, ``bits`` wide.

    ``register_order[i]`` is the original register basis that becomes basis
    ``i`` (a ``ColumnAction``); the first ``log2(elems)`` are the vector.
    """

    elems: int
    bits: int
    register_order: tuple[int, ...]

    def to_json(self) -> dict:
        return {"elems": self.elems, "bits": self.bits, "register_order": list(self.register_order)}


def largest_vectorisation(to_addr: LinearLayout, bitwidth: int, address_dim: str = "offset",
                          max_elems: int | None = None, allow_permutation: bool = True) -> VectorPlan:
    """Largest ``v <= min(128 / bitwidth, max_elems)`` such that ``to_addr`` divides by ``identity(v)``.

    ``to_addr`` maps hardware (``register`` first) to ``address_dim`` (other
    out dims, e.g. ``block``, must be zero on the vector registers).
    Registers may be permuted (section 5.3, "generalized vectorization").
    """
    check_bitwidth(bitwidth)
    if not to_addr.has_out_dim(address_dim):
        raise LayoutError(f"largest_vectorisation: layout has no out dim '{address_dim}'")
    # on flat columns (out dims packed, first lowest): a basis equal to ``want`` (address bit j, zero elsewhere) is
    # the column ``1 << (shift + j)``; its address part is ``(column >> shift) & size_mask``
    shift = to_addr.flat_out_shifts()[address_dim]
    size_mask = to_addr.out_dim_size(address_dim) - 1
    cols = to_addr.flat_columns
    if to_addr.has_in_dim("register"):
        r0 = to_addr.flat_in_offsets()["register"]
        n_regs = to_addr.in_dim_size_log2("register")
        regs = list(cols[r0:r0 + n_regs])
        others = list(cols[:r0]) + list(cols[r0 + n_regs:])
    else:
        regs, others = [], list(cols)
    cap = 128 // bitwidth
    if max_elems is not None:
        cap = min(cap, max_elems)
    cap = max(cap, 1)
    v = 1 << (cap.bit_length() - 1)
    while v >= 1:
        n = log2(v)
        chosen: list[int] = []
        ok = True
        for j in range(n):
            want = 1 << (shift + j) if j < size_mask.bit_length() else None
            idx = next((i for i, b in enumerate(regs) if b == want), None)
            if idx is None or (not allow_permutation and idx != j):
                ok = False
                break
            chosen.append(idx)
        if ok:
            mask = v - 1
            rest = [b for i, b in enumerate(regs) if i not in chosen] + others
            if all(((b >> shift) & size_mask & mask) == 0 for b in rest):
                order = tuple(chosen) + tuple(i for i in range(len(regs)) if i not in chosen)
                return VectorPlan(v, v * bitwidth, order)
        v //= 2
    return VectorPlan(1, bitwidth, tuple(range(len(regs))))  # pragma: no cover (v = 1 always fits)


def global_vector_width(layout: LinearLayout, bitwidth: int) -> VectorPlan:
    """Vector width of a global load/store of a contiguous row-major tensor (section 5.1).

    Broadcast registers are dropped first (they are not loaded twice).
    """
    return largest_vectorisation(row_major_flat(remove_broadcast_registers(layout)), bitwidth)


def fastest_dim_vector_width(layout: LinearLayout, bitwidth: int) -> VectorPlan:
    """The legacy heuristic: contiguity along the last (fastest) dimension only.

    Kept to reproduce the "Triton" column of Table 2; never larger than
    :func:`global_vector_width`.
    """
    check_bitwidth(bitwidth)
    L = remove_broadcast_registers(layout)
    last = L.out_dim_names[-1]
    n = min(L.contiguous_elems_along_out_dim(last, "register"), max(1, 128 // bitwidth))
    return VectorPlan(n, n * bitwidth, tuple(range(L.in_dim_size_log2("register"))))


def shared_vector_width(access: LinearLayout, shared: LinearLayout, bitwidth: int,
                        max_elems: int | None = None) -> VectorPlan:
    """Vector width of ld.shared/st.shared between a distributed and a shared layout (section 5.3)."""
    cvt = remove_broadcast_registers(access).invert_and_compose(shared)
    return largest_vectorisation(cvt, bitwidth, "offset", max_elems)


@dataclass(frozen=True)
class InstructionTiles:
    """Which SIMD instruction tiles divide ``cvt = S^-1 L`` (theorem 5.1)."""

    vector: VectorPlan
    ldmatrix: bool
    ldmatrix_trans: bool

    def to_json(self) -> dict:
        return {"vector": self.vector.to_json(), "ldmatrix": self.ldmatrix, "ldmatrix_trans": self.ldmatrix_trans}


def _addr_bases(cvt: LinearLayout, dim: str) -> list[int]:
    k = list(cvt.out_dim_names).index("offset")
    return [b[k] for b in cvt.bases[dim]] if cvt.has_in_dim(dim) else []


def instruction_tiles(access: LinearLayout, shared: LinearLayout, bitwidth: int) -> InstructionTiles:
    """Vector ld/st width and whether ``ldmatrix``/``stmatrix`` (plain and ``.trans``) tiles divide.

    * plain: each lane moves 4 contiguous bytes (``d = log2(32 / bitwidth)``
      registers -> offsets ``1 .. 2^(d-1)``) and lanes 0, 1 continue the
      16-byte row (offsets ``2^d, 2^(d+1)``): left division by
      ``id(2^d, register, offset) * id(4, lane, offset)`` after a register
      permutation; nothing else may touch those low offset bits.
    * ``.trans`` (16-bit only): lanes 2, 3, 4 walk one 16-byte row (offsets
      1, 2, 4) and nothing else touches offset bits 0..2.
    """
    check_bitwidth(bitwidth)
    cvt = remove_broadcast_registers(access).invert_and_compose(shared)
    vec = largest_vectorisation(cvt, bitwidth)
    lanes = _addr_bases(cvt, "lane")
    plain = False
    if bitwidth <= 32 and len(lanes) >= 2:
        d = log2(32 // bitwidth)
        v32 = largest_vectorisation(cvt, bitwidth, max_elems=1 << d)
        if v32.elems == 1 << d and lanes[0] == 1 << d and lanes[1] == 1 << (d + 1):
            mask = (1 << (d + 2)) - 1
            regs = _addr_bases(cvt, "register")
            rest = [regs[i] for i in v32.register_order[d:]] + lanes[2:] + _addr_bases(cvt, "warp") + _addr_bases(cvt, "block")
            plain = all((b & mask) == 0 for b in rest)
    trans = False
    if bitwidth == 16 and len(lanes) >= 5 and lanes[2:5] == [1, 2, 4]:
        rest = _addr_bases(cvt, "register") + lanes[:2] + lanes[5:] + _addr_bases(cvt, "warp") + _addr_bases(cvt, "block")
        trans = all((b & 7) == 0 for b in rest)
    return InstructionTiles(vec, plain, trans)


def permuted(layout: LinearLayout, plan: VectorPlan) -> LinearLayout:
    """``layout`` with its registers reordered by ``plan.register_order``."""
    if not plan.register_order:
        return layout
    return ColumnAction(plan.register_order, "register", len(plan.register_order)).apply(layout)
