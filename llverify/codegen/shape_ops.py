"""Layout inference that makes shape operations no-ops (seed 000, section 4.4, theorem 9.3).

For ``trans``, ``reshape``, ``join``, ``split``, ``expand_dims`` and
``broadcast`` the op is linear on logical coordinates, so for a distributed
input layout there is an output layout (forward) -- and for an output layout
an input layout (backward) -- such that every thread already holds the
elements it needs: the op moves no data.  A :class:`ShapeOpPlan` records both
layouts and the two maps the no-op claim is about:

* ``in_point(k, hw)``: output ``k``'s hardware slot -> (operand, input slot);
* ``in_coord(k, coord)``: output ``k``'s coordinate -> (operand, input coordinate)
  (the op's semantics).

The claim (proved in ``llverify.prove.plan_shape_ops.prove_shape_op``): for every
output ``k`` and slot ``hw``, ``in_coord(k, L_out_k(hw)) == (operand,
L_operand(slot))`` where ``(operand, slot) = in_point(k, hw)``.

Conventions: ``join`` adds the new last dim (size 2) as register bit 0 by
default; ``split`` takes it from whichever register bit holds it;
``broadcast`` appends register bases along the broadcast dim.  Example:
``trans`` with perm ``[1, 0]`` of a layout with register basis ``(0, 1)``
gives register basis ``(1, 0)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from llverify.codegen.common import log2
from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["ShapeOpPlan", "infer_shape_op", "SHAPE_OPS", "BitMap"]

SHAPE_OPS = ("trans", "reshape", "join", "split", "expand_dims", "broadcast")


def _names(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def _rebuild(bases: Mapping[str, list[list[int]]], sizes: list[int]) -> LinearLayout:
    """The layout of ``bases`` on out dims ``dim0..`` of ``sizes``, checked as the constructor checks it (every
    basis and size here is a Python int, read from a layout or computed from ints)."""
    return LinearLayout._checked(bases.items(), zip(_names(len(sizes)), sizes))


def _bases(L: LinearLayout) -> dict[str, list[list[int]]]:
    return {d: [list(b) for b in bs] for d, bs in L.bases.items()}


def _sizes(L: LinearLayout) -> list[int]:
    return list(L.out_dims.values())


def _named_sizes(L: LinearLayout) -> list[int]:
    """Out dim sizes in the order ``dim0, dim1, ...`` whatever the layout's out-dim order."""
    return [L.out_dim_size(n) for n in _names(L.num_out_dims)]


def _drop_bit(x: int, j: int) -> int:
    return (x & ((1 << j) - 1)) | ((x >> (j + 1)) << j)


def _insert_bit(x: int, j: int, bit: int) -> int:
    return (x & ((1 << j) - 1)) | (bit << j) | ((x >> j) << (j + 1))


@dataclass(frozen=True)
class BitMap:
    """An affine F2 map that only moves bits: ``y = const XOR (bit i of x placed at dest[i])``.

    ``dest[i] is None`` drops bit ``i``.  The matrix has at most one 1 per
    column, so the map is linear up to ``const`` by construction; an equality
    of two such maps composed with layouts is decided by checking a base
    point and one point per free direction (an F2 certificate).
    Example: ``BitMap((1, 0), 0)(0b01) == 0b10`` swaps two bits.
    """

    dest: tuple[int | None, ...]
    const: int = 0

    def __call__(self, x: int) -> int:
        y = self.const
        for i, d in enumerate(self.dest):
            if d is not None and x >> i & 1:
                y ^= 1 << d
        return y


def _dim_shifts(sizes: list[int]) -> list[int]:
    out, s = [], 0
    for n in sizes:
        out.append(s)
        s += log2(n)
    return out


def _coord_dest(src_sizes: list[int], where: Any) -> tuple[int | None, ...]:
    """Destination bit of every flat source coordinate bit: ``where(dim, bit) -> int | None``."""
    dest: list[int | None] = []
    for i, n in enumerate(src_sizes):
        for t in range(log2(n)):
            dest.append(where(i, t))
    return tuple(dest)


