"""Pass-by-pass validation of one compile, from ``MLIR_ENABLE_DUMP`` snapshots.

Each snapshot is the module *before* a pass, so snapshot ``i -> i + 1`` is
what pass ``i`` did.  The gate checks every obligation of every TritonGPU
snapshot (``check_module`` on each, so they hold after every pass); this
module adds what only a pair of snapshots shows:

* **the data is preserved**: an op that exists on both sides (matched by op
  name, Python source location and result position, and only where that
  key names as many ops before as after; conversions and the loop-carried results of ``scf`` region ops
  are excluded) computes the same
  logical tensor: same shape and element type; a pass may change its
  *layout* (that is what layout passes do), never its shape;
* **what the pass did to data movement**: ``ttg.convert_layout`` ops
  inserted and removed (matched by location and the two layouts), reported
  in the transition's details; every conversion present after the pass is
  itself proved by the ``conversion`` obligation of that snapshot.

A transition whose snapshots are not both TritonGPU modules (TTIR before
``ConvertTritonToTritonGPU``, LLVM dialect after ``ConvertTritonGPUToLLVM``) is
skipped: there is no layout to compare.
"""

from __future__ import annotations

import time
from typing import Sequence

from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Module, Op

__all__ = ["validate_passes", "is_tritongpu"]


def is_tritongpu(m: Module) -> bool:
    """A snapshot in the TritonGPU dialect (it has a target and ops with layouts)."""
    if not m.target:
        return False
    for _, op, _ in m.walk():
        if op.name.startswith("llvm."):
            return False
    return True


def _key(op: Op) -> str | None:
    if op.source is None:
        return None
    return f"{op.name}@{op.source.file}:{op.source.line}:{op.source.col}"


def _carries_state(op: Op) -> bool:
    """An op whose results are the values its regions yield (``scf.for``/``while``/``if``,
    ``ttg.warp_specialize``): result ``i`` is whatever loop-carried value a pass put at position ``i``, so
    its results are no computed tensor to compare (Triton 3.4's AMD stream pipeliner appends prefetched
    tiles to an attention loop's ``iter_args``).  The ops inside the regions are still compared."""
    return bool(op.regions) and (op.name.startswith("scf.") or op.name == "ttg.warp_specialize")


def _index(m: Module) -> dict[str, list[Op]]:
    out: dict[str, list[Op]] = {}
    for _, op, _ in m.walk():
        k = _key(op)
        if k is not None:
            out.setdefault(k, []).append(op)
    return out


def _conversions(m: Module) -> dict[tuple[str, str, str], int]:
    out: dict[tuple[str, str, str], int] = {}
    for _, op, _ in m.walk():
        if op.name == "ttg.convert_layout" and op.operand_types and op.results:
            src = op.operand_types[0]
            k = (str(op.source) if op.source else "?", src.text if src else "?", op.results[0].type.text)
            out[k] = out.get(k, 0) + 1
    return out


def validate_passes(modules: Sequence[Module]) -> list[Finding]:
    """Findings of every TritonGPU pass transition (see the module docstring)."""
    findings: list[Finding] = []
    for before, after in zip(modules, modules[1:]):
        if not (is_tritongpu(before) and is_tritongpu(after)):
            continue
        t0 = time.perf_counter()
        a, b = _index(before), _index(after)
        stage = f"{before.stage} -> {after.stage}"
        checked = 0
        for key in sorted(set(a) & set(b)):
            if key.startswith("ttg.convert_layout@") or len(a[key]) != len(b[key]):
                continue  # conversions are what passes add and remove; ambiguous matches are not compared
            if any(_carries_state(op) for op in a[key] + b[key]):
                continue  # loop-carried values: pipelining and layout passes add, drop and reorder them
            # ops sharing a key may be reordered by a pass: compare the multisets of computed tensors
            before_t = sorted((ra.type.shape, ra.type.element, i) for op_a in a[key]
                              for i, ra in enumerate(op_a.results) if ra.type.kind == "tensor")
            after_t = [(rb.type.shape, rb.type.element, i, op_b, rb) for op_b in b[key]
                       for i, rb in enumerate(op_b.results) if rb.type.kind == "tensor"]
            checked += len(after_t)
            remaining = list(before_t)
            for shape, elem, i, op_b, rb in after_t:
                if (shape, elem, i) in remaining:
                    remaining.remove((shape, elem, i))
                    continue
                was = ", ".join(f"{'x'.join(map(str, sh))}x{el}" for sh, el, _ in before_t) or "nothing"
                v = Verdict("refuted", "pass_preserves_data", f"{key} result {i}", "exhaustive",
                            time.perf_counter() - t0, f"pass {before.stage} changed the tensor an op computes",
                            Counterexample({"result": i}, {"before (ops at this location)": was,
                                                           "after": rb.type.text},
                                           "both read from the two snapshots"))
                fn = after.functions[0].name if after.functions else "?"
                findings.append(Finding(v, "pass_preserves_data", op_b.name, op_b.location, op_b.source, fn,
                                        after.target, stage, len(findings)))
        conv_a, conv_b = _conversions(before), _conversions(after)
        inserted = sum(max(0, n - conv_a.get(k, 0)) for k, n in conv_b.items())
        removed = sum(max(0, n - conv_b.get(k, 0)) for k, n in conv_a.items())
        if inserted or removed or checked:
            fn = after.functions[0] if after.functions else None
            v = Verdict("proved", "pass_preserves_data", stage, "exhaustive", time.perf_counter() - t0,
                        f"{checked} values matched by location keep their shape and element type",
                        certificate={"values_compared": checked},
                        details={"conversions_inserted": inserted, "conversions_removed": removed})
            if not any(f.stage == stage and f.verdict.status == "refuted" for f in findings):
                loc = fn.location if fn else None
                if loc is not None:
                    findings.append(Finding(v, "pass_preserves_data", "pass", loc, fn.source if fn else None,
                                            fn.name if fn else "?", after.target, stage, len(findings)))
    return findings
