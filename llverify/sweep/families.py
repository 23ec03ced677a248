"""Parameter families over which a paper claim is proved exhaustively (``llverify sweep``).

A :class:`Family` is a finite product of parameter lists, enumerated in a
fixed mixed-radix order, so instance ``i`` is computed directly from ``i``
(no generator to replay): any slice of the family can run on any worker and
a run can resume from any chunk.  ``decide(params)`` returns the instance's
:class:`~llverify.prove.verdict.Verdict`, decided by the complete methods of
:mod:`llverify.prove` (an F2 certificate, checked); an instance whose
parameters the hardware constructor rejects is *skipped* (counted, not
proved: it is not a layout of the family).

Families (sizes from :meth:`Family.size`, listed by ``llverify sweep --list``):

* ``prop_4_6_rank{1,2,3}``: proposition 4.6 / definition 4.10, every blocked
  layout whose tensor has at most 2^12 elements, with at most 16 warps,
  32 threads per warp, at most 8 registers per thread (powers of two in
  every dimension) and every order: the layout is distributed.
* ``lemma_9_5_swizzle``: lemmas 9.5 / 9.6, for every pair (source,
  destination) drawn from the blocked and mma (v2) layouts of a 2-D tensor
  up to 64 x 64 with up to 8 warps and every element width of 8, 16 and 32
  bits: the constructed swizzle attains the lower bound on wavefronts.

>>> fam = FAMILIES["prop_4_6_rank1"]
>>> fam.size()
260
>>> fam.params(0)
{'shape': [1], 'size_per_thread': [1], 'threads_per_warp': [32], 'warps_per_cta': [1], 'order': [0]}
>>> fam.decide(fam.params(0)).status
'proved'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from llverify.errors import LayoutError
from llverify.hw.registry import build
from llverify.layout import LinearLayout
from llverify.prove.plan_swizzle import prove_optimal_swizzle
from llverify.prove.properties import distributed
from llverify.prove.verdict import Verdict

__all__ = ["Family", "FAMILIES", "SKIPPED"]

#: ``decide`` returns this for parameters the family's constructor rejects.
SKIPPED = "skipped"


def _pow2_vectors(rank: int, lo: int, hi: int) -> list[list[int]]:
    """Every vector of ``rank`` powers of two whose exponents sum to a value in [lo, hi]."""
    out = []
    for exps in itertools.product(range(hi + 1), repeat=rank):
        if lo <= sum(exps) <= hi:
            out.append([1 << e for e in exps])
    return out


@dataclass(frozen=True)
class Family:
    """A named product of parameter axes and the claim decided for each point."""

    name: str
    claim: str
    paper: str
    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    decide_fn: Callable[[Mapping[str, Any]], Verdict | str]

    def size(self) -> int:
        n = 1
        for _, values in self.axes:
            n *= len(values)
        return n

    def params(self, index: int) -> dict[str, Any]:
        """Instance ``index`` (0 <= index < size), the last axis varying fastest."""
        if not 0 <= index < self.size():
            raise IndexError(f"{self.name}: instance {index} outside [0, {self.size()})")
        out: dict[str, Any] = {}
        for name, values in reversed(self.axes):
            index, digit = divmod(index, len(values))
            out[name] = values[digit]
        return {name: out[name] for name, _ in self.axes}

    def decide(self, params: Mapping[str, Any]) -> Verdict | str:
        return self.decide_fn(params)


def _blocked_family(rank: int) -> Family:
    axes = (
        ("shape", tuple(_pow2_vectors(rank, 0, 12))),
        ("size_per_thread", tuple(_pow2_vectors(rank, 0, 3))),
        ("threads_per_warp", tuple(_pow2_vectors(rank, 5, 5))),
        ("warps_per_cta", tuple(_pow2_vectors(rank, 0, 4))),
        ("order", tuple(list(p) for p in itertools.permutations(range(rank)))),
    )

    def decide(p: Mapping[str, Any]) -> Verdict | str:
        try:
            L = build("blocked", p["shape"], size_per_thread=p["size_per_thread"],
                      threads_per_warp=p["threads_per_warp"], warps_per_cta=p["warps_per_cta"], order=p["order"])
        except LayoutError:
            return SKIPPED
        return distributed(L, method="f2")

    return Family(f"prop_4_6_rank{rank}", "every blocked layout is a distributed layout",
                  "seed 000, proposition 4.6 and definition 4.10", axes, decide)


def _swizzle_templates() -> tuple[dict[str, Any], ...]:
    """Blocked and mma v2 layouts with 1..8 warps (the shape is a separate axis)."""
    out: list[dict[str, Any]] = []
    for warps in ([1, 1], [2, 1], [1, 2], [2, 2], [4, 1], [1, 4], [4, 2], [2, 4], [8, 1], [1, 8]):
        out.append({"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": warps, "instr_shape": [16, 8]})
        for spt, tpw in (([1, 1], [8, 4]), ([1, 4], [8, 4]), ([1, 8], [4, 8]), ([4, 1], [4, 8]),
                         ([1, 2], [1, 32]), ([2, 1], [32, 1])):
            for order in ([1, 0], [0, 1]):
                out.append({"kind": "blocked", "size_per_thread": spt, "threads_per_warp": tpw,
                            "warps_per_cta": warps, "order": order})
    return tuple(out)


def _build_spec(spec: Mapping[str, Any], shape: Sequence[int]) -> LinearLayout:
    params = {k: v for k, v in spec.items() if k != "kind"}
    return build(spec["kind"], shape, **params)


def _swizzle_family() -> Family:
    templates = _swizzle_templates()
    shapes = tuple([r, c] for r in (16, 32, 64) for c in (16, 32, 64))
    axes = (("shape", shapes), ("source", templates), ("destination", templates), ("bitwidth", (8, 16, 32)))

    def decide(p: Mapping[str, Any]) -> Verdict | str:
        if p["source"] == p["destination"]:
            return SKIPPED
        try:
            A, B = _build_spec(p["source"], p["shape"]), _build_spec(p["destination"], p["shape"])
        except LayoutError:
            return SKIPPED
        return prove_optimal_swizzle(A, B, int(p["bitwidth"]))

    return Family("lemma_9_5_swizzle", "the constructed swizzle attains the wavefront lower bound",
                  "seed 000, lemmas 9.5 and 9.6 (section 9.2)", axes, decide)


FAMILIES: Mapping[str, Family] = {f.name: f for f in (
    _blocked_family(1), _blocked_family(2), _blocked_family(3), _swizzle_family())}


def family_names() -> Sequence[str]:
    return tuple(FAMILIES)
