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

from llverify.ttgir.assemble import MAX_OP_CHARS, Assembler
from llverify.ttgir.collector import paused_collector
from llverify.ttgir.lines import strip_comment
from llverify.ttgir.syntax import find_top, split_top
from llverify.ttgir.locations import Locations
from llverify.ttgir.model import Module
from llverify.ttgir.structure import MAX_REGION_DEPTH, fail, read_structure

__all__ = ["parse_module", "parse_modules", "MAX_MODULE_BYTES", "MAX_REGION_DEPTH", "MAX_OP_CHARS"]

#: modules larger than this are refused before any work (Triton's largest real modules are a few MB)
MAX_MODULE_BYTES = 64 << 20


def parse_module(text: str, path: str = "<string>", stage: str = "") -> Module:
    """Parse one TTGIR module (see the module docstring); a text holding several top-level modules is refused
    at the second (:func:`parse_modules` reads them all)."""
    modules = parse_modules(text, path, stage)
    if len(modules) > 1:
        raise fail(path, modules[1].line or 1, 1, "a second top-level module: read the file with parse_modules "
                                                    "(llverify ttgir reads every module of a file)")
    return modules[0]


def parse_modules(text: str, path: str = "<string>", stage: str = "", aliases_only: bool = False) -> list[Module]:
    """Every top-level module of ``text`` in order (MLIR allows several in one file; Triton's lit tests do this
    without ``// -----``), each with the file's line numbers. Attribute, type and location aliases are the
    file's: defined once, visible to every module after the definition (MLIR's rule).  ``aliases_only``: a text
    of alias definitions only is read as MLIR reads it, an empty module (the loader's ``// -----`` chunks), not
    refused."""
    with paused_collector():  # llverify.ttgir.collector: no cyclic collection while the objects are made
        return _parse_modules(text, path, stage, aliases_only)


def _parse_modules(text: str, path: str, stage: str, aliases_only: bool) -> list[Module]:
    if len(text) > MAX_MODULE_BYTES:
        raise fail(path, 1, 1, f"module larger than {MAX_MODULE_BYTES >> 20} MiB")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise fail(path, line, 1, "NUL byte: not a text module")
    lines = text.split("\n")
    if "\\\n" in text or "\\\r\n" in text:
        _refuse_line_continuations(lines, path)
    if "{-#" in text:
        _blank_file_metadata(lines, path)
    structure = read_structure(lines, path, aliases_only)
    locs = Locations(structure.loc_defs)
    return [Assembler(path, structure.aliases, locs, m.type_aliases).module(m.body, m.attributes, stage, m.line)
            for m in structure.modules]


#: the keys MLIR reads in a file metadata dictionary (``{-# key: {...}, ... #-}``); any other is its parse error
_METADATA_KEYS = ("dialect_resources", "external_resources")


def _blank_file_metadata(lines: list[str], path: str) -> None:
    """Blank, in place, every file metadata dictionary of the text: ``{-# ... #-}`` at the start of a line, which
    MLIR prints after the top-level ops (``external_resources: {mlir_reproducer: {pipeline: ..., ...}}`` in the
    reproducer Triton writes when a pass fails, and which bug reports paste; ``dialect_resources`` holds the blobs of
    ``dense_resource<...>`` constants).  It carries no op, layout or type, so it is not read; what follows its
    ``#-}`` on the same line stays.  Refused, located: one that is never closed, or a key MLIR does not read.

    >>> text = ["module {", "}", "{-#", "  external_resources: {mlir_reproducer: {pipeline: 'x'}}", "#-}"]
    >>> _blank_file_metadata(text, "r.mlir"); text
    ['module {', '}', '', '', '']
    """
    n = 0
    while n < len(lines):
        stripped = lines[n].lstrip()
        if not stripped.startswith("{-#"):
            n += 1
            continue
        start, col = n, len(lines[n]) - len(stripped) + 1
        body: list[str] = []
        rest = stripped[3:]
        while "#-}" not in rest:
            body.append(rest)
            n += 1
            if n == len(lines):
                raise fail(path, start + 1, col, "file metadata '{-#' is never closed by '#-}'")
            rest = lines[n]
        close = rest.index("#-}")
        body.append(rest[:close])
        for key in _metadata_keys("\n".join(body)):
            if key not in _METADATA_KEYS:
                raise fail(path, start + 1, col, f"file metadata: unknown key {key!r} (MLIR reads "
                                                 f"{' and '.join(_METADATA_KEYS)})")
        tail = rest[close + 3:]
        for i in range(start, n):
            lines[i] = ""
        if not tail.strip():
            lines[n] = ""
        else:  # the text after `#-}` keeps its columns
            lines[n] = " " * (len(lines[n]) - len(tail)) + tail
        n += 1


def _metadata_keys(body: str) -> list[str]:
    """The keys at the outer level of a file metadata dictionary's text (``key: {...}, key: {...}``; a ``:`` or ``,``
    inside braces or a string is not at the outer level)."""
    keys = []
    for entry in split_top(body, ","):
        if entry.strip():
            colon = find_top(entry, ":")
            keys.append(entry[:colon if colon >= 0 else len(entry)].strip())
    return keys


def _refuse_line_continuations(lines: list[str], path: str) -> None:
    """MLIR has no line continuation: a ``\\`` ending a line outside a ``//`` comment is refused where it stands,
    as Triton's parser refuses it ("unexpected character"), rather than read as something it is not.  (A string
    never spans lines, so such a backslash is never inside one.)"""
    for n, raw in enumerate(lines, 1):
        body = raw.rstrip("\r").rstrip()
        if body.endswith("\\") and strip_comment(body).endswith("\\"):
            raise fail(path, n, len(body), "unexpected character '\\': MLIR has no line continuation "
                                           "(Triton's parser refuses it too)")
