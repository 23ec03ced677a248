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
  itself proved by the ``conversion`` obligation of that snapshot;
* **chains of conversions compose** (``conversion_chain``, :mod:`llverify.ttgir.chains`): every use
  reached through conversions, in every snapshot, composes to its root's layout (F2 equality of the
  composed map and the root's layout, so a direct conversion that replaced a chain equals it); a pass that
  inserts, changes or removes chains gets one finding counting them.  Each use the pass changed (matched
  by op name, source location and operand) is fed from the same root (matched by location) before and
  after, or from a clone of it that a folded conversion created, or from an identical pure op CSE kept; a
  loop-carried root or use (a region's block argument or result, an ``scf.yield`` operand: pipeliners
  re-thread them) is counted, not compared; any other root the match cannot follow is ``unknown`` with
  both locations.

A transition whose snapshots are not both TritonGPU modules (TTIR before
``ConvertTritonToTritonGPU``, LLVM dialect after ``ConvertTritonGPUToLLVM``) is
skipped: there is no layout to compare.
"""

from __future__ import annotations

import time
from typing import Sequence

from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.chains import RootIndex, Use, compose_chain, function_pairs, is_pure, root_index, same_root, uses
from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Function, Module, Op

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
    chain_memo: dict = {}
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
        findings.extend(_chain_findings(before, after, stage, chain_memo, len(findings)))
    return findings


def _chain_findings(before: Module, after: Module, stage: str, memo: dict, start: int) -> list[Finding]:
    """``conversion_chain`` findings of one transition (see the module docstring)."""
    t0 = time.perf_counter()
    out: list[Finding] = []
    composed = matched = folded = merged = replaced = relaid = carried = 0
    for fb, fa in function_pairs(before, after):
        ub, ua = _uses(memo, before, fb), _uses(memo, after, fa)
        by_key: dict[str, list[Use]] = {}
        for u in ub:
            if u.key is not None:
                by_key.setdefault(u.key, []).append(u)
        sig_b, sig_a = {_signature(u) for u in ub}, {_signature(u) for u in ua}
        # every chain of both snapshots composes (each snapshot's chains once; the proofs are memoised on the
        # layouts); the ones this pass inserted, changed or removed are counted
        for side, mod, fn, us, other in (("before", before, fb, ub, sig_a), ("after", after, fa, ua, sig_b)):
            seen = memo.setdefault(("composed", id(mod)), set())
            for w in us:
                if not w.chain.steps:
                    continue
                v = compose_chain(w.chain)
                composed += _signature(w) not in other
                if id(w) in seen:
                    continue
                seen.add(id(w))
                if v.status != "proved":
                    at = _breaking_step(w)
                    out.append(Finding(v.with_(subject=f"{w.key} ({side} {stage})"), "conversion_chain", at.name,
                                       at.location, at.source, fn.name, mod.target, mod.stage, start + len(out)))
        changed = []
        for u in ua:
            olds = by_key.get(u.key or "", [])
            if not olds or not (u.chain.steps or any(o.chain.steps for o in olds)):
                continue  # no conversion on either side: the data comparison above covers it
            if _signature(u) not in {_signature(o) for o in olds}:
                changed.append((u, olds))
        for u, olds in changed:
            how = [(o, same_root(o.chain, u.chain, _roots(memo, before, fb))) for o in olds]
            hits = [o for o, h in how if h]
            if hits:
                matched += 1
                folded += any(h == "folded" for _, h in how)
                merged += any(h == "cse" for _, h in how) and not any(h == "location" for _, h in how)
                replaced += any(len(o.chain.steps) > len(u.chain.steps) for o in hits)
                relaid += any(_encoding(o) != _encoding(u) for o in hits)
            elif _loop_carried(u) or any(_loop_carried(o) for o in olds):
                carried += 1  # pipelining re-threads values through iter_args: not a conversion question
            elif u.chain.root is not None and all(o.chain.root is not None for o in olds):
                v = Verdict("unknown", "conversion_chain", f"{u.key} ({stage})", None, time.perf_counter() - t0,
                            _unmatched_root(before.stage, u, olds, _roots(memo, before, fb)))
                out.append(Finding(v, "conversion_chain", u.op.name, u.op.location, u.op.source, fa.name,
                                   after.target, after.stage, start + len(out)))
    if composed or matched:
        fn = after.functions[0] if after.functions else None
        if fn is not None and not any(f.verdict.status == "refuted" for f in out):
            v = Verdict("proved", "conversion_chain", stage, "f2", time.perf_counter() - t0,
                        f"{composed} conversion chains compose to their roots' layouts; {matched} uses changed by "
                        "the pass are fed from the same value",
                        certificate={"chains_composed": composed, "uses_matched": matched},
                        details={"roots_folded": folded, "roots_merged_by_cse": merged, "chains_shortened": replaced,
                                 "roots_rematerialised": relaid, "loop_carried_not_compared": carried})
            out.append(Finding(v, "conversion_chain", "pass", fn.location, fn.source, fn.name, after.target, stage,
                               start + len(out)))
    return out


def _root_name(u: Use) -> str:
    """``op.name at file:line:col#result`` (``argument ...`` for a block or function argument)."""
    op = u.chain.root_op
    return f"{op.name if op is not None else 'argument'} at {u.chain.root}"


