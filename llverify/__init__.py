"""llverify: prove properties of GPU tensor layouts.

Layers (imports point down only; see DESIGN.md): `f2` -> `layout`/`evaluate`
-> `hw` -> `triton` -> `codegen` -> `prove` -> `index` -> `spec`/`report`/`cli`
-> `gpu`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any  # noqa: E402

from llverify.errors import LayoutError, LlverifyError, SizeGuardError  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from llverify.column_action import ColumnAction
    from llverify.layout import LinearLayout

# loaded on first use: a command that never builds a layout (a warm `llverify ttgir`, `--version`) does
# not pay for the layout layer


def __getattr__(name: str) -> Any:
    if name == "LinearLayout":
        from llverify.layout import LinearLayout as value
    elif name == "ColumnAction":
        from llverify.column_action import ColumnAction as value
    else:
        raise AttributeError(f"module 'llverify' has no attribute {name!r}")
    globals()[name] = value
    return value
