"""CuTe layout notation, where it is F2-linear, as a llverify memory layout.

CuTe writes a layout as ``shape:stride`` (``(8,64):(64,1)``): the coordinate
``(i, j)`` of a tensor of that shape goes to offset ``i*64 + j*1``, modes
colexicographic (mode 0 fastest).  A swizzle ``Sw<B,M,S>`` composed on the
left (``Sw<3,4,3> o (8,64):(64,1)``) post-processes the offset as CuTe's
``Swizzle<B,M,S>`` (pycute's ``Swizzle(bits, base, shift)``, cutlass
python/pycute/swizzle.py; needs ``B >= 0``, ``M >= 0``, ``|S| >= B``)::

    o ^ shiftr(o & yyy, S)     yyy = (2^B - 1) << (M + max(0, S))
                               shiftr(x, S) = x >> S if S > 0 else x << -S

For ``S > 0`` the B bits at ``M+S`` are XORed into the B bits at ``M``; for
``S < 0`` the other way, the B bits at ``M`` into those at ``M+|S|``.  E.g.
``Sw<2,0,-2> o (4,4):(4,1)`` sends (i, j) to ``4 (i ^ j) + j``: offset bases
``(1,1), (2,2), (1,0), (2,0)``.

Over F2 this is linear exactly when the coordinate -> offset sums never carry,
e.g. when every stride is 0 or a power of two and the images of distinct
coordinate bits are distinct powers of two; we accept any layout whose bit
images XOR to the true offset on the whole domain (checked: structurally when
the images are distinct powers of two, else by enumeration up to 2^20 points).

The result is the *memory layout* in llverify's direction: in dims ``offset``
and ``block`` (size 1, as Triton's shared layouts),
out dims ``dim0..dim{r-1}`` (one per top-level mode), i.e. the inverse of the
CuTe function, which must therefore be a bijection onto ``[0, 2^n)``.

Example: ``(4,2):(2,1)`` sends (i, j) to 2i + j, so offset 1 holds (0, 1) and
offset 2 holds (1, 0): bases ``offset: [[0, 1], [1, 0], [2, 0]]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["CuteLayout", "parse_cute", "cute_to_layout", "swizzle_offset"]

MAX_ENUM_BITS = 20


@dataclass(frozen=True)
class CuteLayout:
    """A parsed CuTe expression: modes (each a tuple of (size, stride) leaves) and an optional swizzle."""

    modes: tuple[tuple[tuple[int, int], ...], ...]
    swizzle: tuple[int, int, int] | None = None


_TOKEN = re.compile(r"\s*(-?\d+|[(),:<>]|Sw|o|∘)")


def _tokens(text: str) -> list[str]:
    out, i = [], 0
    text = text.strip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m:
            raise LayoutError(f"CuTe expression {text!r}: unexpected character {text[i]!r} at position {i}")
        out.append(m.group(1))
        i = m.end()
        while i < len(text) and text[i].isspace():
            i += 1
    return out


def _parse_tuple(toks: list[str], k: int) -> tuple[object, int]:
    """An int or a parenthesised, possibly nested, tuple of ints."""
    if k >= len(toks):
        raise LayoutError("CuTe expression ends early")
    if toks[k].lstrip("-").isdigit():
        if toks[k].startswith("-"):
            raise LayoutError(f"CuTe expression: negative size or stride {toks[k]} is not F2-linear")
        return int(toks[k]), k + 1
    if toks[k] != "(":
        raise LayoutError(f"CuTe expression: expected a number or '(', got {toks[k]!r}")
    items, k = [], k + 1
    while True:
        item, k = _parse_tuple(toks, k)
        items.append(item)
        if k >= len(toks):
            raise LayoutError("CuTe expression: missing ')'")
        if toks[k] == ")":
            return tuple(items), k + 1
        if toks[k] != ",":
            raise LayoutError(f"CuTe expression: expected ',' or ')', got {toks[k]!r}")
        k += 1


def _leaves(x: object) -> list[int]:
    return [x] if isinstance(x, int) else [v for item in x for v in _leaves(item)]  # type: ignore[union-attr]


def parse_cute(text: str) -> CuteLayout:
    """Parse ``[Sw<B,M,S> o] shape:stride``; shapes and strides congruent (same nesting)."""
    toks = _tokens(text)
    k = 0
    swz = None
    if toks and toks[0] == "Sw":
        if toks[1:2] != ["<"] or len(toks) < 9 or toks[3] != "," or toks[5] != "," or toks[7] != ">":
            raise LayoutError(f"CuTe swizzle must read Sw<B,M,S>, got {text!r}")
        swz = (int(toks[2]), int(toks[4]), int(toks[6]))
        k = 8
        if k >= len(toks) or toks[k] not in ("o", "∘"):
            raise LayoutError("CuTe swizzle must be composed with a layout: `Sw<B,M,S> o shape:stride`")
        k += 1
    shape, k = _parse_tuple(toks, k)
    if k >= len(toks) or toks[k] != ":":
        raise LayoutError("CuTe layout must read shape:stride")
    stride, k = _parse_tuple(toks, k + 1)
    if k != len(toks):
        raise LayoutError(f"CuTe expression: unexpected {toks[k]!r} after the layout")
    shape_modes = (shape,) if isinstance(shape, int) else shape
    stride_modes = (stride,) if isinstance(stride, int) else stride
    if len(shape_modes) != len(stride_modes):  # type: ignore[arg-type]
        raise LayoutError("CuTe shape and stride have different numbers of modes")
    modes = []
    for sm, tm in zip(shape_modes, stride_modes):  # type: ignore[call-overload]
        ls, lt = _leaves(sm), _leaves(tm)
        if len(ls) != len(lt):
            raise LayoutError("CuTe shape and stride are not congruent (different nesting)")
        modes.append(tuple(zip(ls, lt)))
    return CuteLayout(tuple(modes), swz)


def swizzle_offset(offset: int, b: int, m: int, s: int) -> int:
    """CuTe's ``Swizzle<B,M,S>`` applied to ``offset`` (see the module docstring); F2-linear in ``offset``."""
    if b < 0:
        raise LayoutError(f"swizzle Sw<{b},{m},{s}>: B (bits) = {b} must be >= 0")
    if m < 0:
        raise LayoutError(f"swizzle Sw<{b},{m},{s}>: M (base) = {m} must be >= 0")
    if abs(s) < b:
        raise LayoutError(f"swizzle Sw<{b},{m},{s}>: |S| (shift) = {abs(s)} must be >= B = {b} "
                          "(its source and target bits must not overlap)")
    yyy = offset & (((1 << b) - 1) << (m + max(0, s)))
    return offset ^ (yyy >> s if s > 0 else yyy << -s)


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def cute_to_layout(text: str) -> LinearLayout:
    """The memory layout (offset -> dim0..) of a bijective, F2-linear CuTe expression."""
    cute = parse_cute(text)
    # image of every coordinate bit (per mode, leaves colexicographic, bit 0 first)
    images: list[int] = []
    dim_bits: list[int] = []
    for mode in cute.modes:
        nbits = 0
        for size, stride in mode:
            if not _is_pow2(size):
                raise LayoutError(f"CuTe mode size {size} is not a power of two: not F2-linear")
            for b in range(size.bit_length() - 1):
                images.append(stride << b)
            nbits += size.bit_length() - 1
        dim_bits.append(nbits)
    n = len(images)
    if n > 32:
        raise LayoutError(f"CuTe layout has 2^{n} elements, above the 2^32 guard")
    nonzero = [v for v in images if v]
    structural = all(_is_pow2(v) for v in nonzero) and len(set(nonzero)) == len(nonzero)
    if not structural:
        if n > MAX_ENUM_BITS:
            raise LayoutError("CuTe layout is not obviously F2-linear (strides are not distinct powers of two) "
                              f"and too large (2^{n}) to check exhaustively")
        xs = np.arange(1 << n, dtype=np.int64)
        true = np.zeros(1 << n, dtype=np.int64)
        lin = np.zeros(1 << n, dtype=np.int64)
        # the true offset: per mode, the leaf coordinates times strides (colexicographic)
        bit = 0
        for mode in cute.modes:
            for size, stride in mode:
                k = size.bit_length() - 1
                true += ((xs >> bit) & (size - 1)) * stride
                bit += k
        for j, v in enumerate(images):
            lin ^= np.where((xs >> j) & 1, v, 0)
        if not np.array_equal(true, lin):
            bad = int(np.nonzero(true != lin)[0][0])
            raise LayoutError(f"CuTe layout is not F2-linear: at flat coordinate {bad} the offset is "
                              f"{int(true[bad])} but the XOR of bit images is {int(lin[bad])}")
    if cute.swizzle is not None:
        images = [swizzle_offset(v, *cute.swizzle) for v in images]
    # forward map coordinate bits -> offset; it must be a bijection onto [0, 2^n)
    if any(v >> n for v in images):
        raise LayoutError(f"CuTe layout's offsets leave [0, 2^{n}): it is not a bijection onto a "
                          "power-of-two allocation (padding has no linear layout)")
    fwd_bases = []
    for v in images:
        fwd_bases.append((v,))
    coords = [f"dim{i}" for i in range(len(cute.modes))]
    in_bases = []
    j = 0
    for d, nb in zip(coords, dim_bits):
        in_bases.append((d, [[images[j + i]] for i in range(nb)]))
        j += nb
    forward = LinearLayout(in_bases, [("offset", 1 << n)], require_surjective=False)
    if not forward.is_invertible():
        raise LayoutError("CuTe layout is not a bijection between coordinates and offsets")
    memory = forward.invert()
    if memory.out_dim_names != tuple(coords):
        memory = memory.transpose_outs(coords)
    # one CTA: a size-1 `block` in dim, as Triton's shared layouts have (offset, block)
    return LinearLayout([("offset", [list(b) for b in memory.bases["offset"]]), ("block", [])],
                        list(memory.out_dims.items()))
