"""The lowered code's values as Z3 bit-vector terms of the thread id (:class:`Symbolic`).

Each SSA value of a function becomes a term of ``tid`` (``0 <= tid < threads``) and of free variables, with
its poison condition, following the LLVM semantics of :mod:`llverify.lowered.decode` (which instructions,
which flags make poison, the warp broadcast, a join ``phi``'s choice variable).  Obligations are claims "for
every thread and every value of the free variables"; :class:`~llverify.lowered.concrete.Concrete` evaluates
the same IR with Python integers and replays every refutation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from llverify.lowered.decode import (CASTS, MIN_MAX, Decoded, Unmodelled, const_value, decoded, known_wave,
                                     lane_and_wave)
from llverify.lowered.llir import Instr, LlirFunction
from llverify.lowered.loops import CountedPhi, counted_phi

__all__ = ["Symbolic", "SymValue", "tid_sub_term", "reverse_term"]


@dataclass(frozen=True)
class SymValue:
    term: z3.BitVecRef
    poison: z3.BoolRef
    free: frozenset[str]


class Symbolic:
    """Z3 terms of a function's values (memoised), with the poison condition and the free variables used."""

    def __init__(self, fn: LlirFunction, threads: int,
                 phi_range: Callable[[LlirFunction, Instr], CountedPhi | None] = counted_phi,
                 lane_range: Callable[[LlirFunction, Instr, int], CountedPhi | None] | None = None) -> None:
        self.fn = fn
        self.phi_range = phi_range  # the range of a loop phi, or None (llverify.lowered.loops, .orbits)
        self.lane_range = lane_range  # the range of a lane of a vector loop phi (llverify.lowered.orbits)
        self.tid = z3.BitVec("tid", 32)
        self.threads = threads
        self.frees: dict[str, tuple[z3.BitVecRef, str]] = {}
        self._memo: dict[tuple[str, int | None], SymValue] = {}
        self._active: set[str] = set()  # phis whose incoming values are being built (loop detection)
        self.ranges: dict[str, CountedPhi] = {}  # free variable -> its range (counted loops' phis)

    def _free(self, name: str, width: int, why: str) -> SymValue:
        key = f"{name}:{width}"
        if key not in self.frees:
            self.frees[key] = (z3.BitVec(key, width), why)
        return SymValue(self.frees[key][0], z3.BoolVal(False), frozenset([key]))

    def _phi(self, d: Decoded, tid_sub: int | None) -> SymValue:
        """A join of control flow: one of the incoming values, which one a free *choice* variable says (the
        claim must hold whichever predecessor ran).  A phi reached again while its incomings are being built
        is loop-carried: :meth:`value` makes it a free variable instead (any value: sound)."""
        key = d.extra[0]
        base, _, lane = key.partition("#")
        ins = self.fn.defs.get(base)
        if ins is None:
            counted = None
        elif lane:  # a lane of a vector phi: its own orbit, where the caller gives lane ranges
            counted = self.lane_range(self.fn, ins, int(lane)) if self.lane_range is not None else None
        else:
            counted = self.phi_range(self.fn, ins)
        if counted is not None:  # a counted loop's induction variable: one free variable with its range
            self.ranges[f"{key}:{d.width}"] = counted
            return self._free(key, d.width, f"a loop phi of known range, in [{counted.lo}, {counted.hi})")
        if key in self._active:
            raise Unmodelled("a loop-carried value (phi)")
        self._active.add(key)
        try:
            vals = [self.value(a, d.width, tid_sub) for a in d.args]
        finally:
            self._active.discard(key)
        choice = self._free(f"{key}.choice", max(1, (len(vals) - 1).bit_length()),
                            "which predecessor a phi's value came from")
        term, poison = vals[-1].term, vals[-1].poison
        for k in range(len(vals) - 2, -1, -1):
            term = z3.If(choice.term == k, vals[k].term, term)
            poison = z3.If(choice.term == k, vals[k].poison, poison)
        free = choice.free.union(*(v.free for v in vals))
        return SymValue(term, poison, free)

    def domain(self, frees: frozenset[str]) -> list:
        """Z3 constraints on the free variables ``frees`` that have a known range (counted loops' phis)."""
        out = []
        for f in sorted(frees):
            r = self.ranges.get(f)
            if r is not None:
                var = self.frees[f][0]
                lo, hi = z3.BitVecVal(r.lo, r.width), z3.BitVecVal(r.hi - 1, r.width)
                out.append(z3.And(lo <= var, var <= hi) if r.signed else z3.And(z3.ULE(lo, var), z3.ULE(var, hi)))
        return out

    def value(self, name: str, width: int, tid_sub: int | None = None) -> SymValue:
        c = const_value(name, width)
        if c is not None:
            return SymValue(z3.BitVecVal(c, width), z3.BoolVal(False), frozenset())
        key = (name, tid_sub)
        if key in self._memo:
            return self._memo[key]
        base, _, lane = name.partition("#")
        instr = self.fn.defs.get(base)
        if name == "poison":
            v = SymValue(z3.BitVecVal(0, width), z3.BoolVal(True), frozenset())
        elif instr is None:
            v = self._free(name, width, "a kernel argument or global")
        else:
            try:
                v = self._eval(decoded(instr, lane), tid_sub)
            except Unmodelled as exc:
                why = "a loop-carried value (phi)" if instr.opcode == "phi" else f"unmodelled: {exc}"
                v = self._free(name, width, why)
        if v.term.size() != width:
            v = SymValue(z3.Extract(width - 1, 0, v.term) if v.term.size() > width else z3.ZeroExt(width - v.term.size(), v.term),
                         v.poison, v.free)
        self._memo[key] = v
        return v

    def _eval(self, d: Decoded, tid_sub: int | None) -> SymValue:
        w = d.width
        if d.op == "phi":
            return self._phi(d, tid_sub)
        if d.op == "copy":
            return self.value(d.args[0], w, tid_sub)
        if d.op == "reduce":
            acc = self.value(d.args[0], w, tid_sub)
            for name in d.args[1:]:
                x = self.value(name, w, tid_sub)
                term, poison = _binary(d.extra[0], frozenset(), acc.term, x.term, w)
                acc = SymValue(term, z3.Or(acc.poison, x.poison, poison), acc.free | x.free)
            return acc
        if d.op in ("tid", "wave_id"):
            t = self.tid if tid_sub is None else tid_sub_term(self.tid, tid_sub)
            if d.op == "wave_id":
                t = z3.UDiv(t, z3.BitVecVal(known_wave(self.fn.wave), 32))
            return SymValue(t, z3.BoolVal(False), frozenset())
        if d.op == "lane_of_warp":
            lane, warp = lane_and_wave(d, self.fn.wave)
            return self.value(d.args[0], 32, tid_sub=_encode_sub((warp, lane)))
        if d.op in CASTS:
            a = self.value(d.args[0], d.extra[0], tid_sub)
            if d.op == "trunc":
                return SymValue(z3.Extract(w - 1, 0, a.term), a.poison, a.free)
            ext = z3.ZeroExt if d.op == "zext" else z3.SignExt
            return SymValue(ext(w - d.extra[0], a.term), a.poison, a.free)
        if d.op == "select":
            c = self.value(d.args[0], 1, tid_sub)
            a, b = self.value(d.args[1], w, tid_sub), self.value(d.args[2], w, tid_sub)
            return SymValue(z3.If(c.term == 1, a.term, b.term), z3.Or(c.poison, z3.If(c.term == 1, a.poison, b.poison)),
                            c.free | a.free | b.free)
        if d.op == "icmp":
            pred, aw = d.extra
            a, b = self.value(d.args[0], aw, tid_sub), self.value(d.args[1], aw, tid_sub)
            cmp = {"eq": a.term == b.term, "ne": a.term != b.term, "ult": z3.ULT(a.term, b.term),
                   "ule": z3.ULE(a.term, b.term), "ugt": z3.UGT(a.term, b.term), "uge": z3.UGE(a.term, b.term),
                   "slt": a.term < b.term, "sle": a.term <= b.term, "sgt": a.term > b.term, "sge": a.term >= b.term}
            if pred not in cmp:
                raise Unmodelled(f"icmp {pred}")
            return SymValue(z3.If(cmp[pred], z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)), z3.Or(a.poison, b.poison),
                            a.free | b.free)
        if d.op == "getelementptr":
            size, iw = d.extra
            base = self.value(d.args[0], 32, tid_sub)
            idx = self.value(d.args[1], iw, tid_sub)
            i32 = z3.Extract(31, 0, idx.term) if iw > 32 else (z3.SignExt(32 - iw, idx.term) if iw < 32 else idx.term)
            return SymValue(base.term + i32 * size, z3.Or(base.poison, idx.poison), base.free | idx.free)
        if d.op in ("ptrtoint", "inttoptr"):
            return self.value(d.args[0], 32, tid_sub)
        if d.op == "bitreverse":
            a = self.value(d.args[0], w, tid_sub)
            return SymValue(reverse_term(a.term), a.poison, a.free)
        a, b = self.value(d.args[0], w, tid_sub), self.value(d.args[1], w, tid_sub)
        term, poison = _binary(d.op, d.flags, a.term, b.term, w)
        return SymValue(term, z3.Or(a.poison, b.poison, poison), a.free | b.free)


