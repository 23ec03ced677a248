"""Parse Triton's textual layout attributes, alias definitions and tensor/memdesc types.

Grammar (the subset of MLIR attribute syntax TTGIR layouts use)::

    attr   := '#' NAME ('.' NAME)* ( '<' body '>' )?      # '#ttg.blocked<{...}>' or an alias '#blocked'
    body   := '{' fields? '}' | fields
    fields := field (',' field)*
    field  := KEY '=' value
    value  := INT | 'true' | 'false' | STRING | '[' (value (',' value)*)? ']' | attr | '{' fields? '}'
    type   := 'tensor' '<' dims 'x' ELEM (',' attr)? '>'
            | '!ttg.memdesc' '<' dims 'x' ELEM (',' attr)* (',' 'mutable')? (',' dims)? '>'

:func:`parse_attr` returns a *layout spec*: ``{"kind": <llverify kind>, **Gluon
parameters}`` (nested parents as specs), which :func:`llverify.hw.build_spec`
turns into a layout once a shape is known.  Errors raise :class:`AttrParseError`
(a :class:`~llverify.errors.LayoutError`) with the 1-based column and what was
expected there.

>>> parse_attr("#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], "
...            "threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>")["parent"]["order"]
[1, 0]
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from llverify.errors import LayoutError
from llverify.hw import registry as _declarations  # noqa: F401 - the kinds' declarations (mnemonics, fields)
from llverify.hw.kinds import attribute_kinds
from llverify.hw.linear import permutation_problem
from llverify.layout import LinearLayout

__all__ = ["AttrParseError", "parse_attr", "parse_aliases", "parse_type", "parse_value", "layout_from_attr",
           "attr_kinds", "attr_fields"]


class AttrParseError(LayoutError):
    """Malformed attribute/type text; ``column`` is 1-based, ``expected`` says what was wanted."""

    def __init__(self, text: str, pos: int, expected: str, found: str | None = None) -> None:
        self.text, self.column, self.expected = text, pos + 1, expected
        got = found if found is not None else (repr(text[pos:pos + 12]) if pos < len(text) else "end of input")
        super().__init__(f"column {pos + 1}: expected {expected}, found {got}")


#: fields every distributed or shared attribute may carry (its CGA), attribute field -> Gluon parameter
_CGA_FIELDS = {"CTAsPerCGA": "ctas_per_cga", "CTASplitNum": "cta_split_num", "CTAOrder": "cta_order",
               "CGALayout": "cga_layout", "cgaLayout": "cga_layout"}

#: ``#ttg.padded_shared`` is read here but is not a hardware kind (not F2-linear: :mod:`llverify.hw.padded`)
_PADDED_FIELDS = {"interval_padding_pairs": "interval_padding_pairs", "order": "order", "shape": "shape",
                  "offset": "offset_bases", "block": "block_bases"}

#: mnemonics of older Triton read as today's (never printed): Triton 2.x's `#triton_gpu.mma` is `#ttg.nvidia_mma`
_LEGACY_MNEMONICS = {"mma": "nvidia_mma"}


def attr_kinds() -> dict[str, str]:
    """Attribute mnemonic -> llverify kind, from the hardware kinds' declarations
    (:data:`llverify.hw.registry.DECLARATIONS`) plus ``padded_shared``.

    >>> attr_kinds()["dot_op"], attr_kinds()["tensor_memory_encoding"]
    ('dot_operand', 'tensor_memory')
    """
    return {**{m: k.name for m, k in attribute_kinds().items()}, "padded_shared": "padded_shared"}


def attr_fields(kind: str) -> dict[str, str]:
    """Attribute field -> Gluon parameter for ``kind`` (its declared fields and the CGA fields)."""
    if kind == "padded_shared":
        return {**_CGA_FIELDS, **_PADDED_FIELDS}
    k = next((d for d in attribute_kinds().values() if d.name == kind), None)
    return {**_CGA_FIELDS, **(dict(k.fields) if k is not None else {})}


#: bare enum keywords a field value may be (``blockRepOrder = kThenMn``); any other bare name is an error
_ENUM_WORDS = frozenset({"mnThenK", "kThenMn"})
#: a builtin scalar type as a field value (``elementType = f64``)
_SCALAR_TYPE = re.compile(r"^(?:[if](?:8|16|32|64)|bf16|i1)$")

_WS = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_INT = re.compile(r"-?\d+")


class _P:
    def __init__(self, text: str, aliases: Mapping[str, Any] | None) -> None:
        self.s, self.i, self.aliases = text, 0, dict(aliases or {})

    def ws(self) -> None:
        self.i = _WS.match(self.s, self.i).end()  # type: ignore[union-attr]

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
        if m and _SCALAR_TYPE.match(m.group()):  # `elementType = i32` (Triton 3.5's amd_mfma)
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
        if mnemonic in ("shared_memory", "tensor_memory"):
            return {"kind": "__opaque__", "name": ".".join(parts)}
        if mnemonic == "shared":
            return _legacy_shared(body, self.s, start)
        kinds = attr_kinds()
        kind = kinds.get(mnemonic) or _LEGACY_MNEMONICS.get(mnemonic)
        if pairs is not None:
            body["interval_padding_pairs"] = pairs
        if kind is None:
            raise AttrParseError(self.s, start, f"a layout attribute ({', '.join(kinds)})",
                                 found=repr(".".join(parts)))
        return _to_spec(kind, body, self.s, start)


def _legacy_shared(body: dict[str, Any], text: str, pos: int) -> dict[str, Any]:
    """Triton 3.0-3.2's ``#triton_gpu.shared<{vec, perPhase, maxPhase, order, hasLeadingOffset}>``.

    Without a leading offset it is the swizzled layout later printed as ``#ttg.swizzled_shared`` (same
    fields, same meaning); with one it is the Hopper MMA layout later split into ``#ttg.nvmma_shared``,
    whose swizzle width the old attribute does not state, so it is refused rather than guessed.
    """
    fields = dict(body)
    if fields.pop("hasLeadingOffset", False):
        raise AttrParseError(text, pos, "a swizzled #triton_gpu.shared (the leading-offset form of Triton 3.0-3.2 "
                                        "is not modelled: recompile with Triton 3.3 or later)",
                             found="hasLeadingOffset = true")
    return _to_spec("swizzled_shared", fields, text, pos)


def _to_spec(kind: str, body: dict[str, Any], text: str, pos: int) -> dict[str, Any]:
    names = attr_fields(kind)
    spec: dict[str, Any] = {"kind": kind}
    for k, v in body.items():
        if kind == "nvidia_mma" and k in ("versionMajor", "versionMinor"):
            ver = spec.setdefault("version", [0, 0])
            ver[0 if k == "versionMajor" else 1] = v
            continue
        if kind == "amd_mfma" and k in ("versionMajor", "versionMinor"):
            # Triton 3.0-3.2: `versionMajor = 3, versionMinor = 0` where 3.3+ prints `version = 3`
            if k == "versionMajor":
                spec["version"] = v
            elif v != 0:
                raise AttrParseError(text, pos, "versionMinor = 0 in #amd_mfma", found=repr(v))
            continue
        if kind == "amd_mfma" and k == "elementType":
            # Triton 3.5 and older: the accumulator's type where 3.6+ prints `elementBitWidth` (omitted at 32)
            if not isinstance(v, str) or not _SCALAR_TYPE.match(v):
                raise AttrParseError(text, pos, "a scalar type for elementType in #amd_mfma", found=repr(v))
            spec["element_bitwidth"] = dtype_bits(v)
            continue
        if kind == "amd_wmma" and k == "ctaLayout":
            # Triton 3.9.0 prints the WMMA warp/register bases as ctaLayout = {register = [...], warp = [...]}
            if not isinstance(v, dict) or set(v) - {"register", "warp"}:
                raise AttrParseError(text, pos, "ctaLayout = {register = [...], warp = [...]} in #ttg.amd_wmma",
                                     found=repr(v))
            spec["warp_bases"] = v.get("warp", [])
            if v.get("register"):
                spec["reg_bases"] = v["register"]
            vecs = list(v.get("warp", [])) + list(v.get("register", []))
            if vecs and isinstance(vecs[0], list) and len(vecs[0]) != 2:
                spec["rank"] = len(vecs[0])
            continue
        if k not in names:
            raise AttrParseError(text, pos, f"a field of #{kind} ({', '.join(names)})", found=repr(k))
        spec[names[k]] = v
    if kind == "nvidia_mma" and "version" not in spec:
        raise AttrParseError(text, pos, "versionMajor in #ttg.nvidia_mma")
    if kind == "tensor_memory":
        spec["block"] = [spec.pop("block_m", 128), spec.pop("block_n", 128)]
        if "unpacked" in spec:
            # Triton 3.5 and older: `unpacked = true|false` where 3.6+ prints `colStride` (32 / element bits when
            # unpacked, else 1).  The element width is the memdesc's, so the spec keeps `unpacked` and the type's
            # reader resolves it (llverify.ttgir.layouts); a spec with both is ambiguous
            if "col_stride" in spec:
                raise AttrParseError(text, pos, "either unpacked or colStride in #ttng.tensor_memory_encoding")
            if not isinstance(spec["unpacked"], bool):
                raise AttrParseError(text, pos, "unpacked = true or false", found=repr(spec["unpacked"]))
        else:
            spec.setdefault("col_stride", 1)
        spec.pop("cta_split_m", None), spec.pop("cta_split_n", None)
    if kind == "linear":
        problem = permutation_problem({d: spec.get(d) or [] for d in ("reg_bases", "lane_bases", "warp_bases",
                                                                      "block_bases")})
        if problem is not None:
            raise AttrParseError(text, pos, "bases that are a permutation matrix once the broadcast (zero) bases "
                                            "are removed (Triton's #ttg.linear verifier)", found=problem)
    return spec


def parse_value(text: str, aliases: Mapping[str, Any] | None = None) -> Any:
    p = _P(text, aliases)
    v = p.value()
    p.end()
    return v


def parse_attr(text: str, aliases: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ``#ttg.*`` layout attribute (or ``#alias``) -> layout spec (see the module docstring)."""
    if not isinstance(text, str):
        raise AttrParseError(str(text), 0, "attribute text")
    p = _P(text, aliases)
    v = p.attr()
    p.end()
    if not isinstance(v, dict) or v.get("kind") == "__opaque__":
        raise AttrParseError(text, 0, "a layout attribute", found=repr(text[:40]))
    return v


