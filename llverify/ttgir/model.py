"""The TTGIR module as llverify reads it: immutable values, no behaviour beyond lookups.

A TTGIR module (Triton's TritonGPU dialect, as `triton.compile(...).asm["ttgir"]`
or a `.ttgir` file of Triton's cache prints it) is a tree::

    Module  (module attributes: ttg.target, ttg.num-warps, ttg.threads-per-warp, ttg.num-ctas)
      Function  (tt.func @name, arguments, body region)
        Region -> Block (block arguments) -> Op (results, operands, attributes, regions, loc)

Every `Op` keeps two locations: `location`, where it sits in the `.ttgir`
text (file, 1-based line and column), and `source`, the Python source
location its `loc(...)` resolves to (through `#loc` aliases, `callsite`,
`fused` and named locations), when there is one.

Types are kept both as text and as a parsed :class:`TypeRef`; the layout
encoding of a tensor or memdesc type is a *layout spec* (the dict that
:func:`llverify.triton.parse.parse_attr` returns), or ``None`` with
``encoding_error`` saying why it could not be read.  Building the
:class:`~llverify.layout.LinearLayout` from a spec and a shape is the
obligation layer's business (a failure there makes only that obligation
``unknown``, never the whole module).

Example (what the reader returns for one line)::

    %8 = ttg.convert_layout %acc : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blocked1> loc(#loc14)

    Op(name="ttg.convert_layout", results=(Value("%8", <tensor 128x128 f32 #blocked1>),),
       operands=("%acc",), operand_types=(<tensor 128x128 f32 #mma>,), ...)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

__all__ = ["Location", "SourceLocation", "TypeRef", "Value", "Op", "Block", "Region", "Function", "Module",
           "TtgirError", "new_op", "new_value", "new_location", "new_typeref"]

from llverify.errors import TtgirError  # defined with the other error types; re-exported here


@dataclass(frozen=True)
class Location:
    """A position in a text file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class SourceLocation:
    """The Python (or other front-end) source position an op's ``loc(...)`` resolves to."""

    file: str
    line: int
    col: int
    name: str = ""  # a named location's name (``loc("acc"(#loc3))`` -> "acc"), if any

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class TypeRef:
    """One MLIR type as it appears in the module.

    ``kind``: "tensor" | "memdesc" | "tensordesc" | "ptr" | "scalar" | "other".
    For tensors and memdescs: ``shape`` (all dims, buffer dims of a multi-buffered
    memdesc included), ``element`` (``f16``, ``!tt.ptr<f16>``, ...), ``encoding``
    (a layout spec dict) or ``encoding_error``; for memdescs also ``memory_space``
    (``"smem"``, ``"tmem"``, the alias name), ``mutable`` and ``alloc_shape`` (the
    trailing allocation shape of a subview, or None).
    """

    text: str
    kind: str
    shape: tuple[int, ...] = ()
    element: str = ""
    encoding: Mapping[str, Any] | None = None
    encoding_text: str | None = None
    encoding_error: str | None = None
    memory_space: str | None = None
    mutable: bool = False
    alloc_shape: tuple[int, ...] | None = None

    @property
    def has_layout(self) -> bool:
        return self.kind in ("tensor", "memdesc") and (self.encoding is not None or self.encoding_error is not None)


@dataclass(frozen=True)
class Value:
    """An SSA value: ``%x_3``, ``%acc_27#0`` (result 0 of a multi-result op), ``%arg0``."""

    name: str
    type: TypeRef


@dataclass(frozen=True)
class Op:
    """One operation.  ``operand_types`` are resolved from the operands' definitions
    (or the op's own type signature) and align with ``operands``."""

    name: str
    results: tuple[Value, ...]
    operands: tuple[str, ...]
    operand_types: tuple[TypeRef | None, ...]
    attributes: Mapping[str, str]  # attribute name -> its text as printed ({axis = 1 : i32} -> {"axis": "1 : i32"})
    regions: tuple["Region", ...]
    location: Location
    source: SourceLocation | None
    text: str  # the op's first line as printed (for messages)
    printed_operand_types: tuple[TypeRef | None, ...] = ()  # the op's own signature, per operand, when printed

    def __post_init__(self) -> None:
        if self.printed_operand_types and len(self.printed_operand_types) != len(self.operands):
            object.__setattr__(self, "printed_operand_types", ())

    def attr_int(self, key: str) -> int | None:
        """An integer attribute (``axis = 1 : i32`` -> 1), or None."""
        raw = self.attributes.get(key)
        if raw is None:
            return None
        head = raw.split(":")[0].strip()
        try:
            return int(head)
        except ValueError:
            return None


_new = object.__new__


def new_location(file: str, line: int, col: int) -> Location:
    """``Location(file, line, col)``, built without the frozen dataclass's generated ``__init__`` (one
    ``object.__setattr__`` per field): the same value (fields, equality, hash, repr).  The reader builds one per op."""
    loc = _new(Location)
    loc.__dict__.update(file=file, line=line, col=col)
    return loc


