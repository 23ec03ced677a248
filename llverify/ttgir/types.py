"""MLIR types of TTGIR as :class:`~llverify.ttgir.model.TypeRef` values.

Forms read (Triton 3.9 prints these)::

    tensor<128x64xf16, #blocked>            tensor<128x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #blocked}>>
    !ttg.memdesc<3x64x64xf16, #shared, #smem, mutable>          (multi-buffered: rank above the encoding's)
    !ttg.memdesc<128x8xf32, #shared, #smem, mutable, 128x32>    (a subview with its allocation shape)
    !tt.tensordesc<64x64xf16, #shared> (3.9; earlier: tensordesc<tensor<...>>)   !tt.ptr<f16>   i32   f8E4M3FN   index

The layout encoding is handed to :func:`llverify.triton.parse.parse_attr`;
when that fails the type keeps ``encoding_error`` (the reason) and the module
still loads.

>>> t = parse_typeref("!ttg.memdesc<3x64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, "
...                   "order = [1, 0]}>, #ttg.shared_memory, mutable>", {})
>>> t.kind, t.shape, t.element, t.mutable, t.encoding["kind"], t.memory_space
('memdesc', (3, 64, 64), 'f16', True, 'swizzled_shared', 'ttg.shared_memory')
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from llverify.errors import LlverifyError
from llverify.triton.parse import parse_attr
from llverify.ttgir.flat_attrs import flat_attribute
from llverify.ttgir.model import TypeRef, new_typeref
from llverify.ttgir.syntax import split_top

__all__ = ["parse_typeref", "with_element", "expand_type_aliases", "AliasTable", "MAX_LITERAL_DIGITS", "MAX_ENCODING_DEPTH"]

#: integer literals longer than this are refused (a layout never needs one)
MAX_LITERAL_DIGITS = 40
#: bracket nesting accepted inside one encoding attribute
MAX_ENCODING_DEPTH = 32

_DIMS = re.compile(r"^((?:(?:\d+|\?)x)*)(.+)$", re.S)
_SHAPE = re.compile(r"^\d+(?:x\d+)*$")
#: the common tensor type: dims, a scalar or pointer element, an encoding alias (no other comma or bracket)
#: or an inline encoding whose fields hold no bracket (``#ttg.slice<{dim = 1, parent = #blocked}>``)
_PLAIN_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)([A-Za-z0-9_]+|!tt\.ptr<[A-Za-z0-9_]+>), "
                           r"(#[A-Za-z_][\w$.]*(?:<\{[^{}<>\[\]()\"\\]*\}>)?)>")
_SCALAR = re.compile(r"(i\d+|f\d+|bf16|tf32|f8\w*|f4\w*|f6\w*|index|none)")
_LONG_INT = re.compile(r"\d{%d,}" % (MAX_LITERAL_DIGITS + 1))
_ALIAS_REF = re.compile(r"#([A-Za-z_][A-Za-z0-9_$]*)(?![.\w<])")
#: a use of an MLIR type alias ``!name`` (no dot: ``!tt.ptr`` is a dialect type)
_TYPE_ALIAS_USE = re.compile(r"!([A-Za-z_][A-Za-z0-9_$]*)(?![.\w$<])")


class AliasTable:
    """Layout aliases of a module: ``name -> spec`` for those that parsed, ``name -> reason`` for those that did not,
    and ``name -> dialect name`` for opaque ones (``#smem = #ttg.shared_memory``)."""

    def __init__(self) -> None:
        self.specs: dict[str, Any] = {}
        self.errors: dict[str, str] = {}
        self.opaque: dict[str, str] = {}
        self.texts: dict[str, str] = {}
        #: encoding text -> (spec, problem) as :func:`_encoding` read it with the aliases defined so far (a
        #: definition forgets them); types with the same encoding share the spec (specs are never mutated)
        self.encodings: dict[str, tuple[Any, str | None]] = {}

    def define(self, name: str, text: str) -> None:
        self.encodings.clear()
        self.texts[name] = text
        problem = _encoding_problem(text, self)
        if problem:
            self.errors[name] = problem
            return
        try:
            value = flat_attribute(text, self.specs)  # one pass for the attributes Triton prints flat
            if value is None:
                value = _parse_any_attr(text, self.specs)
        except (LlverifyError, RecursionError) as exc:
            self.errors[name] = str(exc) if not isinstance(exc, RecursionError) else "nesting too deep"
            return
        if isinstance(value, dict) and value.get("kind") == "__opaque__":
            self.opaque[name] = str(value.get("name", text))
            self.specs[name] = value
        else:
            self.specs[name] = value


def _parse_any_attr(text: str, specs: Mapping[str, Any]) -> Any:
    from llverify.triton.parse import parse_value

    return parse_value(text, specs)


def _encoding_problem(text: str, aliases: AliasTable) -> str | None:
    if _LONG_INT.search(text):
        return f"an integer literal longer than {MAX_LITERAL_DIGITS} digits"
    # the depth never exceeds the number of opening brackets: with at most MAX_ENCODING_DEPTH of them (every
    # encoding Triton prints) the walk cannot find a deeper point
    if text.count("(") + text.count("[") + text.count("{") + text.count("<") > MAX_ENCODING_DEPTH:
        depth = 0
        for ch in text:
            depth += ch in "([{<"
            depth -= ch in ")]}>"
            if depth > MAX_ENCODING_DEPTH:
                return f"attribute nested deeper than {MAX_ENCODING_DEPTH}"
    if not aliases.errors:
        return None
    for m in _ALIAS_REF.finditer(text):
        if m.group(1) in aliases.errors:
            return f"alias #{m.group(1)} could not be read: {aliases.errors[m.group(1)]}"
    return None


def _split_dims(text: str) -> tuple[tuple[int, ...], str]:
    m = _DIMS.match(text.strip())
    if not m:
        return (), text.strip()
    dims = tuple(int(d) if d != "?" else -1 for d in m.group(1).split("x") if d)
    return dims, m.group(2).strip()


def _encoding(text: str, aliases: AliasTable) -> tuple[Any, str | None]:
    """(spec, None) or (None, why not) of an encoding attribute's text, read once per text and alias table."""
    hit = aliases.encodings.get(text)
    if hit is None:
        hit = aliases.encodings[text] = _read_encoding(text, aliases)
    return hit


#: an encoding that is one alias reference (``#blocked``), as the attribute grammar reads a name
_ALIAS_ONLY = re.compile(r"#([A-Za-z_][A-Za-z0-9_$]*)")


def _read_encoding(text: str, aliases: AliasTable) -> tuple[Any, str | None]:
    problem = _encoding_problem(text, aliases)
    if problem:
        return None, problem
    spec = alias_encoding(text, aliases.specs)
    if spec is not None:
        return spec, None
    try:
        flat = flat_attribute(text, aliases.specs)  # one pass for the attributes Triton prints flat
        if isinstance(flat, dict) and flat.get("kind") != "__opaque__":
            return flat, None
        return parse_attr(text, aliases.specs), None
    except (LlverifyError, RecursionError) as exc:
        return None, str(exc) if not isinstance(exc, RecursionError) else "nesting too deep"


def alias_encoding(text: str, specs: Mapping[str, Any]) -> Any | None:
    """The spec of an encoding written as one defined layout alias (``#blocked``: most encodings Triton prints), or
    None for any other text (read the general way).

    The general way reads such a text as :func:`flat_attribute` (None: no ``<{``) then
    :func:`~llverify.triton.parse.parse_attr`, which returns the alias's value itself when it is a layout spec (a
    dict that is no opaque name) and raises otherwise; this returns that same object in the first case and None
    (the general way then says why) in every other."""
    m = _ALIAS_ONLY.fullmatch(text)
    if m is None:
        return None
    spec = specs.get(m.group(1))
    return spec if isinstance(spec, dict) and spec.get("kind") != "__opaque__" else None


def _is_memory_space(item: str, aliases: AliasTable) -> str | None:
    name = item[1:] if item.startswith("#") else item
    if name in aliases.opaque:
        return aliases.opaque[name]
    if name.endswith(("shared_memory", "tensor_memory")) and "<" not in name:
        return name
    return None


#: the memory-descriptor type as Triton 3.3+ prints it, and as Triton 3.0-3.2 did (in the `tt` or `triton_gpu` dialect)
_MEMDESC_HEADS = ("!ttg.memdesc<", "!tt.memdesc<", "!triton_gpu.memdesc<")


def parse_typeref(text: str, aliases: AliasTable | Mapping[str, Any]) -> TypeRef:
    """One type (see the module docstring).  Never raises for a well-bracketed type; an unknown form is ``other``."""
    if not isinstance(aliases, AliasTable):
        table = AliasTable()
        table.specs.update(aliases)
        aliases = table
    t = text.strip()
    if t.startswith("tensor<") and t.endswith(">"):
        m = _PLAIN_TENSOR.fullmatch(t)
        if m:  # what the split below reads: one top-level comma, dims split off greedily
            shape = tuple(int(d) if d != "?" else -1 for d in m.group(1).split("x") if d)
            enc, err = _encoding(m.group(3), aliases)
            return new_typeref(t, "tensor", shape, m.group(2), enc, m.group(3), err)
        parts = split_top(t[len("tensor<"):-1], ",")
        shape, elem = _split_dims(parts[0])
        if len(parts) < 2:
            return new_typeref(t, "tensor", shape, elem)
        enc_text = parts[1].strip()
        enc, err = _encoding(enc_text, aliases)
        return new_typeref(t, "tensor", shape, elem, enc, enc_text, err)
    head = next((h for h in _MEMDESC_HEADS if t.startswith(h)), None)
    if head is not None and t.endswith(">"):
        inner = t[len(head):-1]
        # without brackets or quotes every comma is at the top level
        parts = [p.strip() for p in (inner.split(",") if "<" not in inner and '"' not in inner and "(" not in inner
                                     and "[" not in inner and "{" not in inner else split_top(inner, ","))]
        shape, elem = _split_dims(parts[0])
        enc = enc_text = err = space = None
        mutable = False
        alloc: tuple[int, ...] | None = None
        for item in parts[1:]:
            if item == "mutable":
                mutable = True
            elif _SHAPE.match(item):
                alloc = tuple(int(d) for d in item.split("x"))
            elif item.startswith("#") and _is_memory_space(item, aliases):
                space = _is_memory_space(item, aliases)
            elif item.startswith("#") and enc_text is None:
                enc_text = item
                enc, err = _encoding(item, aliases)
        return new_typeref(t, "memdesc", shape, elem, enc, enc_text, err, space, mutable, alloc)
    if t.startswith("!tt.tensordesc<") and t.endswith(">"):
        body = t[len("!tt.tensordesc<"):-1].strip()
        # Triton 3.9 prints the block type bare (`!tt.tensordesc<128x64xf16, #shared>`), earlier versions as a
        # tensor type (`!tt.tensordesc<tensor<128x64xf16, #shared>>`)
        inner = parse_typeref(body if body.startswith("tensor<") else f"tensor<{body}>", aliases)
        return new_typeref(t, "tensordesc", inner.shape, inner.element, inner.encoding, inner.encoding_text,
                       inner.encoding_error)
    if t.startswith("!tt.ptr<"):
        return new_typeref(t, "ptr", (), t)
    if _SCALAR.fullmatch(t):
        return new_typeref(t, "scalar", (), t)
    return new_typeref(t, "other")


def with_element(t: TypeRef, element: str) -> TypeRef:
    """``t`` with another element type (``tensor<4x!tt.ptr<f16>, #b>`` -> ``tensor<4xf16, #b>``)."""
    from dataclasses import replace

    if t.kind == "tensor":
        dims = "".join(f"{d}x" for d in t.shape)
        enc = f", {t.encoding_text}" if t.encoding_text else ""
        return replace(t, text=f"tensor<{dims}{element}{enc}>", element=element)
    if t.kind in ("scalar", "ptr"):
        return TypeRef(element, "ptr" if element.startswith("!tt.ptr") else "scalar", (), element)
    return t


def expand_type_aliases(text: str, table: Mapping[str, str]) -> str:
    """``!name`` references replaced by their definitions in ``table`` (which were expanded when defined); an
    unknown name is kept."""
    return _TYPE_ALIAS_USE.sub(lambda m: table.get(m.group(1), m.group(0)), text)