_ALIAS_LINE = re.compile(r"^\s*#([A-Za-z_][A-Za-z0-9_$]*)\s*=\s*(#.*?)\s*$")


def parse_aliases(module_text: str) -> dict[str, dict[str, Any]]:
    """Alias definitions (``#blocked = #ttg.blocked<{...}>``) at the top of a TTGIR module, in order.

    Later aliases may refer to earlier ones (``#ttg.dot_op<{parent = #mma ...}>``).
    Lines that are not alias definitions are ignored; a malformed definition
    raises :class:`AttrParseError` whose message names the line.
    """
    aliases: dict[str, Any] = {}
    for lineno, line in enumerate(module_text.splitlines(), 1):
        m = _ALIAS_LINE.match(line)
        if not m:
            continue
        try:
            p = _P(m.group(2), aliases)
            v = p.attr()
            p.end()
        except AttrParseError as exc:
            raise AttrParseError(m.group(2), exc.column - 1, f"{exc.expected} (line {lineno}, alias #{m.group(1)})") from None
        aliases[m.group(1)] = v
    return aliases


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


def parse_type(text: str, aliases: Mapping[str, Any] | None = None
               ) -> tuple[LinearLayout, list[int], str]:
    """``tensor<128x64xf16, #blocked>`` / ``!ttg.memdesc<64x64xf16, #shared, #smem>`` -> (layout, shape, dtype).

    For memdescs the layout is built on the allocation shape when one is given
    (``!ttg.memdesc<64x64xf16, #shared, #smem, mutable, 2x64x64>``), else on the shape.
    """
    from llverify.hw.registry import build_spec

    spec, shape, dtype, alloc = parse_type_spec(text, aliases)
    if spec.get("kind") == "nvmma_shared" and "element_bitwidth" not in spec:
        spec = {**spec, "element_bitwidth": dtype_bits(dtype)}
    if spec.get("kind") == "tensor_memory" and "unpacked" in spec:  # Triton 3.5's spelling of colStride
        unpacked = bool(spec["unpacked"])
        spec = {k: v for k, v in spec.items() if k != "unpacked"}
        bits = dtype_bits(dtype)
        spec["col_stride"] = 32 // bits if unpacked and bits < 32 else 1
    try:
        layout = build_spec(spec, alloc or shape)
        if spec.get("kind") == "tensor_memory":
            _tensor_memory_type_rules(spec, alloc or shape, shape, dtype, layout)
        return layout, shape, dtype
    except AttrParseError:
        raise
    except LayoutError as exc:
        raise LayoutError(f"{text.strip()}: {exc}") from None


