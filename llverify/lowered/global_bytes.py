"""Where a stored byte comes from: the global-memory byte an LLVM value was loaded from.

A ``local_store`` / ``local_alloc`` of a ``tt.load``'s tensor stores the loaded registers.  Triton's LLVM IR
keeps no register numbering (the register structs are folded), but a loaded byte names its own origin: byte
``q`` of the result of a load from global address ``P`` *is* the memory byte ``P + q`` (LLVM's ``load``; PTX's
``ld.global.vN.bM { $0, .. }``: output ``$k`` holds bytes ``k M/8 ..`` of the vector at ``[P]``).  So the value
of a stored byte is identified, thread by thread, by a global address, with no register numbering at all.

:func:`byte_origin` follows byte ``offset`` of a value back through the packing Triton emits (``insertelement``,
``extractelement``, ``extractvalue``, ``shufflevector``, ``bitcast``, ``zext``, ``trunc``, whole-byte ``shl``):
to ``poison``, a constant, or byte ``q`` of some instruction's result.  :func:`loaded_from` reads that
instruction as a global load (an unpredicated ``ld.global`` inline asm, or ``load ... ptr addrspace(1)``) and its
pointer as a ``getelementptr`` chain over a kernel argument: ``P = arg + sum_k sext(idx_k) * size_k``.  A
``select`` / ``phi`` on the way (a per-thread choice of value) or any other form: :class:`NotTraced`, with the
reason.

Requires: ``fn`` as read by :func:`llverify.lowered.llir.parse_llir`.
Postcondition: a returned origin holds in every thread (SSA values are the same instruction in every thread;
only the pointer's value differs, evaluated by the caller).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llverify.lowered.decode import Unmodelled, element_bytes
from llverify.lowered.llir import LlirFunction, asm_call, split_args, type_bytes
from llverify.lowered.provenance import _BITCAST, _EXT, _EXTRACTELEMENT, _INSERTELEMENT, _SHL, _SHUFFLE

__all__ = ["NotTraced", "Origin", "GlobalLoad", "byte_origin", "loaded_from", "parameters"]


class NotTraced(Exception):
    """A stored byte whose origin is not followed (the value claim is then ``unknown`` with this reason)."""


@dataclass(frozen=True)
class Origin:
    """Byte ``offset`` of SSA value ``name`` (``kind == "value"``), or a ``"poison"`` / ``"const"`` byte."""

    kind: str
    name: str = ""
    offset: int = 0


@dataclass(frozen=True)
class GlobalLoad:
    """A global load: the loaded bytes are ``[P, P + size)`` with ``P = base + sum sext(index) * scale`` over
    ``terms`` (``(index operand, its width, scale)``), ``base`` a kernel argument; ``line``: the load's line."""

    base: str
    terms: tuple[tuple[str, int, int], ...]
    size: int
    line: int


_EXTRACTVALUE = re.compile(r"^extractvalue\s+\{([^}]*)\}\s+(%[\w$.\-]+),\s*(\d+)$")
_GLOBAL_LOAD = re.compile(r"^load\s+(<[^>]+>|[^,]+),\s*ptr addrspace\(1\)\s+(%[\w$.\-]+)")
_GEP = re.compile(r"^getelementptr\s+(?:(?:inbounds|nuw|nusw)\s+)*([^,]+),\s*ptr addrspace\(1\)\s+(%[\w$.\-]+),\s*"
                  r"(i\d+)\s+(\S+)$")
# PTX: `mov.u16 $0, 0x0;` (defaults, overwritten) then one unpredicated `ld.global[.mods][.vN].bM { $0, .. }, [ $n + 0 ];`
_MOV_ZERO = re.compile(r"^mov\.[bu]\d+\s+\$\d+,\s*0x0$")
_LD_GLOBAL = re.compile(r"^ld\.global(?:\.[\w:]+)*?(?:\.v(\d))?\.b(8|16|32|64)\s+\{\s*([^}]*)\}\s*,\s*"
                        r"\[\s*\$(\d+)\s*(?:\+\s*0\s*)?\]$")


