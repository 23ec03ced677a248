"""From a TTGIR type to the :class:`~llverify.layout.LinearLayout` it denotes.

* ``tensor<SHAPE x T, #enc>``: ``build_spec(enc, SHAPE)`` (``nvmma_shared`` and
  other encodings that need the element width get it from ``T``).
* ``!ttg.memdesc<B... x SHAPE x T, #enc, #smem, [mutable], [ALLOC]>``: the
  encoding describes one buffer of the *allocation*: its rank is the
  encoding's (``order`` length, 2 for ``nvmma_shared`` unless ``rank`` is
  given, the basis length for ``shared_linear``); leading dims beyond it are
  buffer indices (multi-buffering: any size, not necessarily a power of two).
  With a trailing allocation shape (a subview), the layout is built on the
  allocation's trailing dims; the view's own shape is returned beside it.
* ``#ttg.padded_shared``: the linear component as the layout, the padding beside it
  (:class:`~llverify.hw.padded.Padding`); obligations on physical addresses apply it.

A type that cannot be built yields a :class:`LayoutProblem` with the reason;
the obligations that need it become ``unknown`` (never the whole module).

>>> from llverify.ttgir.types import parse_typeref
>>> t = parse_typeref("!ttg.memdesc<3x64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, "
...                   "order = [1, 0]}>, #ttg.shared_memory, mutable>", {})
>>> built = layout_of(t)
>>> built.buffers, built.layout.out_dims["dim0"], built.layout.in_dim_names
(3, 64, ('offset', 'block'))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping

from llverify.errors import LlverifyError
from llverify.hw.padded import Padding, padded_shared
from llverify.hw.registry import build_on_shapes
from llverify.hw.slice import slice_of_parent, slice_parent_shape
from llverify.layout import LinearLayout
from llverify.triton.parse import dtype_bits
from llverify.ttgir.model import TypeRef

__all__ = ["BuiltLayout", "LayoutProblem", "layout_of", "element_bits", "encoding_rank", "legacy_operand_order",
           "nvidia_mma_major"]


def nvidia_mma_major(spec: Any) -> int | None:
    """The major version of an ``#ttg.nvidia_mma`` layout spec (2: ``mma.sync``, 3: ``wgmma``), or None for any other
    spec (the parser keeps ``version`` as ``[major, minor]``).

    >>> nvidia_mma_major({"kind": "nvidia_mma", "version": [3, 0]}), nvidia_mma_major({"kind": "blocked"})
    (3, None)
    """
    if not isinstance(spec, Mapping) or spec.get("kind") != "nvidia_mma":
        return None
    version = spec.get("version")
    major = version[0] if isinstance(version, (list, tuple)) and version else version
    return major if isinstance(major, int) else None


def legacy_operand_order(legacy_dialect: bool, encoding: Any, bits: int) -> str | None:
    """Why the registers of a value in ``encoding`` (a layout spec) with ``bits``-bit elements are not placed as its
    layout says by the module's own lowering, or None: a module of Triton 3.2 or older
    (:attr:`~llverify.ttgir.model.Module.legacy_dialect`) loads mma v2 dot operands of other than 16-bit elements
    in a register order of its own (measured on Triton 3.2.0's LLVM IR of our i8 and tf32 dots: scalar loads of
    other elements than today's layout places, where Triton 3.9's code agrees with it).  Claims on how those loads
    are lowered (their instructions, wavefronts, the elements each register gets) are then unknown.

    >>> mma2 = {"kind": "nvidia_mma", "version": [2, 0]}
    >>> legacy_operand_order(True, {"kind": "dot_operand", "parent": mma2}, 8) is not None
    True
    >>> legacy_operand_order(True, {"kind": "dot_operand", "parent": mma2}, 16), legacy_operand_order(False, {}, 8)
    (None, None)
    """
    if not legacy_dialect or bits == 16 or not isinstance(encoding, Mapping):
        return None
    if encoding.get("kind") != "dot_operand" or nvidia_mma_major(encoding.get("parent")) != 2:
        return None
    return (f"a Triton 3.2-or-older module (triton_gpu dialect): its lowering loads mma v2 operands of {bits}-bit "
            "elements in a register order of its own, which llverify does not model (today's layout is not it: "
            "measured on Triton 3.2.0's i8 and tf32 dots)")


@dataclass(frozen=True, init=False)
class BuiltLayout:
    """A built layout: ``layout`` over ``shape`` (one buffer), ``buffers`` buffer copies, ``view`` the type's
    own trailing shape (differs from ``shape`` for a subview)."""

    layout: LinearLayout
    shape: tuple[int, ...]
    buffers: int
    view: tuple[int, ...]
    bits: int
    padding: Padding | None = None

    def __init__(self, layout: LinearLayout, shape: tuple[int, ...], buffers: int, view: tuple[int, ...], bits: int,
                 padding: Padding | None = None) -> None:
        # the generated __init__ of a frozen dataclass, in one step (one per type of a module, so many)
        object.__setattr__(self, "__dict__", {"layout": layout, "shape": shape, "buffers": buffers, "view": view,
                                              "bits": bits, "padding": padding})


@dataclass(frozen=True)
class LayoutProblem:
    """Why a type's layout could not be built."""

    reason: str


