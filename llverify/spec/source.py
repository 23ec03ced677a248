"""Reading spec files into plain values that remember where they came from.

A spec is YAML (or JSON, which is read with :mod:`json` and located with the
YAML composer).  Error messages must say ``path:line:col``, so instead of the
usual ``yaml.safe_load`` we compose the node graph (which carries marks) and
convert it ourselves into:

* :class:`LMap` -- a ``dict`` whose ``pos`` is where the mapping starts and
  whose ``key_pos[k]`` / ``value_pos[k]`` say where key ``k`` and its value are;
* :class:`LList` -- a ``list`` with ``pos`` and ``item_pos[i]``;
* scalars as ordinary Python values (their position lives in the parent).

Positions are 1-based ``(line, column)`` pairs, as compilers print them.
Duplicate mapping keys are an error (YAML would silently keep the last), and so
are non-string keys, recursive aliases and non-data tags (``!!python/...``).

Example: ``load_text("a: [1, 2]\\n", "x.yaml").value_pos["a"] == Pos(1, 4)``.
"""

from __future__ import annotations

import json
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llverify.errors import LlverifyError

__all__ = ["Pos", "LMap", "LList", "SpecError", "SpecErrors", "Diagnostic", "load_file", "load_text", "one_line"]

MAX_DEPTH = 64
MAX_BYTES = 4 << 20


@dataclass(frozen=True, order=True)
class Pos:
    """A 1-based line/column position in a spec file."""

    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a spec: where and what (printed compiler style)."""

    path: str
    pos: Pos
    message: str

    def __str__(self) -> str:
        return f"{one_line(self.path)}:{self.pos.line}:{self.pos.col}: error: {_shorten(one_line(self.message))}"


#: longest message printed whole; a quoted value longer than _MAX_QUOTED is shown by its two ends
MAX_MESSAGE = 1000
_MAX_QUOTED = 120
_QUOTED = re.compile(r"'([^']{%d,})'" % (_MAX_QUOTED + 1))


def _shorten(message: str) -> str:
    """A message quoting a huge name or value (a 3000-character layout name, a CuTe string of 5000) keeps its
    shape: each long quoted run is cut to its ends, and the whole to :data:`MAX_MESSAGE` characters."""
    if len(message) <= _MAX_QUOTED:
        return message

    def cut(m: re.Match) -> str:
        q = m.group(1)
        return f"'{q[:60]}...[{len(q) - 80} characters]...{q[-20:]}'"

    message = _QUOTED.sub(cut, message)
    if len(message) > MAX_MESSAGE:
        message = f"{message[:700]} ...[{len(message) - 900} characters]... {message[-200:]}"
    return message


#: characters a diagnostic never prints raw: line breaks and other controls (a name with a newline in
#: it would split the one-line diagnostic in two), lone surrogates (unprintable) and the bidirectional
#: overrides (which would reorder what the terminal shows)
_UNSAFE = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)] if c != 0x09}
_UNSAFE.update({0x0A: "\\n", 0x0D: "\\r"})
_UNSAFE.update({c: f"\\u{c:04x}" for c in [0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A),
                                              0x200E, 0x200F, 0x061C, 0xFEFF]})


def one_line(text: str) -> str:
    """``text`` with line breaks, controls, bidi overrides and lone surrogates escaped (``\\n``,
    ``\\x00``, ``\\u202e``, ``\\ud800``), so a diagnostic quoting what a user wrote stays one line."""
    text = text.translate(_UNSAFE)
    if any(0xD800 <= ord(ch) < 0xE000 for ch in text):
        text = "".join(f"\\u{ord(ch):04x}" if 0xD800 <= ord(ch) < 0xE000 else ch for ch in text)
    return text


class SpecError(LlverifyError):
    """A single located spec error."""

    def __init__(self, path: str, pos: Pos, message: str) -> None:
        self.diagnostic = Diagnostic(path, pos, message)
        super().__init__(str(self.diagnostic))


class SpecErrors(LlverifyError):
    """Several located spec errors (a file is reported in full, not first-error-only)."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class LMap(dict):
    """A mapping that remembers where it and each of its keys and values are."""

    pos: Pos
    key_pos: dict
    value_pos: dict

    def __init__(self, pos: Pos = Pos()) -> None:
        super().__init__()
        self.pos = pos
        self.key_pos = {}
        self.value_pos = {}

    def where(self, key: Any) -> Pos:
        """Position of the value of ``key`` (or of the mapping if absent)."""
        return self.value_pos.get(key, self.pos)

    def where_key(self, key: Any) -> Pos:
        return self.key_pos.get(key, self.pos)


