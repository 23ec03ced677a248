"""MLIR's generic form of the two ops that frame a TTGIR module: ``builtin.module`` and ``tt.func``.

``mlir-opt --mlir-print-op-generic`` (and IR pasted from tools that print it) writes the module and its kernels
as any other op, quoted, their attributes in dictionaries::

    "builtin.module"() ({
      "tt.func"() <{function_type = (!tt.ptr<f32>) -> (), sym_name = "k", sym_visibility = "public"}> ({
      ^bb0(%arg0: !tt.ptr<f32>):
        ...
      }) : () -> ()
    }) {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} : () -> ()

The module's attributes are the dictionary printed after its region; a function's name, visibility and result
types are its properties (``<{...}>``), its arguments the entry block's.  The ops inside are read as every op is
(the reader reads the generic form of any op).

>>> from llverify.ttgir.structure import OpBuilder
>>> f = OpBuilder('"tt.func"() <{function_type = (i32) -> f32, sym_name = "k", sym_visibility = "private"}> (', 1, 1)
>>> f.tails.append(") : () -> ()")
>>> generic_function_header(f)
('k', False, ['f32'], None)
"""

from __future__ import annotations

from llverify.ttgir.locations import split_loc
from llverify.ttgir.op_text import attr_dict, top_dicts
from llverify.ttgir.structure import OpBuilder, RegionBuilder
from llverify.ttgir.syntax import find_top, split_top, strip_parens

__all__ = ["is_generic_module", "generic_module_parts", "is_generic_function", "generic_function_header"]


def is_generic_module(b: OpBuilder) -> bool:
    """Whether ``b`` is a ``"builtin.module"`` op printed in the generic form (with its one region)."""
    return b.head.startswith('"builtin.module"') and len(b.regions) == 1


def is_generic_function(b: OpBuilder) -> bool:
    """Whether ``b`` is a ``"tt.func"`` op printed in the generic form."""
    return b.head.startswith('"tt.func"')


def _dicts(b: OpBuilder) -> dict[str, str]:
    """Every property and attribute of a generic op: the ``<{...}>`` of its head and the ``{...}`` printed
    after its regions."""
    out: dict[str, str] = {}
    for text in (b.head, *b.tails):
        for d in top_dicts(split_loc(text)[0]):
            out.update(attr_dict(d))
    return out


def generic_module_parts(b: OpBuilder) -> tuple[RegionBuilder, dict[str, str]]:
    """The body region and the attributes (``{"ttg.num-warps" = 4 : i32, ...}``) of a generic ``builtin.module``.

    Requires: :func:`is_generic_module` of ``b``."""
    return b.regions[0], _dicts(b)


def generic_function_header(b: OpBuilder) -> tuple[str, bool, list[str], str | None]:
    """A generic ``tt.func``'s name (``sym_name``), whether it is public (``sym_visibility``, public when not
    printed), its result type texts (the right of ``function_type``'s arrow) and its ``loc(...)`` text, if any.
    Raises ``ValueError`` without a ``sym_name``."""
    props = _dicts(b)
    name = props.get("sym_name", "").strip()
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        raise ValueError("a generic tt.func without sym_name")
    visibility = props.get("sym_visibility", '"public"').strip().strip('"')
    results: list[str] = []
    ftype = props.get("function_type", "")
    arrow = find_top(ftype, "->")
    if arrow >= 0:
        results = [t.strip() for t in split_top(strip_parens(ftype[arrow + 2:].strip()), ",") if t.strip()]
    loc = None
    for text in reversed(b.tails or [b.head]):
        loc = split_loc(text)[1]
        if loc is not None:
            break
    return name[1:-1], visibility == "public", results, loc
