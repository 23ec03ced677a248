"""Benchmark: index-code equivalence proofs (bit-vectors vs LEGO-style integers) and simplification.

For swizzle code (seed 000, definition 4.11) and tiling code at 16, 24, 32
and 48 input bits (a 2^(b/2) x 2^(b/2) tile):

* ``bv layout``: :func:`code_equals_layout` against the linear layout, Z3
  over bit-vectors (method ``smt``);
* ``bv code``: :func:`code_equals_code` against the derived reference
  expression (bit-vectors);
* ``int (LEGO-style)``: the same code == reference claim over integers
  (QF_NIA: ``div``/``mod``, XOR as an ``int2bv``/``bv2int`` round trip),
  the encoding a LEGO-style integer pipeline would use; ratio = int / bv.

Simplification: operation counts of the derived expressions before and after
our range-aware simplifier, and after ``sympy.simplify``.

Run: ``python3 benchmarks/bench_index.py [--timeout 10]``; writes
``benchmarks/results/bench_index.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import sympy as sp
import z3

from llverify.index.derive import derive, variable_ranges
from llverify.index.expr import count_ops, to_code, to_native
from llverify.index.simplify import simplify
from llverify.layout import LinearLayout
from llverify.prove.code import code_equals_code, code_equals_layout
from llverify.indexcode.bitvector import Z3Algebra
from llverify.indexcode.interpret import interpret
from llverify.indexcode.parse import parse_code


def swizzled(rows: int, cols: int, vec: int, pp: int, mp: int) -> LinearLayout:
    off = [[0, 1 << k] for k in range(cols.bit_length() - 1)]
    off += [[1 << k, (vec * (((1 << k) // pp) % mp)) % cols] for k in range(rows.bit_length() - 1)]
    return LinearLayout([("offset", off)], [("dim0", rows), ("dim1", cols)])


def tiled(rows: int, cols: int, t: int) -> LinearLayout:
    """Row-major t x t tiles, tiles row-major: offset = tile-inner col, inner row, outer col, outer row."""
    lt = t.bit_length() - 1
    off = [[0, 1 << k] for k in range(lt)] + [[1 << k, 0] for k in range(lt)]
    off += [[0, t << k] for k in range(cols.bit_length() - 1 - lt)] + [[t << k, 0] for k in range(rows.bit_length() - 1 - lt)]
    return LinearLayout([("offset", off)], [("dim0", rows), ("dim1", cols)])


def cases(bits: int):
    n = 1 << (bits // 2)
    yield ("swizzle", swizzled(n, n, 8, 1, 8),
           f"(((row / 1) % 8) ^ (col / 8)) * 8 + col % 8 + row * {n}")
    t = 16
    yield ("tiling", tiled(n, n, t),
           f"(row / {t}) * {t * n} + (col / {t}) * {t * t} + (row % {t}) * {t} + col % {t}")


class Z3IntAlgebra(Z3Algebra):
    """LEGO-style: index code over Z3 integers (floor ``div``/``mod``; XOR through an int2bv round trip).

    Every value is a mathematical integer and nothing wraps or faults: the model of an integer pipeline,
    sound here only because every value is non-negative and no divisor is negative.
    """

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def var(self, value, t):
        return value

    def const(self, value, t):
        return z3.IntVal(value)

    def convert(self, x, frm, to):
        return x

    def bitwise(self, op, a, b, t):
        x, y = z3.Int2BV(a, self.width), z3.Int2BV(b, self.width)
        return z3.BV2Int({"^": x ^ y, "|": x | y, "&": x & y}[op])

    def floor_div(self, a, b, t):
        return a / b  # Z3 Int div: floor for positive divisors (all divisors here are)

    trunc_div = floor_div

    def floor_mod(self, a, b, t):
        return a % b

    trunc_mod = floor_mod

    def compare(self, op, a, b, t):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]

    def boolean(self, c, t):
        return z3.If(c, z3.IntVal(1), z3.IntVal(0))

    def fault_condition(self, cond, path):
        return None  # an integer model has no undefined behaviour


def int_encoding(code: str, ref: str, ranges: dict[str, int], timeout_s: float) -> tuple[str, float]:
    """LEGO-style: both sides over Z3 integers (the one interpreter with :class:`Z3IntAlgebra`)."""
    vars_ = {v: z3.Int(v) for v in ranges}
    algebra = Z3IntAlgebra(max(r.bit_length() for r in ranges.values()) * 2 + 2)

    def go(text: str, lang: str):
        return interpret(parse_code(text, lang), vars_, algebra).value

    s = z3.Solver()
    s.set("timeout", int(timeout_s * 1000))
    for v, r in ranges.items():
        s.add(vars_[v] >= 0, vars_[v] < r)
    s.add(go(code, "c") != go(ref, "python"))
    t0 = time.perf_counter()
    res = s.check()
    dt = time.perf_counter() - t0
    return ("proved" if res == z3.unsat else "refuted" if res == z3.sat else "unknown"), dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=10.0, help="per-query timeout of the integer baseline (s)")
    ap.add_argument("--bits", type=int, nargs="*", default=[16, 24, 32, 48])
    args = ap.parse_args()
    rows = []
    print(f"{'case':8} {'bits':>4} | {'bv layout':>14} | {'bv code':>14} | {'int (LEGO-style)':>22} | {'int/bv':>7}")
    for bits in args.bits:
        for name, L, code in cases(bits):
            n = L.out_dim_size("dim0")
            types = {"row": "uint64", "col": "uint64"}
            t0 = time.perf_counter()
            v1 = code_equals_layout(code, L, {"row": "dim0", "col": "dim1"}, "offset", types=types, method="smt")
            t_layout = time.perf_counter() - t0
            inv = L.invert()
            ref = simplify(derive(inv, "offset"), variable_ranges(inv)).expr
            ref_code = to_code(ref.xreplace({sp.Symbol("dim0", integer=True): sp.Symbol("row", integer=True),
                                             sp.Symbol("dim1", integer=True): sp.Symbol("col", integer=True)}))
            t0 = time.perf_counter()
            v2 = code_equals_code(code, ref_code, {"row": n, "col": n}, lang="c", lang_b="python", types=types,
                                  types_b={}, method="smt")
            t_code = time.perf_counter() - t0
            st_int, t_int = int_encoding(code, ref_code, {"row": n, "col": n}, args.timeout)
            ratio = t_int / t_code if t_code > 0 else float("nan")
            print(f"{name:8} {bits:>4} | {v1.status:>7} {t_layout:6.3f}s | {v2.status:>7} {t_code:6.3f}s | "
                  f"{st_int:>8} {t_int:8.3f}s{' (timeout)' if st_int == 'unknown' else '':>5} | {ratio:7.1f}")
            rows.append({"case": name, "bits": bits, "code": code, "reference": ref_code,
                         "bv_layout": {"status": v1.status, "seconds": t_layout},
                         "bv_code": {"status": v2.status, "seconds": t_code},
                         "int_lego_style": {"status": st_int, "seconds": t_int, "timeout": args.timeout},
                         "int_over_bv": ratio})
    print()
    print(f"{'simplification':28} {'derived':>8} {'ours':>6} {'sympy.simplify':>15} {'ours s':>7} {'sympy s':>8}")
    simp_rows = []
    for name, L, _ in cases(32):
        inv = L.invert()
        raw = derive(inv, "offset")
        t0 = time.perf_counter()
        ours = simplify(raw, variable_ranges(inv))
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        sym_simplified = sp.simplify(to_native(raw))
        t_sym = time.perf_counter() - t0
        print(f"{name + ' inverse (32 bits)':28} {count_ops(raw):>8} {ours.ops_after:>6} {count_ops(sym_simplified):>15} "
              f"{t_ours:7.2f} {t_sym:8.2f}")
        simp_rows.append({"case": name, "derived_ops": count_ops(raw), "ours_ops": ours.ops_after,
                          "sympy_simplify_ops": count_ops(sym_simplified), "ours_seconds": t_ours,
                          "sympy_seconds": t_sym, "ours": to_code(ours.expr), "sympy": str(sym_simplified)})
    from llverify.index.lego import GroupBy, RegP, TileBy
    for label, g in [("LEGO TileBy 6x6", GroupBy([6, 6], TileBy((2, 2), (3, 3)))),
                     ("LEGO tiled A (3,5,16,8)", GroupBy([3, 5, 16, 8], RegP([3, 5, 16, 8], [0, 2, 1, 3])))]:
        raw = g.apply_expr()
        t0 = time.perf_counter()
        ours = simplify(raw, g.ranges())
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        sym_simplified = sp.simplify(to_native(raw))
        t_sym = time.perf_counter() - t0
        print(f"{label:28} {count_ops(raw):>8} {ours.ops_after:>6} {count_ops(sym_simplified):>15} "
              f"{t_ours:7.2f} {t_sym:8.2f}")
        simp_rows.append({"case": label, "derived_ops": count_ops(raw), "ours_ops": ours.ops_after,
                          "sympy_simplify_ops": count_ops(sym_simplified), "ours_seconds": t_ours,
                          "sympy_seconds": t_sym, "ours": to_code(ours.expr), "sympy": str(sym_simplified)})
    out = Path(__file__).parent / "results"
    out.mkdir(exist_ok=True)
    (out / "bench_index.json").write_text(json.dumps(
        {"z3": z3.get_version_string(), "sympy": sp.__version__, "proofs": rows, "simplification": simp_rows},
        indent=2))
    print(f"\nwrote {out / 'bench_index.json'}")


if __name__ == "__main__":
    main()