class LList(list):
    """A list that remembers where it and each item are."""

    pos: Pos
    item_pos: list

    def __init__(self, pos: Pos = Pos()) -> None:
        super().__init__()
        self.pos = pos
        self.item_pos = []

    def where(self, i: int) -> Pos:
        return self.item_pos[i] if 0 <= i < len(self.item_pos) else self.pos


def _pos(mark: Any) -> Pos:
    if mark is None:
        return Pos()
    return Pos(mark.line + 1, mark.column + 1)


_PLAIN_TAGS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")


#: libyaml's loader where PyYAML was built with it (same nodes and marks, several times faster)
_BASE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: a document expanding to more nodes than this is refused: YAML aliases let a few hundred bytes name
#: billions of nodes ("billion laughs"); a real spec has a few thousand
MAX_NODES = 200_000

#: longest integer literal read: 2**64 has 20 digits, and Python refuses to convert 4,300 and more
MAX_INT_CHARS = 80


class _Composer(_BASE_LOADER):  # type: ignore[misc, valid-type]
    """The safe loader, used only for composing nodes and constructing scalars."""


def _expanded_size(root: yaml.Node) -> int:
    r"""How many values the document expands to (as :func:`_convert` counts them: keys not counted), aliases
    counted each time they are used: ``1 + sum`` over a node's children, memoised per node (an alias is the same node object), iterative (no recursion limit),
    stopping early past :data:`MAX_NODES`.  A recursive alias counts as 0 here (:func:`_convert` reports it).

    >>> _expanded_size(yaml.compose("a: &x [1, 2]\nb: [*x, *x]"))
    11
    """
    size: dict[int, int] = {}
    visiting: set[int] = set()
    todo: list[tuple[yaml.Node, bool]] = [(root, False)]
    while todo:
        node, done = todo.pop()
        key = id(node)
        children = ([v for _, v in node.value] if isinstance(node, yaml.MappingNode) else
                    list(node.value) if isinstance(node, yaml.SequenceNode) else [])
        if done:
            visiting.discard(key)
            size[key] = min(MAX_NODES + 1, 1 + sum(size.get(id(c), 0) for c in children))
            continue
        if key in size or key in visiting:
            continue
        visiting.add(key)
        todo.append((node, True))
        todo.extend((c, False) for c in children if id(c) not in size and id(c) not in visiting)
    return size.get(id(root), 0)


def _convert(loader: _Composer, node: yaml.Node, path: str, stack: tuple[int, ...],
             budget: list[int] | None = None) -> Any:
    here = _pos(node.start_mark)
    if budget is None:
        budget = [MAX_NODES]
    budget[0] -= 1
    if budget[0] < 0:
        raise SpecError(path, here, f"the document expands to more than {MAX_NODES} values (YAML aliases "
                                    "repeating large parts?); refused")
    if id(node) in stack:
        raise SpecError(path, here, "recursive YAML alias")
    if len(stack) > MAX_DEPTH:
        raise SpecError(path, here, f"document nested deeper than {MAX_DEPTH} levels")
    inner = stack + (id(node),)
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and node.tag not in _PLAIN_TAGS:
        raise SpecError(path, here, f"invalid YAML: unsupported tag {node.tag!r} (specs are plain data)")
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # resolve `<<` merge keys
        out = LMap(here)
        for knode, vnode in node.value:
            kpos = _pos(knode.start_mark)
            if not isinstance(knode, yaml.ScalarNode):
                raise SpecError(path, kpos, "mapping keys must be plain strings")
            if knode.tag not in ("tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool",
                                 "tag:yaml.org,2002:null", "tag:yaml.org,2002:float"):
                raise SpecError(path, kpos, f"mapping key {knode.value!r} has an unsupported tag {knode.tag}")
            key = str(knode.value)  # keys are names: keep them exactly as written (`on`, `1`)
            if key in out:
                first = out.key_pos[key]
                raise SpecError(path, kpos, f"duplicate key '{key}' (first given at line {first.line})")
            out[key] = _convert(loader, vnode, path, inner, budget)
            out.key_pos[key] = kpos
            out.value_pos[key] = _pos(vnode.start_mark)
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = LList(here)
        for item in node.value:
            seq.append(_convert(loader, item, path, inner, budget))
            seq.item_pos.append(_pos(item.start_mark))
        return seq
    if node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_INT_CHARS:
        raise SpecError(path, here, f"integer literal of {len(node.value)} characters; sizes and bits "
                                    f"are at most {MAX_INT_CHARS} characters long")
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError:
        raise
    except ValueError as exc:  # e.g. an over-long integer written in another base
        raise SpecError(path, here, f"invalid scalar {node.value[:40]!r}: {exc}") from None
    except (LookupError, AttributeError, TypeError):
        # PyYAML's constructors assume the resolver chose the tag: an explicit `!!bool maybe` (KeyError),
        # `!!timestamp x` (AttributeError) or `!!int ""` (IndexError) breaks them
        tag = node.tag.replace("tag:yaml.org,2002:", "!!")
        raise SpecError(path, here, f"invalid scalar {node.value[:40]!r}: not a valid {tag} value") from None


