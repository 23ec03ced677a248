"""Adapters: from a validated check (names + arguments) to a call of the layer
that decides it, returning a :class:`~llverify.prove.verdict.Verdict`.

One function per check kind, ``check_<kind>(check, layouts, *, method,
timeout, rlimit)``; each declaration in :mod:`llverify.spec.kinds` names its
function (the dispatch table).  The prover's properties are imported with
this module; the code-generation, plan and index-code layers are imported
inside the functions that need them (plain imports, so start-up stays cheap),
and an import that fails there becomes an ``error`` verdict ("not
available") in the runner instead of a crash.  No adapter decides anything itself:
the verdict, its method and its counterexample come from the prover layer,
which is where soundness is enforced.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Mapping

from llverify.layout import LinearLayout
from llverify.prove import properties
from llverify.prove.kernel import Budget as KernelBudget
from llverify.prove.kernel import decide
from llverify.prove.verdict import Verdict

if TYPE_CHECKING:  # for annotations only: spec.kinds names these functions, and spec.model looks kinds up
    from llverify.spec.model import CheckDecl, LayoutDecl

__all__ = ["NotAvailable", "build_kind", "build_triton"]


class NotAvailable(Exception):
    """The layer implementing a check kind (or a layout source) is not importable."""


def _opts(method: str | None, timeout: float | None, rlimit: int | None,
          subject: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if subject is not None:
        out["subject"] = subject
    if method is not None:
        out["method"] = method
    if timeout is not None:
        out["timeout"] = timeout
    if rlimit is not None:
        out["rlimit"] = rlimit
    return out


CheckFn = Callable[..., Verdict]


def _kernel(fn: CheckFn) -> CheckFn:
    """Route a check through :func:`llverify.prove.kernel.decide` (timing, budget record, replay errors)."""
    @functools.wraps(fn)
    def run(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
            timeout: float | None = None, rlimit: int | None = None) -> Verdict:
        budget = KernelBudget(method=method, rlimit=rlimit, timeout=timeout)
        return decide(check.property, check.subject,
                      lambda b: fn(check, layouts, method=method, timeout=timeout, rlimit=rlimit), budget)

    return run


# -- layouts -------------------------------------------------------------------

def build_kind(hw: Any, kind: str, shape: list[int], params: dict[str, Any],
               decls: Mapping[str, LayoutDecl], built: Mapping[str, LinearLayout]) -> LinearLayout:
    """``hw.build(kind, shape, **params)``; a ``parent:`` naming another layout passes its declaration."""
    params = dict(params)
    parent = params.get("parent")
    if isinstance(parent, str):
        if parent not in decls:
            raise ValueError(f"parent '{parent}' is not a layout defined above")
        pd = decls[parent]
        if pd.source != "kind":
            raise ValueError(f"parent '{parent}' must be given by `kind:` (it is given by `{pd.source}:`)")
        pp = {k: v for k, v in pd.params.items() if k != "shape"}
        params["parent"] = pp
    return hw.build(kind, shape, **params)


def build_triton(mod: Any, text: str, shape: list[int] | None) -> LinearLayout:
    """A ``#ttg.*`` attribute with a shape, or a ``tensor<...>`` / ``!ttg.memdesc<...>`` type (which carries its shape).

    The text may start with TTGIR alias definitions, one per line, as they
    appear at the top of a module (``#mma = #ttg.nvidia_mma<{...}>``); the
    last non-empty line is the attribute or type, and may refer to them
    (``#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>``).
    """
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    aliases = None
    if len(lines) > 1:
        parse_aliases = getattr(mod, "parse_aliases", None)
        if parse_aliases is None:
            raise NotAvailable("llverify.triton.parse_aliases does not exist yet")
        aliases = parse_aliases("\n".join(lines[:-1]))
    text = lines[-1].strip() if lines else ""
    if text.startswith(("tensor<", "!ttg.memdesc<")):
        parse_type = getattr(mod, "parse_type", None)
        if parse_type is None:
            raise NotAvailable("llverify.triton.parse_type does not exist yet")
        layout, type_shape, _dtype = parse_type(text, aliases)
        if shape is not None and list(shape) != list(type_shape):
            raise ValueError(f"shape {list(shape)} disagrees with the type's shape {list(type_shape)}; "
                             "leave `shape:` out when giving a whole type")
        return layout
    if shape is None:
        raise ValueError("a Triton attribute needs a `shape:` (or write the whole tensor<...> type)")
    build = getattr(mod, "layout_from_attr", None)
    if build is None:
        raise NotAvailable("llverify.triton.layout_from_attr does not exist yet")
    return build(text, list(shape), aliases)


# -- checks: the prover's properties ----------------------------------------------

def _single(prove: Callable[..., Verdict]) -> Callable[..., Verdict]:
    def run(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
            timeout: float | None = None, rlimit: int | None = None) -> Verdict:
        return prove(layouts[check.args["layout"]], **_opts(method, timeout, rlimit, check.subject))

    run.__name__ = f"check_{prove.__name__}"
    run.__doc__ = f"``llverify.prove.{prove.__name__}(layout)``"
    return _kernel(run)


check_surjective = _single(properties.surjective)
check_injective = _single(properties.injective)
check_bijective = _single(properties.bijective)
check_distributed = _single(properties.distributed)
check_memory = _single(properties.memory)


@_kernel
def check_equal(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    a, b = layouts[check.args["a"]], layouts[check.args["b"]]
    return properties.equal(a, b, **_opts(method, timeout, rlimit, check.subject))


@_kernel
def check_conversion(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.conversion(from, to, cvt)``; with no ``cvt``, the plan's classification is added to details."""
    src, dst = layouts[check.args["from"]], layouts[check.args["to"]]
    cvt = layouts[check.args["cvt"]] if "cvt" in check.args else None
    v = properties.conversion(src, dst, cvt, **_opts(method, timeout, rlimit, check.subject))
    if cvt is None and v.status == "proved":
        try:
            from llverify.codegen.conversion import convert
            from llverify.codegen.shuffle import triton_lowering

            plan = convert(src, dst)
            cls = triton_lowering(src, dst)
            extra = {"plan": plan.to_json(), "classification": cls}
            if cls == "shared_memory":
                from llverify.codegen.ldst_select import plan_shared_conversion

                extra["shared_plan"] = plan_shared_conversion(src, dst, int(check.args.get("bitwidth", 16)),
                                                              check.args.get("target", "cuda:90")).to_json()
            v = v.with_(details={**dict(v.details), **extra})
        except Exception:  # noqa: BLE001 - the plan is extra information only
            pass
    claims = ("via", "max_shared_bytes", "max_rounds", "max_wavefronts")
    if v.status == "proved" and any(k in check.args for k in claims):
        from llverify.prove.conversion_claims import conversion_claims

        a = check.args
        v = conversion_claims(v, src, dst, via=a.get("via"), max_shared_bytes=a.get("max_shared_bytes"),
                              bits=int(a.get("bitwidth", 16)), max_rounds=a.get("max_rounds"),
                              max_wavefronts=a.get("max_wavefronts"), target=a.get("target", "cuda:90"))
    return v


@_kernel
def check_in_bounds(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                    timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    kw = {k: check.args[k] for k in ("size", "shape") if k in check.args}
    return properties.in_bounds(layouts[check.args["layout"]], **kw, **_opts(method, timeout, rlimit, check.subject))


@_kernel
def check_duplicates(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    kw = {k: check.args[k] for k in ("dims", "max", "expected") if k in check.args}
    return properties.duplicates(layouts[check.args["layout"]], **kw, **_opts(method, timeout, rlimit, check.subject))


# -- checks: code generation plans -----------------------------------------------

def _named(v: Verdict, check: CheckDecl) -> Verdict:
    return v.with_(subject=check.subject)


@_kernel
def check_bank_conflicts(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                         timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """The exact count first (prove_bank_count), then each claim on it; refutations are witnessed."""
    from llverify.prove.bank_claims import bank_claims
    from llverify.prove.plan_banks import prove_bank_count

    a = check.args
    access, shared = layouts[a["access"]], layouts[a["shared"]]
    instruction = a.get("instruction", "vector")
    if instruction != "vector":
        from llverify.prove.plan_ldmatrix import matrix_bank_claims, prove_matrix_bank_count

        if "max_vector" in a:
            raise ValueError("max_vector applies to vector accesses only (instruction: vector)")
        v = prove_matrix_bank_count(access, shared, a["bitwidth"], instruction, matrices=a.get("matrices"),
                                    subject=check.subject)
        return _named(matrix_bank_claims(v, max_wavefronts=a.get("max_wavefronts"), wavefronts=a.get("wavefronts"),
                                         conflict_free=a.get("conflict_free")), check)
    if "matrices" in a:
        raise ValueError("matrices (.x1/.x2/.x4) applies to ldmatrix/stmatrix instructions only")
    v = prove_bank_count(access, shared, a["bitwidth"], max_vector_elems=a.get("max_vector"),
                                   rlimit=rlimit, timeout=timeout)
    return _named(bank_claims(v, access, shared, a["bitwidth"], max_wavefronts=a.get("max_wavefronts"),
                              wavefronts=a.get("wavefronts"), conflict_free=a.get("conflict_free")), check)


@_kernel
def check_optimal_swizzle(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                          timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.prove.plan_swizzle import prove_optimal_swizzle

    a = check.args
    return _named(prove_optimal_swizzle(layouts[a["from"]], layouts[a["to"]], a["bitwidth"]), check)


@_kernel
def check_vectorization(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                        timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    a = check.args
    from llverify.prove.plan_vectorize import prove_vectorization

    return prove_vectorization(layouts[a["layout"]], layouts[a["shared"]], a["bitwidth"], a["width"],
                               subject=check.subject, **_opts(method, timeout, rlimit))


@_kernel
def check_shuffle_plan(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                       timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.codegen.shuffle import shuffle_plan
    from llverify.prove.plan_shuffle import prove_shuffle_plan

    a = check.args
    plan = shuffle_plan(layouts[a["from"]], layouts[a["to"]], a.get("bitwidth", 32))
    return _named(prove_shuffle_plan(plan), check)


@_kernel
def check_broadcast_load(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                         timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.prove.broadcast_load import broadcast_load

    a = check.args
    masks = a.get("predicate")
    if masks is not None:
        bad = [k for k in masks if not isinstance(masks[k], int) or isinstance(masks[k], bool)]
        if bad:
            raise ValueError(f"predicate masks must be integers (bit masks per in dim), not {bad}")
    return _named(broadcast_load(layouts[a["layout"]], dict(masks) if masks is not None else None), check)


@_kernel
def check_broadcast_store(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                          timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.codegen.broadcast import broadcast_predicate
    from llverify.prove.plan_broadcast import prove_broadcast_store

    a = check.args
    plan = broadcast_predicate(layouts[a["layout"]])
    if "predicate" in a:
        masks = a["predicate"]
        bad = [k for k in masks if not isinstance(masks[k], int) or isinstance(masks[k], bool)]
        if bad:
            raise ValueError(f"predicate masks must be integers (bit masks per in dim), not {bad}")
        for d in list(plan.predicate_masks):
            plan = plan.with_mask(d, int(masks.get(d, 0)))
    return _named(prove_broadcast_store(plan), check)


@_kernel
def check_gather(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                 timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.codegen.gather import gather_plan
    from llverify.prove.plan_gather import prove_gather

    a = check.args
    plan = gather_plan(layouts[a["layout"]], a["axis"])
    return _named(prove_gather(plan), check)


@_kernel
def check_shape_op(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                   timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    import dataclasses

    from llverify.codegen.shape_ops import infer_shape_op
    from llverify.prove.plan_shape_ops import prove_shape_op

    a = dict(check.args)
    op = a.pop("op")
    layout = layouts[a.pop("layout")]
    direction = a.pop("direction", "forward")
    result = a.pop("result", None)
    claim = a.pop("claim", "no_data_movement")
    needed = {"trans": ("perm",), "reshape": ("shape",), "expand_dims": ("axis",),
              "broadcast": ("dim",) if direction == "backward" else ("dim", "size")}.get(op, ())
    missing = [k for k in needed if k not in a]
    if missing:
        raise ValueError(f"shape_op {op} needs `{missing[0]}`")
    plan = infer_shape_op(op, layout, direction, **a)
    if result is not None and direction == "forward" and claim == "no_data_movement":
        from llverify.prove.locality import thread_local

        given = layouts[result]
        verdicts = []
        for inferred in plan.outputs:
            if set(inferred.out_dim_names) != set(given.out_dim_names):
                return _named(Verdict("error", "shape_op", check.subject, None, 0.0,
                                      f"the result layout's dims {list(given.out_dim_names)} are not the op's "
                                      f"{list(inferred.out_dim_names)}"), check)
            verdicts.append(thread_local(inferred.transpose_outs(list(given.out_dim_names)), given,
                                         subject=check.subject).with_(property="shape_op"))
        bad = [v for v in verdicts if v.status != "proved"]
        return _named((bad or verdicts)[0], check)
    if result is not None:
        given = layouts[result]
        if direction == "forward":
            plan = dataclasses.replace(plan, outputs=tuple(given for _ in plan.outputs))
        else:
            plan = dataclasses.replace(plan, inputs=tuple(given for _ in plan.inputs))
    return _named(prove_shape_op(plan), check)


# -- checks: index code ----------------------------------------------------------

@_kernel
def check_index_code(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.prove.code import code_equals_layout, in_range

    a = check.args
    L = layouts[a["layout"]]
    v = code_equals_layout(a["code"], L, a["inputs"], a["output"], a.get("lang", "c"), a.get("types"), **_opts(method, timeout, rlimit))
    if a.get("below") is None or v.status != "proved":
        return v
    # the result stays below the bound: lo <= code < below over the same input ranges
    sizes = {**dict(L.out_dims), **dict(L.in_dims)}
    ranges = {str(var): sizes[str(dim)] for var, dim in a["inputs"].items()}
    bound = in_range(a["code"], ranges, (0, int(a["below"])), a.get("lang", "c"),
                                                   a.get("types"), **_opts(method, timeout, rlimit))
    if bound.status != "proved":
        return bound
    return v.with_(message=f"{v.message}; and 0 <= result < {a['below']} ({bound.message})",
                   details={**dict(v.details), "below": int(a["below"]), "bound_method": bound.method})
