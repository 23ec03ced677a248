"""Benchmark the codegen algorithms (issue 5).

1. Bank conflicts: closed form (lemma 9.4, F2 ranks) vs the brute-force
   simulator, 2^10 .. 2^20 elements (f32 row-major tile read by lanes down a
   column with 4-wide vectors, 4 warps); ratio and identical counts.
2. Optimal swizzle construction for transposes of square f16 tiles up to 256x256.
3. Time to prove each plan.
4. Shape-op proofs: F2 (bit maps composed with layouts) vs exhaustive, 2^10 .. 2^24 slots.
5. Optimal swizzle vs Triton's dot-operand swizzle heuristic (llverify's re-implementation,
   llverify.codegen.triton_swizzle; the wheel does not expose Triton's choice) on zoo pairs:
   wavefronts one warp spends storing (write) and loading (read) its part of the tile.

Prints a table and writes benchmarks/results/bench_codegen.json.
Run: ``python3 benchmarks/bench_codegen.py``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from llverify.codegen.bank_sim import simulate_wavefronts  # noqa: E402
from llverify.codegen.banks import bank_wavefronts  # noqa: E402
from llverify.codegen.broadcast import broadcast_predicate  # noqa: E402
from llverify.codegen.conversion import convert  # noqa: E402
from llverify.codegen.gather import gather_plan  # noqa: E402
from llverify.codegen.shape_ops import infer_shape_op  # noqa: E402
from llverify.codegen.shuffle import shuffle_plan  # noqa: E402
from llverify.codegen.swizzle import optimal_swizzle  # noqa: E402
from llverify.codegen.common import remove_broadcast_registers  # noqa: E402
from llverify.codegen.triton_swizzle import triton_mma_v2_operand_swizzle  # noqa: E402
from llverify.hw import build  # noqa: E402
from llverify.layout import LinearLayout as LL  # noqa: E402
from llverify.prove import (plan_banks, plan_broadcast, plan_conversion, plan_gather,  # noqa: E402
                           plan_shape_ops, plan_shuffle, plan_swizzle)


def timeit(fn, reps=5):
    ts = []
    out = None
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), out


def tile_wavefronts(access, S, bw, max_vec=None):
    """Wavefronts one warp spends on its whole part of the tile (per instruction x instructions)."""
    rep = bank_wavefronts(access, S, bw, max_vec)
    return rep.wavefronts * (remove_broadcast_registers(access).in_dim_size("register") // rep.vector.elems)


def tile(rows_bits, cols_bits, vec_bits, lanes_down_column, n_warp_bits=2):
    """(access, shared) for a [2^r, 2^c] tile; vector along dim1; lanes down dim0 or along dim1."""
    reg = [[0, 1 << i] for i in range(vec_bits)]
    col, row = vec_bits, 0
    lane = []
    for _ in range(5):
        if lanes_down_column and row < rows_bits or col >= cols_bits:
            lane.append([1 << row, 0]); row += 1
        else:
            lane.append([0, 1 << col]); col += 1
    warp = []
    for _ in range(n_warp_bits):
        if row < rows_bits:
            warp.append([1 << row, 0]); row += 1
        elif col < cols_bits:
            warp.append([0, 1 << col]); col += 1
    while col < cols_bits:
        reg.append([0, 1 << col]); col += 1
    while row < rows_bits:
        reg.append([1 << row, 0]); row += 1
    acc = LL.from_bases({"register": reg, "lane": lane, "warp": warp, "block": []}, ["dim0", "dim1"])
    sh = LL.from_bases({"offset": [[0, 1 << i] for i in range(cols_bits)] + [[1 << i, 0] for i in range(rows_bits)]},
                       ["dim0", "dim1"])
    return acc, sh


def main() -> None:
    res: dict = {"banks": [], "swizzle": [], "proofs": []}
    print("Bank conflicts: formula vs brute-force simulator (f32, 128-bit vectors, lanes down a column)")
    print(f"{'elements':>10} {'formula ms':>11} {'simulator ms':>13} {'ratio':>8} {'wavefronts':>11} {'same':>5}")
    for bits in range(10, 21, 2):
        r = bits // 2
        acc, sh = tile(r, bits - r, 2, True)
        tf, rep = timeit(lambda: bank_wavefronts(acc, sh, 32))
        ts, sim = timeit(lambda: simulate_wavefronts(acc, sh, 32, rep.vector), reps=3 if bits < 18 else 1)
        same = sim.max_wavefronts == sim.min_wavefronts == rep.wavefronts
        print(f"{1 << bits:>10} {tf * 1e3:>11.3f} {ts * 1e3:>13.2f} {ts / tf:>8.1f} {rep.wavefronts:>11} {str(same):>5}")
        res["banks"].append({"elements": 1 << bits, "formula_s": tf, "simulator_s": ts, "ratio": ts / tf,
                             "wavefronts": rep.wavefronts, "identical": same})
    print("\nOptimal swizzle construction (f16 transpose: A vectors along dim1, B along dim0)")
    print(f"{'tile':>10} {'ms':>9} {'vec':>4} {'write wf':>9} {'read wf':>8}")
    for n in (16, 32, 64, 128, 256):
        nb = n.bit_length() - 1
        A, _ = tile(nb, nb, 3, False)
        Bt, _ = tile(nb, nb, 3, False)
        B = Bt.transpose_outs(["dim1", "dim0"]).rename_out_dim("dim0", "tmp").rename_out_dim("dim1", "dim0") \
            .rename_out_dim("tmp", "dim1")
        t, p = timeit(lambda: optimal_swizzle(A, B, 16), reps=3)
        print(f"{f'{n}x{n}':>10} {t * 1e3:>9.2f} {p.vector_elems:>4} {p.write_wavefronts:>9} {p.read_wavefronts:>8}")
        res["swizzle"].append({"tile": n, "seconds": t, "vector_elems": p.vector_elems,
                               "write_wavefronts": p.write_wavefronts, "read_wavefronts": p.read_wavefronts})
    print("\nTime to prove each plan")
    A64, sh64 = tile(6, 6, 2, False)
    B64, _ = tile(6, 6, 2, True)
    sA = LL.from_bases({"register": [[1]], "lane": [[2], [4], [8], [16], [32]], "warp": [], "block": []}, ["dim0"])
    sB = LL.from_bases({"register": [[32]], "lane": [[1], [2], [4], [8], [16]], "warp": [], "block": []}, ["dim0"])
    L = LL.from_bases({"register": [[0, 1], [1, 0]], "lane": [[0, 2], [0, 4], [2, 0], [4, 0], [8, 0]],
                       "warp": [[16, 0]], "block": []}, ["dim0", "dim1"])
    cases = [
        ("conversion (64x64)", lambda: plan_conversion.prove_conversion_plan(convert(A64, B64))),
        ("shuffle (64 elems)", lambda: plan_shuffle.prove_shuffle_plan(shuffle_plan(sA, sB))),
        ("bank count (64x64)", lambda: plan_banks.prove_bank_count(B64, sh64, 32)),
        ("optimal swizzle (64x64 f32)", lambda: plan_swizzle.prove_optimal_swizzle(A64, B64, 32)),
        ("broadcast store", lambda: plan_broadcast.prove_broadcast_store(broadcast_predicate(L))),
        ("gather", lambda: plan_gather.prove_gather(gather_plan(L, 1))),
        ("shape op (trans, f2)", lambda: plan_shape_ops.prove_shape_op(infer_shape_op("trans", L, perm=[1, 0]))),
        ("shape op (trans, exhaustive)", lambda: plan_shape_ops.prove_shape_op(infer_shape_op("trans", L, perm=[1, 0]),
                                                                     method="exhaustive")),
    ]
    print(f"{'plan':>28} {'ms':>9} {'status':>8} {'method':>11}")
    for name, fn in cases:
        t, v = timeit(fn, reps=3)
        print(f"{name:>28} {t * 1e3:>9.2f} {v.status:>8} {str(v.method):>11}")
        res["proofs"].append({"plan": name, "seconds": t, "status": v.status, "method": v.method})
    print("\nShape-op proof (reshape of a blocked layout): F2 vs exhaustive")
    print(f"{'slots':>10} {'f2 ms':>9} {'exhaustive ms':>14} {'ratio':>8} {'f2':>7} {'exh':>8}")
    res["shape_ops"] = []
    for bits in (10, 14, 18, 24):
        r = bits // 2
        big = build("blocked", [1 << r, 1 << (bits - r)], size_per_thread=[2, 4], threads_per_warp=[4, 8],
                    warps_per_cta=[4, 1], order=[1, 0])
        plan = infer_shape_op("reshape", big, shape=[1 << (bits - 2), 4])
        tf, vf = timeit(lambda: plan_shape_ops.prove_shape_op(plan), reps=3)
        if bits <= 18:
            te, ve = timeit(lambda: plan_shape_ops.prove_shape_op(plan, limit=1 << 20, method="exhaustive"), reps=1)
            te_s, ve_s = f"{te * 1e3:>14.1f}", ve.status
            ratio = f"{te / tf:>8.0f}"
        else:
            te, te_s, ve_s, ratio = None, f"{'(refused)':>14}", plan_shape_ops.prove_shape_op(plan, method="exhaustive").status, f"{'-':>8}"
        print(f"{1 << bits:>10} {tf * 1e3:>9.2f} {te_s} {ratio} {vf.status:>7} {ve_s:>8}")
        res["shape_ops"].append({"slots": 1 << bits, "f2_s": tf, "exhaustive_s": te, "f2": vf.status,
                                 "exhaustive": ve_s})
    print("\nOptimal swizzle vs Triton's dot-operand heuristic (llverify re-implementation), f16 unless noted")
    print(f"{'pair':>34} {'ours w+r':>9} {'heur w+r':>9} {'heur params':>22}")
    res["vs_triton_heuristic"] = []
    for M, N, nw, bw in ((64, 64, 4, 16), (128, 64, 8, 16), (64, 64, 4, 8)):
        kw = max(1, 32 // bw)
        par = {"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [nw, 1], "instr_shape": [16, 8]}
        srcs = [("blocked_row", build("blocked", [M, N], size_per_thread=[1, 8], threads_per_warp=[4, 8],
                                      warps_per_cta=[nw, 1], order=[1, 0]), [1, 0]),
                ("blocked_col", build("blocked", [M, N], size_per_thread=[8, 1], threads_per_warp=[8, 4],
                                      warps_per_cta=[1, nw], order=[0, 1]), [0, 1])]
        for (sn, A, order), oi in [(s, o) for s in srcs for o in (0, 1)]:
            B = build("dot_operand", [M, N], operand_index=oi, parent=par, k_width=kw)
            p = optimal_swizzle(A, B, bw)
            tri = triton_mma_v2_operand_swizzle(oi, [M, N], order, bw, kw)
            ours = tile_wavefronts(A, p.layout, bw, p.vector_elems) + tile_wavefronts(B, p.layout, bw, p.vector_elems)
            theirs = tile_wavefronts(A, tri.layout, bw) + tile_wavefronts(B, tri.layout, bw)
            name = f"{sn}->dot{'ab'[oi]} {M}x{N} {bw}b"
            pr = tri.params
            print(f"{name:>34} {ours:>9} {theirs:>9} {str((pr['vec'], pr['per_phase'], pr['max_phase'])):>22}")
            res["vs_triton_heuristic"].append({"pair": name, "ours": ours, "heuristic": theirs, "params": pr})
    out = os.path.join(os.path.dirname(__file__), "results", "bench_codegen.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=2)
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
