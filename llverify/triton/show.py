"""``llverify show``: print a layout as Triton's toString, as a cell table, as JSON, or as Triton's views.

The layout is a Triton attribute (``#ttg.blocked<{...}>``), a tensor/memdesc
type (``tensor<64x64xf16, #ttg.blocked<{...}>>``, which carries its shape), or
a YAML mapping with a hardware kind and Gluon parameters
(``{kind: blocked, size_per_thread: [1, 4], ...}``).  The table shows, for a
distributed layout, each element's owners ``T<lane>:<reg>`` (prefixed
``W<warp>`` / ``B<block>`` when there are several), ``|``-joined when the
element is held by several threads (broadcast), as Gluon's tutorial draws
them; for a shared layout, each element's offset (``B<block>:`` prefixed when
there are several CTAs).  Rank 1 is one row; rank 3+ prints one table per
leading index.

``--format triton-view`` / ``triton-hw-view`` print Triton 3.9's own view
text, character for character: what ``triton-tensor-layout`` prints under its
``Print layout attribute:`` line (the hardware view with ``-use-hw-view``).
A layout with ``register/lane/warp/block`` in dims gets the distributed view,
one with ``offset/block`` the shared view; tensor memory has none (exit 2).
See :mod:`llverify.layout_views`; views are capped at
:data:`~llverify.layout_views.MAX_VIEW_ELEMENTS` elements.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from llverify.errors import LlverifyError
from llverify.layout import LinearLayout

__all__ = ["show", "resolve_layout", "cell_table"]

MAX_CELLS = 1 << 14


def _shape(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.lower().replace(",", "x").split("x") if x]
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a shape like 64x64", param_hint="--shape") from None


def resolve_layout(text: str, shape: list[int] | None, dtype: str | None = None) -> tuple[LinearLayout, list[int], Any]:
    """(layout, shape, spec) from an attribute, a type, or a YAML kind mapping."""
    import yaml

    from llverify.hw.registry import build_spec
    from llverify.triton.parse import dtype_bits, parse_aliases, parse_attr
    from llverify.triton.types import parse_type_spec

    # alias lines first, as a spec's `triton:` key accepts them: `#mma = #ttg.nvidia_mma<...>` then the
    # attribute or type that refers to them
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    aliases = parse_aliases("\n".join(lines[:-1])) if len(lines) > 1 else None
    t = lines[-1].strip() if lines else ""
    if t.startswith("tensor") or t.startswith("!ttg.memdesc"):
        spec, tshape, tdtype, alloc = parse_type_spec(t, aliases)
        shape = shape or alloc or tshape
        dtype = dtype or tdtype
    elif t.startswith("#"):
        spec = parse_attr(t, aliases)
    else:
        try:
            spec = yaml.safe_load(t)
        except yaml.YAMLError as exc:
            raise LlverifyError(f"layout {t[:40]!r} is neither a '#ttg.' attribute, a tensor type nor a YAML "
                                f"mapping: {str(exc).splitlines()[0]}") from None
        if not isinstance(spec, dict) or "kind" not in spec:
            raise LlverifyError("a layout given as YAML must be a mapping with a 'kind' key, e.g. "
                                "'{kind: blocked, size_per_thread: [1, 4], ...}'")
        if "shape" in spec and spec["kind"] != "linear":
            shape = shape or list(spec.pop("shape"))
    if shape is None:
        raise LlverifyError("a shape is needed: pass --shape (e.g. --shape 64x64) or a tensor type")
    if dtype and spec.get("kind") == "nvmma_shared" and "element_bitwidth" not in spec:
        spec = {**spec, "element_bitwidth": dtype_bits(dtype)}
    return build_spec(spec, shape), shape, spec


def cell_table(layout: LinearLayout, shape: list[int]) -> str:
    """The per-element owner (or offset) table (see the module docstring)."""
    import numpy as np

    total = 1
    for s in shape:
        total *= s
    if total > MAX_CELLS:
        return f"(table omitted: {total} elements > {MAX_CELLS})"
    shared = "offset" in layout.in_dims
    ins = list(layout.in_dims.items())
    cells: dict[int, list[str]] = {}
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    sizes = dict(ins)
    n_in = layout.total_in_size
    if n_in > (1 << 20):
        return f"(table omitted: {n_in} hardware positions)"
    outs = list(layout.out_dims)
    for x in range(n_in):
        coords = layout.apply_flat(x)
        vals = layout._unflatten(coords)
        lin = sum(v * strides[i] for i, v in enumerate(vals))
        # split x into in dims (first dim lowest)
        parts = {}
        y = x
        for d, s in ins:
            parts[d] = y % s
            y //= s
        if shared:
            label = (f"B{parts['block']}:" if sizes.get("block", 1) > 1 else "") + str(parts["offset"])
        else:
            label = (f"B{parts.get('block', 0)}" if sizes.get("block", 1) > 1 else "") + \
                    (f"W{parts.get('warp', 0)}" if sizes.get("warp", 1) > 1 else "") + \
                    f"T{parts.get('lane', 0)}:{parts.get('register', 0)}"
        cells.setdefault(lin, []).append(label)
    del outs, np
    text = []
    rows = shape[-2] if len(shape) >= 2 else 1
    cols = shape[-1]
    lead = total // (rows * cols)
    for L in range(lead):
        if lead > 1:
            idx = []
            r = L
            for s in reversed(shape[:-2]):
                idx.append(r % s)
                r //= s
            text.append(f"[{', '.join(map(str, reversed(idx)))}, :, :]")
        grid = [["|".join(cells.get(L * rows * cols + r * cols + c, ["-"])) for c in range(cols)] for r in range(rows)]
        w = max(len(c) for row in grid for c in row)
        text.extend(" ".join(c.rjust(w) for c in row) for row in grid)
    return "\n".join(text)


@click.command("show")
@click.argument("layout")
@click.option("--shape", "shape_text", help="tensor shape, e.g. 64x64 (taken from a tensor type if omitted)")
@click.option("--dtype", help="element type (f16, f32, ...); sets element_bitwidth of nvmma_shared")
@click.option("--format", "fmt",
              type=click.Choice(["text", "json", "table", "string", "triton-view", "triton-hw-view"]),
              default="text", show_default=True,
              help="text = toString + table; json = bases and dims; triton-view / triton-hw-view = Triton's "
                   "tensor / hardware view (triton-tensor-layout's text)")
def show(layout: str, shape_text: str | None, dtype: str | None, fmt: str) -> None:
    """Print LAYOUT (a #ttg attribute, a tensor type or a YAML kind mapping) on a shape."""
    try:
        ll, shape, spec = resolve_layout(layout, _shape(shape_text), dtype)
        if fmt in ("triton-view", "triton-hw-view"):
            from llverify.layout_views import triton_view

            click.echo(triton_view(ll, hw=fmt == "triton-hw-view"), nl=False)
            return
        if fmt == "json":
            out = {"spec": spec, "shape": shape,
                   "in_dims": dict(ll.in_dims), "out_dims": dict(ll.out_dims),
                   "bases": {d: [list(b) for b in bs] for d, bs in ll.bases.items()}}
            click.echo(json.dumps(out))
            return
        if fmt in ("text", "string"):
            click.echo(str(ll).lstrip("\n"))
        if fmt in ("text", "table"):
            if fmt == "text":
                click.echo("")
            click.echo(cell_table(ll, shape))
    except click.BadParameter:
        raise
    except (LlverifyError, ValueError) as exc:
        click.echo(f"llverify show: error: {exc}", err=True)
        sys.exit(2)