def reverse_term(a: z3.BitVecRef) -> z3.BitVecRef:
    """``llvm.bitreverse`` as a Z3 term: the concatenation of ``a``'s bits from bit 0 (the new most significant
    bit) up to bit ``w - 1`` (the new least significant one)."""
    w = a.size()
    return a if w == 1 else z3.Concat(*[z3.Extract(i, i, a) for i in range(w)])


def _encode_sub(sub: tuple[int, int]) -> int:
    warp, lane = sub
    return warp << 16 | lane


def tid_sub_term(tid: z3.BitVecRef, code: int) -> z3.BitVecRef:
    warp, lane = code >> 16, code & 0xFFFF
    return (tid & ~z3.BitVecVal(warp - 1, 32)) | lane


def _binary(op: str, flags: frozenset[str], a: z3.BitVecRef, b: z3.BitVecRef, w: int) -> tuple[z3.BitVecRef, z3.BoolRef]:
    f = z3.BoolVal(False)
    poison: list[z3.BoolRef] = []
    if op == "add":
        r = a + b
        if "nuw" in flags:
            poison.append(z3.Not(z3.BVAddNoOverflow(a, b, False)))
        if "nsw" in flags:
            poison.append(z3.Not(z3.And(z3.BVAddNoOverflow(a, b, True), z3.BVAddNoUnderflow(a, b))))
    elif op == "sub":
        r = a - b
        if "nuw" in flags:
            poison.append(z3.ULT(a, b))
        if "nsw" in flags:
            poison.append(z3.Not(z3.And(z3.BVSubNoOverflow(a, b), z3.BVSubNoUnderflow(a, b, True))))
    elif op == "mul":
        r = a * b
        if "nuw" in flags:
            poison.append(z3.Not(z3.BVMulNoOverflow(a, b, False)))
        if "nsw" in flags:
            poison.append(z3.Not(z3.And(z3.BVMulNoOverflow(a, b, True), z3.BVMulNoUnderflow(a, b))))
    elif op in ("shl", "lshr", "ashr"):
        poison.append(z3.UGE(b, w))
        if op == "shl":
            r = a << b
            if "nuw" in flags:
                poison.append(z3.LShR(r, b) != a)
            if "nsw" in flags:
                poison.append(r >> b != a)
        else:
            r = z3.LShR(a, b) if op == "lshr" else a >> b
            if "exact" in flags:
                poison.append((r << b) != a)
    elif op == "and":
        r = a & b
    elif op == "or":
        r = a | b
        if "disjoint" in flags:
            poison.append((a & b) != 0)
    elif op == "xor":
        r = a ^ b
    elif op in ("udiv", "urem"):
        r = z3.UDiv(a, b) if op == "udiv" else z3.URem(a, b)
        poison.append(b == 0)  # immediate UB in LLVM: never "proved" through it
        if op == "udiv" and "exact" in flags:
            poison.append(z3.URem(a, b) != 0)
    elif op in ("sdiv", "srem"):
        r = a / b if op == "sdiv" else z3.SRem(a, b)
        poison.append(z3.Or(b == 0, z3.And(a == z3.BitVecVal(1 << (w - 1), w), b == z3.BitVecVal(-1, w))))
    elif op in MIN_MAX:
        lt = a < b if op[0] == "s" else z3.ULT(a, b)
        r = z3.If(lt, a, b) if op.endswith("min") else z3.If(lt, b, a)
    else:
        raise Unmodelled(op)
    return r, z3.Or(*poison) if poison else f