def _unmatched_root(stage: str, u: Use, olds: list[Use], index: RootIndex) -> str:
    """Why the root feeding ``u`` after the pass is not known to be one that fed it before.

    Where a root has the same location and op name on both sides, the ambiguity is stated: several ops of
    that name carried that location before the pass, and the one now feeding the use is not a pure op with
    equal attributes and operand roots (``same_root``), so which of them it is was not decided."""
    was = ", ".join(sorted({_root_name(o) for o in olds}))
    a = u.chain.root_op
    for o in olds:
        b = o.chain.root_op
        if a is not None and b is not None and o.chain.root == u.chain.root and a.name == b.name:
            n = index.names.get(o.chain.root, {}).get(b.name, 0)
            why = (f"{a.name} is not a pure op" if not is_pure(a)
                   else "its attributes or operand roots are not known to equal the old one's")
            return (f"pass {stage} feeds this operand from {_root_name(u)}, where {n} {b.name} ops were before "
                    f"the pass; {why}, so which of them feeds it now is not decided (matched by location only)")
    return (f"pass {stage} feeds this operand from {_root_name(u)}, not from {was}: not the same value by "
            "location (CSE or a rewrite may merge equal values; not decided)")


def _encoding(u: Use) -> object:
    """The root's layout encoding as parsed (a rematerialised root computes the same value in another one)."""
    return u.chain.root_type.encoding if u.chain.root_type is not None else None


def _loop_carried(u: Use) -> bool:
    """Is the use a loop-carried slot, or fed by a region's block argument or a region op's result (``scf.for``
    iter_args and results, ``scf.if`` results, ``warp_specialize`` captures)?  Those are what :func:`_carries_state` keeps
    out of the data comparison: a pipeliner adds, drops and reorders them."""
    root, op = u.chain.root or "", u.chain.root_op
    if _carries_state(u.op) or u.op.name in ("scf.yield", "scf.condition", "ttg.warp_yield"):
        return True  # the use itself is a loop-carried slot (an iter_arg's initial or yielded value)
    return root.startswith("block(") or (op is not None and _carries_state(op))


def _roots(memo: dict, m: Module, fn: Function) -> dict:
    key = ("roots", id(m), fn.name)
    if key not in memo:
        memo[key] = root_index(fn)
    return memo[key]


def _uses(memo: dict, m: Module, fn: Function) -> list[Use]:
    key = (id(m), fn.name)
    if key not in memo:
        memo[key] = uses(fn, every=True)
    return memo[key]


def _signature(u: Use) -> str:
    """The use's root and conversions (shape, element, source and result encodings as parsed: alias names are
    not compared, a later snapshot may renumber ``#blocked1``): equal signatures, nothing the pass changed."""
    rt = u.chain.root_type
    parts = [u.chain.root or "?", repr(rt.encoding) if rt is not None else "?"]
    for c in u.chain.steps:
        src = c.printed_operand_types[0] if c.printed_operand_types else None
        dst = c.results[0].type
        parts.append(repr((dst.shape, dst.element, src.encoding if src else None, dst.encoding)))
    return "|".join(parts)


def _breaking_step(u: Use) -> Op:
    """The first conversion of a chain whose prefix no longer composes (the use itself if none does)."""
    from llverify.ttgir.chains import Chain

    for i in range(1, len(u.chain.steps) + 1):
        prefix = Chain(u.chain.root, u.chain.root_type, u.chain.steps[:i])
        if compose_chain(prefix).status != "proved":
            return u.chain.steps[i - 1]
    return u.op
