"""Broadcast: which hardware holds duplicated data, and a store predicate (seed 000, section 5.1).

An input bit whose basis lies in the span of earlier bases (a *free
variable*, Triton's ``getFreeVariableMasks``) duplicates data: flipping it
leaves the element unchanged up to the earlier bits.  Because the pivot
columns form a basis of the image, the hardware points with every free bit
zero reach each element of the image exactly once.  The store (or
reduction) predicate is therefore ``x[dim] & mask[dim] == 0`` for every in
dim: registers are skipped at compile time, lanes/warps/blocks get a runtime
predicate (the bug class of Triton issues #7264 and #11614: replicas storing
to one address).

Example: lanes ``[(1,), (2,), (0,), (0,), (0,)]`` over 4 elements: lane bits
2-4 are free, ``lane & 0b11100 == 0`` keeps lanes 0-3.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from llverify.layout import LinearLayout

__all__ = ["BroadcastPlan", "broadcast_predicate"]


@dataclass(frozen=True)
class BroadcastPlan:
    """Per in dim, the mask of duplicated (free) bits; the predicate keeps points with those bits 0."""

    layout: LinearLayout
    free_masks: Mapping[str, int]
    predicate_masks: Mapping[str, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "free_masks", MappingProxyType(dict(self.free_masks)))
        object.__setattr__(self, "predicate_masks", MappingProxyType(dict(self.predicate_masks)))

    @property
    def duplicated_dims(self) -> tuple[str, ...]:
        return tuple(d for d, m in self.free_masks.items() if m)

    def keeps(self, point: Mapping[str, int]) -> bool:
        """Whether the hardware point ``{dim: index}`` stores (is the representative)."""
        return all((point.get(d, 0) & m) == 0 for d, m in self.predicate_masks.items())

    def with_mask(self, dim: str, mask: int) -> "BroadcastPlan":
        """A copy with one predicate mask replaced (mutants in tests)."""
        masks = dict(self.predicate_masks)
        masks[dim] = mask
        return BroadcastPlan(self.layout, self.free_masks, masks)

    def to_json(self) -> dict:
        return {"free_masks": dict(self.free_masks), "predicate_masks": dict(self.predicate_masks),
                "duplicated_dims": list(self.duplicated_dims)}


def broadcast_predicate(layout: LinearLayout) -> BroadcastPlan:
    """Free-variable masks of ``layout`` and the one-representative-per-element predicate."""
    masks = layout.free_variable_masks()
    return BroadcastPlan(layout, masks, masks)
