"""Small helpers shared by the code-generation algorithms (seed 000, section 5).

Everything in ``llverify.codegen`` works on *flattened* tensor coordinates:
the out dims of a layout concatenated into one integer, ``dim0`` in the low
bits (Triton's ``flattenOuts``).  A basis is then one int, and subspaces of
the tensor space ``F2^d`` are lists of ints handled by :mod:`llverify.f2`.

Example: for out dims ``dim0`` (size 4), ``dim1`` (size 2) the basis
``(1, 1)`` flattens to ``0b101 == 5``.
"""

from __future__ import annotations

from typing import Sequence

from llverify import f2
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = [
    "flat_bases", "remove_broadcast_registers", "row_major_flat", "check_bitwidth",
    "register_permutation_to_front", "log2",
]


def log2(n: int) -> int:
    """Exact log2 of a power of two (``log2(8) == 3``)."""
    if n <= 0 or n & (n - 1):
        raise LayoutError(f"{n} is not a power of two")
    return n.bit_length() - 1


def flat_bases(layout: LinearLayout, in_dim: str) -> list[int]:
    """The flattened images of ``in_dim``'s bases (``[]`` if the dim is absent)."""
    if not layout.has_in_dim(in_dim):
        return []
    off = layout.flat_in_offsets()[in_dim]
    n = layout.in_dim_size_log2(in_dim)
    return list(layout.flat_columns[off:off + n])


def remove_broadcast_registers(layout: LinearLayout) -> LinearLayout:
    """Drop register bases that are zero or repeat an earlier register basis.

    Those registers hold copies of other registers (section 5.1); code
    generation reads/writes only one copy.  Other in dims are unchanged.
    Example: registers ``[(0,1), (0,0), (0,1)]`` -> ``[(0,1)]``.
    """
    if not layout.has_in_dim("register"):
        return layout
    kept = kept_register_bits(layout)
    n = layout.in_dim_size_log2("register")
    if len(kept) == n:
        return layout  # nothing to drop: the layout itself (immutable)
    # a subset of a valid layout's columns on its own out dims: valid, so built from the flat columns directly
    off = layout.flat_in_offsets()["register"]
    flat = layout.flat_columns
    ins = tuple((d, len(kept) if d == "register" else layout.in_dim_size_log2(d)) for d in layout.in_dim_names)
    return LinearLayout._raw(ins, tuple(layout.out_dims.items()),
                             flat[:off] + tuple(flat[off + i] for i in kept) + flat[off + n:])


def kept_register_bits(layout: LinearLayout) -> list[int]:
    """Indices of the register bases :func:`remove_broadcast_registers` keeps (the first copy of each non-zero
    basis).  Example: registers ``[(0,1), (0,0), (0,1), (1,0)]`` -> ``[0, 3]``.  Read off the flat columns (a
    basis is zero, or repeats another, exactly when its flat column does)."""
    kept: list[int] = []
    seen: set[int] = set()
    for i, c in enumerate(flat_bases(layout, "register")):
        if c and c not in seen:
            kept.append(i)
            seen.add(c)
    return kept


def original_register(reduced: int, kept: list[int]) -> int:
    """The register index of the original layout for register ``reduced`` of the reduced one (bit ``j`` of
    ``reduced`` is original bit ``kept[j]``).  Example: ``original_register(0b11, [0, 3]) == 0b1001``."""
    return sum(1 << kept[j] for j in range(len(kept)) if reduced >> j & 1)


def row_major_flat(layout: LinearLayout, name: str = "offset") -> LinearLayout:
    """The layout followed by the row-major flattening of the tensor (last dim fastest).

    This is the element index of a contiguous row-major tensor in global
    memory: ``offset = ((c0 * n1) + c1) * n2 + c2 ...``.
    """
    outs = list(layout.out_dim_names)
    if not outs:
        raise LayoutError("row_major_flat needs a layout with out dims")
    flat = layout.transpose_outs(list(reversed(outs))).flatten_outs()
    return flat.rename_out_dim(flat.out_dim_names[0], name)


def check_bitwidth(bitwidth: int) -> int:
    """Element bit width: a power of two from 8 to 128 (bytes are the address unit)."""
    if not isinstance(bitwidth, int) or bitwidth < 8 or bitwidth > 128 or bitwidth & (bitwidth - 1):
        raise LayoutError(f"element bitwidth {bitwidth!r} must be one of 8, 16, 32, 64, 128")
    return bitwidth


def register_permutation_to_front(n_regs: int, front: Sequence[int]) -> tuple[int, ...]:
    """A column action moving register bases ``front`` (in that order) first, the rest after."""
    rest = [i for i in range(n_regs) if i not in front]
    return tuple(front) + tuple(rest)


def span_dim_intersection_with_high_bits(vectors: Sequence[int], low_bits: int) -> int:
    """``dim(span(vectors) ∩ {x : x mod 2^low_bits == 0})`` (rank minus rank of the low parts)."""
    mask = (1 << low_bits) - 1
    return f2.rank(vectors) - f2.rank([v & mask for v in vectors])
