"""The lowered code evaluated with Python integers at one thread (:class:`Concrete`): what every refutation is
replayed with.

The semantics are :mod:`llverify.lowered.decode`'s (poison is ``None``); independent of
:class:`~llverify.lowered.symbolic.Symbolic` and :class:`~llverify.lowered.vector.Threads`: it shares only the
parsing.
"""

from __future__ import annotations

from typing import Callable, Mapping

from llverify.lowered.decode import (CASTS, MIN_MAX, Decoded, Unmodelled, const_value, decoded, known_wave,
                                     lane_and_wave, reverse_bits)
from llverify.lowered.llir import LlirFunction, as_signed

__all__ = ["Concrete"]


class Concrete:
    """The same IR evaluated with Python integers at one thread (``tid``) and given free-variable values.

    Returns ``None`` for a poison value.  Independent of :class:`Symbolic`: it shares only the parsing."""

    def __init__(self, fn: LlirFunction, tid: int, frees: Mapping[str, int]) -> None:
        self.fn, self.tid, self.frees = fn, tid, frees
        self._memo: dict[tuple[str, int], int | None] = {}
        self._active: set[str] = set()

    def _phi(self, d: Decoded, tid: int) -> int | None:
        """The incoming value the phi's choice variable names (as :meth:`Symbolic._phi`); a loop-carried phi
        takes its own free value, or is unknown (None)."""
        key = d.extra[0]
        own = self.frees.get(f"{key}:{d.width}")
        if own is not None:
            return own
        choice = self.frees.get(f"{key}.choice:{max(1, (len(d.args) - 1).bit_length())}")
        if choice is None or key in self._active:
            return None
        self._active.add(key)
        try:
            return self.value(d.args[min(choice, len(d.args) - 1)], d.width, tid)
        finally:
            self._active.discard(key)

    def value(self, name: str, width: int, tid: int | None = None) -> int | None:
        tid = self.tid if tid is None else tid
        c = const_value(name, width)
        if c is not None:
            return c
        key = (name, tid)
        if key in self._memo:
            return self._memo[key]
        base, _, lane = name.partition("#")
        instr = self.fn.defs.get(base)
        free = self.frees.get(f"{name}:{width}")
        if name == "poison":
            v = None
        elif instr is None:
            v = free
        else:
            try:
                v = self._eval(decoded(instr, lane), tid)
            except Unmodelled:
                v = free
        if v is not None:
            v %= 1 << width
        self._memo[key] = v
        return v

    def _eval(self, d: Decoded, tid: int) -> int | None:
        w = d.width
        mask = (1 << w) - 1
        if d.op == "phi":
            return self._phi(d, tid)
        if d.op == "copy":
            return self.value(d.args[0], w, tid)
        if d.op == "reduce":
            acc = self.value(d.args[0], w, tid)
            for name in d.args[1:]:
                x = self.value(name, w, tid)
                if acc is None or x is None:
                    return None
                acc = _concrete_binary(d.extra[0], frozenset(), acc, x, w)
            return acc
        if d.op == "tid":
            return tid
        if d.op == "wave_id":
            return tid // known_wave(self.fn.wave)
        if d.op == "lane_of_warp":
            lane, warp = lane_and_wave(d, self.fn.wave)
            return self.value(d.args[0], 32, tid=(tid - tid % warp) + lane)
        if d.op in CASTS:
            a = self.value(d.args[0], d.extra[0], tid)
            if a is None:
                return None
            if d.op == "sext":
                a = as_signed(a, d.extra[0])
            return a & mask
        if d.op == "select":
            c = self.value(d.args[0], 1, tid)
            if c is None:
                return None
            return self.value(d.args[1] if c else d.args[2], w, tid)
        if d.op == "icmp":
            pred, aw = d.extra
            a, b = self.value(d.args[0], aw, tid), self.value(d.args[1], aw, tid)
            if a is None or b is None:
                return None
            sa, sb = as_signed(a, aw), as_signed(b, aw)
            table: dict[str, Callable[[], bool]] = {
                "eq": lambda: a == b, "ne": lambda: a != b, "ult": lambda: a < b, "ule": lambda: a <= b,
                "ugt": lambda: a > b, "uge": lambda: a >= b, "slt": lambda: sa < sb, "sle": lambda: sa <= sb,
                "sgt": lambda: sa > sb, "sge": lambda: sa >= sb}
            return int(table[pred]())
        if d.op == "getelementptr":
            size, iw = d.extra
            base, idx = self.value(d.args[0], 32, tid), self.value(d.args[1], iw, tid)
            if base is None or idx is None:
                return None
            return (base + as_signed(idx, iw) * size) & 0xFFFFFFFF
        if d.op in ("ptrtoint", "inttoptr"):
            return self.value(d.args[0], 32, tid)
        if d.op == "bitreverse":
            a = self.value(d.args[0], w, tid)
            return None if a is None else reverse_bits(a, w)
        a, b = self.value(d.args[0], w, tid), self.value(d.args[1], w, tid)
        if a is None or b is None:
            return None
        return _concrete_binary(d.op, d.flags, a, b, w)


def _concrete_binary(op: str, flags: frozenset[str], a: int, b: int, w: int) -> int | None:
    mask = (1 << w) - 1
    sa, sb = as_signed(a, w), as_signed(b, w)
    lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    if op in ("add", "sub", "mul"):
        exact_u = {"add": a + b, "sub": a - b, "mul": a * b}[op]
        exact_s = {"add": sa + sb, "sub": sa - sb, "mul": sa * sb}[op]
        if "nuw" in flags and not 0 <= exact_u <= mask:
            return None
        if "nsw" in flags and not lo <= exact_s <= hi:
            return None
        return exact_u & mask
    if op in ("shl", "lshr", "ashr"):
        if b >= w:
            return None
        if op == "shl":
            r = (a << b) & mask
            if "nuw" in flags and (r >> b) != a:
                return None
            if "nsw" in flags and (as_signed(r, w) >> b) != sa:
                return None
            return r
        r = (a >> b) if op == "lshr" else (sa >> b) & mask
        if "exact" in flags and ((r << b) & mask) != a:
            return None
        return r
    if op == "and":
        return a & b
    if op == "or":
        if "disjoint" in flags and a & b:
            return None
        return a | b
    if op == "xor":
        return a ^ b
    if op in ("udiv", "urem"):
        if b == 0 or ("exact" in flags and op == "udiv" and a % b):
            return None
        return a // b if op == "udiv" else a % b
    if op in ("sdiv", "srem"):
        if b == 0 or (sa == lo and sb == -1):
            return None
        q = abs(sa) // abs(sb) * (1 if (sa >= 0) == (sb >= 0) else -1)
        return (q if op == "sdiv" else sa - q * sb) & mask
    if op in MIN_MAX:
        x, y = (sa, sb) if op[0] == "s" else (a, b)
        return (a if (x < y) == op.endswith("min") else b)
    raise Unmodelled(op)
