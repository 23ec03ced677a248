"""``#ttg.padded_shared``: a linear shared layout with padding inserted after every ``interval`` elements.

A padded layout is two things (Triton 3.9, ``PaddedSharedEncodingAttr`` in
``include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td``):

* a *linear component* ``M: (offset, block) -> (dim0, ...)``, an F2-linear memory layout (definition
  4.14 of seed 000) mapping the unpadded linear offset ``o`` to the element stored there; printed either
  as ``{order = [...], shape = [...]}`` (the identity in that order, ``order[0]`` fastest) or as explicit
  ``{offset = [[...]], block = [[...]]}`` bases;
* a *padding* ``[I_1:+P_1, I_2:+P_2, ...]`` (powers of two, in elements): the element of linear offset
  ``o`` is stored at the physical element position

      ``pad(o) = o + sum_i floor(o / I_i) * P_i``

  (after every ``I_i`` elements ``P_i`` unused elements; where several intervals end at once the paddings
  add up).

``pad`` is not F2-linear (it adds), so it is not a basis of the layout.  It is strictly increasing, hence
injective: the padded layout stores each element once (is a memory layout) exactly when ``M`` is, and an
aligned run of ``v <= min_i I_i`` consecutive offsets stays consecutive after padding.  Claims that depend
on physical addresses (bank wavefronts, the allocation's extent) apply ``pad`` to every offset and are
decided by enumeration (:func:`llverify.codegen.bank_sim.simulate_wavefronts`), never by the linear bases.

Example (Gluon's docstring case): shape ``[8]``, ``[2:+2]``, offset bases ``[[2], [1]]`` (and ``[4]``):

>>> p = Padding(((2, 2),))
>>> [p.apply(o) for o in range(8)]
[0, 1, 4, 5, 8, 9, 12, 13]
>>> p.extent(8)
14
>>> M, pad = padded_shared([[2, 2]], [8], offset_bases=[[2], [1], [4]])
>>> [M.apply({"offset": o, "block": 0})["dim0"] for o in range(4)]
[0, 2, 1, 3]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from llverify import f2
from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import as_bases
from llverify.layout import LinearLayout

__all__ = ["Padding", "padded_shared"]

_KIND = "padded_shared"


def _pow2(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0 and v & (v - 1) == 0


@dataclass(frozen=True)
class Padding:
    """The padding ``[(I_1, P_1), ...]`` of a padded layout, in elements (see the module docstring).

    Requires: every interval and padding a positive power of two, intervals distinct.
    """

    pairs: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not self.pairs:
            raise LayoutError(f"{_KIND}: interval_padding_pairs must not be empty")
        for pair in self.pairs:
            if len(pair) != 2 or not all(_pow2(x) for x in pair):
                raise LayoutError(f"{_KIND}: interval_padding_pairs entry {list(pair)!r} must be two positive "
                                  "powers of two [interval, padding]")
        intervals = [i for i, _ in self.pairs]
        if len(set(intervals)) != len(intervals):
            raise LayoutError(f"{_KIND}: interval_padding_pairs repeat an interval: {intervals}")

    @property
    def min_interval(self) -> int:
        """The shortest interval: the longest aligned run of offsets that padding never splits."""
        return min(i for i, _ in self.pairs)

    def apply(self, offset: Any) -> Any:
        """``pad(o) = o + sum_i floor(o / I_i) * P_i`` for an ``int`` or an integer numpy array."""
        out = offset
        for interval, padding in self.pairs:
            out = out + ((offset >> (interval.bit_length() - 1)) << (padding.bit_length() - 1))
        return out

    def extent(self, elements: int) -> int:
        """Elements a buffer of ``elements`` linear offsets spans once padded: ``pad(elements - 1) + 1``."""
        return self.apply(elements - 1) + 1 if elements > 0 else 0

    def text(self) -> str:
        """Triton's spelling, ``[512:+32, 1024:+8]``."""
        return "[" + ", ".join(f"{i}:+{p}" for i, p in self.pairs) + "]"


@lru_cache(maxsize=1024)
def _cached_padding(pairs: tuple[tuple[int, ...], ...]) -> Padding:
    return Padding(pairs)


def _padding(pairs: tuple) -> Padding:
    """``Padding(pairs)``, shared between layouts (it is immutable) when every entry is a plain ``int``; other
    entries (``True`` equals ``1`` as a cache key, lists do not hash) are checked afresh."""
    if all(type(x) is int for p in pairs for x in p):
        return _cached_padding(pairs)
    return Padding(pairs)


