"""LEGO layouts (seed 004, section 3): bijections between a logical index space and flat memory.

Pieces (each a bijection between a tile's multi-index and ``[0, size)``):

* ``RegP(dims, perm)``: permute the tile's dimensions; the physical shape is
  ``[dims[p] for p in perm]`` and ``apply(i) = row_major_flatten([i[p] for p
  in perm], physical shape)``.  ``perm`` is 0-based (the paper writes
  1-based: its ``[1,3,2,4]`` is our ``[0,2,1,3]``).
* ``GenP(dims, apply, inv)``: a user bijection, given as Python index
  expressions (parsed, never executed): ``apply`` in the variables
  ``i0, i1, ...`` (or ``variables``), ``inv`` one expression per dimension in
  the flat variable ``f``.
* ``OrderBy(p1, ..., pm)``: a hierarchy of tiles, outermost first; its dims are
  the pieces' dims concatenated and ``apply`` accumulates
  ``((p1(i1) * size(p2) + p2(i2)) * size(p3) + ...)`` (figure 7).
* ``GroupBy(dims, r1, ..., rk)``: the logical view ``dims``; ``apply(x)``
  flattens ``x`` row-major, then for ``r = rk, ..., r1`` (reverse order, as
  composition ``r1 . ... . rk``) unflattens in ``r``'s dims and applies ``r``;
  ``inv`` runs the chain forward.  Unflattening a flat index in finer dims
  is the stripmining that tiles the space.

Sugar: ``Row(*dims)``, ``Col(*dims)`` (reversed dims), ``TileBy(level0,
level1, ...)`` (each level a tuple of per-dimension tile sizes, outermost
first; logical dims are each dimension stripmined, physical dims level by
level).  Example (figure 9's first step): ``GroupBy([6, 6], TileBy((2, 2), (3,
3)))`` maps ``(i, j)`` to ``((i//3 * 2 + j//3) * 3 + i%3) * 3 + j%3``.

Expressions are SymPy (:mod:`llverify.index.expr`), simplified with proved
side conditions (:mod:`llverify.index.simplify`).  ``prove_bijective`` and
``prove_inverse`` decide LEGO's bijectivity claim with
:mod:`llverify.prove.code`; ``to_linear_layout`` converts a power-of-two,
F2-linear layout to a :class:`LinearLayout` (in dim ``offset``, out dims
``dim0..``) with a proof of equality, and :func:`from_linear_layout` goes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Sequence

import sympy as sp

from llverify.index.derive import derive
from llverify.index.expr import FloorDiv, Modulo, evaluate, sym, to_code
from llverify.index.sympy_algebra import from_code
from llverify.index.simplify import simplify
from llverify.layout import LinearLayout
from llverify.prove.code import IndexCodeError, bijective, code_equals_code, code_equals_layout
from llverify.prove.verdict import Verdict

__all__ = ["Piece", "RegP", "GenP", "OrderBy", "GroupBy", "Row", "Col", "TileBy", "flatten", "unflatten",
           "antidiagonal", "from_linear_layout"]


def flatten(idx: Sequence[sp.Expr], dims: Sequence[int]) -> sp.Expr:
    """Row-major: ``flatten([i, j], [R, C]) = i*C + j``."""
    acc: sp.Expr = sp.Integer(0)
    for x, d in zip(idx, dims):
        acc = acc * d + x
    return acc


def unflatten(f: sp.Expr, dims: Sequence[int]) -> tuple[sp.Expr, ...]:
    """Inverse of :func:`flatten`: ``(f // (C) % R, f % C)`` for ``[R, C]``."""
    out = []
    stride = 1
    for d in reversed(dims):
        out.append(Modulo(FloorDiv(f, stride), d))
        stride *= d
    return tuple(reversed(out))


class Piece:
    """A bijection between a multi-index over ``dims`` and ``[0, size)``."""

    dims: tuple[int, ...]

    @property
    def size(self) -> int:
        return prod(self.dims)

    def apply(self, idx: Sequence[sp.Expr]) -> sp.Expr:  # pragma: no cover - abstract
        raise NotImplementedError

    def inv(self, f: sp.Expr) -> tuple[sp.Expr, ...]:  # pragma: no cover - abstract
        raise NotImplementedError


def _check_dims(dims: Sequence[int], what: str) -> tuple[int, ...]:
    ds = tuple(int(d) for d in dims)
    if not ds or any(d < 1 for d in ds):
        raise IndexCodeError(f"{what}: dims must be positive integers, got {list(dims)}")
    return ds


@dataclass(frozen=True)
class RegP(Piece):
    dims: tuple[int, ...]
    perm: tuple[int, ...]

    def __init__(self, dims: Sequence[int], perm: Sequence[int]) -> None:
        object.__setattr__(self, "dims", _check_dims(dims, "RegP"))
        object.__setattr__(self, "perm", tuple(int(p) for p in perm))
        if sorted(self.perm) != list(range(len(self.dims))):
            raise IndexCodeError(f"RegP: perm {list(perm)} is not a permutation of 0..{len(self.dims) - 1} (0-based)")

    @property
    def physical(self) -> tuple[int, ...]:
        return tuple(self.dims[p] for p in self.perm)

    def apply(self, idx: Sequence[sp.Expr]) -> sp.Expr:
        return flatten([idx[p] for p in self.perm], self.physical)

    def inv(self, f: sp.Expr) -> tuple[sp.Expr, ...]:
        phys = unflatten(f, self.physical)
        out: list[sp.Expr] = [sp.Integer(0)] * len(self.dims)
        for k, p in enumerate(self.perm):
            out[p] = phys[k]
        return tuple(out)


@dataclass(frozen=True)
class GenP(Piece):
    dims: tuple[int, ...]
    apply_expr: sp.Expr
    inv_exprs: tuple[sp.Expr, ...]
    variables: tuple[str, ...]
    flat_var: str

    def __init__(self, dims: Sequence[int], apply: str, inv: Sequence[str], variables: Sequence[str] | None = None,
                 flat_var: str = "f") -> None:
        ds = _check_dims(dims, "GenP")
        vs = tuple(variables) if variables is not None else tuple(f"i{k}" for k in range(len(ds)))
        if len(vs) != len(ds) or len(tuple(inv)) != len(ds):
            raise IndexCodeError(f"GenP: {len(ds)} dims need {len(ds)} variables and {len(ds)} inverse expressions")
        a = from_code(apply)
        extra = {s.name for s in a.free_symbols} - set(vs)
        if extra:
            raise IndexCodeError(f"GenP apply uses unknown variables {sorted(extra)} (declared {list(vs)})")
        invs = tuple(from_code(c) for c in inv)
        for c in invs:
            if {s.name for s in c.free_symbols} - {flat_var}:
                raise IndexCodeError(f"GenP inverse expressions may only use '{flat_var}': {c}")
        object.__setattr__(self, "dims", ds)
        object.__setattr__(self, "apply_expr", a)
        object.__setattr__(self, "inv_exprs", invs)
        object.__setattr__(self, "variables", vs)
        object.__setattr__(self, "flat_var", flat_var)

    def apply(self, idx: Sequence[sp.Expr]) -> sp.Expr:
        return self.apply_expr.xreplace({sym(v): x for v, x in zip(self.variables, idx)})

    def inv(self, f: sp.Expr) -> tuple[sp.Expr, ...]:
        return tuple(e.xreplace({sym(self.flat_var): f}) for e in self.inv_exprs)

    def prove(self) -> Verdict:
        """Its user functions form a bijection: apply bijective onto [0, size) and inv(apply(x)) == x."""
        ranges = {v: d for v, d in zip(self.variables, self.dims)}
        v = bijective(to_code(self.apply_expr), ranges, lang="python")
        if not v.proved:
            return v
        a = self.apply_expr
        for k, e in enumerate(self.inv_exprs):
            w = code_equals_code(to_code(e.xreplace({sym(self.flat_var): a})), self.variables[k], ranges, lang="python")
            if not w.proved:
                return w
        return v


@dataclass(frozen=True)
class OrderBy(Piece):
    pieces: tuple[Piece, ...]

    def __init__(self, *pieces: Piece) -> None:
        if not pieces:
            raise IndexCodeError("OrderBy needs at least one piece")
        object.__setattr__(self, "pieces", tuple(pieces))

    @property
    def dims(self) -> tuple[int, ...]:  # type: ignore[override]
        return tuple(d for p in self.pieces for d in p.dims)

    def apply(self, idx: Sequence[sp.Expr]) -> sp.Expr:
        acc: sp.Expr = sp.Integer(0)
        k = 0
        for p in self.pieces:
            acc = acc * p.size + p.apply(idx[k:k + len(p.dims)])
            k += len(p.dims)
        return acc

    def inv(self, f: sp.Expr) -> tuple[sp.Expr, ...]:
        parts = unflatten(f, [p.size for p in self.pieces])
        return tuple(x for p, g in zip(self.pieces, parts) for x in p.inv(g))


def Row(*dims: int) -> RegP:
    """Row-major: identity permutation."""
    return RegP(dims, range(len(dims)))


def Col(*dims: int) -> RegP:
    """Column-major: reversed dimensions."""
    return RegP(dims, range(len(dims) - 1, -1, -1))


def TileBy(*levels: Sequence[int]) -> RegP:
    """Hierarchical tiling: ``TileBy((2, 2), (3, 3))`` is ``RegP([2, 3, 2, 3], [0, 2, 1, 3])``."""
    q, d = len(levels), len(levels[0])
    if any(len(l) != d for l in levels):
        raise IndexCodeError("TileBy: every level needs the same number of dimensions")
    logical = [levels[l][k] for k in range(d) for l in range(q)]  # each dimension stripmined
    perm = [k * q + l for l in range(q) for k in range(d)]        # physical: level by level
    return RegP(logical, perm)


@dataclass(frozen=True)
class GroupBy:
    """The whole layout: logical view ``dims`` and a chain of reorderings (see the module docstring)."""

    dims: tuple[int, ...]
    chain: tuple[Piece, ...]

    def __init__(self, dims: Sequence[int], *chain: Piece) -> None:
        ds = _check_dims(dims, "GroupBy")
        for r in chain:
            if r.size != prod(ds):
                raise IndexCodeError(f"GroupBy: a reordering covers {r.size} elements, the view {prod(ds)}")
        object.__setattr__(self, "dims", ds)
        object.__setattr__(self, "chain", tuple(chain))

    @property
    def size(self) -> int:
        return prod(self.dims)

    def symbols(self, names: Sequence[str] | None = None) -> tuple[sp.Symbol, ...]:
        return tuple(sym(n) for n in (names or [f"x{k}" for k in range(len(self.dims))]))

    def apply_expr(self, idx: Sequence[sp.Expr] | None = None) -> sp.Expr:
        """Flat physical index of the logical multi-index ``idx`` (symbols ``x0, x1, ...`` by default)."""
        f = flatten(idx if idx is not None else self.symbols(), self.dims)
        for r in reversed(self.chain):
            f = r.apply(unflatten(f, r.dims))
        return f

    def inv_expr(self, f: sp.Expr | None = None) -> tuple[sp.Expr, ...]:
        """Logical multi-index of flat physical index ``f`` (symbol ``f`` by default)."""
        g = f if f is not None else sym("f")
        for r in self.chain:
            g = flatten(r.inv(g), r.dims)
        return unflatten(g, self.dims)

    def apply(self, *idx: int) -> int:
        return evaluate(self.apply_expr([sp.Integer(i) for i in idx]), {})

    def inv(self, f: int) -> tuple[int, ...]:
        return tuple(evaluate(e, {}) for e in self.inv_expr(sp.Integer(f)))

    def ranges(self, names: Sequence[str] | None = None) -> dict[str, tuple[int, int]]:
        return {s.name: (0, d) for s, d in zip(self.symbols(names), self.dims)}

    def simplified_apply(self, names: Sequence[str] | None = None):
        """:func:`simplify` of the apply expression under the view's ranges."""
        return simplify(self.apply_expr(self.symbols(names)), self.ranges(names))

    def simplified_inv(self):
        """:func:`simplify` of each inverse coordinate under ``0 <= f < size``."""
        return tuple(simplify(e, {"f": (0, self.size)}) for e in self.inv_expr())

    def prove_bijective(self) -> Verdict:
        """LEGO's claim: apply is a bijection from the logical view onto ``[0, size)``."""
        return bijective(to_code(self.apply_expr()), self.ranges(), lang="python")

    def prove_inverse(self) -> Verdict:
        """``inv(apply(x)) == x`` for every logical ``x`` (one proof per coordinate)."""
        a = self.apply_expr()
        last: Verdict | None = None
        for s, e in zip(self.symbols(), self.inv_expr(a)):
            last = code_equals_code(to_code(e), s.name, self.ranges(), lang="python")
            if not last.proved:
                return last
        assert last is not None
        return last

    def to_linear_layout(self) -> tuple[LinearLayout, Verdict]:
        """The equal :class:`LinearLayout` (in dim ``offset`` -> out dims ``dim0..``), with the proof.

        Needs power-of-two dims.  Bases are ``inv(2^k)``; the verdict proves the
        LEGO apply equals that layout's inverse everywhere (so the map is
        F2-linear); if it is refuted the layout is not linear and
        :class:`IndexCodeError` is raised with the counterexample.
        """
        if any(d & (d - 1) for d in self.dims):
            raise IndexCodeError(f"only power-of-two views convert to a LinearLayout, not {list(self.dims)}")
        nbits = self.size.bit_length() - 1
        names = [f"dim{k}" for k in range(len(self.dims))]
        bases = [list(self.inv(1 << k)) for k in range(nbits)]
        L = LinearLayout([("offset", bases)], list(zip(names, self.dims)), require_surjective=False)
        v = code_equals_layout(to_code(self.apply_expr(self.symbols(names))), L, {n: n for n in names}, "offset",
                               lang="python") if L.is_invertible() else None
        if v is None or not v.proved:
            why = v.message if v is not None else "its basis images are not independent"
            raise IndexCodeError(f"this LEGO layout is not F2-linear: {why}")
        return L, v


def from_linear_layout(layout: LinearLayout) -> tuple[GroupBy, Verdict]:
    """A LEGO layout equal to an invertible memory layout (one in dim -> coordinates), with the proof.

    It is ``GroupBy(dims, GenP(dims, apply=offset expression, inv=coordinate
    expressions))``, both derived from the layout (:mod:`llverify.index.derive`).
    """
    L = layout.flatten_ins() if layout.num_in_dims > 1 else layout
    if not L.is_invertible():
        raise IndexCodeError("only an invertible layout converts to a LEGO bijection")
    in_dim = L.in_dim_names[0]
    outs = list(L.out_dim_names)
    dims = [L.out_dim_size(o) for o in outs]
    inv_layout = L.invert()
    names = [f"i{k}" for k in range(len(outs))]
    ranges = {n: (0, d) for n, d in zip(names, dims)}
    apply = simplify(derive(inv_layout, in_dim).xreplace({sym(o): sym(n) for o, n in zip(outs, names)}), ranges).expr
    # LEGO's flatten is row-major (first dim slowest) and Triton's logical index has the same meaning per dim
    invs = [simplify(derive(L, o).xreplace({sym(in_dim): sym("f")}), {"f": (0, L.in_dim_size(in_dim))}).expr
            for o in outs]
    g = GroupBy(dims, GenP(dims, to_code(apply), [to_code(e) for e in invs], names))
    v = code_equals_layout(to_code(g.apply_expr(g.symbols(names))), L, dict(zip(names, outs)), in_dim, lang="python")
    if not v.proved:  # pragma: no cover - derivation is exact; this is the closed loop
        raise IndexCodeError(f"LEGO form of the layout failed its proof: {v.message}")
    return g, v


def antidiagonal(n: int) -> GenP:
    """Figure 8's user permutation of an ``n x n`` tile: elements in anti-diagonal order.

    Diagonal ``k = i + j`` starts at ``k*(k+1)//2`` for ``k < n`` and at
    ``n*n - (2n-1-k)*(2n-k)//2`` after; within a diagonal, by increasing ``i``.
    The inverse is a chain of ternaries over the diagonals' start offsets.
    """
    if n < 1:
        raise IndexCodeError("antidiagonal needs n >= 1")
    apply = (f"(i0 + i1) * (i0 + i1 + 1) // 2 + i0 if i0 + i1 < {n} else "
             f"{n * n} - ({2 * n - 1} - i0 - i1) * ({2 * n} - i0 - i1) // 2 + i0 - (i0 + i1 - {n - 1})")
    starts = [k * (k + 1) // 2 if k < n else n * n - (2 * n - 1 - k) * (2 * n - k) // 2 for k in range(2 * n - 1)]
    row, col = "0", "0"
    for k in reversed(range(2 * n - 1)):
        first_i = 0 if k < n else k - n + 1
        i_k = f"f - {starts[k] - first_i}" if starts[k] - first_i >= 0 else f"f + {first_i - starts[k]}"
        j_k = f"{k} - ({i_k})"
        if k == 2 * n - 2:
            row, col = i_k, j_k
        else:
            row = f"({i_k}) if f < {starts[k + 1]} else ({row})"
            col = f"({j_k}) if f < {starts[k + 1]} else ({col})"
    return GenP((n, n), apply, (row, col))
