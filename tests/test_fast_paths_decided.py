"""The per-op decisions memoised whole (:func:`~llverify.ttgir.rules_data.decided_conversion`,
:func:`~llverify.ttgir.rules_memory.decided_shared_access`, :func:`~llverify.ttgir.rules_tmem.decided_lane_quarters`)
give every op the verdict it gets with every memo cleared: its own subject, the same status, message, certificate,
counterexample and details, whether the memo was filled by another op of the module, by another module, or not
at all.  The comparison is shown able to fail (a memo keyed without the access direction)."""

from __future__ import annotations

from functools import lru_cache

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest

from llverify.ttgir import gate, rules, rules_memory
from llverify.ttgir.reader import parse_module

RULES = ("conversion", "shared_access", "tmem_access")


def _docs(findings) -> list:
    out = []
    for f in findings:
        if f.rule in RULES:
            doc = f.verdict.to_json()
            doc.pop("seconds")
            out.append((f.op, f.location, doc))
    return out


@pytest.fixture(scope="module")
def modules():
    mods = [parse_module(text, path) for path, text in corpus_reads.corpus_texts()
            if "convert_layout" in text or "local_load" in text or "tmem_load" in text]
    assert len(mods) > 100
    return mods


def _cold(m, monkeypatch) -> list:
    """``m``'s findings with no memo shared between ops: every memo cleared before each op's rules run."""
    real = gate.rules_for

    def cleared_first(op):
        rules.clear_caches()
        return real(op)

    with monkeypatch.context() as mp:
        mp.setattr(gate, "rules_for", cleared_first)
        return _docs(gate.check_module(m))


def _warm(modules) -> list:
    """Every module's findings, gated one after another in one process (memos filled by earlier ops and modules)."""
    rules.clear_caches()
    return [_docs(gate.check_module(m)) for m in modules]


def test_memoised_decisions_are_each_ops_own(modules, monkeypatch):
    warm = _warm(modules)
    shared = sum(len(w) - len({(d["property"], d["message"], str(d["details"])) for _, _, d in w}) for w in warm)
    assert shared > 50  # ops of one module share decisions: the memos are exercised
    for m, w in zip(modules, warm):
        assert _cold(m, monkeypatch) == w, m.name


def test_comparison_catches_a_memo_keyed_without_the_direction(modules, monkeypatch):
    real = rules_memory.decided_shared_access.__wrapped__

    @lru_cache(maxsize=None)
    def by_layouts(R, M, padding, bits, target, model, dot_k):
        return real(R, M, padding, bits, "store", target, model, dot_k)

    def mutant(R, M, padding, bits, direction, target, model, dot_k):
        return by_layouts(R, M, padding, bits, target, model, None)

    both = [m for m in modules if any("local_store" in op.name or "local_alloc" in op.name for _, op, _ in m.walk())
            and any(op.name == "ttg.local_load" for _, op, _ in m.walk())][:20]
    assert both
    cold = [_cold(m, monkeypatch) for m in both]
    monkeypatch.setattr(rules_memory, "decided_shared_access", mutant)
    assert _warm(both) != cold
