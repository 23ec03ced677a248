"""Read the subset of LLVM IR that Triton's lowering emits for shared-memory address arithmetic.

Triton 3.9's ``.llir`` (``triton.compile(...).asm["llir"]``) prints one instruction per line.  The
reader keeps, per function, every instruction as :class:`Instr` (result, opcode, flags, operand texts,
type, debug location, line number) and finds every shared-memory access: ``load`` / ``store`` through a
``ptr addrspace(3)`` (any vector width), ``ldmatrix`` / ``stmatrix`` intrinsics and inline assembly
taking a ``ptr addrspace(3)`` operand.  Debug locations (``!DILocation(line:, column:)``) are resolved;
with ``USE_IR_LOC=ttgir`` Triton points them at the lines of the ``.ttgir`` file (``!DIFile`` names it),
which is how an access is attributed to the TTGIR op it lowers.

Nothing is executed and no LLVM library is needed; a line the reader does not understand is kept as an
``Instr`` with opcode ``"?"`` (a value it defines is then an unmodelled free variable, never guessed).

>>> m = parse_llir('''define void @k() {
...   %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
...   %2 = shl nuw nsw i32 %1, 4, !dbg !5
...   %3 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %2, !dbg !5
...   store <4 x i32> %v, ptr addrspace(3) %3, align 16, !dbg !5
... }
... !5 = !DILocation(line: 7, column: 3, scope: !4)''')
>>> a = m.functions[0].accesses[0]
>>> a.kind, a.bytes, a.pointer, m.locations["5"]
('store', 16, '%3', (7, 3))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from llverify.errors import LlverifyError

__all__ = ["Instr", "Access", "LDMATRIX", "LlirFunction", "LlirModule", "LlirError", "parse_llir", "split_args",
           "type_bytes", "asm_call", "as_signed", "MAX_LLIR_BYTES",
           "INT_LITERAL", "SSA_REF", "CONST_SMEM_GEP"]

MAX_LLIR_BYTES = 64 << 20

_DEFINE = re.compile(r"^define\b.*?@([\w$.\-]+)\s*\(")
_SSA_NAME = re.compile(r"^%[\w$.\-]+$")
_ASSIGN = re.compile(r"^(%[\w$.\-]+)\s*=\s*(.*)$")
_LABEL = re.compile(r"^([\w$.\-]+):\s*(?:;.*)?$")
_DBG = re.compile(r",?\s*!dbg\s+!(\d+)")
_DILOC = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!DILocation\(line:\s*(\d+),\s*column:\s*(\d+)")
_DIFILE = re.compile(r'^!(\d+)\s*=\s*(?:distinct\s+)?!DIFile\(filename:\s*"([^"]*)"')
_DISUBPROGRAM = re.compile(r'^!(\d+)\s*=\s*(?:distinct\s+)?!DISubprogram\(name:\s*"([^"]*)".*?\bline:\s*(\d+)')
_DISCOPE_FILE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!DI(?:Subprogram|LexicalBlock|LexicalBlockFile)\(.*\bfile:\s*!(\d+)")
_LOC_SCOPE = re.compile(r"\bscope:\s*!(\d+)")
_INT_TYPE = re.compile(r"^i(\d+)$")
#: an integer literal operand
INT_LITERAL = re.compile(r"^-?\d+$")
#: an SSA value name anywhere in an instruction's text
SSA_REF = re.compile(r"%[\w$.\-]+")
_VEC = re.compile(r"^<(\d+)\s*x\s*([\w]+)>$")
_SCALAR_BYTES = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "ptr": 8}


class LlirError(LlverifyError, ValueError):
    """Malformed or oversized LLVM IR (``file:line:col: message``)."""


@dataclass(frozen=True)
class Instr:
    """One instruction: ``result = opcode flags... type operands`` (``text`` keeps the line)."""

    result: str | None
    opcode: str
    body: str
    dbg: str | None
    line: int
    block: str = ""  # the basic block's label (``%loop``; ``""`` for an unlabelled entry block)


@dataclass(frozen=True)
class Access:
    """A shared-memory access: ``kind`` load | store | ldmatrix | stmatrix | asm, through ``pointer``."""

    kind: str
    pointer: str
    bytes: int
    instr: Instr
    guard: tuple[str, bool] | None = None  # inline asm `@$n` / `@!$n`: the i1 operand, and whether negated
    footprint: int = 0  # bytes an inline-asm st/ld.shared touches (its type and vector width), 0 when not read


@dataclass(frozen=True)
class LlirFunction:
    name: str
    instrs: tuple[Instr, ...]
    accesses: tuple[Access, ...]
    defs: dict[str, Instr] = field(default_factory=dict, compare=False)
    header: str = field(default="", compare=False)  # the ``define`` line (its attribute group references)
    #: lanes per wave (warp) of the launch: the TTGIR's threads-per-warp, set by the validator; 0 when not known
    #: (LLVM IR does not state it: ``llvm.amdgcn.readfirstlane`` then reads a free value, never a guessed lane)
    wave: int = 0  # compared and hashed: memos keyed by the function never mix two wave sizes


@dataclass(frozen=True)
class LlirModule:
    path: str
    functions: tuple[LlirFunction, ...]
    locations: dict[str, tuple[int, int]]
    files: tuple[str, ...]
    attributes: dict[str, str] = field(default_factory=dict, compare=False)  # ``attributes #N = {...}``: N -> text
    #: debug location id -> the file name of its scope (DILocation scope -> DISubprogram / DILexicalBlock -> DIFile),
    #: where the chain resolves; locations inlined from another function (``inlinedAt``) are left out
    location_files: dict[str, str] = field(default_factory=dict, compare=False)
    #: debug location id -> the function it names itself: a location whose scope is a ``DISubprogram`` and whose
    #: line is the subprogram's own (the kernel's ``def`` line), not inlined: code placed at the function
    location_functions: dict[str, str] = field(default_factory=dict, compare=False)


def as_signed(x: int, w: int) -> int:
    """``x`` read as a ``w``-bit two's complement integer: ``r = x mod 2^w``, minus ``2^w`` when bit ``w - 1`` of
    ``r`` is set.

    Requires: ``w >= 1``.  Postcondition: ``-2^(w-1) <= result < 2^(w-1)`` and ``result == x (mod 2^w)``.

    >>> as_signed(255, 8), as_signed(127, 8), as_signed(-1, 8), as_signed(1 << 32, 32)
    (-1, 127, -1, 0)
    """
    x &= (1 << w) - 1
    return x - (1 << w) if x >> (w - 1) else x


def type_bytes(t: str) -> int:
    """Bytes of an LLVM value type (``<4 x i32>`` -> 16, ``half`` -> 2); 0 when unknown."""
    t = t.strip()
    m = _VEC.match(t)
    if m:
        return int(m.group(1)) * type_bytes(m.group(2))
    m = _INT_TYPE.match(t)
    if m:
        return max(1, int(m.group(1)) // 8)
    return _SCALAR_BYTES.get(t, 0)


def _opcode(rhs: str) -> str:
    tokens = rhs.split()
    if not tokens:
        return "?"
    if tokens[0] in ("tail", "musttail", "notail") and len(tokens) > 1:
        return tokens[1]
    return tokens[0]


#: ``ldmatrix`` / ``stmatrix`` intrinsics: (kind, count x1/x2/x4, ``.trans``)
LDMATRIX = re.compile(r"@llvm\.nvvm\.(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.b16")


#: a constant ``getelementptr`` of ``@global_smem`` (element type, index)
CONST_SMEM_GEP = re.compile(r"getelementptr\s*(?:inbounds\s+|nuw\s+|nusw\s+)*\(\s*([\w<> \[\]]+?),\s*"
                             r"ptr addrspace\(3\)\s+@global_smem,\s*i\d+\s+(-?\d+)\s*\)")


def _fold_gep(m: re.Match) -> str:
    """A constant ``getelementptr`` of ``@global_smem`` as its byte offset (left as is when its element type's
    size is not known: the access's pointer then stays unread, never guessed)."""
    t = m.group(1).strip()
    arr = re.match(r"^\[(\d+)\s*x\s*(\w+)\]$", t)
    size = int(arr.group(1)) * type_bytes(arr.group(2)) if arr else type_bytes(t)
    if size <= 0 or t == "ptr":
        return m.group(0)
    return str(int(m.group(2)) * size)


_ASM_CALL = re.compile(r'asm\s+(?:sideeffect\s+|alignstack\s+|inteldialect\s+)*"((?:[^"\\]|\\.)*)",\s*'
                       r'"((?:[^"\\]|\\.)*)"\((.*)\)')
_ASM_SHARED = re.compile(r"\b(?:st|ld|atom|red)\.shared(?:::cta)?(?:\.\w+)*?(?:\.v([248]))?\.[bsuf](8|16|32|64)\b")
#: ``cp.async.{ca,cg}.shared.global [dst], [src], cp-size``: PTX's cp-size (4, 8 or 16 bytes) is what lands at
#: ``dst`` (a smaller src-size zero-fills the rest).  ``cp.async.bulk`` (TMA) is another form.
_ASM_CP_ASYNC = re.compile(r"\bcp\.async\.c[ag]\.shared(?:::cta)?\.global\S*\s+\[[^\]]*\],\s*\[[^\]]*\],\s*"
                           r"(0x[0-9a-fA-F]+|\d+)\s*[,;]")


def _asm_footprint(asm: str) -> int:
    """Bytes of shared memory an inline-asm instruction touches at its shared address, from PTX's own
    operand sizes; 0 when the form is not one of these (a TMA box, whose size the TTGIR holds, among them).

    * ``st/ld/atom/red.shared[.vN].{b,s,u,f}M``: M / 8 bytes, times N;
    * ``tensormap.*`` on a shared tensormap: the 128-byte (``.b1024``) object;
    * ``mbarrier.*`` and an ``mbarrier::...`` commit to a ``.b64`` barrier: 8 bytes;
    * ``tcgen05.alloc ... .shared::cta.b32``: the 4-byte TMEM address it writes;
    * ``cp.async.ca/cg.shared.global [dst], [src], cp-size``: cp-size bytes (4, 8, 16).

    >>> _asm_footprint("@$2 st.shared::cta.v4.b32 [ $0 + 0 ], {$1, $1, $1, $1};"), _asm_footprint("mbarrier.init.shared::cta.b64 [$0], 1;")
    (16, 8)
    >>> _asm_footprint("cp.async.ca.shared.global [ $0 + 0 ], [ $1 + 0 ], 0x4, $2;")
    4
    """
    if "tensormap." in asm and "shared" in asm:
        return 128
    if "mbarrier" in asm and ".b64" in asm:
        return 8
    w = _ASM_SHARED.search(asm)
    if w:
        return int(w.group(2)) // 8 * int(w.group(1) or 1)
    if "tcgen05.alloc" in asm and ".shared::cta.b32" in asm:
        return 4
    c = _ASM_CP_ASYNC.search(asm)
    if c:
        size = int(c.group(1), 0)
        return size if size in (4, 8, 16) else 0
    return 0


def split_args(text: str) -> list[str]:
    """Top-level comma split of a call's argument list (commas inside <...>, (...), [...] stay)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def asm_call(body: str) -> tuple[str, str, list[str]] | None:
    """An inline-asm call's PTX text, constraint string and argument texts (each ``type value``; a constant
    ``getelementptr`` of ``@global_smem`` folded to its byte offset, as the access's pointer is), or None.

    >>> asm_call('call void asm sideeffect "@$0 op [$1];", "b,r"(i1 %g, ptr addrspace(3) %p)')
    ('@$0 op [$1];', 'b,r', ['i1 %g', 'ptr addrspace(3) %p'])
    """
    if "getelementptr" in body and "@global_smem" in body:
        body = CONST_SMEM_GEP.sub(_fold_gep, body)
    m = _ASM_CALL.search(body)
    return None if m is None else (m.group(1), m.group(2), split_args(m.group(3)))


def _asm_guard_and_footprint(body: str) -> tuple[tuple[str, bool] | None, int]:
    """An inline-asm shared access's predicate and byte footprint.

    ``call void asm sideeffect "@$2 st.shared::cta.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %p, i32 %v,
    i1 %g)``: the PTX guard ``@$2`` names the third operand, ``%g`` (``@!$n`` negates it; ``$n`` counts the
    outputs, constraints starting with ``=``, first); the footprint is the type's bytes times the vector width
    (``.v4.b32``: 16).  Either is unread (None, 0) when the asm does not have that form.

    >>> _asm_guard_and_footprint('call void asm sideeffect "@$2 st.shared::cta.b32 [ $0 + 0 ], $1;", '
    ...                          '"r,r,b"(ptr addrspace(3) %592, <1 x i32> zeroinitializer, i1 %591)')
    (('%591', False), 4)
    """
    m = _ASM_CALL.search(body)
    if m is None:
        return None, 0
    asm, constraints, args = m.group(1), m.group(2), split_args(m.group(3))
    footprint = _asm_footprint(asm)
    g = re.match(r"^\s*@(!?)\$(\d+)\s", asm)
    if g is None:
        return None, footprint
    outputs = sum(1 for c in constraints.split(",") if c.strip().startswith("="))
    k = int(g.group(2)) - outputs
    if not 0 <= k < len(args):
        return None, 0  # a guard that names no input: the footprint is not trusted either
    value = args[k].split()[-1]
    return (value, g.group(1) == "!"), footprint


def _access(instr: Instr) -> Access | None:
    body = instr.body
    if "addrspace(3)" not in body:
        return None
    if "getelementptr" in body and "@global_smem" in body:
        # a constant pointer operand, ``ptr addrspace(3) getelementptr inbounds nuw (i8, ptr addrspace(3)
        # @global_smem, i32 16)``: its byte offset (Triton 3.9 stores a reduction's scratch this way)
        body = CONST_SMEM_GEP.sub(_fold_gep, body)
    if instr.opcode == "store":
        m = re.match(r"^store\s+(?:volatile\s+)?(<[^>]+>|\S+)\s+[^,]+,\s*ptr addrspace\(3\)\s+(%[\w$.\-]+|@[\w$.\-]+|\d+)",
                     body)
        if m:
            return Access("store", m.group(2), type_bytes(m.group(1)), instr)
    if instr.opcode == "load":
        m = re.match(r"^load\s+(?:volatile\s+)?(<[^>]+>|[^,]+),\s*ptr addrspace\(3\)\s+(%[\w$.\-]+|@[\w$.\-]+|\d+)",
                     body)
        if m:
            return Access("load", m.group(2), type_bytes(m.group(1)), instr)
    if instr.opcode == "call":
        ptrs = re.findall(r"ptr addrspace\(3\)\s+(?:nonnull\s+|noundef\s+)*(%[\w$.\-]+|@[\w$.\-]+|\d+\b)", body)
        if not ptrs:
            return None
        m = LDMATRIX.search(body)
        if m:
            return Access(m.group(1), ptrs[0], 16, instr)  # each lane supplies one 16-byte row address
        if " asm " in f" {body} ":
            text = _ASM_CALL.search(body)
            if text is not None and "shared" not in text.group(1) and "[" not in text.group(1):
                return None  # the pointer only passes through (wgmma's `// wait for regs: $0, ...`)
            guard, footprint = _asm_guard_and_footprint(body)
            return Access("asm", ptrs[0], 0, instr, guard, footprint)
        return Access("call", ptrs[0], 0, instr)
    return None


def parse_llir(text: str, path: str = "<string>") -> LlirModule:
    """Parse ``text`` (see the module docstring); raises :class:`LlirError` only for oversize or NUL bytes."""
    if len(text) > MAX_LLIR_BYTES:
        raise LlirError(f"{path}:1:1: LLVM IR larger than {MAX_LLIR_BYTES >> 20} MiB")
    if "\x00" in text:
        raise LlirError(f"{path}:{text.count(chr(10), 0, text.index(chr(0))) + 1}:1: NUL byte: not LLVM IR text")
    functions: list[LlirFunction] = []
    locations: dict[str, tuple[int, int]] = {}
    files: list[str] = []
    file_names: dict[str, str] = {}     # DIFile id -> file name
    scope_files: dict[str, str] = {}    # scope id -> its DIFile id
    loc_scopes: dict[str, str] = {}     # location id -> scope id (not inlined)
    subprograms: dict[str, tuple[str, int]] = {}  # DISubprogram id -> (function name, line)
    attributes: dict[str, str] = {}
    current: list[Instr] | None = None
    name = block = header = ""
    for lineno, raw in enumerate(text.split("\n"), 1):
        s = raw.strip()
        if not s or s.startswith(";"):
            continue
        if current is None:
            m = _DEFINE.match(s)
            if m and s.endswith("{"):
                current, name, block, header = [], m.group(1), "", s
                continue
            if s.startswith("attributes #"):
                ref, _, rest = s[len("attributes #"):].partition(" ")
                attributes[ref] = rest
                continue
            m = _DILOC.match(s)
            if m:
                locations[m.group(1)] = (int(m.group(2)), int(m.group(3)))
                sc = _LOC_SCOPE.search(s)
                if sc and "inlinedAt" not in s:
                    loc_scopes[m.group(1)] = sc.group(1)
                continue
            m = _DIFILE.match(s)
            if m:
                files.append(m.group(2))
                file_names[m.group(1)] = m.group(2)
                continue
            m = _DISUBPROGRAM.match(s)
            if m:
                subprograms[m.group(1)] = (m.group(2), int(m.group(3)))
            m = _DISCOPE_FILE.match(s)
            if m:
                scope_files[m.group(1)] = m.group(2)
            continue
        if s == "}":
            defs = {i.result: i for i in current if i.result}
            accesses = tuple(a for a in (_access(i) for i in current) if a is not None)
            functions.append(LlirFunction(name, tuple(current), accesses, defs, header))
            current = None
            continue
        head = s.partition(" ")[0]
        if head.endswith(":") and not s.startswith("%"):
            m = _LABEL.match(s)
            if m:
                block = "%" + m.group(1)
                continue  # a block label
        dbg = None
        k = s.find("!dbg !")
        if k >= 0:  # the usual form, ", !dbg !5": cut by hand (the regex below for any other spacing)
            j = k + 6
            while j < len(s) and s[j].isdigit():
                j += 1
            i = k
            while i > 0 and s[i - 1] in " \t":
                i -= 1
            if i > 0 and s[i - 1] == ",":
                i -= 1
            if j > k + 6 and s.find("!dbg", j) < 0 and s.rfind("!dbg", 0, k) < 0:
                dbg, s = s[k + 6:j], s[:i] + s[j:]
                k = -2
        if k != -2:
            m = _DBG.search(s)
            if m:
                dbg = m.group(1)
                s = s[:m.start()] + s[m.end():]
        name_, eq, rhs = s.partition(" = ")
        if eq and name_.startswith("%") and _SSA_NAME.match(name_):
            rhs = rhs.strip()
            current.append(Instr(name_, _opcode(rhs), rhs, dbg, lineno, block))
            continue
        m = _ASSIGN.match(s)
        if m:
            current.append(Instr(m.group(1), _opcode(m.group(2)), m.group(2).strip(), dbg, lineno, block))
        else:
            current.append(Instr(None, _opcode(s), s, dbg, lineno, block))
    if current is not None:
        raise LlirError(f"{path}:{len(text.splitlines())}:1: unexpected end of file inside function @{name}")
    location_files = {loc: file_names[scope_files[sc]] for loc, sc in loc_scopes.items()
                      if sc in scope_files and scope_files[sc] in file_names}
    location_functions = {loc: subprograms[sc][0] for loc, sc in loc_scopes.items()
                          if sc in subprograms and locations[loc][0] == subprograms[sc][1]}
    return LlirModule(path, tuple(functions), locations, tuple(files), attributes, location_files, location_functions)
