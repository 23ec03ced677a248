"""CTA tiles, CGA (block) layouts and Triton's ``combineCtaCgaWithShape``.

Every hardware layout is built as a *CTA tile* (registers/lanes/warps, or
shared offsets, onto the tensor coordinates) and then fitted to a concrete
shape and multiplied by the *CGA layout* (``block`` onto coordinates, in units
of whole CTA tiles).  This module holds:

* :class:`Tile`: a tiny mutable builder for the product of 1-D identity/zero
  layouts (Triton's ``identity1D``/``zeros1D`` and ``operator*``), keeping
  every basis as a full vector in logical dim order ``dim0..`` and the out-dim
  *order* separately (that order decides where repetitions go).  It is a fast
  path for constructors; the result is a :class:`~llverify.layout.LinearLayout`.
* :func:`cga_bases`: the CGA layout from ``cga_layout`` bases or from the
  legacy triple ``ctas_per_cga, cta_split_num, cta_order`` (for each dim ``d`` in
  ``cta_order``: ``I(split_d, block, d) * Z(ctas_d / split_d, block, d)``).
* :func:`combine_with_shape`: grow the tile to the per-CTA shape (extra bases on
  the first in dim, out dims in the tile's out order), clip what exceeds it
  (zeroing, or for ``broadcast_registers=False`` deleting register bases), then
  append the clipped CGA bases scaled by the per-CTA shape.

Worked example (a 1-D blocked layout with 4 lanes and 4 warps on 32 elements
with ``ctas_per_cga=[4], cta_split_num=[2]``): the CGA layout is
``block -> [1], [0]`` (two distinct tiles, each duplicated), the per-CTA shape
is 32/2 = 16, so ``block`` becomes ``[16], [0]``.
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["Tile", "cga_bases", "cga_sizes", "cta_shape", "as_int_list", "as_bases", "combine_with_shape", "check_pow2", "check_rank", "check_order", "log2"]


def log2(n: int) -> int:
    return n.bit_length() - 1


def _is_pow2(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n > 0 and (n & (n - 1)) == 0


def check_pow2(values: Sequence[int], name: str, kind: str) -> None:
    """Every entry a positive power of two, else :class:`LayoutError` naming ``name``."""
    if all(type(v) is int and v > 0 and not v & (v - 1) for v in values):
        return  # the common case, decided without the per-entry call (``type(v) is int`` excludes bool)
    for i, v in enumerate(values):
        if not _is_pow2(v):
            raise LayoutError(f"{kind}: {name}[{i}] = {v!r} must be a positive power of two (got {list(values)})")


def check_rank(values: Sequence[object], name: str, rank: int, kind: str) -> None:
    if len(values) != rank:
        raise LayoutError(f"{kind}: {name} has {len(values)} entries, expected rank {rank} (got {list(values)})")


def check_order(order: Sequence[int], rank: int, kind: str, name: str = "order") -> None:
    if sorted(order) != list(range(rank)):
        raise LayoutError(f"{kind}: {name} = {list(order)} must be a permutation of 0..{rank - 1}")


def as_int_list(value: object, name: str, kind: str) -> list[int]:
    """A list of ints from a sequence (rejecting strings and non-integers) with a clear error."""
    if type(value) is list and all(type(v) is int for v in value):
        return value[:]  # the common case: a list of ints (``type(v) is int`` excludes bool), copied
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise LayoutError(f"{kind}: {name} must be a list of integers, got {value!r}")
    out = []
    for v in value:  # type: ignore[union-attr]
        if isinstance(v, bool) or not isinstance(v, int):
            raise LayoutError(f"{kind}: {name} must be a list of integers, got {value!r}")
        out.append(v)
    return out


def as_bases(value: object, name: str, kind: str, rank: int | None = None) -> list[list[int]]:
    """A list of basis vectors (lists of non-negative ints, all of length ``rank``)."""
    if value is None:
        return []
    if type(value) is list:
        # the common case: a list of lists of non-negative ints (``type(c) is int`` excludes bool), each of
        # length ``rank``, copied; anything else is checked (and worded) entry by entry below
        fast = []
        for b in value:
            if type(b) is not list or (rank is not None and len(b) != rank) or not all(
                    type(c) is int and c >= 0 for c in b):
                break
            fast.append(b[:])
        else:
            return fast
    return _as_bases_checked(value, name, kind, rank)


def _as_bases_checked(value: object, name: str, kind: str, rank: int | None) -> list[list[int]]:
    """:func:`as_bases` entry by entry, wording the first entry that is not a basis vector."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise LayoutError(f"{kind}: {name} must be a list of basis vectors, got {value!r}")
    out = []
    for i, b in enumerate(value):  # type: ignore[union-attr]
        vec = as_int_list(b, f"{name}[{i}]", kind)
        if rank is not None and len(vec) != rank:
            raise LayoutError(f"{kind}: {name}[{i}] = {vec} has {len(vec)} components, expected rank {rank}")
        if any(c < 0 for c in vec):
            raise LayoutError(f"{kind}: {name}[{i}] = {vec} has a negative component")
        out.append(vec)
    return out


