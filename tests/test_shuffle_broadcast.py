"""Warp shuffles between layouts that hold copies (issue 13, item 1; llverify.codegen.shuffle_broadcast).

Every plan is proved by the existing plan proof (every destination slot of every warp receives its
element); each property also has a mutant plan that the same proof refutes, with a counterexample that
is replayed here on the layouts themselves."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from llverify.codegen.conversion import convert
from llverify.codegen.shuffle import ShuffleRound, shuffle_plan, triton_lowering
from llverify.errors import LayoutError
from llverify.hw import blocked
from llverify.layout import LinearLayout
from llverify.prove.plan_shuffle import prove_shuffle_plan


def _b(shape, spt, tpw, wpc, order):
    return blocked(size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc, order=order, shape=shape)


def _pr11646():
    """Triton PR #11646's regression: 16x1, rows on lanes 0..15 of every warp -> 4 rows per warp."""
    return _b([16, 1], [1, 1], [32, 1], [4, 1], [1, 0]), _b([16, 1], [1, 8], [4, 8], [4, 1], [1, 0])


def _replay(plan, cx) -> None:
    """The refutation's counterexample, evaluated on the layouts: the delivered element is not B's."""
    pt, sides = cx.inputs, cx.sides
    B = plan.dst
    hw = {"register": sides.get("register", pt.get("register", 0)), "lane": pt["lane"], "warp": pt["warp"],
          "block": pt["block"]}
    want = B.apply({d: hw[d] for d in B.in_dim_names})
    flat = sum(v << s for (d, v), s in zip(want.items(), _shifts(B)))
    assert flat == sides["expected (B element)"]
    assert sides.get("received (A element)", sides.get("value there")) != flat


def _shifts(L: LinearLayout) -> list[int]:
    out, s = [], 0
    for size in L.out_dims.values():
        out.append(s)
        s += size.bit_length() - 1
    return out


def test_pr11646_reads_the_copy_in_its_own_warp():
    A, B = _pr11646()
    assert convert(A, B).classification == "shared_memory"       # cvt's copy is in warp 0
    plan = shuffle_plan(A, B)
    assert plan.broadcast and plan.num_rounds == 1
    assert plan.warp_shifts == ((0, 4), (0, 8))                   # warp w reads lanes ^ 4w: its own copies
    v = prove_shuffle_plan(plan)
    assert v.status == "proved", v.message
    assert v.certificate["points"] == 32 * 4 * B.in_dim_size("register")     # every slot of every warp
    assert triton_lowering(A, B) == "warp_shuffle"


def test_mutant_reading_the_remote_copy_is_refuted():
    """Without the warp shifts every warp reads warp 0's rows: right in warp 0, wrong in warp 1."""
    A, B = _pr11646()
    plan = shuffle_plan(A, B)
    v = prove_shuffle_plan(replace(plan, warp_shifts=()))
    assert v.status == "refuted" and v.counterexample.inputs["warp"] == 1
    _replay(plan, v.counterexample)


def test_mutant_wrong_source_lane_is_refuted():
    A, B = _pr11646()
    plan = shuffle_plan(A, B)
    rnd = plan.rounds[0]
    bad = list(rnd.src_lane)
    bad[9] ^= 1                                                   # lane 9 reads row 0 instead of row 1
    v = prove_shuffle_plan(plan.with_round(0, ShuffleRound(tuple(bad), rnd.send_regs, rnd.recv_regs)))
    assert v.status == "refuted" and v.counterexample.inputs["lane"] == 9
    _replay(plan, v.counterexample)


def _serialised_case():
    """Source lanes 0 and 4 are copies, 8 registers each; each destination lane wants one element: a copy
    lane can serve one reader per round, so 4 readers of one row need the 4 copies and 2 rounds."""
    A = LinearLayout.from_bases({"register": [[1], [2], [4]], "lane": [[0], [8], [16], [32], [0]],
                                 "warp": [[0], [0]]}, ["dim0"])
    B = LinearLayout.from_bases({"register": [], "lane": [[2], [4], [8], [16], [1]], "warp": [[32], [0]]},
                                ["dim0"])
    return A, B


