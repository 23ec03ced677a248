"""The ``cp.async`` widths Triton 3.9 may pick for ``ttg.async_copy_global_to_local`` on NVIDIA targets.

Triton lowers the copy with the generic shared-memory store loop: ``cvt = S^-1 L`` (the pointer layout ``L``,
broadcast registers removed, composed with the inverse of the buffer's layout ``S``), and each ``cp.async`` moves
``w`` elements, ``w`` the largest vector ``cvt`` divides (registers may be permuted: :func:`largest_vectorisation`)
that is at most ``maxVec``.  ``maxVec`` comes from the pointers' contiguity (axis analysis, lowered to the mask's
alignment), raised to the op's ``contiguity`` attribute when present, capped at 128 bits.  The axis analysis is
not run here, so ``w`` is known only to lie in a set:

* ``w`` is a power of two with ``w <= top = min(V, 128 / bits)``, ``V`` the layout bound (the vectorisation is
  downward closed: if ``identity(v)`` divides ``cvt`` so does ``identity(v / 2)``, hence ``w = min(maxVec', V)``
  with ``maxVec'`` the largest power of two ``<= maxVec``);
* with a hint ``h`` (``contiguity = h``), ``maxVec >= min(h, 128 / bits)`` so ``w >= pow2floor(min(h, top))``;
* ``cp.async`` moves 4, 8 or 16 bytes: a smaller ``w`` does not compile (Triton 3.9: "cp.async does not support
  transfers smaller than 4 bytes"), so a lowered program uses ``w * bits >= 32``.

Postcondition of :func:`cp_async_widths`: every width Triton 3.9 emits for the copy (when it compiles) is in the
returned tuple; the tuple is empty exactly when ``top * bits < 32`` (no lowering exists).  Whether the copy
compiles at all is :func:`narrowest_width`'s question: when it is below 4 bytes, the pointers' contiguity and
alignment (``tt.divisibility`` of the base pointer, not known here) decide between a lowering and Triton's error.

Example: f16, ``V = 8``: ``(2, 4, 8)`` elements (4, 8, 16 bytes) without a hint, ``(8,)`` with ``contiguity = 8``;
f16 with ``V = 1``: ``()``; f16 without a hint: ``narrowest_width = 1`` (2 bytes: the copy may not compile).
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.common import check_bitwidth, log2
from llverify.codegen.vectorize import largest_vectorisation
from llverify.layout import LinearLayout

__all__ = ["CP_ASYNC_BYTES", "cp_async_widths", "narrowest_width", "layout_bound", "VectorBlocker", "vector_blocker"]

#: the copy sizes of PTX ``cp.async.{ca,cg}.shared.global`` (bytes)
CP_ASYNC_BYTES = (4, 8, 16)


def _pow2floor(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def layout_bound(cvt: LinearLayout, bits: int) -> int:
    """``V``: the largest vector (elements, at most 128 bits) that ``cvt`` (hardware -> shared ``offset``)
    divides, registers permuted (seed 000, section 5.3)."""
    return largest_vectorisation(cvt, bits, "offset").elems


def cp_async_widths(bound: int, bits: int, hint: int | None) -> tuple[int, ...]:
    """The widths (elements, ascending) a ``cp.async`` of ``bits``-bit elements may have, given the layout
    bound ``bound`` (:func:`layout_bound`) and the op's ``contiguity`` attribute ``hint`` (None when absent; a
    value below 2 constrains nothing).  See the module docstring for the derivation.

    Requires: ``bits`` a power of two in 8..64 (no sub-byte cp.async), ``bound >= 1`` a power of two."""
    low = narrowest_width(bound, bits, hint)
    top = _widest(bound, bits)
    return tuple(1 << k for k in range(log2(low), log2(top) + 1) if (1 << k) * bits >= 32)


def narrowest_width(bound: int, bits: int, hint: int | None) -> int:
    """The narrowest width (elements) Triton 3.9 may pick for the copy, lowerable or not: ``pow2floor(min(h,
    top))`` with a hint ``h >= 2``, else 1 (pointers of contiguity or alignment 1 give ``maxVec = 1``).  When
    ``narrowest_width * bits < 32`` the copy compiles only if the pointers' contiguity and alignment reach 4
    bytes, which the module does not state (axis analysis over ``tt.divisibility``, not run here).

    Requires: as :func:`cp_async_widths`.

    >>> narrowest_width(8, 16, None), narrowest_width(8, 16, 8), narrowest_width(2, 16, 8)
    (1, 8, 2)"""
    check_bitwidth(bits)
    return _pow2floor(min(hint, _widest(bound, bits))) if hint is not None and hint >= 2 else 1


def _widest(bound: int, bits: int) -> int:
    """``top``: the layout bound capped at 128 bits (elements)."""
    return min(bound, max(1, 128 // bits))


@dataclass(frozen=True)
class VectorBlocker:
    """Why ``cvt`` does not divide by ``identity(elems)`` (replayed with :meth:`LinearLayout.apply`):
    either no register basis reaches the offset ``1 << bit`` alone (``point`` is None; ``register_offsets``
    lists what each register basis reaches), or the hardware basis point ``point`` (not one of the vector's
    registers) reaches ``offset``, whose low ``log2(elems)`` bits are not zero, so its vector would start
    unaligned."""

    elems: int
    bit: int | None
    point: dict[str, int] | None
    offset: int | None
    register_offsets: tuple[int, ...]

    def to_json(self) -> dict:
        return {"elems": self.elems, "missing_offset_bit": self.bit, "point": self.point, "offset": self.offset,
                "register_offsets": list(self.register_offsets)}


def _offset_of(cvt: LinearLayout, point: dict[str, int], alone: bool) -> int:
    """``cvt``'s offset at ``point`` (other in dims 0); with ``alone``, -1 when another out dim (``block``) is
    not 0 there (a vector register must move along the offset only)."""
    out = cvt.apply({d: point.get(d, 0) for d in cvt.in_dim_names})
    if alone and any(v for k, v in out.items() if k != "offset"):
        return -1
    return int(out["offset"])


def vector_blocker(cvt: LinearLayout, elems: int) -> VectorBlocker | None:
    """The first reason, in basis order, that ``identity(elems)`` does not divide ``cvt`` (None when it does),
    each value computed by evaluating ``cvt`` at a basis point (independent of :func:`layout_bound`'s search).

    Requires: ``elems`` a power of two; ``cvt`` has an ``offset`` out dim."""
    n = log2(elems)
    regs = cvt.in_dim_size_log2("register") if cvt.has_in_dim("register") else 0
    reg_offsets = tuple(_offset_of(cvt, {"register": 1 << i}, True) for i in range(regs))
    chosen: list[int] = []
    for j in range(n):
        idx = next((i for i, o in enumerate(reg_offsets) if o == 1 << j and i not in chosen), None)
        if idx is None:
            return VectorBlocker(elems, j, None, None, reg_offsets)
        chosen.append(idx)
    for d in cvt.in_dim_names:
        for i in range(cvt.in_dim_size_log2(d)):
            if d == "register" and i in chosen:
                continue
            point = {d: 1 << i}
            o = _offset_of(cvt, point, False)
            if o & (elems - 1):
                return VectorBlocker(elems, None, point, o, reg_offsets)
    return None