@dataclass(frozen=True)
class ShapeOpPlan:
    """A shape op made a no-op: operand layouts, result layouts and the maps between them."""

    op: str
    direction: str
    params: Mapping[str, Any]
    inputs: tuple[LinearLayout, ...]
    outputs: tuple[LinearLayout, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def in_point(self, k: int, hw: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        """Output ``k``'s hardware slot -> (operand index, operand hardware slot)."""
        h = dict(hw)
        if self.op == "join":
            j = self.meta["reg_bit"]
            return (h["register"] >> j) & 1, {**h, "register": _drop_bit(h["register"], j)}
        if self.op == "split":
            return 0, {**h, "register": _insert_bit(h["register"], self.meta["reg_bit"], k)}
        if self.op == "broadcast":
            r = h["register"]
            for j in sorted(self.meta["dropped_reg_bits"], reverse=True):
                r = _drop_bit(r, j)
            return 0, {**h, "register": r}
        return 0, h

    def in_coord(self, k: int, coord: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        """The op's semantics: output ``k``'s coordinate -> (operand, operand coordinate)."""
        c = [coord[n] for n in _names(len(coord))]
        if self.op == "trans":
            perm = self.params["perm"]
            src = [0] * len(c)
            for i, p in enumerate(perm):
                src[p] = c[i]
            return 0, dict(zip(_names(len(src)), src))
        if self.op == "reshape":
            out_shape, in_shape = _sizes(self.outputs[0]), _sizes(self.inputs[0])
            flat = 0
            for v, s in zip(c, out_shape):
                flat = flat * s + v
            src = []
            for s in reversed(in_shape):
                src.append(flat % s)
                flat //= s
            return 0, dict(zip(_names(len(in_shape)), reversed(src)))
        if self.op == "join":
            return c[-1], dict(zip(_names(len(c) - 1), c[:-1]))
        if self.op == "split":
            return 0, dict(zip(_names(len(c) + 1), c + [k]))
        if self.op == "expand_dims":
            a = self.params["axis"]
            return 0, dict(zip(_names(len(c) - 1), c[:a] + c[a + 1:]))
        if self.op == "broadcast":
            a = self.params["dim"]
            return 0, dict(zip(_names(len(c)), [0 if i == a else v for i, v in enumerate(c)]))
        raise LayoutError(f"unknown shape op {self.op!r}")  # pragma: no cover

    def coord_bitmap(self, k: int) -> BitMap:
        """:meth:`in_coord` as an F2 map on flat coordinates (dim0 lowest).

        The result's bits are the operand's flat coordinate, with the operand
        index at bit ``operand_bit`` (= the operand's total out bits).  Built
        from the op's definition (bit moves), independently of :meth:`in_coord`:
        trans permutes dims, reshape keeps the row-major index (last dim
        lowest), join sends the new last dim to the operand bit, split adds
        ``k`` as the new last coordinate, expand_dims/broadcast drop the dim.
        """
        out_sizes = _named_sizes(self.outputs[k])
        in_sizes = _named_sizes(self.inputs[0])
        si = _dim_shifts(in_sizes)
        top = sum(log2(n) for n in in_sizes)
        const = 0
        if self.op == "trans":
            perm = self.params["perm"]
            where = lambda i, t: si[perm[i]] + t  # noqa: E731
        elif self.op == "reshape":
            rank_o, rank_i = len(out_sizes), len(in_sizes)
            rm_o = [sum(log2(n) for n in out_sizes[i + 1:]) for i in range(rank_o)]   # row-major bit of dim i
            rm_i = [sum(log2(n) for n in in_sizes[i + 1:]) for i in range(rank_i)]

            def where(i: int, t: int) -> int:
                q = rm_o[i] + t
                j = next(j for j in range(rank_i) if rm_i[j] <= q < rm_i[j] + log2(in_sizes[j]))
                return si[j] + q - rm_i[j]
        elif self.op == "join":
            last = len(out_sizes) - 1
            where = lambda i, t: top if i == last else si[i] + t  # noqa: E731
        elif self.op == "split":
            where = lambda i, t: si[i] + t  # noqa: E731
            const = k << si[len(in_sizes) - 1]
        elif self.op == "expand_dims":
            a = self.params["axis"]
            where = lambda i, t: si[i if i < a else i - 1] + t  # noqa: E731
        elif self.op == "broadcast":
            a = self.params["dim"]
            where = lambda i, t: None if i == a else si[i] + t  # noqa: E731
        else:  # pragma: no cover
            raise LayoutError(f"unknown shape op {self.op!r}")
        return BitMap(_coord_dest(out_sizes, where), const)

    def point_bitmap(self, k: int) -> BitMap:
        """:meth:`in_point` as an F2 map on flat hardware indices (in-dim order of each layout).

        Result bits: the operand's flat hardware index, with the operand index
        at bit ``operand.total_in_bits`` (join reads it from register bit
        ``reg_bit``).
        """
        Lo, Li = self.outputs[k], self.inputs[0]
        offs_i = Li.flat_in_offsets()
        top = Li.total_in_bits
        const = 0
        j = self.meta.get("reg_bit", 0)
        dropped = sorted(self.meta.get("dropped_reg_bits", []))
        for d in Lo.in_dim_names:
            if d not in offs_i and Lo.in_dim_size(d) > 1:
                raise LayoutError(f"{self.op}: operand layout has no in dim '{d}'")
        dest: list[int | None] = []
        for d in Lo.in_dim_names:
            for t in range(Lo.in_dim_size_log2(d)):
                if d == "register" and self.op == "join":
                    dest.append(top if t == j else offs_i[d] + (t if t < j else t - 1))
                elif d == "register" and self.op == "split":
                    dest.append(offs_i[d] + (t if t < j else t + 1))
                elif d == "register" and self.op == "broadcast":
                    dest.append(None if t in dropped else offs_i[d] + t - sum(1 for b in dropped if b < t))
                else:
                    dest.append(offs_i[d] + t)
        if self.op == "split":
            const = k << (offs_i["register"] + j)
        return BitMap(tuple(dest), const)

    def to_json(self) -> dict:
        return {"op": self.op, "direction": self.direction, "params": dict(self.params), "meta": dict(self.meta),
                "inputs": [{d: [list(b) for b in bs] for d, bs in L.bases.items()} for L in self.inputs],
                "outputs": [{d: [list(b) for b in bs] for d, bs in L.bases.items()} for L in self.outputs]}


def _trans(L: LinearLayout, perm: list[int]) -> LinearLayout:
    r = L.num_out_dims
    if sorted(perm) != list(range(r)):
        raise LayoutError(f"trans: perm {perm} is not a permutation of range({r})")
    Lc = L.transpose_outs(_names(r))
    sizes = _sizes(Lc)
    return _rebuild({d: [[b[p] for p in perm] for b in bs] for d, bs in _bases(Lc).items()}, [sizes[p] for p in perm])


def _reshape(L: LinearLayout, shape: list[int]) -> LinearLayout:
    for s in shape:
        log2(int(s))
    Lc = L.transpose_outs(_names(L.num_out_dims))
    total = 1
    for s in shape:
        total *= s
    if total != Lc.total_out_size:
        raise LayoutError(f"reshape: {list(shape)} has {total} elements, the tensor has {Lc.total_out_size}")
    rev = Lc.transpose_outs(list(reversed(_names(Lc.num_out_dims))))
    new = [(f"dim{i}", s) for i, s in reversed(list(enumerate(shape)))]
    return rev.reshape_outs(new).transpose_outs(_names(len(shape)))


def _join(L: LinearLayout, reg_bit: int = 0) -> LinearLayout:
    Lc = L.transpose_outs(_names(L.num_out_dims))
    b = {d: [x + [0] for x in bs] for d, bs in _bases(Lc).items()}
    regs = b.get("register", [])
    if not 0 <= reg_bit <= len(regs):
        raise LayoutError(f"join: register bit {reg_bit} out of range")
    b["register"] = regs[:reg_bit] + [[0] * Lc.num_out_dims + [1]] + regs[reg_bit:]
    if "register" not in dict(Lc.bases):
        b = {"register": b.pop("register"), **b}
    return _rebuild(b, _sizes(Lc) + [2])


def _split_bit(L: LinearLayout) -> int:
    Lc = L.transpose_outs(_names(L.num_out_dims))
    if _sizes(Lc)[-1] != 2:
        raise LayoutError(f"split: the last dim must have size 2, it has {_sizes(Lc)[-1]}")
    want = [0] * (Lc.num_out_dims - 1) + [1]
    regs = _bases(Lc).get("register", [])
    hits = [j for j, b in enumerate(regs) if b == want]
    others = [b for d, bs in _bases(Lc).items() for j, b in enumerate(bs) if b[-1] and not (d == "register" and j in hits[:1])]
    if not hits or others:
        raise LayoutError("split: the last dim is not held by exactly one register bit (convert the layout first)")
    return hits[0]


def _split(L: LinearLayout) -> tuple[LinearLayout, int]:
    j = _split_bit(L)
    Lc = L.transpose_outs(_names(L.num_out_dims))
    b = _bases(Lc)
    b["register"] = [x for i, x in enumerate(b["register"]) if i != j]
    return _rebuild({d: [x[:-1] for x in bs] for d, bs in b.items()}, _sizes(Lc)[:-1]), j


def _expand(L: LinearLayout, axis: int) -> LinearLayout:
    """``expand_dims`` forward: a size-1 out dim inserted at ``axis`` (later dims renumbered).

    Built on the flat columns directly: a size-1 out dim has no out bit, so every column (the out bits of
    ``dim0, dim1, ..`` concatenated) is unchanged; only the out-dim list changes.  The same layout as
    a zero component inserted into every basis and the layout rebuilt, which ``tests/test_fast_paths_codefast.py``
    compares it with."""
    r = L.num_out_dims
    if not 0 <= axis <= r:
        raise LayoutError(f"expand_dims: axis {axis} out of range for rank {r}")
    Lc = L.transpose_outs(_names(r))
    sizes = _sizes(Lc)
    out = tuple(zip(_names(r + 1), sizes[:axis] + [1] + sizes[axis:]))
    return LinearLayout._raw(Lc._in, out, Lc._flat)


def _squeeze(L: LinearLayout, axis: int) -> LinearLayout:
    Lc = L.transpose_outs(_names(L.num_out_dims))
    if not 0 <= axis < Lc.num_out_dims or _sizes(Lc)[axis] != 1:
        raise LayoutError(f"expand_dims backward: output dim {axis} must exist and have size 1")
    return _rebuild({d: [x[:axis] + x[axis + 1:] for x in bs] for d, bs in _bases(Lc).items()},
                    _sizes(Lc)[:axis] + _sizes(Lc)[axis + 1:])


def _broadcast_fwd(L: LinearLayout, dim: int, size: int) -> tuple[LinearLayout, list[int]]:
    """``broadcast`` forward of size-1 out dim ``dim`` to ``size = 2^n``: ``n`` register bases appended, the
    ``i``-th the unit vector ``2^i`` of ``dim``; returns the layout and the new registers' bit positions.

    Built on the flat columns directly: ``dim``'s out bits (none before) become ``n`` bits at offset ``s``
    (the bits of the dims before it), so every existing column keeps its bits below ``s`` and has those at or
    above ``s`` shifted up by ``n``; the new register columns are ``1 << (s + i)``.  The same layout as
    the new register bases appended to the nested bases and the layout rebuilt, which
    ``tests/test_fast_paths_codefast.py`` compares it with."""
    Lc = L.transpose_outs(_names(L.num_out_dims))
    sizes = _sizes(Lc)
    if not 0 <= dim < Lc.num_out_dims or sizes[dim] != 1:
        raise LayoutError(f"broadcast: input dim {dim} must exist and have size 1")
    n = log2(size)
    s = sum(x.bit_length() - 1 for x in sizes[:dim])
    low = (1 << s) - 1
    flat = [(c & low) | ((c >> s) << (s + n)) for c in Lc._flat] if n else list(Lc._flat)
    new = [1 << (s + i) for i in range(n)]
    ins = list(Lc._in)
    pos = 0
    for k, (d, bits) in enumerate(ins):
        if d == "register":
            nreg = bits
            pos += bits
            ins[k] = (d, bits + n)
            break
        pos += bits
    else:
        nreg = 0
        ins.append(("register", n))
    flat[pos:pos] = new
    sizes[dim] = size
    return (LinearLayout._raw(tuple(ins), tuple(zip(_names(len(sizes)), sizes)), tuple(flat)),
            list(range(nreg, nreg + n)))


def _broadcast_bwd(L: LinearLayout, dim: int) -> LinearLayout:
    Lc = L.transpose_outs(_names(L.num_out_dims))
    if not 0 <= dim < Lc.num_out_dims:
        raise LayoutError(f"broadcast backward: dim {dim} out of range")
    sizes = _sizes(Lc)
    sizes[dim] = 1
    return _rebuild({d: [[0 if k == dim else c for k, c in enumerate(x)] for x in bs] for d, bs in _bases(Lc).items()},
                    sizes)


def infer_shape_op(op: str, layout: LinearLayout, direction: str = "forward", **params: Any) -> ShapeOpPlan:
    """Infer the other side of ``op`` so that it is a no-op.

    ``direction="forward"``: ``layout`` is the operand's layout, the result's
    is inferred; ``"backward"``: ``layout`` is the result's.  Params:
    ``trans(perm)``, ``reshape(shape)`` (forward: new shape; backward: the
    operand's shape), ``join(reg_bit=0)``, ``split()``,
    ``expand_dims(axis)``, ``broadcast(dim, size)`` (``size`` forward only).
    """
    if op not in SHAPE_OPS:
        raise LayoutError(f"unknown shape op {op!r}; known: {', '.join(SHAPE_OPS)}")
    if direction not in ("forward", "backward"):
        raise LayoutError(f"direction must be 'forward' or 'backward', not {direction!r}")
    L = layout.transpose_outs(sorted(layout.out_dim_names, key=lambda n: int(n[3:]) if n[3:].isdigit() else 0))
    fwd = direction == "forward"
    meta: dict[str, Any] = {}
    if op == "trans":
        perm = [int(p) for p in params["perm"]]
        if fwd:
            ins, outs = (L,), (_trans(L, perm),)
        else:
            inv = [0] * len(perm)
            for i, p in enumerate(perm):
                inv[p] = i
            ins, outs = (_trans(L, inv),), (L,)
        params = {"perm": perm}
    elif op == "reshape":
        shape = [int(s) for s in params["shape"]]
        if fwd:
            ins, outs = (L,), (_reshape(L, shape),)
        else:
            ins, outs = (_reshape(L, shape),), (L,)
        params = {"shape": shape}
    elif op == "join":
        if fwd:
            j = int(params.get("reg_bit", 0))
            ins, outs = (L, L), (_join(L, j),)
        else:
            inner, j = _split(L)
            ins, outs = (inner, inner), (L,)
        meta["reg_bit"] = j
        params = {}
    elif op == "split":
        if fwd:
            half, j = _split(L)
            ins, outs = (L,), (half, half)
        else:
            j = int(params.get("reg_bit", 0))
            ins, outs = (_join(L, j),), (L, L)
        meta["reg_bit"] = j
        params = {}
    elif op == "expand_dims":
        axis = int(params["axis"])
        ins, outs = ((L,), (_expand(L, axis),)) if fwd else ((_squeeze(L, axis),), (L,))
        params = {"axis": axis}
    else:  # broadcast
        dim = int(params["dim"])
        if fwd:
            out, new_bits = _broadcast_fwd(L, dim, int(params["size"]))
            ins, outs = (L,), (out,)
            meta["dropped_reg_bits"] = new_bits
            params = {"dim": dim, "size": int(params["size"])}
        else:
            ins, outs = (_broadcast_bwd(L, dim),), (L,)
            meta["dropped_reg_bits"] = []
            params = {"dim": dim, "size": L.out_dim_size(f"dim{dim}")}
    return ShapeOpPlan(op, direction, params, tuple(ins), tuple(outs), meta)
