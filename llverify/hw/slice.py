"""Slice layouts (``#ttg.slice<{dim, parent}>``, Gluon ``SliceLayout``).

``slice(dim, parent)`` on a rank-r shape is the parent layout on the rank-(r+1)
shape with a 1 inserted at ``dim``, with out dim ``dim`` dropped (composition
with the projection), the remaining out dims renamed ``dim0..`` and the
register bases that became zero removed.  Lanes/warps that pointed along the
dropped dim become broadcast (zero) bases.

>>> from llverify.hw import slice_layout
>>> par = {"kind": "blocked", "size_per_thread": [1, 1], "threads_per_warp": [4, 8],
...        "warps_per_cta": [1, 1], "order": [1, 0]}
>>> [list(b) for b in slice_layout(1, par, [4]).bases["lane"]]
[[0], [0], [0], [1], [2]]
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.kinds import build_spec
from llverify.layout import LinearLayout

__all__ = ["slice_layout", "slice_parent_shape", "slice_of_parent"]


def slice_layout(dim: int, parent: Mapping[str, Any], shape: Sequence[int]) -> LinearLayout:
    """The slice of ``parent`` (a ``{"kind": ..., **params}`` spec) along ``dim`` on ``shape``."""
    pshape = slice_parent_shape(dim, shape)
    par = build_spec(parent, pshape, what="slice: parent")
    return slice_of_parent(dim, par, pshape)


def slice_parent_shape(dim: int, shape: Sequence[int]) -> list[int]:
    """The parent's shape: ``shape`` with a 1 inserted at ``dim`` (``shape`` powers of two, ``0 <= dim <= rank``).
    Raises :class:`LayoutError` as :func:`slice_layout` does for a bad shape or dim."""
    kind = "slice"
    shp = check_shape(shape, None, kind)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise LayoutError(f"{kind}: dim must be an integer, got {dim!r}")
    if not 0 <= dim <= len(shp):
        raise LayoutError(f"{kind}: dim = {dim} is out of range for a parent of rank {len(shp) + 1}")
    return shp[:dim] + [1] + shp[dim:]


def slice_of_parent(dim: int, par: LinearLayout, parent_shape: Sequence[int]) -> LinearLayout:
    """The slice along ``dim`` of the parent ``par`` built on ``parent_shape``: out dim ``dim`` dropped, the
    others renamed ``dim0..`` (sizes ``parent_shape`` without entry ``dim``), register bases that became zero
    removed.

    Requires: ``parent_shape == slice_parent_shape(dim, shape)`` for the slice's ``shape``."""
    kind = "slice"
    if "register" not in par.in_dims:
        raise LayoutError(f"{kind}: parent must be a distributed layout (register/lane/warp/block), "
                          f"got in dims {list(par.in_dim_names)}")
    if 0 <= dim < len(parent_shape) and parent_shape[dim] == 1 and list(par.out_dims.values()) == list(parent_shape):
        return _slice_flat(dim, par, parent_shape)
    return _slice_general(dim, par, parent_shape)


def _slice_general(dim: int, par: LinearLayout, parent_shape: Sequence[int]) -> LinearLayout:
    """:func:`slice_of_parent` by its definition: component ``dim`` dropped from every basis, the register bases
    that became zero removed, out dims ``dim0..`` sized by ``parent_shape`` without entry ``dim``."""
    bases = []
    for d, bs in par.bases.items():
        nb = [b[:dim] + b[dim + 1:] for b in bs]
        if d == "register":
            nb = [b for b in nb if any(b)]
        bases.append((d, nb))
    shape = list(parent_shape[:dim]) + list(parent_shape[dim + 1:])
    return LinearLayout._make(bases, [(f"dim{i}", s) for i, s in enumerate(shape)])


def _slice_flat(dim: int, par: LinearLayout, parent_shape: Sequence[int]) -> LinearLayout:
    """:func:`slice_of_parent` when ``par``'s out sizes are ``parent_shape`` (so out dim ``dim`` has size 1: it
    holds no bit of the flat columns): every flat column is kept as it is, the zero register columns dropped, and
    only the out dims' names and sizes change.  Postcondition: equal to the general construction
    (``tests/test_fast_paths_buildfast.py``)."""
    ins = []
    flat: list[int] = []
    cols = par.flat_columns
    j = 0
    for d, size in par.in_dims.items():
        n = size.bit_length() - 1
        part = cols[j:j + n]
        if d == "register":
            part = [c for c in part if c]
        ins.append((d, len(part)))
        flat.extend(part)
        j += n
    shape = list(parent_shape[:dim]) + list(parent_shape[dim + 1:])
    return LinearLayout._raw(tuple(ins), tuple((f"dim{i}", s) for i, s in enumerate(shape)), tuple(flat))
