"""llverify's C index-code semantics against gcc with UBSan (issue 18 item 3).

Random small C expressions in the supported subset (int32/uint32/int64/uint64 variables, literals with C's
suffixes, ``+ - * / % << >> & | ^``, unary ``- ~``, casts) are compiled in one batch into one C program
(one function per expression; argv picks the expression and the variable values, so nothing is a
compile-time constant), with ``-fsanitize=undefined -fno-sanitize-recover=all``.  Each (expression,
point) runs as its own process: UBSan's "runtime error" ends it, or it prints the value.  llverify's
:func:`evaluate_point` must agree: a fault exactly where UBSan reports one, and the same value (in the
result's C type) everywhere else.

Known, documented differences (true UB per the C standard that gcc's UBSan does not report) are in
``UBSAN_SILENT`` and checked to be exactly that: llverify says UB, gcc runs silently.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import pytest

from llverify.indexcode.evaluate import evaluate_point
from llverify.indexcode.parse import parse_code

GCC = shutil.which("gcc")
pytestmark = pytest.mark.skipif(GCC is None, reason="gcc is not installed")

CFLAGS = ["-std=c11", "-O0", "-fsanitize=undefined", "-fno-sanitize-recover=all", "-w"]
TYPES = {"int32": "int32_t", "uint32": "uint32_t", "int64": "int64_t", "uint64": "uint64_t"}
BITS = {"int32": (32, True), "uint32": (32, False), "int64": (64, True), "uint64": (64, False)}
CASTS = ["int", "unsigned", "long long", "unsigned long long", "int32_t", "uint32_t", "int64_t", "uint64_t"]
LITERALS = ["0", "1", "2", "3", "7", "31", "32", "33", "63", "64", "65", "255", "0x7fffffff", "2147483647",
            "2147483648", "0x80000000", "4294967295", "4294967295u", "0xffffffff", "1u", "1ll", "1ull", "1l",
            "8u", "-1", "9223372036854775807", "0x8000000000000000", "18446744073709551615u", "0xffffffffffffffff",
            "1LL", "16ULL", "0b101", "017"]
BINOPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]
VARS = ("x", "y", "z")


def _edge_values(t: str) -> list[int]:
    bits, signed = BITS[t]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    vals = [0, 1, 2, 3, 31, 32, 63, 64, hi, hi - 1, (hi + 1) // 2, 1 << 30, 1 << 31]
    if signed:
        vals += [-1, -2, lo, lo + 1, -32, -(1 << 31)]
    return [v for v in vals if lo <= v <= hi]


def _random_value(rng: random.Random, t: str) -> int:
    bits, signed = BITS[t]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    r = rng.random()
    if r < 0.45:
        return rng.choice(_edge_values(t))
    if r < 0.75:
        return max(lo, min(hi, rng.randint(-70, 70)))
    return rng.randint(lo, hi)


def random_tree(rng: random.Random, depth: int) -> tuple:
    """("var", x) | ("lit", text) | ("cast", type, e) | ("un", op, e) | ("bin", op, a, b)."""
    if depth == 0 or rng.random() < 0.2:
        return ("var", rng.choice(VARS)) if rng.random() < 0.7 else ("lit", rng.choice(LITERALS))
    r = rng.random()
    if r < 0.12:
        return ("cast", rng.choice(CASTS), random_tree(rng, depth - 1))
    if r < 0.22:
        return ("un", rng.choice("-~"), random_tree(rng, depth - 1))
    return ("bin", rng.choice(BINOPS), random_tree(rng, depth - 1), random_tree(rng, depth - 1))


def render(t: tuple) -> str:
    """The expression as one C expression, fully parenthesised."""
    if t[0] in ("var", "lit"):
        return t[1]
    if t[0] == "cast":
        return f"(({t[1]})({render(t[2])}))"
    if t[0] == "un":
        return f"({t[1]}({render(t[2])}))"
    return f"({render(t[2])} {t[1]} {render(t[3])})"


def statements(t: tuple) -> tuple[list[str], str]:
    """The expression one operation per statement, every intermediate (literals too) in a volatile
    temporary: gcc can then neither fold constants nor narrow an operation under a truncating cast nor
    reassociate, so UBSan sees every operation C evaluates."""
    out: list[str] = []

    def go(n: tuple) -> str:
        if n[0] == "var":
            return n[1]
        if n[0] == "lit":
            e = n[1]
        elif n[0] == "cast":
            e = f"({n[1]}){go(n[2])}"
        elif n[0] == "un":
            e = f"{n[1]}{go(n[2])}"
        else:
            a, b = go(n[2]), go(n[3])
            e = f"{a} {n[1]} {b}"
        name = f"t{len(out)}"
        out.append(f"volatile __typeof__({e}) {name} = {e};")
        return name

    return out, go(t)


@dataclass
class Case:
    tree: tuple
    types: dict[str, str]
    points: list[dict[str, int]]

    @property
    def expr(self) -> str:
        return render(self.tree)


def random_cases(seed: int, n: int, points: int) -> list[Case]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        types = {v: rng.choice(list(TYPES)) for v in VARS}
        tree = random_tree(rng, rng.randint(1, 3))
        out.append(Case(tree, types, [{v: _random_value(rng, types[v]) for v in VARS} for _ in range(points)]))
    return out


def c_program(cases: list[Case], split: bool = True) -> str:
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "",
             "#define OUT(e) do { __typeof__(e) r_ = (e); "
             "int s_ = (__typeof__(e))-1 < 0; "
             "if (s_) printf(\"%d %d %lld\\n\", (int)sizeof(r_), s_, (long long)r_); "
             "else printf(\"%d %d %llu\\n\", (int)sizeof(r_), s_, (unsigned long long)r_); } while (0)", ""]
    for k, c in enumerate(cases):
        decl = " ".join(f"{TYPES[c.types[v]]} {v} = ({TYPES[c.types[v]]})strtoull(a[{i}], 0, 0);"
                        for i, v in enumerate(VARS))
        if split:
            stmts, last = statements(c.tree)
            body = " ".join(stmts) + f" OUT({last});"
        else:
            body = f"OUT({c.expr});"
        lines.append(f"static void f{k}(char **a) {{ {decl} (void)x; (void)y; (void)z; {body} }}")
    lines += ["", "int main(int argc, char **argv) {", "  if (argc < 5) return 2;", "  switch (atoi(argv[1])) {"]
    lines += [f"  case {k}: f{k}(argv + 2); break;" for k in range(len(cases))]
    lines += ["  default: return 2;", "  }", "  return 0;", "}"]
    return "\n".join(lines) + "\n"


def gcc_results(cases: list[Case], workdir: str, split: bool = True) -> list[list[tuple[str, object]]]:
    """Per case and point: ("ub", UBSan's message) or ("value", (bits, signed, int)).  ``split``: one
    operation per statement through volatile temporaries (see :func:`statements`), else one expression."""
    src = os.path.join(workdir, "cases.c")
    exe = os.path.join(workdir, "cases")
    with open(src, "w") as fh:
        fh.write(c_program(cases, split))
    subprocess.run([GCC, *CFLAGS, src, "-o", exe], check=True, capture_output=True, timeout=600)
    out = []
    for k, c in enumerate(cases):
        res = []
        for p in c.points:
            args = [str(p[v] & ((1 << 64) - 1)) for v in VARS]
            proc = subprocess.run([exe, str(k), *args], capture_output=True, text=True, timeout=20)
            if "runtime error" in proc.stderr:
                line = next(ln for ln in proc.stderr.splitlines() if "runtime error" in ln)
                res.append(("ub", line.split("runtime error: ", 1)[1]))
            else:
                assert proc.returncode == 0, (c.expr, proc.returncode, proc.stderr[-300:])
                size, signed, value = proc.stdout.split()
                res.append(("value", (int(size) * 8, signed == "1", int(value))))
        out.append(res)
    return out


def llverify_result(c: Case, point: dict[str, int]) -> tuple[str, object]:
    parsed = parse_code(c.expr, "c")
    value, fault = evaluate_point(parsed, {v: point[v] for v in parsed.variables},
                                  {v: c.types[v] for v in parsed.variables})
    return ("ub", fault) if fault is not None else ("value", value)


def compare(cases: list[Case], split: bool = True) -> tuple[int, list[tuple[str, dict, dict, object, object]]]:
    with tempfile.TemporaryDirectory() as d:
        expected = gcc_results(cases, d, split)
    diffs = []
    n = 0
    for c, per_point in zip(cases, expected):
        for p, (kind, got) in zip(c.points, per_point):
            n += 1
            mine = llverify_result(c, p)
            if kind == "ub":
                if mine[0] != "ub":
                    diffs.append((c.expr, c.types, p, ("ub", got), mine))
            elif mine[0] == "ub":
                diffs.append((c.expr, c.types, p, ("value", got), mine))
            else:
                bits, signed, v = got  # type: ignore[misc]
                if mine[1] != v:
                    diffs.append((c.expr, c.types, p, ("value", got), mine))
    return n, diffs


#: true UB (C11 6.5p5: "If an exceptional condition occurs during the evaluation of an expression (that is,
#: if the result is not mathematically defined or not in the range of representable values for its type),
#: the behavior is undefined") that gcc 12's UBSan does not report when the expression is compiled whole,
#: because gcc's front end rewrites it before instrumenting; llverify reports each.  Compiled one operation
#: per statement (volatile temporaries) gcc's UBSan reports every one of them, which confirms the verdict.
UBSAN_SILENT = [
    # constant folding: 255 + INT64_MAX is folded at compile time (a -Woverflow warning, no runtime check)
    (("cast", "int64_t", ("bin", ">>", ("bin", "+", ("lit", "255"), ("lit", "9223372036854775807")), ("var", "z"))),
     {"x": "int32", "y": "uint32", "z": "uint64"}, {"x": 69, "y": 2147483648, "z": 0},
     "col 18: signed overflow in '+' (int64)"),
    # narrowing: (uint32_t)(z + z) is rewritten to (uint32_t)z + (uint32_t)z, whose addition cannot overflow
    (("cast", "int32_t", ("cast", "uint32_t", ("bin", "+", ("var", "z"), ("var", "z")))),
     {"x": "uint32", "y": "uint32", "z": "int64"}, {"x": 0, "y": 0, "z": -9223372036854775807},
     "col 27: signed overflow in '+' (int64)"),
    # folding an operand away: z % 1u is 0, so 0 & (x * y) is folded to 0 and x * y never instrumented
    (("bin", "&", ("bin", "%", ("var", "z"), ("lit", "1u")), ("bin", "*", ("var", "x"), ("var", "y"))),
     {"x": "int64", "y": "int32", "z": "uint32"}, {"x": -4340016924716363795, "y": 31, "z": 0},
     "col 16: signed overflow in '*' (int64)"),
    # reassociation: (3 + x) - 2147483648u becomes x + (3 - 2147483648), which does not overflow at x = INT64_MIN
    (("bin", "+", ("bin", "-", ("bin", "+", ("lit", "3"), ("var", "x")), ("un", "-", ("lit", "0x80000000"))),
      ("var", "y")), {"x": "int64", "y": "uint64", "z": "int32"}, {"x": -(1 << 63), "y": 0, "z": 0},
     "col 11: signed overflow in '-' (int64)"),
]


def test_ub_that_gcc_ubsan_misses_in_a_whole_expression_is_reported_by_both_when_split() -> None:
    cases = [Case(tree, types, [point]) for tree, types, point, _ in UBSAN_SILENT]
    with tempfile.TemporaryDirectory() as d:
        whole = gcc_results(cases, d, split=False)
        split = gcc_results(cases, d, split=True)
    for c, w, sp, (_, _, point, fault) in zip(cases, whole, split, UBSAN_SILENT):
        assert w[0][0] == "value", (c.expr, w)  # UBSan silent on the expression as written
        assert sp[0][0] == "ub" and ("overflow" in sp[0][1]), (c.expr, sp)  # ... but it is UB
        assert llverify_result(c, point) == ("ub", fault)


def test_small_batch_agrees_with_gcc_ubsan() -> None:
    """150 random expressions at 3 points each, one operation per statement: value and UB-or-not agree."""
    cases = random_cases(seed=18, n=150, points=3)
    n, diffs = compare(cases)
    assert n == 450
    assert not diffs, "\n".join(map(repr, diffs[:20]))
    assert sum(1 for c in cases for p in c.points if llverify_result(c, p)[0] == "ub") > 20  # UB is exercised


def test_edge_cases_of_the_standard_agree_with_gcc_ubsan() -> None:
    """C11 6.5.5p6 (INT_MIN % -1 is UB with INT_MIN / -1), 6.5.7p3-4 (shift counts, 1 << 31 and negative left
    operands are UB; >> of a negative value is implementation-defined, not UB), 6.5.3.3 (-INT_MIN)."""
    i32, i64 = -(1 << 31), -(1 << 63)
    probes = [("x % y", "int32", "int32", i32, -1, True), ("x % y", "int64", "int64", i64, -1, True),
              ("x % y", "int32", "int64", i32, -1, False), ("x / y", "int64", "int32", i64, -1, True),
              ("x << y", "int32", "int32", 1, 31, True), ("x << y", "int32", "int32", 0, 31, False),
              ("x << y", "int32", "int32", -1, 0, True), ("x << y", "int64", "uint32", 1, 63, True),
              ("x >> y", "int32", "int32", -1, 31, False), ("x >> y", "uint32", "int32", 1, 32, True),
              ("x << y", "uint32", "uint64", 1, 1 << 40, True), ("x << y", "uint32", "int32", 1, -1, True),
              ("-x", "int32", "int32", i32, 0, True), ("~x", "int32", "int32", i32, 0, False),
              ("x * y", "int32", "int32", -1, i32, True), ("x % y", "uint32", "int32", 7, 0, True),
              ("x << y", "uint32", "int32", 1 << 31, 0, False), ("x << y", "int32", "int32", 1, 30, False)]
    cases = [Case(_parse_tree(e), {"x": tx, "y": ty, "z": "int32"}, [{"x": a, "y": b, "z": 0}])
             for e, tx, ty, a, b, _ in probes]
    n, diffs = compare(cases)
    assert n == len(probes) and not diffs, diffs
    assert [llverify_result(c, c.points[0])[0] == "ub" for c in cases] == [ub for *_, ub in probes]


def _parse_tree(e: str) -> tuple:
    x, op, y = e.split() if " " in e else (None, e[0], e[1:])
    if x is None:
        return ("un", op, ("var", y))
    return ("bin", op, ("var", x), ("var", y))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_big_batches_agree_with_gcc_ubsan(seed: int) -> None:
    cases = random_cases(seed=1000 + seed, n=1500, points=4)
    n, diffs = compare(cases)
    assert n == 6000
    assert not diffs, "\n".join(map(repr, diffs[:20]))
