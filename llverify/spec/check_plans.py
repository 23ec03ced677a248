"""Check kinds decided by the code-generation plan proofs (:mod:`llverify.prove` ``plan_*`` modules):
each adapter next to its :class:`~llverify.spec.checkkind.CheckKind` declaration.

bank_conflicts, optimal_swizzle, vectorization, shuffle_plan, broadcast_store,
broadcast_load, gather and shape_op.  The code-generation and plan layers are
imported inside the functions that need them (plain imports, so start-up
stays cheap); an import that fails there becomes an ``error`` verdict ("not
available") in the runner instead of a crash.
"""

from __future__ import annotations

from typing import Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Verdict
from llverify.spec.argtypes import Arg
from llverify.spec.checkkind import ALL_METHODS, LAYOUT, CheckKind, declare_check_kind, options
from llverify.spec.model import CheckDecl

__all__ = ["check_bank_conflicts", "check_broadcast_load", "check_broadcast_store", "check_gather",
           "check_optimal_swizzle", "check_shape_op", "check_shuffle_plan", "check_vectorization"]


def _named(v: Verdict, check: CheckDecl) -> Verdict:
    return v.with_(subject=check.subject)


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


def check_optimal_swizzle(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                          timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.prove.plan_swizzle import prove_optimal_swizzle

    a = check.args
    return _named(prove_optimal_swizzle(layouts[a["from"]], layouts[a["to"]], a["bitwidth"]), check)


def check_vectorization(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                        timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    a = check.args
    from llverify.prove.plan_vectorize import prove_vectorization

    return prove_vectorization(layouts[a["layout"]], layouts[a["shared"]], a["bitwidth"], a["width"],
                               subject=check.subject, **options(method, timeout, rlimit))


def check_shuffle_plan(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                       timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.codegen.shuffle import shuffle_plan
    from llverify.prove.plan_shuffle import prove_shuffle_plan

    a = check.args
    plan = shuffle_plan(layouts[a["from"]], layouts[a["to"]], a.get("bitwidth", 32))
    return _named(prove_shuffle_plan(plan), check)


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


def check_gather(check: CheckDecl, layouts: Mapping[str, LinearLayout], *, method: str | None = None,
                 timeout: float | None = None, rlimit: int | None = None) -> Verdict:
    from llverify.codegen.gather import gather_plan
    from llverify.prove.plan_gather import prove_gather

    a = check.args
    plan = gather_plan(layouts[a["layout"]], a["axis"])
    return _named(prove_gather(plan), check)


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


_SHAPE_OPS = ("trans", "reshape", "join", "split", "expand_dims", "broadcast")


def _plan(module: str) -> tuple[str, ...]:
    return (module, "llverify.codegen")


declare_check_kind(
    CheckKind("bank_conflicts", {"access": LAYOUT, "shared": LAYOUT, "bitwidth": Arg("pow2", required=True),
                                 "max_wavefronts": Arg("int"), "wavefronts": Arg("int"),
                                 "conflict_free": Arg("bool"), "max_vector": Arg("pow2"),
                                 "instruction": Arg("str", choices=("vector", "ldmatrix", "ldmatrix_trans",
                                                                    "stmatrix", "stmatrix_trans")),
                                 "matrices": Arg("pow2")},
              ("access", "shared"),
              "accessing {shared} from {access} with {bitwidth}-bit elements takes the predicted number of "
              "wavefronts per instruction[, at most {max_wavefronts}][, exactly {wavefronts}][, conflict-free] "
              "(lemma 9.4)", check_bank_conflicts,
              "lemma 9.4: wavefronts = n * |span(S_vec u S_idx) n span(L_thr)|, proved exact with Z3; "
              "`max_wavefronts` bounds it, `wavefronts` claims the exact count, `conflict_free: true` claims the "
              "minimum for the vector width (one wavefront per 128-byte phase); each refutation carries a witness "
              "replayed by the brute-force simulator.  `instruction` (default `vector`: ld/st.shared) may name "
              "ldmatrix, ldmatrix_trans, stmatrix or stmatrix_trans (`matrices`: 1, 2 or 4 for .x1/.x2/.x4, "
              "default the widest that fits): each 8x8 matrix is 8 rows of 16 bytes addressed by 8 lanes, one "
              "wavefront per matrix when its rows fall into distinct 16-byte bank groups; proved by enumerating "
              "every instruction; a refutation names the two lanes whose rows collide (docs/codegen.md)",
              _plan("llverify.prove.plan_banks"),
              ("smt",)),  # the exact count is an SMT proof (lemma 9.4's formula checked by Z3)
    CheckKind("optimal_swizzle", {"from": LAYOUT, "to": LAYOUT, "bitwidth": Arg("pow2", required=True)},
              ("from", "to"),
              "the swizzled shared layout built for {from} -> {to} ({bitwidth}-bit) is a memory layout, maximally "
              "vectorised, and meets the bank-conflict bound of lemmas 9.5/9.6", check_optimal_swizzle,
              "section 5.4 / 9.2: the constructed swizzle is compared with the optimum",
              _plan("llverify.prove.plan_swizzle"), (),  # the plan proofs choose their own complete methods
              must_fail="tests/test_codegen_plans.py::test_optimal_swizzle_proved_and_wrong_basis_refuted"),
    CheckKind("vectorization", {"layout": LAYOUT, "shared": LAYOUT, "bitwidth": Arg("pow2", required=True),
                                "width": Arg("pow2", required=True)},
              ("layout", "shared"),
              "registers 0..{width}-1 of every thread of {layout} hold {width} consecutive, aligned offsets of "
              "{shared} (one vectorised access, theorem 5.1)", check_vectorization,
              "theorem 5.1: shared^-1 o layout divides on the left by identity({width}, register -> offset)",
              _plan("llverify.prove.plan_vectorize"), ALL_METHODS),
    CheckKind("shuffle_plan", {"from": LAYOUT, "to": LAYOUT, "bitwidth": Arg("pow2")}, ("from", "to"),
              "the warp-shuffle plan for {from} -> {to} delivers every element to its destination (section 5.4)",
              check_shuffle_plan,
              "simulates the rounds of shuffles on every slot and proves each ends with the destination's element",
              _plan("llverify.prove.plan_shuffle"), (),
              must_fail="tests/test_shuffle_broadcast.py::test_mutant_wrong_source_lane_is_refuted"),
    CheckKind("broadcast_store", {"layout": LAYOUT, "predicate": Arg("map")}, ("layout",),
              "storing {layout} with the broadcast predicate writes every element exactly once",
              check_broadcast_store,
              "the free variables of the layout predicate the replicas off; `predicate` gives the masks "
              "per in dim instead of the computed ones", _plan("llverify.prove.plan_broadcast"), ()),
    CheckKind("broadcast_load", {"layout": LAYOUT, "predicate": Arg("map")}, ("layout",),
              "every replica of {layout} receives the value its writer produced for the same element",
              check_broadcast_load,
              "the reverse of broadcast_store (Triton issue #7402): with the predicate's masks (default: the free "
              "variables) the writer of x is x with the masked bits cleared, and L maps every masked basis to 0; "
              "details.delivery says whether the value travels in-thread, by warp shuffle or through shared memory",
              _plan("llverify.prove"), ()),
    CheckKind("gather", {"layout": LAYOUT, "axis": Arg("int", required=True)}, ("layout",),
              "gather along axis {axis} of {layout} stays inside a warp as the plan claims (section 5.5)",
              check_gather,
              "the warp bases of the layout along the axis are zero, or the plan says shared memory is needed",
              _plan("llverify.prove.plan_gather"), (),
              must_fail="tests/test_codegen_plans.py::test_gather_warp_local_and_not"),
    CheckKind("shape_op", {"op": Arg("str", required=True, choices=_SHAPE_OPS), "layout": LAYOUT,
                           "direction": Arg("str", choices=("forward", "backward")),
                           "result": Arg("layout"), "claim": Arg("str", choices=("no_data_movement", "equals")),
                           "perm": Arg("ints"), "shape": Arg("pow2s"),
                           "reg_bit": Arg("int"), "axis": Arg("int"), "dim": Arg("int"), "size": Arg("pow2")},
              ("layout",),
              "{op} of a tensor in layout {layout} is a no-op with the inferred layout on the other side "
              "(theorem 9.3)", check_shape_op,
              "theorem 9.3: every slot of the result holds the element the op's semantics puts there; "
              "`result` checks a given layout instead of the inferred one: by default that no data moves between "
              "threads (every element a thread holds in `result` it already holds in the operand, forward "
              "direction; `claim: no_data_movement`), with `claim: equals` that `result` is the op's no-op layout "
              "register for register",
              _plan("llverify.prove.plan_shape_ops"), ()),
)
