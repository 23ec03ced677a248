"""``llvm.bitreverse.iN`` in the lowered-code semantics (``llverify/lowered/decode.py``; ``concrete.py``,
``symbolic.py``, ``vector.py``): bit ``i`` of the result is bit ``N - 1 - i`` of the operand (LLVM language
reference).  Triton 3.9's ``tl.sort`` / ``tl.topk`` compute their bitonic masks with ``llvm.bitreverse.i7``;
unmodelled, it left 20 ``in_bounds`` of the hunt's top-k kernels ``unknown`` (a free variable).

Checked: known values (from the definition, worked by hand) in all three interpreters; the interpreters agree
at every thread; an access in bounds only because the reversal is right is proved both exhaustively and by Z3,
one out of bounds only because of it is refuted at its least thread, replayed (with a kernel argument among
the inputs Z3 finds it and it stays ``unknown``, naming the argument, as every such failure); a wrong model (identity) is
caught by these tests, and on the second access it would have been a false proof.  The real top-k sample
(``tests/data/lowered_sort``) is proved with no unknown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3

from llverify.lowered import concrete, symbolic, vector
from llverify.lowered.concrete import Concrete
from llverify.lowered.llir import parse_llir
from llverify.lowered.orbits import phi_range
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.validate import validate, validate_texts
from llverify.lowered.vector import Threads
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data" / "lowered_sort"
MODULE = "module attributes {\"ttg.num-warps\" = 2 : i32, ttg.target = \"cuda:90\"} {\n}\n"

# (width, operand, result), worked by hand from the definition
KNOWN = [(7, 1, 64), (7, 3, 96), (7, 0b1010000, 0b0000101), (8, 0x01, 0x80), (8, 0x0F, 0xF0), (8, 0x12, 0x48),
         (16, 0x1234, 0x2C48), (32, 1, 0x80000000), (32, 0xF0000001, 0x8000000F), (1, 1, 1)]

CONSTANTS = "define void @k() {\n" + "\n".join(
    f"  %r{k} = tail call i{w} @llvm.bitreverse.i{w}(i{w} {x})" for k, (w, x, _) in enumerate(KNOWN)) + "\n}\n"

# 64 threads (2 warps): %x = tid (bit 6 always 0), %r = bitreverse.i7(%x); the store's offset is (%r & MASK) * 4.
# MASK = 1: bit 0 of %r is bit 6 of tid, always 0: offset 0, in bounds of 4 bytes (identity: 4 at odd threads).
# MASK = 64: bit 6 of %r is bit 0 of tid: offset 256 at odd threads (identity: bit 6 of tid, always 0).
# ARG = "and i32 %n, 0" puts a 32-bit kernel argument among the inputs (Z3 decides); "add i32 0, 0" does not.
STORE = """define ptx_kernel void @k(i32 %n) #0 {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %2 = ARG
  %3 = or i32 %1, %2
  %4 = trunc i32 %3 to i7
  %5 = tail call i7 @llvm.bitreverse.i7(i7 %4)
  %6 = and i7 %5, MASK
  %7 = zext i7 %6 to i32
  %8 = shl i32 %7, 2
  %9 = getelementptr i8, ptr addrspace(3) @global_smem, i32 %8
  store i32 0, ptr addrspace(3) %9, align 4
  ret void
}

attributes #0 = { "nvvm.reqntid"="64" }
"""
EXHAUSTIVE, SMT = "add i32 0, 0", "and i32 %n, 0"


def _store(mask: int, arg: str) -> str:
    return STORE.replace("MASK", str(mask)).replace("ARG", arg)


def _in_bounds(text: str, shared: int):
    (v,) = [f.finding.verdict for f in validate(parse_module(MODULE, "m"), parse_llir(text), shared)
            if f.finding.verdict.property == "in_bounds"]
    return v


def _identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wrong model: ``llvm.bitreverse`` as the identity, in every interpreter."""
    monkeypatch.setattr(concrete, "reverse_bits", lambda x, w: x)
    monkeypatch.setattr(symbolic, "reverse_term", lambda a: a)
    monkeypatch.setattr(vector, "_reverse", lambda a, w: a)


def check_known_values() -> None:
    fn = parse_llir(CONSTANTS).functions[0]
    vec, sym = Threads(fn, 4), Symbolic(fn, 4, phi_range)
    for k, (w, _, want) in enumerate(KNOWN):
        name = f"%r{k}"
        assert Concrete(fn, 0, {}).value(name, w) == want, (name, w)
        v = vec.value(name, w)
        assert not v.none.any() and set(v.vals.tolist()) == {want}, (name, w)
        assert z3.simplify(sym.value(name, w).term).as_long() == want, (name, w)