def new_typeref(text: str, kind: str, shape: tuple[int, ...] = (), element: str = "",
                encoding: Mapping[str, Any] | None = None, encoding_text: str | None = None,
                encoding_error: str | None = None, memory_space: str | None = None, mutable: bool = False,
                alloc_shape: tuple[int, ...] | None = None) -> TypeRef:
    """``TypeRef(...)`` with the same arguments, built as :func:`new_location` builds a location (the reader
    builds one per distinct type text of a module)."""
    ref = _new(TypeRef)
    ref.__dict__.update(text=text, kind=kind, shape=shape, element=element, encoding=encoding,
                        encoding_text=encoding_text, encoding_error=encoding_error, memory_space=memory_space,
                        mutable=mutable, alloc_shape=alloc_shape)
    return ref


def new_value(name: str, type: TypeRef) -> Value:
    """``Value(name, type)``, built as :func:`new_location` builds a location."""
    value = _new(Value)
    value.__dict__.update(name=name, type=type)
    return value


def new_op(name: str, results: tuple[Value, ...], operands: tuple[str, ...],
           operand_types: tuple[TypeRef | None, ...], attributes: Mapping[str, str], regions: tuple["Region", ...],
           location: Location, source: SourceLocation | None, text: str,
           printed_operand_types: tuple[TypeRef | None, ...] = ()) -> Op:
    """``Op(...)`` with the same arguments, built as :func:`new_location` builds a location (``__post_init__``'s
    rule included: printed operand types that do not align with the operands are dropped)."""
    if printed_operand_types and len(printed_operand_types) != len(operands):
        printed_operand_types = ()
    op = _new(Op)
    op.__dict__.update(name=name, results=results, operands=operands, operand_types=operand_types,
                       attributes=attributes, regions=regions, location=location, source=source, text=text,
                       printed_operand_types=printed_operand_types)
    return op


@dataclass(frozen=True)
class Block:
    """A block: its arguments, its ops and its label (``^bb1``; empty for an entry block printed without one),
    which ``cf.br`` / ``cf.cond_br`` name as successors (:mod:`llverify.ttgir.branches`)."""

    arguments: tuple[Value, ...]
    ops: tuple[Op, ...]
    label: str = ""


@dataclass(frozen=True)
class Region:
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Function:
    """A ``tt.func``: name, arguments (with types), result types and body.  ``num_warps`` is the function's own
    ``"ttg.num-warps"`` attribute when it prints one (Gluon, before ``GluonInline``, gives each function a
    ``warp_specialize`` partition calls its partition's warp count), else None: the module's count is in force."""

    name: str
    arguments: tuple[Value, ...]
    result_types: tuple[TypeRef, ...]
    body: Region
    location: Location
    source: SourceLocation | None
    public: bool = True
    num_warps: int | None = None


@dataclass(frozen=True)
class Module:
    """A whole TTGIR module.

    ``target`` is ``ttg.target`` ("cuda:90", "hip:gfx942"); ``num_warps``,
    ``threads_per_warp`` and ``num_ctas`` come from the module attributes;
    ``aliases`` maps each ``#name`` alias to its parsed layout spec (or, for
    non-layout aliases, its text); ``attributes`` keeps every module attribute
    as printed.  ``stage`` names the pass snapshot a module came from (an
    ``MLIR_ENABLE_DUMP`` split), or "".  ``line`` is the line of its ``module`` keyword (of its first op
    for MLIR's implicit module): a file may hold several modules.
    """

    path: str
    target: str
    num_warps: int
    threads_per_warp: int
    num_ctas: int
    functions: tuple[Function, ...]
    aliases: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, str] = field(default_factory=dict)
    stage: str = ""
    line: int = 0
    #: printed with the ``triton_gpu`` / ``triton_nvidia_gpu`` dialect names: Triton 3.2 or older (3.3 renamed them
    #: ``ttg`` / ``ttng``), whose lowering placed some operands' registers otherwise (llverify.lowered.elements)
    legacy_dialect: bool = False

    @property
    def states_num_warps(self) -> bool:
        """Whether the module prints ``ttg.num-warps`` (``num_warps`` is otherwise Triton's usual 4, a guess)."""
        return "ttg.num-warps" in self.attributes

    def walk(self) -> Iterator[tuple[Function, Op, int]]:
        """Every op of every function, pre-order, with the warp count in force there
        (a ``ttg.warp_specialize`` partition region has its own)."""
        for fn in self.functions:
            yield from _walk_region(fn, fn.body, self.num_warps)


def _walk_region(fn: Function, region: Region, warps: int) -> Iterator[tuple[Function, Op, int]]:
    for block in region.blocks:
        for op in block.ops:
            yield fn, op, warps
            inner = [warps] * len(op.regions)
            if op.name == "ttg.warp_specialize":
                counts = _int_list(op.attributes.get("partitionNumWarps", ""))
                # region 0 is the default partition (module warps); the partitions follow
                for i, n in enumerate(counts):
                    if 1 + i < len(inner):
                        inner[1 + i] = n
            for r, w in zip(op.regions, inner):
                yield from _walk_region(fn, r, w)


def _int_list(text: str) -> list[int]:
    body = text.strip()
    if body.startswith("array<i32:"):
        body = body[len("array<i32:"):].rstrip(">")
    body = body.strip("[] ")
    out = []
    for part in body.split(","):
        part = part.split(":")[0].strip()
        if part.lstrip("-").isdigit():
            out.append(int(part))
    return out
