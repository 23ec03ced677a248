"""Parse Triton's textual layout attributes and alias definitions into layout specs.

The grammar (the subset of MLIR attribute syntax TTGIR layouts use) is
:mod:`llverify.triton.attr_grammar`'s; tensor and memdesc types are read by
:mod:`llverify.triton.types`.

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

from llverify.hw import registry as _declarations  # noqa: F401 - the kinds' declarations (mnemonics, fields)
from llverify.hw.kinds import attribute_kinds
from llverify.hw.linear import permutation_problem
from llverify.layout import LinearLayout
from llverify.triton.attr_grammar import SCALAR_TYPE, AttrParseError, Reader, dtype_bits

__all__ = ["AttrParseError", "parse_attr", "parse_aliases", "parse_value", "layout_from_attr", "dtype_bits",
           "attr_kinds", "attr_fields", "reader"]


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


#: Triton 3.0-3.2's leading-offset shared layouts: (perPhase, maxPhase) -> the swizzle width in bytes it stands for
#: (the only three pairs that Triton version accepts with a leading offset)
LEADING_OFFSET_SWIZZLE = {(4, 2): 32, (2, 4): 64, (1, 8): 128}


def _legacy_shared(body: dict[str, Any], text: str, pos: int) -> dict[str, Any]:
    """Triton 3.0-3.2's ``#triton_gpu.shared<{vec, perPhase, maxPhase, order, hasLeadingOffset}>``.

    Without a leading offset it is the swizzled layout later printed as ``#ttg.swizzled_shared`` (same
    fields, same meaning).  With one it is the Hopper MMA layout later printed as ``#ttg.nvmma_shared``: that
    Triton version reads its swizzle width from ``(perPhase, maxPhase)`` (:data:`LEADING_OFFSET_SWIZZLE`), its
    contiguous dim from ``order[0]`` (``[0, 1]``: transposed), and requires ``vec = 128 / element bits``; its
    layout is 8-row atoms of one swizzle row, repeated along the rows and then along the columns, the same map as
    ``#ttg.nvmma_shared`` of that width wherever the rows are at most 256 (the TMA box limit of later versions;
    compared over every width and shape in ``tests/test_ttgir_gate.py``).  The spec carries
    ``legacy_leading_offset`` (the stated ``vec``) for :func:`llverify.ttgir.layouts.layout_of`, which checks
    ``vec`` and the shape once the element type and shape are known; rank-2 orders only.

    >>> _legacy_shared({"vec": 8, "perPhase": 2, "maxPhase": 4, "order": [1, 0], "hasLeadingOffset": True}, "", 0)
    {'kind': 'nvmma_shared', 'swizzle_byte_width': 64, 'transposed': False, 'legacy_leading_offset': {'vec': 8}}
    """
    fields = dict(body)
    if not fields.pop("hasLeadingOffset", False):
        return _to_spec("swizzled_shared", fields, text, pos)
    phases = (fields.pop("perPhase", None), fields.pop("maxPhase", None))
    width = LEADING_OFFSET_SWIZZLE.get(phases) if all(type(x) is int for x in phases) else None
    if width is None:
        raise AttrParseError(text, pos, "(perPhase, maxPhase) = (4, 2), (2, 4) or (1, 8) in a leading-offset "
                                        "#triton_gpu.shared (the only ones Triton 3.0-3.2 accepts)",
                             found=f"({phases[0]}, {phases[1]})")
    order = fields.pop("order", None)
    if order not in ([1, 0], [0, 1]):
        raise AttrParseError(text, pos, "order = [1, 0] or [0, 1] in a leading-offset #triton_gpu.shared (other "
                                        "ranks are not modelled)", found=repr(order))
    vec = fields.pop("vec", None)
    spec = _to_spec("nvmma_shared", fields, text, pos)  # the CTA fields, if any
    spec.update(swizzle_byte_width=width, transposed=order == [0, 1], legacy_leading_offset={"vec": vec})
    return spec


#: kind -> :func:`attr_fields` of it, read-only here (a declared kind never changes)
_FIELDS_OF: dict[str, dict[str, str]] = {}


def _to_spec(kind: str, body: dict[str, Any], text: str, pos: int) -> dict[str, Any]:
    names = _FIELDS_OF.get(kind)
    if names is None:
        names = _FIELDS_OF[kind] = attr_fields(kind)
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
            if not isinstance(v, str) or not SCALAR_TYPE.match(v):
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


def _attribute(text: str, parts: list[str], body: dict[str, Any], start: int) -> Any:
    """The value of attribute ``#parts<body>``: a layout spec, or opaque for the memory spaces."""
    mnemonic = parts[-1]
    if mnemonic in _OPAQUE:
        return {"kind": "__opaque__", "name": ".".join(parts)}
    if mnemonic == "shared":
        return _legacy_shared(body, text, start)
    kind = _kind_of(mnemonic)
    if kind is None:
        raise AttrParseError(text, start, f"a layout attribute ({', '.join(attr_kinds())})",
                             found=repr(".".join(parts)))
    return _to_spec(kind, body, text, start)