def _tensor_memory_type_rules(spec: Mapping[str, Any], alloc: list[int], shape: list[int], dtype: str,
                              layout: LinearLayout) -> None:
    """Triton 3.9's memdesc verifier on a tensor-memory type, beyond what building the layout checks:
    ``bits(dtype) * colStride <= 32``, and the allocation holds at least ``blockM`` rows and
    ``min(blockN, N)`` columns per CTA along each split (``blockM * splitM x min(blockN, N) * splitN``).
    ``layout`` is the per-CTA layout built on ``alloc``, so ``split = alloc / layout's out dim sizes``.

    Example: ``!ttg.memdesc<256x32xi8, #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 4,
    CGALayout = [[0, 1], [0, 2]]>, ...>`` splits N over 4 CTAs, 8 columns each, fewer than min(256, 32): refused.
    """
    bits = dtype_bits(dtype)
    stride = int(spec.get("col_stride", 1))
    if bits * stride > 32:
        raise LayoutError(f"tensor_memory: {bits}-bit elements with col_stride = {stride} take more than one 32-bit "
                          f"column (Triton's memdesc verifier needs bits x col_stride <= 32)")
    block = list(spec.get("block") or [0, 0])
    m, n = alloc[-2], alloc[-1]
    split_m, split_n = m // layout.out_dim_size("dim0"), n // layout.out_dim_size("dim1")
    need_m, need_n = block[0] * split_m, min(block[1], shape[-1]) * split_n
    if m < need_m or n < need_n:
        raise LayoutError(f"tensor_memory: the allocation {m}x{n} is smaller than {need_m}x{need_n} (block {block} "
                          f"per CTA, {split_m}x{split_n} CTAs; Triton's memdesc verifier)")


