"""Adapters from a spec's layout sources to the layers that build them.

:func:`build_kind` builds a ``kind:`` layout through :func:`llverify.hw.build`
(a ``parent:`` naming another layout passes its declaration);
:func:`build_triton` reads a ``triton:`` attribute or type through
:mod:`llverify.triton`.  A layer that lacks what a source needs raises
:class:`NotAvailable`, which the loader and the runner turn into an ``error``
("not available") instead of a crash.  The check kinds' adapters sit next to
their declarations (:mod:`llverify.spec.kinds` lists the modules).
"""

from __future__ import annotations

from typing import Any, Mapping

from llverify.layout import LinearLayout
from llverify.spec.model import LayoutDecl

__all__ = ["NotAvailable", "build_kind", "build_triton"]


class NotAvailable(Exception):
    """The layer implementing a check kind (or a layout source) is not importable."""


# -- layouts -------------------------------------------------------------------

def build_kind(hw: Any, kind: str, shape: list[int], params: dict[str, Any],
               decls: Mapping[str, LayoutDecl], built: Mapping[str, LinearLayout]) -> LinearLayout:
    """``hw.build(kind, shape, **params)``; a ``parent:`` naming another layout passes its declaration."""
    params = dict(params)
    parent = params.get("parent")
    if isinstance(parent, str):
        if parent not in decls:
            raise ValueError(f"parent '{parent}' is not a layout defined above")
        pd = decls[parent]
        if pd.source != "kind":
            raise ValueError(f"parent '{parent}' must be given by `kind:` (it is given by `{pd.source}:`)")
        pp = {k: v for k, v in pd.params.items() if k != "shape"}
        params["parent"] = pp
    return hw.build(kind, shape, **params)


def build_triton(mod: Any, text: str, shape: list[int] | None) -> LinearLayout:
    """A ``#ttg.*`` attribute with a shape, or a ``tensor<...>`` / ``!ttg.memdesc<...>`` type (which carries its shape).

    The text may start with TTGIR alias definitions, one per line, as they
    appear at the top of a module (``#mma = #ttg.nvidia_mma<{...}>``); the
    last non-empty line is the attribute or type, and may refer to them
    (``#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>``).
    """
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    aliases = None
    if len(lines) > 1:
        parse_aliases = getattr(mod, "parse_aliases", None)
        if parse_aliases is None:
            raise NotAvailable("llverify.triton.parse_aliases does not exist yet")
        aliases = parse_aliases("\n".join(lines[:-1]))
    text = lines[-1].strip() if lines else ""
    if text.startswith(("tensor<", "!ttg.memdesc<")):
        parse_type = getattr(mod, "parse_type", None)
        if parse_type is None:
            raise NotAvailable("llverify.triton.parse_type does not exist yet")
        layout, type_shape, _dtype = parse_type(text, aliases)
        if shape is not None and list(shape) != list(type_shape):
            raise ValueError(f"shape {list(shape)} disagrees with the type's shape {list(type_shape)}; "
                             "leave `shape:` out when giving a whole type")
        return layout
    if shape is None:
        raise ValueError("a Triton attribute needs a `shape:` (or write the whole tensor<...> type)")
    build = getattr(mod, "layout_from_attr", None)
    if build is None:
        raise NotAvailable("llverify.triton.layout_from_attr does not exist yet")
    return build(text, list(shape), aliases)
