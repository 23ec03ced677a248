"""Derive SymPy index expressions from a linear layout.

For a layout ``L`` and one of its out dims ``o``, ``L(x)[o]`` is an XOR of
bit fields of the inputs (seed 000, definition 4.1: each input bit
contributes its basis).  Reading the F2 matrix block of in dim ``v`` and out
dim ``o`` as a set of entries ``(out bit t, in bit i)``, every entry lies on
exactly one maximal *diagonal run* ``t = s + k, i = j + k, k < n``, and that
run is the field ``((v // 2^j) % 2^n) * 2^s``.  So::

    L(x)[o] = XOR over runs of ((v // 2^j) % 2^n) * 2^s

Runs whose out-bit supports ``[s, s + n)`` overlap are grouped and XORed
(their common power-of-two factor pulled out); the groups have disjoint
supports, so they are joined with ``+`` exactly.  Example: the inverse of
the swizzled 64x64 shared layout (vec 8, per_phase 1, max_phase 8) derives
``(dim1 ^ (dim0 % 8) * 8) + (dim0 % 64) * 64``, which the range-aware
simplifier turns into ``(dim1 ^ (dim0 % 8) * 8) + dim0 * 64``.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from llverify.errors import LayoutError
from llverify.index.expr import BitXor, FloorDiv, Modulo, sym
from llverify.layout import LinearLayout

__all__ = ["Field", "fields", "derive", "derive_xor", "derive_layout", "variable_ranges"]


@dataclass(frozen=True)
class Field:
    """``((var // 2^lo) % 2^width) * 2^shift``: in bits ``[lo, lo+width)`` to out bits ``[shift, shift+width)``."""

    var: str
    lo: int
    width: int
    shift: int

    def expr(self, symbols: dict[str, sp.Symbol], unshift: int = 0) -> sp.Expr:
        v = symbols[self.var]
        e = Modulo(FloorDiv(v, 2 ** self.lo), 2 ** self.width)
        return e * 2 ** (self.shift - unshift)


def fields(layout: LinearLayout, out_dim: str) -> list[Field]:
    """The maximal diagonal runs of ``layout``'s matrix block for ``out_dim`` (see module docstring)."""
    if out_dim not in layout.out_dim_names:
        raise LayoutError(f"'{out_dim}' is not an out dim of the layout (out dims: {list(layout.out_dim_names)})")
    k = layout.out_dim_names.index(out_dim)
    out: list[Field] = []
    for d in layout.in_dim_names:
        comps = [b[k] for b in layout.bases[d]]
        entries = {(i, t) for i, c in enumerate(comps) for t in range(c.bit_length()) if (c >> t) & 1}
        for i, t in sorted(entries):
            if (i - 1, t - 1) in entries:
                continue  # not the start of a run
            n = 1
            while (i + n, t + n) in entries:
                n += 1
            out.append(Field(d, i, n, t))
    return out


def variable_ranges(layout: LinearLayout) -> dict[str, tuple[int, int]]:
    """Half-open range of each in dim: ``[0, size)``."""
    return {d: (0, layout.in_dim_size(d)) for d in layout.in_dim_names}


def derive_xor(layout: LinearLayout, out_dim: str) -> sp.Expr:
    """The plain XOR of all fields (no grouping): the un-simplified baseline."""
    syms = {d: sym(d) for d in layout.in_dim_names}
    fs = fields(layout, out_dim)
    if not fs:
        return sp.Integer(0)
    terms = [f.expr(syms) for f in fs]
    return terms[0] if len(terms) == 1 else BitXor(*terms)


def derive(layout: LinearLayout, out_dim: str) -> sp.Expr:
    """``layout(x)[out_dim]`` as a SymPy expression in the in dims (symbols named after them)."""
    syms = {d: sym(d) for d in layout.in_dim_names}
    fs = sorted(fields(layout, out_dim), key=lambda f: (f.shift, f.var, f.lo))
    groups: list[list[Field]] = []
    hi = -1
    for f in fs:  # sweep by start bit; overlapping supports join the current group
        if groups and f.shift < hi:
            groups[-1].append(f)
            hi = max(hi, f.shift + f.width)
        else:
            groups.append([f])
            hi = f.shift + f.width
    total: sp.Expr = sp.Integer(0)
    for g in groups:
        if len(g) == 1:
            total += g[0].expr(syms)
        else:
            base = min(f.shift for f in g)
            total += BitXor(*[f.expr(syms, unshift=base) for f in g]) * 2 ** base
    return total


def derive_layout(layout: LinearLayout) -> dict[str, sp.Expr]:
    """:func:`derive` for every out dim."""
    return {o: derive(layout, o) for o in layout.out_dim_names}
