"""LEGO layout expressions in specs: ``lego: "GroupBy([8, 8], TileBy((2, 2), (4, 4)))"``.

The text is parsed with :mod:`ast` (never evaluated) and only these calls are
allowed, with literal int / string / list / tuple arguments: ``GroupBy``,
``OrderBy``, ``RegP``, ``GenP``, ``Row``, ``Col``, ``TileBy`` and
``antidiagonal`` from :mod:`llverify.index.lego` (seed 004, section 3).  The
result must be a ``GroupBy``; it becomes a :class:`LinearLayout` (in dim
``offset``, out dims ``dim0..``) through ``GroupBy.to_linear_layout``, which
proves the LEGO map equal to that layout (so it is F2-linear) or refuses.

Example: ``GroupBy([4, 4], Col(4, 4))`` is the column-major 4x4 layout,
offset ``j*4 + i``: offset 1 holds (1, 0).
"""

from __future__ import annotations

import ast
from typing import Any

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["parse_lego", "lego_to_layout", "CALLS"]

CALLS = ("GroupBy", "OrderBy", "RegP", "GenP", "Row", "Col", "TileBy", "antidiagonal")


def _value(node: ast.AST, lego: Any) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -_value(node.operand, lego)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(e, lego) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in CALLS:
            name = ast.unparse(node.func) if hasattr(ast, "unparse") else "?"
            raise LayoutError(f"LEGO expression: {name}(...) is not one of {', '.join(CALLS)}")
        fn = getattr(lego, node.func.id)
        args = [_value(a, lego) for a in node.args]
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                raise LayoutError("LEGO expression: **kwargs are not allowed")
            kwargs[k.arg] = _value(k.value, lego)
        try:
            return fn(*args, **kwargs)
        except TypeError as exc:
            raise LayoutError(f"LEGO expression: {node.func.id}: {exc}") from None
    raise LayoutError(f"LEGO expression: only calls of {', '.join(CALLS)} with literal arguments are allowed, "
                      f"not {type(node).__name__}")


def parse_lego(text: str) -> Any:
    """The ``GroupBy`` object a LEGO expression describes."""
    from llverify.index import lego

    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise LayoutError(f"LEGO expression is not valid syntax: {exc.msg} (column {exc.offset})") from None
    obj = _value(tree.body, lego)
    if not isinstance(obj, lego.GroupBy):
        raise LayoutError("a LEGO layout must be a GroupBy(dims, ...) expression")
    return obj


def lego_to_layout(text: str) -> LinearLayout:
    """Parse, then convert with proof (``GroupBy.to_linear_layout``)."""
    layout, _verdict = parse_lego(text).to_linear_layout()
    return layout
