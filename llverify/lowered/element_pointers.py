"""The TTGIR's pointer tensor of a ``tt.load``, element by element: which global byte each element is loaded from.

A pointer tensor built from ``tt.splat`` of a kernel argument, ``tt.addptr``, ``tt.make_range``, ``tt.expand_dims``,
``tt.broadcast``, ``ttg.convert_layout``, dense integer constants and element-wise integer arithmetic has, at
element coordinate ``e``, a value that depends on ``e`` only (every one of these ops is defined element by
element, whatever the layout): ``ptr(e) = arg + esize * offset(e)``.  :func:`element_pointers` evaluates it at
given coordinates (numpy, exact integers: ``make_range`` at ``e`` is ``start + e[0]``, ``expand_dims`` drops
coordinate ``axis``, ``broadcast`` sets the broadcast dims' coordinates to 0, ``addptr`` adds ``esize *
offset``; 32-bit results must not wrap, else :class:`NotModelled`).

A non-constant scalar (a program id, a kernel argument, a scalar computed from them) is a *uniform unknown*
``u``: the same in every element.  It is carried symbolically as long as it only shifts the tensor (``x + u``,
``x - u``, ``(x + u) * c`` with ``c`` a constant tensor): the value is then ``v(e) + U`` with ``U`` one unknown for
all elements, ``v`` evaluated with the unknowns at 0, and the names in :attr:`Pointers.uniform`.  An unknown
multiplying a coordinate (a stride argument: ``row * K``) or under a non-linear op, a loop-carried tensor
(a scalar block argument, such as a loop's induction variable, is a uniform unknown), a masked load or any other op: :class:`NotModelled`.

Assumption, stated with every claim that uses uniform unknowns: the TTGIR's 32-bit offsets do not wrap for
the unknowns' values (then ``v(e) + U`` is exact).

Requires: ``coords`` an ``int64`` array ``[n, rank]`` of coordinates of the value's tensor type.
Postcondition: ``offsets[i] == offset(coords[i]) - U`` in bytes, for one ``U`` independent of ``i`` (0 when
``uniform`` is empty).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from llverify.ttgir.constants import integer_constant
from llverify.ttgir.layouts import element_bits
from llverify.ttgir.model import Function, Op, Region, Value

__all__ = ["NotModelled", "Pointers", "element_pointers", "definitions"]


class NotModelled(Exception):
    """A pointer tensor not evaluated element by element (the claim is then ``unknown`` with this reason)."""


@dataclass(frozen=True)
class Pointers:
    """Byte offsets from kernel argument ``base`` (an argument of the TTGIR function), per coordinate row."""

    base: str
    offsets: np.ndarray
    uniform: frozenset[str]


@dataclass(frozen=True)
class _Val:
    vals: np.ndarray          # int64 per coordinate row, the uniform unknowns at 0
    uniform: frozenset[str]   # names of the uniform unknowns added to it
    base: str | None = None   # a pointer: the kernel argument it points into (vals in bytes)
    esize: int = 0            # a pointer: bytes per element


_INT = re.compile(r"^i(\d+)$")
_SHIFTS = ("arith.addi", "arith.subi")
_EXACT = {"arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
          "arith.maxsi": np.maximum, "arith.minsi": np.minimum}


def definitions(region: Region, out: dict[str, Op] | None = None) -> dict[str, Op]:
    """Every SSA result name of ``region`` (nested regions too) -> the op defining it; a block argument ->
    the :class:`~llverify.ttgir.model.Value` it is (its type)."""
    out = {} if out is None else out
    for block in region.blocks:
        for arg in block.arguments:
            out[arg.name] = arg  # type: ignore[assignment]
        for op in block.ops:
            for r in op.results:
                out[r.name] = op
            for sub in op.regions:
                definitions(sub, out)
    return out


def element_pointers(fn: Function, name: str, coords: np.ndarray, defs: dict[str, Op] | None = None) -> Pointers:
    """The pointers of tensor ``name`` at ``coords`` (module docstring), or :class:`NotModelled`."""
    ev = _Evaluator(fn, definitions(fn.body) if defs is None else defs)
    v = ev.value(name, np.asarray(coords, dtype=np.int64))
    if v.base is None:
        raise NotModelled(f"{name} is not a pointer into a kernel argument")
    return Pointers(v.base, v.vals, v.uniform)


class _Evaluator:
    def __init__(self, fn: Function, defs: dict[str, Op]):
        self.fn, self.defs = fn, defs
        self.args = {a.name: a for a in fn.arguments}

    def value(self, name: str, coords: np.ndarray) -> _Val:
        n = coords.shape[0]
        if name in self.args:
            a = self.args[name]
            if a.type.kind == "ptr":
                return _Val(np.zeros(n, dtype=np.int64), frozenset(), name, _esize(a.type.element))
            return _Val(np.zeros(n, dtype=np.int64), frozenset([name]))
        op = self.defs.get(name)
        if isinstance(op, Value) and op.type.kind != "tensor" and _INT.match(op.type.element or op.type.text):
            # a scalar block argument (a loop's induction variable or scalar iter_arg): one value in all elements
            return _Val(np.zeros(n, dtype=np.int64), frozenset([name]))
        if op is None or isinstance(op, Value):
            raise NotModelled(f"{name} is a loop-carried tensor or block argument: not evaluated element by element")
        rtype = next(r.type for r in op.results if r.name == name)
        if rtype.kind != "tensor":
            return self._scalar(op, name, n)
        line = op.location.line
        k = op.name
        if k == "arith.constant":
            c = integer_constant(op)
            if c is None or not c.splat:
                raise NotModelled(f"the constant at line {line} is not a dense integer splat")
            return _Val(np.full(n, c.value, dtype=np.int64), frozenset())
        if k == "tt.make_range":
            return _Val(int(op.attr_int("start") or 0) + coords[:, 0], frozenset())
        if k == "tt.splat":
            return self.value(op.operands[0], coords)
        if k == "tt.expand_dims":
            axis = op.attr_int("axis")
            if axis is None:
                raise NotModelled(f"tt.expand_dims at line {line} without an axis")
            return self.value(op.operands[0], np.delete(coords, axis, axis=1))
        if k == "tt.broadcast":
            src = op.operand_types[0] if op.operand_types else None
            if src is None or len(src.shape) != coords.shape[1]:
                raise NotModelled(f"tt.broadcast at line {line}: operand shape not read")
            keep = np.array([s != 1 for s in src.shape], dtype=bool)
            return self.value(op.operands[0], np.where(keep[None, :], coords, 0))
        if k == "ttg.convert_layout":
            return self.value(op.operands[0], coords)
        if k == "tt.addptr":
            p, off = self.value(op.operands[0], coords), self.value(op.operands[1], coords)
            if p.base is None or off.base is not None:
                raise NotModelled(f"tt.addptr at line {line}: not a pointer plus an integer offset")
            _fits(off.vals, 64, line)
            return _Val(p.vals + off.vals * p.esize, p.uniform | off.uniform, p.base, p.esize)
        if k in ("arith.extsi", "arith.extui", "arith.index_cast"):
            v = self.value(op.operands[0], coords)
            if k == "arith.extui" and (v.uniform or np.any(v.vals < 0)):
                raise NotModelled(f"arith.extui at line {line} of a possibly negative value")
            return v
        if k in _SHIFTS or k in ("arith.muli", "arith.shli") or k in _EXACT or k in (
                "arith.divsi", "arith.remsi", "arith.divui", "arith.remui"):
            return self._binary(op, coords, rtype.element)
        raise NotModelled(f"{k} at line {line} in the pointer's computation is not evaluated element by element")

    def _scalar(self, op: Op, name: str, n: int) -> _Val:
        c = integer_constant(op)
        if c is not None and not c.splat:
            return _Val(np.full(n, c.value, dtype=np.int64), frozenset())
        if op.name == "tt.addptr":  # a scalar pointer moved by a scalar: the argument plus a uniform unknown
            p = self.value(op.operands[0], np.zeros((n, 0), dtype=np.int64))
            if p.base is None:
                raise NotModelled(f"tt.addptr at line {op.location.line}: not a pointer")
            return _Val(p.vals, p.uniform | {name}, p.base, p.esize)
        if any(r.type.kind == "ptr" for r in op.results):
            raise NotModelled(f"the scalar pointer {name} ({op.name} at line {op.location.line}) is not traced")
        return _Val(np.zeros(n, dtype=np.int64), frozenset([name]))  # a program id, an argument's arithmetic

    def _binary(self, op: Op, coords: np.ndarray, element: str) -> _Val:
        a, b = (self.value(x, coords) for x in op.operands[:2])
        line, k = op.location.line, op.name
        if a.base is not None or b.base is not None:
            raise NotModelled(f"{k} at line {line} of a pointer")
        m = _INT.match(element)
        width = int(m.group(1)) if m else 64

        def constant(v: _Val) -> bool:
            return not v.uniform and (v.vals.size == 0 or bool(np.all(v.vals == v.vals[0])))

        if k in _SHIFTS:
            r = _Val(a.vals + b.vals if k == "arith.addi" else a.vals - b.vals, a.uniform | b.uniform)
        elif k in ("arith.muli", "arith.shli"):
            if k == "arith.shli":
                if not constant(b) or np.any((b.vals < 0) | (b.vals >= width)):
                    raise NotModelled(f"arith.shli at line {line} by a non-constant or out-of-range amount")
                b = _Val(np.left_shift(np.int64(1), b.vals), frozenset())
            if (a.uniform and not constant(b)) or (b.uniform and not constant(a)):
                names = ", ".join(sorted(a.uniform | b.uniform))
                raise NotModelled(f"{k} at line {line} multiplies the coordinates by {names}, unknown (a stride "
                                  "argument or program id): not evaluated")
            r = _Val(a.vals * b.vals, a.uniform | b.uniform)
        else:
            if a.uniform or b.uniform:
                names = ", ".join(sorted(a.uniform | b.uniform))
                raise NotModelled(f"{k} at line {line} of {names}, unknown: not evaluated")
            if k in _EXACT:
                r = _Val(_EXACT[k](a.vals, b.vals), frozenset())
            else:
                if np.any(b.vals == 0) or (k.endswith("ui") and (np.any(a.vals < 0) or np.any(b.vals < 0))):
                    raise NotModelled(f"{k} at line {line} by zero or of negative values")
                q = np.abs(a.vals) // np.abs(b.vals) * np.sign(a.vals) * np.sign(b.vals)  # truncating division
                r = _Val(q if "div" in k else a.vals - q * b.vals, frozenset())
        _fits(r.vals, width, line)
        return r


def _fits(vals: np.ndarray, width: int, line: int) -> None:
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if vals.size and (int(vals.min()) < lo or int(vals.max()) > hi):
        raise NotModelled(f"the {width}-bit value at line {line} wraps")


def _esize(element: str) -> int:
    m = re.match(r"^!tt\.ptr<(\w+)", element)
    bits = element_bits(m.group(1)) if m else 0
    if not bits or bits % 8:
        raise NotModelled(f"a pointer to {element}: not byte-sized elements")
    return bits // 8