def byte_origin(fn: LlirFunction, value: str, ty: str, offset: int, depth: int = 0) -> Origin:
    """Byte ``offset`` of ``value`` (of LLVM type ``ty``), followed back through the packing (module docstring).
    Stops at the first instruction that is not a packing step: ``Origin("value", name, q)``."""
    v = value.strip()
    if v in ("poison", "undef"):
        return Origin("poison")
    if not v.startswith("%"):
        return Origin("const")
    ins = fn.defs.get(v)
    if ins is None or depth > 64:
        return Origin("value", v, offset)
    body, op = ins.body, ins.opcode
    if op in ("select", "phi"):
        raise NotTraced(f"a stored byte passes through '{op}' at line {ins.line}: its value may be chosen per thread")
    m = _INSERTELEMENT.match(body) if op == "insertelement" else None
    if m and type_bytes(m.group(2)):
        size = type_bytes(m.group(2))
        if int(m.group(6)) == offset // size:
            return byte_origin(fn, m.group(5), m.group(4), offset % size, depth + 1)
        return byte_origin(fn, m.group(3), f"<{m.group(1)} x {m.group(2)}>", offset, depth + 1)
    m = _EXTRACTELEMENT.match(body) if op == "extractelement" else None
    if m and type_bytes(m.group(2)):
        return byte_origin(fn, m.group(3), f"<{m.group(1)} x {m.group(2)}>",
                           int(m.group(4)) * type_bytes(m.group(2)) + offset, depth + 1)
    m = _EXTRACTVALUE.match(body) if op == "extractvalue" else None
    if m:
        fields = [f.strip() for f in split_args(m.group(1))]
        sizes = [type_bytes(f) for f in fields]
        k = int(m.group(3))
        if k < len(fields) and all(sizes) and len(set(sizes)) == 1:  # a packed struct of equal fields
            return Origin("value", m.group(2), k * sizes[0] + offset) if _is_global_load(fn, m.group(2)) else \
                Origin("value", v, offset)
        return Origin("value", v, offset)
    m = _BITCAST.match(body) if op == "bitcast" else None
    if m and type_bytes(m.group(1)) and type_bytes(m.group(1)) == type_bytes(m.group(3)):
        return byte_origin(fn, m.group(2), m.group(1), offset, depth + 1)
    m = _SHUFFLE.match(body) if op == "shufflevector" else None
    if m and type_bytes(m.group(2)):
        size, n = type_bytes(m.group(2)), int(m.group(1))
        items = [x.split()[-1] for x in split_args(m.group(6))]
        k = offset // size
        if k < len(items):
            if items[k] in ("poison", "undef"):
                return Origin("poison")
            j = int(items[k])
            src = m.group(3) if j < n else m.group(4)
            return byte_origin(fn, src, f"<{n} x {m.group(2)}>", (j % n) * size + offset % size, depth + 1)
    m = _EXT.match(body) if op in ("zext", "trunc") else None
    if m and int(m.group(1)[1:]) % 8 == 0 and int(body.rsplit(" i", 1)[1]) % 8 == 0:  # whole bytes both sides
        if op == "zext" and offset >= type_bytes(m.group(1)):
            return Origin("const")
        return byte_origin(fn, m.group(2), m.group(1), offset, depth + 1)
    m = _SHL.match(body) if op == "shl" else None
    if m and int(m.group(3)) % 8 == 0:
        k = int(m.group(3)) // 8
        return Origin("const") if offset < k else byte_origin(fn, m.group(2), m.group(1), offset - k, depth + 1)
    return Origin("value", v, offset)


def _is_global_load(fn: LlirFunction, name: str) -> bool:
    ins = fn.defs.get(name)
    return ins is not None and ins.opcode == "call" and "ld.global" in ins.body


def parameters(fn: LlirFunction) -> list[str]:
    """The function's parameter names, in order, from its ``define`` line."""
    i = fn.header.find("(", fn.header.find("@"))
    if i < 0:
        return []
    depth, j = 0, i
    for j in range(i, len(fn.header)):
        depth += fn.header[j] == "("
        depth -= fn.header[j] == ")"
        if depth == 0:
            break
    return [a.split()[-1] for a in split_args(fn.header[i + 1:j]) if a.split()]


def loaded_from(fn: LlirFunction, name: str) -> GlobalLoad:
    """The global load that defines ``name`` and its pointer's ``getelementptr`` chain (module docstring), or
    :class:`NotTraced` with the reason."""
    ins = fn.defs.get(name)
    if ins is None:
        raise NotTraced(f"{name} is a kernel argument, not a loaded value")
    m = _GLOBAL_LOAD.match(ins.body) if ins.opcode == "load" else None
    if m:
        return _chain(fn, m.group(2), type_bytes(m.group(1)), ins.line)
    call = asm_call(ins.body) if ins.opcode == "call" else None
    if call is None:
        raise NotTraced(f"the stored value {name} is computed by '{ins.opcode}' at line {ins.line}, not loaded from "
                        "global memory")
    asm, constraints, args = call
    stmts = [s.strip() for s in asm.replace("\\0A", "\n").replace("\\09", " ").replace("\t", " ").split(";")]
    stmts = [s for s in stmts if s]
    if not stmts or not all(_MOV_ZERO.match(s) for s in stmts[:-1]):
        raise NotTraced(f"the inline asm at line {ins.line} is not one unpredicated ld.global: not traced")
    ld = _LD_GLOBAL.match(stmts[-1])
    if ld is None:
        raise NotTraced(f"the inline asm at line {ins.line} is not one unpredicated ld.global "
                        f"({stmts[-1][:60]!r}): not traced")
    outs = [o.strip() for o in ld.group(3).split(",")]
    n_out = sum(1 for c in constraints.split(",") if c.strip().startswith("="))
    vec, bits = int(ld.group(1) or 1), int(ld.group(2))
    if outs != [f"${k}" for k in range(len(outs))] or len(outs) != vec or n_out != vec:
        raise NotTraced(f"the ld.global at line {ins.line} does not write its outputs $0.. in order")
    k = int(ld.group(4)) - n_out
    if not 0 <= k < len(args) or not args[k].startswith("ptr addrspace(1)"):
        raise NotTraced(f"the ld.global at line {ins.line} takes no global pointer operand")
    return _chain(fn, args[k].split()[-1], vec * bits // 8, ins.line)


def _chain(fn: LlirFunction, pointer: str, size: int, line: int) -> GlobalLoad:
    params = set(parameters(fn))
    terms: list[tuple[str, int, int]] = []
    p = pointer
    for _ in range(64):
        if p in params:
            return GlobalLoad(p, tuple(terms), size, line)
        ins = fn.defs.get(p)
        m = _GEP.match(ins.body) if ins is not None and ins.opcode == "getelementptr" else None
        if m is None:
            raise NotTraced(f"the global pointer {p} of the load at line {line} is not a getelementptr chain over a "
                            "kernel argument")
        try:
            scale = element_bytes(m.group(1))
        except Unmodelled as exc:
            raise NotTraced(f"the global pointer of the load at line {line}: {exc}") from None
        terms.append((m.group(4), int(m.group(3)[1:]), scale))
        p = m.group(2)
    raise NotTraced(f"the global pointer of the load at line {line}: a getelementptr chain over 64 steps")