def test_copies_serve_several_readers_and_rounds_serialise_the_rest():
    A, B = _serialised_case()
    plan = shuffle_plan(A, B)
    assert plan.broadcast and plan.num_rounds == 2 and len(plan.serialised_lanes) == 1
    v = prove_shuffle_plan(plan)
    assert v.status == "proved", v.message
    # a mutant that lets all lanes store in the first round alone misses the second half
    r0, r1 = plan.rounds
    merged = ShuffleRound(tuple(a if b == () else c for a, b, c in zip(r0.src_lane, r0.recv_regs, r1.src_lane)),
                          r0.send_regs, tuple(b or c for b, c in zip(r0.recv_regs, r1.recv_regs)))
    v = prove_shuffle_plan(replace(plan, rounds=(merged,)))
    assert v.status == "refuted"
    _replay(plan, v.counterexample)


def test_destination_register_copies_are_proved_and_a_wrong_copy_refuted():
    A = _b([4, 32], [1, 1], [1, 32], [4, 1], [1, 0])
    # dim1 bit 0 in register 0, register 1 a copy; lane 4 a copy (broadcast), warps as in A
    B = LinearLayout([("register", [[0, 1], [0, 0]]), ("lane", [[0, 2], [0, 4], [0, 8], [0, 16], [0, 0]]),
                      ("warp", [[1, 0], [2, 0]]), ("block", [])], [("dim0", 4), ("dim1", 32)])
    plan = shuffle_plan(A, B)
    assert plan.dst_copy == (0, 1, 0, 1)
    assert prove_shuffle_plan(plan).status == "proved"
    v = prove_shuffle_plan(replace(plan, dst_copy=(0, 1, 1, 0)))
    assert v.status == "refuted" and v.counterexample.inputs["register"] == 2
    _replay(plan, v.counterexample)


def test_not_warp_local_even_with_copies_is_refused():
    A = _b([16, 4], [1, 1], [16, 2], [1, 4], [0, 1])       # warp w holds column w
    B = _b([16, 4], [1, 1], [4, 8], [4, 1], [1, 0])        # warp w holds rows 4w..4w+3
    with pytest.raises(LayoutError, match="shared memory|does not hold"):
        shuffle_plan(A, B)
    assert triton_lowering(A, B) == "shared_memory"


def _random_blocked(rng, shape):
    while True:
        t0, w0 = rng.choice([1, 2, 4, 8, 16, 32]), rng.choice([1, 2, 4])
        try:
            return _b(shape, [rng.choice([1, 2, 4]) for _ in range(2)], [t0, 32 // t0], [w0, 4 // w0],
                      rng.choice([[0, 1], [1, 0]]))
        except LayoutError:
            continue


def test_random_blocked_pairs_plan_and_prove_or_refuse():
    """Cross-check: whenever a plan is returned it is proved on every warp; a one-lane mutant is refuted."""
    rng = random.Random(13)
    planned = 0
    for _ in range(60):
        shape = [rng.choice([1, 2, 4, 8, 16]), rng.choice([1, 2, 4, 8, 16])]
        A, B = _random_blocked(rng, shape), _random_blocked(rng, shape)
        try:
            plan = shuffle_plan(A, B)
        except LayoutError:
            continue
        planned += 1
        assert prove_shuffle_plan(plan).status == "proved"
        k = next((k for k, r in enumerate(plan.rounds) if any(r.recv_regs)), None)
        rnd = plan.rounds[k]
        u = next(u for u in range(len(rnd.src_lane)) if rnd.recv_regs[u])
        mutant = replace(plan, rounds=plan.rounds[:k] + (replace(rnd, recv_regs=rnd.recv_regs[:u] + ((),) +
                                                                 rnd.recv_regs[u + 1:]),) + plan.rounds[k + 1:])
        assert prove_shuffle_plan(mutant).status == "refuted"   # that slot is never written
    assert planned >= 20
