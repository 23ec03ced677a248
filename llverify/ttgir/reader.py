"""Read a TTGIR module as Triton 3.9 prints it (``.asm["ttgir"]``, a cache ``.ttgir``, one dump snapshot).

Triton prints one operation per line; a line ending in ``{`` opens a region
(``scf.for ... {``, ``"tt.reduce"(%x) <{axis = 0 : i32}> ({``, ``} else {``,
``default {``, ``partition0(%a: ...) num_warps(4) {``), a line starting with
``}`` closes one and may carry the rest of the op (``}) : (tensor<...>) ->
tensor<...> loc(#loc3)``), ``^bb0(%a: f32 loc(...)):`` starts a block.  The
reader follows that structure with an explicit stack (no recursion: hostile
nesting cannot overflow the interpreter) and then, for each op, splits the
collected text at top level into results, name, operands, attributes,
type signature and ``loc(...)``.

Types are resolved in program order: an operand's type is its definition's
(function argument, block argument, op result); a result's type comes from
the op's printed signature (``: T``, ``: T -> U``, ``: (T, U) -> V``,
``-> (T)`` of ``scf.for`` / ``scf.if``).  Locations: ``Op.location`` is the
``.ttgir`` line and column; ``Op.source`` follows ``#loc`` aliases, named
locations, ``callsite(callee at caller)`` (the callee) and ``fused[...]`` to a
Python ``file:line:col``.

Only structural breakage raises :class:`~llverify.ttgir.model.TtgirError`
(``file:line:col: message``): unbalanced regions, a truncated module, a line
that is not an operation, limits exceeded.  An op or attribute the reader
does not know is still an ``Op``; an encoding llverify cannot build is a
``TypeRef`` with ``encoding_error``.

>>> m = parse_module('''#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
... module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
...   tt.func public @k(%x: tensor<128xf32, #blocked> loc("x"(#loc))) attributes {noinline = false} {
...     %0 = arith.addf %x, %x : tensor<128xf32, #blocked> loc(#loc1)
...     tt.return loc(#loc)
...   } loc(#loc)
... } loc(#loc)
... #loc = loc("k.py":3:0)
... #loc1 = loc("k.py":4:9)''')
>>> op = next(op for _, op, _ in m.walk())
>>> op.name, op.operands, op.results[0].type.encoding["kind"], str(op.location), str(op.source)
('arith.addf', ('%x', '%x'), 'blocked', '<string>:4:5', 'k.py:4:9')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Sequence

from llverify.ttgir.model import (Block, Function, Location, Module, Op, Region, SourceLocation, TtgirError,
                                  TypeRef, Value)
from llverify.ttgir.syntax import (find_top, matching_close, max_depth_final, rfind_top, split_arrow,
                                   split_top, strip_parens, sub)
from llverify.ttgir.types import AliasTable, parse_typeref, with_element

__all__ = ["parse_module", "parse_modules", "MAX_MODULE_BYTES", "MAX_REGION_DEPTH"]

#: modules larger than this are refused before any work (Triton's largest real modules are a few MB)
MAX_MODULE_BYTES = 64 << 20
#: regions nested deeper than this are refused
MAX_REGION_DEPTH = 256
#: an op's collected text longer than this is refused (a dense constant is printed as a splat)
MAX_OP_CHARS = 1 << 20

_ALIAS = re.compile(r"^#([A-Za-z_][A-Za-z0-9_$.]*)\s*=\s*(.*)$", re.S)
#: an MLIR type alias definition, ``!name = type`` (no dot in the name: ``!tt.ptr`` is a dialect type)
_TYPE_ALIAS = re.compile(r"^!([A-Za-z_][A-Za-z0-9_$]*)\s*=\s*(.*)$", re.S)
_TYPE_ALIAS_USE = re.compile(r"!([A-Za-z_][A-Za-z0-9_$]*)(?![.\w$<])")
#: the start of an attribute or type alias definition, which may be wrapped over several lines
_DEFINITION = re.compile(r"^[#!][A-Za-z_][A-Za-z0-9_$.]*\s*=")
_RESULTS = re.compile(r"^((?:%[\w$.\-]+(?::\d+)?)(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*(?!=)")
_OPNAME = re.compile(r'^(?:"([\w.$]+)"|([A-Za-z_][\w.$]*))')
_VALUE_USE = re.compile(r"%[\w$.\-]+(?:#\d+)?")
#: a use not followed by ``:`` (a definition ``%a: T`` or ``%a:T``) unless by ``:<digit>``; atomic, so a name
#: followed by ``:`` is skipped whole, never matched shorter
_KEPT_USE = re.compile(r"(?>%[\w$.\-]+(?:#\d+)?)(?!:(?!\d))")
_BLOCK_LABEL = re.compile(r"^\^[\w$.\-]+")
_FILE_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_NAMED_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$', re.S)
_CONTINUATION = re.compile(r"^(?:else|do|default|partition\d+\b)")


#: dialect names of Triton 3.0-3.2 and the short names Triton 3.3+ prints; rules match the short ones
_LEGACY_DIALECTS = {"triton_gpu": "ttg", "triton_nvidia_gpu": "ttng"}


def canonical_op_name(name: str) -> str:
    """The operation (or module attribute) name as Triton 3.3+ prints it.

    >>> canonical_op_name("triton_gpu.convert_layout"), canonical_op_name("tt.load")
    ('ttg.convert_layout', 'tt.load')
    """
    dialect, dot, rest = name.partition(".")
    return f"{_LEGACY_DIALECTS[dialect]}.{rest}" if dot and dialect in _LEGACY_DIALECTS else name


@dataclass
class _OpBuilder:
    head: str
    line: int
    col: int
    regions: list["_RegionBuilder"] = field(default_factory=list)
    tails: list[str] = field(default_factory=list)


@dataclass
class _BlockBuilder:
    label: str = ""
    items: list[_OpBuilder] = field(default_factory=list)


@dataclass
class _RegionBuilder:
    owner: _OpBuilder | None
    line: int
    blocks: list[_BlockBuilder] = field(default_factory=lambda: [_BlockBuilder()])
    head: str = ""  # `partition0(%a: T) num_warps(4)`, `else`, `default` (the text before the region's `{`)


def _fail(path: str, line: int, col: int, message: str) -> TtgirError:
    return TtgirError(f"{path}:{line}:{col}: {message}")


# -- locations ---------------------------------------------------------------------------------------

class _Locations:
    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs
        self.memo: dict[str, SourceLocation | None] = {}  # top-level answers (the many ops sharing one loc)

    def resolve(self, text: str | None, depth: int = 0) -> SourceLocation | None:
        if depth == 0 and text is not None:
            if text in self.memo:
                return self.memo[text]
            found = self.memo[text] = self._resolve(text, 0)
            return found
        return self._resolve(text, depth)

    def _resolve(self, text: str | None, depth: int) -> SourceLocation | None:
        if text is None or depth > 64:
            return None
        t = text.strip()
        if t.startswith("loc(") and t.endswith(")"):
            t = t[4:-1].strip()
        if t.startswith("#"):
            return self.resolve(self.defs.get(t[1:]), depth + 1)
        m = _FILE_LOC.match(t)
        if m:
            return SourceLocation(m.group(1), int(m.group(2)), int(m.group(3)))
        m = _NAMED_LOC.match(t)
        if m:
            inner = self.resolve(m.group(2), depth + 1)
            return SourceLocation(inner.file, inner.line, inner.col, m.group(1)) if inner else None
        if t.startswith("callsite(") and t.endswith(")"):
            body = t[len("callsite("):-1]
            parts = split_top(body, " at ")
            for part in parts:
                found = self.resolve(part, depth + 1)
                if found:
                    return found
            return None
        if t.startswith("fused"):
            i = t.find("[")
            if i >= 0 and t.endswith("]"):
                for part in split_top(t[i + 1:-1], ","):
                    found = self.resolve(part, depth + 1)
                    if found:
                        return found
        return None


def _split_loc(text: str) -> tuple[str, str | None]:
    """``"... loc(#loc3)"`` -> (``"..."``, ``"loc(#loc3)"``) for a trailing top-level loc."""
    t = text.rstrip()
    i = rfind_top(t, "loc(")
    if i >= 0 and (i == 0 or not (t[i - 1].isalnum() or t[i - 1] == "_")):
        close = matching_close(t, i + 3)
        if close == len(t) - 1:
            return sub(t, 0, len(t[:i].rstrip())), t[i:]
    return t, None


#: the tokens of an op text's one-pass scan: the signature separator, a location, and every bracket that changes the
#: depth (``->`` is no bracket), as :func:`~llverify.ttgir.syntax._plain_changes` counts them
_OP_TOKENS = re.compile(r" : |loc\(|[(\[{<]|[)\]}]|(?<!-)>")


def _scan_op(text: str) -> tuple[str, str | None, list[int]] | None:
    """One regex pass over an op's text without quotes or backslashes: ``(body, loc, colons)`` where ``(body,
    loc)`` is :func:`_split_loc`'s answer and ``colons`` the positions of every `` : `` at depth 0 (in ``text``,
    which starts ``body``), in order; None where the text has quotes or backslashes (strings change the scan) or
    `` : : `` (overlapping separators, which one pass does not list): the general path reads those.

    The depth is the bracket scan's (every open +1, every close -1 but never below 0): a `` : `` or ``loc(`` is
    at depth 0 when the depth before it is 0, as :func:`~llverify.ttgir.syntax.depth_at` says."""
    if '"' in text or "\\" in text or " : : " in text:
        return None
    t = text.rstrip()
    depth = 0
    colons: list[int] = []
    loc_at = -1      # the last `loc(` at depth 0
    loc_close = -1   # where the depth first came back to 0 after it
    for m in _OP_TOKENS.finditer(t):
        tok = m.group()
        if tok == " : ":
            if not depth:
                colons.append(m.start())
            continue
        if tok == "loc(":
            if not depth:
                loc_at, loc_close = m.start(), -1
            depth += 1
        elif tok in "([{<":
            depth += 1
        elif depth:
            depth -= 1
            if not depth and loc_at >= 0 and loc_close < 0:
                loc_close = m.start()
    if (loc_at >= 0 and loc_close == len(t) - 1
            and (loc_at == 0 or not (t[loc_at - 1].isalnum() or t[loc_at - 1] == "_"))):
        return t[:len(t[:loc_at].rstrip())], t[loc_at:], colons
    return t, None, colons


#: the tokens of a type signature's one-pass scan: the arrow (whose ``>`` closes nothing), commas, brackets
_SIG_TOKENS = re.compile(r"->|,|[(\[{<]|[)\]}>]")


def _split_signature_plain(sig: str) -> tuple[list[str], list[str] | None] | None:
    """The operand and result type texts of a signature without quotes, backslashes, casts (`` to ``) or `` * ``
    (nearly every op's), in one regex pass: what ``_read_signature``'s ``split_arrow`` / ``strip_parens`` /
    ``split_top`` compute (``A -> B`` at the first top-level arrow, a side's enclosing parentheses dropped, each
    side split at its top-level commas, blank parts left out); None for any other signature.

    Every piece starts at depth 0 of the whole text (after the arrow, after a top-level comma) or 1 (inside
    parentheses that close at the piece's end, where the depth never falls to 0), so its own scan is the whole
    text's, shifted: one scan answers every split."""
    if '"' in sig or "\\" in sig or " to " in sig or " * " in sig:
        return None
    depth = 0
    marks: list[tuple[int, str, int]] = []  # (position, token, depth before it)
    arrow = -1
    for m in _SIG_TOKENS.finditer(sig):
        tok = m.group()
        i = m.start()
        if tok == "->":
            if not depth and arrow < 0:
                arrow = i
            continue
        marks.append((i, tok, depth))
        if tok in "([{<":
            depth += 1
        elif tok != "," and depth:
            depth -= 1
    if arrow < 0:
        return _signature_side(sig, 0, len(sig), marks), None
    return _signature_side(sig, 0, arrow, marks), _signature_side(sig, arrow + 2, len(sig), marks)


def _signature_side(sig: str, a: int, b: int, marks: list[tuple[int, str, int]]) -> list[str]:
    """``[t for t in split_top(strip_parens(sig[a:b]), ",") if t.strip()]`` from the scan ``marks`` of ``sig``
    (``sig[a:b]`` starts at depth 0; see :func:`_split_signature_plain`)."""
    text = sig[a:b]
    a += len(text) - len(text.lstrip())
    b = a + len(text.strip())
    level = 0
    if b > a and sig[a] == "(":
        # strip_parens: the `(` at a closes at b - 1 when the depth first returns to 0 there
        close = next((i for i, tok, d in marks if a < i < b and d == 1 and tok not in "([{<,"), -1)
        if close == b - 1:
            a, b, level = a + 1, b - 1, 1
    parts, start = [], a
    for i, tok, d in marks:
        if a <= i < b and tok == "," and d == level:
            parts.append(sig[start:i])
            start = i + 1
    parts.append(sig[start:b])
    return [p for p in parts if p.strip()]


# -- module structure ----------------------------------------------------------------------------------

def _strip_comment(line: str) -> str:
    """The line without surrounding blanks and without a ``//`` comment (outside strings)."""
    s = line.strip()
    if s.startswith("//"):
        return ""
    if "//" in s:
        in_str = False
        prev = ""
        for i, ch in enumerate(s):
            if ch == '"' and prev != "\\":
                in_str = not in_str
            elif not in_str and ch == "/" and prev == "/" and (i < 2 or s[i - 2] in " \t"):
                return s[:i - 1].rstrip()
            prev = ch
    return s


_CONTINUES = (",", ":", "=", "->", "(", "*")
#: a line starting with one of these continues the previous op (MLIR is free-form; Triton never prints this)
_LEADS = ("->", "* ", ": ", "{")


def _attributes_open(header: str) -> bool:
    """Whether a module header's ``attributes {...}`` dictionary is still open (quoted text skipped).

    >>> _attributes_open('module attributes {'), _attributes_open('module attributes {"a" = 1 : i32} {')
    (True, False)
    """
    i = header.find("attributes")
    j = header.find("{", i) if i >= 0 else -1
    if j < 0:
        return False
    depth, quoted, k = 0, False, j
    while k < len(header):
        ch = header[k]
        if quoted:
            if ch == "\\":
                k += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return False
        k += 1
    return True


def _logical_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Physical lines joined where an op continues (unbalanced brackets, a trailing ``,`` ``:`` ``->``...):
    MLIR allows ``tt.func @f(\n  %a: ...,\n  %b: ...) {`` and ``tt.dot %a, %b, %c :\n  T * T -> T``.
    Yields (first line number, joined text with the first line's indentation)."""
    buf: list[str] = []
    start = 0
    stripped = [_strip_comment(raw) for raw in lines]
    following = [""] * (len(lines) + 1)  # the next non-blank (comment-free) line after each line
    for i in range(len(lines) - 1, -1, -1):
        following[i] = stripped[i + 1] if i + 1 < len(lines) and stripped[i + 1] else following[i + 1]
    for lineno, raw in enumerate(lines, 1):
        s = stripped[lineno - 1]
        if not s:
            continue
        if not buf:
            start = lineno
            buf.append(raw[:len(raw) - len(raw.lstrip())] + s)
        else:
            buf.append(s)
        text = " ".join(buf) if len(buf) > 1 else buf[0]
        body = text.strip()
        if body.startswith("module") and _attributes_open(body):
            continue  # a hand-wrapped module header: `module attributes {` / `"ttg.num-warps" = 4 : i32,` / `} {`
        if body[:1] in "#!" and len(buf) <= 10_000 and _DEFINITION.match(body) and max_depth_final(body) > 0:
            continue  # a hand-wrapped alias: `#blocked = #ttg.blocked<{` / `sizePerThread = [1, 1],` / ... `}>`
        if (body.endswith("{") or body.startswith(("}", "^"))
                or (not body.endswith(_CONTINUES) and max_depth_final(body) <= 0)):
            if not body.endswith("{") and not body.startswith("^") and following[lineno - 1].startswith(_LEADS):
                continue  # hand-wrapped lit tests: the next line goes on with `-> T`, `* T`, `: T`, `{attrs}`
            yield start, text
            buf = []
        elif len(buf) > 10_000:
            yield start, text  # a runaway continuation: let the op parser report it
            buf = []
    if buf:
        yield start, " ".join(buf)


def parse_module(text: str, path: str = "<string>", stage: str = "") -> Module:
    """Parse one TTGIR module (see the module docstring); a text holding several top-level modules is refused
    at the second (:func:`parse_modules` reads them all)."""
    modules = parse_modules(text, path, stage)
    if len(modules) > 1:
        raise _fail(path, modules[1].line or 1, 1, "a second top-level module: read the file with parse_modules "
                                                     "(llverify ttgir reads every module of a file)")
    return modules[0]


def _expand_type_aliases(text: str, table: Mapping[str, str]) -> str:
    """``!name`` references replaced by their definitions (which were expanded when defined)."""
    return _TYPE_ALIAS_USE.sub(lambda m: table.get(m.group(1), m.group(0)), text)


def parse_modules(text: str, path: str = "<string>", stage: str = "") -> list[Module]:
    """Every top-level module of ``text`` in order (MLIR allows several in one file; Triton's lit tests do this
    without ``// -----``), each with the file's line numbers. Attribute, type and location aliases are the
    file's: defined once, visible to every module after the definition (MLIR's rule)."""
    if len(text) > MAX_MODULE_BYTES:
        raise _fail(path, 1, 1, f"module larger than {MAX_MODULE_BYTES >> 20} MiB")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise _fail(path, line, 1, "NUL byte: not a text module")
    lines = text.split("\n")
    aliases = AliasTable()
    type_aliases: dict[str, str] = {}
    loc_defs: dict[str, str] = {}
    finished: list[tuple[_RegionBuilder, dict[str, str], int, dict[str, str]]] = []
    in_force: dict[str, str] = {}  # the type aliases defined before the current module (MLIR: define before use)
    module_attrs: dict[str, str] = {}
    module_line = 0
    top = _RegionBuilder(None, 0)
    stack: list[_RegionBuilder] = []
    last_closed: _OpBuilder | None = None
    module_closed = False
    implicit = False
    for lineno, raw in _logical_lines(lines):
        s = raw.strip()
        if not s:
            continue
        col = len(raw) - len(raw.lstrip()) + 1
        if not stack:
            m = _ALIAS.match(s)
            if m:
                name, value = m.group(1), m.group(2).strip()
                if value.startswith("loc("):
                    loc_defs[name] = value
                else:
                    aliases.define(name, value)
                continue
            m = _TYPE_ALIAS.match(s)
            if m:
                type_aliases[m.group(1)] = _expand_type_aliases(m.group(2).strip(), type_aliases)
                continue
            if s.startswith("module") and s.endswith("{") and not implicit:
                if module_closed:  # a further top-level module
                    top, module_attrs, last_closed, module_closed = _RegionBuilder(None, 0), {}, None, False
                module_line = lineno
                in_force = dict(type_aliases)
                head = s[len("module"):-1].strip()
                if head.startswith("@"):
                    head = head.split(None, 1)[1] if " " in head else ""
                if head.startswith("attributes"):
                    module_attrs = _attr_dict(head[len("attributes"):].strip())
                stack.append(top)
                continue
            if not module_line and (s.startswith("tt.func") or _RESULTS.match(s)) and _OPNAME.match(s):
                # MLIR's implicit module: top-level ops without a `module { }` (Triton's lit tests)
                module_line = lineno
                in_force = dict(type_aliases)
                implicit = True
                stack.append(top)
            else:
                raise _fail(path, lineno, col, f"expected an alias definition or 'module attributes {{...}} {{', "
                                               f"found {s[:40]!r}")
        if s.startswith("}"):
            if implicit and len(stack) == 1:
                raise _fail(path, lineno, col, "unbalanced '}' at the top level")
            region = stack.pop()
            rest = s[1:].strip()
            if not stack:
                module_closed = True
                finished.append((top, module_attrs, module_line, in_force))
                if rest and not rest.startswith("loc("):
                    raise _fail(path, lineno, col + 1, f"unexpected text after the module's closing brace: {rest[:40]!r}")
                continue
            owner = region.owner
            assert owner is not None
            if rest.endswith("{"):
                new = _RegionBuilder(owner, lineno, head=rest[:-1].strip())
                owner.regions.append(new)
                stack.append(new)
                continue
            if rest:
                owner.tails.append(rest)
            last_closed = owner
            continue
        if len(stack) > MAX_REGION_DEPTH:
            raise _fail(path, lineno, col, f"regions nested deeper than {MAX_REGION_DEPTH}")
        current = stack[-1]
        if _BLOCK_LABEL.match(s):
            if current.blocks[-1].items or current.blocks[-1].label:
                current.blocks.append(_BlockBuilder(s))
            else:
                current.blocks[-1].label = s
            continue
        if s.endswith("{") and _CONTINUATION.match(s) and last_closed is not None and last_closed in _items(current):
            new = _RegionBuilder(last_closed, lineno, head=s[:-1].strip())
            last_closed.regions.append(new)
            stack.append(new)
            continue
        if s.startswith((":", ")")) and last_closed is not None and last_closed in _items(current):
            last_closed.tails.append(s)  # a signature printed after a region list
            continue
        if not (_RESULTS.match(s) or _OPNAME.match(s)):
            raise _fail(path, lineno, col, f"expected an operation, found {s[:40]!r}")
        op = _OpBuilder(s[:-1].rstrip() if s.endswith("{") else s, lineno, col)
        current.blocks[-1].items.append(op)
        last_closed = op if not s.endswith("{") else None
        if s.endswith("{"):
            region = _RegionBuilder(op, lineno)
            op.regions.append(region)
            stack.append(region)
    if implicit and stack == [top]:
        stack.pop()
        finished.append((top, module_attrs, module_line, in_force))
    if stack:
        open_line = stack[-1].line or module_line
        raise _fail(path, len(lines), 1, f"unexpected end of module: {len(stack)} region(s) still open "
                                         f"(innermost opened at line {open_line})")
    if not finished:
        raise _fail(path, 1, 1, "no 'module' found: not a TTGIR module")
    locs = _Locations(loc_defs)
    return [_Assembler(path, aliases, locs, types).module(body, attrs, stage, line)
            for body, attrs, line, types in finished]


def _items(region: _RegionBuilder) -> list[_OpBuilder]:
    return region.blocks[-1].items


def _attr_dict(text: str) -> dict[str, str]:
    """``{a = 1 : i32, "b.c" = "x", flag}`` -> ``{"a": "1 : i32", "b.c": '"x"', "flag": "unit"}``."""
    t = text.strip()
    if t.startswith("<{") and t.endswith("}>"):
        t = t[1:-1]
    if not (t.startswith("{") and t.endswith("}")):
        return {}
    out: dict[str, str] = {}
    for part in split_top(t[1:-1], ","):
        part = part.strip()
        if not part:
            continue
        eq = find_top(part, "=")
        if eq < 0:
            out[part.strip('"')] = "unit"
        else:
            out[part[:eq].strip().strip('"')] = part[eq + 1:].strip()
    return out


# -- ops -----------------------------------------------------------------------------------------------

class _Assembler:
    """Second pass: turn builders into the immutable model, resolving types in program order."""

    def __init__(self, path: str, aliases: AliasTable, locs: _Locations,
                 type_aliases: Mapping[str, str] | None = None) -> None:
        self.path, self.aliases, self.locs = path, aliases, locs
        self.type_aliases = type_aliases or {}
        self.types: dict[str, TypeRef] = {}
        self.type_cache: dict[str, TypeRef] = {}
        # per signature text (ops share them): its attribute dicts and the text without them, and its types
        self.sig_dicts: dict[str, tuple[dict[str, str], str]] = {}
        self.sig_types: dict[str, tuple[list[TypeRef], list[TypeRef] | None, list[TypeRef]]] = {}

    def typeref(self, text: str) -> TypeRef:
        t = text.strip()
        hit = self.type_cache.get(t)
        if hit is None:
            hit = parse_typeref(_expand_type_aliases(t, self.type_aliases) if self.type_aliases and "!" in t else t,
                                self.aliases)
            self.type_cache[t] = hit
        return hit

    def module(self, top: _RegionBuilder, attrs: dict[str, str], stage: str, line: int = 0) -> Module:
        attrs = {canonical_op_name(k.strip('"')): v for k, v in attrs.items()}  # "triton_gpu.num-warps"
        functions: list[Function] = []
        for item in top.blocks[0].items if top.blocks else []:
            fn = self.function(item) if _OPNAME.match(item.head) and item.head.startswith("tt.func") else None
            if fn is not None:
                functions.append(fn)
        return Module(path=self.path, target=_unquote(attrs.get("ttg.target", "")),
                      num_warps=_int_attr(attrs.get("ttg.num-warps"), 4),
                      threads_per_warp=_int_attr(attrs.get("ttg.threads-per-warp"), 32),
                      num_ctas=_int_attr(attrs.get("ttg.num-ctas"), 1), functions=tuple(functions),
                      aliases={**self.aliases.specs, **{k: f"error: {v}" for k, v in self.aliases.errors.items()}},
                      attributes=attrs, stage=stage, line=line)

    def function(self, b: _OpBuilder) -> Function:
        head, loc = _split_loc(b.head)
        m = _FUNC_HEAD.match(head)
        if not m:
            raise _fail(self.path, b.line, b.col, f"malformed tt.func: {head[:60]!r}")
        fname = m.group(2) if m.group(2) is not None else _unescape_symbol(m.group(3))
        self.types = {}  # tt.func is isolated from above: SSA names do not carry over from the previous function
        rest = head[m.end():]
        args: list[Value] = []
        results: tuple[TypeRef, ...] = ()
        if rest.startswith("("):
            close = matching_close(rest, 0)
            if close < 0:
                raise _fail(self.path, b.line, b.col, "unbalanced argument list of tt.func")
            args = self.block_args(rest[1:close])
            rest = rest[close + 1:].strip()
        if rest.startswith("->"):
            sig = rest[2:]
            cut = find_top(sig, "attributes")
            res = sig[:cut] if cut >= 0 else sig
            results = tuple(self.typeref(t) for t in split_top(strip_parens(res.strip()), ",") if t.strip())
        body = self.region(b.regions[0]) if b.regions else Region(())
        return Function(fname, tuple(args), results, body, Location(self.path, b.line, b.col),
                        self.locs.resolve(loc), public=(m.group(1) or "public") == "public")

    def block_args(self, text: str) -> list[Value]:
        out = []
        for part in split_top(text, ","):
            part, _ = _split_loc(part.strip())
            if not part:
                continue
            name, _, ty = part.partition(":")
            ty = ty.strip()
            brace = find_top(ty, "{")
            if brace > 0:
                ty = ty[:brace].strip()  # argument attributes {tt.divisibility = 16 : i32}
            ref = self.typeref(ty) if ty else TypeRef("", "other")
            v = Value(name.strip(), ref)
            self.types[v.name] = ref
            out.append(v)
        return out

    def region(self, r: _RegionBuilder, header_args: Sequence[str] = ()) -> Region:
        """``header_args``: the op header's block arguments (``scf.for``: induction variable, then iter_args),
        given to the entry block."""
        blocks = []
        for k, bb in enumerate(r.blocks):
            args: list[Value] = []
            if k == 0 and header_args:
                args = [Value(a, self.types.get(a, TypeRef("", "other"))) for a in header_args]
            if bb.label:
                lab = bb.label.rstrip(":").strip()
                i = lab.find("(")
                if i >= 0 and lab.endswith(")"):
                    args = self.block_args(lab[i + 1:-1])
            elif not blocks:
                m = _PARTITION_HEAD.match(r.head)
                if m:  # `partition0(%a: T, ...) num_warps(4)`: the partition region's block arguments
                    args = self.block_args(m.group(1))
            blocks.append(Block(tuple(args), tuple(self.op(o) for o in bb.items)))
        return Region(tuple(blocks))

    def op(self, b: _OpBuilder) -> Op:
        text = " ".join([b.head, *b.tails])
        if len(text) > MAX_OP_CHARS:
            raise _fail(self.path, b.line, b.col, f"operation longer than {MAX_OP_CHARS} characters")
        scan = _scan_op(text)  # one pass over nearly every op (no quotes); the general path reads the others
        body, loc = (scan[0], scan[1]) if scan is not None else _split_loc(text)
        results_text = ""
        start = 0  # where the op name starts in the text
        m = _RESULTS.match(body)
        if m:
            results_text = m.group(1)
            start = m.end()
            body = body[start:] if scan is not None else sub(body, start, len(body))
        nm = _OPNAME.match(body)
        if not nm:
            raise _fail(self.path, b.line, b.col, f"expected an operation name, found {body[:40]!r}")
        name = canonical_op_name(nm.group(1) or nm.group(2))
        if scan is not None:
            # the results and the name hold no bracket, so `rest` scans as the text from `start` on: its last
            # top-level ` : ` is the text's last one inside it
            rest = body[nm.end():]
            start += nm.end()
            end = start + len(rest)
            inside = [c - start for c in scan[2] if start <= c and c + 3 <= end]
            sig_at, sig_end = (inside[-1], inside[-1] + 3) if inside else _signature_colon(rest)
            before_sig = rest if sig_at < 0 else rest[:sig_at]
            signature = "" if sig_at < 0 else rest[sig_end:]
        else:
            rest = sub(body, nm.end(), len(body))
            sig_at, sig_end = _signature_colon(rest)
            before_sig = rest if sig_at < 0 else sub(rest, 0, sig_at)
            signature = "" if sig_at < 0 else sub(rest, sig_end, len(rest))
        # region-header block arguments (scf.for induction variable, iter_args, scf.while before-args)
        region_args = self._region_header_args(name, rest)
        attrs: dict[str, str] = {}
        for brace in _top_dicts(before_sig):
            attrs.update(_attr_dict(brace))
        sig = self.sig_dicts.get(signature)
        if sig is None:
            sig_attrs: dict[str, str] = {}
            for brace in _top_dicts(signature):
                sig_attrs.update(_attr_dict(brace))
            sig = self.sig_dicts[signature] = (sig_attrs, _remove_dicts(signature).strip())
        attrs.update(sig[0])
        signature = sig[1]
        if name == "ttg.warp_specialize" and "partitionNumWarps" not in attrs:
            # Triton 3.9 prints each worker's warp count only in its region header: `partition0(...) num_warps(2) {`
            counts = [m.group(2) for r in b.regions for m in [_PARTITION_HEAD.match(r.head)] if m]
            if counts:
                attrs["partitionNumWarps"] = f"array<i32: {', '.join(counts)}>"
        operand_text = _remove_dicts(before_sig)
        defined = {a for a, _ in region_args}
        operands = tuple(u for u in _uses(operand_text) if u not in defined)
        if name == "ttg.local_atomic_scatter_rmw" and len(operands) >= 3:
            # printed `%dst[%indices], %values, %mask` but typed `functional-type(operands)`: dst, values, indices, mask
            operands = (operands[0], operands[2], operands[1], *operands[3:])
        result_names = _result_names(results_text)
        lhs_types, rhs_types, for_results = self._signature(name, rest, signature)
        if name == "arith.constant" and not signature.strip() and re.fullmatch(r"\s*(?:true|false)\s*",
                                                                               _remove_dicts(before_sig)):
            lhs_types = [self.typeref("i1")]  # MLIR prints an i1 constant bare: `%true = arith.constant true`
        res_types = self._result_types(name, result_names, lhs_types, rhs_types, for_results, operands)
        if rhs_types is None and not for_results:
            res_types = [_implied_element(name, t) for t in res_types]
        results = []
        for rn, rt in zip(result_names, res_types):
            v = Value(rn, rt)
            self.types[rn] = rt
            results.append(v)
        # block arguments of the region header get types too
        for (arg, _), ty in zip(region_args, self._region_arg_types(name, signature, for_results, operands)):
            self.types[arg] = ty
        op_types = []
        for i, u in enumerate(operands):
            t = self.types.get(u)
            if t is None and lhs_types and len(lhs_types) == len(operands):
                t = lhs_types[i]
            op_types.append(t)
        header = [a for a, _ in region_args] if name == "scf.for" else []
        regions = tuple(self.region(r, header if i == 0 else ()) for i, r in enumerate(b.regions))
        printed: tuple[TypeRef, ...] = ()
        if lhs_types and rhs_types is not None:
            if len(lhs_types) == len(operands):
                printed = tuple(lhs_types)
            elif name in ("tt.dot", "tt.dot_scaled") and len(lhs_types) + 1 == len(operands) and len(rhs_types) == 1:
                printed = (*lhs_types, rhs_types[0])  # `A * B -> C`: the accumulator has the result's type
        return Op(name, tuple(results), operands, tuple(op_types), attrs, regions,
                  Location(self.path, b.line, b.col), self.locs.resolve(loc), b.head[:200], printed)

    def _region_header_args(self, name: str, rest: str) -> list[tuple[str, str]]:
        out = []
        if name == "scf.for":
            m = re.match(r"^\s*(%[\w$.\-]+)\s*=", rest)
            if m:
                out.append((m.group(1), "iv"))
        i = rest.find("iter_args(") if name == "scf.for" else (rest.find("(") if name == "scf.while" else -1)
        if i >= 0:
            start = rest.find("(", i)
            close = matching_close(rest, start)
            if close > 0:
                for part in split_top(rest[start + 1:close], ","):
                    lhs = part.split("=")[0].strip()
                    if lhs.startswith("%"):
                        out.append((lhs, "iter"))
        return out

    def _region_arg_types(self, name: str, signature: str, for_results: list[TypeRef],
                          operands: tuple[str, ...]) -> list[TypeRef]:
        if name == "scf.for":
            iv = self.typeref(signature) if signature.strip() else TypeRef("index", "scalar", (), "index")
            return [iv, *for_results]
        if name == "scf.while":
            lhs, _ = split_arrow(signature)
            return [self.typeref(t) for t in split_top(strip_parens(lhs), ",") if t.strip()]
        return []

    def _signature(self, name: str, rest: str, signature: str) -> tuple[list[TypeRef], list[TypeRef] | None,
                                                                       list[TypeRef]]:
        """(operand types, result types or None, region-op result types) of the printed signature; outside the
        region ops (which read ``rest``) a function of the signature text, so kept per text (callers do not
        mutate the lists)."""
        if name in _REGION_RESULT_OPS:
            return self._read_signature(name, rest, signature)
        hit = self.sig_types.get(signature)
        if hit is None:
            hit = self.sig_types[signature] = self._read_signature(name, rest, signature)
        return hit

    def _read_signature(self, name: str, rest: str, signature: str) -> tuple[list[TypeRef], list[TypeRef] | None,
                                                                             list[TypeRef]]:
        for_results: list[TypeRef] = []
        if name in _REGION_RESULT_OPS:
            sig_at, _ = _signature_colon(rest)
            head = rest if sig_at < 0 or name == "scf.if" else rest[:sig_at]
            head = _remove_dicts(head)  # `-> (T, U) {tt.num_stages = 3 : i32}`: the trailing attributes are no type
            arrow = find_top(head, "->")
            if arrow >= 0:
                tail = head[arrow + 2:].strip()
                for_results = [self.typeref(t) for t in split_top(strip_parens(tail), ",") if t.strip()]
            if name != "scf.for":
                return [], None, for_results
        if not signature.strip() or name == "scf.for":
            return [], None, for_results
        plain = _split_signature_plain(signature)
        if plain is not None:
            return ([self.typeref(t) for t in plain[0]], None if plain[1] is None else
                    [self.typeref(t) for t in plain[1]], for_results)
        lhs, rhs = split_arrow(signature)
        if rhs is None:
            cast = find_top(signature, " to ")
            if cast >= 0:  # casts print `: A to B` (arith.extf, arith.truncf, arith.bitcast, ...)
                lhs, rhs = signature[:cast], signature[cast + 4:]
        lhs_types = [self.typeref(t) for part in split_top(strip_parens(lhs), ",")
                     for t in split_top(part, " * ") if t.strip()]
        rhs_types = None if rhs is None else [self.typeref(t) for t in split_top(strip_parens(rhs), ",") if t.strip()]
        return lhs_types, rhs_types, for_results

    def _result_types(self, name: str, names: list[str], lhs: list[TypeRef], rhs: list[TypeRef] | None,
                      for_results: list[TypeRef], operands: tuple[str, ...]) -> list[TypeRef]:
        n = len(names)
        if name == "arith.select" and rhs is None and len(lhs) == 2:
            # `arith.select %c, %a, %b : tensor<..xi1>, tensor<..xf32>`: condition type first, result type last
            return [lhs[1]] * n
        if for_results:
            cand = for_results
        elif rhs is not None:
            cand = rhs
        elif len(lhs) == n:
            cand = lhs
        elif len(lhs) >= 1:
            cand = [lhs[0]] * n
        else:
            cand = []
        if len(cand) == n:
            return list(cand)
        if len(cand) == 1:
            return list(cand) * n
        unknown = TypeRef("", "other")
        return (list(cand) + [unknown] * n)[:n]


# `tt.func private @name(...)`, or a quoted symbol `@"triton.language.standard.zeros__(0, 0)c..."` (the
# not-yet-inlined helpers of the early snapshots of an MLIR_ENABLE_DUMP; MLIR escapes `"` and `\` inside)
_FUNC_HEAD = re.compile(r'^tt\.func\s+(?:(public|private|nested)\s+)?@(?:([\w$.\-]+)|"((?:[^"\\\n]|\\.)*)")\s*')


def _unescape_symbol(text: str) -> str:
    """The content of a quoted MLIR symbol: ``\\"``, ``\\\\`` and two-digit hex escapes ``\\22``."""
    return re.sub(r"\\([0-9a-fA-F]{2}|.)", lambda m: chr(int(m.group(1), 16)) if len(m.group(1)) == 2
                  else m.group(1), text)


#: ops whose results are typed after the op header (``-> (T, U)``), not by the signature alone
_REGION_RESULT_OPS = ("scf.for", "scf.if", "scf.execute_region", "scf.index_switch")

_PARTITION_HEAD = re.compile(r"^partition\d+\s*\((.*)\)\s*num_warps\s*\(\s*(\d+)\s*\)\s*$", re.S)


def _signature_colon(rest: str) -> tuple[int, int]:
    """Where an op's type signature starts: the last top-level `` : ``, or a `:` glued to the operand before it
    (``%b: tensor<...>``, ``{axis = 1 : i32}: tensor<...>``, ``%d[%i]: !tt.tensordesc<...>``, all of which MLIR
    accepts); (start, end of the separator), or (-1, -1)."""
    i = rfind_top(rest, " : ")
    if i >= 0:
        return i, i + 3
    j = rfind_top(rest, ": ")
    if j > 0 and not rest[j - 1].isspace():
        return j, j + 2
    return -1, -1


def _implied_element(name: str, t: TypeRef) -> TypeRef:
    """Ops whose printed type is the operand's: the result's element type follows from the op."""
    if name in ("arith.cmpi", "arith.cmpf"):
        return with_element(t, "i1")
    if name in ("tt.load", "tt.atomic_rmw", "tt.atomic_cas") and t.element.startswith("!tt.ptr<"):
        inner = t.element[len("!tt.ptr<"):-1].split(",")[0].strip()
        return with_element(t, inner)
    return t


def _result_names(text: str) -> list[str]:
    out: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ":" in part:
            base, count = part.split(":", 1)
            out.extend(f"{base}#{i}" for i in range(int(count)))
        else:
            out.append(part)
    return out


def _top_dicts(text: str) -> list[str]:
    """Top-level ``{...}`` attribute dicts and ``<{...}>`` property dicts of an op's text."""
    out: list[str] = []
    if "{" not in text:
        return out
    i = 0
    while True:
        j = find_top(text, "{", i)
        k = find_top(text, "<{", i)
        if k >= 0 and (j < 0 or k < j):
            close = matching_close(text, k)
            if close < 0:
                return out
            out.append(text[k:close + 1])
            i = close + 1
            continue
        if j < 0:
            return out
        close = matching_close(text, j)
        if close < 0:
            return out
        out.append(text[j:close + 1])
        i = close + 1


def _remove_dicts(text: str) -> str:
    for d in _top_dicts(text):
        text = text.replace(d, " ", 1)
    return text


def _uses(text: str) -> list[str]:
    """SSA uses in order: ``%name`` / ``%name#i``, excluding block-argument definitions ``%a: type``."""
    if ":" not in text:
        return _VALUE_USE.findall(text)
    if text.isascii():  # (``str.isdigit`` and ``\\d`` agree on ASCII only)
        return _KEPT_USE.findall(text)
    out = []
    for m in _VALUE_USE.finditer(text):
        after = text[m.end():m.end() + 2]
        if after.startswith(":") and not after.startswith(": ") and not after[1:2].isdigit():
            continue
        if after.startswith(": "):
            continue  # `%arg: type` in an argument list
        out.append(m.group())
    return out


def _unquote(text: str) -> str:
    t = text.strip()
    return t[1:-1] if len(t) >= 2 and t[0] == t[-1] == '"' else t


def _int_attr(text: str | None, default: int) -> int:
    if not text:
        return default
    head = text.split(":")[0].strip()
    return int(head) if head.lstrip("-").isdigit() and len(head) < 12 else default