def parse_type_spec(text: str, aliases: Mapping[str, Any] | None = None
                    ) -> tuple[dict[str, Any], list[int], str, list[int] | None]:
    """Like :func:`parse_type` without building: (spec, shape, dtype, allocation shape or None)."""
    p = _P(text, aliases)
    p.ws()
    if p.s.startswith("tensor", p.i):
        p.i += len("tensor")
        memdesc = False
    elif p.s.startswith("!ttg.memdesc", p.i):
        p.i += len("!ttg.memdesc")
        memdesc = True
    else:
        raise AttrParseError(text, p.i, "'tensor<' or '!ttg.memdesc<'")
    p.eat("<")
    shape, dtype = _dims_and_elem(p)
    spec = None
    alloc = None
    while p.peek(","):
        p.i += 1
        p.ws()
        if p.s.startswith("#", p.i):
            v = p.attr()
            if isinstance(v, dict) and v.get("kind") != "__opaque__" and spec is None:
                spec = v
        elif p.s.startswith("mutable", p.i):
            p.i += len("mutable")
        elif memdesc and p.s[p.i:p.i + 1].isdigit():
            alloc = _dims(p)
        else:
            raise AttrParseError(text, p.i, "a layout attribute, 'mutable' or an allocation shape")
    p.eat(">")
    p.end()
    if spec is None:
        raise AttrParseError(text, len(text) - 1, "a layout encoding ('#...') in the type")
    return spec, shape, dtype, alloc


def _dims(p: _P) -> list[int]:
    out = []
    while True:
        m = _INT.match(p.s, p.i)
        if not m:
            raise AttrParseError(p.s, p.i, "a dimension size")
        out.append(int(m.group()))
        p.i = m.end()
        if p.s.startswith("x", p.i) and p.s[p.i + 1:p.i + 2].isdigit():
            p.i += 1
            continue
        return out


def _dims_and_elem(p: _P) -> tuple[list[int], str]:
    p.ws()
    shape = []
    while True:
        m = _INT.match(p.s, p.i)
        if not m:
            break
        shape.append(int(m.group()))
        p.i = m.end()
        p.eat("x")
    m = _DTYPES.match(p.s, p.i)
    if not m:
        raise AttrParseError(p.s, p.i, "an element type (f16, bf16, f32, i8, ...)")
    p.i = m.end()
    if not shape:
        raise AttrParseError(p.s, p.i, "a shape like '128x64x' before the element type")
    return shape, m.group()


def layout_from_attr(text: str, shape: list[int], aliases: Mapping[str, Any] | None = None) -> LinearLayout:
    """Parse ``text`` and build it on ``shape``."""
    from llverify.hw.registry import build_spec

    return build_spec(parse_attr(text, aliases), shape)
