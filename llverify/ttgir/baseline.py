"""Baseline diff: what a compiler change did to the data movement of every kernel.

Two runs of the gate (the baseline and the current modules) are compared
kernel by kernel (kernels matched by ``(name, target, stage)``) and, within a
kernel, op by op: an op's key is its name and its Python source location
(``loc(...)``), with an occurrence counter for ops sharing both; ops without
a source location fall back to their order among ops of that name.

Reported per kernel: conversions added and removed (with their class),
conversions whose class changed, and per shared-memory access or conversion
the change of wavefronts and of tensor bytes moved through shared memory.
:func:`regressions` turns into ``refuted`` findings (property ``baseline``)
every change that makes the kernel move more data: a new conversion that is
not a no-op, a class moving up the ladder noop < register < shuffle < shared
memory, more wavefronts; improvements are listed, never failed.

>>> key_of_class = {c: i for i, c in enumerate(CLASS_ORDER)}
>>> key_of_class["shared_memory"] > key_of_class["warp_shuffle"]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.findings import Finding

__all__ = ["OpChange", "KernelDiff", "diff_findings", "regressions", "CLASS_ORDER", "render_diff"]

CLASS_ORDER = ("noop", "register_permutation", "warp_shuffle", "shared_memory")


@dataclass(frozen=True)
class OpChange:
    kind: str           # added | removed | class_changed | wavefronts | shared_bytes
    op: str
    key: str
    before: Any
    after: Any
    finding: Finding | None  # the current finding (None for a removed op)
    regression: bool


@dataclass(frozen=True)
class KernelDiff:
    kernel: str
    target: str
    stage: str
    changes: tuple[OpChange, ...]


def _kernel_key(f: Finding) -> tuple[str, str, str]:
    return (f.kernel, f.target, f.stage)


def _op_keys(findings: Sequence[Finding], rules: tuple[str, ...]) -> dict[str, Finding]:
    out: dict[str, Finding] = {}
    counter: dict[str, int] = {}
    for f in findings:
        if f.rule not in rules:
            continue
        src = f"{f.source.file}:{f.source.line}:{f.source.col}" if f.source else "?"
        base = f"{f.op}@{src}"
        n = counter.get(base, 0)
        counter[base] = n + 1
        out[f"{base}#{n}"] = f
    return out


def _waves(f: Finding) -> dict[str, int]:
    d = f.verdict.details
    out: dict[str, int] = {}
    if isinstance(d.get("wavefronts"), int):
        out["wavefronts"] = d["wavefronts"]
    cost = d.get("cost")
    if isinstance(cost, Mapping):
        for k in ("store_wavefronts", "load_wavefronts", "tensor_bytes"):
            if isinstance(cost.get(k), int):
                out[k] = cost[k]
    return out


def diff_findings(baseline: Sequence[Finding], current: Sequence[Finding]) -> list[KernelDiff]:
    """Kernel-by-kernel changes from ``baseline`` to ``current`` (see the module docstring)."""
    kernels: dict[tuple[str, str, str], tuple[list[Finding], list[Finding]]] = {}
    for f in baseline:
        kernels.setdefault(_kernel_key(f), ([], []))[0].append(f)
    for f in current:
        kernels.setdefault(_kernel_key(f), ([], []))[1].append(f)
    out = []
    for (kernel, target, stage), (old, new) in sorted(kernels.items()):
        changes: list[OpChange] = []
        a = _op_keys(old, ("conversion", "shared_access"))
        b = _op_keys(new, ("conversion", "shared_access"))
        for key in sorted(set(a) | set(b)):
            fa, fb = a.get(key), b.get(key)
            if fa is None and fb is not None:
                cls = fb.verdict.details.get("classification")
                changes.append(OpChange("added", fb.op, key, None, cls, fb,
                                        fb.rule == "conversion" and cls != "noop"))
            elif fb is None and fa is not None:
                changes.append(OpChange("removed", fa.op, key, fa.verdict.details.get("classification"), None,
                                        None, False))
            elif fa is not None and fb is not None:
                ca, cb = fa.verdict.details.get("classification"), fb.verdict.details.get("classification")
                if ca != cb:
                    worse = (cb in CLASS_ORDER and ca in CLASS_ORDER and CLASS_ORDER.index(cb) > CLASS_ORDER.index(ca))
                    changes.append(OpChange("class_changed", fb.op, key, ca, cb, fb, worse))
                wa, wb = _waves(fa), _waves(fb)
                for k in sorted(set(wa) | set(wb)):
                    if wa.get(k) != wb.get(k):
                        worse = wa.get(k) is not None and wb.get(k) is not None and wb[k] > wa[k]
                        changes.append(OpChange("shared_bytes" if k == "tensor_bytes" else "wavefronts", fb.op,
                                                f"{key} {k}", wa.get(k), wb.get(k), fb, worse))
        if changes:
            out.append(KernelDiff(kernel, target, stage, tuple(changes)))
    return out


def regressions(diffs: Sequence[KernelDiff]) -> list[Finding]:
    """A ``refuted`` finding (property ``baseline``) for every change that moves more data."""
    out = []
    for kd in diffs:
        for c in kd.changes:
            if not c.regression or c.finding is None:
                continue
            f = c.finding
            v = Verdict("refuted", "baseline", f"{c.kind}: {c.key}", "exhaustive", 0.0,
                        f"regression against the baseline: {c.kind} {c.before!r} -> {c.after!r}",
                        Counterexample({"kernel": kd.kernel, "line": f.location.line},
                                       {"baseline": c.before, "current": c.after},
                                       "both values read from the two runs' verdicts"))
            out.append(Finding(v, "baseline", f.op, f.location, f.source, f.kernel, f.target, f.stage, f.index))
    return out


def render_diff(diffs: Sequence[KernelDiff], markdown: bool = False) -> str:
    """The diff as text (or a Markdown table)."""
    if not diffs:
        return ("## Baseline diff\n\nNo change in data movement.\n" if markdown
                else "baseline: no change in data movement\n")
    lines = []
    if markdown:
        lines += ["## Baseline diff", "", "| kernel | target | change | op | before | after | regression |",
                  "|---|---|---|---|---|---|---|"]
        for kd in diffs:
            for c in kd.changes:
                lines.append(f"| `{kd.kernel}` | {kd.target} | {c.kind} | `{c.key}` | {c.before} | {c.after} | "
                             f"{'**yes**' if c.regression else 'no'} |")
    else:
        for kd in diffs:
            lines.append(f"baseline: kernel {kd.kernel} ({kd.target}{', ' + kd.stage if kd.stage else ''}):")
            for c in kd.changes:
                mark = "REGRESSION" if c.regression else "change"
                lines.append(f"  {mark}: {c.kind} {c.key}: {c.before} -> {c.after}")
    return "\n".join(lines) + "\n"
