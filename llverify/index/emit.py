"""Emit verified index code (Python, C/CUDA, Triton) from a layout.

:func:`emit` derives one expression per output (:mod:`llverify.index.derive`),
simplifies it under the inputs' ranges (:mod:`llverify.index.simplify`),
prints it, and then closes the loop: the printed text is re-parsed and
proved equal to the layout with :func:`llverify.prove.code.code_equals_layout`
before it is returned.  A proof that fails raises :class:`IndexCodeError`
(it would be a bug in llverify, never silently emitted).

Directions: ``inverse=False`` gives each out dim (a coordinate) in terms of
the in dims (``register``, ``lane``, ...); ``inverse=True`` gives each in dim
(e.g. the shared-memory ``offset``) in terms of the coordinates, for an
invertible layout.  ``flat=True`` first flattens the output side into one
dim (the flat offset / flat coordinate, first dim fastest).

Triton output is Python syntax where each input dim that is taken whole is a
``tl.arange`` (two of them broadcast as rows and columns).  It is checked
twice: as Python, and as C over ``int32`` (Triton tensors are ``int32`` and
divide by truncation), so overflow and negative-division differences would
be caught.

Example: ``emit(swizzled_64x64, "c", inverse=True, names={"dim0": "row",
"dim1": "col"}).code["offset"] == "row * 64 + (col ^ (row % 8 * 8))"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from llverify.errors import LayoutError
from llverify.index.derive import derive
from llverify.index.expr import count_ops, sym, to_code
from llverify.index.simplify import simplify
from llverify.layout import LinearLayout
from llverify.prove.code import IndexCodeError, code_equals_layout
from llverify.prove.verdict import Verdict

__all__ = ["Emitted", "emit", "C_RESERVED_RENAMES"]

C_RESERVED_RENAMES = {"register": "reg"}


@dataclass(frozen=True)
class Emitted:
    """Verified code per output: ``code[out]`` (an expression), plus Triton's ``prelude`` lines."""

    lang: str
    code: Mapping[str, str]
    inputs: Mapping[str, str]           # code variable -> layout dim
    verdicts: Mapping[str, Verdict]
    ops_before: Mapping[str, int]
    ops_after: Mapping[str, int]
    prelude: tuple[str, ...] = field(default_factory=tuple)

    def text(self) -> str:
        """Prelude plus one ``out = expr`` line per output."""
        end = ";" if self.lang == "c" else ""
        return "\n".join(list(self.prelude) + [f"{o} = {c}{end}" for o, c in self.code.items()])


def emit(layout: LinearLayout, lang: str = "python", *, inverse: bool = False, flat: bool = False,
         names: Mapping[str, str] | None = None, types: Mapping[str, str] | None = None,
         simplify_exprs: bool = True, rlimit: int | None = None, timeout: float | None = None) -> Emitted:
    """Derive, simplify, print and prove index code for ``layout`` (see the module docstring)."""
    lang = lang.lower()
    if lang not in ("python", "c", "cuda", "triton"):
        raise IndexCodeError(f"unknown target {lang!r}; use python, c, cuda or triton")
    check_layout = layout
    if flat:
        check_layout = layout.flatten_ins() if inverse else layout.flatten_outs()
    if inverse:
        if not check_layout.is_invertible():
            raise LayoutError("inverse index code needs an invertible layout")
        forward = check_layout.invert()
    else:
        forward = check_layout
    renames = dict(C_RESERVED_RENAMES) if lang in ("c", "cuda") else {}
    renames.update(names or {})
    var_of = {d: renames.get(d, d) for d in forward.in_dim_names}
    subs = {sym(d): sym(v) for d, v in var_of.items()}
    ranges = {var_of[d]: (0, forward.in_dim_size(d)) for d in forward.in_dim_names}
    codes, verdicts, before, after = {}, {}, {}, {}
    prelude: list[str] = []
    if lang == "triton":
        whole = [d for d in forward.in_dim_names if forward.in_dim_size(d) > 1]
        for i, d in enumerate(whole):
            idx = "" if len(whole) == 1 else ("[:, None]" if i == 0 else "[None, :]" if i == 1 else "")
            if len(whole) <= 2:
                prelude.append(f"{var_of[d]} = tl.arange(0, {forward.in_dim_size(d)}){idx}")
    for o in forward.out_dim_names:
        e = derive(forward, o).xreplace(subs)
        before[o] = count_ops(e)
        if simplify_exprs:
            e = simplify(e, ranges, rlimit=rlimit, timeout=timeout).expr
        after[o] = count_ops(e)
        text = to_code(e, "c" if lang in ("c", "cuda") else "python")
        inputs = {v: d for d, v in var_of.items() if v in {s.name for s in e.free_symbols}}
        checks = [("c", {v: "uint32" for v in inputs})] if lang in ("c", "cuda") else [("python", None)]
        if lang == "triton":
            checks.append(("c", {v: "int32" for v in inputs}))
        if types:
            checks[0] = (checks[0][0], dict(types))
        for check_lang, tys in checks:
            src = text if check_lang == ("c" if lang in ("c", "cuda") else "python") else to_code(e, check_lang)
            v = code_equals_layout(src, check_layout, inputs, o, lang=check_lang, types=tys,
                                   rlimit=rlimit, timeout=timeout)
            if not v.proved:
                raise IndexCodeError(f"emitted {lang} code for '{o}' failed its proof ({v.status}: {v.message}): {src}")
            verdicts[o] = v
        codes[o] = text
    return Emitted(lang, codes, {v: d for d, v in var_of.items()}, verdicts, before, after, tuple(prelude))

