"""Solver budgets: one Z3 entry point with a deterministic default rlimit.

Oracle: Z3 itself (rlimit 1 cannot decide a non-trivial bit-vector query) and
the documented constant ``bv.DEFAULT_RLIMIT``; the spec-quoting hint is
checked through the real CLI entry point.
"""
from __future__ import annotations

import subprocess
import sys

import z3

from llverify.hw import build
from llverify.prove import bv
from llverify.prove.code import code_equals_layout

MAP = {"row": "dim0", "col": "dim1"}
SWIZZLE = "(((row / 1) % 8) ^ (col / 8)) * 8 + col % 8 + row * 64"


def _swizzled():
    return build("swizzled_shared", shape=[64, 64], vec=8, per_phase=1, max_phase=8, order=[1, 0])


def test_solver_uses_the_deterministic_default_rlimit():
    s, lim = bv.solver()
    assert lim == bv.default_rlimit() == bv.DEFAULT_RLIMIT
    x = z3.BitVec("x", 32)
    s.add(x * x == 1 << 30, x & 1 == 1)  # odd squares are odd: unsat
    assert s.check() == z3.unsat


def test_solver_rlimit_one_is_unknown():
    s, lim = bv.solver(rlimit=1)
    x, y = z3.BitVecs("x y", 32)
    s.add(x * y == 12345, x > 3, y > 3)
    assert lim == 1 and s.check() == z3.unknown


def test_index_code_prover_uses_the_default_rlimit_not_a_wall_clock():
    v = code_equals_layout(SWIZZLE, _swizzled(), MAP, "offset", method="smt")
    assert v.status == "proved", v.message
    assert v.details["rlimit"] == bv.DEFAULT_RLIMIT


def test_index_code_prover_honours_rlimit_one():
    v = code_equals_layout(SWIZZLE, _swizzled(), MAP, "offset", method="smt", rlimit=1)
    assert v.status == "unknown" and "resource" in v.message, v.message
    assert v.details["rlimit"] == 1 and v.details["z3_version"] == z3.get_version_string()


def test_unquoted_ttg_value_gets_a_quoting_hint(tmp_path):
    spec = tmp_path / "a.yaml"
    spec.write_text("layouts:\n  a:\n    triton: #ttg.blocked<{sizePerThread = [1]}>\n    shape: [128]\n"
                    "checks:\n  - surjective: a\n")
    r = subprocess.run([sys.executable, "-m", "llverify.cli", "check", str(spec)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "a.yaml:3:" in r.stderr + r.stdout and "quote it" in r.stderr + r.stdout
    assert "Traceback" not in r.stderr
