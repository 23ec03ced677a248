"""Shared pytest configuration: hypothesis profiles (fast by default, thorough with --slow runs)."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile(
    "default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def _fresh_memos_after_patches(request):
    """The gate decides each obligation once per process (``rule_support.memoised``): a test that patched a
    function those decisions call leaves the patched verdicts memoised, so they are forgotten after it."""
    yield
    if "monkeypatch" in request.fixturenames:
        from llverify.ttgir.rules import clear_caches

        clear_caches()
