"""The ``layouts:`` section: validating a layout declaration and building it.

A layout is given in exactly one of five ways (its *source*):

* ``kind: blocked`` + Gluon parameter names + ``shape`` -> ``llverify.hw.build``;
* ``triton: "#ttg.blocked<{...}>"`` + ``shape`` (or a whole
  ``tensor<64x64xf16, #ttg...>`` type, which carries the shape) ->
  ``llverify.triton``;
* ``bases: {register: [[0, 1], ...], ...}`` + optional ``out: {dim0: 8, ...}``
  (or a list of out-dim names; sizes are then inferred);
* ``lego: "<expression>"`` -> ``llverify.index.lego``;
* ``cute: "Sw<3,4,3> o (8,64):(64,1)"`` -> :mod:`llverify.spec.cute`.

Sizes are guarded: every shape entry a power of two, at most 2^26 tensor
elements, at most 32 in bits.  Problems raise a located
:class:`~llverify.spec.source.SpecError`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from llverify.errors import LlverifyError
from llverify.layout import LinearLayout
from llverify.spec.argtypes import type_name
from llverify.spec.model import LayoutDecl
from llverify.spec.source import LList, LMap, Pos, SpecError
from llverify.spec.suggest import suggest

__all__ = ["LAYOUT_SOURCES", "decl_of", "build_layout", "MAX_ELEMENTS_LOG2", "MAX_IN_BITS"]

LAYOUT_SOURCES: tuple[str, ...] = ("kind", "triton", "bases", "lego", "cute")
MAX_ELEMENTS_LOG2 = 26
MAX_IN_BITS = 32
_EXTRA_KEYS = {
    "kind": None,  # any Gluon parameter
    "triton": ("shape",),
    "bases": ("out",),
    "lego": (),
    "cute": (),
}


def _is_pow2(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0 and v & (v - 1) == 0


def _check_shape(path: str, body: LMap) -> list[int]:
    shape = body["shape"]
    where = body.where("shape")
    if not isinstance(shape, list) or not shape:
        raise SpecError(path, where, f"shape must be a non-empty list of sizes, not {type_name(shape)}")
    total = 0
    for i, s in enumerate(shape):
        p = shape.where(i) if isinstance(shape, LList) else where
        if isinstance(s, bool) or not isinstance(s, int):
            raise SpecError(path, p, f"shape[{i}] must be an integer, not {type_name(s)}")
        if not _is_pow2(s):
            raise SpecError(path, p, f"shape[{i}] is {s}, which is not a power of two")
        total += s.bit_length() - 1
    if total > MAX_ELEMENTS_LOG2:
        raise SpecError(path, where, f"shape {list(shape)} has 2^{total} elements, above the size guard "
                        f"of 2^{MAX_ELEMENTS_LOG2}")
    return list(shape)


def decl_of(path: str, name: str, body: Any, name_pos: Pos, pos: Pos) -> LayoutDecl:
    """Validate the structure of one layout declaration (not its parameters' meaning)."""
    if not name or not isinstance(name, str):
        raise SpecError(path, name_pos, "layout names must be non-empty strings")
    if not isinstance(body, LMap):
        raise SpecError(path, pos, f"layout '{name}' must be a mapping (with one of {', '.join(LAYOUT_SOURCES)}), "
                        f"not {type_name(body)}")
    sources = [s for s in LAYOUT_SOURCES if s in body]
    if not sources:
        raise SpecError(path, pos, f"layout '{name}' says neither of {', '.join(LAYOUT_SOURCES)}: "
                        "give exactly one way to build it")
    if len(sources) > 1:
        raise SpecError(path, body.where_key(sources[1]),
                        f"layout '{name}' gives both '{sources[0]}' and '{sources[1]}': give exactly one")
    source = sources[0]
    allowed = _EXTRA_KEYS[source]
    description = body.get("description", "")
    if not isinstance(description, str):
        raise SpecError(path, body.where("description"), "description must be a string")
    if allowed is not None:
        for k in body:
            if k != source and k != "description" and k not in allowed:
                raise SpecError(path, body.where_key(k),
                                f"unknown key '{k}' in layout '{name}' given by '{source}'{suggest(k, allowed)}; "
                                f"allowed: {', '.join((source,) + tuple(allowed) + ('description',))}")
    if source in ("triton", "lego", "cute") and not isinstance(body[source], str):
        hint = ""
        if body[source] is None and source == "triton":
            # YAML reads an unquoted '#ttg...' as a comment, leaving the key empty.
            hint = "; a value starting with '#' is a YAML comment: quote it, e.g. triton: \"#ttg.blocked<{...}>\""
        raise SpecError(path, body.where(source), f"'{source}' of layout '{name}' must be a string, "
                        f"not {type_name(body[source])}{hint}")
    if source == "kind" and not isinstance(body["kind"], str):
        raise SpecError(path, body.where("kind"), f"kind of layout '{name}' must be a string, "
                        f"not {type_name(body['kind'])}")
    if "shape" in body:
        _check_shape(path, body)
    elif source == "kind":
        raise SpecError(path, pos, f"layout '{name}' of kind '{body['kind']}' needs a `shape:`")
    params = {k: v for k, v in body.items() if k != "description"}
    return LayoutDecl(name=name, source=source, params=params, pos=pos, description=description)


def _guard(path: str, pos: Pos, name: str, layout: LinearLayout, typed: bool = False) -> LinearLayout:
    """The size guards of a built layout; ``typed``: its shape came from a Triton type
    (``tensor<65536x65536xf16, ...>``), which meets the same element guard as a ``shape:`` key."""
    if typed and layout.total_out_bits > MAX_ELEMENTS_LOG2:
        shape = [layout.out_dim_size(d) for d in layout.out_dim_names]
        raise SpecError(path, pos, f"shape {shape} has 2^{layout.total_out_bits} elements, above the size guard "
                        f"of 2^{MAX_ELEMENTS_LOG2}")
    if layout.total_in_bits > MAX_IN_BITS:
        raise SpecError(path, pos, f"layout '{name}' has 2^{layout.total_in_bits} inputs, above the size guard "
                        f"of 2^{MAX_IN_BITS}")
    if layout.total_out_bits > MAX_ELEMENTS_LOG2 + 6:
        raise SpecError(path, pos, f"layout '{name}' has 2^{layout.total_out_bits} outputs, above the size guard")
    return layout


def _bases_layout(path: str, name: str, body: LMap) -> LinearLayout:
    bases = body["bases"]
    where = body.where("bases")
    if not isinstance(bases, LMap) or not bases:
        raise SpecError(path, where, f"bases of layout '{name}' must be a mapping in-dim -> list of bases")
    width = None
    for d, bs in bases.items():
        dp = bases.where(d)
        if not isinstance(bs, list):
            raise SpecError(path, dp, f"bases of in dim '{d}' must be a list of bases, not {type_name(bs)}")
        for i, b in enumerate(bs):
            bp = bs.where(i) if isinstance(bs, LList) else dp
            if isinstance(b, int) and not isinstance(b, bool):
                b = [b]  # 1-D shorthand
            if not isinstance(b, list) or not b:
                raise SpecError(path, bp, f"basis {i} of '{d}' must be a list of ints (one per out dim)")
            for c in b:
                if isinstance(c, bool) or not isinstance(c, int) or c < 0:
                    raise SpecError(path, bp, f"basis {i} of '{d}' has component {c!r}; "
                                    "components are non-negative integers")
                if c >= 1 << (MAX_ELEMENTS_LOG2 + 6):
                    raise SpecError(path, bp, f"basis {i} of '{d}' has component {c}, above the size guard")
            if width is None:
                width = len(b)
            elif len(b) != width:
                raise SpecError(path, bp, f"basis {i} of '{d}' has {len(b)} components but earlier bases have {width}")
        if len(bs) > MAX_IN_BITS:
            raise SpecError(path, dp, f"in dim '{d}' has {len(bs)} bases, above the size guard of {MAX_IN_BITS}")
    width = width or 1
    norm = [(d, [[b] if isinstance(b, int) else list(b) for b in bs]) for d, bs in bases.items()]
    out = body.get("out")
    if out is None:
        names = [f"dim{i}" for i in range(width)]
        sizes = [1] * width
        for _, bs in norm:
            for b in bs:
                for k, c in enumerate(b):
                    sizes[k] = max(sizes[k], 1 << c.bit_length())
    elif isinstance(out, LMap):
        names = list(out)
        sizes = []
        for k, v in out.items():
            if not _is_pow2(v):
                raise SpecError(path, out.where(k), f"out dim '{k}' has size {v!r}, which is not a power of two")
            sizes.append(v)
    elif isinstance(out, list) and all(isinstance(n, str) for n in out):
        names = list(out)
        sizes = [1] * len(names)
        for _, bs in norm:
            for b in bs:
                for k, c in enumerate(b[: len(names)]):
                    sizes[k] = max(sizes[k], 1 << c.bit_length())
    else:
        raise SpecError(path, body.where("out"), "out must map out-dim names to sizes ({dim0: 8, dim1: 16}) "
                        "or list the out-dim names")
    if len(names) != width:
        raise SpecError(path, body.where("out") if out is not None else where,
                        f"bases have {width} components but there are {len(names)} out dims ({', '.join(names)})")
    if sum(s.bit_length() - 1 for s in sizes) > MAX_ELEMENTS_LOG2 + 6:
        raise SpecError(path, body.where("out"), f"out dims of layout '{name}' exceed the size guard")
    try:
        return LinearLayout(norm, list(zip(names, sizes)), require_surjective=False)
    except LlverifyError as exc:
        raise SpecError(path, where, f"layout '{name}': {exc}") from None


@contextmanager
def _layer(path: str, pos: Pos, module: str, what: str) -> Iterator[None]:
    """Turn an ImportError of the layer ``module`` imported in the block into a located SpecError."""
    try:
        yield
    except ImportError as exc:
        raise SpecError(path, pos, f"{what} layouts are not available in this build ({module}: {exc})") from None


def _kind_layout(path: str, decl: LayoutDecl, body: LMap, decls: Mapping[str, LayoutDecl],
                 built: Mapping[str, LinearLayout]) -> LinearLayout:
    from llverify.spec import adapters

    with _layer(path, body.where("kind"), "llverify.hw", "hardware"):
        from llverify import hw
    params = dict(decl.params)
    kind = params.pop("kind")
    shape = params.pop("shape")
    return adapters.build_kind(hw, kind, shape, params, decls, built)


def build_layout(path: str, decl: LayoutDecl, body: LMap, decls: Mapping[str, LayoutDecl],
                 built: Mapping[str, LinearLayout]) -> LinearLayout:
    """Build a validated declaration; errors from the building layer become located errors."""
    from llverify.spec import adapters

    try:
        if decl.source == "bases":
            layout = _bases_layout(path, decl.name, body)
        elif decl.source == "kind":
            layout = _kind_layout(path, decl, body, decls, built)
        elif decl.source == "triton":
            with _layer(path, body.where("triton"), "llverify.triton", "Triton attribute"):
                from llverify import triton
            layout = adapters.build_triton(triton, body["triton"], decl.params.get("shape"))
        elif decl.source == "lego":
            with _layer(path, body.where("lego"), "llverify.index.lego", "LEGO"):
                from llverify.index import lego  # noqa: F401 - the layer lego_expr builds on
            from llverify.spec.lego_expr import lego_to_layout

            layout = lego_to_layout(body["lego"])
        else:
            from llverify.spec.cute import cute_to_layout

            layout = cute_to_layout(body["cute"])
    except SpecError:
        raise
    except adapters.NotAvailable as exc:
        raise SpecError(path, body.where(decl.source), f"layout '{decl.name}' cannot be built: "
                        f"'{decl.source}' layouts are not available in this build ({exc})") from None
    except (LlverifyError, ValueError, TypeError, KeyError) as exc:
        where = body.where(decl.source)
        msg = str(exc).strip() or type(exc).__name__
        raise SpecError(path, where, f"invalid layout '{decl.name}': {msg}") from None
    except Exception as exc:  # noqa: BLE001 - a bug below us must still not print a traceback
        raise SpecError(path, body.where(decl.source), f"layout '{decl.name}' could not be built "
                        f"(internal error: {type(exc).__name__}: {exc})") from None
    typed = decl.source == "triton" and str(body["triton"]).lstrip().startswith(("tensor<", "!ttg.memdesc", "!tt.memdesc"))
    return _guard(path, body.where(decl.source) if typed else decl.pos, decl.name, layout, typed)