def _fast(offset_bases: Any, shape: Any) -> LinearLayout | None:
    """The linear component for plain, valid explicit offset bases and no CTA bases, or None.

    One pass: every basis a list/tuple of ``rank = len(shape)`` non-negative ``int`` components below the
    shape (bools excluded), packed into flat columns as the layout stores them.  Accepted only when the
    result is what the checking path builds: the out-dim sizes it would infer (the next power of two above
    each dim's largest component) equal ``shape``, and the bases are surjective (F2 rank = out bits).
    Anything else returns None, and the checking path raises its located error."""
    if type(offset_bases) not in (list, tuple) or not offset_bases or type(shape) not in (list, tuple) or not shape:
        return None
    rank = len(shape)
    shifts = []
    bits = 0
    for n in shape:
        if type(n) is not int or n <= 0 or n & (n - 1):
            return None
        shifts.append(bits)
        bits += n.bit_length() - 1
    top = [0] * rank
    flat = []
    for b in offset_bases:
        if type(b) not in (list, tuple) or len(b) != rank:
            return None
        v = 0
        for k in range(rank):
            c = b[k]
            if type(c) is not int or c < 0 or c >= shape[k]:
                return None
            top[k] |= c
            v |= c << shifts[k]
        flat.append(v)
    if any(1 << t.bit_length() != n for t, n in zip(top, shape)) or f2.rank(flat) != bits:
        return None
    return LinearLayout._raw((("offset", len(flat)), ("block", 0)), tuple((f"dim{i}", n) for i, n in enumerate(shape)),
                             tuple(flat))


def padded_shared(interval_padding_pairs: Sequence[Sequence[int]], shape: Sequence[int],
                  order: Sequence[int] | None = None, offset_bases: Sequence[Sequence[int]] | None = None,
                  block_bases: Sequence[Sequence[int]] | None = None,
                  cga_layout: Sequence[Sequence[int]] | None = None) -> tuple[LinearLayout, Padding]:
    """The linear component and the padding of ``#ttg.padded_shared`` on ``shape`` (one CTA's buffer).

    Give either ``order`` (the identity layout in that order, as Triton prints ``{order, shape}``) or
    ``offset_bases`` (and optionally ``block_bases``/``cga_layout``).

    Postcondition: the linear component has in dims ``(offset, block)`` and out dims ``dim0..`` of sizes
    ``shape``; it is *not* the physical map, which is ``Padding.apply`` of its offset.
    """
    try:
        padding = _padding(tuple(tuple(p) for p in interval_padding_pairs))  # type: ignore[arg-type]
    except TypeError:
        raise LayoutError(f"{_KIND}: interval_padding_pairs must be a list of [interval, padding] pairs, "
                          f"got {interval_padding_pairs!r}") from None
    if (order is None) == (offset_bases is None):
        raise LayoutError(f"{_KIND}: give exactly one of order or offset_bases")
    blocks = block_bases if block_bases is not None else cga_layout
    if order is None and not blocks:
        fast = _fast(offset_bases, shape)
        if fast is not None:
            return fast, padding
    return _checked(shape, order, offset_bases, blocks), padding


def _checked(shape: Sequence[int], order: Sequence[int] | None, offset_bases: Sequence[Sequence[int]] | None,
             blocks: Sequence[Sequence[int]] | None) -> LinearLayout:
    """The linear component, every argument checked with a located error (the general path)."""
    if order is not None:
        rank = len(order)
        shp = check_shape(shape, rank, _KIND)
        if sorted(order) != list(range(rank)):
            raise LayoutError(f"{_KIND}: order {list(order)!r} is not a permutation of 0..{rank - 1}")
        if blocks:
            raise LayoutError(f"{_KIND}: the {{order, shape}} form with CTA bases is not modelled")
        ob = [[(1 << k) if d == dim else 0 for d in range(rank)]
              for dim in order for k in range(shp[dim].bit_length() - 1)]
        bb: list[list[int]] = []
    else:
        ob = as_bases(offset_bases, "offset_bases", _KIND)
        if not ob:
            raise LayoutError(f"{_KIND}: offset_bases must not be empty")
        rank = len(ob[0])
        for i, vec in enumerate(ob):
            if len(vec) != rank:
                raise LayoutError(f"{_KIND}: offset_bases[{i}] = {vec} has {len(vec)} components, expected rank "
                                  f"{rank}")
        bb = as_bases(blocks, "block_bases", _KIND, rank)
        shp = check_shape(shape, rank, _KIND)
    try:
        ll = LinearLayout.from_bases({"offset": ob, "block": bb}, [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{_KIND}: the bases do not form a surjective layout: {exc}") from None
    if list(ll.out_dims.values()) != shp:
        raise LayoutError(f"{_KIND}: the bases span {list(ll.out_dims.values())}, but shape is {shp}")
    return ll
