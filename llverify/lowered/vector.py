"""LLVM integer semantics evaluated at every thread at once (numpy), for exhaustive proofs over thread ids.

:class:`Threads` evaluates an SSA value of a function at all ``threads`` thread ids in one pass: each value
is a vector ``vals[t]`` (``uint64``, reduced modulo ``2^width``) with a mask ``none[t]`` of the threads where it
is poison or depends on a free variable given no value (the scalar interpreter's ``None``), and the set of
free variables it depends on (the names :class:`~llverify.lowered.symbolic.Symbolic` gives them:
``%5:32`` for an unmodelled value, ``%4.choice:1`` for a join ``phi``'s choice).  Each value is computed
once per function and thread context (memoised by SSA name), however many accesses use it.

The semantics are those of :class:`~llverify.lowered.concrete.Concrete` (the LLVM language reference:
``nuw``/``nsw`` overflow, ``exact``, ``disjoint``, shifts past the width and division by zero are poison; a
``phi`` is the incoming value its choice variable names; the warp-id broadcast ``shfl.sync.idx(v, k)`` is
``v`` at lane ``k`` of the same warp), written again over arrays: an address whose free-variable set is
empty is a function of the thread id alone, so evaluating it here at every thread id is a complete
decision over the whole domain (``tests/test_lowered_vector.py`` checks it against the scalar interpreter
and against Z3 on every sample and on random code).

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k() {
...   %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
...   %2 = shl nuw nsw i32 %1, 4
...   %3 = xor i32 %2, 48
... }''').functions[0]
>>> v = Threads(fn, 4).value("%3", 32)
>>> v.vals.tolist(), bool(v.none.any()), sorted(v.free)
([48, 32, 16, 0], False, [])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from llverify.lowered.llir import LlirFunction, as_signed
from llverify.lowered.orbits import key_range, phi_range
from llverify.lowered.remainder import Reduction, reduction
from llverify.lowered.decode import Decoded, Unmodelled, const_value, decoded, known_wave, lane_and_wave

__all__ = ["Threads", "VecValue"]

_U = np.uint64


@dataclass(frozen=True)
class VecValue:
    """A value at every thread: ``vals`` (``uint64``, in ``[0, 2^width)``), ``none`` (poison, or a free
    variable without a value), ``free`` (the free variables it depends on)."""

    vals: np.ndarray
    none: np.ndarray
    free: frozenset[str]


def _mask(w: int) -> np.uint64:
    return _U((1 << w) - 1)


def _signed(a: np.ndarray, w: int) -> np.ndarray:
    """``a`` (``uint64`` in ``[0, 2^w)``) as signed ``int64`` two's complement of width ``w``."""
    s = a.astype(np.int64)  # two's complement reinterpretation for w == 64
    if w < 64:
        s = np.where(s >= (1 << (w - 1)), s - (1 << w), s)
    return s


def _py(a: np.ndarray) -> list[int]:
    return [int(x) for x in a.tolist()]