def check_interpreters_agree() -> None:
    """``bitreverse.i7`` / ``.i32`` of a thread-dependent value: the three interpreters agree at every thread."""
    text = ("define void @k() {\n  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
            "  %m = mul i32 %t, 40503\n  %a = trunc i32 %m to i7\n"
            "  %b = tail call i7 @llvm.bitreverse.i7(i7 %a)\n  %c = tail call i32 @llvm.bitreverse.i32(i32 %m)\n}\n")
    fn = parse_llir(text).functions[0]
    vec, sym = Threads(fn, 128), Symbolic(fn, 128, phi_range)
    for name, w in (("%b", 7), ("%c", 32)):
        v, s = vec.value(name, w), sym.value(name, w)
        for t in range(128):
            want = Concrete(fn, t, {}).value(name, w)
            assert not v.none[t] and int(v.vals[t]) == want, (name, t)
            assert z3.simplify(z3.substitute(s.term, (sym.tid, z3.BitVecVal(t, 32)))).as_long() == want, (name, t)
    # and the value is the reversal: bit i of %b is bit 6 - i of %a, bit i of %c is bit 31 - i of %m
    for t in range(128):
        m = t * 40503 % (1 << 32)
        b, c = int(vec.value("%b", 7).vals[t]), int(vec.value("%c", 32).vals[t])
        assert all((b >> i & 1) == (m >> (6 - i) & 1) for i in range(7)), t
        assert all((c >> i & 1) == (m >> (31 - i) & 1) for i in range(32)), t


def check_access_verdicts() -> None:
    for arg, method in ((EXHAUSTIVE, "exhaustive"), (SMT, "smt")):
        v = _in_bounds(_store(1, arg), 4)
        assert v.status == "proved" and v.method == method, (arg, v.message)
        v = _in_bounds(_store(64, arg), 4)
        if method == "smt":  # Z3 finds the odd threads, but every value of %n is a witness's: not refuted
            assert v.status == "unknown" and "%n:32" in v.message, v.message
            continue
        assert v.status == "refuted", (arg, v.message)
        inputs = dict(v.counterexample.inputs)
        tid = inputs.pop("tid")
        assert tid % 2 == 1
        replayed = Concrete(parse_llir(_store(64, arg)).functions[0], tid, inputs).value("%9", 32)
        assert replayed == 256


def test_known_values_in_every_interpreter() -> None:
    check_known_values()


def test_the_interpreters_agree_at_every_thread() -> None:
    check_interpreters_agree()


def test_an_access_is_proved_or_refuted_by_the_reversal() -> None:
    check_access_verdicts()


@pytest.mark.parametrize("check", [check_known_values, check_interpreters_agree, check_access_verdicts])
def test_identity_as_the_model_is_caught(monkeypatch: pytest.MonkeyPatch, check) -> None:  # noqa: ANN001
    _identity(monkeypatch)
    with pytest.raises(AssertionError):
        check()


def test_identity_as_the_model_would_be_a_false_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the wrong model the odd threads' offset 256 is never computed: ``proved`` (what the tests above
    exclude); with the right one it is refuted (``check_access_verdicts``)."""
    _identity(monkeypatch)
    for arg in (EXHAUSTIVE, SMT):
        assert _in_bounds(_store(64, arg), 4).status == "proved"


def test_the_topk_sample_has_no_unknown() -> None:
    """Triton 3.9's ``tl.topk`` for sm_89 (examples/hunt ``topk_rows``, 4 warps): 8 ``in_bounds`` went from
    ``unknown`` (``%mask``, an unmodelled ``llvm.bitreverse.i7``) to proved."""
    ttgir = DATA / "topk_rows-k8-cuda_89-w4.ttgir"
    llir = ttgir.with_suffix(".llir")
    assert "@llvm.bitreverse.i7(" in llir.read_text()
    shared = int(json.loads(ttgir.with_suffix(".json").read_text())["shared"])
    res = [f.finding.verdict for f in validate_texts(ttgir.read_text(), ttgir.name, llir.read_text(), llir.name, shared)]
    assert res and all(v.status == "proved" for v in res), [v.message for v in res if v.status != "proved"]
    assert sum(v.property == "in_bounds" for v in res) == 21
