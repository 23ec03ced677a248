"""One CTA's tile of a layout split over a cluster: what a conversion inside each CTA works on.

A distributed layout with a ``block`` in dim (its ``CGALayout``) usually gives each block bit its own tensor
coordinate bit that no register, lane or warp reaches (CTA ``b`` holds the ``b``-th tile), or nothing at all (every
CTA holds a copy).  Then the CTAs hold congruent tiles and a conversion that keeps every element in its CTA is the
same conversion in each: ``cta_tile`` removes the ``block`` in dim and deletes the coordinate bits only the block
bases reach, giving the layout of one tile (Triton sizes such a conversion's scratch buffer by the shape per CTA).

Requires: nothing; returns None when the block bases are not of that form (a block basis with several bits, or a
bit a local basis reaches too), and the layout itself when it has no block bits.

Example: a 4x2 tensor, ``register: [[1, 0]], lane: [[0, 1]], block: [[2, 0]]`` (CTA b holds rows 2b, 2b+1):
the tile is 2x2, ``register: [[1, 0]], lane: [[0, 1]]``.

>>> L = LinearLayout({"register": [(1, 0)], "lane": [(0, 1)], "block": [(2, 0)]}, [("dim0", 4), ("dim1", 2)])
>>> T = cta_tile(L)
>>> dict(T.bases), dict(T.out_dims)
({'register': ((1, 0),), 'lane': ((0, 1),)}, {'dim0': 2, 'dim1': 2})
>>> cta_tile(LinearLayout({"register": [(1,)], "block": [(3,)]}, [("dim0", 4)], require_surjective=False)) is None
True
"""

from __future__ import annotations

from llverify.layout import LinearLayout

__all__ = ["cta_tile"]


def cta_tile(L: LinearLayout) -> LinearLayout | None:
    """The layout of one CTA's tile of ``L`` (see the module docstring), or None."""
    if not L.has_in_dim("block") or L.in_dim_size("block") == 1:
        return L
    outs = list(L.out_dim_names)
    local = [b for d in L.in_dim_names if d != "block" for b in L.bases[d]]
    dropped: dict[int, set[int]] = {i: set() for i in range(len(outs))}
    for basis in L.bases["block"]:
        hot = [(i, c) for i, c in enumerate(basis) if c]
        if not hot:
            continue  # a copy per CTA
        if len(hot) != 1 or hot[0][1] & (hot[0][1] - 1):
            return None
        i, c = hot[0]
        bit = c.bit_length() - 1
        if bit in dropped[i] or any(b[i] >> bit & 1 for b in local):
            return None
        dropped[i].add(bit)

    def squeeze(value: int, i: int) -> int:
        out, k = 0, 0
        for bit in range(value.bit_length()):
            if bit in dropped[i]:
                continue
            out |= (value >> bit & 1) << k
            k += 1
        return out

    bases = {d: [tuple(squeeze(c, i) for i, c in enumerate(b)) for b in L.bases[d]]
             for d in L.in_dim_names if d != "block"}
    sizes = [(n, L.out_dim_size(n) >> len(dropped[i])) for i, n in enumerate(outs)]
    return LinearLayout(bases, sizes, require_surjective=False)
