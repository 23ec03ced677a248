"""The first pass of the TTGIR reader: logical lines into nested builders (modules, regions, blocks, op texts).

A line ending in ``{`` opens a region (``scf.for ... {``, ``"tt.reduce"(%x) <{axis = 0 : i32}> ({``,
``} else {``, ``default {``, ``partition0(%a: ...) num_warps(4) {``); a line starting with ``}`` closes one and
may carry the rest of the op (``}) : (tensor<...>) -> tensor<...> loc(#loc3)``); ``^bb0(%a: f32 loc(...)):``
starts a block.  The nesting is followed with an explicit stack (no recursion: hostile nesting cannot overflow
the interpreter).  Top-level lines define attribute, type and location aliases (``#name = ...``, ``!name = ...``,
``#loc3 = loc(...)``), open a module (``module attributes {...} {``) or, with no ``module``, start MLIR's
implicit one.  Op texts are kept as text here: :mod:`llverify.ttgir.assemble` reads them.

Structural breakage raises :class:`~llverify.ttgir.model.TtgirError` (``file:line:col: message``): unbalanced
regions, a truncated module, a line that is not an operation, regions nested deeper than
:data:`MAX_REGION_DEPTH`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Match

from llverify.ttgir.lines import logical_lines, strip_comment
from llverify.ttgir.model import TtgirError
from llverify.ttgir.op_line import LOC_LINE, OP_LINE
from llverify.ttgir.op_text import OPNAME, RESULTS, attr_dict
from llverify.ttgir.syntax import depth_at
from llverify.ttgir.types import AliasTable, expand_type_aliases

__all__ = ["MAX_REGION_DEPTH", "OpBuilder", "BlockBuilder", "RegionBuilder", "ModuleText", "Structure",
           "read_structure", "fail"]

#: regions nested deeper than this are refused
MAX_REGION_DEPTH = 256

_ALIAS = re.compile(r"^#([A-Za-z_][A-Za-z0-9_$.]*)\s*=\s*(.*)$", re.S)
#: an MLIR type alias definition, ``!name = type`` (no dot in the name: ``!tt.ptr`` is a dialect type)
_TYPE_ALIAS = re.compile(r"^!([A-Za-z_][A-Za-z0-9_$]*)\s*=\s*(.*)$", re.S)
_BLOCK_LABEL = re.compile(r"^\^[\w$.\-]+")
_CONTINUATION = re.compile(r"^(?:else|do|default|partition\d+\b)")


@dataclass(slots=True)
class OpBuilder:
    """One op as text: its header line (without a trailing ``{``), where it starts, its regions, the text
    printed after its regions' closing braces (``tails``), and the header's common-line match (``fast``)."""
    head: str
    line: int
    col: int
    regions: list["RegionBuilder"] = field(default_factory=list)
    tails: list[str] = field(default_factory=list)
    fast: Match[str] | None = None  # :func:`~llverify.ttgir.op_line.fast_line`'s match of the head, if any


@dataclass
class BlockBuilder:
    """A block: its label line (``^bb0(%a: f32):``, empty for an entry block without one) and its ops."""
    label: str = ""
    items: list[OpBuilder] = field(default_factory=list)


@dataclass
class RegionBuilder:
    """A region of ``owner`` (None: a module's body), opened at ``line``.  ``owner`` is read only while the region
    is open and cleared when it closes: the builders then form no reference cycle and a module's are freed by
    reference counting, not left to the cyclic collector (:mod:`llverify.ttgir.collector`)."""
    owner: OpBuilder | None
    line: int
    blocks: list[BlockBuilder] = field(default_factory=lambda: [BlockBuilder()])
    head: str = ""  # `partition0(%a: T) num_warps(4)`, `else`, `default` (the text before the region's `{`)


@dataclass(frozen=True)
class ModuleText:
    """One top-level module: its body, its attribute texts, its line, and the type aliases defined before it."""
    body: RegionBuilder
    attributes: dict[str, str]
    line: int
    type_aliases: dict[str, str]


@dataclass(frozen=True)
class Structure:
    """A file's modules in order, its layout aliases and its location aliases (``name -> loc(...)`` text)."""
    modules: list[ModuleText]
    aliases: AliasTable
    loc_defs: dict[str, str]


def fail(path: str, line: int, col: int, message: str) -> TtgirError:
    """The located error ``path:line:col: message``."""
    return TtgirError(f"{path}:{line}:{col}: {message}")


def read_structure(lines: list[str], path: str, aliases_only: bool = False) -> Structure:
    """The modules of a file's physical ``lines`` (see the module docstring).  ``aliases_only``: a text of alias
    definitions only is MLIR's empty module (a ``// -----`` chunk of a split file) rather than an error (a whole
    file of aliases only is more likely a truncated module).

    Postcondition: at least one module; every region opened is closed."""
    aliases = AliasTable()
    type_aliases: dict[str, str] = {}
    loc_defs: dict[str, str] = {}
    finished: list[tuple[RegionBuilder, dict[str, str], int, dict[str, str]]] = []
    in_force: dict[str, str] = {}  # the type aliases defined before the current module (MLIR: define before use)
    module_attrs: dict[str, str] = {}
    module_line = 0
    top = RegionBuilder(None, 0)
    stack: list[RegionBuilder] = []
    last_closed: OpBuilder | None = None
    module_closed = False
    implicit = False
    late: list[tuple[str, int]] = []  # (`#name` / `!name`, line) of definitions after a module's first line
    for lineno, col, s, fast in _pieces(logical_lines(lines)):
        if fast is not None:  # a common line (llverify.ttgir.op_line)
            if fast.re is OP_LINE and stack:  # an op without regions
                if len(stack) > MAX_REGION_DEPTH:
                    raise fail(path, lineno, col, f"regions nested deeper than {MAX_REGION_DEPTH}")
                op = OpBuilder(s, lineno, col, fast=fast)
                stack[-1].blocks[-1].items.append(op)
                last_closed = op
                continue
            if fast.re is LOC_LINE and (not stack or (implicit and len(stack) == 1)):
                loc_defs[fast.group(1)] = fast.group(2)  # a location alias definition
                continue
        empty_module = (not stack or implicit) and s.endswith("{}") and _is_module_head(s[:-1])
        if empty_module:  # `module attributes {...} {}`: a module with an empty body, on one line
            s = s[:-1]
        if not stack or (implicit and len(stack) == 1 and (s[:1] in "#!" or _is_module_head(s))):
            # MLIR reads alias definitions between top-level ops: an implicit module's may follow its ops
            if s[:1] in "#!" and (_ALIAS.match(s) or _TYPE_ALIAS.match(s)):
                for d in _definitions(s):
                    m = _ALIAS.match(d)
                    if m:
                        name, value = m.group(1), m.group(2).strip()
                        if value.startswith("loc("):
                            loc_defs[name] = value  # location aliases may be used before their definition
                            continue
                        aliases.define(name, value)
                        if module_line:
                            late.append(("#" + name, lineno))
                        continue
                    m = _TYPE_ALIAS.match(d)
                    if m:
                        type_aliases[m.group(1)] = expand_type_aliases(m.group(2).strip(), type_aliases)
                        if module_line:
                            late.append(("!" + m.group(1), lineno))
                        continue
                    raise fail(path, lineno, col, f"expected an alias definition, found {d[:40]!r}")
                continue
            if stack and not _is_module_head(s):
                raise fail(path, lineno, col, f"expected an operation, found {s[:40]!r}")
            if _is_module_head(s):
                if implicit:  # the top-level ops before it were MLIR's implicit module's: read them as one module
                    stack.pop()
                    finished.append((top, module_attrs, module_line, in_force))
                    implicit, module_closed = False, True
                if module_closed:  # a further top-level module
                    top, module_attrs, last_closed, module_closed = RegionBuilder(None, 0), {}, None, False
                module_line = lineno
                in_force = dict(type_aliases)
                head = s[len("module"):-1].strip()
                if head.startswith("@"):
                    head = head.split(None, 1)[1] if " " in head else ""
                if head.startswith("attributes"):
                    module_attrs = attr_dict(head[len("attributes"):].strip())
                if empty_module:
                    module_closed = True
                    finished.append((top, module_attrs, module_line, in_force))
                    continue
                stack.append(top)
                continue
            if (not module_line or module_closed) and _is_top_level_op(s):
                # MLIR's implicit module: top-level ops without a `module { }` (Triton's lit tests: `tt.func`,
                # `llvm.func`, a function after a module's closing brace); its type aliases are the file's, defined
                # before use (checked below)
                if module_closed:
                    top, module_attrs, last_closed, module_closed = RegionBuilder(None, 0), {}, None, False
                module_line = lineno
                in_force = type_aliases
                implicit = True
                stack.append(top)
            else:
                raise fail(path, lineno, col, f"expected an alias definition or 'module attributes {{...}} {{', "
                                              f"found {s[:40]!r}")
        if s.startswith("}"):
            if implicit and len(stack) == 1:
                raise fail(path, lineno, col, "unbalanced '}' at the top level")
            region = stack.pop()
            rest = s[1:].strip()
            if not stack:
                module_closed = True
                finished.append((top, module_attrs, module_line, in_force))
                if rest and not rest.startswith("loc("):
                    raise fail(path, lineno, col + 1, f"unexpected text after the module's closing brace: {rest[:40]!r}")
                continue
            owner, region.owner = region.owner, None
            assert owner is not None
            if rest.endswith("{"):
                new = RegionBuilder(owner, lineno, head=rest[:-1].strip())
                owner.regions.append(new)
                stack.append(new)
                continue
            if rest:
                owner.tails.append(rest)
            last_closed = owner
            continue
        if len(stack) > MAX_REGION_DEPTH:
            raise fail(path, lineno, col, f"regions nested deeper than {MAX_REGION_DEPTH}")
        current = stack[-1]
        if _BLOCK_LABEL.match(s):
            if current.blocks[-1].items or current.blocks[-1].label:
                current.blocks.append(BlockBuilder(s))
            else:
                current.blocks[-1].label = s
            continue
        if s.endswith("{") and _CONTINUATION.match(s) and last_closed is not None and last_closed in _items(current):
            new = RegionBuilder(last_closed, lineno, head=s[:-1].strip())
            last_closed.regions.append(new)
            stack.append(new)
            continue
        if s.startswith((":", ")")) and last_closed is not None and last_closed in _items(current):
            last_closed.tails.append(s)  # a signature printed after a region list
            continue
        if not (RESULTS.match(s) or OPNAME.match(s)):
            raise fail(path, lineno, col, f"expected an operation, found {s[:40]!r}")
        op = OpBuilder(s[:-1].rstrip() if s.endswith("{") else s, lineno, col)
        current.blocks[-1].items.append(op)
        last_closed = op if not s.endswith("{") else None
        if s.endswith("{"):
            region = RegionBuilder(op, lineno)
            op.regions.append(region)
            stack.append(region)
    if implicit and stack == [top]:
        stack.pop()
        finished.append((top, module_attrs, module_line, in_force))
    if stack:
        open_line = stack[-1].line or module_line
        raise fail(path, len(lines), 1, f"unexpected end of module: {len(stack)} region(s) still open "
                                        f"(innermost opened at line {open_line})")
    if aliases_only and not finished and not module_line and (aliases.texts or type_aliases or loc_defs):
        # only alias definitions: MLIR reads an empty implicit module
        first = next((n for n, raw in enumerate(lines, 1) if strip_comment(raw)), 1)
        finished.append((top, {}, first, dict(type_aliases)))
    if not finished:
        raise fail(path, 1, 1, "no 'module' found: not a TTGIR module")
    if late:
        _check_defined_before_use(lines, late, path)
    return Structure([ModuleText(*m) for m in finished], aliases, loc_defs)


def _is_module_head(s: str) -> bool:
    """Whether a logical line opens a ``module`` (``module {``, ``module @name attributes {...} {``)."""
    return s.startswith("module") and s.endswith("{") and (len(s) == 7 or not (s[6].isalnum() or s[6] in "_$."))


#: a top-level op of an implicit module: results, or a dialect op name (``tt.func``, ``llvm.func``, quoted generic)
_TOP_LEVEL_OP = re.compile(r'^(?:%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*\s*=\s*)?'
                           r'(?:"[\w.$]+"|[A-Za-z_][\w$]*\.[\w.$]+)(?:\s|\(|$)')


def _is_top_level_op(s: str) -> bool:
    """Whether a logical line outside any module is an operation MLIR reads into its implicit module (a
    dialect-qualified or quoted op name, with or without results), not a stray word."""
    return _TOP_LEVEL_OP.match(s) is not None


def _pieces(logical: Iterable[tuple[int, int, str, Match[str] | None]]
            ) -> Iterator[tuple[int, int, str, Match[str] | None]]:
    """The logical lines (line, column, stripped text, common-line match), a line that closes regions after an op's
    text (``tt.reduce.return %2 : f32 })``, ``scf.yield %x : f32 } else {``: MLIR is free-form) cut before its
    first ``}`` that closes more than the line opened, so the op and the closer are read as two lines, and ``} }``
    read as one closer each.  A common op line (a match) has balanced braces: it is passed on as it is."""
    for lineno, col, s, fast in logical:
        if fast is not None:
            yield lineno, col, s, fast
            continue
        while "}" in s and s[0] != "}":
            k = _unopened_brace(s)
            if k <= 0:
                break
            head = s[:k].rstrip()
            yield lineno, col, head, None
            col += k
            s = s[k:]
        while s[0] == "}" and s[1:].lstrip()[:1] == "}":  # `} }`: one closer each
            yield lineno, col, "}", None
            rest = s[1:].lstrip()
            col += len(s) - len(rest)
            s = rest
        yield lineno, col, s, None


_BRACES = re.compile(r'"(?:[^"\\]|\\.)*"?|[{}]')


def _unopened_brace(s: str) -> int:
    """Index of the first ``}`` of ``s`` (quoted strings skipped) that closes a ``{`` opened before ``s``, or -1.

    Braces nest inside every other bracket of MLIR's syntax (``<{...}>``, ``[{...}]``), so their count alone says
    which ``}`` closes a region opened on an earlier line."""
    depth = 0
    for m in _BRACES.finditer(s):
        tok = m.group()
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth < 0:
                return m.start()
    return -1


#: a further definition on an alias definition's line: ``#name =`` / ``!name =`` not inside a name (MLIR's lexer
#: needs no blank between tokens: ``#a = #ttg.amd_mfma<{...}>#b = ...`` is two definitions)
_NEXT_DEFINITION = re.compile(r"(?<![\w$.#!])([#!][A-Za-z_][A-Za-z0-9_$.]*)\s*=(?!=)")


def _definitions(s: str) -> list[str]:
    """The alias definitions of one line (MLIR allows several: ``#a = ... #b = ...``, with or without a blank
    between them), cut at each top-level ``#name =`` / ``!name =`` (inside brackets or strings, never)."""
    if s.count("=") < 2:
        return [s]
    out, start = [], 0
    for m in _NEXT_DEFINITION.finditer(s):
        if m.start() > start and depth_at(s, m.start()) == 0:
            out.append(s[start:m.start()].strip())
            start = m.start()
    out.append(s[start:].strip())
    return out


def _check_defined_before_use(lines: list[str], late: list[tuple[str, int]], path: str) -> None:
    """MLIR reads an attribute or type alias only after its definition: a use of an alias defined after a module's
    first line, on an earlier line (outside ``//`` comments), is refused at the use, as Triton's parser does."""
    for ref, line in late:
        pattern = re.compile(re.escape(ref) + (r"(?![\w$.])" if ref[0] == "#" else r"(?![\w$.<])"))
        for n in range(line - 1):
            text = strip_comment(lines[n])
            m = pattern.search(text) if ref in text else None
            if m is not None and not text[m.end():].lstrip().startswith("="):
                col = lines[n].find(text) + m.start() + 1
                raise fail(path, n + 1, col, f"undefined alias {ref}: used before its definition at line {line} "
                                             f"(MLIR reads an alias only after it is defined)")


def _items(region: RegionBuilder) -> list[OpBuilder]:
    return region.blocks[-1].items
