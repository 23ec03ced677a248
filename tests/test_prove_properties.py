"""Each property on known cases: real bug shapes refute, correct layouts prove, bad claims are errors."""

from __future__ import annotations

import json

import pytest

from llverify import evaluate
from llverify import prove as P
from llverify.layout import LinearLayout as LL
from llverify.prove import certificates, claims
from llverify.prove.finding import refuted
from llverify.prove.witness import collision

METHODS = ("f2", "exhaustive", "smt")

# Triton's blocked layout: sizePerThread [1,4], threadsPerWarp [8,4], warpsPerCTA [2,2], order [1,0], 32x32
BLOCKED = {"register": [[0, 1], [0, 2], [16, 0]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
           "warp": [[0, 16], [8, 0]]}
# Triton's mma v2 layout: warpsPerCTA [2,2], instrShape [16,8], 32x32
MMA = {"register": [[0, 1], [8, 0], [0, 16]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
       "warp": [[0, 8], [16, 0]]}
# swizzled_shared vec=1 perPhase=1 maxPhase=8 on 8x8: row r lands on column r XOR c
SWIZZLE = {"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2], [4, 4]]}


def lay(bases, outs=("dim0", "dim1"), sizes=None) -> LL:
    return LL.from_bases(bases, list(outs), sizes, require_surjective=False)


def replays(L: LL, v) -> None:
    """The counterexample's sides are what apply gives (an independent re-check)."""
    cx = v.counterexample
    inputs = {k: val for k, val in cx.inputs.items() if not k.endswith("'")}
    if set(inputs) == set(L.in_dim_names) and "L(x)" in cx.sides:
        assert dict(cx.sides["L(x)"]) == dict(L.apply(inputs))


@pytest.mark.parametrize("method", METHODS)
def test_correct_hardware_layouts_prove(method: str) -> None:
    for b in (BLOCKED, MMA):
        L = lay(b)
        assert P.distributed(L, method=method).proved
        assert P.bijective(L, method=method).proved
    S = lay(SWIZZLE)
    assert P.memory(S, method=method).proved
    assert P.in_bounds(S, [8, 8], method=method).proved


@pytest.mark.parametrize("method", METHODS)
def test_repeated_column_is_not_distributed(method: str) -> None:
    bad = dict(BLOCKED, lane=[[0, 4], [0, 8], [1, 0], [2, 0], [0, 8]])  # lane=16 repeats lane=2
    L = lay(bad, sizes=[32, 32])
    v = P.distributed(L, method=method)
    assert v.refuted, v.message
    ins = dict(v.counterexample.inputs)
    a = {d: ins[d] for d in L.in_dim_names}
    b = {d: ins[d + "'"] for d in L.in_dim_names}
    assert a != b and L.apply(a) == L.apply(b) and any(L.apply(a).values())
    assert sorted([a["lane"], b["lane"]]) == [2, 16]
    assert v.details["column"] == "lane=16"


@pytest.mark.parametrize("method", METHODS)
def test_two_bit_column_is_not_distributed(method: str) -> None:
    L = lay(dict(BLOCKED, warp=[[0, 16], [8, 1]]), sizes=[32, 32])  # warp=2 -> (8, 1): two bits
    v = P.distributed(L, method=method)
    assert v.refuted and dict(v.counterexample.inputs)["warp"] == 2
    assert v.counterexample.sides["non-zero bits"] == 2
    assert v.details["column"] == "warp=2"


@pytest.mark.parametrize("method", METHODS)
def test_swizzle_sending_two_rows_to_the_same_offsets_is_not_memory(method: str) -> None:
    # row bit 1 swizzled with the wrong phase: (2, 2) became (2, 3); rows 2 and 3 collide
    S = lay({"offset": [[0, 1], [0, 2], [0, 4], [1, 1], [1, 3], [4, 4]]}, sizes=[8, 8])
    v = P.memory(S, method=method)
    assert v.refuted
    assert not P.bijective(S, method=method).proved
    # a three-bit column is not a memory layout even when invertible
    T = lay({"offset": [[0, 1], [0, 2], [0, 4], [1, 3], [2, 2], [4, 4]]}, sizes=[8, 8])
    assert P.bijective(T, method=method).proved
    w = P.memory(T, method=method)
    assert w.refuted and w.counterexample.sides["non-zero bits"] == 3


@pytest.mark.parametrize("method", METHODS)
def test_conversion_with_one_wrong_warp_basis_is_refuted(method: str) -> None:
    A, B = lay(BLOCKED), lay(MMA)
    good = P.conversion(A, B, method=method)
    assert good.proved
    C = A.invert_and_compose(B)
    assert P.conversion(A, B, C, method=method).proved
    wb = [list(x) for x in C.bases["warp"]]
    wb[1] = [wb[1][0], wb[1][1] ^ 1, wb[1][2]]  # the second warp goes to the wrong lane
    Cbad = LL({**{d: [list(x) for x in bs] for d, bs in C.bases.items()}, "warp": wb},
              list(C.out_dims.items()), require_surjective=False)
    v = P.conversion(A, B, Cbad, method=method)
    assert v.refuted
    x = dict(v.counterexample.inputs)
    assert x["warp"] & 2  # only warp 2 and 3 are wrong
    assert B.apply(Cbad.apply(x)) != A.apply(x)
    assert dict(v.counterexample.sides["A(x)"]) == dict(A.apply(x))


@pytest.mark.parametrize("method", METHODS)
def test_no_conversion_when_destination_misses_elements(method: str) -> None:
    A = lay(BLOCKED)
    B = lay(dict(MMA, warp=[[0, 8], [0, 8]]), sizes=[32, 32])  # B never holds rows 16..31
    v = P.conversion(A, B, method=method)
    assert v.refuted and v.method == method
    assert dict(v.counterexample.sides["A(x)"])["dim0"] >= 16


@pytest.mark.parametrize("method", METHODS)
def test_ldmatrix_style_out_of_bounds_is_refuted(method: str) -> None:
    # 32 lanes each address one 16-byte row of a 16-row tile: lanes 16..31 run past a 256-element buffer
    L = LL.from_bases({"register": [[1], [2], [4], [8]], "lane": [[16], [32], [64], [128], [256]]},
                      ["offset"], [512])
    v = P.in_bounds(L, 256, method=method)
    assert v.refuted
    x = dict(v.counterexample.inputs)
    assert x == {"register": 0, "lane": 16}  # minimised: the first lane that overflows, register 0
    assert P.in_bounds(L, 512, method=method).proved
    assert P.in_bounds(L, size=300, method=method).refuted
    # non-power-of-two bound on a per-dim shape
    assert P.in_bounds(lay(BLOCKED), {"dim0": 24}, method=method).refuted
    assert P.in_bounds(lay(BLOCKED), [32, 32], method=method).proved


def test_in_bounds_flattened_size_for_several_out_dims() -> None:
    L = lay(BLOCKED)  # 32x32: flat offsets dim0 + 32 * dim1 cover [0, 1024)
    for m in METHODS:
        assert P.in_bounds(L, size=1024, method=m).proved
        assert P.in_bounds(L, size=1000, method=m).refuted


@pytest.mark.parametrize("method", METHODS)
def test_duplicates_masks(method: str) -> None:
    # lane bit 1 is a zero basis; lane bit 2 repeats lane bit 0: lanes 0, 2, 4, 6 hold the same data
    L = LL.from_bases({"register": [[2]], "lane": [[1], [0], [1]]}, ["dim0"], [4])
    v = P.duplicates(L, ["lane"], method=method)
    assert v.proved and dict(v.details["masks"]) == {"lane": 0b110}
    wrong = P.duplicates(L, ["lane"], expected={"lane": 0b010}, method=method)
    assert wrong.refuted  # lane bit 2 is unmasked but duplicates lane bit 0
    assert P.duplicates(L, ["lane"], expected={"lane": 0b011}, method=method).proved  # also a valid choice
    assert P.duplicates(L, ["lane"], expected={"lane": 0b101}, method=method).refuted  # keeps the zero basis
    assert P.duplicates(L, ["lane"], max=3, method=method).proved
    few = P.duplicates(L, ["lane"], max=2, method=method)
    assert few.refuted and few.details["copies"] == 4
    holders = few.counterexample.sides["holders"]
    assert len({tuple(sorted(h.items())) for h in holders}) == 4
    assert len({tuple(L.apply(dict(h)).values()) for h in holders}) == 1


def test_error_verdicts_say_why() -> None:
    A, B = lay(BLOCKED), lay(MMA)
    small = lay({"register": [[1, 0]], "lane": [], "warp": []}, sizes=[2, 1])
    # same dim names, different sizes: refuted (issue 12), with an input that only A has, evaluated on A
    v = P.equal(A, small)
    assert v.status == "refuted" and v.counterexample is not None
    x = dict(v.counterexample.inputs)
    assert any(x[d] >= small.in_dim_size(d) for d in x)
    assert dict(A.apply(**x)) == dict(v.counterexample.sides["A(x)"])
    # different dim names: the claim is ill-formed
    renamed = small.rename_in_dim("warp", "wrp")
    v = P.equal(A, renamed)
    assert v.status == "error" and "in dims differ" in v.message and v.method is None
    assert P.conversion(A, small).status == "error"
    assert "dims" in P.distributed(lay(SWIZZLE)).message
    assert P.in_bounds(A, [32]).status == "error"
    assert P.in_bounds(A, {"dim7": 3}).status == "error"
    assert P.in_bounds(A, [0, 4]).status == "error"
    assert P.duplicates(A, ["thread"]).status == "error"
    C = A.invert_and_compose(B)
    assert P.conversion(A, B, C.rename_in_dim("warp", "wrp")).status == "error"
    with pytest.raises(P.ClaimError):
        P.surjective(A, method="magic")
    with pytest.raises(P.ClaimError):
        P.surjective("not a layout")


def test_equal_matches_dims_by_name() -> None:
    A = lay(BLOCKED)
    B = A.transpose_ins(["warp", "register", "lane"]).transpose_outs(["dim1", "dim0"])
    for m in METHODS:
        assert P.equal(A, B, method=m).proved


def test_verdicts_are_json_and_record_method() -> None:
    A, B = lay(BLOCKED), lay(MMA)
    for m in METHODS:
        for v in (P.equal(A, B, method=m), P.conversion(A, B, method=m), P.surjective(A, method=m)):
            text = json.dumps(v.to_json())
            assert json.loads(text)["method"] == m
            assert v.seconds >= 0
    auto = P.surjective(A)
    assert auto.method == "f2" and "auto" in auto.details
    assert auto.subject.startswith("layout(") and P.surjective(A, subject="blocked").subject == "blocked"


def test_prove_over_claim_objects() -> None:
    A, B = lay(BLOCKED), lay(MMA)
    assert claims.prove(claims.Conversion(A, B), method="smt").proved
    assert claims.prove(claims.Equal(A, B)).refuted
    assert claims.prove(claims.InBounds(A, [32, 16])).refuted
    assert claims.prove(claims.Duplicates(A, ["lane"], max=0)).proved
    assert set(claims.CLAIMS) == {"surjective", "injective", "bijective", "distributed", "memory", "equal",
                                  "conversion", "in_bounds", "duplicates"}
    with pytest.raises(P.ClaimError):
        claims.prove("surjective")


def test_solver_budget_exhausted_is_unknown_never_proved() -> None:
    A, B = lay(BLOCKED), lay(MMA)
    C = A.invert_and_compose(B)
    calls = [lambda **k: P.surjective(A, **k), lambda **k: P.injective(A, **k), lambda **k: P.bijective(A, **k),
             lambda **k: P.distributed(A, **k), lambda **k: P.memory(lay(SWIZZLE), **k),
             lambda **k: P.equal(A, A, **k), lambda **k: P.conversion(A, B, C, **k),
             lambda **k: P.in_bounds(A, [32, 32], **k), lambda **k: P.duplicates(A, ["lane"], **k)]
    for call in calls:
        v = call(method="smt", rlimit=1)
        assert v.status == "unknown", (v.property, v.status)
        assert "resource" in v.message and v.details["rlimit"] == 1
        assert call(method="smt").proved


def test_exhaustive_refuses_above_the_size_guard(monkeypatch) -> None:
    monkeypatch.setattr(evaluate, "_max_points", 64)
    v = P.injective(lay(BLOCKED), method="exhaustive")
    assert v.status == "unknown" and "size guard" in v.message


def test_a_counterexample_that_does_not_replay_is_an_internal_error(monkeypatch) -> None:
    L = LL.identity_1d(8, "register", "dim0")

    def lying_injective(_L):  # claims a collision between two inputs that differ in output
        return refuted(collision(_L, {"register": 1}, {"register": 2}), "fake")
    monkeypatch.setattr(certificates, "injective", lying_injective)
    v = P.injective(L, method="f2")
    assert v.status == "error" and "internal error" in v.message


def test_a_certificate_that_fails_its_check_is_an_internal_error(monkeypatch) -> None:
    monkeypatch.setattr(certificates, "check_right_inverse", lambda *a: False)
    v = P.surjective(LL.identity_1d(8, "register", "dim0"), method="f2")
    assert v.status == "error" and "internal error" in v.message


def test_certificates_are_right_and_left_inverses() -> None:
    L = lay(MMA)
    cols = L.flat_columns
    R = certificates.right_inverse(cols, L.total_out_bits)
    Pm = certificates.left_inverse(cols, L.total_out_bits)
    for r, m in enumerate(R):
        assert L.apply_flat(m) == 1 << r
    for j, p in enumerate(Pm):
        assert [bin(p & c).count("1") % 2 for c in cols] == [int(i == j) for i in range(len(cols))]
    assert not certificates.check_right_inverse(cols, L.total_out_bits, [0] * len(R))
