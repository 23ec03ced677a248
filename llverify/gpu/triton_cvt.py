"""Triton's own conversions on the GPU against llverify's model (issue 17, part 2): the analysis side.

Input: what :mod:`llverify.gpu.triton_cvt_device` wrote on the GPU machine (per case: the output values,
the thread id holding each element after ``convert_layout``, the TTGIR and LLVM IR *of the Triton that ran
there*, the time) and Nsight Compute's CSV of the same kernels.  Per case:

* ``bit_exact``: every element arrived (from the device);
* ``placement_exact``: for every element, the thread that stored it holds it in llverify's model of the
  destination layout (the TTGIR's ``convert_layout`` result type, built by :mod:`llverify.ttgir.layouts`):
  some register ``r`` of that thread maps to the element;
* classification as llverify predicts (:func:`llverify.codegen.conversion.convert`) and as Triton lowered
  it (shared-memory accesses in the LLVM IR -> ``shared_memory``; ``shfl`` -> ``warp_shuffle``; else
  in-register);
* ``wavefronts_predicted``: the shared-memory wavefronts of every warp-level instruction, computed from the
  real addresses in that LLVM IR (every thread evaluated, :mod:`llverify.lowered.concrete`, the bank rule
  of lemma 9.4), summed over warps and instructions, stores and loads apart; ``wavefronts_measured``: the
  ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{st,ld}`` counters.

``llverify gpu triton RESULTS.json NCU.csv [-o DIR]`` writes ``triton_conversions.{json,md}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["analyse", "write_report", "corpus_conversions", "staging_pairs", "staging_report", "throughput_table"]

CORPUS_CASES = Path(__file__).with_name("triton_cvt_corpus.json")
STAGING_CASES = Path(__file__).with_name("triton_cvt_staging.json")


def _lowered_class(llir: str) -> str:
    if "addrspace(3)" in llir.replace("@global_smem = external", "") and (" store " in llir or "load " in llir):
        import re

        if re.search(r"(load|store) [^\n]*ptr addrspace\(3\)", llir):
            return "shared_memory"
    if "shfl.sync" in llir:
        return "warp_shuffle"
    return "register_or_noop"


def _predicted_wavefronts(ttgir: str, llir: str) -> dict[str, int] | str:
    from dataclasses import replace

    import numpy as np

    from llverify.codegen.bank_sim import simulate_addresses
    from llverify.lowered.llir import parse_llir
    from llverify.lowered.concrete import Concrete
    from llverify.ttgir.reader import parse_module

    mod = parse_module(ttgir, "k.ttgir")
    threads = mod.num_warps * mod.threads_per_warp
    totals = {"store": 0, "load": 0}
    for fn in parse_llir(llir).functions:
        fn = replace(fn, wave=mod.threads_per_warp)  # readfirstlane's wave size
        for acc in fn.accesses:
            if acc.kind not in ("load", "store", "ldmatrix", "stmatrix") or not acc.bytes:
                continue
            addrs = [Concrete(fn, t, {}).value(acc.pointer, 32) for t in range(threads)]
            if any(a is None for a in addrs):
                return f"an address at {acc.instr.line} depends on more than the thread id"
            per_warp = simulate_addresses(np.array(addrs, dtype=np.int64).reshape(-1, 32), acc.bytes)
            totals["store" if acc.kind in ("store", "stmatrix") else "load"] += int(per_warp.sum())
    return totals


def placement(ttgir: str, tids: list[int]) -> dict[str, Any]:
    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_module

    mod = parse_module(ttgir, "k.ttgir")
    cvt = next((op for _, op, _ in mod.walk() if op.name in ("ttg.convert_layout", "ttg.local_load")), None)
    if cvt is None:
        return {"placement_exact": None, "reason": "no convert_layout or local_load in the TTGIR"}
    built = layout_of(cvt.results[0].type)
    if not isinstance(built, BuiltLayout):
        return {"placement_exact": None, "reason": built.reason}
    L = built.layout
    holds: dict[int, set[int]] = {}
    nreg = L.in_dim_size("register")
    for warp in range(L.in_dim_size("warp")):
        for lane in range(L.in_dim_size("lane")):
            t = warp * 32 + lane
            s = holds.setdefault(t, set())
            for r in range(nreg):
                e = L.apply(register=r, lane=lane, warp=warp, block=0)
                s.add(e["dim0"] * L.out_dim_size("dim1") + e["dim1"])
    wrong = [e for e, t in enumerate(tids) if e not in holds.get(t, set())]
    return {"placement_exact": not wrong, "misplaced": len(wrong),
            "first_misplaced": None if not wrong else {"element": wrong[0], "stored_by_tid": tids[wrong[0]]}}


def analyse(results_path: str, ncu_path: str) -> list[dict[str, Any]]:
    from llverify.codegen.conversion import convert
    from llverify.codegen.shuffle import triton_lowering
    from llverify.gpu.ncu import LD_WAVES, ST_WAVES, parse_csv
    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_module

    doc = json.loads(Path(results_path).read_text())
    launches = parse_csv(Path(ncu_path).read_text()) if ncu_path else []
    out = []
    for i, rec in enumerate(doc["cases"]):
        row: dict[str, Any] = {"name": rec["name"], "source": "triton", "triton": rec.get("triton"),
                               "warps": rec["warps"], "bit_exact": rec.get("bit_exact"), "time_us": rec.get("time_us")}
        if "error" in rec:
            row["error"] = rec["error"]
            out.append(row)
            continue
        mod = parse_module(rec["ttgir"], "k.ttgir")
        cvt = next((op for _, op, _ in mod.walk() if op.name == "ttg.convert_layout"), None)
        if rec.get("variant"):
            row["variant"] = rec["variant"]
        if rec.get("variant") == "llverify_swizzle":
            row["classification_llverify"] = "shared_memory (llverify's optimal swizzle)"
        elif cvt is not None:
            A, B = layout_of(cvt.operand_types[0]), layout_of(cvt.results[0].type)
            if isinstance(A, BuiltLayout) and isinstance(B, BuiltLayout):
                row["classification_llverify"] = triton_lowering(A.layout, B.layout)
                row["classification_plan"] = convert(A.layout, B.layout).classification
        else:
            row["classification_llverify"] = "removed by Triton (no convert_layout left)"
        row["classification_triton"] = _lowered_class(rec["llir"])
        row.update(placement(rec["ttgir"], rec["tid"]))
        pred = _predicted_wavefronts(rec["ttgir"], rec["llir"])
        row["wavefronts_predicted"] = pred
        if i < len(launches):
            m = launches[i].metrics
            row["wavefronts_measured"] = {"store": int(m.get(ST_WAVES) or 0), "load": int(m.get(LD_WAVES) or 0)}
            row["wavefronts_equal"] = isinstance(pred, dict) and pred == row["wavefronts_measured"]
        out.append(row)
    return out


def write_report(rows: list[dict[str, Any]], out_dir: str,
                 title: str = "Triton's own conversions on the GPU against llverify's model") -> list[Path]:
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    j = d / "triton_conversions.json"
    j.write_text(json.dumps({"cases": rows}, indent=2) + "\n")
    n = len(rows)
    def side_equal(r: dict[str, Any], side: str) -> bool:
        p, m = r.get("wavefronts_predicted"), r.get("wavefronts_measured")
        return isinstance(p, dict) and isinstance(m, dict) and p[side] == m[side]

    lines = [f"# {title}", "",
             f"{n} cases; bit-exact {sum(1 for r in rows if r.get('bit_exact'))}/{n}; placement as llverify's "
             f"model of the destination layout {sum(1 for r in rows if r.get('placement_exact'))}/{n}; "
             + (f"classification agrees {sum(1 for r in rows if _agree(r))}/{own} (Triton's own conversions); "
                if (own := sum(1 for r in rows if not r.get('variant'))) else "")
             + f"shared wavefronts predicted from "
             f"the real addresses = measured {sum(1 for r in rows if r.get('wavefronts_equal'))}/{n} "
             f"(stores {sum(1 for r in rows if side_equal(r, 'store'))}/{n}, "
             f"loads {sum(1 for r in rows if side_equal(r, 'load'))}/{n}).", "",
             "| case | Triton | bit-exact | placement | class (llverify) | class (Triton's code) | wavefronts "
             "predicted st/ld | measured st/ld | time (us) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p, m = r.get("wavefronts_predicted"), r.get("wavefronts_measured")
        ps = f"{p['store']}/{p['load']}" if isinstance(p, dict) else str(p)
        ms = f"{m['store']}/{m['load']}" if isinstance(m, dict) else "-"
        t = f"{r['time_us']:.2f}" if isinstance(r.get("time_us"), (int, float)) else "-"
        lines.append(f"| {r['name']} | {r.get('triton')} | {r.get('bit_exact')} | {r.get('placement_exact')} | "
                     f"{r.get('classification_llverify')} | {r.get('classification_triton')} | {ps} | {ms} | {t} |")
    base = {r["name"]: r for r in rows if r.get("variant") is None}
    speed = []
    for r in rows:
        if r.get("variant") == "llverify_swizzle":
            b = base.get(r["name"].split("+")[0])
            if b and b.get("time_us") and r.get("time_us"):
                speed.append((r["name"], b["time_us"] / r["time_us"]))
    if speed:
        import math

        g = math.exp(sum(math.log(x) for _, x in speed) / len(speed))
        lines += ["", f"llverify's optimal swizzle (a `#ttg.shared_linear` layout, `local_store` + `local_load`) "
                      f"against Triton's own `convert_layout`, time ratio Triton / llverify over {len(speed)} "
                      f"conversions: geomean {g:.3f}, max {max(x for _, x in speed):.3f}, "
                      f"min {min(x for _, x in speed):.3f} (above 1: llverify's is faster)."]
    md = d / "triton_conversions.md"
    md.write_text("\n".join(lines) + "\n")
    return [j, md]


def _agree(r: dict[str, Any]) -> bool:
    if r.get("variant"):
        return False  # llverify's own swizzle kernel: not a classification of Triton's conversion
    a, b = r.get("classification_llverify"), r.get("classification_triton")
    return a == b or (a in ("register_permutation", "noop") and b == "register_or_noop")


def throughput_table(doc: dict[str, Any]) -> str:
    """Markdown: per case, the round-trip time per tile of Triton's own conversion and of the same
    conversion through llverify's optimal swizzle (``triton_cvt_device --throughput``), and their ratio.

    >>> doc = {"throughput": [
    ...     {"name": "c_w4", "variant": "triton", "round_trip_ns_per_tile": 2.2, "bit_exact_reps1": True,
    ...      "bit_exact_reps129": True},
    ...     {"name": "c_w4", "variant": "llverify_swizzle", "round_trip_ns_per_tile": 2.0, "bit_exact_reps1": True,
    ...      "bit_exact_reps129": True}]}
    >>> print(throughput_table(doc).splitlines()[-1])
    | `c_w4` | 2.20 | 2.00 | 1.10 | yes |
    """
    rows: dict[str, dict[str, Any]] = {}
    for r in doc.get("throughput", []):
        rows.setdefault(r["name"], {})[r["variant"]] = r
    lines = ["| case | Triton ns/tile | llverify swizzle ns/tile | Triton / llverify | bit-exact |",
             "|---|---|---|---|---|"]
    for name, v in rows.items():
        t, l = v.get("triton", {}), v.get("llverify_swizzle", {})
        tt, lt = t.get("round_trip_ns_per_tile"), l.get("round_trip_ns_per_tile")
        exact = all(x.get(k) for x in (t, l) for k in ("bit_exact_reps1", "bit_exact_reps129"))
        ratio = f"{tt / lt:.2f}" if tt and lt else "-"
        lines.append(f"| `{name}` | {tt:.2f} | {lt:.2f} | {ratio} | {'yes' if exact else 'NO'} |"
                     if tt and lt else f"| `{name}` | - | - | - | {'yes' if exact else 'NO'} |")
    return "\n".join(lines)


def corpus_conversions(corpus: Path, target: str = "cuda_90") -> list[dict[str, Any]]:
    """Every distinct 2-D ``convert_layout`` of the TTGIR corpus for ``target`` (layout pair, shape, warps), as
    the bases the device script turns into Gluon ``DistributedLinearLayout``s (``triton_cvt_device
    --corpus``): Triton's own conversions of our kernels, run on the GPU against llverify's model.

    >>> cases = corpus_conversions(Path(__file__).resolve().parents[2] / "tests" / "data" / "ttgir")
    >>> len(cases) >= 20 and all(len(c["shape"]) == 2 for c in cases)
    True
    """
    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_module

    seen: dict[tuple, dict[str, Any]] = {}
    for path in sorted(corpus.glob(f"*{target}*.ttgir")):
        mod = parse_module(path.read_text(), path.name)
        for _, op, warps in mod.walk():
            if op.name != "ttg.convert_layout" or not op.operand_types or not op.results:
                continue
            a, b = op.operand_types[0], op.results[0].type
            if a is None or len(a.shape) != 2:
                continue
            A, B = layout_of(a), layout_of(b)
            if not (isinstance(A, BuiltLayout) and isinstance(B, BuiltLayout)):
                continue
            if "block" in A.layout.in_dim_names and A.layout.in_dim_size("block") > 1:
                continue
            sides = [{d: [list(v) for v in L.layout.bases.get(d, ())] for d in ("register", "lane", "warp")}
                     for L in (A, B)]
            key = (tuple(a.shape), warps, json.dumps(sides))
            if key not in seen:
                seen[key] = {"name": f"{path.stem.split('-')[0]}_{len(seen)}_w{warps}", "module": path.name,
                             "line": op.location.line, "shape": list(a.shape), "warps": warps,
                             "src": sides[0], "dst": sides[1]}
    return list(seen.values())


def staging_pairs(corpus: Path, target: str = "cuda_80") -> list[dict[str, Any]]:
    """Every distinct 2-D ``local_alloc`` (register layout A into shared layout S) read back by a ``local_load``
    (into B) in the corpus for ``target``: the operand staging of real matmuls and attention kernels.  Each
    carries A's and B's bases, S's offset bases, and llverify's optimal swizzle for A -> B at the element
    width (seed 000, section 9.2), so the device runs the real pair and the pair through llverify's swizzle.

    >>> pairs = staging_pairs(Path(__file__).resolve().parents[2] / "tests" / "data" / "ttgir")
    >>> len(pairs) >= 8 and all(p["bits"] == 16 for p in pairs)
    True
    """
    from llverify.codegen.swizzle import optimal_swizzle
    from llverify.ttgir.layouts import BuiltLayout, layout_of
    from llverify.ttgir.reader import parse_module

    def bases(L: Any, dims: tuple[str, ...]) -> dict[str, list[list[int]]]:
        return {d: [list(v) for v in L.bases.get(d, ())] for d in dims}

    seen: dict[tuple, dict[str, Any]] = {}
    for path in sorted(corpus.glob(f"*{target}*.ttgir")):
        mod = parse_module(path.read_text(), path.name)
        allocs = {op.results[0].name: op for _, op, _ in mod.walk()
                  if op.name == "ttg.local_alloc" and op.operand_types and op.results}
        for _, op, warps in mod.walk():
            if op.name != "ttg.local_load" or not op.operands or op.operands[0] not in allocs:
                continue
            alloc = allocs[op.operands[0]]
            a, s_t, b = alloc.operand_types[0], alloc.results[0].type, op.results[0].type
            if a is None or len(a.shape) != 2 or tuple(s_t.shape) != tuple(a.shape):
                continue
            A, S, B = layout_of(a), layout_of(s_t), layout_of(b)
            if not all(isinstance(x, BuiltLayout) for x in (A, S, B)) or A.bits not in (16, 32):
                continue
            try:
                swz = optimal_swizzle(A.layout, B.layout, A.bits).layout
            except Exception:  # noqa: BLE001 - a pair without a swizzle plan is run with the real layout only
                swz = None
            item = {"name": f"{path.stem.split('-')[0]}_stage{len(seen)}_w{warps}", "module": path.name,
                    "line": op.location.line, "shape": list(a.shape), "warps": warps, "bits": A.bits,
                    "src": bases(A.layout, ("register", "lane", "warp")),
                    "dst": bases(B.layout, ("register", "lane", "warp")),
                    "smem": bases(S.layout, ("offset",))["offset"],
                    "swizzle": None if swz is None else bases(swz, ("offset",))["offset"]}
            key = json.dumps({k: item[k] for k in ("shape", "warps", "bits", "src", "dst", "smem")})
            seen.setdefault(key, item)
    return list(seen.values())


def staging_report(results_path: str, ncu_path: str, out_dir: str) -> list[dict[str, Any]]:
    """Analyse a ``triton_cvt_device --staging`` run (bit-exact, placement, wavefronts per variant) and write its
    report with the time per round trip of the kernel's own shared layout against llverify's swizzle."""
    import math

    rows = analyse(results_path, ncu_path)
    for r in rows:
        r.pop("classification_plan", None)
        own = r.get("variant") == "kernel_layout"
        r["classification_llverify"] = f"shared_memory ({'the kernel' if own else 'llverify'}'s layout)"
    write_report(rows, out_dir, title="Operand staging of real matmul and attention kernels (local_alloc + "
                 "local_load): the kernel's shared layout against llverify's optimal swizzle")
    cases = json.loads(Path(results_path).read_text())["cases"]
    times: dict[str, dict[str, float]] = {}
    for c in cases:
        if c.get("round_trip_ns_per_tile"):
            times.setdefault(c["name"].split("+")[0], {})[c["variant"]] = c["round_trip_ns_per_tile"]
    lines = ["", "## Time (2,112 tiles per launch, 1 and 129 round trips)", "",
             "| pair | kernel's layout ns/tile | llverify swizzle ns/tile | speedup |", "|---|---|---|---|"]
    ratios = []
    for name, v in times.items():
        if "kernel_layout" in v and "llverify_swizzle" in v:
            k, l = v["kernel_layout"], v["llverify_swizzle"]
            ratios.append(k / l)
            lines.append(f"| `{name}` | {k:.2f} | {l:.2f} | {k / l:.2f} |")
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines += ["", f"llverify's optimal swizzle over the kernel's own shared layout: geomean {g:.2f}x, "
                      f"min {min(ratios):.2f}x, max {max(ratios):.2f}x over {len(ratios)} pairs."]
    with open(Path(out_dir) / "triton_conversions.md", "a") as fh:
        fh.write("\n".join(lines) + "\n")
    return rows

