"""The check kinds a spec may use: their arguments, their claim in words, and
which function decides them (the dispatch table).

``KINDS[property]`` is a :class:`CheckKind`.  ``args`` declares the argument
mapping (see :mod:`llverify.spec.argtypes`); ``positional`` says how the
short forms map onto it: ``surjective: src`` is ``{layout: src}``, ``equal:
[a, b]`` is ``{a: a, b: b}``.  ``impl`` is the adapter function
(in :mod:`llverify.spec.adapters`, named directly in the declaration) that
turns the arguments into a call of the prover / code-generation / index
layer and returns a :class:`~llverify.prove.verdict.Verdict`.  The adapters
import the heavier layers inside the function, so a layer that is not
importable yields an ``error`` verdict saying the check is not available
rather than a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

from llverify.prove.verdict import Verdict
from llverify.spec import adapters as a
from llverify.spec.argtypes import Arg

__all__ = ["CheckKind", "KINDS", "COMMON_KEYS", "declare_check_kind"]

#: keys every check may carry next to its property
COMMON_KEYS: tuple[str, ...] = ("name", "expect", "timeout", "method", "rlimit", "description")

_L = Arg("layout", required=True)


@dataclass(frozen=True)
class CheckKind:
    """A check kind: its argument schema and what it claims (see the module docstring)."""

    name: str
    args: Mapping[str, Arg]
    positional: tuple[str, ...]
    claim: str
    impl: Callable[..., Verdict]
    doc: str = ""
    needs: tuple[str, ...] = field(default=())
    methods: tuple[str, ...] = ("f2", "exhaustive", "smt")  # what a command-line default may ask for

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))


def _k(name: str, impl: Callable[..., Verdict], args: dict[str, Arg], positional: tuple[str, ...], claim: str,
       doc: str, needs: tuple[str, ...] = ("llverify.prove",)) -> CheckKind:
    methods: tuple[str, ...] = ("f2", "exhaustive", "smt")
    if name == "index_code":
        methods = ("exhaustive", "smt")
    elif name == "bank_conflicts":
        methods = ("smt",)  # the exact count is an SMT proof (lemma 9.4's formula checked by Z3)
    elif "llverify.codegen" in needs and name != "vectorization":
        methods = ()  # the plan proofs choose their own complete methods
    return CheckKind(name, args, positional, claim, impl, doc, needs, methods)


_SHAPE_OPS = ("trans", "reshape", "join", "split", "expand_dims", "broadcast")

_TABLE: dict[str, CheckKind] = {k.name: k for k in [
    _k("surjective", a.check_surjective, {"layout": _L}, ("layout",),
       "every element of the tensor is held by some hardware index of {layout}",
       "rank of the layout matrix equals the number of out bits (definition 4.5)"),
    _k("injective", a.check_injective, {"layout": _L}, ("layout",),
       "no two hardware indices of {layout} hold the same element (no broadcast)",
       "rank equals the number of in bits"),
    _k("bijective", a.check_bijective, {"layout": _L}, ("layout",),
       "{layout} is a bijection between hardware indices and tensor elements",
       "surjective and injective (an invertible layout)"),
    _k("distributed", a.check_distributed, {"layout": _L}, ("layout",),
       "{layout} is a distributed layout: surjective, every column has at most one non-zero bit, "
       "non-zero columns distinct (definition 4.10)", "definition 4.10 of the paper"),
    _k("memory", a.check_memory, {"layout": _L}, ("layout",),
       "{layout} is a memory layout: invertible, every column has one or two non-zero bits "
       "(definition 4.14)", "definition 4.14 of the paper"),
    _k("equal", a.check_equal, {"a": _L, "b": _L}, ("a", "b"),
       "{a} and {b} map every hardware index to the same element",
       "the two layouts are the same function (same in and out dims)"),
    _k("conversion", a.check_conversion, {"from": _L, "to": _L, "cvt": Arg("layout"), "via": Arg("strs"),
                      "max_shared_bytes": Arg("int"), "max_rounds": Arg("int"), "max_wavefronts": Arg("int"),
                      "bitwidth": Arg("pow2"), "target": Arg("str")},
       ("from", "to"),
       "converting {from} to {to} with cvt = to^-1 o from puts every element where {to} expects it",
       "to(cvt(x)) == from(x) for every hardware index x (section 5.4); `cvt` checks a given "
       "conversion layout instead of the computed one; `via` (noop | register | shuffle | shared, or a "
       "list) claims how the data moves (the plan's classification, section 5.4), `max_shared_bytes` "
       "bounds the bytes staged through shared memory, `max_rounds` the shuffle rounds, `max_wavefronts` the "
       "store and load wavefronts per instruction of the planned instructions (st.shared or stmatrix, ld.shared "
       "or ldmatrix, plain or .trans, chosen by Triton 3.9's rule for `target`, default cuda:90) on the planned "
       "swizzle (`bitwidth`, default 16)"),
    _k("in_bounds", a.check_in_bounds, {"layout": _L, "size": Arg("int"), "shape": Arg("ints")}, ("layout",),
       "every value {layout} produces lies inside the allocation",
       "each output stays below its bound (`size` for the flattened output, e.g. a shared-memory "
       "offset; `shape` per out dim); exactly one of them"),
    _k("duplicates", a.check_duplicates, {"layout": _L, "dims": Arg("strs"), "max": Arg("int"), "expected": Arg("map")},
       ("layout",),
       "{layout} holds duplicated data exactly at its free variables (or at most max+1 copies per element)",
       "free-variable masks of the layout matrix (getFreeVariableMasks), proved; `expected` claims "
       "the masks per in dim, `max` bounds the copies"),
    _k("bank_conflicts", a.check_bank_conflicts, {"access": _L, "shared": _L, "bitwidth": Arg("pow2", required=True),
                          "max_wavefronts": Arg("int"), "wavefronts": Arg("int"), "conflict_free": Arg("bool"),
                          "max_vector": Arg("pow2"),
                          "instruction": Arg("str", choices=("vector", "ldmatrix", "ldmatrix_trans", "stmatrix",
                                                             "stmatrix_trans")),
                          "matrices": Arg("pow2")},
       ("access", "shared"),
       "accessing {shared} from {access} with {bitwidth}-bit elements takes the predicted number of wavefronts "
       "per instruction[, at most {max_wavefronts}][, exactly {wavefronts}][, conflict-free] (lemma 9.4)",
       "lemma 9.4: wavefronts = n * |span(S_vec u S_idx) n span(L_thr)|, proved exact with Z3; "
       "`max_wavefronts` bounds it, `wavefronts` claims the exact count, `conflict_free: true` claims the "
       "minimum for the vector width (one wavefront per 128-byte phase); each refutation carries a witness "
       "replayed by the brute-force simulator.  `instruction` (default `vector`: ld/st.shared) may name "
       "ldmatrix, ldmatrix_trans, stmatrix or stmatrix_trans (`matrices`: 1, 2 or 4 for .x1/.x2/.x4, default "
       "the widest that fits): each 8x8 matrix is 8 rows of 16 bytes addressed by 8 lanes, one wavefront per "
       "matrix when its rows fall into distinct 16-byte bank groups; proved by enumerating every instruction; "
       "a refutation names the two lanes whose rows collide (docs/codegen.md)",
       ("llverify.prove.plan_banks", "llverify.codegen")),
    _k("optimal_swizzle", a.check_optimal_swizzle, {"from": _L, "to": _L, "bitwidth": Arg("pow2", required=True)},
       ("from", "to"),
       "the swizzled shared layout built for {from} -> {to} ({bitwidth}-bit) is a memory layout, maximally "
       "vectorised, and meets the bank-conflict bound of lemmas 9.5/9.6",
       "section 5.4 / 9.2: the constructed swizzle is compared with the optimum",
       ("llverify.prove.plan_swizzle", "llverify.codegen")),
    _k("vectorization", a.check_vectorization, {"layout": _L, "shared": _L, "bitwidth": Arg("pow2", required=True),
                         "width": Arg("pow2", required=True)},
       ("layout", "shared"),
       "registers 0..{width}-1 of every thread of {layout} hold {width} consecutive, aligned offsets of "
       "{shared} (one vectorised access, theorem 5.1)",
       "theorem 5.1: shared^-1 o layout divides on the left by identity({width}, register -> offset)",
       ("llverify.prove.plan_vectorize", "llverify.codegen")),
    _k("shuffle_plan", a.check_shuffle_plan, {"from": _L, "to": _L, "bitwidth": Arg("pow2")}, ("from", "to"),
       "the warp-shuffle plan for {from} -> {to} delivers every element to its destination (section 5.4)",
       "simulates the rounds of shuffles on every slot and proves each ends with the destination's element",
       ("llverify.prove.plan_shuffle", "llverify.codegen")),
    _k("broadcast_store", a.check_broadcast_store, {"layout": _L, "predicate": Arg("map")}, ("layout",),
       "storing {layout} with the broadcast predicate writes every element exactly once",
       "the free variables of the layout predicate the replicas off; `predicate` gives the masks "
       "per in dim instead of the computed ones", ("llverify.prove.plan_broadcast", "llverify.codegen")),
    _k("broadcast_load", a.check_broadcast_load, {"layout": _L, "predicate": Arg("map")}, ("layout",),
       "every replica of {layout} receives the value its writer produced for the same element",
       "the reverse of broadcast_store (Triton issue #7402): with the predicate's masks (default: the free "
       "variables) the writer of x is x with the masked bits cleared, and L maps every masked basis to 0; "
       "details.delivery says whether the value travels in-thread, by warp shuffle or through shared memory",
       ("llverify.prove", "llverify.codegen")),
    _k("gather", a.check_gather, {"layout": _L, "axis": Arg("int", required=True)}, ("layout",),
       "gather along axis {axis} of {layout} stays inside a warp as the plan claims (section 5.5)",
       "the warp bases of the layout along the axis are zero, or the plan says shared memory is needed",
       ("llverify.prove.plan_gather", "llverify.codegen")),
    _k("shape_op", a.check_shape_op, {"op": Arg("str", required=True, choices=_SHAPE_OPS), "layout": _L,
                    "direction": Arg("str", choices=("forward", "backward")),
                    "result": Arg("layout"), "claim": Arg("str", choices=("no_data_movement", "equals")),
                    "perm": Arg("ints"), "shape": Arg("pow2s"),
                    "reg_bit": Arg("int"), "axis": Arg("int"), "dim": Arg("int"), "size": Arg("pow2")},
       ("layout",),
       "{op} of a tensor in layout {layout} is a no-op with the inferred layout on the other side (theorem 9.3)",
       "theorem 9.3: every slot of the result holds the element the op's semantics puts there; "
       "`result` checks a given layout instead of the inferred one: by default that no data moves between "
       "threads (every element a thread holds in `result` it already holds in the operand, forward direction; "
       "`claim: no_data_movement`), with `claim: equals` that `result` is the op's no-op layout register for "
       "register",
       ("llverify.prove.plan_shape_ops", "llverify.codegen")),
    _k("index_code", a.check_index_code, {"layout": _L, "code": Arg("str", required=True),
                      "lang": Arg("str", choices=("python", "c", "cuda", "triton")),
                      "inputs": Arg("map", required=True), "output": Arg("str", required=True),
                      "types": Arg("map"), "below": Arg("int")},
       ("layout",),
       "the index code computes exactly {layout} (and, with below: n, its value stays in [0, n))",
       "the expression is compared with the layout over all inputs (SMT or exhaustive)",
       ("llverify.prove.code",)),
]}

#: Every check kind by property name: a read-only view of the table, so kinds declared later appear too.
KINDS: Mapping[str, CheckKind] = MappingProxyType(_TABLE)


def declare_check_kind(kind: CheckKind) -> None:
    """Add a check kind: the one declaration from which the spec validator, the JSON Schema
    (``llverify schema``), the runner, the reports and SARIF's rule table all read it.

    Requires: ``kind.name`` not declared already (the same declaration again is a no-op).
    """
    if _TABLE.get(kind.name) == kind:
        return
    if kind.name in _TABLE or kind.name in COMMON_KEYS:
        raise ValueError(f"check kind {kind.name!r} is declared twice")
    _TABLE[kind.name] = kind
