"""`llverify sweep`: families enumerate exactly, sweeps prove, resume from the cache, and catch a mutant."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from llverify.executor.cache import VerdictCache
from llverify.hw.registry import build
from llverify.prove.properties import distributed
from llverify.sweep import families
from llverify.sweep.families import FAMILIES, Family
from llverify.sweep.run import run_sweep


def test_family_indexing_is_a_bijection_onto_the_product() -> None:
    fam = FAMILIES["prop_4_6_rank1"]
    seen = [json.dumps(fam.params(i), sort_keys=True) for i in range(fam.size())]
    assert len(set(seen)) == fam.size()
    # the product, written independently: shape 2^0..2^12, spt 2^0..2^3, 32 threads, warps 2^0..2^4
    expected = {json.dumps({"order": [0], "shape": [1 << a], "size_per_thread": [1 << b], "threads_per_warp": [32],
                            "warps_per_cta": [1 << c]}, sort_keys=True)
                for a, b, c in itertools.product(range(13), range(4), range(5))}
    assert set(seen) == expected
    with pytest.raises(IndexError):
        fam.params(fam.size())


def test_rank1_sweep_proves_everything_and_resumes_from_the_cache(tmp_path) -> None:
    cache = VerdictCache(tmp_path / "c.sqlite")
    first = run_sweep("prop_4_6_rank1", chunk=50, cache=cache)
    assert first.proved + first.skipped == 260 and not first.failures and first.proved > 0
    second = run_sweep("prop_4_6_rank1", chunk=50, cache=cache)
    assert second.cached_chunks == second.chunks == 6
    assert (second.proved, second.skipped) == (first.proved, first.skipped)


def test_parallel_sweep_equals_sequential() -> None:
    one = run_sweep("prop_4_6_rank2", stop=3000, chunk=500, jobs=1)
    two = run_sweep("prop_4_6_rank2", stop=3000, chunk=500, jobs=2)
    assert (one.proved, one.skipped, one.failures) == (two.proved, two.skipped, two.failures)


def test_a_mutated_family_is_refuted_with_its_instance(monkeypatch) -> None:
    def decide(p):
        L = build("blocked", p["shape"], size_per_thread=[1], threads_per_warp=[32], warps_per_cta=[2], order=[0])
        bases = {d: [list(b) for b in L.bases[d]] for d in L.in_dims}
        if p["bug"]:
            bases["lane"][0] = list(bases["lane"][1])  # two lanes hold the same element
        from llverify.layout import LinearLayout

        return distributed(LinearLayout.from_bases(bases, list(L.out_dims), list(L.out_dims.values()),
                                                  require_surjective=False))

    mutant = Family("mutant", "distributed", "test", (("shape", ([64], [128])), ("bug", (False, True))), decide)
    monkeypatch.setitem(families.FAMILIES, "mutant", mutant)
    s = run_sweep("mutant", chunk=1)
    assert s.proved == 2 and [f["index"] for f in s.failures] == [1, 3]
    assert all(f["status"] == "refuted" and f["counterexample"] for f in s.failures)


def test_cli_lists_and_rejects_unknown_family() -> None:
    out = subprocess.run([sys.executable, "-m", "llverify.cli", "sweep", "--list"], capture_output=True, text=True)
    assert out.returncode == 0 and "prop_4_6_rank3" in out.stdout and "40,131,000" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "llverify.cli", "sweep", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown family" in bad.stderr and "Traceback" not in bad.stderr


def test_cli_json_exit_zero(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "llverify.cli", "sweep", "prop_4_6_rank2", "--limit", "400",
                          "--format", "json", "--cache", str(tmp_path / "c.sqlite")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["proved"] + doc["skipped"] == 400 and doc["refuted"] == 0
