"""Parsing Triton's ``LinearLayout::toString()`` text (the inverse of ``str(layout)``).

The parser returns plain data, ``(bases, out dims)``; :meth:`LinearLayout.from_string
<llverify.layout.LinearLayout.from_string>` builds the layout from it (so this
module does not import :mod:`llverify.layout`).  Example::

    >>> parse_layout_text("\\n - lane=1 -> (1)\\n   lane=2 -> (2)\\nwhere out dims are: [dim0 (size 4)]")
    ([('lane', [[1], [2]])], [('dim0', 4)])
"""

from __future__ import annotations

import re

from llverify.errors import LayoutError

__all__ = ["parse_layout_text"]

Bases = list[tuple[str, list[list[int]]]]
OutDims = list[tuple[str, int]]

_LINE = re.compile(r"^(?: - |   )([^\s=]+)=(\d+) -> \(([^)]*)\)$")
_SIZE1 = re.compile(r"^ - (\S+) is a size 1 dimension$")
_OUTS = re.compile(r"^where out dims are: \[(.*)\]$")
_OUTDIM = re.compile(r"^(\S+) \(size (\d+)\)$")


def parse_layout_text(text: str) -> tuple[Bases, OutDims]:
    """Parse Triton's ``toString()`` text (``str(layout)``) into its bases and out dims.

    Accepts the three shapes Triton prints: ``(empty layout)``, ``(empty
    layout with out-dims [...])`` and the bulleted list of bases ending with
    ``where out dims are: [dim0 (size 16), ...]``.  Raises ``LayoutError``
    naming the offending line.
    """
    lines = text.strip("\n").split("\n")

    def parse_outs(body: str) -> list[tuple[str, int]]:
        outs = []
        for part in (p.strip() for p in body.split(",")) if body.strip() else []:
            m = _OUTDIM.match(part)
            if not m:
                raise LayoutError(f"from_string: cannot parse out dim {part!r}")
            outs.append((m.group(1), int(m.group(2))))
        return outs

    if lines == ["(empty layout)"]:
        return [], []
    m = re.match(r"^\(empty layout with out-dims \[(.*)\]\)$", lines[0]) if len(lines) == 1 else None
    if m:
        return [], parse_outs(m.group(1))
    mo = _OUTS.match(lines[-1]) if lines else None
    if not mo:
        raise LayoutError("from_string: the last line must be 'where out dims are: [...]'")
    outs = parse_outs(mo.group(1))
    bases: Bases = []
    for ln, line in enumerate(lines[:-1], start=1):
        ms = _SIZE1.match(line)
        if ms:
            bases.append((ms.group(1), []))
            continue
        ml = _LINE.match(line)
        if not ml:
            raise LayoutError(f"from_string: line {ln} is not a basis line: {line!r}")
        d, val, comps = ml.group(1), int(ml.group(2)), ml.group(3)
        if line.startswith(" - "):
            bases.append((d, []))
        elif not bases or bases[-1][0] != d:
            raise LayoutError(f"from_string: line {ln} continues in dim '{d}' without its first line")
        if val != 1 << len(bases[-1][1]):
            raise LayoutError(f"from_string: line {ln}: expected {d}={1 << len(bases[-1][1])}, got {d}={val}")
        bases[-1][1].append([int(c) for c in comps.split(",")] if comps.strip() else [])
    return bases, outs