#: mnemonic -> llverify kind, of the mnemonics read so far (a declared kind never changes: the hits stay true)
_KIND_OF: dict[str, str] = {}


def _kind_of(mnemonic: str) -> str | None:
    """The llverify kind of attribute ``mnemonic`` (today's or a legacy one), or None."""
    kind = _KIND_OF.get(mnemonic)
    if kind is None:
        kind = attr_kinds().get(mnemonic) or _LEGACY_MNEMONICS.get(mnemonic)
        if kind is not None:
            _KIND_OF[mnemonic] = kind
    return kind


def _unknown(parts: list[str]) -> str | None:
    """Why the body of attribute ``#parts<...>`` is not read: its mnemonic is no layout llverify knows (a dialect
    attribute of another dialect or version, ``#tlx.user_layout<#padded>``, whose body may be anything); None
    for a known one."""
    mnemonic = parts[-1]
    if mnemonic in _OPAQUE or mnemonic == "shared" or _kind_of(mnemonic) is not None:
        return None
    return "a layout attribute llverify reads"


#: memory-space attributes: read as opaque names
_OPAQUE = ("shared_memory", "tensor_memory")


def reader(text: str, aliases: Mapping[str, Any] | None = None) -> Reader:
    """A :class:`~llverify.triton.attr_grammar.Reader` of ``text`` whose attributes are layout specs."""
    return Reader(text, aliases, _attribute, _unknown)


def parse_value(text: str, aliases: Mapping[str, Any] | None = None) -> Any:
    p = reader(text, aliases)
    v = p.value()
    p.end()
    return v


def parse_attr(text: str, aliases: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A ``#ttg.*`` layout attribute (or ``#alias``) -> layout spec (see the module docstring)."""
    if not isinstance(text, str):
        raise AttrParseError(str(text), 0, "attribute text")
    p = reader(text, aliases)
    v = p.attr()
    p.end()
    if not isinstance(v, dict) or v.get("kind") == "__opaque__":
        placeholder = _PLACEHOLDERS.get(str(v.get("name"))) if isinstance(v, dict) else None
        raise AttrParseError(text, 0, "a layout attribute",
                             found=repr(text[:40]) + (f" ({placeholder})" if placeholder else ""))
    return v


#: attributes that stand for a layout not chosen yet (Gluon's, by the layout Gluon's inference will choose)
_PLACEHOLDERS = {name: f"Gluon's {which} layout: a placeholder that Gluon's layout inference replaces before "
                       "lowering, so the value has no layout yet"
                 for name, which in (("gluon.auto_encoding", "auto"), ("gluon.coalesced_encoding", "coalesced"))}


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
            p = reader(m.group(2), aliases)
            v = p.attr()
            p.end()
        except AttrParseError as exc:
            raise AttrParseError(m.group(2), exc.column - 1, f"{exc.expected} (line {lineno}, alias #{m.group(1)})") from None
        aliases[m.group(1)] = v
    return aliases


def layout_from_attr(text: str, shape: list[int], aliases: Mapping[str, Any] | None = None) -> LinearLayout:
    """Parse ``text`` and build it on ``shape``."""
    from llverify.hw.registry import build_spec

    return build_spec(parse_attr(text, aliases), shape)
