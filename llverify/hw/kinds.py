"""The hardware-kind table: :class:`Kind` declarations and building a layout by kind name.

Every kind is declared once (``Kind("blocked", blocked, mnemonic="blocked",
fields=..., sample=...)``, direct references to the constructor and the
sampler), and :mod:`llverify.hw.registry` hands the declarations to
:func:`declare`; :func:`constructor`, :func:`parameters`, :func:`build` and
:func:`build_spec` look kinds up here.  This module imports no constructor,
so a constructor whose parameters nest another layout (``slice``'s parent)
can call :func:`build_spec` without an import cycle.

A kind may also say how Triton's Gluon builder builds its attribute
(``Kind.gluon``, a function of a :class:`GluonBuilder` and the parameters);
only the differential tests' oracle (``tests/oracle_triton.py``) calls it,
and kinds without one are left out of the differential with a reason.

Kind names are the ones specs and the command line use; parameters are
Gluon's snake_case names.  Unknown kinds and unknown or missing parameters
raise :class:`~llverify.errors.LayoutError` naming them.
"""

from __future__ import annotations

import inspect
import random
from dataclasses import dataclass, field
from types import MappingProxyType
from collections.abc import Mapping
from typing import Any, Callable, Protocol, Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["GluonBuilder", "Kind", "build", "build_on_shapes", "build_spec", "constructor", "declare", "declared", "parameters",
           "attribute_kinds", "lookup", "sampled_kinds", "sampler"]


class GluonBuilder(Protocol):
    """What a kind's ``gluon`` function receives: Triton's ``gluon_ir.GluonOpBuilder`` (its ``get_*_layout``
    methods, reached as attributes) plus two helpers for what several kinds share.

    No llverify module imports Triton: the oracle of the differential tests (``tests/oracle_triton.py``)
    wraps the real builder in a child process.
    """

    def cga(self, params: Mapping[str, Any]) -> list[list[int]]:
        """The CGA layout bases of ``params`` (``cga_layout``, or the legacy ``ctas_per_cga`` triple; ``[]``)."""

    def nested(self, spec: Mapping[str, Any]) -> Any:
        """The attribute of a nested layout ``{"kind": ..., **params}`` (a slice's or dot operand's parent)."""

    def __getattr__(self, name: str) -> Any:
        """Triton's builder methods, e.g. ``get_blocked_layout``."""


@dataclass(frozen=True)
class Kind:
    """One hardware layout kind, declared once; everything else about the kind is derived from this.

    * ``name``: how specs, the command line and :func:`build` spell it; ``aliases``: other spellings
      (Triton's tests and attribute names);
    * ``fn``: the constructor (Gluon's snake_case parameters, plus ``shape``);
    * ``mnemonic``, ``dialect`` and ``fields``: its Triton attribute, ``#<dialect>.<mnemonic><{...}>``, and
      each attribute field's parameter (``sizePerThread`` -> ``size_per_thread``), read by the Triton
      parser and printer (:mod:`llverify.triton.parse`, :mod:`llverify.triton.format`); no mnemonic:
      the kind has no Triton attribute;
    * ``sample``: draws one random valid ``{"kind", "shape", "params"}`` case for the differential tests and
      benchmarks (:mod:`llverify.hw.sampling`); ``None``: not sampled, and ``unsampled`` says why (every
      kind that is not an instruction tile is sampled or says why not, ``tests/test_declared_kinds.py``);
    * ``tile``: an instruction tile (:mod:`llverify.hw.tiles`), whose shape may be ``None`` because the
      instruction fixes it;
    * ``gluon``: how Triton's Gluon builder builds the attribute, ``gluon(builder, params)`` with a
      :class:`GluonBuilder` and the constructor's parameters; the differential tests' oracle derives every
      kind's branch from it; ``None``: the kind has no Gluon builder and is not compared with Triton;
    * ``on_shapes``: optional, ``on_shapes(**params)`` (the parameters without ``shape``) returns
      ``shape -> fn(shape=shape, **params)`` with the checks that do not depend on the shape done once, raising
      what ``fn`` raises for every shape when one of them fails (:func:`build_on_shapes`).
    """

    name: str
    fn: Callable[..., LinearLayout]
    aliases: tuple[str, ...] = ()
    tile: bool = False
    mnemonic: str | None = None
    dialect: str = "ttg"
    fields: Mapping[str, str] = field(default_factory=dict)
    sample: Callable[[random.Random], dict[str, Any]] | None = None
    gluon: Callable[[GluonBuilder, Mapping[str, Any]], Any] | None = None
    unsampled: str = ""
    on_shapes: Callable[..., Callable[[Sequence[int]], LinearLayout]] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))

    def __hash__(self) -> int:
        return hash(self.name)


_KINDS: dict[str, Kind] = {}
_ALIASES: dict[str, str] = {}


def declare(*kinds: Kind) -> None:
    """Add ``kinds`` to the table (a name or alias declared twice, differently, is an error)."""
    for k in kinds:
        if _KINDS.get(k.name) == k:
            continue  # the same declaration again (a re-imported registry)
        for name in (k.name, *k.aliases):
            if name in _KINDS or name in _ALIASES:
                raise ValueError(f"hardware kind {name!r} is declared twice")
        _KINDS[k.name] = k
        _ALIASES.update((a, k.name) for a in k.aliases)


def declared() -> tuple[Kind, ...]:
    """Every declared kind, in declaration order."""
    return tuple(_KINDS.values())


