"""Real modules with one distributed layout alias replaced by a shared (memory) layout: every tensor of that layout
is then invalid IR (Triton's verifier wants a distributed tensor encoding).  The gate refutes those types and leaves
the claims that need a register distribution ``unknown``; no rule may end in an internal error (an ``error``
finding) or a traceback.  Sampled over the corpus (every 4th alias definition) plus the modules where fuzzing found
internal errors (a shared access, a scaled dot's scale, a shape op)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_modules

CORPUS = Path(__file__).parent / "data" / "ttgir"
SHARED = {2: "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
          1: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
          3: "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [2, 1, 0]}>"}
_DISTRIBUTED = re.compile(r"^(#\w+) = (#ttg\.(?:blocked|linear|nvidia_mma|amd_mfma|amd_wmma)<.*)$", re.M)
FOUND_BY_FUZZING = [("attention-q128k64d64-hip_gfx950-w8.ttgir", None),
                    ("scaled_dot/scaled_dot-e2m1-m128n128k128-hip_gfx950-w4.ttgir", "#linear"),
                    ("scan-m32n128-cuda_100-w4.ttgir", None)]


def _rank(definition: str) -> int:
    m = re.search(r"order = \[([^\]]*)\]", definition)
    if m:
        return m.group(1).count(",") + 1
    m = re.search(r"warpsPerCTA = \[([^\]]*)\]", definition)
    return m.group(1).count(",") + 1 if m else 2


def _variants() -> list[tuple[str, str]]:
    out = []
    defs = [(p, m.group(1)) for p in sorted(CORPUS.glob("*.ttgir")) for m in _DISTRIBUTED.finditer(p.read_text())]
    out += [(str(p.relative_to(CORPUS)), alias) for p, alias in defs[::4]]
    for name, alias in FOUND_BY_FUZZING:
        text = (CORPUS / name).read_text()
        for m in _DISTRIBUTED.finditer(text):
            if alias is None or m.group(1) == alias:
                out.append((name, m.group(1)))
    return out


VARIANTS = _variants()


def test_the_sample_is_wide() -> None:
    assert len(VARIANTS) > 100 and len({name for name, _ in VARIANTS}) > 50


@pytest.mark.parametrize("name,alias", VARIANTS)
def test_no_internal_error_when_a_tensor_has_a_memory_layout(name: str, alias: str) -> None:
    text = (CORPUS / name).read_text()
    m = next(m for m in _DISTRIBUTED.finditer(text) if m.group(1) == alias)
    shared = SHARED.get(_rank(m.group(2)), SHARED[2])
    findings = [f for mod in parse_modules(text.replace(m.group(0), f"{alias} = {shared}"), name)
                for f in check_module(mod)]
    assert not [(f.rule, f.verdict.message) for f in findings if f.verdict.status == "error"]
    assert any(f.rule == "layout" and f.verdict.status == "refuted" for f in findings)
