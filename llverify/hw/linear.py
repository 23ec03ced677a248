"""Explicit distributed layouts (``#ttg.linear``, Gluon ``DistributedLinearLayout``).

The bases are given per in dim (``reg_bases``, ``lane_bases``, ``warp_bases``,
``block_bases``); the layout's own extent per dim is the next power of two
above the largest component (it must be surjective onto it).  On a tensor
``shape`` it is fitted like every other layout: repeated along ``register``
where the tensor is larger (dims in order dim0, dim1, ...), broadcast (largest
components zeroed) where it is smaller.

>>> from llverify.hw import build
>>> L = build("linear", [128], reg_bases=[[1]], lane_bases=[[2], [4], [8], [16], [32]], warp_bases=[[0], [0]])
>>> [list(b) for b in L.bases["register"]]
[[1], [64]]
"""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.cga import Tile, as_bases, combine_with_shape
from llverify.layout import LinearLayout

__all__ = ["linear", "generic_linear", "permutation_problem"]


def linear(shape: Sequence[int], reg_bases: Sequence[Sequence[int]] | None = None,
           lane_bases: Sequence[Sequence[int]] | None = None, warp_bases: Sequence[Sequence[int]] | None = None,
           block_bases: Sequence[Sequence[int]] | None = None,
           layout_shape: Sequence[int] | None = None) -> LinearLayout:
    """The explicit layout fitted to ``shape`` (``layout_shape``, if given, must match the bases' extent).

    As Gluon's ``DistributedLinearLayout``, two bases may be equal; the ``#ttg.linear`` *attribute* is held
    to Triton's verifier by the attribute reader (:func:`permutation_problem`).
    """
    return _explicit("linear", shape, reg_bases, lane_bases, warp_bases, block_bases, layout_shape)


def permutation_problem(bases: dict[str, Sequence[Sequence[int]]]) -> str | None:
    """Why explicit bases are not a permutation matrix once the zero (broadcast) bases are removed, or None.

    Triton 3.9's verifier of the ``#ttg.linear`` attribute requires it: every non-zero basis a single power of
    two along one dim, no two equal (Gluon's Python constructor does not check it).

    >>> permutation_problem({"register": [[1]], "lane": [[1]]})
    'lane basis 0 = [1] repeats register basis 0'
    >>> permutation_problem({"register": [[0, 1]], "lane": [[0, 2], [0, 0], [1, 0]]}) is None
    True
    """
    seen: dict[tuple[int, ...], str] = {}
    for d, bs in bases.items():
        for i, b in enumerate(bs):
            nz = [c for c in b if c]
            if not nz:
                continue
            if len(nz) > 1 or nz[0] & (nz[0] - 1):
                return f"{d} basis {i} = {list(b)} is not a single power of two along one dim"
            if tuple(b) in seen:
                return f"{d} basis {i} = {list(b)} repeats {seen[tuple(b)]}"
            seen[tuple(b)] = f"{d} basis {i}"
    return None