@lru_cache(maxsize=1024)
def element_bits(element: str) -> int:
    """Bit width of an element type (pointers 64); 0 when unknown.  Memoised (a pure function of the text)."""
    try:
        return dtype_bits(element)
    except (LlverifyError, ValueError):
        return 0


def encoding_rank(spec: Mapping[str, Any]) -> int | None:
    """The tensor rank an encoding describes, when the encoding says so."""
    kind = spec.get("kind")
    if "order" in spec and isinstance(spec["order"], list):
        return len(spec["order"])
    if kind == "nvmma_shared":
        return int(spec.get("rank", 2) or 2)
    if kind in ("tensor_memory", "tensor_memory_scales"):
        return 2  # a TMEM tile is (blockM, blockN); leading dims of a memdesc are buffers
    if kind == "padded_shared" and isinstance(spec.get("shape"), list):
        return len(spec["shape"])
    if kind in ("shared_linear", "padded_shared"):
        bases = spec.get("offset_bases") or []
        return len(bases[0]) if bases and isinstance(bases[0], list) else None
    if kind in ("nvidia_mma", "amd_mfma", "amd_wmma") and isinstance(spec.get("warps_per_cta"), list):
        return len(spec["warps_per_cta"])
    if kind == "partitioned_shared" and isinstance(spec.get("partition_layout"), dict):
        return encoding_rank(spec["partition_layout"])
    if kind == "slice" and isinstance(spec.get("parent"), dict):
        parent = encoding_rank(spec["parent"])
        return None if parent is None else parent - 1
    return None


#: values :func:`_freeze` and :func:`_thaw` return unchanged (neither dicts, lists nor tuples), tested by exact type
_LEAVES = frozenset({int, str, bool, float, type(None)})


