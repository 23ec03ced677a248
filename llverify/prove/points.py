"""Named points <-> flat bit-packed integers, for layouts' in and out spaces.

A layout's *flat input* packs its in dims first-dim-lowest (``x = reg + 2^nr
* (lane + 2^nl * warp)``), its *flat output* packs the out dims the same way
(Triton's matrix view, seed 000 section 4.1).  The provers work on flat
integers; users read named points.  Example, for in dims ``register`` (size
4) and ``lane`` (size 32): ``unflatten_in(L, 0b1011101) == {"register": 1,
"lane": 23}`` and ``flatten_in`` is its inverse.
"""

from __future__ import annotations

from typing import Mapping

from llverify.layout import LinearLayout

__all__ = [
    "describe",
    "flatten_in",
    "flatten_out",
    "hardware_element",
    "in_bit_names",
    "one_hot",
    "unflatten_in",
    "unflatten_out",
    "unit_point",
]


def unflatten_in(L: LinearLayout, x: int) -> dict[str, int]:
    """The named input whose flat index is ``x`` (every in dim present)."""
    out: dict[str, int] = {}
    for d, size in L.in_dims.items():
        bits = size.bit_length() - 1
        out[d] = x & (size - 1)
        x >>= bits
    return out


def flatten_in(L: LinearLayout, point: Mapping[str, int]) -> int:
    """Inverse of :func:`unflatten_in` (missing dims read as 0)."""
    x, off = 0, 0
    for d, size in L.in_dims.items():
        x |= int(point.get(d, 0)) << off
        off += size.bit_length() - 1
    return x


def unflatten_out(L: LinearLayout, y: int) -> dict[str, int]:
    """The named output (out dim -> value) whose flat value is ``y``."""
    return {n: (y >> s) & (L.out_dim_size(n) - 1) for n, s in L.flat_out_shifts().items()}


def flatten_out(L: LinearLayout, point: Mapping[str, int]) -> int:
    """Inverse of :func:`unflatten_out` (missing dims read as 0)."""
    y = 0
    for n, s in L.flat_out_shifts().items():
        y |= int(point.get(n, 0)) << s
    return y


def in_bit_names(L: LinearLayout) -> list[tuple[str, int]]:
    """``(in dim, bit)`` for every flat input bit, in flat order."""
    return [(d, i) for d, size in L.in_dims.items() for i in range(size.bit_length() - 1)]


def one_hot(L: LinearLayout, j: int) -> dict[str, int]:
    """The named input with only flat bit ``j`` set (``register: 0, lane: 4, ...``)."""
    return unflatten_in(L, 1 << j)


def unit_point(L: LinearLayout, dim: str, bit: int) -> dict[str, int]:
    """The named input with bit ``bit`` of ``dim`` set and every other in dim 0 (``{register: 0, lane: 4}``)."""
    return {d: (1 << bit if d == dim else 0) for d in L.in_dim_names}


def hardware_element(L: LinearLayout, register: int, lane: int, warp: int, block: int) -> int:
    """The flat output of ``L`` at a hardware point (dims ``L`` lacks, and bits past a dim's size, read as 0).

    >>> L = LinearLayout([("lane", [[1], [2], [4], [8], [16]])], [("dim0", 32)])
    >>> hardware_element(L, 0, 5, 0, 0), hardware_element(L, 3, 5, 1, 0)
    (5, 5)
    """
    cols, offsets, x = L.flat_columns, L.flat_in_offsets(), 0
    for d, v in (("register", register), ("lane", lane), ("warp", warp), ("block", block)):
        if L.has_in_dim(d):
            for j in range(L.in_dim_size_log2(d)):
                if v >> j & 1:
                    x ^= cols[offsets[d] + j]
    return x


def describe(L: LinearLayout) -> str:
    """A short display name: ``layout(register=4, lane=32 -> dim0=16, dim1=8)``."""
    ins = ", ".join(f"{d}={s}" for d, s in L.in_dims.items())
    outs = ", ".join(f"{n}={s}" for n, s in L.out_dims.items())
    return f"layout({ins} -> {outs})"
