"""llverify: prove properties of GPU tensor layouts.

Layers (imports point down only; see DESIGN.md): `f2` -> `layout`/`evaluate`
-> `hw` -> `triton` -> `codegen` -> `prove` -> `index` -> `spec`/`report`/`cli`
-> `gpu`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from llverify.errors import LayoutError, LlverifyError, SizeGuardError  # noqa: E402
from llverify.layout import LinearLayout  # noqa: E402
from llverify.column_action import ColumnAction  # noqa: E402

__all__ = [
    "ColumnAction",
    "LayoutError",
    "LinearLayout",
    "LlverifyError",
    "SizeGuardError",
    "__version__",
]
