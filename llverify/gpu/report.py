"""The GPU report: JSON (for tools) and Markdown (for people).

JSON layout (stable; other tools read it)::

    {"llverify": "0.1.0", "title": ..., "device": "NVIDIA H200", "date": ...,
     "peak": {"peak_bytes_per_s": ..., ...}, "ncu": {"available": true, ...},
     "summary": {"cases": n, "bit_exact": n, "predictions_checked": n, "predictions_match": n, ...},
     "speedups": [{"group": ..., "optimal_over_unswizzled": x, "shuffle_over_best_shared": y, ...}],
     "cases": [{"name", "bit_exact", "wavefronts_predicted": {"store": n, "load": n},
                "wavefronts_measured": {"store": n, "load": n}, "time_us", "bandwidth_fraction", ...}]}

``wavefronts_*`` are per warp-level shared-memory instruction (``null`` for
a kernel without that instruction, e.g. warp shuffles).  ``time_us`` is one
conversion of every tile of the timing grid (``n_blocks`` tiles), measured
as the slope between launches with ``lo`` and ``lo + extra_reps``
repetitions (``kernel_us`` is one launch with one repetition); ``bandwidth_fraction`` is the shared-memory bytes the
conversion stores and loads over that time, divided by the measured peak
(for shuffle kernels the same bytes: an *effective* bandwidth).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from pathlib import Path
from typing import Any, Sequence

from llverify import __version__
from llverify.gpu.ncu import ST_CONFLICTS, per_instruction

__all__ = ["build_report", "write_report", "markdown"]


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) < 1e-6 * max(1.0, abs(b))


def _case_json(row: dict[str, Any], prof: dict[str, Any], peak: float) -> dict[str, Any]:
    c, k, p = row["case"], row["kernel"], row["prediction"]
    shape = [c.src.out_dim_size(f"dim{i}") for i in range(c.src.num_out_dims)]
    out: dict[str, Any] = {
        "name": c.name, "pair": c.pair, "dtype": c.dtype, "variant": c.variant, "shape": shape,
        "warps": k.threads // 32, "kernel": k.name,
        "prediction_source": p.source,
        "wavefronts_predicted": p.wavefronts, "wavefronts_simulated": p.simulated, "prediction_error": p.error,
        "instructions_predicted_per_block": p.instructions_per_block,
        "vector_elems": p.vector, "shuffle_rounds": p.shuffle_rounds,
        "shuffle_source": None if c.program is None else c.program.source,
        "notes": list(c.notes),
        "resources": row.get("resources"),
    }
    chk, tm = row.get("check"), row.get("timing")
    out["bit_exact"] = bool(chk is not None and chk.bit_exact and tm is not None and tm.bit_exact_large)
    out["mismatch"] = None if chk is None else chk.mismatch
    if tm is not None and not tm.bit_exact_large and out["mismatch"] is None:
        out["mismatch"] = "timed output (random inputs, full grid) differs from the reference"
    out["error"] = row.get("error")
    m = prof.get("metrics", {}).get(k.name)
    if m is not None:
        meas = per_instruction(m)
        out["wavefronts_measured"] = meas
        out["instructions_measured_per_block"] = {
            "store": m.get("smsp__sass_inst_executed_op_shared_st.sum"),
            "load": m.get("smsp__sass_inst_executed_op_shared_ld.sum")}
        out["store_bank_conflicts_measured"] = m.get(ST_CONFLICTS)
        out["prediction_matches"] = all(_close(meas[x], p.wavefronts[x]) for x in ("store", "load"))
        out["instructions_match"] = all(
            (out["instructions_measured_per_block"][x] or 0) == p.instructions_per_block[x] for x in ("store", "load"))
    else:
        out["wavefronts_measured"] = None
        out["prediction_matches"] = None
    if tm is not None:
        shared_bytes = tm.n_blocks * k.threads * (k.n_src_regs + k.n_dst_regs) * k.elem_bytes
        bw = shared_bytes / (tm.conversion_us * 1e-6) if tm.conversion_us > 0 else None
        out.update({
            "time_us": round(tm.conversion_us, 4), "n_blocks": tm.n_blocks, "extra_reps": tm.extra_reps,
            "kernel_us": round(tm.kernel_us, 3), "kernel_us_with_reps": round(tm.kernel_us_extra, 3),
            "timing_spread": round(tm.spread, 4),
            "shared_bytes_per_conversion": shared_bytes,
            "bandwidth_bytes_per_s": bw,
            "bandwidth_fraction": (bw / peak) if (bw and peak) else None,
        })
    else:
        out.update({"time_us": None, "bandwidth_fraction": None})
    return out


def _speedups(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    groups: dict[str, dict[str, float]] = {}
    for c in cases:
        if c.get("time_us") and c["bit_exact"]:
            groups.setdefault(f"{c['pair']}.{c['dtype']}", {})[c["variant"]] = c["time_us"]
    out = []
    for g, t in groups.items():
        e: dict[str, Any] = {"group": g, "time_us": t}
        if "unswizzled" in t:
            for v in ("triton", "optimal", "shuffle"):
                if v in t:
                    e[f"{v}_over_unswizzled"] = t["unswizzled"] / t[v]
        if "optimal" in t and "triton" in t:
            e["optimal_over_triton"] = t["triton"] / t["optimal"]
        shared = [t[v] for v in ("unswizzled", "triton", "optimal") if v in t]
        if "shuffle" in t and shared:
            e["shuffle_over_best_shared"] = min(shared) / t["shuffle"]
        out.append(e)
    return out


def _geo(xs: Sequence[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def build_report(rows: Sequence[dict[str, Any]], prof: dict[str, Any], peak: dict[str, float], device: str,
                 title: str, seconds: float) -> dict[str, Any]:
    pk = peak.get("peak_bytes_per_s", 0.0)
    refused = [{"name": r["case"].name, "kernel": r["kernel"].name, "reason": r["refused"],
                "resources": r.get("resources")} for r in rows if r.get("refused")]
    cases = [_case_json(r, prof, pk) for r in rows if not r.get("refused")]
    sp = _speedups(cases)
    checked = [c for c in cases if c["prediction_matches"] is not None and c["variant"] != "shuffle"]
    summary: dict[str, Any] = {
        "cases": len(cases),
        "bit_exact": sum(c["bit_exact"] for c in cases),
        "errors": sum(1 for c in cases if c.get("error")),
        "predictions_checked": len(checked),
        "predictions_match": sum(bool(c["prediction_matches"]) for c in checked),
        "instructions_match": sum(bool(c.get("instructions_match")) for c in checked),
        "refused": len(refused),
    }
    for key in ("optimal_over_unswizzled", "triton_over_unswizzled", "optimal_over_triton",
                "shuffle_over_best_shared", "shuffle_over_unswizzled"):
        vals = [e[key] for e in sp if key in e]
        if vals:
            summary[key] = {"geomean": _geo(vals), "max": max(vals), "min": min(vals), "n": len(vals)}
    bwf = [c["bandwidth_fraction"] for c in cases if c.get("bandwidth_fraction") and c["variant"] != "shuffle"]
    if bwf:
        summary["bandwidth_fraction_max"] = max(bwf)
    ncu = {k: v for k, v in prof.items() if k not in ("metrics", "raw")}
    return {"llverify": __version__, "title": title, "device": device,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(seconds, 1), "peak": peak, "ncu": ncu, "summary": summary,
            "speedups": sp, "cases": cases, "refused": refused}


def _f(x: Any, nd: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{nd}f}" if not x.is_integer() or nd == 0 else f"{int(x)}"
    return str(x)


def _wf(d: dict[str, Any] | None) -> str:
    if not d:
        return "-"
    return f"{_f(d.get('store'))} / {_f(d.get('load'))}"


def _res(r: dict[str, Any] | None) -> str:
    if not r:
        return "-"
    sp = r.get("spill_store_bytes", 0)
    return f"{r.get('registers', '-')}" + (f" ({sp})" if sp else "")


def markdown(rep: dict[str, Any]) -> str:
    s = rep["summary"]
    pk = rep["peak"]
    lines = [f"# {rep['title']}", "",
             f"Device: **{rep['device']}**, llverify {rep['llverify']}, {rep['date']}, {rep['seconds']} s.", "",
             f"Shared-memory peak (measured, conflict-free 16-byte accesses): "
             f"{_f(pk.get('peak_bytes_per_s', 0) / 1e12)} TB/s over {int(pk.get('sms', 0))} SMs.", ""]
    ncu = rep["ncu"]
    lines.append(f"Nsight Compute: {'`' + ncu['command'] + '`' if ncu.get('available') and 'command' in ncu else ncu.get('error', 'not run')}")
    if ncu.get("error") and ncu.get("available"):
        lines += ["", "```", str(ncu["error"])[-800:], "```"]
    lines += ["", "## Summary", "",
              f"- bit-exact: **{s['bit_exact']} / {s['cases']}** cases (every (block, warp, lane, register))",
              f"- measured wavefronts per instruction equal to the prediction: "
              f"**{s['predictions_match']} / {s['predictions_checked']}** shared-memory cases "
              f"(instruction counts equal: {s['instructions_match']})"]
    for key, label in (("optimal_over_unswizzled", "(iii) optimal swizzle over (i) unswizzled"),
                       ("triton_over_unswizzled", "(ii) Triton swizzle over (i) unswizzled"),
                       ("optimal_over_triton", "(iii) optimal swizzle over (ii) Triton swizzle"),
                       ("shuffle_over_best_shared", "(iv) warp shuffles over the best shared-memory variant"),
                       ("shuffle_over_unswizzled", "(iv) warp shuffles over (i) unswizzled")):
        if key in s:
            e = s[key]
            lines.append(f"- speedup {label}: geomean {_f(e['geomean'])}x, max {_f(e['max'])}x, "
                         f"min {_f(e['min'])}x over {e['n']} conversions")
    if "bandwidth_fraction_max" in s:
        lines.append(f"- best shared-memory bandwidth fraction of the peak: {_f(s['bandwidth_fraction_max'])}")
    if s.get("refused"):
        lines.append(f"- refused (ptxas reports spilling, not measured): {s['refused']}")
    bad = [c for c in rep["cases"] if not c["bit_exact"] or c.get("prediction_matches") is False]
    if rep.get("refused"):
        lines += ["", "## Refused cases", ""]
        lines += [f"- `{r['name']}`: {r['reason']}" for r in rep["refused"]]
    if bad:
        lines += ["", "## Cases that need a look", ""]
        for c in bad:
            why = c.get("mismatch") or c.get("error") or (
                f"wavefronts predicted {_wf(c['wavefronts_predicted'])}, measured {_wf(c['wavefronts_measured'])}")
            lines.append(f"- `{c['name']}`: {why}; registers (spill bytes): {_res(c.get('resources'))}")
    lines += ["", "## Cases", "",
              "Wavefronts are per warp-level instruction, store / load. Time: one conversion of every tile "
              "of the grid (µs). BW: fraction of the measured shared-memory peak.", "",
              "| case | bit-exact | vec st/ld | predicted | measured | time µs | BW | regs (spill B) |",
              "|---|---|---|---|---|---|---|---|"]
    for c in rep["cases"]:
        v = c["vector_elems"]
        vec = f"{v.get('store', '-')}/{v.get('load', '-')}" if c["variant"] != "shuffle" else f"{c['shuffle_rounds']} shfl"
        lines.append(f"| `{c['name']}` | {'yes' if c['bit_exact'] else '**NO**'} | {vec} | "
                     f"{_wf(c['wavefronts_predicted'])} | {_wf(c['wavefronts_measured'])} | "
                     f"{_f(c.get('time_us'), 3)} | {_f(c.get('bandwidth_fraction'))} | {_res(c.get('resources'))} |")
    if rep["speedups"]:
        lines += ["", "## Speedups per conversion", "",
                  "| conversion | (ii)/(i) | (iii)/(i) | (iii)/(ii) | (iv)/best shared |", "|---|---|---|---|---|"]
        for e in rep["speedups"]:
            lines.append(f"| `{e['group']}` | {_f(e.get('triton_over_unswizzled'))} | "
                         f"{_f(e.get('optimal_over_unswizzled'))} | {_f(e.get('optimal_over_triton'))} | "
                         f"{_f(e.get('shuffle_over_best_shared'))} |")
    return "\n".join(lines) + "\n"


def write_report(rep: dict[str, Any], out_dir: Path, title: str, raw_ncu: str | None = None) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in title.lower())
    jp, mp = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    jp.write_text(json.dumps(rep, indent=1, default=str) + "\n")
    mp.write_text(markdown(rep))
    if raw_ncu:
        (out_dir / f"{stem}.ncu.csv").write_text(raw_ncu)
    return jp, mp
