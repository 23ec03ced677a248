"""Check kinds decided by the prover's layout properties (:mod:`llverify.prove.properties`):
each adapter next to its :class:`~llverify.spec.checkkind.CheckKind` declaration.

surjective, injective, bijective, distributed, memory, equal, conversion,
in_bounds and duplicates.  The conversion check adds the code-generation plan
to its details (imported inside the function: the plan is extra information).
"""

from __future__ import annotations

from typing import Callable, Mapping

from llverify.layout import LinearLayout
from llverify.prove import properties
from llverify.prove.verdict import Verdict
from llverify.spec.argtypes import Arg
from llverify.spec.checkkind import LAYOUT, CheckKind, declare_check_kind, options
from llverify.spec.model import CheckDecl

__all__ = ["check_bijective", "check_conversion", "check_distributed", "check_duplicates", "check_equal",
           "check_in_bounds", "check_injective", "check_memory", "check_surjective"]


def _single(prove: Callable[..., Verdict]) -> Callable[..., Verdict]:
    def run(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
            timeout: float | None = None, rlimit: int | None = None) -> Verdict:
        return prove(layouts[check.args["layout"]], **options(method, timeout, rlimit, check.subject))

    run.__name__ = f"check_{prove.__name__}"
    run.__qualname__ = run.__name__
    run.__doc__ = f"``llverify.prove.{prove.__name__}(layout)``"
    return run


check_surjective = _single(properties.surjective)
check_injective = _single(properties.injective)
check_bijective = _single(properties.bijective)
check_distributed = _single(properties.distributed)
check_memory = _single(properties.memory)


def check_equal(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.equal(a, b)``."""
    a, b = layouts[check.args["a"]], layouts[check.args["b"]]
    return properties.equal(a, b, **options(method, timeout, rlimit, check.subject))


def check_conversion(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.conversion(from, to, cvt)``; with no ``cvt``, the plan's classification is added to details."""
    src, dst = layouts[check.args["from"]], layouts[check.args["to"]]
    cvt = layouts[check.args["cvt"]] if "cvt" in check.args else None
    v = properties.conversion(src, dst, cvt, **options(method, timeout, rlimit, check.subject))
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


def check_in_bounds(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                    timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.in_bounds(layout, size | shape)``."""
    kw = {k: check.args[k] for k in ("size", "shape") if k in check.args}
    return properties.in_bounds(layouts[check.args["layout"]], **kw,
                                **options(method, timeout, rlimit, check.subject))


def check_duplicates(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                     timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    """``prove.duplicates(layout, dims, max, expected)``."""
    kw = {k: check.args[k] for k in ("dims", "max", "expected") if k in check.args}
    return properties.duplicates(layouts[check.args["layout"]], **kw,
                                 **options(method, timeout, rlimit, check.subject))


_PROVE = ("llverify.prove",)

declare_check_kind(
    CheckKind("surjective", {"layout": LAYOUT}, ("layout",),
              "every element of the tensor is held by some hardware index of {layout}", check_surjective,
              "rank of the layout matrix equals the number of out bits (definition 4.5)", _PROVE),
    CheckKind("injective", {"layout": LAYOUT}, ("layout",),
              "no two hardware indices of {layout} hold the same element (no broadcast)", check_injective,
              "rank equals the number of in bits", _PROVE),
    CheckKind("bijective", {"layout": LAYOUT}, ("layout",),
              "{layout} is a bijection between hardware indices and tensor elements", check_bijective,
              "surjective and injective (an invertible layout)", _PROVE),
    CheckKind("distributed", {"layout": LAYOUT}, ("layout",),
              "{layout} is a distributed layout: surjective, every column has at most one non-zero bit, "
              "non-zero columns distinct (definition 4.10)", check_distributed,
              "definition 4.10 of the paper", _PROVE),
    CheckKind("memory", {"layout": LAYOUT}, ("layout",),
              "{layout} is a memory layout: invertible, every column has one or two non-zero bits "
              "(definition 4.14)", check_memory, "definition 4.14 of the paper", _PROVE),
    CheckKind("equal", {"a": LAYOUT, "b": LAYOUT}, ("a", "b"),
              "{a} and {b} map every hardware index to the same element", check_equal,
              "the two layouts are the same function (same in and out dims)", _PROVE),
    CheckKind("conversion", {"from": LAYOUT, "to": LAYOUT, "cvt": Arg("layout"), "via": Arg("strs"),
                             "max_shared_bytes": Arg("int"), "max_rounds": Arg("int"),
                             "max_wavefronts": Arg("int"), "bitwidth": Arg("pow2"), "target": Arg("str")},
              ("from", "to"),
              "converting {from} to {to} with cvt = to^-1 o from puts every element where {to} expects it",
              check_conversion,
              "to(cvt(x)) == from(x) for every hardware index x (section 5.4); `cvt` checks a given "
              "conversion layout instead of the computed one; `via` (noop | register | shuffle | shared, or a "
              "list) claims how the data moves (the plan's classification, section 5.4), `max_shared_bytes` "
              "bounds the bytes staged through shared memory, `max_rounds` the shuffle rounds, `max_wavefronts` "
              "the store and load wavefronts per instruction of the planned instructions (st.shared or stmatrix, "
              "ld.shared or ldmatrix, plain or .trans, chosen by Triton 3.9's rule for `target`, default cuda:90) "
              "on the planned swizzle (`bitwidth`, default 16)", _PROVE),
    CheckKind("in_bounds", {"layout": LAYOUT, "size": Arg("int"), "shape": Arg("ints")}, ("layout",),
              "every value {layout} produces lies inside the allocation", check_in_bounds,
              "each output stays below its bound (`size` for the flattened output, e.g. a shared-memory "
              "offset; `shape` per out dim); exactly one of them", _PROVE),
    CheckKind("duplicates", {"layout": LAYOUT, "dims": Arg("strs"), "max": Arg("int"), "expected": Arg("map")},
              ("layout",),
              "{layout} holds duplicated data exactly at its free variables (or at most max+1 copies per element)",
              check_duplicates,
              "free-variable masks of the layout matrix (getFreeVariableMasks), proved; `expected` claims "
              "the masks per in dim, `max` bounds the copies", _PROVE),
)
