"""`ColumnAction`: reindexing the bases of one in dim (Triton's ``ColumnAction``).

Used to describe a register permutation (e.g. to bring a vector's registers
to the front before a vectorised access, seed 000 section 5.1) and to apply
the same permutation to a layout and to the values it indexes, so that the
two stay consistent.
"""

from __future__ import annotations

from typing import Any, Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["ColumnAction"]


class ColumnAction:
    """A reindexing of the bases of one in dim (Triton's ``ColumnAction``).

    ``action[i]`` is the old basis index that becomes new basis ``i``; the
    action may drop bases (a selection) but never repeats one.  Applied to a
    layout it permutes/selects the columns of ``in_dim``; applied to a list of
    ``2 ** in_size_log2`` values indexed by that dim, it moves each value so
    that ``new[x] == old[y]`` where ``y`` has bit ``action[i]`` set iff ``x``
    has bit ``i``.  Example: ``ColumnAction([1, 0], "register", 2)`` swaps the
    two register bits; values ``[a, b, c, d]`` become ``[a, c, b, d]``.
    """

    __slots__ = ("action", "in_dim", "in_size_log2")

    def __init__(self, action: Sequence[int], in_dim: str, in_size_log2: int) -> None:
        action = tuple(int(a) for a in action)
        if len(set(action)) != len(action) or any(not 0 <= a < in_size_log2 for a in action):
            raise LayoutError(f"ColumnAction on in dim '{in_dim}': {list(action)} must be distinct indices < {in_size_log2}")
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "in_dim", in_dim)
        object.__setattr__(self, "in_size_log2", in_size_log2)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ColumnAction is immutable")

    def is_identity(self) -> bool:
        return self.action == tuple(range(self.in_size_log2))

    def apply(self, target: "LinearLayout | Sequence[Any]") -> Any:
        """Apply to a layout (reindex ``in_dim``'s bases) or to a value list."""
        if isinstance(target, LinearLayout):
            bs = target._in_bases(self.in_dim)
            if len(bs) != self.in_size_log2:
                raise LayoutError(
                    f"ColumnAction expects in dim '{self.in_dim}' of {self.in_size_log2} bits, layout has {len(bs)}")
            new = tuple(bs[a] for a in self.action)
            return LinearLayout._make([(d, new if d == self.in_dim else b) for d, b in target._bases], target._out)
        values = list(target)
        if len(values) != 1 << self.in_size_log2:
            raise LayoutError(f"ColumnAction expects {1 << self.in_size_log2} values, got {len(values)}")
        out = []
        for x in range(1 << len(self.action)):
            y = 0
            for i, a in enumerate(self.action):
                if (x >> i) & 1:
                    y |= 1 << a
            out.append(values[y])
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ColumnAction) and (self.action, self.in_dim, self.in_size_log2) == (
            other.action, other.in_dim, other.in_size_log2)

    def __hash__(self) -> int:
        return hash((self.action, self.in_dim, self.in_size_log2))

    def __repr__(self) -> str:
        return f"ColumnAction({list(self.action)}, {self.in_dim!r}, {self.in_size_log2})"
