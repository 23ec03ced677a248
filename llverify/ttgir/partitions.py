"""Which CTA warps run each ``ttg.warp_specialize`` partition.

The default region runs on the kernel's warps ``0 .. num_warps - 1``.  Worker partition ``i`` (of
``partitionNumWarps[i]`` warps) runs on CTA warps ``start_i ..``: after Triton's AllocateWarpGroups pass the
op states them (``warpGroupStartIds``); before it (the ``.ttgir`` Triton caches) they follow from that
pass's rule, reproduced here:

1. every ``warp_specialize`` of the module is padded with extra partitions (sizes: the powers of two of the
   missing warps, largest first) until its partitions fill ``ceil(E / 4)`` warp groups, ``E`` the most
   partition warps of any ``warp_specialize`` in the module;
2. partitions are sorted by decreasing size and laid out from warp ``num_warps`` on.

The sort does not order partitions of equal size, so a partition's start is one of
``G + k s`` (``G`` = ``num_warps`` plus the sizes of all larger partitions, ``s`` its size, ``k`` below the
number of partitions of size ``s``): :func:`first_warps` returns that set, and a claim that depends on the
choice is undecided.

>>> [sorted(s) for s in first_warps_of(4, [1, 4], 5)]   # padded with partitions of 2 and 1 warps
[[10, 11], [4]]
>>> [sorted(s) for s in first_warps_of(4, [2, 1], 3)]   # padded with one 1-warp partition
[[4], [6, 7]]
"""

from __future__ import annotations

from llverify.ttgir.model import Function, Module, Op, Region

__all__ = ["first_warps", "first_warps_of", "partition_of", "Scope", "partition_scopes"]


def _ints(text: str) -> list[int]:
    body = text.strip()
    if body.startswith("array<"):
        body = body[body.find(":") + 1:].rstrip(">")
    out = []
    for part in body.strip("[] ").split(","):
        part = part.split(":")[0].strip()
        if part.lstrip("-").isdigit():
            out.append(int(part))
    return out


def _padding(missing: int) -> list[int]:
    out = []
    while missing > 0:
        p = 1 << (missing.bit_length() - 1)  # the largest power of two not above what is missing
        out.append(p)
        missing -= p
    return out


def first_warps_of(base: int, sizes: list[int], most_extra: int) -> list[frozenset[int]]:
    """The possible first CTA warps of each partition (module docstring): ``base`` the kernel's warps,
    ``sizes`` the partitions' warps, ``most_extra`` the most partition warps of any warp_specialize."""
    groups = -(-most_extra // 4)
    every = list(sizes) + _padding(groups * 4 - sum(sizes))
    out = []
    for s in sizes:
        g = base + sum(x for x in every if x > s)
        ties = sum(1 for x in every if x == s)
        out.append(frozenset(g + k * s for k in range(ties)))
    return out


def _ws_ops(region: Region) -> list[Op]:
    out, stack = [], [region]
    while stack:
        reg = stack.pop()
        for block in reg.blocks:
            for op in block.ops:
                if op.name == "ttg.warp_specialize":
                    out.append(op)
                stack.extend(op.regions)
    return out


def first_warps(module: Module, ws: Op) -> list[frozenset[int]]:
    """The possible first CTA warps of each worker partition of ``ws`` (a ``ttg.warp_specialize`` of
    ``module``): stated by ``warpGroupStartIds`` when the op has it, else by AllocateWarpGroups' rule."""
    stated = _ints(ws.attributes.get("warpGroupStartIds", ""))
    sizes = _ints(ws.attributes.get("partitionNumWarps", ""))
    if stated and len(stated) >= len(sizes):
        return [frozenset([s]) for s in stated[:len(sizes)]]
    most = max((sum(_ints(op.attributes.get("partitionNumWarps", ""))) for fn in module.functions
                for op in _ws_ops(fn.body)), default=0)
    return first_warps_of(module.num_warps, sizes, most)


def partition_of(fn: Function, op: Op) -> tuple[Op, int] | None:
    """The ``warp_specialize`` op and worker partition index (0-based) whose region holds ``op`` (the
    innermost), or None when ``op`` runs in no worker partition."""
    found: tuple[Op, int] | None = None
    stack: list[tuple[Region, tuple[Op, int] | None]] = [(fn.body, None)]
    while stack:
        region, where = stack.pop()
        for block in region.blocks:
            for o in block.ops:
                if o is op:
                    found = where
                for k, r in enumerate(o.regions):
                    inner = (o, k - 1) if o.name == "ttg.warp_specialize" and k > 0 else where
                    stack.append((r, inner))
    return found


class Scope:
    """A ``ttg.warp_specialize`` partition: its region, the op (whose operands its block arguments receive)
    and the enclosing partition (None: the function body)."""

    def __init__(self, region: Region, op: Op, parent: "Scope | None") -> None:
        self.region, self.op, self.parent = region, op, parent


def partition_scopes(fn: Function) -> dict[int, Scope]:
    """``id(op) -> Scope`` for every op inside a warp_specialize partition of ``fn`` (the innermost one)."""
    out: dict[int, Scope] = {}
    _scopes_into(out, fn.body, None)
    return out


def _scopes_into(out: dict[int, Scope], region: Region, scope: Scope | None) -> None:
    # a module-level recursion: a nested recursive closure is a reference cycle (function <-> cell) that would keep
    # ``out``, and through it the whole module, alive until the cyclic collector ran
    for block in region.blocks:
        for op in block.ops:
            if scope is not None:
                out[id(op)] = scope
            for k, r in enumerate(op.regions):
                _scopes_into(out, r, Scope(r, op, scope) if op.name == "ttg.warp_specialize" and k > 0 else scope)
