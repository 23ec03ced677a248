"""Layout conversions: ``cvt`` and which hardware moves the data (seed 000, section 5.4).

``convert(A, B)`` converts a tensor held in distributed layout ``A`` (the
source) into layout ``B`` (the destination).  ``cvt = B.invert_and_compose(A)``
maps each *destination* slot ``x = (register, lane, warp, block)`` to the
source slot holding the same element: ``A(cvt(x)) == B(x)``.  It is the
minimal-movement solution: in dims on which A and B agree map by identity,
and the rest is the least-squares solution with free variables zero (smallest
source index, section 5.4 items 1-2).

Classification (Triton's dispatch): drop ``block``, then ``warp``, then
``lane`` from ``cvt`` while ``cvt`` is the identity on them and decoupled from
the rest (``quotient``).  The first dim that cannot be dropped decides:
``block``/``warp`` -> ``shared_memory``, ``lane`` -> ``warp_shuffle``,
``register`` -> ``register_permutation``; all dropped -> ``noop``.

Example: A = B -> noop.  A and B differing only in which register holds which
element -> register_permutation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["ConversionPlan", "convert", "classify", "CLASSIFICATIONS"]

Classification = Literal["noop", "register_permutation", "warp_shuffle", "shared_memory"]
CLASSIFICATIONS = ("noop", "register_permutation", "warp_shuffle", "shared_memory")
_ORDER = ("block", "warp", "lane", "register")
_KIND = {"block": "shared_memory", "warp": "shared_memory", "lane": "warp_shuffle",
         "register": "register_permutation"}


@dataclass(frozen=True)
class ConversionPlan:
    """``cvt`` (destination slot -> source slot), the classification and the dims that move."""

    src: LinearLayout
    dst: LinearLayout
    cvt: LinearLayout
    classification: Classification
    trivial_dims: tuple[str, ...]    # quotiented out (no movement across these)
    moving_dims: tuple[str, ...]     # dims of cvt that are not the identity

    def to_json(self) -> dict:
        return {"classification": self.classification, "trivial_dims": list(self.trivial_dims),
                "moving_dims": list(self.moving_dims),
                "cvt": {d: [list(b) for b in bs] for d, bs in self.cvt.bases.items()}}


def classify(cvt: LinearLayout, trivial: dict[str, bool] | None = None) -> tuple[Classification, tuple[str, ...]]:
    """Quotient out block, warp, lane (in that order) while trivial; return the verdict and the dims dropped.

    Each quotient is decided on ``cvt`` itself: ``cvt`` with trivial dims removed is trivial over ``d`` exactly
    when ``cvt`` is (a trivial dim is an identity block decoupled from the rest: its columns reach no other out
    bit and no other column reaches its out bits, so removing it changes neither ``d``'s square sublayout nor
    ``d``'s decoupling).  ``trivial``: ``cvt.is_trivial_over([d])`` per dim, filled in as decided (the caller's
    dict is shared with its own questions)."""
    trivial = {} if trivial is None else trivial
    dropped: list[str] = []
    for dim in _ORDER:
        if not (cvt.has_in_dim(dim) or cvt.has_out_dim(dim)):
            dropped.append(dim)
            continue
        if not _trivial(cvt, dim, trivial):
            return _KIND[dim], tuple(dropped)
        dropped.append(dim)
    return "noop", tuple(dropped)


def _trivial(cvt: LinearLayout, dim: str, known: dict[str, bool]) -> bool:
    """``cvt.is_trivial_over([dim])``, once per dim in ``known``."""
    hit = known.get(dim)
    if hit is None:
        hit = known[dim] = cvt.is_trivial_over([dim])
    return hit


def convert(src: LinearLayout, dst: LinearLayout) -> ConversionPlan:
    """Plan the conversion of a tensor from layout ``src`` to layout ``dst`` (see the module docstring)."""
    for name, L in (("source", src), ("destination", dst)):
        if not L.has_in_dim("register"):
            raise LayoutError(f"convert: the {name} layout is not distributed (no 'register' in dim)")
    if set(src.out_dim_names) != set(dst.out_dim_names):
        raise LayoutError(f"convert: source out dims {list(src.out_dim_names)} and destination out dims "
                          f"{list(dst.out_dim_names)} differ")
    if not src.is_surjective():
        raise LayoutError("convert: the source layout does not cover the tensor (not surjective)")
    cvt = dst.invert_and_compose(src)
    trivial: dict[str, bool] = {}
    kind, dropped = classify(cvt, trivial)
    moving = tuple(d for d in cvt.in_dim_names if not _trivial(cvt, d, trivial))
    return ConversionPlan(src, dst, cvt, kind, dropped, moving)
