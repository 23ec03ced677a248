"""Building blocks: Z3 encodings, SMT-LIB export and re-check, replay, minimisation."""

from __future__ import annotations

import random

import pytest
import z3

from llverify import prove as P
from llverify.layout import LinearLayout as LL
from llverify.prove import bv, smtlib
from llverify.prove.minimize import minimize
from llverify.prove.replay import ReplayFailure, differs, replay, replayed_counterexample

MMA = {"register": [[0, 1], [8, 0], [0, 16]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
       "warp": [[0, 8], [16, 0]]}


def mma() -> LL:
    return LL.from_bases(MMA, ["dim0", "dim1"])


@pytest.mark.parametrize("encoding", ["bits", "ite"])
def test_layout_terms_evaluate_like_apply(encoding: str) -> None:
    L = mma().transpose_outs(["dim1", "dim0"])
    x = bv.input_vars(L)
    terms = bv.layout_terms(L, x, encoding=encoding)
    rng = random.Random(0)
    for _ in range(50):
        p = {d: rng.randrange(s) for d, s in L.in_dims.items()}
        sub = [(x[d], z3.BitVecVal(p[d], x[d].size())) for d in L.in_dim_names]
        got = {n: z3.simplify(z3.substitute(t, *sub)).as_long() for n, t in terms.items()}
        assert got == dict(L.apply(p))


def test_size_one_dims_and_widths() -> None:
    L = LL.from_bases({"register": [[1, 0]], "warp": []}, ["dim0", "dim1"], [2, 1], require_surjective=False)
    x = bv.input_vars(L)
    assert x["warp"].size() == 1 and z3.is_bv_value(x["warp"])
    t = bv.layout_terms(L, x)
    assert t["dim1"].size() == 1 and z3.simplify(t["dim1"]).as_long() == 0
    with pytest.raises(ValueError):
        bv.layout_terms(L, {"register": z3.BitVec("r", 3), "warp": x["warp"]})


def test_check_maps_budget_exhaustion_to_unknown() -> None:
    a, b = z3.BitVecs("a b", 32)
    hard = [a * b == 0x12345679, a > 1, b > 1, a * 3 != b]
    r = bv.check(hard, rlimit=1)
    assert r.status == "unknown" and "resource" in r.reason
    assert bv.check([a == 3], rlimit=10_000).status == "sat"


def test_default_rlimit_is_settable() -> None:
    old = bv.default_rlimit()
    try:
        bv.set_default_rlimit(1)
        assert P.injective(mma(), method="smt").status == "unknown"
    finally:
        bv.set_default_rlimit(old)
    assert P.injective(mma(), method="smt").proved
    with pytest.raises(ValueError):
        bv.set_default_rlimit(0)


@pytest.mark.parametrize("use_binary", [False, True])
def test_exported_obligations_recheck_to_the_same_answer(tmp_path, use_binary: bool) -> None:
    if use_binary and smtlib.z3_binary() is None:
        pytest.skip("no z3 binary on PATH")
    L = mma()
    bad = LL.from_bases(dict(MMA, warp=[[0, 8], [0, 8]]), ["dim0", "dim1"], [32, 32], require_surjective=False)
    cases = [(P.bijective(L, method="smt"), "unsat"), (P.equal(L, L, method="smt"), "unsat"),
             (P.surjective(bad, method="smt"), "sat"), (P.distributed(bad, method="smt"), "sat"),
             (P.equal(L, bad, method="smt"), "sat"), (P.in_bounds(L, [32, 20], method="smt"), "sat")]
    for i, (v, answer) in enumerate(cases):
        query = v.certificate["smt2"] if v.proved else v.details["smt2"]
        path = smtlib.write_smt2(tmp_path / f"q{i}.smt2", query, comment=f"{v.property} of {v.subject}")
        text = path.read_text()
        assert text.count("(check-sat)") == 1 and text.startswith("; ")
        assert smtlib.recheck(text, use_binary=use_binary) == answer, (v.property, answer)


def test_replay_and_differs() -> None:
    sides = {"f": lambda p: p["x"] % 4, "g": lambda p: p["x"] & 3}
    assert not differs(replay(sides, {"x": 13}))
    with pytest.raises(ReplayFailure):
        replayed_counterexample(sides, {"x": 13})
    cx = replayed_counterexample({"f": lambda p: p["x"] % 6, "g": lambda p: p["x"] & 7}, {"x": 30})
    assert cx.inputs["x"] == 6  # smallest x with x % 6 != x & 7
    assert cx.sides == {"f": 0, "g": 6}


def test_minimize_alive2_style() -> None:
    assert minimize({"lane": 29, "warp": 3}, lambda p: p["lane"] & 4 != 0) == {"lane": 4, "warp": 0}
    assert minimize({"a": 100, "b": 77}, lambda p: p["a"] + p["b"] >= 50) in ({"a": 50, "b": 0}, {"a": 0, "b": 50})
    assert minimize({"a": 5}, lambda p: False) == {"a": 5}  # precondition fails: unchanged


def test_counterexamples_are_minimised() -> None:
    L = LL.from_bases({"register": [[1], [2]], "lane": [[4], [8], [0]]}, ["dim0"])
    for m in ("f2", "exhaustive", "smt"):
        v = P.injective(L, method=m)
        ins = dict(v.counterexample.inputs)
        assert sorted([ins["lane"], ins["lane'"]]) == [0, 4] and ins["register"] == ins["register'"] == 0
