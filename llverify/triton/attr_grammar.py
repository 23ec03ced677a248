"""The grammar of Triton's textual layout attributes and tensor/memdesc types (no layout knowledge).

::

    attr   := '#' NAME ('.' NAME)* ( '<' body '>' )?      # '#ttg.blocked<{...}>' or an alias '#blocked'
    body   := '{' fields? '}' | fields
    fields := field (',' field)*
    field  := KEY '=' value
    value  := INT | 'true' | 'false' | STRING | '[' (value (',' value)*)? ']' | attr | '{' fields? '}'
    dims   := INT ('x' INT)*
    type   := 'tensor' '<' dims 'x' ELEM (',' attr)? '>'
            | '!ttg.memdesc' '<' dims 'x' ELEM (',' attr)* (',' 'mutable')? (',' dims)? '>'

:class:`Reader` reads it; what an attribute means is its ``resolve`` function's business
(:mod:`llverify.triton.parse` maps ``#ttg.*`` attributes to layout specs).  Errors raise
:class:`AttrParseError` (a :class:`~llverify.errors.LayoutError`) with the 1-based column and what was
expected there.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from llverify.errors import LayoutError

__all__ = ["AttrParseError", "Reader", "SCALAR_TYPE", "dtype_bits"]


class AttrParseError(LayoutError):
    """Malformed attribute/type text; ``column`` is 1-based, ``expected`` says what was wanted."""

    def __init__(self, text: str, pos: int, expected: str, found: str | None = None) -> None:
        self.text, self.column, self.expected = text, pos + 1, expected
        got = found if found is not None else (repr(text[pos:pos + 12]) if pos < len(text) else "end of input")
        super().__init__(f"column {pos + 1}: expected {expected}, found {got}")


#: bare enum keywords a field value may be (``blockRepOrder = kThenMn``); any other bare name is an error
_ENUM_WORDS = frozenset({"mnThenK", "kThenMn"})
#: a builtin scalar type as a field value (``elementType = f64``)
SCALAR_TYPE = re.compile(r"^(?:[if](?:8|16|32|64)|bf16|i1)$")

_WS = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_INT = re.compile(r"-?\d+")


# longest spellings first, and integer widths read whole (``i16`` is never ``i1`` followed by ``6``)
_DTYPES = re.compile(r"(bf16|tf32|f8E\w+|f6E\w+|f4E\w+|[fiu]\d+|!tt\.ptr<[^>]*>)")


def dtype_bits(dtype: str) -> int:
    """Element bit width of an MLIR element type name (``f16`` -> 16, ``f8E4M3FN`` -> 8, pointers 64)."""
    if dtype.startswith("!tt.ptr"):
        return 64
    if dtype == "bf16":
        return 16
    if dtype == "tf32":
        return 32
    m = re.match(r"[fiu](\d+)", dtype)
    if not m:
        raise LayoutError(f"unknown element type {dtype!r}")
    return int(m.group(1))



class Reader:
    """A cursor over ``text`` (``s``, position ``i``) reading the grammar of the module docstring.

    ``resolve(text, parts, body, start)`` turns each attribute read (``#a.b.mnemonic<body>``: its dotted name
    ``parts`` and its fields ``body``, a padding list as ``interval_padding_pairs``; ``start`` its column) into
    its value; an alias (``#name``) is looked up in ``aliases``, and ``#a.b`` without a body is opaque.
    ``unknown(parts)``, when given, says why an attribute's body is not read (a dialect attribute the resolver
    does not know, whose body need not be fields: ``#tlx.user_layout<#padded>``), or None to read it.
    """

    def __init__(self, text: str, aliases: Mapping[str, Any] | None,
                 resolve: Callable[[str, list[str], dict[str, Any], int], Any],
                 unknown: Callable[[list[str]], str | None] | None = None) -> None:
        self.s, self.i, self.aliases, self.resolve, self.unknown = text, 0, dict(aliases or {}), resolve, unknown

    def ws(self) -> None:
        i = self.i
        if i < len(self.s) and self.s[i].isspace():  # (``\s`` and ``str.isspace`` are one test: the regex only on a blank)
            self.i = _WS.match(self.s, i).end()  # type: ignore[union-attr]

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def eat(self, tok: str) -> None:
        self.ws()
        if not self.s.startswith(tok, self.i):
            raise AttrParseError(self.s, self.i, repr(tok))
        self.i += len(tok)

    def name(self, what: str = "a name") -> str:
        self.ws()
        m = _NAME.match(self.s, self.i)
        if not m:
            raise AttrParseError(self.s, self.i, what)
        self.i = m.end()
        return m.group()

    def end(self) -> None:
        self.ws()
        if self.i != len(self.s):
            raise AttrParseError(self.s, self.i, "end of input")

    # -- values ---------------------------------------------------------------
    def value(self) -> Any:
        self.ws()
        c = self.s[self.i:self.i + 1]
        if c == "[":
            self.i += 1
            out = []
            if self.peek("]"):
                self.i += 1
                return out
            while True:
                out.append(self.value())
                if self.peek(","):
                    self.i += 1
                    continue
                self.eat("]")
                return out
        if c == "#":
            return self.attr()
        if c == "{":
            return self.fields(braced=True)
        if c == '"':
            j = self.s.find('"', self.i + 1)
            if j < 0:
                raise AttrParseError(self.s, len(self.s), "a closing '\"'")
            v = self.s[self.i + 1:j]
            self.i = j + 1
            return v
        m = _INT.match(self.s, self.i)
        if m:
            self.i = m.end()
            if self.peek(":"):  # typed integer like `16 : i32`
                self.i += 1
                self.name("a type after ':'")
            return int(m.group())
        m = _NAME.match(self.s, self.i)
        if m and m.group() in ("true", "false"):
            self.i = m.end()
            return m.group() == "true"
        if m and m.group() in _ENUM_WORDS:
            self.i = m.end()
            return m.group()
        if m and SCALAR_TYPE.match(m.group()):  # `elementType = i32` (Triton 3.5's amd_mfma)
            self.i = m.end()
            return m.group()
        raise AttrParseError(self.s, self.i, "a value (integer, true/false, [list], #attribute or {fields})")

    def fields(self, braced: bool) -> dict[str, Any]:
        if braced:
            self.eat("{")
        out: dict[str, Any] = {}
        if braced and self.peek("}"):
            self.i += 1
            return out
        while True:
            start = self.i
            key = self.name("a field name")
            if key in out:
                raise AttrParseError(self.s, start, "a field not given before", found=repr(key))
            self.eat("=")
            out[key] = self.value()
            if self.peek(","):
                self.i += 1
                continue
            if braced:
                self.eat("}")
            return out

    def padding_pairs(self) -> list[list[int]]:
        """``[I:+P, ...]``, the padding list that opens a ``#ttg.padded_shared`` body."""
        self.eat("[")
        pairs: list[list[int]] = []
        while True:
            self.ws()
            m = _INT.match(self.s, self.i)
            if not m:
                raise AttrParseError(self.s, self.i, "an interval (integer) in the padding list [I:+P, ...]")
            self.i = m.end()
            self.eat(":")
            self.eat("+")
            self.ws()
            n = _INT.match(self.s, self.i)
            if not n:
                raise AttrParseError(self.s, self.i, "a padding (integer) after ':+'")
            self.i = n.end()
            pairs.append([int(m.group()), int(n.group())])
            if self.peek(","):
                self.i += 1
                continue
            self.eat("]")
            return pairs

    def attr(self) -> Any:
        self.eat("#")
        start = self.i
        parts = [self.name("an attribute or alias name")]
        while self.s.startswith(".", self.i):
            self.i += 1
            parts.append(self.name("an attribute name after '.'"))
        if len(parts) == 1:
            if parts[0] not in self.aliases:
                raise AttrParseError(self.s, start - 1, "a known alias or a '#dialect.name<...>' attribute",
                                     found=f"undefined alias '#{parts[0]}'")
            return self.aliases[parts[0]]
        mnemonic = parts[-1]
        if not self.peek("<"):
            return {"kind": "__opaque__", "name": ".".join(parts)}
        why = self.unknown(parts) if self.unknown is not None else None
        if why is not None:
            raise AttrParseError(self.s, start, why, found=f"{'#' + '.'.join(parts)!r} (an attribute of a dialect "
                                                                f"or Triton version llverify does not know)")
        self.eat("<")
        pairs = self.padding_pairs() if mnemonic == "padded_shared" else None
        body = self.fields(braced=True) if self.peek("{") else (self.fields(braced=False) if not self.peek(">") else {})
        if self.peek(","):  # Triton 3.9 prints some fields after the braces: `#ttg.shared_linear<{...}, alignment = 128>`
            self.i += 1
            for k, v in self.fields(braced=False).items():
                if k in body:
                    raise AttrParseError(self.s, self.i, "a field not given before", found=repr(k))
                body[k] = v
        self.eat(">")
        if pairs is not None:
            body["interval_padding_pairs"] = pairs
        return self.resolve(self.s, parts, body, start)

    def dims(self) -> list[int]:
        """``128x64`` (the allocation shape of a memdesc)."""
        out = []
        while True:
            m = _INT.match(self.s, self.i)
            if not m:
                raise AttrParseError(self.s, self.i, "a dimension size")
            out.append(int(m.group()))
            self.i = m.end()
            if self.s.startswith("x", self.i) and self.s[self.i + 1:self.i + 2].isdigit():
                self.i += 1
                continue
            return out

    def dims_and_elem(self) -> tuple[list[int], str]:
        """``128x64xf16``: the shape and the element type."""
        self.ws()
        shape = []
        while True:
            m = _INT.match(self.s, self.i)
            if not m:
                break
            shape.append(int(m.group()))
            self.i = m.end()
            self.eat("x")
        m = _DTYPES.match(self.s, self.i)
        if not m:
            raise AttrParseError(self.s, self.i, "an element type (f16, bf16, f32, i8, ...)")
        self.i = m.end()
        if not shape:
            raise AttrParseError(self.s, self.i, "a shape like '128x64x' before the element type")
        return shape, m.group()
