"""Provenance guards of a conversion's lowered code: which register each stored / loaded element can be.

Straight-line SIMT code gives each store slot one fixed source register only when the stored value is a
register's value packed by the conversion (``insertelement``, ``extractelement``, ``shufflevector``,
``bitcast``, ``zext``, ``trunc``, whole-byte shifts), not chosen per thread (a ``select``, ``phi`` or warp
shuffle with the conversion's location: :class:`Unknown`); likewise loaded values on their way to registers.
Also: which parts of a load are used at all (:func:`live`), and what each byte of a stored value is
(:func:`byte_source`: a register's value, a constant, or poison).  Used by :mod:`llverify.lowered.convert`.

>>> byte_source(None, "poison", "i32", 0), byte_source(None, "7", "i32", 0)
('poison', 'const')
"""

from __future__ import annotations

import re

from llverify.lowered.llir import SSA_REF, Access, LlirFunction, split_args, type_bytes

__all__ = ["Unknown", "function_users", "check_stored", "check_loaded", "uses", "live", "byte_source", "slot_kinds",
           "stored_value"]


class Unknown(Exception):
    """The guard cannot establish the fixed-register premise: the obligation is ``unknown`` with this reason."""


# instruction forms read by the provenance guards (compiled once)
_EXTRACTVALUE = re.compile(r"^extractvalue\s+\{[^}]*\}\s+(%[\w$.\-]+),\s*(\d+)$")
_MATRIX = re.compile(r"matrix (\d+)")
_EXTRACTELEMENT = re.compile(r"^extractelement\s+<(\d+)\s*x\s*(\w+)>\s+(%[\w$.\-]+),\s*i\d+\s+(\d+)$")
_INSERTELEMENT = re.compile(r"^insertelement\s+<(\d+)\s*x\s*(\w+)>\s+(.+?),\s*(\w+)\s+(\S+),\s*i\d+\s+(\d+)$")
_BITCAST = re.compile(r"^bitcast\s+(<[^>]+>|\S+)\s+(\S+)\s+to\s+(<[^>]+>|\S+)$")
_SHUFFLE = re.compile(r"^shufflevector\s+<(\d+)\s*x\s*(\w+)>\s+(\S+),\s*<\d+\s*x\s*\w+>\s+(\S+),\s*"
                      r"<(\d+)\s*x\s*i32>\s+<(.*)>$")
_EXT = re.compile(r"^(?:zext|trunc)\s+(?:nneg\s+|nuw\s+|nsw\s+)*(i\d+)\s+(\S+)\s+to\s+i\d+$")
_SHL = re.compile(r"^shl\s+(?:nuw\s+|nsw\s+)*(i\d+)\s+(\S+),\s*(\d+)$")
_STORE = re.compile(r"^store\s+(?:volatile\s+)?(<[^>]+>|\S+)\s+([^,]+),")
_CALL_ARGS = re.compile(r"\((.*)\)\s*$")


def function_users(fn: LlirFunction) -> dict[str, list]:
    """Every SSA name of ``fn`` -> the instructions using it (in order; computed once per function by the
    caller and shared by its conversions)."""
    users: dict[str, list] = {}
    for ins in fn.instrs:
        for name in set(SSA_REF.findall(ins.body)):
            users.setdefault(name, []).append(ins)
    return users


_PACKING = ("insertelement", "extractelement", "shufflevector", "bitcast", "zext", "trunc", "shl", "lshr",
            "or", "and")


def check_stored(fn: LlirFunction, value: str, seen: set[str], mine: frozenset) -> None:
    """Raise :class:`_Unknown` when a stored value is not a fixed register's value in every thread: its
    packing (``insertelement`` ..., whole-byte shifts) bottoms out in a ``select`` / ``phi`` / shuffle whose
    choice may depend on the thread."""
    stack = [value]
    while stack:
        v = stack.pop()
        if not v.startswith("%") or v in seen:
            continue
        seen.add(v)
        ins = fn.defs.get(v)
        if ins is None or (ins.dbg is not None and ins.dbg not in mine):
            continue  # a value of another op (the producer): one register's value
        op = ins.opcode
        if op == "select" or op == "phi":
            raise Unknown(f"a stored element passes through '{op}' at line {ins.line}: its register may depend "
                           "on the thread (not modelled)")
        if op == "call" and "shfl" in ins.body:
            raise Unknown(f"a stored element comes from a warp shuffle at line {ins.line} (not modelled)")
        if op in _PACKING:
            stack.extend(SSA_REF.findall(ins.body))


def check_loaded(fn: LlirFunction, users: dict[str, list], value: str, mine: frozenset) -> None:
    """Raise :class:`_Unknown` when a loaded element is post-processed by the conversion with a per-thread
    choice (a ``select`` / shuffle with the conversion's location) before it becomes a register."""
    stack, seen = [value], set()
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        for ins in users.get(v, ()):
            if ins.dbg is not None and ins.dbg not in mine:
                continue
            if ins.opcode in ("select", "phi") or (ins.opcode == "call" and "shfl" in ins.body):
                raise Unknown(f"a loaded element passes through '{ins.opcode}' at line {ins.line} before it "
                               "becomes a register: the register may depend on the thread (not modelled)")
            if ins.opcode in _PACKING and ins.result:
                stack.append(ins.result)


