"""Partitioned shared layouts (``#ttg.partitioned_shared``, Gluon ``PartitionedSharedLayout``, AMD).

A tensor is cut along ``partition_dim`` into ``num_partitions * num_groups`` equal pieces; piece ``p``
lives in buffer ``p mod num_partitions``, each buffer holding its ``num_groups`` pieces one after the
other, each piece laid out by ``partition_layout`` (any shared layout, built on the piece's shape).
The buffers are separate allocations, so no single offset space covers the tensor; like Triton's
``toLinearLayout``, the layout built here is **buffer 0's**: its offsets run over the pieces
``0, P, 2P, ...`` (P = ``num_partitions``), so it covers ``1 / P`` of the tensor (it is surjective
only for P = 1). Claims about the whole tensor must take the other buffers into account (the buffer
``b`` layout is buffer 0's shifted by ``b`` pieces along ``partition_dim``).

Example: 2 partitions, 2 groups along dim 0 of a 16 x 8 tensor: pieces of 4 x 8; buffer 0 holds
pieces 0 and 2 (rows 0-3 and 8-11), so its offset bits are the piece's (3 column bits, 2 row bits)
and one group bit, row 8.

>>> from llverify.hw import build
>>> inner = {"kind": "swizzled_shared", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [1, 0]}
>>> L = build("partitioned_shared", [16, 8], num_partitions=2, num_groups=2, partition_dim=0,
...           partition_layout=inner)
>>> [list(b) for b in L.bases["offset"]]
[[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [8, 0]]

This module is the pattern of a hardware kind in one file: the constructor, its sampler
(:func:`partitioned_shared_case`), how Triton's Gluon builder builds the attribute, and the
:data:`KIND` declaration naming them, which :mod:`llverify.hw.registry` lists.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.blocked import check_shape
from llverify.hw.kinds import GluonBuilder, Kind, build_spec
from llverify.hw.sampling import nvmma_shared_case, p2, shared_linear_case, swizzled_shared_case
from llverify.layout import LinearLayout

__all__ = ["KIND", "partitioned_shared", "partitioned_shared_case"]


def partitioned_shared(num_partitions: int, num_groups: int, partition_dim: int, partition_layout: Mapping[str, Any],
                       shape: Sequence[int]) -> LinearLayout:
    """Buffer 0's layout (in dims ``offset, block``) of the partitioned tensor (see the module docstring).

    Requires: ``num_partitions`` (at least 2) and ``num_groups`` powers of two, ``partition_dim`` a dim of ``shape`` whose
    size is a multiple of ``num_partitions * num_groups``, ``partition_layout`` a shared layout (offset bases).
    """
    kind = "partitioned_shared"
    shp = check_shape(shape, None, kind)
    for name, v, least in (("num_partitions", num_partitions, 2), ("num_groups", num_groups, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < least or v & (v - 1):
            raise LayoutError(f"{kind}: {name} = {v!r} must be a power of two, at least {least}")
    if isinstance(partition_dim, bool) or not isinstance(partition_dim, int) or not 0 <= partition_dim < len(shp):
        raise LayoutError(f"{kind}: partition_dim = {partition_dim!r} must be a dim of the rank-{len(shp)} shape")
    pieces = num_partitions * num_groups
    if shp[partition_dim] < pieces:
        raise LayoutError(f"{kind}: dim {partition_dim} of size {shp[partition_dim]} cannot be cut into "
                          f"{pieces} pieces ({num_partitions} partitions x {num_groups} groups)")
    piece_shape = list(shp)
    piece_shape[partition_dim] //= pieces
    inner = build_spec(partition_layout, piece_shape, what=f"{kind}: partition_layout")
    if not inner.has_in_dim("offset"):
        raise LayoutError(f"{kind}: partition_layout must be a shared layout (offset bases), got in dims "
                          f"{list(inner.in_dims)}")
    rank = len(shp)
    step = piece_shape[partition_dim] * num_partitions  # buffer 0's next piece: P pieces further
    groups = [tuple(step << i if d == partition_dim else 0 for d in range(rank))
              for i in range(num_groups.bit_length() - 1)]
    offsets = [tuple(b) for b in inner.bases["offset"]] + groups
    block = [tuple(b) for b in inner.bases.get("block", ())]
    return LinearLayout._make([("offset", offsets), ("block", block)],
                              [(f"dim{d}", shp[d]) for d in range(rank)])


def partitioned_shared_case(rng: random.Random) -> dict[str, Any]:
    """A shared layout cut into P x G pieces along one dim: the piece's layout is a random swizzled,
    NVMMA or explicit shared layout, and the tensor is that piece's shape times the pieces."""
    inner = rng.choice([swizzled_shared_case, nvmma_shared_case, shared_linear_case])(rng)
    piece = list(inner["shape"])
    parts, groups = p2(rng, 1, 3), p2(rng, 0, 2)
    dim = rng.randrange(len(piece))
    shape = list(piece)
    shape[dim] *= parts * groups
    p = {"num_partitions": parts, "num_groups": groups, "partition_dim": dim,
         "partition_layout": {"kind": inner["kind"], **inner["params"]}}
    return {"kind": "partitioned_shared", "shape": shape, "params": p}


def _gluon(b: GluonBuilder, p: Mapping[str, Any]) -> Any:
    """Triton 3.9's ``GluonOpBuilder.get_partitioned_shared_layout`` (read by ``tests/oracle_triton.py`` only)."""
    return b.get_partitioned_shared_layout(p["num_partitions"], p["num_groups"], p["partition_dim"],
                                           b.nested(p["partition_layout"]))


#: The kind's declaration: name, constructor, Triton attribute, sampler and Gluon builder.
KIND = Kind("partitioned_shared", partitioned_shared, mnemonic="partitioned_shared", sample=partitioned_shared_case,
            gluon=_gluon, fields={"numPartitions": "num_partitions", "numGroups": "num_groups",
                                  "partitionDim": "partition_dim", "partitionLayout": "partition_layout"})
