"""Inline SVG pictures of layouts for the HTML report.

* :func:`layout_grid` -- the logical tensor as a grid (rows = the next-to-last
  out dim, columns = the last; higher dims fixed at 0).  For a distributed
  layout (in dims ``register``/``lane``/``warp``) each cell is coloured by the
  warp that holds it and labelled ``T<lane>:<reg>`` (the first holder in
  flat-input order); cells held more than once (broadcast copies) get a
  ``×k`` badge and a dashed outline.  For a memory layout (in dim
  ``offset``) each cell shows its offset and is coloured by its shared-memory
  bank (``bank = offset * bytes / 4 mod 32``).  ``highlight`` cells get a
  thick red outline (a counterexample), ``moved`` cells an orange one (a
  conversion changes their thread).
* :func:`bank_chart` -- one shared-memory access: the 32 banks as columns,
  the lanes of warp 0 (register 0) stacked in the bank they hit; lanes that
  hit the same bank at a different 4-byte word conflict and are red.

Large tensors are shown through a window of at most ``MAX_ROWS x MAX_COLS``
cells (the caption says so).  These are illustrations computed by direct
evaluation (:mod:`llverify.evaluate`); they prove nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Iterable, Mapping, Sequence

import numpy as np

from llverify.evaluate import evaluate
from llverify.layout import LinearLayout

__all__ = ["layout_grid", "bank_chart", "conversion_pair", "MAX_ROWS", "MAX_COLS", "cell_of_point"]

MAX_ROWS = 32
MAX_COLS = 32
MAX_POINTS = 1 << 18
WARP_COLORS = ("#cfe8ff", "#ffe2c6", "#d9f2d0", "#f3d6f5", "#fff3b0", "#d5f0f0", "#f8d3d3", "#e2ddff")
BANK_COLORS = tuple(f"hsl({(k * 47) % 360}, 70%, 85%)" for k in range(32))


@dataclass(frozen=True)
class _Owners:
    rows: int
    cols: int
    first: np.ndarray  # flat input index of the first holder per cell, -1 if none
    count: np.ndarray  # number of holders per cell


def _rc(layout: LinearLayout, values: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Row and column of every input (higher dims must be 0 for the cell to be shown)."""
    outs = list(layout.out_dim_names)
    n = len(next(iter(values.values()))) if values else 1
    if not outs:
        z = np.zeros(n, dtype=np.int64)
        return z, z, np.ones(n, dtype=bool), 1, 1
    col_dim = outs[-1]
    row_dim = outs[-2] if len(outs) >= 2 else None
    cols = layout.out_dim_size(col_dim)
    rows = layout.out_dim_size(row_dim) if row_dim else 1
    col = values[col_dim]
    row = values[row_dim] if row_dim else np.zeros_like(col)
    keep = np.ones(n, dtype=bool)
    for d in outs[:-2]:
        keep &= values[d] == 0
    return row, col, keep, rows, cols


def _owners(layout: LinearLayout) -> tuple[_Owners, dict[str, np.ndarray]]:
    values = evaluate(layout, limit=MAX_POINTS)
    row, col, keep, rows, cols = _rc(layout, values)
    cell = np.where(keep, row * cols + col, -1)
    n = rows * cols
    count = np.bincount(cell[keep], minlength=n)
    first = np.full(n, -1, dtype=np.int64)
    idx = np.nonzero(keep)[0]
    # first holder: smallest flat input -> assign in reverse so the smallest wins
    first[cell[idx][::-1]] = idx[::-1]
    return _Owners(rows, cols, first, count), values


def _split(layout: LinearLayout, x: int) -> dict[str, int]:
    out, shift = {}, 0
    for d, size in layout.in_dims.items():
        k = size.bit_length() - 1
        out[d] = (x >> shift) & (size - 1)
        shift += k
    return out


def cell_of_point(layout: LinearLayout, point: Mapping[str, int]) -> tuple[int, int] | None:
    """The (row, col) cell that ``layout`` sends ``point`` to, if the point names its in dims."""
    outs = list(layout.out_dim_names)
    if outs and set(point) == set(outs):  # a point of the tensor itself (inverse-direction claims)
        if any(int(point[d]) for d in outs[:-2]):
            return None
        return (int(point[outs[-2]]) if len(outs) >= 2 else 0), int(point[outs[-1]])
    if set(point) != set(layout.in_dim_names):
        return None
    try:
        out = layout.apply({k: int(v) for k, v in point.items()})
    except Exception:  # noqa: BLE001 - a point outside the domain is just not drawn
        return None
    if not outs or any(out[d] for d in outs[:-2]):
        return None
    return (out[outs[-2]] if len(outs) >= 2 else 0), out[outs[-1]]


