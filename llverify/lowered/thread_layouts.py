"""A distributed layout read per (register, thread): the element each register of each thread holds, the
register classes (registers that hold the same element in every thread), one point replayed.

Threads are numbered ``t = lane + lanes * warp`` (``lanes = L.in_dim_size("lane")``), the element index
row-major over the layout's out dims.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["unsupported", "element_table", "register_classes", "at_thread", "element_at"]


def unsupported(L: Any, threads: int) -> str | None:
    """Why ``L`` is not read per (register, thread) of a CTA of ``threads`` threads: a layout over several CTAs,
    or one whose lanes times warps are not ``threads`` (a warp_specialize partition's); None when it is."""
    if "block" in L.in_dim_names and L.in_dim_size("block") > 1:
        return "a layout over several CTAs: not modelled"
    if L.in_dim_size("lane") * (L.in_dim_size("warp") if "warp" in L.in_dim_names else 1) != threads:
        return "the layout's threads are not the module's (a warp_specialize partition?)"
    return None


def element_table(L, threads: int) -> np.ndarray:
    """``E[r, t]``: the linear element index register ``r`` of thread ``t`` holds (row-major)."""
    from llverify.evaluate import evaluate

    ev = evaluate(L)
    outs = list(L.out_dim_names)
    idx = np.zeros_like(ev[outs[0]], dtype=np.int64)
    for d in outs:
        idx = idx * L.out_dim_size(d) + ev[d].astype(np.int64)
    n_reg = L.in_dim_size("register")
    return idx.reshape(-1, n_reg)[:threads].T.copy()  # [reg, thread]


def register_classes(E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Register classes (registers with the same element in every thread): ``rep`` (a representative per
    class: its first register) and ``cls[r]`` (register -> class), classes in lexicographic order of their rows.

    >>> rep, cls = register_classes(np.array([[3, 1], [0, 2], [3, 1]]))
    >>> rep.tolist(), cls.tolist()
    ([1, 0], [1, 0, 1])
    """
    order = np.lexsort(E.T[::-1])  # rows sorted lexicographically, stable
    Es = E[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (Es[1:] != Es[:-1]).any(axis=1)
    cls = np.empty(len(order), dtype=np.int64)
    cls[order] = np.cumsum(new) - 1
    return order[new], cls


def at_thread(L: Any, reg: int, t: int) -> Any:
    """``L`` applied at register ``reg`` of thread ``t`` (lane ``t mod lanes``, warp ``t div lanes``; other in dims
    0): its out dims' values (``LinearLayout.apply``)."""
    n_lane = L.in_dim_size("lane")
    vals = {"register": reg, "lane": t % n_lane, "warp": t // n_lane}
    vals = {k: v for k, v in vals.items() if k in L.in_dim_names}
    return L.apply(**{**{d: 0 for d in L.in_dim_names}, **vals})


def element_at(L: Any, reg: int, t: int) -> list[int]:
    """The coordinates of the element register ``reg`` of thread ``t`` holds under ``L``, in out-dim order."""
    out = at_thread(L, reg, t)
    return [int(out[d]) for d in L.out_dim_names]
