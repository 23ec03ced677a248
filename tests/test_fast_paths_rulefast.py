"""The check phase's fast paths (issue 11) agree with the plain definitions they replace; each comparison can fail.

* the bank simulator's per-phase counting (sort each phase's units, count first occurrences per bank) against a
  set-based count written from the hardware rule: a phase costs the largest number of distinct units one bank
  serves, phases add up;
* ``invert_and_compose`` built directly in its final dim orders against its product form (the solved part times
  an identity per identity dim, then both dim orders restored), on pairs that share identity dims;
* ``remove_broadcast_registers`` (built without re-validation) against the checked constructor.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.codegen.bank_model import AMD_CDNA3, AMD_CDNA4, NVIDIA, BankModel, PhaseRule
from llverify.codegen.bank_sim import _max_words_per_bank, simulate_addresses, simulate_row_addresses
from llverify.codegen.common import kept_register_bits, remove_broadcast_registers
from llverify.layout import LinearLayout
from strategies import layouts, out_dims


def reference_wavefronts(addr: np.ndarray, vec_bytes: int, model: BankModel, rule: PhaseRule) -> list[int]:
    """Per instruction: sum over phases of max over banks of the distinct units that bank serves (plain sets)."""
    unit = vec_bytes if rule.split_words and vec_bytes < model.bank_bytes else model.bank_bytes
    per_lane = max(1, vec_bytes // model.bank_bytes)
    banks = model.banks_of(rule)
    out = []
    for row in addr.tolist():
        phases: dict[int, dict[int, set[int]]] = {}
        for lane, a in enumerate(row):
            served = phases.setdefault(rule.phase_of(lane), {})
            for k in range(per_lane):
                u = a // unit + k
                served.setdefault((u * unit // model.bank_bytes) % banks, set()).add(u)
        out.append(sum(max(len(s) for s in p.values()) for p in phases.values()))
    return out


_RULES = st.sampled_from([(m, v, d) for m in (NVIDIA, AMD_CDNA3, AMD_CDNA4) for v in (1, 2, 4, 8, 16)
                          for d in ("load", "store")])


@given(_RULES, st.integers(1, 4), st.integers(0, 12), st.data())
@settings(max_examples=300, deadline=None)
def test_simulated_addresses_count_distinct_units_per_bank(case, n_instr, spread, data):
    model, vec_bytes, direction = case
    try:
        rules = model.phase_rules(vec_bytes, direction)
    except Exception:  # a width whose phase rule the model does not establish: nothing to compare
        return
    # addresses aligned to the vector, drawn from a small range so that lanes share words and banks
    slots = data.draw(st.lists(st.integers(0, (1 << spread) - 1), min_size=n_instr * model.lanes,
                               max_size=n_instr * model.lanes))
    addr = np.array(slots, dtype=np.int64).reshape(n_instr, model.lanes) * vec_bytes
    for rule in rules:
        assert simulate_addresses(addr, vec_bytes, model, rule).tolist() == reference_wavefronts(addr, vec_bytes,
                                                                                                 model, rule)


@given(st.integers(1, 8), st.integers(0, 10), st.data())
@settings(max_examples=200, deadline=None)
def test_phases_of_unequal_size_are_counted_apart(gens, spread, data):
    # a phase rule whose cosets are cut by a lane count that is not a multiple of the phase size: every phase,
    # short or full, costs its own distinct words
    rule = PhaseRule((1, gens), "test")
    lanes = data.draw(st.integers(1, 24))
    slots = data.draw(st.lists(st.integers(0, (1 << spread) - 1), min_size=lanes, max_size=lanes))
    addr = np.array([slots], dtype=np.int64) * 4
    assert simulate_addresses(addr, 4, NVIDIA, rule).tolist() == reference_wavefronts(addr, 4, NVIDIA, rule)


def test_repeated_words_are_served_once():
    # the mutant that counts every lane's word (no deduplication) gives 32 here
    assert simulate_addresses(np.zeros((1, 32), dtype=np.int64), 4).tolist() == [1]
    assert _max_words_per_bank(np.array([[0, 32, 32, 0, 64]]), 4, 4, 32).tolist() == [3]
    # one column of f32 (word 32 l): bank 0 serves 32 distinct words
    assert simulate_addresses(np.arange(32, dtype=np.int64)[None, :] * 128, 4).tolist() == [32]


@given(st.integers(1, 3), st.sampled_from([8, 16, 32]), st.integers(0, 8), st.data())
@settings(max_examples=200, deadline=None)
def test_matrix_rows_count_distinct_words_per_bank(n_instr, lanes, spread, data):
    slots = data.draw(st.lists(st.integers(0, (1 << spread) - 1), min_size=n_instr * lanes, max_size=n_instr * lanes))
    rows = np.array(slots, dtype=np.int64).reshape(n_instr, lanes) * 16
    want = []
    for row in rows.tolist():
        phases: dict[int, dict[int, set[int]]] = {}
        for a_lane, a in enumerate(row):
            served = phases.setdefault(a_lane // 8, {})
            for k in range(4):
                w = a // 4 + k
                served.setdefault(w % 32, set()).add(w)
        want.append(sum(max(len(s) for s in p.values()) for p in phases.values()))
    assert simulate_row_addresses(rows).tolist() == want


@st.composite
def _pairs_with_identity_dims(draw):
    outs = draw(out_dims(max_log2=3))
    a = draw(layouts(outs=outs, max_bases=3))
    b = draw(layouts(outs=outs, max_bases=3, surjective=True))
    k = draw(st.integers(0, 3))
    j = draw(st.integers(0, 2))
    return a, b, k, j


@given(_pairs_with_identity_dims())
@settings(max_examples=300, deadline=None)
def test_invert_and_compose_spreads_solutions_around_identity_dims(case):
    a, b, k, j = case
    # two extra dims that both layouts map identically onto out dims of their own: decoupled, so identity dims
    w = LinearLayout.identity_1d(1 << k, "wx", "ox") * LinearLayout.identity_1d(1 << j, "wy", "oy")
    A, B = w * a, b * w                     # the identity dims first in A, last in B: the orders differ
    C = A.invert_and_compose(B)
    inner = a.invert_and_compose(b)
    ref = (inner * LinearLayout.identity_1d(1 << k, "wx", "wx") * LinearLayout.identity_1d(1 << j, "wy", "wy"))
    ref = ref.transpose_ins(list(A.in_dim_names)).transpose_outs(list(B.in_dim_names))
    assert C == ref
    for i in range(k):                       # the definition, on the identity dims' basis inputs
        x = {**{d: 0 for d in A.in_dim_names}, "wx": 1 << i}
        assert dict(B.apply(dict(C.apply(x)))) == dict(A.apply(x))


def test_identity_dims_keep_their_own_out_bits():
    # the mutant that leaves a solution's packed bits unspread maps lane 1 to out bit 0 (register 1) instead of
    # the lane's position after the identity dim
    a = LinearLayout({"w": [[0, 1]], "lane": [[1, 0], [2, 0]]}, {"x": 4, "y": 2})
    b = LinearLayout({"lane": [[2, 0], [1, 0]], "w": [[0, 1]]}, {"x": 4, "y": 2})
    c = a.invert_and_compose(b)
    assert dict(c.bases) == {"w": ((0, 1),), "lane": ((2, 0), (1, 0))}
    assert c.out_dims == {"lane": 4, "w": 2}


@given(layouts(max_bases=4))
@settings(max_examples=300, deadline=None)
def test_broadcast_registers_removed_as_the_checked_constructor_would(L):
    got = remove_broadcast_registers(L)
    if "register" not in L.in_dim_names:
        assert got is L
        return
    regs = L.bases["register"]
    keep = [regs[i] for i in kept_register_bits(L)]
    want = LinearLayout([(d, keep if d == "register" else list(bs)) for d, bs in L.bases.items()],
                        list(L.out_dims.items()), require_surjective=False)
    assert got == want
    assert len(set(b for b in got.bases["register"] if any(b))) == len(got.bases["register"])