def lookup(kind: str) -> Kind:
    """The declaration of ``kind`` (a name or an alias; :class:`LayoutError` when none is declared)."""
    k = _KINDS.get(_ALIASES.get(kind, kind))
    if k is None:
        raise LayoutError(f"unknown layout kind {kind!r}; expected one of {', '.join(_KINDS)}")
    return k


def attribute_kinds() -> dict[str, Kind]:
    """Triton attribute mnemonic -> its declared kind (``"dot_op"`` -> the ``dot_operand`` kind)."""
    return {k.mnemonic: k for k in _KINDS.values() if k.mnemonic}


def sampled_kinds() -> tuple[str, ...]:
    """The kinds with a sampler, in declaration order."""
    return tuple(k.name for k in _KINDS.values() if k.sample is not None)


def sampler(kind: str) -> Callable[[random.Random], dict[str, Any]]:
    """The sampler of ``kind`` (:class:`LayoutError` when it has none)."""
    k = _KINDS.get(_ALIASES.get(kind, kind))
    if k is None or k.sample is None:
        raise LayoutError(f"no random sampler for layout kind {kind!r}; sampled kinds: {', '.join(sampled_kinds())}")
    return k.sample


def constructor(kind: str) -> Callable[..., LinearLayout]:
    """The constructor function of ``kind`` (aliases ``mma``, ``mfma``, ``wmma``, ``dot_op`` accepted)."""
    k = _ALIASES.get(kind, kind)
    if k == "padded_shared":
        raise LayoutError("padded_shared is not an F2-linear layout (its padding adds to the offset, "
                          "llverify.hw.padded): `llverify ttgir` decides its claims; a spec can check its linear "
                          "component given as shared_linear")
    if k not in _KINDS:
        names = [d.name for d in _KINDS.values() if not d.tile] + [d.name for d in _KINDS.values() if d.tile]
        raise LayoutError(f"unknown layout kind {kind!r}; expected one of {', '.join(names)}")
    return _KINDS[k].fn


def parameters(kind: str) -> dict[str, bool]:
    """Parameter name -> required?, for ``kind`` (``shape`` excluded)."""
    sig = inspect.signature(constructor(kind))
    return {n: p.default is inspect.Parameter.empty for n, p in sig.parameters.items() if n != "shape"}


def build(kind: str, shape: Sequence[int] | None, **params: Any) -> LinearLayout:
    """The ``kind`` layout with Gluon-named ``params`` on ``shape`` (a list of powers of two).

    For the instruction tiles (``Kind.tile``) ``shape`` may be ``None``: the
    instruction fixes it.
    """
    fn = constructor(kind)
    sig = _signature(fn)
    allowed = set(sig) - {"shape"}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise LayoutError(f"{kind}: unknown parameter(s) {', '.join(unknown)}; "
                          f"expected some of {', '.join(n for n in sig if n != 'shape')}")
    missing = [n for n, req in sig.items() if req and n != "shape" and n not in params]
    if missing:
        raise LayoutError(f"{kind}: missing required parameter(s) {', '.join(missing)}")
    try:
        return fn(shape=shape, **params)
    except LayoutError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError) as exc:
        raise LayoutError(f"{kind}: invalid parameters ({type(exc).__name__}: {exc})") from None


def build_spec(spec: Mapping[str, Any], shape: Sequence[int], what: str = "layout") -> LinearLayout:
    """Build from ``{"kind": ..., **params}`` (or ``{"kind": ..., "params": {...}}``)."""
    if not isinstance(spec, Mapping) or "kind" not in spec:
        raise LayoutError(f"{what} must be a mapping with a 'kind' key, got {spec!r}")
    params = dict(spec)
    kind = params.pop("kind")
    if "params" in params and isinstance(params["params"], Mapping):
        params = {**params.pop("params"), **params}
    params.pop("shape", None) if kind != "linear" else None
    return build(str(kind), shape, **params)


def build_on_shapes(spec: Mapping[str, Any], what: str = "layout") -> Callable[[Sequence[int]], LinearLayout]:
    """``shape -> build_spec(spec, shape, what)``: the same layout or the same error for every shape, with the
    checks that do not depend on the shape done once where the kind declares ``on_shapes`` (a module builds one
    encoding at several shapes).  Every other spec (another kind, a nested ``params`` or a ``shape`` key, an
    unknown or missing parameter, a parameter the kind refuses) is built by :func:`build_spec` at each call."""
    def general(shape: Sequence[int]) -> LinearLayout:
        return build_spec(spec, shape, what)

    if type(spec) is not dict or "params" in spec or "shape" in spec:
        return general
    kind = spec.get("kind")
    k = _KINDS.get(kind) if type(kind) is str else None
    if k is None or k.on_shapes is None:
        return general
    params = {n: v for n, v in spec.items() if n != "kind"}
    sig = _signature(k.fn)
    if any(n not in sig or n == "shape" for n in params) or any(
            req and n != "shape" and n not in params for n, req in sig.items()):
        return general
    try:
        finish = k.on_shapes(**params)
    except Exception:  # noqa: BLE001 - build_spec raises (and words) the same error at each call
        return general

    def on(shape: Sequence[int]) -> LinearLayout:
        try:
            return finish(shape)
        except LayoutError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError) as exc:
            raise LayoutError(f"{kind}: invalid parameters ({type(exc).__name__}: {exc})") from None

    return on


_SIGS: dict[Callable[..., Any], dict[str, bool]] = {}


def _signature(fn: Callable[..., Any]) -> dict[str, bool]:
    s = _SIGS.get(fn)
    if s is None:
        s = _SIGS[fn] = {n: p.default is inspect.Parameter.empty for n, p in inspect.signature(fn).parameters.items()}
    return s