class Threads:
    """Values of ``fn`` at thread ids ``0 .. threads - 1`` with free variables ``frees`` (name -> value; a
    variable not given makes the threads that depend on it ``none``)."""

    def __init__(self, fn: LlirFunction, threads: int, frees: Mapping[str, int] | None = None) -> None:
        self.fn, self.threads, self.frees = fn, threads, dict(frees or {})
        self.tid = np.arange(threads, dtype=_U)
        self._memo: dict[tuple[str, int | None], VecValue] = {}  # keyed as the scalar interpreter
        self._active: set[str] = set()
        self._false = np.zeros(threads, dtype=bool)

    # -- leaves ---------------------------------------------------------------------------------------------
    def _const(self, c: int) -> VecValue:
        return VecValue(np.full(self.threads, c, dtype=_U), self._false, frozenset())

    def _free(self, name: str, width: int) -> VecValue:
        key = f"{name}:{width}"
        given = self.frees.get(key)
        if given is None:
            return VecValue(np.zeros(self.threads, dtype=_U), ~self._false, frozenset([key]))
        return VecValue(np.full(self.threads, given % (1 << width), dtype=_U), self._false, frozenset([key]))

    def value(self, name: str, width: int, sub: int | None = None) -> VecValue:
        """``name`` at width ``width`` (truncated or zero-extended as :class:`Symbolic` does), at every thread;
        ``sub``: the thread context of a warp broadcast (lane ``sub & 0xFFFF`` of a warp of ``sub >> 16``)."""
        c = const_value(name, width)
        if c is not None:
            return self._const(c)
        key = (name, sub)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        base, _, lane = name.partition("#")
        instr = self.fn.defs.get(base)
        if name == "poison":
            v = VecValue(np.zeros(self.threads, dtype=_U), ~self._false, frozenset())
        elif instr is None:
            v = self._free(name, width)
        else:
            red = reduction(self.fn, base, width) if not lane else None
            r = self._reduced(red, sub) if red is not None else None
            try:
                v = r if r is not None else self._eval(decoded(instr, lane), sub)
            except Unmodelled:
                v = self._free(name, width)
        v = VecValue(v.vals & _mask(width), v.none, v.free)
        self._memo[key] = v
        return v

    def _reduced(self, red: Reduction, sub: int | None) -> VecValue | None:
        """``urem v, C`` as the free variable ``red.key`` of domain ``[0, C)`` (:mod:`llverify.lowered.remainder`:
        sound and complete) when ``v`` is itself a free variable of its whole width: an argument, an unmodelled
        value or a loop-carried ``phi`` (not a counted one, whose few values are enumerated exactly), and not
        given a value here; None otherwise (the remainder is then evaluated as written)."""
        if red.base_key in self.frees:
            return None
        ins = self.fn.defs.get(red.base)
        if ins is not None and ins.opcode == "phi" and phi_range(self.fn, ins) is not None:
            return None
        if red.base_key not in self.value(red.base, red.width, sub).free:
            return None  # v is computed (from the thread id, or through poison-producing code): evaluated exactly
        given = self.frees.get(red.key)
        if given is None:
            return VecValue(np.zeros(self.threads, dtype=_U), ~self._false, frozenset([red.key]))
        return VecValue(np.full(self.threads, given % red.modulus, dtype=_U), self._false, frozenset([red.key]))

    # -- instructions ---------------------------------------------------------------------------------------
    def _phi(self, d: Decoded, sub: int | None) -> VecValue:
        key = d.extra[0]
        if key_range(self.fn, key) is not None:
            return self._free(key, d.width)  # a loop phi with a known range (llverify.lowered.loops, .orbits)
        if key in self._active:
            raise Unmodelled("a loop-carried value (phi)")
        self._active.add(key)
        try:
            vals = [self.value(a, d.width, sub) for a in d.args]
        finally:
            self._active.discard(key)
        ckey = f"{key}.choice:{max(1, (len(vals) - 1).bit_length())}"
        free = frozenset([ckey]).union(*(v.free for v in vals))
        own = self.frees.get(f"{key}:{d.width}")
        if own is not None:  # the scalar interpreter's rule: a phi given a value takes it
            return VecValue(np.full(self.threads, own % (1 << d.width), dtype=_U), self._false, free)
        choice = self.frees.get(ckey)
        if choice is None:
            return VecValue(np.zeros(self.threads, dtype=_U), ~self._false, free)
        pick = vals[min(choice, len(vals) - 1)]
        return VecValue(pick.vals, pick.none, free)

    def _eval(self, d: Decoded, sub: int | None) -> VecValue:
        w = d.width
        if d.op == "phi":
            return self._phi(d, sub)
        if d.op == "copy":
            return self.value(d.args[0], w, sub)
        if d.op in ("tid", "wave_id"):
            t = self.tid
            if sub is not None:
                warp, lane = sub >> 16, sub & 0xFFFF
                t = (self.tid & ~_U(warp - 1)) | _U(lane)
            if d.op == "wave_id":
                t = t // _U(known_wave(self.fn.wave))
            return VecValue(t, self._false, frozenset())
        if d.op == "lane_of_warp":
            lane, warp = lane_and_wave(d, self.fn.wave)
            return self.value(d.args[0], 32, warp << 16 | lane)
        if d.op == "reduce":
            acc = self.value(d.args[0], w, sub)
            for name in d.args[1:]:
                x = self.value(name, w, sub)
                r, p = _binary(d.extra[0], frozenset(), acc.vals, x.vals, w)
                acc = VecValue(r, acc.none | x.none | p, acc.free | x.free)
            return acc
        if d.op in ("zext", "sext", "trunc"):
            a = self.value(d.args[0], d.extra[0], sub)
            if d.op == "sext":
                w0 = d.extra[0]
                top = (a.vals >> _U(w0 - 1)) & _U(1)
                ext = _mask(w) & ~_mask(w0)
                return VecValue(np.where(top == 1, a.vals | ext, a.vals), a.none, a.free)
            return VecValue(a.vals & _mask(w), a.none, a.free)
        if d.op == "select":
            c = self.value(d.args[0], 1, sub)
            a, b = self.value(d.args[1], w, sub), self.value(d.args[2], w, sub)
            on = c.vals == 1
            return VecValue(np.where(on, a.vals, b.vals), c.none | np.where(on, a.none, b.none),
                            c.free | a.free | b.free)
        if d.op == "icmp":
            pred, aw = d.extra
            a, b = self.value(d.args[0], aw, sub), self.value(d.args[1], aw, sub)
            r = _compare(pred, a.vals, b.vals, aw)
            return VecValue(r.astype(_U), a.none | b.none, a.free | b.free)
        if d.op == "getelementptr":
            size, iw = d.extra
            base, idx = self.value(d.args[0], 32, sub), self.value(d.args[1], iw, sub)
            i64 = _signed(idx.vals, iw).astype(_U)  # two's complement modulo 2^64: exact modulo 2^32
            return VecValue((base.vals + i64 * _U(size)) & _mask(32), base.none | idx.none, base.free | idx.free)
        if d.op in ("ptrtoint", "inttoptr"):
            return self.value(d.args[0], 32, sub)
        if d.op == "bitreverse":
            a = self.value(d.args[0], w, sub)
            return VecValue(_reverse(a.vals, w), a.none, a.free)
        a, b = self.value(d.args[0], w, sub), self.value(d.args[1], w, sub)
        r, p = _binary(d.op, d.flags, a.vals, b.vals, w)
        return VecValue(r, a.none | b.none | p, a.free | b.free)


