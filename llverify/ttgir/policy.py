"""The gate's policy: thresholds a CI job fails on, per kernel-name pattern.

A policy file (YAML; JSON Schema in ``policy.schema.json`` beside this module)::

    defaults:
      max_shared_memory_conversions: 2   # per kernel
      max_wavefronts: 4                  # per shared-memory access and per conversion store/load
      forbid: [no_op_conversion, unknown]
    kernels:
      - match: "attn_*"                  # fnmatch pattern on the tt.func name; later entries win
        max_shared_memory_conversions: 0

:func:`apply_policy` turns every violation into a ``refuted`` finding of
property ``policy`` located at the op (or the kernel's first op) that breaks
it, its counterexample naming the measured value and the limit, both read
from the findings (so they replay by re-reading the same verdicts).
``forbid: [unknown]`` makes an ``unknown`` obligation a violation;
``forbid: [no_op_conversion]`` a ``ttg.convert_layout`` classified ``noop``.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Mapping, Sequence

from llverify.errors import LlverifyError
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.findings import Finding

__all__ = ["Policy", "PolicyError", "load_policy", "apply_policy", "policy_schema", "FORBIDDABLE"]

FORBIDDABLE = ("no_op_conversion", "unknown", "shared_memory_conversion", "warp_shuffle_conversion")
_KEYS = ("max_shared_memory_conversions", "max_wavefronts", "forbid")


class PolicyError(LlverifyError, ValueError):
    """A malformed policy file (the message names the file and the entry)."""


@dataclass(frozen=True)
class Limits:
    max_shared_memory_conversions: int | None = None
    max_wavefronts: int | None = None
    forbid: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    defaults: Limits = Limits()
    kernels: tuple[tuple[str, Limits], ...] = field(default_factory=tuple)

    def limits_for(self, kernel: str) -> Limits:
        out = self.defaults
        for pattern, lim in self.kernels:
            if fnmatch.fnmatchcase(kernel, pattern):
                out = Limits(lim.max_shared_memory_conversions if lim.max_shared_memory_conversions is not None
                             else out.max_shared_memory_conversions,
                             lim.max_wavefronts if lim.max_wavefronts is not None else out.max_wavefronts,
                             lim.forbid or out.forbid)
        return out


def policy_schema() -> dict[str, Any]:
    """The policy file's JSON Schema."""
    return json.loads(resources.files("llverify.ttgir").joinpath("policy.schema.json").read_text())


def _limits(where: str, body: Any) -> Limits:
    if not isinstance(body, Mapping):
        raise PolicyError(f"{where}: expected a mapping of limits, found {type(body).__name__}")
    extra = [k for k in body if k not in _KEYS and k != "match"]
    if extra:
        raise PolicyError(f"{where}: unknown key {extra[0]!r} (expected one of {', '.join(_KEYS)})")
    for k in ("max_shared_memory_conversions", "max_wavefronts"):
        v = body.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > 1 << 20):
            raise PolicyError(f"{where}: {k} must be a non-negative integer, found {v!r}")
    forbid = body.get("forbid", [])
    if not isinstance(forbid, list) or any(f not in FORBIDDABLE for f in forbid):
        raise PolicyError(f"{where}: forbid must be a list drawn from {', '.join(FORBIDDABLE)}, found {forbid!r}")
    return Limits(body.get("max_shared_memory_conversions"), body.get("max_wavefronts"), tuple(forbid))


def load_policy(path: str) -> Policy:
    """Read and validate a policy file (raises :class:`PolicyError`)."""
    import yaml

    from llverify.ttgir.loader import read_text
    from llverify.errors import TtgirError

    try:
        text = read_text(path)
    except TtgirError as exc:
        raise PolicyError(str(exc)) from None
    try:
        doc = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else f"{path}:1:1"
        raise PolicyError(f"{where}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(doc, Mapping):
        raise PolicyError(f"{path}:1:1: a policy is a mapping with 'defaults' and/or 'kernels'")
    extra = [k for k in doc if k not in ("defaults", "kernels")]
    if extra:
        raise PolicyError(f"{path}:1:1: unknown key {extra[0]!r} (expected 'defaults', 'kernels')")
    defaults = _limits(f"{path}: defaults", doc.get("defaults", {}) or {})
    kernels = []
    for i, entry in enumerate(doc.get("kernels", []) or []):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("match"), str):
            raise PolicyError(f"{path}: kernels[{i}]: each entry needs a 'match' pattern (a string)")
        kernels.append((entry["match"], _limits(f"{path}: kernels[{i}]", entry)))
    return Policy(defaults, tuple(kernels))


def _violation(f: Finding, what: str, measured: Any, limit: Any, message: str) -> Finding:
    v = Verdict("refuted", "policy", f"{what} ({f.verdict.subject})", "exhaustive", 0.0, message,
                Counterexample({"kernel": f.kernel, "line": f.location.line}, {"measured": measured, "limit": limit},
                               "read from the obligation's verdict"))
    return Finding(v, "policy", f.op, f.location, f.source, f.kernel, f.target, f.stage, f.index)


def apply_policy(policy: Policy, findings: Sequence[Finding]) -> list[Finding]:
    """The violations of ``policy`` among ``findings`` (see the module docstring)."""
    out: list[Finding] = []
    per_kernel: dict[tuple[str, str, str], int] = {}
    for f in findings:
        lim = policy.limits_for(f.kernel)
        d = f.verdict.details
        cls = d.get("classification") if f.rule == "conversion" else None
        if "unknown" in lim.forbid and f.verdict.status == "unknown":
            out.append(_violation(f, "unknown obligation", "unknown", "forbidden",
                                  f"policy forbids unknown obligations: {f.verdict.message}"))
        if cls == "noop" and "no_op_conversion" in lim.forbid:
            out.append(_violation(f, "no-op conversion", "noop", "forbidden",
                                  "a ttg.convert_layout that moves nothing survived to the final module"))
        if cls == "shared_memory" and "shared_memory_conversion" in lim.forbid:
            out.append(_violation(f, "shared-memory conversion", cls, "forbidden", "policy forbids conversions "
                                                                                    "through shared memory"))
        if cls == "warp_shuffle" and "warp_shuffle_conversion" in lim.forbid:
            out.append(_violation(f, "warp-shuffle conversion", cls, "forbidden", "policy forbids warp shuffles"))
        if cls == "shared_memory":
            key = (f.location.file, f.stage, f.kernel)
            per_kernel[key] = per_kernel.get(key, 0) + 1
            if lim.max_shared_memory_conversions is not None and per_kernel[key] > lim.max_shared_memory_conversions:
                out.append(_violation(f, "shared-memory conversions per kernel", per_kernel[key],
                                      lim.max_shared_memory_conversions,
                                      f"kernel '{f.kernel}' has more shared-memory conversions than the policy allows"))
        if lim.max_wavefronts is not None:
            waves = []
            if f.rule == "shared_access" and isinstance(d.get("wavefronts"), int):
                waves.append(("access wavefronts", d["wavefronts"]))
            cost = d.get("cost") if isinstance(d.get("cost"), Mapping) else {}
            for k in ("store_wavefronts", "load_wavefronts"):
                if isinstance(cost.get(k), int):
                    waves.append((k.replace("_", " "), cost[k]))
            for what, n in waves:
                if n > lim.max_wavefronts:
                    out.append(_violation(f, what, n, lim.max_wavefronts,
                                          f"{what} {n} exceed the policy's max_wavefronts {lim.max_wavefronts}"))
    return out