def uses(users: dict[str, list], a: Access) -> bool | frozenset:
    """What of a load's result is used: False (nothing), True (all of it), or the parts some user takes:
    the matrices an ``extractvalue`` takes of an ``ldmatrix``, the ``(byte offset, size)`` lanes a constant
    ``extractelement`` takes of a vector."""
    res = a.instr.result
    if res is None:
        return False
    us = users.get(res, [])
    if not us:
        return False
    parts: set = set()
    for u in us:
        if a.kind == "ldmatrix":
            m = _EXTRACTVALUE.match(u.body)
            if u.opcode != "extractvalue" or not m or m.group(1) != res:
                return True
            parts.add(int(m.group(2)))
            continue
        m = _EXTRACTELEMENT.match(u.body)
        if u.opcode != "extractelement" or not m or m.group(3) != res or not type_bytes(m.group(2)):
            return True
        size = type_bytes(m.group(2))
        parts.add((int(m.group(4)) * size, size))
    return frozenset(parts)


def live(users: dict[str, list], a: Access, what: str, offset: int, b: int, memo: dict | None = None) -> bool:
    """Whether a load slot's element is used: a vector whose every user is a constant ``extractelement``
    keeps only those lanes; an ``ldmatrix`` result only the matrices some ``extractvalue`` takes; a value
    nobody uses carries no register (it cannot fill the register a dead slot would be assigned).  ``memo``:
    :func:`uses` per instruction, shared by the slots of one access."""
    memo = {} if memo is None else memo
    if id(a.instr) not in memo:
        memo[id(a.instr)] = uses(users, a)
    used = memo[id(a.instr)]
    if isinstance(used, bool):
        return used
    if a.kind == "ldmatrix":
        mm = _MATRIX.search(what)
        return mm is None or int(mm.group(1)) in used
    return any(lo <= offset < lo + size for lo, size in used)


def byte_source(fn: LlirFunction, value: str, ty: str, offset: int, depth: int = 0) -> str:
    """What byte ``offset`` of a stored value is: ``"poison"`` (an ``insertelement`` chain's base lane never
    written, ``undef``), ``"const"`` (a constant, a ``zext``'s or whole-byte shift's zero bytes) or ``"value"``
    (some instruction's result: a register's value).  Through ``insertelement``, ``bitcast``,
    ``shufflevector``, ``zext``, ``trunc``, whole-byte ``shl``; anything else is a ``"value"``."""
    v = value.strip()
    if v in ("poison", "undef"):
        return "poison"
    if not v.startswith("%") or depth > 64:
        return "const" if not v.startswith("%") else "value"
    ins = fn.defs.get(v)
    if ins is None:
        return "value"
    body = ins.body
    if ins.opcode == "insertelement":
        m = _INSERTELEMENT.match(body)
        if m:
            size = type_bytes(m.group(2))
            if size and int(m.group(6)) == offset // size:
                return byte_source(fn, m.group(5), m.group(4), offset % size, depth + 1)
            if size:
                return byte_source(fn, m.group(3), f"<{m.group(1)} x {m.group(2)}>", offset, depth + 1)
    if ins.opcode == "bitcast":
        m = _BITCAST.match(body)
        if m:
            return byte_source(fn, m.group(2), m.group(1), offset, depth + 1)
    if ins.opcode == "shufflevector":
        m = _SHUFFLE.match(body)
        if m and type_bytes(m.group(2)):
            size, n = type_bytes(m.group(2)), int(m.group(1))
            items = [x.split()[-1] for x in split_args(m.group(6))]
            k = offset // size
            if k < len(items):
                j = items[k]
                if j in ("poison", "undef"):
                    return "poison"
                j = int(j)
                src = m.group(3) if j < n else m.group(4)
                return byte_source(fn, src, f"<{n} x {m.group(2)}>", (j % n) * size + offset % size, depth + 1)
    if ins.opcode in ("zext", "trunc"):
        m = _EXT.match(body)
        if m:
            if ins.opcode == "zext" and offset >= type_bytes(m.group(1)):
                return "const"
            return byte_source(fn, m.group(2), m.group(1), offset, depth + 1)
    if ins.opcode == "shl":
        m = _SHL.match(body)
        if m and int(m.group(3)) % 8 == 0:
            k = int(m.group(3)) // 8
            return "const" if offset < k else byte_source(fn, m.group(2), m.group(1), offset - k, depth + 1)
    return "value"


def slot_kinds(fn: LlirFunction, a: Access, what: str, offset: int | None, b: int) -> set[str]:
    """The kinds (:func:`byte_source`) of a store slot's ``b`` bytes."""
    if a.kind == "store":
        m = _STORE.match(a.instr.body)
        if not m or offset is None:
            return {"value"}
        return {byte_source(fn, m.group(2).strip(), m.group(1), offset + j) for j in range(b)}
    vals = stored_value(a)  # stmatrix: matrix m's 32-bit operand
    mm = _MATRIX.search(what)
    if not mm or int(mm.group(1)) >= len(vals):
        return {"value"}
    return {byte_source(fn, vals[int(mm.group(1))], "i32", 0)}


def stored_value(a: Access) -> list[str]:
    """The value operands of a store / stmatrix."""
    body = a.instr.body
    if a.kind == "store":
        m = _STORE.match(body)
        return [m.group(2).strip()] if m else []
    m = _CALL_ARGS.search(body)
    return [x.split()[-1] for x in split_args(m.group(1)) if "addrspace(3)" not in x] if m else []

