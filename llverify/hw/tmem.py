"""Blackwell tensor memory layouts (``#ttng.tensor_memory_encoding``): not modelled yet."""

from __future__ import annotations

from typing import Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["tensor_memory"]


def tensor_memory(block: Sequence[int], col_stride: int, shape: Sequence[int],
                  cga_layout: Sequence[Sequence[int]] | None = None, two_ctas: bool = False,
                  fp4_padded: bool = False) -> LinearLayout:
    """Tensor memory layout: not modelled yet (raises ``LayoutError``)."""
    raise LayoutError("tensor_memory: not modelled by llverify yet (no bit-exact construction is implemented)")