def _freeze(value: Any) -> Any:
    """The hashable form of an encoding spec: a dict becomes the sorted tuple of its ``(key, frozen value)`` pairs,
    a list the tuple of its frozen items; anything else is kept."""
    cls = type(value)
    if cls in _LEAVES:
        return value
    if isinstance(value, dict):
        return tuple(sorted((k, v if type(v) in _LEAVES else _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        items = tuple(value)
        try:
            hash(items)  # no list or dict inside (both unhashable): every item is its own frozen form
            return items
        except TypeError:
            return tuple(v if type(v) in _LEAVES else _freeze(v) for v in value)
    return value


def _freeze_sharing(spec: dict[str, Any], memo: dict[Any, Any]) -> Any:
    """``_freeze(spec)``, each nested dict's frozen form (a slice's or dot operand's parent: the alias's spec object,
    shared by every encoding that names it) taken from ``memo`` by identity, frozen on its first use.

    Requires: the nested dicts are not changed while ``memo`` lives (the module's encodings are read once and kept)."""
    items = []
    for k, v in spec.items():
        if type(v) in _LEAVES:
            items.append((k, v))
        elif type(v) is dict:
            key = ("nested", id(v))
            hit = memo.get(key)
            if hit is None or hit[0] is not v:
                hit = memo[key] = (v, _freeze(v))  # the dict is kept, so its id is not reused
            items.append((k, hit[1]))
        else:
            items.append((k, _freeze(v)))
    items.sort()
    return tuple(items)


def _thaw(value: Any) -> Any:
    """The inverse of :func:`_freeze` on specs: a non-empty tuple of ``(str, value)`` pairs becomes a dict, any other
    tuple a list (recursively)."""
    if type(value) in _LEAVES or not isinstance(value, tuple):
        return value
    first = value[0] if value else None  # a list's first item is mostly a leaf: no pair, decided without the scan
    if (isinstance(first, tuple) and len(first) == 2 and isinstance(first[0], str)
            and all(isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) for x in value)):
        return {k: v if type(v) in _LEAVES else _thaw(v) for k, v in value}
    return [v if type(v) in _LEAVES else _thaw(v) for v in value]


class _BuildMemo:
    """The memo of :func:`_build`: each ``(frozen spec, shape)`` built once, and each frozen spec thawed once (the
    same encoding is built at several shapes in one module: ``64x1``, ``1x64``, ``64x64``).  ``cache_clear`` forgets
    both (benchmarks call it per module); the interface is ``functools.lru_cache``'s (a call, ``cache_clear``).

    The thawed spec is shared by the builds of one frozen spec: constructors read their parameters and never change
    them (``build_spec`` and every constructor copy what they edit; ``tests/test_fast_paths_buildfast.py`` compares
    every corpus build with one from a fresh thaw)."""

    __slots__ = ("_built", "_specs", "_builders")

    def __init__(self) -> None:
        self._built: dict[tuple[Any, tuple[int, ...]], Any] = {}
        self._specs: dict[Any, Any] = {}
        self._builders: dict[Any, Any] = {}

    def __call__(self, frozen_spec: Any, shape: tuple[int, ...]) -> LinearLayout | tuple[LinearLayout, Padding] | str:
        return _bounded_get(self._built, (frozen_spec, shape), _build_uncached, frozen_spec, shape)

    def thawed(self, frozen_spec: Any) -> Any:
        """``_thaw(frozen_spec)``, once per frozen spec."""
        return _bounded_get(self._specs, frozen_spec, _thaw, frozen_spec)

    def builder(self, frozen_spec: Any) -> Callable[[list[int]], LinearLayout]:
        """``build_on_shapes(thawed spec)``, once per frozen spec: the checks that do not depend on the shape
        done once per encoding."""
        return _bounded_get(self._builders, frozen_spec, self._make_builder, frozen_spec)

    def _make_builder(self, frozen_spec: Any) -> Callable[[list[int]], LinearLayout]:
        return build_on_shapes(self.thawed(frozen_spec))

    def cache_clear(self) -> None:
        self._built.clear()
        self._specs.clear()
        self._builders.clear()


_MISSING = object()

#: entries a memo of :class:`_BuildMemo` holds before it is emptied
_MEMO_BOUND = 4096


def _bounded_get(memo: dict[Any, Any], key: Any, make: Callable[..., Any], *args: Any) -> Any:
    """``memo[key]``, made by ``make(*args)`` and stored on a miss; the memo is emptied first when it holds
    :data:`_MEMO_BOUND` entries (a bound on memory, not an eviction policy)."""
    hit = memo.get(key, _MISSING)
    if hit is _MISSING:
        if len(memo) >= _MEMO_BOUND:
            memo.clear()
        hit = memo[key] = make(*args)
    return hit


#: the layout (or, for ``padded_shared``, the layout and its padding) of a frozen spec on a shape, or the error's
#: text; memoised (:class:`_BuildMemo`)
_build = _BuildMemo()


def _build_uncached(frozen_spec: Any, shape: tuple[int, ...]) -> LinearLayout | tuple[LinearLayout, Padding] | str:
    try:
        if (len(frozen_spec) == 3 and frozen_spec[1] == ("kind", "slice") and frozen_spec[0][0] == "dim"
                and frozen_spec[2][0] == "parent" and type(frozen_spec[0][1]) is int):
            # a `{"kind": "slice", "dim": int, "parent": ...}` spec (frozen: its pairs sorted by key), read without
            # thawing the parent
            derived = _slice_from_memo(frozen_spec[0][1], frozen_spec[2][1], shape)
            if derived is not None:
                return derived
        spec = _build.thawed(frozen_spec)
        if spec.get("kind") == "padded_shared":
            return _padded(spec, shape)
        return _build.builder(frozen_spec)(list(shape))
    except (LlverifyError, ValueError, KeyError, TypeError) as exc:
        return str(exc) or type(exc).__name__


def _slice_from_memo(dim: int, frozen_parent: Any, shape: tuple[int, ...]) -> LinearLayout | None:
    """A ``#ttg.slice``'s layout from its parent's memoised build (:func:`_build` of the parent on the parent
    shape, which the module's ``expand_dims`` results often are already): ``slice_of_parent`` of it, the layout
    :func:`~llverify.hw.slice.slice_layout` builds from the same parent spec.  None (build it in full) for any
    other form or any failure, so every error message is the general path's."""
    try:
        pshape = slice_parent_shape(dim, list(shape))
        parent = _build(frozen_parent, tuple(pshape))
        return slice_of_parent(dim, parent, pshape) if isinstance(parent, LinearLayout) else None
    except Exception:  # noqa: BLE001 - the general path raises (and words) the error
        return None


def _padded(spec: Mapping[str, Any], shape: tuple[int, ...]) -> tuple[LinearLayout, Padding]:
    params = {k: v for k, v in spec.items() if k not in ("kind", "shape")}
    if "shape" in spec and list(spec["shape"]) != list(shape):
        raise LlverifyError(f"padded_shared: the encoding's shape {spec['shape']} is not the buffer's {list(shape)}")
    return padded_shared(shape=list(shape), **params)


#: the encoding kinds whose spec :func:`layout_of` completes from the element width (nvmma_shared's width,
#: tensor_memory's unpacking): the only ones it copies, and the only ones frozen per width
_COMPLETED_BY_WIDTH = ("nvmma_shared", "tensor_memory")


def _frozen_key(encoding: Any, spec: Mapping[str, Any], bits: int) -> tuple[int, int | None]:
    """The key of an encoding's frozen spec in :func:`layout_of`'s memo: the encoding object, and the element width
    only where the spec was completed from it (nvmma_shared's width, tensor_memory's unpacking); every other
    encoding is frozen once whatever its element types."""
    return id(encoding), bits if spec.get("kind") in _COMPLETED_BY_WIDTH else None


def leading_offset_problem(legacy: Mapping[str, Any], spec: Mapping[str, Any], bits: int | None,
                           shape: tuple[int, ...]) -> str:
    """Why a Triton 3.0-3.2 leading-offset shared layout (read as ``nvmma_shared``:
    :func:`llverify.triton.parse._legacy_shared`) is not built on ``shape`` with ``bits``-bit elements, or ``""``:
    Triton 3.2 requires ``vec = 128 / bits`` and at least one 8-row atom of one swizzle row; the layout is that of
    ``#ttg.nvmma_shared`` only up to 256 rows.

    >>> leading_offset_problem({"vec": 8}, {"swizzle_byte_width": 128, "transposed": False}, 16, (64, 64))
    ''
    >>> leading_offset_problem({"vec": 4}, {"swizzle_byte_width": 128, "transposed": False}, 16, (64, 64))
    'a leading-offset #triton_gpu.shared of 16-bit elements needs vec = 8 (Triton 3.2), not 4'
    """
    if bits not in (8, 16, 32):
        return f"a leading-offset #triton_gpu.shared of {bits}-bit elements is not modelled"
    if legacy.get("vec") != 128 // bits:
        return (f"a leading-offset #triton_gpu.shared of {bits}-bit elements needs vec = {128 // bits} (Triton 3.2), "
                f"not {legacy.get('vec')}")
    if len(shape) != 2:
        return f"a leading-offset #triton_gpu.shared on shape {list(shape)}: rank 2 only"
    rows, cols = (shape[1], shape[0]) if spec.get("transposed") else shape
    atom_cols = 8 * int(spec.get("swizzle_byte_width", 0)) // bits
    if rows < 8 or cols < atom_cols:
        return (f"a leading-offset #triton_gpu.shared needs at least 8 x {atom_cols} (rows x contiguous) elements "
                f"(Triton 3.2 aborts below), got {rows} x {cols}")
    if rows > 256:
        return (f"a leading-offset #triton_gpu.shared of {rows} rows: Triton 3.2's layout differs from "
                "#ttg.nvmma_shared's beyond 256 rows, not modelled")
    return ""


def layout_of(t: TypeRef, frozen: dict[Any, Any] | None = None) -> BuiltLayout | LayoutProblem:
    """The layout of a tensor or memdesc type (see the module docstring).

    ``frozen``: a memo the caller keeps for one module, of the hashable form of each encoding (types that share
    an alias share its encoding object, so it is frozen once)."""
    if t.encoding_error:
        return LayoutProblem(f"encoding not read: {t.encoding_error}")
    if t.encoding is None:
        return LayoutProblem("the type has no layout encoding")
    enc = t.encoding
    # a copy only where the spec is completed below (nvmma_shared's width, tensor_memory's unpacking); every other
    # spec is only read
    spec = enc if type(enc) is dict and enc.get("kind") not in _COMPLETED_BY_WIDTH else dict(enc)
    bits = element_bits(t.element)
    if spec.get("kind") == "nvmma_shared" and "element_bitwidth" not in spec and bits:
        spec["element_bitwidth"] = bits
    if spec.get("kind") == "tensor_memory" and "unpacked" in spec:
        # Triton 3.5's `unpacked = true` is 3.6's colStride = 32 / element bits; packed (and 32-bit) is 1
        unpacked = spec.pop("unpacked")
        if unpacked and not bits:
            return LayoutProblem(f"tensor_memory: unpacked needs the element width, unknown for {t.element!r}")
        spec["col_stride"] = 32 // bits if unpacked and bits < 32 else 1
    full = tuple(t.alloc_shape or t.shape)
    if any(d <= 0 for d in full):
        return LayoutProblem(f"dynamic or empty dimension in shape {list(full)}")
    buffers = 1
    shape = full
    if t.kind == "memdesc":
        rank = encoding_rank(spec)
        if rank is not None and len(full) > rank:
            for d in full[:len(full) - rank]:
                buffers *= d
            shape = full[len(full) - rank:]
    legacy = spec.pop("legacy_leading_offset", None) if spec is not enc else None
    if legacy is not None:
        problem = leading_offset_problem(legacy, spec, bits, shape)
        if problem:
            return LayoutProblem(problem)
    view = tuple(t.shape[len(t.shape) - len(shape):]) if len(t.shape) >= len(shape) else tuple(t.shape)
    key = _frozen_key(t.encoding, spec, bits)
    hit = frozen.get(key) if frozen is not None else None
    if hit is not None and hit[0] is t.encoding:  # the encoding object is kept, so its id is not reused
        frozen_spec = hit[1]
    else:
        frozen_spec = _freeze(spec) if frozen is None else _freeze_sharing(spec, frozen)
        if frozen is not None:
            frozen[key] = (t.encoding, frozen_spec)
    built = _build(frozen_spec, shape)
    if spec.get("kind") == "partitioned_shared" and not isinstance(built, str):
        # Triton's layout of it is buffer 0's (llverify.hw.partitioned); the tensor spans
        # num_partitions separate buffers, which no claim of the gate models yet
        return LayoutProblem(f"#ttg.partitioned_shared spreads the tensor over {spec.get('num_partitions')} separate "
                             "buffers (the layout built is buffer 0's): claims about the whole tensor are not "
                             "modelled")
    if isinstance(built, str):
        return LayoutProblem(built)
    if isinstance(built, tuple):
        return BuiltLayout(built[0], shape, buffers, view, bits, built[1])
    return BuiltLayout(built, shape, buffers, view, bits)