def _explicit(kind: str, shape: Sequence[int], reg_bases: Sequence[Sequence[int]] | None,
              lane_bases: Sequence[Sequence[int]] | None, warp_bases: Sequence[Sequence[int]] | None,
              block_bases: Sequence[Sequence[int]] | None, layout_shape: Sequence[int] | None) -> LinearLayout:
    shp = check_shape(shape, None, kind)
    rank = len(shp)
    named = {"register": as_bases(reg_bases, "reg_bases", kind, rank),
             "lane": as_bases(lane_bases, "lane_bases", kind, rank),
             "warp": as_bases(warp_bases, "warp_bases", kind, rank),
             "block": as_bases(block_bases, "block_bases", kind, rank)}
    try:
        ll = LinearLayout.from_bases(named, [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{kind}: the bases are not a surjective layout onto their extent: {exc}") from None
    ext = list(ll.out_dims.values())
    if layout_shape is not None and list(layout_shape) != ext:
        raise LayoutError(f"{kind}: layout_shape = {list(layout_shape)} but the bases span {ext}")
    # Triton orders the dims by their first appearance in the register bases (then the
    # rest from the last dim down); a register basis that is not one power of two
    # along one dim makes that order undefined (Triton aborts).
    order: list[int] = []
    for i, b in enumerate(named["register"]):
        nz = [(d, c) for d, c in enumerate(b) if c]
        if len(nz) > 1 or (nz and nz[0][1] & (nz[0][1] - 1)):
            raise LayoutError(f"{kind}: reg_bases[{i}] = {b} is not a single power of two along one dim; "
                              "Triton cannot order the dims of such (swizzled) register bases")
        if nz and nz[0][0] not in order:
            order.append(nz[0][0])
    order += [d for d in range(rank - 1, -1, -1) if d not in order]
    t = Tile(rank)
    t.ins = {d: [list(b) for b in bs] for d, bs in named.items()}
    t.order = order
    t.sizes = list(ext)
    return combine_with_shape(t, [], shp, kind, broadcast_registers=False)


def generic_linear(shape: Sequence[int], reg_bases: Sequence[Sequence[int]] | None = None,
                   lane_bases: Sequence[Sequence[int]] | None = None,
                   warp_bases: Sequence[Sequence[int]] | None = None,
                   block_bases: Sequence[Sequence[int]] | None = None) -> LinearLayout:
    """``#ttg.generic_linear``: the explicit layout of :func:`linear` whose *warp* bases may be swizzled
    (several non-zero components) and whose bases need not be a permutation (two bases may be equal);
    register, lane and block bases have one non-zero component at most.

    Requires: the bases surjective onto their extent; where a warp basis is swizzled, ``shape`` equal to that
    extent (fitting a swizzled basis to a smaller or larger tensor is not defined by Triton 3.9, whose own
    ``toLinearLayout`` aborts on it, so it is refused here rather than guessed).

    >>> L = generic_linear([4, 4], reg_bases=[[0, 1]], lane_bases=[[0, 2], [1, 0]], warp_bases=[[2, 1]])
    >>> [list(b) for b in L.bases["warp"]]
    [[2, 1]]
    """
    kind = "generic_linear"
    shp = check_shape(shape, None, kind)
    rank = len(shp)
    named = {"reg_bases": as_bases(reg_bases, "reg_bases", kind, rank),
             "lane_bases": as_bases(lane_bases, "lane_bases", kind, rank),
             "warp_bases": as_bases(warp_bases, "warp_bases", kind, rank),
             "block_bases": as_bases(block_bases, "block_bases", kind, rank)}
    for name in ("reg_bases", "lane_bases", "block_bases"):
        for i, b in enumerate(named[name]):
            if sum(1 for c in b if c) > 1:
                raise LayoutError(f"{kind}: {name}[{i}] = {list(b)} has several non-zero components; only warp "
                                  "bases may be swizzled")
    swizzled = [b for b in named["warp_bases"] if sum(1 for c in b if c) > 1]
    if not swizzled:
        return _explicit(kind, shp, named["reg_bases"], named["lane_bases"], named["warp_bases"],
                         named["block_bases"], None)
    try:
        ll = LinearLayout.from_bases({"register": named["reg_bases"], "lane": named["lane_bases"],
                                      "warp": named["warp_bases"], "block": named["block_bases"]},
                                     [f"dim{i}" for i in range(rank)])
    except LayoutError as exc:
        raise LayoutError(f"{kind}: the bases are not a surjective layout onto their extent: {exc}") from None
    ext = list(ll.out_dims.values())
    if ext != shp:
        raise LayoutError(f"{kind}: swizzled warp basis {list(swizzled[0])} on shape {shp}, not the bases' extent "
                          f"{ext}: fitting it to another shape is not modelled")
    return ll
