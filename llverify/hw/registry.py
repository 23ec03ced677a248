"""``build(kind, shape, **params)``: every hardware layout kind by name.

Kind names are the ones specs and the command line use; parameters are
Gluon's snake_case names.  Nested parents (``slice``, ``dot_operand``) are
given as ``{"kind": ..., **params}`` mappings (a ``"params"`` sub-mapping is
accepted too).  Unknown kinds and unknown or missing parameters raise
:class:`~llverify.errors.LayoutError` naming them.

>>> from llverify.hw import build
>>> L = build("blocked", [16], size_per_thread=[1], threads_per_warp=[4], warps_per_cta=[4], order=[0])
>>> [list(b) for b in L.bases["warp"]]
[[4], [8]]
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["KINDS", "TILE_KINDS", "build", "build_spec", "constructor", "parameters"]

# kind -> (module, function); imported lazily so the registry stays cheap.
_TABLE: dict[str, tuple[str, str]] = {
    "blocked": ("llverify.hw.blocked", "blocked"),
    "slice": ("llverify.hw.slice", "slice_layout"),
    "nvidia_mma": ("llverify.hw.nvidia_mma", "nvidia_mma"),
    "dot_operand": ("llverify.hw.dot_operand", "dot_operand"),
    "amd_mfma": ("llverify.hw.amd", "amd_mfma"),
    "amd_wmma": ("llverify.hw.amd", "amd_wmma"),
    "swizzled_shared": ("llverify.hw.shared", "swizzled_shared"),
    "nvmma_shared": ("llverify.hw.shared", "nvmma_shared"),
    "amd_rotating_shared": ("llverify.hw.shared", "amd_rotating_shared"),
    "shared_linear": ("llverify.hw.shared", "shared_linear"),
    "linear": ("llverify.hw.linear", "linear"),
    "tensor_memory": ("llverify.hw.tmem", "tensor_memory"),
    "tensor_memory_scales": ("llverify.hw.tmem", "tensor_memory_scales"),
    # instruction tiles (seed 000, section 5.3); shape optional, fixed by the instruction
    "ld_shared": ("llverify.hw.tiles", "ld_shared"),
    "st_shared": ("llverify.hw.tiles", "st_shared"),
    "ldmatrix": ("llverify.hw.tiles", "ldmatrix"),
    "stmatrix": ("llverify.hw.tiles", "stmatrix"),
}

#: The instruction-tile kinds (:mod:`llverify.hw.tiles`); ``build("ldmatrix", None, num=4, trans=True)``.
TILE_KINDS: tuple[str, ...] = ("ld_shared", "st_shared", "ldmatrix", "stmatrix")

#: Every hardware layout kind name :func:`build` accepts (instruction tiles are in :data:`TILE_KINDS`).
KINDS: tuple[str, ...] = tuple(k for k in _TABLE if k not in TILE_KINDS)

# Spellings Triton's tests and attribute names use for the same kinds.
_ALIASES = {"mma": "nvidia_mma", "mfma": "amd_mfma", "wmma": "amd_wmma", "dot_op": "dot_operand",
            "distributed_linear": "linear"}


def constructor(kind: str) -> Callable[..., LinearLayout]:
    """The constructor function of ``kind`` (aliases ``mma``, ``mfma``, ``wmma``, ``dot_op`` accepted)."""
    import importlib

    k = _ALIASES.get(kind, kind)
    if k == "padded_shared":
        raise LayoutError("padded_shared is not an F2-linear layout (its padding adds to the offset, "
                          "llverify.hw.padded): `llverify ttgir` decides its claims; a spec can check its linear "
                          "component given as shared_linear")
    if k not in _TABLE:
        raise LayoutError(f"unknown layout kind {kind!r}; expected one of {', '.join(KINDS + TILE_KINDS)}")
    mod, fn = _TABLE[k]
    return getattr(importlib.import_module(mod), fn)


def parameters(kind: str) -> dict[str, bool]:
    """Parameter name -> required?, for ``kind`` (``shape`` excluded)."""
    sig = inspect.signature(constructor(kind))
    return {n: p.default is inspect.Parameter.empty for n, p in sig.parameters.items() if n != "shape"}


def build(kind: str, shape: Sequence[int] | None, **params: Any) -> LinearLayout:
    """The ``kind`` layout with Gluon-named ``params`` on ``shape`` (a list of powers of two).

    For the instruction tiles (:data:`TILE_KINDS`) ``shape`` may be ``None``:
    the instruction fixes it.
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


_SIGS: dict[Callable[..., Any], dict[str, bool]] = {}


def _signature(fn: Callable[..., Any]) -> dict[str, bool]:
    s = _SIGS.get(fn)
    if s is None:
        s = _SIGS[fn] = {n: p.default is inspect.Parameter.empty for n, p in inspect.signature(fn).parameters.items()}
    return s
