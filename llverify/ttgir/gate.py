"""Running every rule over every op of a module: the gate's findings, in module order.

:func:`check_module` walks the module (functions, regions, blocks, ops) with
the warp count in force (``ttg.warp_specialize`` partitions and functions with a ``"ttg.num-warps"``
attribute carry their own)
and the enclosing op, applies every :data:`~llverify.ttgir.rules.RULES` entry
that matches the op, and turns each verdict into a located
:class:`~llverify.ttgir.findings.Finding`.  A rule that raises is an internal
bug: it becomes one ``error`` finding naming the rule and the op; the other
ops and rules still run.

:func:`gate_paths` is the unit of parallel work: one path (module file, dump,
directory entry) in, its findings (or the reader's located error) out.

Postcondition: the findings' order depends only on the module text.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Iterator, Sequence

from llverify.prove.verdict import Verdict
from llverify.ttgir.collector import paused_collector
from llverify.ttgir.default_target import annotate, choose_target, needs_target, with_target
from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Function, Module, Op, Region, TtgirError
from llverify.ttgir.passes import is_tritongpu, validate_passes
from llverify.ttgir.rules import OpContext, rules_for
from llverify.ttgir.rule_support import UNSTATED_WARPS

__all__ = ["check_module", "gate_text", "GateResult", "gate_file", "gate_path", "op_counts"]


def _walk(fn: Function, region: Region, warps: int, parent: Op | None
          ) -> list[tuple[Op, int, Op | None, bool]]:
    """Every op with the warp count in force, its enclosing op, and whether it runs in a non-default
    ``ttg.warp_specialize`` partition (whose first warp the TTGIR does not state), in module order: each op, then
    the ops of its regions (pre-order).  An explicit stack of the regions being walked (no recursion: a hostile
    module may nest regions deeply), each an iterator over its ops that resumes after an op's regions are done."""
    out: list[tuple[Op, int, Op | None, bool]] = []
    append = out.append
    stack = [(_ops_of(region), warps, parent, False)]
    while stack:
        ops, w, par, part = stack[-1]
        for op in ops:
            append((op, w, par, part))
            regions = op.regions
            if regions:
                inner = [(r, w, part) for r in regions]
                if op.name == "ttg.warp_specialize":
                    # region 0 is the default partition (the warps in force); region 1 + i runs partition i's warps
                    for i, n in enumerate(_partition_warps(op)[:len(regions) - 1]):
                        inner[1 + i] = (regions[1 + i], n, True)
                for r, iw, ip in reversed(inner):
                    stack.append((_ops_of(r), iw, op, ip))
                break  # the first region's ops next; this iterator resumes after them
        else:
            stack.pop()
    return out


def _ops_of(region: Region) -> Iterator[Op]:
    """The ops of ``region``'s blocks, in order."""
    return chain.from_iterable(map(_BLOCK_OPS, region.blocks))


_BLOCK_OPS = attrgetter("ops")


def _partition_warps(op: Op) -> list[int]:
    raw = op.attributes.get("partitionNumWarps", "")
    body = raw.strip()
    if body.startswith("array<"):
        body = body[body.find(":") + 1:].rstrip(">")
    out = []
    for part in body.strip("[] ").split(","):
        part = part.strip()
        if part.isdigit():
            out.append(int(part))
    return out


def check_module(module: Module) -> list[Finding]:
    """Every obligation of ``module``, decided (see the module docstring), with the cyclic garbage collector
    paused (:mod:`llverify.ttgir.collector`)."""
    with paused_collector():
        return _check_module(module)


def gate_text(text: str, path: str = "<string>") -> list[Finding]:
    """``check_module(parse_module(text, path))`` under one pause of the cyclic collector that ends after the
    module is dropped: only the findings are alive when the collector resumes, so its catch-up pass walks them, not
    the module's some 10^5 objects (paused twice, once per step, it walked the whole module once on resuming after
    the read and again after the checks).  What shadow mode gates per kernel.  Raises ``TtgirError`` as
    :func:`~llverify.ttgir.reader.parse_module` does."""
    from llverify.ttgir.reader import parse_module

    with paused_collector():
        return _check_module(parse_module(text, path))


