"""Hardware layouts for the GPU suite: `llverify.hw.build` when it exists, else a small local copy.

The harness needs a handful of Triton layouts (blocked, NVIDIA mma v2/v3 and
their dot operands, slices, swizzled shared).  The zoo proper lives in
:mod:`llverify.hw`; :func:`build` calls ``llverify.hw.build(kind, shape,
**params)`` when that function exists and otherwise builds the layout here,
from the construction rules written down in ``triton-conventions.md``
("Hardware layouts").  A test compares the two wherever both exist, so the
local copy can never silently drift from the zoo.

Parents (for ``dot_operand`` and ``slice``) are given as :class:`Spec` values,
because Triton builds a parent on a shape of its own (the slice's parent on
the shape with a 1 inserted).

Example: ``build("blocked", (16, 16), size_per_thread=(1, 4),
threads_per_warp=(8, 4), warps_per_cta=(2, 1), order=(1, 0))`` maps
``register`` bit 0 to ``(0, 1)`` and ``lane`` bit 2 to ``(1, 0)``.  Parameter
names are the zoo's: ``nvidia_mma(version, warps_per_cta, instr_shape)``,
``dot_operand(operand_index, parent, k_width)``, ``slice(dim, parent)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["Spec", "build", "build_local", "describe"]


@dataclass(frozen=True)
class Spec:
    """A hardware layout kind with its Gluon-style parameters (no shape)."""

    kind: str
    params: tuple[tuple[str, Any], ...] = field(default=())

    @staticmethod
    def of(kind: str, **params: Any) -> "Spec":
        return Spec(kind, tuple(sorted((k, _freeze(v)) for k, v in params.items())))

    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


def _freeze(v: Any) -> Any:
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    return v


def describe(spec: Spec) -> str:
    """Short human name: ``blocked[1,4|8,4|4,1|1,0]``, ``mma2[2,2]``, ``dot0(mma2[2,2],k2)``."""
    p = spec.kwargs()
    if spec.kind == "blocked":
        return "blocked[{}|{}|{}|{}]".format(*(",".join(map(str, p[k])) for k in
                                               ("size_per_thread", "threads_per_warp", "warps_per_cta", "order")))
    if spec.kind == "nvidia_mma":
        return f"mma{p['version']}[{','.join(map(str, p['warps_per_cta']))}]" + (
            f"n{p['instr_shape'][1]}" if p["version"] == 3 else "")
    if spec.kind == "dot_operand":
        return f"dot{p['operand_index']}({describe(p['parent'])},k{p['k_width']})"
    if spec.kind == "slice":
        return f"slice{p['dim']}({describe(p['parent'])})"
    if spec.kind == "swizzled_shared":
        return f"swz[{p['vec']},{p['per_phase']},{p['max_phase']}]"
    return spec.kind


# -- a tiny builder mirroring Triton's product of 1-D layouts ------------------
class _B:
    """Bases per in dim as coordinate dicts; out dims kept in first-use order."""

    def __init__(self) -> None:
        self.ins: dict[str, list[dict[str, int]]] = {}
        self.outs: dict[str, int] = {}

    def ident(self, n: int, ind: str, outd: str) -> "_B":
        size = self.outs.get(outd, 1)
        bs = self.ins.setdefault(ind, [])
        k = 1
        while k < n:
            bs.append({outd: size * k})
            k *= 2
        self.outs[outd] = size * max(n, 1)
        return self

    def zeros(self, n: int, ind: str, outd: str) -> "_B":
        self.outs.setdefault(outd, 1)
        bs = self.ins.setdefault(ind, [])
        k = 1
        while k < n:
            bs.append({})
            k *= 2
        return self

    def finish(self, shape: Sequence[int], drop_zero_regs: bool) -> LinearLayout:
        """Triton's combine with a trivial CGA: grow along register/offset, then clip to the shape."""
        first = next(iter(self.ins))
        for d in list(self.outs):
            idx = int(d[3:])
            while self.outs[d] < shape[idx]:
                self.ins[first].append({d: self.outs[d]})
                self.outs[d] *= 2
        for d in (f"dim{i}" for i in range(len(shape))):
            self.outs.setdefault(d, 1)
        self.ins.setdefault("register" if first == "register" else first, [])
        names = [f"dim{i}" for i in range(len(shape))]
        bases: list[tuple[str, list[tuple[int, ...]]]] = []
        for ind, bs in self.ins.items():
            rows = []
            for b in bs:
                coord = tuple(b.get(n, 0) if b.get(n, 0) < shape[i] else 0 for i, n in enumerate(names))
                if drop_zero_regs and ind == "register" and not any(coord):
                    continue
                rows.append(coord)
            bases.append((ind, rows))
        if first == "register":
            for extra in ("lane", "warp", "block"):
                if extra not in self.ins:
                    bases.append((extra, []))
        else:
            bases.append(("block", []))
        return LinearLayout(bases, [(n, shape[i]) for i, n in enumerate(names)])


def _ident_nd(b: _B, ind: str, sizes: Sequence[int], order: Sequence[int]) -> None:
    for d in order:
        b.ident(sizes[d], ind, f"dim{d}")


def _blocked(shape: Sequence[int], size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
             warps_per_cta: Sequence[int], order: Sequence[int]) -> LinearLayout:
    if len({len(shape), len(size_per_thread), len(threads_per_warp), len(warps_per_cta), len(order)}) != 1:
        raise LayoutError("blocked: shape, size_per_thread, threads_per_warp, warps_per_cta and order need one entry per dim")
    b = _B()
    _ident_nd(b, "register", size_per_thread, order)
    _ident_nd(b, "lane", threads_per_warp, order)
    _ident_nd(b, "warp", warps_per_cta, order)
    return b.finish(shape, drop_zero_regs=True)


