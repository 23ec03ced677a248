"""Claims about how a proved conversion moves its data: ``via``, ``max_shared_bytes``, ``max_rounds`` and
``max_wavefronts``.

``via`` names the classes a reviewer accepts (``noop``, ``register``, ``shuffle``, ``shared``); the
conversion plan's classification (section 5.4: the first of block, warp, lane, register on which ``cvt`` is
not the identity decides) must be one of them.  ``max_shared_bytes`` bounds the bytes a conversion through
shared memory stages (the whole tensor, ``elements * bits / 8``, 16-bit elements assumed when the spec does
not say).  ``max_rounds`` bounds the shuffle rounds of a warp-shuffle conversion (the plan's rounds,
:func:`llverify.codegen.shuffle.shuffle_plan`; other classes take none).  ``max_wavefronts`` bounds the
wavefronts per warp-level instruction of a conversion through shared memory, for the store and for the load,
of the instructions planned for ``target`` (:func:`llverify.codegen.ldst_select.plan_shared_conversion`:
st.shared or stmatrix, ld.shared or ldmatrix, plain or ``.trans``, Triton 3.9's choice; its swizzle, or
llverify's optimal swizzle when only vector instructions fit), counts exact (lemma 9.4 / the matrix model),
replayed by the brute-force simulators before a refutation is reported.  A refutation names the dimension that moves and one hardware index whose element comes from
another slot of that dimension (``cvt`` evaluated at a basis vector), replayed on both layouts.

>>> from llverify.layout import LinearLayout
>>> A = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4]]}, ["dim0"])
>>> B = LinearLayout.from_bases({"register": [[1]], "lane": [[4], [2]]}, ["dim0"])
>>> from llverify.prove.properties import conversion
>>> conversion_claims(conversion(A, B), A, B, via=["register"]).status
'refuted'
"""

from __future__ import annotations

from typing import Sequence

from llverify.codegen.conversion import convert
from llverify.codegen.shuffle import triton_lowering
from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict

__all__ = ["conversion_claims", "VIA_NAMES"]

VIA_NAMES = {"noop": "noop", "register": "register_permutation", "shuffle": "warp_shuffle",
             "shared": "shared_memory"}