def _check_module(module: Module) -> list[Finding]:
    findings: list[Finding] = []
    append = findings.append
    seen: set = set()
    value_sets: dict = {}
    layouts: dict = {}
    target, stage = module.target, module.stage
    clock = time.perf_counter
    for fn in module.functions:
        kernel = fn.name
        # a function's own "ttg.num-warps" (Gluon's partition functions before GluonInline) is in force in it; 0
        # where neither it nor the module states one (a lit test, a pasted fragment): Triton then has no warp count
        # ("Could not determine the number of warps per CTA"), so no count is checked against a guessed one
        in_force = fn.num_warps if fn.num_warps is not None else (
            module.num_warps if module.states_num_warps else UNSTATED_WARPS)
        for op, warps, parent, in_partition in _walk(fn, fn.body, in_force, None):
            rules = rules_for(op)
            if not rules:
                continue
            # one context per op: rules read it and never assign its fields (its dicts and set are the module's)
            ctx = OpContext(module, fn, op, warps, parent, seen, in_partition, value_sets, layouts)
            name, location, source = op.name, op.location, op.source
            for rule in rules:
                t0 = clock()
                try:
                    verdicts = list(rule.check(ctx))
                except Exception as exc:  # noqa: BLE001 - an internal bug must not hide the other findings
                    verdicts = [Verdict("error", rule.name, name, None, clock() - t0,
                                        f"internal error in rule '{rule.name}': {type(exc).__name__}: {exc}")]
                for v in verdicts:
                    append(Finding(v, rule.name, name, location, source, kernel, target, stage, len(findings)))
    return findings


@dataclass(frozen=True)
class GateResult:
    """What one input path produced: its modules' findings and the reader's errors."""

    path: str
    findings: tuple[Finding, ...]
    errors: tuple[str, ...]
    modules: int
    seconds: float


def gate_file(path: str, target: str | None = None) -> GateResult:
    """Read ``path`` (a module or a dump) and check every module in it; never raises.  ``target``: the
    ``--target`` option, for modules without ``ttg.target`` (:mod:`llverify.ttgir.default_target`)."""
    return gate_path(path, target)[0]


def gate_path(path: str, target: str | None = None) -> tuple[GateResult, bytes | None]:
    """:func:`gate_file`, with the bytes that were read and checked (None when the file could not be read):
    the module cache hashes exactly these, never a second read that could see another text.  The cyclic collector
    is paused for the whole file (:func:`gate_text` says why); the modules are dropped before it resumes."""
    with paused_collector():
        return _gate_path(path, target)


def _gate_path(path: str, target: str | None) -> tuple[GateResult, bytes | None]:
    from llverify.ttgir.loader import load_files

    t0 = time.perf_counter()
    findings: list[Finding] = []
    errors: list[str] = []
    modules = 0
    data: bytes | None = None
    try:
        files = load_files([path])
        data = files[0][0] if len(files) == 1 else None
    except Exception as exc:  # noqa: BLE001 - a reader bug is reported for this file only
        files = [(None, [TtgirError(f"{path}:1:1: internal error while reading: {type(exc).__name__}: {exc}")])]
    snapshots = []
    for raw, loaded in files:
        choice = None  # the file's target for modules without one: read from its RUN lines when first needed
        for m in loaded:
            if isinstance(m, TtgirError):
                errors.append(str(m))
                continue
            modules += 1
            if m.stage:
                snapshots.append(m)
                if not is_tritongpu(m):
                    continue  # TTIR or LLVM-dialect snapshots carry no layouts to check
            if not needs_target(m):
                findings.extend(check_module(m))
                continue
            if choice is None:
                choice = choose_target(raw.decode("utf-8", "replace") if raw is not None and not target else "",
                                       target)
            findings.extend(annotate(check_module(with_target(m, choice)), m, choice))
    if len(snapshots) > 1:
        findings.extend(validate_passes(snapshots))
    return GateResult(path, tuple(findings), tuple(errors), modules, time.perf_counter() - t0), data


def op_counts(findings: Sequence[Finding]) -> dict[str, dict[str, int]]:
    """``{op name: {status: count}}`` over findings."""
    out: dict[str, dict[str, int]] = {}
    for f in findings:
        row = out.setdefault(f.op, {"proved": 0, "refuted": 0, "unknown": 0, "error": 0})
        row[f.verdict.status] += 1
    return dict(sorted(out.items()))