class Tile:
    """Mutable product of 1-D layouts; bases are full vectors in ``dim0..`` order.

    ``ins`` maps in-dim name -> list of basis vectors (insertion order = in-dim
    order); ``order`` lists out dims (indices) in the layout's out-dim order;
    ``sizes[d]`` is out dim ``d``'s size (1 when absent from ``order``).
    """

    __slots__ = ("rank", "ins", "order", "sizes")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.ins: dict[str, list[list[int]]] = {}
        self.order: list[int] = []
        self.sizes = [1] * rank

    def _touch(self, in_dim: str, dim: int) -> list[list[int]]:
        if dim not in self.order:
            self.order.append(dim)
        return self.ins.setdefault(in_dim, [])

    def identity(self, n: int, in_dim: str, dim: int) -> "Tile":
        """``*= identity1D(n, in_dim, dim)`` (n == 0 is the empty layout: no-op)."""
        if n == 0:
            return self
        bs = self._touch(in_dim, dim)
        s = self.sizes[dim]
        k = 1
        while k < n:
            v = [0] * self.rank
            v[dim] = s * k
            bs.append(v)
            k <<= 1
        self.sizes[dim] = s * n
        return self

    def zeros(self, n: int, in_dim: str, dim: int) -> "Tile":
        """``*= zeros1D(n, in_dim, dim)``."""
        if n == 0:
            return self
        bs = self._touch(in_dim, dim)
        k = 1
        while k < n:
            bs.append([0] * self.rank)
            k <<= 1
        return self

    def identity_nd(self, in_dim: str, sizes: Sequence[int], order: Sequence[int]) -> "Tile":
        """``*= identityStandardND(in_dim, sizes, order)`` (order[0] fastest)."""
        for d in order:
            self.identity(sizes[d], in_dim, d)
        return self

    def in_dim(self, name: str) -> "Tile":
        self.ins.setdefault(name, [])
        return self

    def to_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Finish: out dims ``dim0..`` with sizes ``shape``."""
        return LinearLayout._make(
            [(d, [tuple(b) for b in bs]) for d, bs in self.ins.items()],
            [(f"dim{i}", int(s)) for i, s in enumerate(shape)])


def cga_bases(rank: int, kind: str, cga_layout: object = None, ctas_per_cga: object = None,
              cta_split_num: object = None, cta_order: object = None) -> list[list[int]]:
    """The CGA ``block`` bases (in units of CTA tiles), from either spelling.

    ``cga_layout`` gives them directly (Gluon); the legacy triple gives, for
    each dim ``d`` in ``cta_order``, ``log2(split_d)`` identity bases then
    ``log2(ctas_d / split_d)`` zero bases.  ``ctas_per_cga=[4], cta_split_num=[2],
    cta_order=[0]`` -> ``[[1], [0]]``.
    """
    legacy = (ctas_per_cga, cta_split_num, cta_order)
    if cga_layout is not None and any(x is not None for x in legacy):
        raise LayoutError(f"{kind}: give either cga_layout or ctas_per_cga/cta_split_num/cta_order, not both")
    if any(x is not None for x in legacy):
        if any(x is None for x in legacy):
            raise LayoutError(f"{kind}: ctas_per_cga, cta_split_num and cta_order must be given together")
        ctas = as_int_list(ctas_per_cga, "ctas_per_cga", kind)
        split = as_int_list(cta_split_num, "cta_split_num", kind)
        corder = as_int_list(cta_order, "cta_order", kind)
        check_rank(ctas, "ctas_per_cga", rank, kind)
        check_rank(split, "cta_split_num", rank, kind)
        check_rank(corder, "cta_order", rank, kind)
        check_order(corder, rank, kind, "cta_order")
        check_pow2(ctas, "ctas_per_cga", kind)
        check_pow2(split, "cta_split_num", kind)
        bases: list[list[int]] = []
        for d in corder:
            if split[d] > ctas[d]:
                raise LayoutError(f"{kind}: cta_split_num[{d}] = {split[d]} exceeds ctas_per_cga[{d}] = {ctas[d]}")
            k = 1
            while k < split[d]:
                v = [0] * rank
                v[d] = k
                bases.append(v)
                k <<= 1
            k = 1
            while k < ctas[d] // split[d]:
                bases.append([0] * rank)
                k <<= 1
        return bases
    bases = as_bases(cga_layout, "cga_layout", kind, rank)
    _check_cga_surjective(bases, rank, kind)
    return bases


def _check_cga_surjective(bases: list[list[int]], rank: int, kind: str) -> None:
    """Triton builds the CGA layout with inferred out sizes, which must be reached (surjective)."""
    if not bases:
        return
    seen: set[tuple[int, ...]] = set()
    for i, b in enumerate(bases):
        nz = [c for c in b if c]
        if not nz:
            continue
        if len(nz) > 1 or nz[0] & (nz[0] - 1) or tuple(b) in seen:
            raise LayoutError(f"{kind}: cga_layout = {bases}: basis {i} = {b} breaks the rule that, zero bases "
                              "removed, the CGA layout is a permutation matrix (distinct single powers of two)")
        seen.add(tuple(b))
    try:
        LinearLayout.from_bases({"block": bases}, [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{kind}: cga_layout = {bases} is not surjective onto its CTA grid "
                          f"(every CTA tile must be reached)") from exc


def cga_sizes(cga: Sequence[Sequence[int]], rank: int) -> list[int]:
    """Per dim, the number of CTA tiles the CGA bases span (next power of two above the max)."""
    sizes = [1] * rank
    for b in cga:
        for d, c in enumerate(b):
            if c:
                sizes[d] = max(sizes[d], 1 << c.bit_length())
    return sizes


def cta_shape(cga: Sequence[Sequence[int]], shape: Sequence[int]) -> list[int]:
    """Triton's per-CTA shape: ``max(1, shape[d] / min(shape[d], CTA tiles along d))``."""
    sizes = cga_sizes(cga, len(shape))
    return [max(1, s // min(s, c)) for s, c in zip(shape, sizes)]


def _clip(ins: dict[str, list[list[int]]], sizes: list[int], dims: Sequence[int], shape: Sequence[int],
          delete_registers: bool) -> None:
    """Triton's ``ensureLayoutNotLargerThan``: drop the largest bases along each too-large dim."""
    deleted: set[int] = set()
    for d in dims:
        actual, desired = sizes[d], shape[d]
        if actual <= desired:
            continue
        found = [(b[d], name, i) for name, bs in ins.items() for i, b in enumerate(bs) if b[d] != 0]
        found.sort(key=lambda t: -t[0])
        for _, name, i in found:
            if actual <= desired:
                break
            if delete_registers and name == "register":
                deleted.add(i)
            else:
                ins[name][i][d] = 0
            actual >>= 1
        sizes[d] = actual
        # a basis can still point past the clipped size when several bases share the largest value (the
        # loop stopped after removing one of them): Triton's result maps it to 0, e.g. `linear` with
        # reg_bases [[1]] and lane_bases [[1]] on shape [1] has lane (0)
        for name, bs in ins.items():
            for i, b in enumerate(bs):
                if b[d] >= desired and not (delete_registers and name == "register" and i in deleted):
                    b[d] = 0
    if deleted:
        ins["register"] = [b for i, b in enumerate(ins["register"]) if i not in deleted]


def combine_with_shape(tile: Tile, cga: list[list[int]], shape: Sequence[int], kind: str,
                       broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``combineCtaCgaWithShape(tile, cga, shape)`` (see the module docstring).

    ``tile``'s first in dim (register or offset) receives the repetitions.  With
    ``broadcast_registers=False`` register bases that exceed the shape are
    deleted instead of zeroed (blocked layouts in Triton 3.9.0).
    """
    rank = tile.rank
    shape = [int(s) for s in shape]
    # CGA layout, clipped to the shape (components beyond it zeroed).
    cga_in = {"block": [list(b) for b in cga]}
    csizes = cga_sizes(cga, rank)
    _clip(cga_in, csizes, range(rank), shape, delete_registers=False)
    per_cta = [max(1, shape[d] // csizes[d]) for d in range(rank)]
    # Every out dim must be present in the tile's order (Triton's tiles always have all).
    for d in range(rank):
        if d not in tile.order:
            tile.order.append(d)
    first = next(iter(tile.ins))
    # Grow (ensureLayoutNotSmallerThan), in the tile's out-dim order.
    for d in list(tile.order):
        if per_cta[d] > tile.sizes[d]:
            tile.identity(per_cta[d] // tile.sizes[d], first, d)
    # Shrink (ensureLayoutNotLargerThan).
    _clip(tile.ins, tile.sizes, tile.order, per_cta, delete_registers=not broadcast_registers)
    block = [[c * per_cta[d] for d, c in enumerate(b)] for b in cga_in["block"]]
    tile.ins["block"] = tile.ins.get("block", []) + block
    final = [per_cta[d] * csizes[d] for d in range(rank)]
    if final != shape:
        raise LayoutError(f"{kind}: shape {shape} is not a multiple of the CGA layout's CTA grid "
                          f"{csizes} (cga_layout = {cga})")
    return tile.to_layout(shape)