def _label(layout: LinearLayout, x: int, bitwidth: int) -> tuple[str, str]:
    """Cell label and fill colour for flat input ``x``."""
    p = _split(layout, x)
    if "offset" in p:
        off = p["offset"]
        bank = (off * max(bitwidth, 8) // 32) % 32
        return str(off), BANK_COLORS[bank]
    if "lane" in p or "register" in p:
        warp = p.get("warp", 0) + p.get("block", 0) * 64
        return f"T{p.get('lane', 0)}:{p.get('register', 0)}", WARP_COLORS[warp % len(WARP_COLORS)]
    return str(x), "#eeeeee"


def layout_grid(layout: LinearLayout, *, title: str = "", bitwidth: int = 16,
                highlight: Iterable[tuple[int, int]] = (), moved: Iterable[tuple[int, int]] = (),
                max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS) -> str:
    """The SVG grid of ``layout`` (see the module docstring).

    Compact on purpose (reports hold many): cells of one colour are one
    ``<path>``, labels share one text style, outlines are overlays.
    """
    if layout.total_in_bits > 18:
        return f'<p class="note">{escape(title)}: too large to draw (2^{layout.total_in_bits} inputs)</p>'
    own, _ = _owners(layout)
    rows, cols = min(own.rows, max_rows), min(own.cols, max_cols)
    hl, mv = set(highlight), set(moved)
    is_mem = "offset" in layout.in_dim_names
    cw, ch = (30, 16) if is_mem else (40, 16)
    left, top = 28, 32
    width, height = left + cols * cw + 4, top + rows * ch + 4
    fills: dict[str, list[str]] = {}
    labels: list[str] = []
    copies: list[str] = []
    dashed: list[str] = []
    for r in range(rows):
        for c in range(cols):
            k = r * own.cols + c
            x, y = left + c * cw, top + r * ch
            first = int(own.first[k])
            cell = f"M{x} {y}h{cw}v{ch}h-{cw}z"
            if first < 0:
                fills.setdefault("#ffffff", []).append(cell)
                labels.append(f'<text x="{x + cw // 2}" y="{y + 11}" fill="#c00">∅</text>')
                continue
            label, fill = _label(layout, first, bitwidth)
            fills.setdefault(fill, []).append(cell)
            labels.append(f'<text x="{x + cw // 2}" y="{y + 11}">{escape(label)}</text>')
            n = int(own.count[k])
            if n > 1:
                dashed.append(cell)
                copies.append(f'<text x="{x + cw - 1}" y="{y + 5}">×{n}</text>')
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="grid" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="ui-monospace, monospace" font-size="8.5">']
    caption = title
    if rows < own.rows or cols < own.cols:
        caption += f" (cells 0..{rows - 1} x 0..{cols - 1} of {own.rows}x{own.cols})"
    out.append(f'<text x="2" y="11" font-size="11" font-weight="bold">{escape(caption)}</text>')
    out.append('<g fill="#666" text-anchor="middle">')
    for c in range(cols):
        if cols <= 16 or c % 4 == 0:
            out.append(f'<text x="{left + c * cw + cw // 2}" y="{top - 4}">{c}</text>')
    out.append('</g><g fill="#666" text-anchor="end">')
    for r in range(rows):
        out.append(f'<text x="{left - 3}" y="{top + r * ch + 11}">{r}</text>')
    out.append("</g>")
    for fill, cells in fills.items():
        out.append(f'<path d="{"".join(cells)}" fill="{fill}" stroke="#999" stroke-width="0.5"/>')
    if dashed:
        out.append(f'<path d="{"".join(dashed)}" fill="none" stroke="#444" stroke-dasharray="3,2"/>')
    out.append('<g text-anchor="middle">' + "".join(labels) + "</g>")
    if copies:
        out.append('<g text-anchor="end" font-size="6" fill="#a00">' + "".join(copies) + "</g>")
    for cells, colour, w in ((mv, "#f08c00", 2.5), (hl, "#d00000", 3)):
        d = "".join(f"M{left + c * cw} {top + r * ch}h{cw}v{ch}h-{cw}z" for r, c in cells if r < rows and c < cols)
        if d:
            out.append(f'<path d="{d}" fill="none" stroke="{colour}" stroke-width="{w}"/>')
    out.append("</svg>")
    return "".join(out)


def legend(layout: LinearLayout) -> str:
    """A one-line HTML legend for :func:`layout_grid` of this layout."""
    if "offset" in layout.in_dim_names:
        return "cells: offset, colour: shared-memory bank"
    warps = layout.in_dims.get("warp", 1)
    chips = "".join(f'<span class="chip" style="background:{WARP_COLORS[w % len(WARP_COLORS)]}">warp {w}</span>'
                    for w in range(min(warps, len(WARP_COLORS))))
    return f"cells: T&lt;lane&gt;:&lt;register&gt;, colour: {chips} dashed + ×k: broadcast copies"


def moved_cells(src: LinearLayout, dst: LinearLayout) -> set[tuple[int, int]]:
    """Cells whose first holder's (lane, warp, block) differs between ``src`` and ``dst``."""
    if src.out_dims != dst.out_dims or src.total_in_bits > 18 or dst.total_in_bits > 18:
        return set()
    a, _ = _owners(src)
    b, _ = _owners(dst)
    moved = set()
    for k in range(a.rows * a.cols):
        fa, fb = int(a.first[k]), int(b.first[k])
        if fa < 0 or fb < 0:
            continue
        pa, pb = _split(src, fa), _split(dst, fb)
        if any(pa.get(d, 0) != pb.get(d, 0) for d in ("lane", "warp", "block")):
            moved.add(divmod(k, a.cols))
    return moved


def conversion_pair(src: LinearLayout, dst: LinearLayout, src_name: str, dst_name: str,
                    highlight: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Source and destination grids with the cells that change thread outlined in orange."""
    mv = moved_cells(src, dst)
    return [layout_grid(src, title=f"source {src_name}", moved=mv, highlight=highlight),
            layout_grid(dst, title=f"destination {dst_name} ({len(mv)} cells change thread)", moved=mv,
                        highlight=highlight)]


def bank_chart(access: LinearLayout, shared: LinearLayout, bitwidth: int, title: str = "") -> str:
    """The banks warp 0's first instruction touches, lane by lane, as the hardware serves it: each lane
    stores or loads one vector (the vectorisation :func:`llverify.codegen.banks.bank_wavefronts` proves),
    i.e. ``words`` consecutive 4-byte words, and lanes are served in phases of ``32 / words`` lanes; two
    lanes conflict only when they are in the same phase and need different words of one bank (red).
    A conflict-free 128-bit access therefore shows no red, whatever banks the phases share.
    '' if not applicable."""
    from llverify.codegen.banks import access_to_offsets, bank_wavefronts
    from llverify.codegen.vectorize import permuted
    from llverify.errors import LlverifyError

    if "lane" not in access.in_dim_names or "offset" not in shared.in_dim_names:
        return ""
    if set(access.out_dim_names) != set(shared.out_dim_names) or not shared.is_invertible():
        return ""
    try:
        rep = bank_wavefronts(access, shared, bitwidth)
        cvt = permuted(access_to_offsets(access, shared), rep.vector)
    except LlverifyError:
        return ""
    lanes = cvt.in_dim_size("lane")
    vec_bytes = max(1, rep.vector.elems * bitwidth // 8)
    words = max(1, vec_bytes // 4)
    per_phase = rep.lanes_per_phase
    hits: dict[int, list[tuple[int, int, int]]] = {}  # bank -> (lane, word, phase)
    for lane in range(lanes):
        point = {d: 0 for d in cvt.in_dim_names}
        point["lane"] = lane
        first = cvt.apply(point)["offset"] * max(bitwidth, 8) // 8 // 4
        for k in range(words):
            hits.setdefault((first + k) % 32, []).append((lane, first + k, lane // per_phase))
    conflicted = {lane for hs in hits.values() for lane, w, ph in hs
                  if len({w2 for _, w2, ph2 in hs if ph2 == ph}) > 1}
    depth = max(len(h) for h in hits.values())
    cw, ch, left, top = 26, 16, 4, 30
    width, height = left + 32 * cw + 4, top + depth * ch + 20
    head = (f"{title or 'banks hit by warp 0, first instruction'}: {rep.vector.bits}-bit vectors, phases of "
            f"{per_phase} lanes, {rep.wavefronts} wavefronts ({len(conflicted)} conflicting lanes)")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="banks" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="ui-monospace, monospace" font-size="9">',
           f'<text x="2" y="11" font-size="11" font-weight="bold">{escape(head)}</text>']
    for b in range(32):
        x = left + b * cw
        out.append(f'<text x="{x + cw / 2:.0f}" y="{top - 4}" text-anchor="middle" fill="#666">b{b}</text>')
        for i, (lane, word, phase) in enumerate(sorted(hits.get(b, []), key=lambda h: (h[2], h[0]))):
            y = top + i * ch
            bad = lane in conflicted
            fill = "#ff9b9b" if bad else BANK_COLORS[b]
            stroke = "#d00000" if bad else "#999"
            out.append(f'<rect x="{x}" y="{y}" width="{cw - 2}" height="{ch - 2}" fill="{fill}" stroke="{stroke}">'
                       f'<title>lane {lane} (phase {phase}): word {word}, bank {b}</title></rect>')
            out.append(f'<text x="{x + (cw - 2) / 2:.0f}" y="{y + 11}" text-anchor="middle">T{lane}</text>')
    out.append("</svg>")
    return "".join(out)