def conversion_claims(v: Verdict, A: LinearLayout, B: LinearLayout, *, via: Sequence[str] | str | None = None,
                      max_shared_bytes: int | None = None, bits: int = 16, max_rounds: int | None = None,
                      max_wavefronts: int | None = None, target: str = "cuda:90") -> Verdict:
    if v.status != "proved":
        return v
    plan = convert(A, B)
    cls = triton_lowering(A, B)
    if via is not None:
        wanted = [via] if isinstance(via, str) else list(via)
        bad = [w for w in wanted if w not in VIA_NAMES]
        if bad:
            return Verdict("error", "conversion", v.subject, None, v.seconds,
                           f"unknown 'via' value {bad[0]!r} (expected {', '.join(VIA_NAMES)})")
        if cls not in {VIA_NAMES[w] for w in wanted}:
            return _refute(v, plan, A, B, f"the conversion moves data by {cls}, not {' or '.join(wanted)}")
    if max_shared_bytes is not None and cls == "shared_memory":
        elems = 1
        for s in A.out_dims.values():
            elems *= s
        need = elems * bits // 8
        if need > max_shared_bytes:
            return Verdict("refuted", "conversion", v.subject, "f2", v.seconds,
                           f"the conversion stages {need} bytes through shared memory > {max_shared_bytes}",
                           Counterexample({}, {"elements": elems, "bits": bits, "bytes": need,
                                               "max_shared_bytes": max_shared_bytes},
                                          "tensor size read from the layouts"),
                           details={**v.details, "classification": cls})
    if max_rounds is not None and cls == "warp_shuffle":
        from llverify.codegen.shuffle import shuffle_plan

        rounds = shuffle_plan(A, B, bits).num_rounds
        if rounds > max_rounds:
            return Verdict("refuted", "conversion", v.subject, "f2", v.seconds,
                           f"the warp-shuffle conversion takes {rounds} rounds > {max_rounds}",
                           Counterexample({}, {"rounds": rounds, "max_rounds": max_rounds},
                                          "the shuffle plan's rounds, recomputed from the layouts"),
                           details={**v.details, "classification": cls})
    if max_wavefronts is not None and cls == "shared_memory":
        from llverify.codegen.bank_sim import simulate_matrix_wavefronts, simulate_wavefronts
        from llverify.codegen.ldst_select import plan_shared_conversion
        from llverify.errors import LlverifyError

        try:
            plan = plan_shared_conversion(A, B, bits, target)
        except LlverifyError as e:
            return Verdict("unknown", "conversion", v.subject, None, v.seconds,
                           f"no shared-memory instruction plan for {target}: {e}")
        counts = {"store": plan.store_wavefronts, "load": plan.load_wavefronts}
        instr = {"store": plan.store, "load": plan.load}
        worst = max(counts, key=lambda k: counts[k])
        details = {**v.details, "classification": cls, "shared_plan": plan.to_json()}
        if counts[worst] > max_wavefronts:
            access = A if worst == "store" else B
            try:  # replay the count with the brute-force simulators before reporting it
                if instr[worst] == "vector":
                    sim = simulate_wavefronts(access, plan.shared, bits)
                else:
                    sim = simulate_matrix_wavefronts(access, plan.shared, bits, instr[worst],
                                                     tile=plan.store_tile if worst == "store" else plan.load_tile)
                replayed = sim.max_wavefronts == counts[worst]
            except LlverifyError:
                replayed = False
            if not replayed:
                return Verdict("unknown", "conversion", v.subject, None, v.seconds,
                               f"the {worst} count {counts[worst]} could not be replayed by the simulator")
            name = {"vector": "st.shared" if worst == "store" else "ld.shared"}.get(instr[worst], instr[worst])
            return Verdict("refuted", "conversion", v.subject, "exhaustive", v.seconds,
                           f"as planned for {target} ({plan.store} store, {plan.load} load) the {worst} ({name}) takes "
                           f"{counts[worst]} wavefronts per instruction > {max_wavefronts}",
                           Counterexample({"access": worst, "instruction": instr[worst]},
                                          {**counts, "max_wavefronts": max_wavefronts},
                                          "every instruction of the access simulated on the planned swizzle"),
                           details=details)
        return v.with_(details=details)
    return v.with_(details={**v.details, "classification": cls})


def _refute(v: Verdict, plan, A: LinearLayout, B: LinearLayout, message: str) -> Verdict:
    cvt = plan.cvt
    for d in ("block", "warp", "lane", "register"):
        if d not in cvt.in_dim_names:
            continue
        for i in range(cvt.in_dim_size_log2(d)):
            x = {n: 0 for n in cvt.in_dim_names}
            x[d] = 1 << i
            src = dict(cvt.apply(**x))
            if any(src.get(n, 0) != x.get(n, 0) for n in set(src) | set(x)):
                # replay: B at x and A at cvt(x) hold the same element, from a different slot
                eb, ea = dict(B.apply(**{n: x.get(n, 0) for n in B.in_dim_names})), \
                    dict(A.apply(**{n: src.get(n, 0) for n in A.in_dim_names}))
                if eb != ea:
                    break
                return Verdict("refuted", "conversion", v.subject, "f2", v.seconds, message,
                               Counterexample(x, {"element": eb, "comes from": src},
                                              "the destination slot's element sits at another slot of the source"),
                               details={**v.details, "classification": triton_lowering(A, B)})
    return Verdict("refuted", "conversion", v.subject, "f2", v.seconds, message,
                   Counterexample({}, {"classification": triton_lowering(A, B)}, "the plan's classification"),
                   details={**v.details, "classification": triton_lowering(A, B)})
