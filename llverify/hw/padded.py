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


def _plain_bases(value: Any) -> tuple[tuple[int, ...], ...] | None:
    """``value`` as a tuple of equal-length tuples of non-negative ``int``s (bools excluded) when it is a
    non-empty list/tuple of such lists/tuples, else None (the caller then takes the checking path, which
    reports what is wrong)."""
    if type(value) not in (list, tuple) or not value:
        return None
    rank = len(value[0]) if type(value[0]) in (list, tuple) else -1
    out = []
    for b in value:
        if type(b) not in (list, tuple) or len(b) != rank:
            return None
        for c in b:
            if type(c) is not int or c < 0:
                return None
        out.append(tuple(b))
    return tuple(out) if rank > 0 else None


def _fast(offset_bases: Any, shape: Any) -> LinearLayout | None:
    """The linear component for plain, valid explicit offset bases and no CTA bases, or None.

    Same result as the checking path: out-dim sizes are the next power of two above each dim's largest
    component (as ``LinearLayout.from_bases`` infers them), they must equal ``shape``, and the layout must
    be surjective; anything else returns None so that the checking path raises its located error."""
    ob = _plain_bases(offset_bases)
    if ob is None or type(shape) not in (list, tuple) or len(shape) != len(ob[0]):
        return None
    sizes = [1] * len(shape)
    for b in ob:
        for k, c in enumerate(b):
            if c >= sizes[k]:
                sizes[k] = 1 << c.bit_length()
    if any(type(n) is not int or n != m for n, m in zip(shape, sizes)):
        return None
    ll = LinearLayout._make((("offset", ob), ("block", ())), tuple((f"dim{i}", n) for i, n in enumerate(sizes)))
    return ll if ll.is_surjective() else None


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