def _reverse(a: np.ndarray, w: int) -> np.ndarray:
    """``llvm.bitreverse.i<w>`` of every element: bit ``i`` moves to bit ``w - 1 - i``."""
    r = np.zeros(a.shape, dtype=_U)
    for i in range(w):
        r |= ((a >> _U(i)) & _U(1)) << _U(w - 1 - i)
    return r


def _compare(pred: str, a: np.ndarray, b: np.ndarray, w: int) -> np.ndarray:
    if pred in ("eq", "ne", "ult", "ule", "ugt", "uge"):
        x, y = a, b
    elif pred in ("slt", "sle", "sgt", "sge"):
        x, y = _signed(a, w), _signed(b, w)
    else:
        raise Unmodelled(f"icmp {pred}")
    table = {"eq": np.equal, "ne": np.not_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater,
             "uge": np.greater_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal}
    return table[pred](x, y)


def _exact(op: str, flags: frozenset[str], a: np.ndarray, b: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """``add sub mul`` with Python integers per thread (widths over 32, where int64 would overflow)."""
    lo, hi, mask = -(1 << (w - 1)), (1 << (w - 1)) - 1, (1 << w) - 1
    res, bad = [], []
    for x, y in zip(_py(a), _py(b)):
        sx, sy = as_signed(x, w), as_signed(y, w)
        u = x + y if op == "add" else x - y if op == "sub" else x * y
        s = sx + sy if op == "add" else sx - sy if op == "sub" else sx * sy
        bad.append(("nuw" in flags and not 0 <= u <= mask) or ("nsw" in flags and not lo <= s <= hi))
        res.append(u & mask)
    return np.array(res, dtype=_U), np.array(bad, dtype=bool)


def _divide(op: str, flags: frozenset[str], a: np.ndarray, b: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """``udiv urem sdiv srem`` with Python integers per thread (C-style truncation for the signed ones)."""
    lo, mask = -(1 << (w - 1)), (1 << w) - 1
    res, bad = [], []
    for x, y in zip(_py(a), _py(b)):
        sx, sy = as_signed(x, w), as_signed(y, w)
        if y == 0 or (op[0] == "s" and sx == lo and sy == -1) or (op == "udiv" and "exact" in flags and x % y):
            res.append(0)
            bad.append(True)
            continue
        if op[0] == "u":
            r = x // y if op == "udiv" else x % y
        else:
            q = abs(sx) // abs(sy) * (1 if (sx >= 0) == (sy >= 0) else -1)
            r = q if op == "sdiv" else sx - q * sy
        res.append(r & mask)
        bad.append(False)
    return np.array(res, dtype=_U), np.array(bad, dtype=bool)


def _binary(op: str, flags: frozenset[str], a: np.ndarray, b: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """``(result, poison)`` of a binary integer instruction on ``uint64`` vectors of width ``w``."""
    mask = _mask(w)
    none = np.zeros(a.shape, dtype=bool)
    if op in ("add", "sub", "mul"):
        if w > 32 and (flags & {"nuw", "nsw"}):
            return _exact(op, flags, a, b, w)
        r = (a + b if op == "add" else a - b if op == "sub" else a * b) & mask  # wraps modulo 2^64
        if flags & {"nuw", "nsw"}:  # w <= 32: exact in 64-bit integers
            ai, bi = a.astype(np.int64), b.astype(np.int64)
            sa, sb = _signed(a, w), _signed(b, w)
            if op == "mul":
                u = a * b  # < 2^64: exact in uint64
                if "nuw" in flags:
                    none = none | (u > mask)
                s = sa * sb
            else:
                u = ai + bi if op == "add" else ai - bi
                if "nuw" in flags:
                    none = none | (u < 0) | (u > int(mask))
                s = sa + sb if op == "add" else sa - sb
            if "nsw" in flags:
                none = none | (s < -(1 << (w - 1))) | (s > (1 << (w - 1)) - 1)
        return r, none
    if op in ("shl", "lshr", "ashr"):
        big = b >= _U(w)
        sh = np.where(big, _U(0), b)
        if op == "shl":
            r = (a << sh) & mask
            if "nuw" in flags:
                none = none | ((r >> sh) != a)
            if "nsw" in flags:
                none = none | ((_signed(r, w) >> sh.astype(np.int64)) != _signed(a, w))
        else:
            r = (a >> sh) if op == "lshr" else (_signed(a, w) >> sh.astype(np.int64)).astype(_U) & mask
            if "exact" in flags:
                none = none | (((r << sh) & mask) != a)
        return r, none | big
    if op == "and":
        return a & b, none
    if op == "or":
        return a | b, (none | ((a & b) != 0)) if "disjoint" in flags else none
    if op == "xor":
        return a ^ b, none
    if op in ("udiv", "urem", "sdiv", "srem"):
        return _divide(op, flags, a, b, w)
    if op in ("smin", "smax", "umin", "umax"):
        x, y = (_signed(a, w), _signed(b, w)) if op[0] == "s" else (a, b)
        lt = x < y
        return (np.where(lt, a, b) if op.endswith("min") else np.where(lt, b, a)), none
    raise Unmodelled(op)