def _mma_tile(version_major: int, instr_shape: Sequence[int]) -> tuple[int, int]:
    if version_major == 2:
        return instr_shape[-2], instr_shape[-1]
    if version_major == 3:
        return 16, instr_shape[1]
    raise LayoutError(f"nvidia_mma: version_major must be 2 or 3, got {version_major}")


def _mma(shape: Sequence[int], version: int, warps_per_cta: Sequence[int],
         instr_shape: Sequence[int]) -> LinearLayout:
    version_major = version
    r = len(shape)
    if r != 2:
        raise LayoutError("nvidia_mma: the local zoo supports rank-2 shapes only")
    m, n = _mma_tile(version_major, instr_shape)
    N, M = f"dim{r - 1}", f"dim{r - 2}"
    b = _B()
    b.outs[N] = 1
    b.outs[M] = 1
    b.ident(2, "register", N)
    b.ident(4, "lane", N).ident(8, "lane", M)
    b.ident(m // 8, "register", M).ident(n // 8, "register", N)
    warp_order = [r - 1, r - 2] if version_major == 2 else [r - 2, r - 1]
    _ident_nd(b, "warp", warps_per_cta, warp_order)
    return b.finish(shape, drop_zero_regs=False)


def _dot_operand(shape: Sequence[int], operand_index: int, parent: Spec, k_width: int) -> LinearLayout:
    op_idx = operand_index
    p = parent.kwargs()
    if parent.kind != "nvidia_mma":
        raise LayoutError("dot_operand: the local zoo supports an nvidia_mma parent only")
    r = len(shape)
    version = p["version"]
    if version == 3 and op_idx != 0:
        raise LayoutError("dot_operand: mma v3 has a register operand for A (op_idx 0) only")
    instr_m = 16 if version == 3 else p["instr_shape"][-2]
    mult = 4 if instr_m == 8 else 8
    kd, nkd = (r - 1, r - 2) if op_idx == 0 else (r - 2, r - 1)
    tile = {kd: k_width * mult, nkd: instr_m if op_idx == 0 else 8}
    K, NK = f"dim{kd}", f"dim{nkd}"
    b = _B()
    b.outs[K] = 1
    b.outs[NK] = 1
    b.ident(k_width, "register", K)
    b.ident(4, "lane", K).ident(8, "lane", NK)
    b.ident(tile[nkd] // 8, "register", NK)
    b.ident(tile[kd] // (4 * k_width), "register", K)
    warp_order = [r - 1, r - 2] if version == 2 else [r - 2, r - 1]
    for d in warp_order:
        if d == kd:
            b.zeros(p["warps_per_cta"][d], "warp", K)
        else:
            b.ident(p["warps_per_cta"][d], "warp", f"dim{d}")
    return b.finish(shape, drop_zero_regs=False)


def _slice(shape: Sequence[int], dim: int, parent: Spec) -> LinearLayout:
    pshape = list(shape[:dim]) + [1] + list(shape[dim:])
    par = build_local(parent.kind, pshape, **parent.kwargs())
    keep = [i for i in range(len(pshape)) if i != dim]
    bases = []
    for ind, bs in par.bases.items():
        rows = [tuple(b[i] for i in keep) for b in bs]
        if ind == "register":
            rows = [x for x in rows if any(x)]
        bases.append((ind, rows))
    return LinearLayout(bases, [(f"dim{j}", pshape[i]) for j, i in enumerate(keep)])


def _swizzled_shared(shape: Sequence[int], vec: int, per_phase: int, max_phase: int,
                     order: Sequence[int]) -> LinearLayout:
    if len(shape) != 2:
        raise LayoutError("swizzled_shared: the local zoo supports rank-2 shapes only")
    col, row = order[0], order[1]
    ncols, nrows = shape[col], shape[row]
    bases: list[tuple[int, ...]] = []
    k = 1
    while k < ncols:
        c = [0, 0]
        c[col] = k
        bases.append(tuple(c))
        k *= 2
    k = 1
    while k < nrows:
        c = [0, 0]
        c[row] = k
        c[col] = (vec * ((k // per_phase) % max_phase)) % ncols
        bases.append(tuple(c))
        k *= 2
    return LinearLayout([("offset", bases), ("block", [])], [("dim0", shape[0]), ("dim1", shape[1])])


_LOCAL = {
    "blocked": _blocked,
    "nvidia_mma": _mma,
    "dot_operand": _dot_operand,
    "slice": _slice,
    "swizzled_shared": _swizzled_shared,
}


def build_local(kind: str, shape: Sequence[int], **params: Any) -> LinearLayout:
    """Build with the local rules (no :mod:`llverify.hw`); raises LayoutError on unknown kinds."""
    if kind not in _LOCAL:
        raise LayoutError(f"unknown layout kind '{kind}' (the harness knows {sorted(_LOCAL)})")
    return _LOCAL[kind](tuple(shape), **params)


def _hw_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parents as layouts-to-be for `llverify.hw.build`: Spec -> (kind, params) mapping."""
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, Spec):
            out[k] = {"kind": v.kind, **_hw_params(v.kwargs())}
        elif isinstance(v, tuple):
            out[k] = list(v)
        else:
            out[k] = v
    return out


def build(kind: str, shape: Sequence[int], **params: Any) -> LinearLayout:
    """``llverify.hw.build(kind, shape, **params)`` if the zoo provides it, else :func:`build_local`."""
    try:
        from llverify import hw  # noqa: PLC0415  (lazy: the zoo lands in parallel)
        hw_build = getattr(hw, "build", None)
    except ImportError:  # pragma: no cover
        hw_build = None
    if hw_build is not None:
        return hw_build(kind, list(shape), **_hw_params(params))
    return build_local(kind, shape, **params)
