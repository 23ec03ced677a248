"""LLVM integer semantics, twice: as Z3 bit-vector terms and as a concrete interpreter.

Both follow the LLVM language reference for the instructions Triton's lowering uses on shared-memory
addresses: ``add sub mul shl lshr ashr and or xor udiv sdiv urem srem`` with their flags (``nuw``/``nsw``
overflow, ``exact`` with a non-zero remainder, ``disjoint`` with common bits, a shift by at least the
width: each makes the result *poison*), ``zext sext trunc``, ``select``, ``icmp``, ``getelementptr`` (the
index times the element size), ``ptrtoint`` / ``inttoptr``, ``llvm.smin/smax/umin/umax``; integer vectors
as their lanes (``%v#k``: ``insertelement``, ``extractelement``, ``shufflevector``, element-wise ops and casts
with constant or ``splat`` vectors, ``llvm.vector.reduce.or/and/xor/add``), as LLVM's SLP vectoriser
leaves address code.  Inputs:

* ``tid``: ``llvm.nvvm.read.ptx.sreg.tid.x`` / ``llvm.amdgcn.workitem.id.x``, ``0 <= tid < threads``;
* the warp id broadcast Triton computes with ``llvm.nvvm.shfl.sync.idx.i32(-1, v, k, 31)``: ``v`` as lane
  ``k`` of the same warp computes it (``tid`` replaced by ``tid & ~31 | k``); ``llvm.amdgcn.readfirstlane``:
  lane 0 of the wave (every lane active, as in Triton's straight-line address code);
* a ``phi`` joining control flow is one of its incoming values, chosen by a free *choice* variable (the
  claim must hold whichever predecessor ran); a ``phi`` reached again while its incomings are built is
  loop-carried and, like every other value we cannot compute (block ids, kernel arguments, loads, unknown
  instructions), a *free variable*: a claim must hold for all its values; the variable records why it is free.

Pointers into shared memory are byte offsets from ``@global_smem`` (whose shared-window address is 0).

:class:`Symbolic` builds the terms; :class:`Concrete` evaluates the same IR with Python integers (no Z3)
and is what every refutation is replayed with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Mapping

from llverify.lowered.llir import Instr, LlirFunction, as_signed, split_args
from llverify.lowered.loops import CountedPhi, counted_phi


class _Z3:
    """Z3, imported on first use: :class:`Concrete` (what the GPU machine's analysis runs, without z3) never
    touches it; :class:`Symbolic` does."""

    def __getattr__(self, name: str):  # noqa: ANN204 - forwards to the z3 module
        import z3 as module

        return getattr(module, name)


z3 = _Z3()

__all__ = ["Symbolic", "Concrete", "SymValue", "Unmodelled", "Decoded", "decode", "decoded", "const_value", "element_bytes",
           "INTEGER_OPCODES", "LANE_MOVES", "PURE_INTEGER"]

_INT = re.compile(r"^-?\d+$")
_BIN = ("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem", "srem")
_CASTS = ("zext", "sext", "trunc")
_MIN_MAX = ("smin", "smax", "umin", "umax")
#: Opcodes of the integer instructions both interpreters evaluate as a function of their operands alone, each
#: decoded as an operation of the same name: the binary operations, the casts, ``select`` and ``icmp``.
INTEGER_OPCODES = frozenset(_BIN + _CASTS + ("select", "icmp"))
#: Opcodes that move vector lanes: a lane of their value decodes to ``copy`` of one operand lane.
LANE_MOVES = frozenset({"extractelement", "insertelement", "shufflevector"})
#: Decoded operations that compute an integer from their operands alone: those of :data:`INTEGER_OPCODES`, a
#: lane move's ``copy`` and the ``llvm.smin/smax/umin/umax`` intrinsics (not the thread id, a warp broadcast,
#: a ``phi``, a pointer computation or a reduction).
PURE_INTEGER = INTEGER_OPCODES | {"copy"} | frozenset(_MIN_MAX)
_FLAGS = {"nuw", "nsw", "exact", "disjoint", "nneg"}
_ELEM = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "half": 2, "bfloat": 2, "float": 4, "double": 8, "i1": 1}


class Unmodelled(Exception):
    """An instruction form the semantics does not cover (the value becomes a free variable)."""


def element_bytes(t: str) -> int:
    """Bytes one step of a single-index ``getelementptr`` over element type ``t`` advances.

    Scalars, vectors ``<N x T>`` and arrays ``[N x T]`` (nested too: Triton 3.9 indexes byte arrays,
    ``getelementptr [4 x i8], ptr %p, i64 %i`` advances 4 bytes per step).  Anything else is unmodelled.

    >>> element_bytes("half"), element_bytes("<4 x i32>"), element_bytes("[4 x i8]"), element_bytes("[2 x [4 x half]]")
    (2, 16, 4, 16)
    """
    t = t.strip()
    m = re.match(r"^<(\d+)\s*x\s*(\w+)>$", t)
    if m and m.group(2) in _ELEM:
        return int(m.group(1)) * _ELEM[m.group(2)]
    m = re.match(r"^\[(\d+)\s*x\s*(.+)\]$", t)
    if m:
        return int(m.group(1)) * element_bytes(m.group(2))
    if t in _ELEM:
        return _ELEM[t]
    raise Unmodelled(f"getelementptr over element type {t!r}")


def _width(t: str) -> int:
    t = t.strip()
    if t == "ptr" or t.startswith("ptr "):
        return 32
    m = re.match(r"^i(\d+)$", t)
    if not m:
        raise Unmodelled(f"type {t!r}")
    return int(m.group(1))


@dataclass(frozen=True)
class Decoded:
    """An instruction in a form both interpreters share (parsed once)."""

    op: str
    width: int
    flags: frozenset[str]
    args: tuple[str, ...]
    extra: tuple = ()


_CONST_GEP = re.compile(r"getelementptr\s*(?:inbounds\s+|nuw\s+|nusw\s+)*\(\s*([\w<> \[\]]+?),\s*ptr addrspace\(3\)\s+"
                        r"@global_smem,\s*i\d+\s+(-?\d+)\s*\)")


def _fold_constant_geps(body: str) -> str:
    """``getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096)`` -> ``4096`` (a constant offset)."""
    return _CONST_GEP.sub(lambda m: str(int(m.group(2)) * element_bytes(m.group(1))), body)


@lru_cache(maxsize=1 << 16)
def decode(instr: Instr) -> Decoded:
    """Parse an instruction's body into a :class:`Decoded`, or raise :class:`Unmodelled` (memoised: both
    interpreters and every thread share one parse per instruction)."""
    body = _fold_constant_geps(instr.body)
    tokens = body.split()
    op = instr.opcode
    if op in _BIN:
        rest = tokens[1:] if tokens[0] == op else tokens[2:]
        flags = set()
        while rest and rest[0] in _FLAGS:
            flags.add(rest.pop(0))
        ty = rest[0]
        a, b = split_args(" ".join(rest[1:]))
        return Decoded(op, _width(ty), frozenset(flags), (a, b))
    if op in _CASTS:
        m = re.match(rf"^{op}\s+(?:nneg\s+|nuw\s+|nsw\s+)*(i\d+)\s+(\S+)\s+to\s+(i\d+)$", body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(3)), frozenset(), (m.group(2),), (_width(m.group(1)),))
    if op == "select":
        m = re.match(r"^select\s+i1\s+(\S+),\s*(i\d+)\s+(\S+),\s*i\d+\s+(\S+)$", body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(2)), frozenset(), (m.group(1), m.group(3), m.group(4)))
    if op == "icmp":
        m = re.match(r"^icmp\s+(?:samesign\s+)?(\w+)\s+(i\d+)\s+(\S+),\s*(\S+)$", body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, 1, frozenset(), (m.group(3), m.group(4)), (m.group(1), _width(m.group(2))))
    if op == "getelementptr":
        m = re.match(r"^getelementptr\s+((?:inbounds\s+|nuw\s+|nusw\s+)*)([^,]+),\s*ptr addrspace\(3\)\s+(\S+),\s*"
                     r"(i\d+)\s+(\S+)$", body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, 32, frozenset(m.group(1).split()), (m.group(3), m.group(5)),
                       (element_bytes(m.group(2)), _width(m.group(4))))
    if op == "extractelement":
        m = re.match(r"^extractelement\s+<(\d+)\s*x\s*(i\d+)>\s+(\S+),\s*i\d+\s+(\d+)$", body)
        if not m:
            raise Unmodelled(body)
        return Decoded("copy", _width(m.group(2)), frozenset(), (lane_ref(m.group(3), int(m.group(4))),))
    if op == "phi":
        m = re.match(r"^phi\s+(i\d+|ptr addrspace\(3\))\s+(.*)$", body)
        if not m:
            raise Unmodelled(body)
        incoming = re.findall(r"\[\s*([^,\]]+?)\s*,\s*%[\w$.\-]+\s*\]", m.group(2))
        if len(incoming) < 2:
            raise Unmodelled(body)
        return Decoded("phi", _width(m.group(1)), frozenset(), tuple(incoming), (instr.result,))
    if op in ("ptrtoint", "inttoptr"):
        m = re.match(rf"^{op}\s+(\S+(?:\s+addrspace\(\d+\))?)\s+(\S+)\s+to\s+(\S+(?:\s+addrspace\(\d+\))?)$", body)
        if not m or ("addrspace(3)" not in body):
            raise Unmodelled(body)
        return Decoded(op, 32, frozenset(), (m.group(2),))
    if op == "call":
        m = re.search(r"@(llvm\.[\w.]+)\((.*)\)\s*$", body)
        if not m:
            raise Unmodelled(body)
        name, args = m.group(1), split_args(m.group(2))
        vals = [a.split()[-1] for a in args]
        if name in ("llvm.nvvm.read.ptx.sreg.tid.x", "llvm.amdgcn.workitem.id.x"):
            return Decoded("tid", 32, frozenset(), ())
        if name == "llvm.nvvm.shfl.sync.idx.i32" and len(vals) == 4 and vals[3] == "31" and _INT.match(vals[2]):
            return Decoded("lane_of_warp", 32, frozenset(), (vals[1],), (int(vals[2]), 32))
        if name.startswith("llvm.amdgcn.readfirstlane"):
            return Decoded("lane_of_warp", 32, frozenset(), (vals[0],), (0, 64))
        mm = re.match(r"^llvm\.vector\.reduce\.(or|and|xor|add)\.v(\d+)i(\d+)$", name)
        if mm and len(vals) == 1:
            n = int(mm.group(2))
            return Decoded("reduce", int(mm.group(3)), frozenset(), tuple(lane_ref(vals[0], k) for k in range(n)),
                           (mm.group(1),))
        mm = re.match(r"^llvm\.(smin|smax|umin|umax)\.i(\d+)$", name)
        if mm:
            return Decoded(mm.group(1), int(mm.group(2)), frozenset(), (vals[0], vals[1]))
        raise Unmodelled(f"call to @{name}")
    raise Unmodelled(f"instruction '{op}'")


_VEC = re.compile(r"^<(\d+)\s*x\s*(i\d+)>$")


def lane_ref(vector: str, k: int) -> str:
    """The name of lane ``k`` of a vector operand: ``%v#k`` for an SSA vector, the lane's constant for a
    constant vector (``<i32 8, i32 5>``, ``splat (i32 4)``, ``zeroinitializer``), ``poison`` for
    ``poison``/``undef``."""
    v = vector.strip()
    if v in ("poison", "undef"):
        return "poison"
    if v == "zeroinitializer":
        return "0"
    m = re.match(r"^splat\s*\(\s*i\d+\s+(-?\d+)\s*\)$", v)
    if m:
        return m.group(1)
    if v.startswith("<") and v.endswith(">"):
        items = split_args(v[1:-1])
        if k >= len(items):
            raise Unmodelled(f"lane {k} of {v}")
        return items[k].split()[-1]
    if v.startswith("%"):
        return f"{v}#{k}"
    raise Unmodelled(f"vector operand {v!r}")


def _shuffle_mask(text: str, n: int) -> list[int | None]:
    t = text.strip()
    if t == "zeroinitializer":
        return [0] * n
    if t.startswith("<") and t.endswith(">"):
        out: list[int | None] = []
        for item in split_args(t[1:-1]):
            last = item.split()[-1]
            out.append(None if last in ("poison", "undef") else int(last))
        return out
    raise Unmodelled(f"shufflevector mask {t!r}")


@lru_cache(maxsize=1 << 16)
def decode_lane(instr: Instr, k: int) -> Decoded:
    """Lane ``k`` of a vector-valued instruction, as a scalar :class:`Decoded` over lane names (SLP-vectorised
    address code: ``insertelement``, ``shufflevector``, element-wise integer ops and casts)."""
    body = instr.body
    op = instr.opcode
    if op == "insertelement":
        m = re.match(r"^insertelement\s+<(\d+)\s*x\s*(i\d+)>\s+(.+?),\s*i\d+\s+(\S+),\s*i\d+\s+(\d+)$", body)
        if not m:
            raise Unmodelled(body)
        w = _width(m.group(2))
        src = m.group(4) if int(m.group(5)) == k else lane_ref(m.group(3), k)
        return Decoded("copy", w, frozenset(), (src,))
    if op == "shufflevector":
        m = re.match(r"^shufflevector\s+<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        if not m:
            raise Unmodelled(body)
        n, w = int(m.group(1)), _width(m.group(2))
        parts = split_args(m.group(3))
        if len(parts) != 3:
            raise Unmodelled(body)
        a = parts[0]
        b = parts[1].split(">", 1)[1].strip() if parts[1].startswith("<") else parts[1]
        mask_text = parts[2].split(">", 1)[1].strip() if parts[2].startswith("<") and " x " in parts[2].split(">")[0] \
            else parts[2]
        mask = _shuffle_mask(mask_text, k + 1)
        if k >= len(mask):
            raise Unmodelled(body)
        j = mask[k]
        src = "poison" if j is None else (lane_ref(a, j) if j < n else lane_ref(b, j - n))
        return Decoded("copy", w, frozenset(), (src,))
    if op in _BIN:
        m = re.match(rf"^{op}\s+((?:\w+\s+)*?)<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        if not m:
            raise Unmodelled(body)
        args = split_args(m.group(4))
        if len(args) != 2:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(3)), frozenset(m.group(1).split()) & _FLAGS,
                       (lane_ref(args[0], k), lane_ref(args[1], k)))
    if op in _CASTS:
        m = re.match(rf"^{op}\s+(?:nneg\s+|nuw\s+|nsw\s+)*<(\d+)\s*x\s*(i\d+)>\s+(\S+)\s+to\s+<\d+\s*x\s*(i\d+)>$",
                     body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(4)), frozenset(), (lane_ref(m.group(3), k),), (_width(m.group(2)),))
    if op == "phi":  # lane k of a vector phi: the phi of the incoming vectors' lanes k (named %v#k)
        m = re.match(r"^phi\s+<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        if not m:
            raise Unmodelled(body)
        incoming = re.findall(r"\[\s*((?:<[^>]*>|[^,\]])+?)\s*,\s*%[\w$.\-]+\s*\]", m.group(3))
        if len(incoming) < 2 or k >= int(m.group(1)):
            raise Unmodelled(body)
        return Decoded("phi", _width(m.group(2)), frozenset(), tuple(lane_ref(v, k) for v in incoming),
                       (f"{instr.result}#{k}",))
    raise Unmodelled(f"vector instruction '{op}'")


def decoded(instr: Instr, lane: str) -> Decoded:
    """The instruction defining ``name`` (``lane`` empty) or lane ``lane`` of the vector it defines
    (``%v#2``: ``lane == "2"``), decoded (both memoised)."""
    return decode_lane(instr, int(lane)) if lane else decode(instr)


def const_value(text: str, width: int) -> int | None:
    """An operand's constant value at ``width`` bits, or None when it is not a constant.

    >>> const_value("-1", 8), const_value("true", 1), const_value("@global_smem", 32), const_value("%3", 32)
    (255, 1, 0, None)
    """
    if _INT.match(text):
        return int(text) % (1 << width)
    if text == "true":
        return 1
    if text == "false":
        return 0
    if text == "@global_smem":
        return 0
    return None


@dataclass(frozen=True)
class SymValue:
    term: z3.BitVecRef
    poison: z3.BoolRef
    free: frozenset[str]


class Symbolic:
    """Z3 terms of a function's values (memoised), with the poison condition and the free variables used."""

    def __init__(self, fn: LlirFunction, threads: int,
                 phi_range: Callable[[LlirFunction, Instr], CountedPhi | None] = counted_phi) -> None:
        self.fn = fn
        self.phi_range = phi_range  # the range of a loop phi, or None (llverify.lowered.loops, .orbits)
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
        counted = self.phi_range(self.fn, self.fn.defs[key]) if key in self.fn.defs else None
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
        if d.op == "tid":
            t = self.tid if tid_sub is None else tid_sub_term(self.tid, tid_sub)
            return SymValue(t, z3.BoolVal(False), frozenset())
        if d.op == "lane_of_warp":
            lane, warp = d.extra
            return self.value(d.args[0], 32, tid_sub=_encode_sub((warp, lane)))
        if d.op in _CASTS:
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
        a, b = self.value(d.args[0], w, tid_sub), self.value(d.args[1], w, tid_sub)
        term, poison = _binary(d.op, d.flags, a.term, b.term, w)
        return SymValue(term, z3.Or(a.poison, b.poison, poison), a.free | b.free)


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
    elif op in _MIN_MAX:
        lt = a < b if op[0] == "s" else z3.ULT(a, b)
        r = z3.If(lt, a, b) if op.endswith("min") else z3.If(lt, b, a)
    else:
        raise Unmodelled(op)
    return r, z3.Or(*poison) if poison else f


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
        if d.op == "lane_of_warp":
            lane, warp = d.extra
            return self.value(d.args[0], 32, tid=(tid - tid % warp) + lane)
        if d.op in _CASTS:
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
    if op in _MIN_MAX:
        x, y = (sa, sb) if op[0] == "s" else (a, b)
        return (a if (x < y) == op.endswith("min") else b)
    raise Unmodelled(op)