def _reader_pos(text: str, exc: Exception) -> Pos:
    offset = getattr(exc, "position", None)
    if not isinstance(offset, int):
        return Pos()
    before = text[:offset]
    return Pos(before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1)


def _reader_msg(exc: Exception) -> str:
    ch = getattr(exc, "character", None)
    if isinstance(ch, int):
        return f"unacceptable character #x{ch:04x} (control characters are not allowed)"
    return str(exc).splitlines()[0]


def _load_yaml(text: str, path: str) -> Any:
    try:
        loader = _Composer(text)
    except yaml.YAMLError as exc:  # the reader rejects control characters up front
        raise SpecError(path, _reader_pos(text, exc), f"invalid YAML: {_reader_msg(exc)}") from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node) > MAX_NODES:  # refuse a "billion laughs" before expanding any of it
            raise SpecError(path, _pos(node.start_mark), f"the document expands to more than {MAX_NODES} values "
                                                         "(YAML aliases repeating large parts?); refused")
        return _convert(loader, node, path, ())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = exc.problem or exc.context or "malformed YAML"
        if exc.context and exc.problem:
            what = f"{exc.context}; {exc.problem}"
        raise SpecError(path, _pos(mark), f"invalid YAML: {what}") from None
    except yaml.YAMLError as exc:  # reader errors (control characters) carry an offset, not a mark
        raise SpecError(path, _reader_pos(text, exc), f"invalid YAML: {_reader_msg(exc)}") from None
    except RecursionError:
        raise SpecError(path, Pos(), "document nested too deeply") from None
    finally:
        loader.dispose()


def _plain_to_located(value: Any) -> Any:
    """Wrap plain JSON values (positions unknown: 1:1)."""
    if isinstance(value, dict):
        out = LMap()
        for k, v in value.items():
            out[k] = _plain_to_located(v)
        return out
    if isinstance(value, list):
        seq = LList()
        for v in value:
            seq.append(_plain_to_located(v))
            seq.item_pos.append(Pos())
        return seq
    return value


def _load_json(text: str, path: str) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
        seen: dict[str, Any] = {}
        for k, v in pairs:
            if k in seen:
                raise ValueError(f"duplicate key '{k}'")
            seen[k] = v
        return seen

    try:
        plain = json.loads(text, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise SpecError(path, Pos(exc.lineno, exc.colno), f"invalid JSON: {exc.msg}") from None
    except ValueError as exc:
        # a duplicate key: locate it with the YAML composer, which reports duplicates with marks
        try:
            _load_yaml(text, path)
        except SpecError as located:
            raise located from None
        raise SpecError(path, Pos(), f"invalid JSON: {exc}") from None
    except RecursionError:
        raise SpecError(path, Pos(), "document nested too deeply") from None
    try:
        located = _load_yaml(text, path)
    except SpecError:
        return _plain_to_located(plain)
    return located if located == plain else _plain_to_located(plain)


def load_text(text: str, path: str, json_format: bool | None = None) -> Any:
    """Parse spec text into located values; raise :class:`SpecError` on malformed input."""
    if json_format is None:
        json_format = path.endswith(".json")
    if "\x00" in text:
        raise SpecError(path, Pos(), "file contains NUL bytes (not a text spec)")
    return _load_json(text, path) if json_format else _load_yaml(text, path)


def load_file(path: str | Path) -> Any:
    """Read and parse one spec file; unreadable files raise a located :class:`SpecError`."""
    name = str(path)
    p = Path(path)
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            raise SpecError(name, Pos(), "not a regular file (FIFOs, devices and sockets are not read)")
        if st.st_size > MAX_BYTES:
            raise SpecError(name, Pos(), f"file is larger than {MAX_BYTES >> 20} MiB")
        with open(p, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise SpecError(name, Pos(), f"file is larger than {MAX_BYTES >> 20} MiB")
    except SpecError:
        raise
    except OSError as exc:
        raise SpecError(name, Pos(), f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError(name, Pos(line, 1), "file is not UTF-8 text") from None
    return load_text(text, name)
