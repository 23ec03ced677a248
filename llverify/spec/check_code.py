"""The ``index_code`` check kind: generated index code against its layout (:mod:`llverify.prove.code`),
the adapter next to its :class:`~llverify.spec.checkkind.CheckKind` declaration.
"""

from __future__ import annotations

from typing import Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Verdict
from llverify.spec.argtypes import Arg
from llverify.spec.checkkind import LAYOUT, CheckKind, declare_check_kind, options
from llverify.spec.model import CheckDecl

__all__ = ["check_index_code"]


def check_index_code(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.code_equals_layout``; with ``below``, also ``prove.in_range`` over the same input ranges."""
    from llverify.prove.code import code_equals_layout, in_range

    a = check.args
    L = layouts[a["layout"]]
    v = code_equals_layout(a["code"], L, a["inputs"], a["output"], a.get("lang", "c"), a.get("types"),
                           **options(method, timeout, rlimit))
    if a.get("below") is None or v.status != "proved":
        return v
    # the result stays below the bound: lo <= code < below over the same input ranges
    sizes = {**dict(L.out_dims), **dict(L.in_dims)}
    ranges = {str(var): sizes[str(dim)] for var, dim in a["inputs"].items()}
    bound = in_range(a["code"], ranges, (0, int(a["below"])), a.get("lang", "c"), a.get("types"),
                     **options(method, timeout, rlimit))
    if bound.status != "proved":
        return bound
    return v.with_(message=f"{v.message}; and 0 <= result < {a['below']} ({bound.message})",
                   details={**dict(v.details), "below": int(a["below"]), "bound_method": bound.method})


declare_check_kind(
    CheckKind("index_code", {"layout": LAYOUT, "code": Arg("str", required=True),
                             "lang": Arg("str", choices=("python", "c", "cuda", "triton")),
                             "inputs": Arg("map", required=True), "output": Arg("str", required=True),
                             "types": Arg("map"), "below": Arg("int")},
              ("layout",),
              "the index code computes exactly {layout} (and, with below: n, its value stays in [0, n))",
              check_index_code,
              "the expression is compared with the layout over all inputs (SMT or exhaustive)",
              ("llverify.prove.code",), ("exhaustive", "smt")),
)
