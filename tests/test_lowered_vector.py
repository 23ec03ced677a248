"""The every-thread evaluator (``llverify/lowered/vector.py``) is a proof method (exhaustive over thread ids), so
it is checked against both other semantics: the scalar interpreter and the Z3 encoding, on random straight-line
LLVM code (every integer op with its flags, casts, select/icmp, getelementptr, warp broadcasts) and on every
access of every sample.  A mutated evaluator must be caught by these tests (the mutant test at the end)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from llverify.lowered import vector
from llverify.lowered.orbits import phi_range
from llverify.lowered.llir import parse_llir
from llverify.lowered.concrete import Concrete
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.vector import Threads

DATA = Path(__file__).parent / "data"
_BIN = ["add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem", "srem"]
_FLAGS = {"add": ["nuw", "nsw"], "sub": ["nuw", "nsw"], "mul": ["nuw", "nsw"], "shl": ["nuw", "nsw"],
          "lshr": ["exact"], "ashr": ["exact"], "udiv": ["exact"], "or": ["disjoint"]}
_PRED = ["eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"]


def random_program(rng: random.Random, n: int = 14) -> tuple[str, list[tuple[str, int]]]:
    """Straight-line IR over the thread id: returns the text and every value (name, width) it defines."""
    lines = ["  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
             "  %w = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %t, i32 3, i32 31)"]
    vals: list[tuple[str, int]] = [("%t", 32), ("%w", 32)]

    def operand(w: int) -> str:
        same = [v for v, vw in vals if vw == w]
        if same and rng.random() < 0.75:
            return rng.choice(same)
        return str(rng.choice([0, 1, 2, 3, 5, 7, 31, 32, 255, -1, -8, 1 << (w - 1)]) if w > 1 else rng.choice([0, 1]))

    for k in range(n):
        name = f"%v{k}"
        r = rng.random()
        if r < 0.55:
            w = rng.choice([8, 16, 32, 32, 64])
            if not any(vw == w for _, vw in vals):
                src = rng.choice([v for v, vw in vals if vw > 1])
                sw = dict(vals)[src]
                op = "trunc" if sw > w else "zext" if sw < w else None
                if op is None:
                    continue
                lines.append(f"  {name} = {op} i{sw} {src} to i{w}")
                vals.append((name, w))
                continue
            op = rng.choice(_BIN)
            flags = " ".join(f for f in _FLAGS.get(op, []) if rng.random() < 0.3)
            a, b = operand(w), operand(w)
            if op in ("shl", "lshr", "ashr") and rng.random() < 0.7:
                b = str(rng.randrange(w + 2))
            lines.append(f"  {name} = {op} {flags + ' ' if flags else ''}i{w} {a}, {b}")
            vals.append((name, w))
        elif r < 0.7:
            src = rng.choice([v for v, vw in vals if vw > 1])
            sw = dict(vals)[src]
            w = rng.choice([x for x in (8, 16, 32, 64) if x != sw])
            op = "trunc" if w < sw else rng.choice(["zext", "sext"])
            lines.append(f"  {name} = {op} i{sw} {src} to i{w}")
            vals.append((name, w))
        elif r < 0.8:
            w = rng.choice([8, 32, 64])
            if not any(vw == w for _, vw in vals):
                continue
            lines.append(f"  {name} = icmp {rng.choice(_PRED)} i{w} {operand(w)}, {operand(w)}")
            vals.append((name, 1))
        elif r < 0.9:
            conds = [v for v, vw in vals if vw == 1]
            if not conds:
                continue
            w = rng.choice([32, 64])
            lines.append(f"  {name} = select i1 {rng.choice(conds)}, i{w} {operand(w)}, i{w} {operand(w)}")
            vals.append((name, w))
        else:
            w = rng.choice([16, 32, 64])
            if not any(vw == w for _, vw in vals):
                continue
            ty = rng.choice(["i8", "half", "<4 x i32>", "[4 x i8]"])
            base = rng.choice(["@global_smem"] + [v for v, vw in vals if v.startswith("%g")])
            lines.append(f"  {name.replace('%v', '%g')} = getelementptr {ty}, ptr addrspace(3) {base}, i{w} {operand(w)}")
            vals.append((name.replace("%v", "%g"), 32))
    return "define void @k() {\n" + "\n".join(lines) + "\n}\n", vals


def _agree_with_interpreter(text: str, vals: list[tuple[str, int]], threads: int) -> None:
    fn = parse_llir(text).functions[0]
    vec = Threads(fn, threads)
    for name, w in vals:
        v = vec.value(name, w)
        for t in range(threads):
            want = Concrete(fn, t, {}).value(name, w)
            got = None if v.none[t] else int(v.vals[t])
            assert got == want, (text, name, t, got, want)


@pytest.mark.parametrize("seed", range(60))
def test_random_code_agrees_with_the_scalar_interpreter(seed: int) -> None:
    text, vals = random_program(random.Random(seed))
    _agree_with_interpreter(text, vals, 64)


@pytest.mark.parametrize("seed", range(60, 75))
def test_random_code_agrees_with_z3(seed: int) -> None:
    """Poison exactly where Z3's poison condition holds; the value Z3's term has elsewhere."""
    import z3

    text, vals = random_program(random.Random(seed))
    fn = parse_llir(text).functions[0]
    vec, sym = Threads(fn, 64), Symbolic(fn, 64, phi_range)
    for name, w in vals:
        v, s = vec.value(name, w), sym.value(name, w)
        for t in (0, 1, 5, 31, 32, 63):
            sub = (sym.tid, z3.BitVecVal(t, 32))
            poison = z3.is_true(z3.simplify(z3.substitute(s.poison, sub)))
            assert bool(v.none[t]) == poison, (text, name, t)
            if not poison:
                assert int(v.vals[t]) == z3.simplify(z3.substitute(s.term, sub)).as_long(), (text, name, t)


def test_every_sample_address_agrees_with_the_interpreter_and_z3_free_sets() -> None:
    """Every access pointer of every sample: the free variables are Z3's, and the value at every thread (free
    variables unset, and set to 0) is the scalar interpreter's."""
    from llverify.ttgir.reader import parse_module

    n = 0
    for ttgir in sorted(DATA.glob("lowered*/*.ttgir"))[::3]:
        module = parse_module(ttgir.read_text(), ttgir.name)
        threads = module.num_warps * module.threads_per_warp
        for fn in parse_llir(ttgir.with_suffix(".llir").read_text()).functions:
            sym, vec = Symbolic(fn, threads, phi_range), Threads(fn, threads)
            for a in fn.accesses[::4]:
                free = sym.value(a.pointer, 32).free
                vfree = vec.value(a.pointer, 32).free
                if any(".urem" in f for f in vfree):
                    # `urem v, C` of a free `v`: the vector evaluator makes the remainder its own free variable of
                    # domain [0, C) (llverify.lowered.remainder), Z3 keeps `v` (and a phi's choice): two encodings
                    # of one value, with different names; the remainder's base must be one of Z3's variables
                    # (their agreement is tests/test_lowered_tma.py's, against the recurrence)
                    assert {f.split(".urem")[0] for f in vfree} <= free, (vfree, free)
                    continue
                assert vfree == free
                for given in ({}, {f: 0 for f in free}):
                    v = Threads(fn, threads, given).value(a.pointer, 32)
                    for t in range(0, threads, 7):
                        got = None if v.none[t] else int(v.vals[t])
                        assert got == Concrete(fn, t, given).value(a.pointer, 32)
                        n += 1
    assert n > 1000


def test_a_mutated_evaluator_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutant: the evaluator forgets ``nsw`` overflow (no poison).  The random differential finds it."""
    real = vector._binary

    def forgetful(op, flags, a, b, w):  # noqa: ANN001, ANN202
        return real(op, flags - {"nsw"}, a, b, w)

    monkeypatch.setattr(vector, "_binary", forgetful)
    with pytest.raises(AssertionError):
        for seed in range(60):
            text, vals = random_program(random.Random(seed))
            _agree_with_interpreter(text, vals, 64)


def test_warp_broadcast_is_lane_k_of_the_same_warp() -> None:
    fn = parse_llir("define void @k() {\n  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                    "  %q = lshr i32 %t, 5\n"
                    "  %w = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %t, i32 3, i32 31)\n}\n").functions[0]
    v = Threads(fn, 128).value("%w", 32)
    assert np.array_equal(v.vals, (np.arange(128) // 32 * 32 + 3).astype(np.uint64))
