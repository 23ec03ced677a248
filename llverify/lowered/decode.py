"""LLVM integer instructions decoded once, for the interpreters of the lowered code (:mod:`.symbolic`, Z3 terms;
:mod:`.concrete`, Python integers; :mod:`.vector`, every thread at once).

They follow the LLVM language reference for the instructions Triton's lowering uses on shared-memory
addresses: ``add sub mul shl lshr ashr and or xor udiv sdiv urem srem`` with their flags (``nuw``/``nsw``
overflow, ``exact`` with a non-zero remainder, ``disjoint`` with common bits, a shift by at least the
width: each makes the result *poison*), ``zext sext trunc``, ``select``, ``icmp``, ``getelementptr`` (the
index times the element size), ``ptrtoint`` / ``inttoptr``, ``llvm.smin/smax/umin/umax``,
``llvm.bitreverse.iN`` (bit ``i`` of the result is bit ``N-1-i`` of the operand: Triton's sort and top-k
compute their bitonic masks with it); integer vectors
as their lanes (``%v#k``: ``insertelement``, ``extractelement``, ``shufflevector``, element-wise ops and casts
with constant or ``splat`` vectors, ``llvm.vector.reduce.or/and/xor/add``), as LLVM's SLP vectoriser
leaves address code.  Inputs:

* ``tid``: ``llvm.nvvm.read.ptx.sreg.tid.x`` / ``llvm.amdgcn.workitem.id.x``, ``0 <= tid < threads``;
* the warp id broadcast Triton computes with ``llvm.nvvm.shfl.sync.idx.i32(-1, v, k, 31)``: ``v`` as lane
  ``k`` of the same warp computes it (``tid`` replaced by ``tid & ~31 | k``); ``llvm.amdgcn.readfirstlane``:
  lane 0 of the wave (every lane active, as in Triton's straight-line address code), the wave being the
  function's ``wave`` lanes (32 on RDNA and gfx1250, 64 on CDNA: the TTGIR's threads-per-warp; a function
  whose wave is not known leaves it unmodelled, a free value); ``llvm.amdgcn.wave.id`` (RDNA4 and gfx1250, where
  Triton lowers its warp id to it instead of ``readfirstlane(tid / wave)``): ``tid / wave``;
* a ``phi`` joining control flow is one of its incoming values, chosen by a free *choice* variable (the
  claim must hold whichever predecessor ran); a ``phi`` reached again while its incomings are built is
  loop-carried and, like every other value we cannot compute (block ids, kernel arguments, loads, unknown
  instructions), a *free variable*: a claim must hold for all its values; the variable records why it is free.

Pointers into shared memory are byte offsets from ``@global_smem`` (whose shared-window address is 0).

This module turns an instruction into a :class:`Decoded` (operation, width, flags, operand names: memoised,
one parse per instruction shared by every interpreter and thread) or raises :class:`Unmodelled` (the value
is then a free variable, never guessed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from llverify.lowered.llir import CONST_SMEM_GEP, INT_LITERAL, Instr, split_args

__all__ = ["Unmodelled", "Decoded", "decode", "decode_lane", "decoded", "lane_ref", "const_value", "element_bytes",
           "INTEGER_OPCODES", "LANE_MOVES", "PURE_INTEGER", "BINARY", "CASTS", "MIN_MAX", "reverse_bits", "lane_and_wave", "known_wave"]



#: The names of the binary integer operations, of the integer casts and of the min/max intrinsics (as decoded)
BINARY = ("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem", "srem")
CASTS = ("zext", "sext", "trunc")
MIN_MAX = ("smin", "smax", "umin", "umax")


#: Opcodes of the integer instructions both interpreters evaluate as a function of their operands alone, each
#: decoded as an operation of the same name: the binary operations, the casts, ``select`` and ``icmp``.
INTEGER_OPCODES = frozenset(BINARY + CASTS + ("select", "icmp"))


#: Opcodes that move vector lanes: a lane of their value decodes to ``copy`` of one operand lane.
LANE_MOVES = frozenset({"extractelement", "insertelement", "shufflevector"})


#: Decoded operations that compute an integer from their operands alone: those of :data:`INTEGER_OPCODES`, a
#: lane move's ``copy``, the ``llvm.smin/smax/umin/umax`` and ``llvm.bitreverse`` intrinsics (not the thread id,
#: a warp broadcast, a ``phi``, a pointer computation or a reduction).
PURE_INTEGER = INTEGER_OPCODES | {"copy", "bitreverse"} | frozenset(MIN_MAX)


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




def _fold_constant_geps(body: str) -> str:
    """``getelementptr (i8, ptr addrspace(3) @global_smem, i32 4096)`` -> ``4096`` (a constant offset)."""
    return CONST_SMEM_GEP.sub(lambda m: str(int(m.group(2)) * element_bytes(m.group(1))), body)


@lru_cache(maxsize=1 << 16)
def decode(instr: Instr) -> Decoded:
    """Parse an instruction's body into a :class:`Decoded`, or raise :class:`Unmodelled` (memoised: both
    interpreters and every thread share one parse per instruction)."""
    body = _fold_constant_geps(instr.body)
    tokens = body.split()
    op = instr.opcode
    if op in BINARY:
        rest = tokens[1:] if tokens[0] == op else tokens[2:]
        flags = set()
        while rest and rest[0] in _FLAGS:
            flags.add(rest.pop(0))
        ty = rest[0]
        a, b = split_args(" ".join(rest[1:]))
        return Decoded(op, _width(ty), frozenset(flags), (a, b))
    if op in CASTS:
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
        if name == "llvm.amdgcn.wave.id" and not vals:
            return Decoded("wave_id", 32, frozenset(), ())
        if (name == "llvm.nvvm.shfl.sync.idx.i32" and len(vals) == 4 and vals[3] == "31"
                and INT_LITERAL.match(vals[2])):
            return Decoded("lane_of_warp", 32, frozenset(), (vals[1],), (int(vals[2]), 32))
        if name.startswith("llvm.amdgcn.readfirstlane"):
            return Decoded("lane_of_warp", 32, frozenset(), (vals[0],), (0, 0))  # 0: the function's wave
        mm = re.match(r"^llvm\.vector\.reduce\.(or|and|xor|add)\.v(\d+)i(\d+)$", name)
        if mm and len(vals) == 1:
            n = int(mm.group(2))
            return Decoded("reduce", int(mm.group(3)), frozenset(), tuple(lane_ref(vals[0], k) for k in range(n)),
                           (mm.group(1),))
        mm = re.match(r"^llvm\.(smin|smax|umin|umax)\.i(\d+)$", name)
        if mm:
            return Decoded(mm.group(1), int(mm.group(2)), frozenset(), (vals[0], vals[1]))
        mm = re.match(r"^llvm\.bitreverse\.i(\d+)$", name)
        if mm and len(vals) == 1:
            return Decoded("bitreverse", int(mm.group(1)), frozenset(), (vals[0],))
        raise Unmodelled(f"call to @{name}")
    raise Unmodelled(f"instruction '{op}'")


def lane_and_wave(d: Decoded, wave: int) -> tuple[int, int]:
    """The lane and the wave size a ``lane_of_warp`` reads: its own (a shuffle states 32), else the function's
    ``wave`` (``llvm.amdgcn.readfirstlane``).

    Requires: ``d.op == "lane_of_warp"``.  Raises :class:`Unmodelled` when neither states the wave size.

    >>> rfl = Decoded("lane_of_warp", 32, frozenset(), ("%7",), (0, 0))
    >>> shfl = Decoded("lane_of_warp", 32, frozenset(), ("%7",), (3, 32))
    >>> lane_and_wave(rfl, 32), lane_and_wave(rfl, 64), lane_and_wave(shfl, 64)
    ((0, 32), (0, 64), (3, 32))
    """
    lane, wave_size = d.extra
    return lane, wave_size or known_wave(wave)


def known_wave(wave: int) -> int:
    """``wave`` (lanes per wave of the function), or :class:`Unmodelled` when it is not known (0).

    >>> known_wave(32)
    32
    """
    if wave <= 0:
        raise Unmodelled("the wave size is not known (no TTGIR threads-per-warp given)")
    return wave


def reverse_bits(x: int, width: int) -> int:
    """``llvm.bitreverse.i<width>`` of ``x``: bit ``i`` of the result is bit ``width - 1 - i`` of ``x``.

    Requires: ``0 <= x < 2**width``.  Postcondition: an involution; ``reverse_bits(1, w) == 2**(w-1)``.

    >>> reverse_bits(0b0000011, 7), reverse_bits(0b1011, 4), reverse_bits(0, 1)
    (96, 13, 0)
    """
    return int(format(x, f"0{width}b")[::-1], 2) if width else 0


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
    if op in BINARY:
        m = re.match(rf"^{op}\s+((?:\w+\s+)*?)<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        if not m:
            raise Unmodelled(body)
        args = split_args(m.group(4))
        if len(args) != 2:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(3)), frozenset(m.group(1).split()) & _FLAGS,
                       (lane_ref(args[0], k), lane_ref(args[1], k)))
    if op in CASTS:
        m = re.match(rf"^{op}\s+(?:nneg\s+|nuw\s+|nsw\s+)*<(\d+)\s*x\s*(i\d+)>\s+(\S+)\s+to\s+<\d+\s*x\s*(i\d+)>$",
                     body)
        if not m:
            raise Unmodelled(body)
        return Decoded(op, _width(m.group(4)), frozenset(), (lane_ref(m.group(3), k),), (_width(m.group(2)),))
    if op == "icmp":  # lane k compares lanes k
        m = re.match(r"^icmp\s+(?:samesign\s+)?(\w+)\s+<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        args = split_args(m.group(4)) if m else []
        if not m or len(args) != 2 or k >= int(m.group(2)):
            raise Unmodelled(body)
        return Decoded("icmp", 1, frozenset(), (lane_ref(args[0], k), lane_ref(args[1], k)),
                       (m.group(1), _width(m.group(3))))
    if op == "select":  # lane k: lane k of the condition (or the one i1), of both values
        m = re.match(r"^select\s+(i1|<(\d+)\s*x\s*i1>)\s+(\S+),\s*<(\d+)\s*x\s*(i\d+)>\s+(.*)$", body)
        args = split_args(m.group(6)) if m else []
        if not m or len(args) != 2 or k >= int(m.group(4)):
            raise Unmodelled(body)
        vals = [a.split(">", 1)[1].strip() if a.startswith("<") and " x " in a.split(">")[0] else a for a in args]
        cond = m.group(3) if m.group(1) == "i1" else lane_ref(m.group(3), k)
        return Decoded("select", _width(m.group(5)), frozenset(), (cond, lane_ref(vals[0], k), lane_ref(vals[1], k)))
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
    if INT_LITERAL.match(text):
        return int(text) % (1 << width)
    if text == "true":
        return 1
    if text == "false":
        return 0
    if text == "@global_smem":
        return 0
    return None
