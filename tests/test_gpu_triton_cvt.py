"""Triton's own conversions on the H200 (issue 17): CPU side. The device script's kernels compile for sm_90
with the installed Triton, and the committed H200 run is re-analysed here: bit-exact, placement equal to
llverify's model of the destination layout, store wavefronts predicted from the real addresses = measured."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llverify.gpu.triton_cvt import analyse

RUN = Path(__file__).resolve().parents[1] / "reports" / "gpu" / "triton"


def test_committed_h200_run_reanalyses() -> None:
    rows = analyse(str(RUN / "cvt.json"), str(RUN / "ncu.csv"))
    assert len(rows) == 24  # 14 of Triton's conversions + 10 with llverify's optimal swizzle
    assert all(r["bit_exact"] and r["placement_exact"] for r in rows)
    for r in rows:  # stores: predicted from the LLVM IR's addresses = the hardware counters
        assert r["wavefronts_predicted"]["store"] == r["wavefronts_measured"]["store"], r["name"]
    committed = json.loads((RUN.parent / "triton_conversions.json").read_text())["cases"]
    assert [c["name"] for c in committed] == [r["name"] for r in rows]


def test_placement_check_catches_a_wrong_thread() -> None:
    doc = json.loads((RUN / "cvt.json").read_text())
    rec = doc["cases"][2]
    rec["tid"] = [(t + 1) % (32 * rec["warps"]) for t in rec["tid"]]  # every element claimed by the next thread
    from llverify.gpu.triton_cvt import placement

    got = placement(rec["ttgir"], rec["tid"])
    assert got["placement_exact"] is False and got["misplaced"] > 0


def test_device_kernels_compile_for_sm90_on_cpu(tmp_path) -> None:
    pytest.importorskip("triton")
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.experimental.gluon._runtime import GluonASTSource
        from llverify.gpu import triton_cvt_device as d
        k = d._kernel()
        n = 0
        for name, warps, src, dst in d.cases()[:3]:
            triton.compile(GluonASTSource(fn=k, signature={{"x": "*i32", "y": "*i32", "tid": "*i32",
                           "SRC": "constexpr", "DST": "constexpr"}}, constexprs={{"SRC": src, "DST": dst}}),
                           target=GPUTarget("cuda", 90, 32), options={{"num_warps": warps}})
            n += 1
        print("compiled", n)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={"TRITON_CACHE_DIR": str(tmp_path), "TRITON_DEFAULT_FP_FUSION": "1",
                               "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert "compiled 3" in proc.stdout, proc.stderr[-2000:]


def test_committed_corpus_run_reanalyses() -> None:
    """The H100 run of every 2-D convert_layout of the sm_90 corpus (reports/gpu/triton_corpus)."""
    base = RUN.parent / "triton_corpus"
    rows = analyse(str(base / "cvt.json"), str(base / "ncu.csv"))
    assert len(rows) == 28
    assert all(r["bit_exact"] and r["placement_exact"] for r in rows)
    assert all(r["wavefronts_predicted"]["store"] == r["wavefronts_measured"]["store"] for r in rows)


def test_corpus_cases_are_the_corpus_conversions() -> None:
    """The committed case list is what corpus_conversions extracts from tests/data/ttgir today."""
    from llverify.gpu.triton_cvt import CORPUS_CASES, corpus_conversions

    corpus = Path(__file__).resolve().parent / "data" / "ttgir"
    assert json.loads(CORPUS_CASES.read_text()) == corpus_conversions(corpus)


def test_committed_staging_run_reanalyses() -> None:
    """The H100 run of the corpus's real local_alloc + local_load pairs, the kernel's shared layout and
    llverify's optimal swizzle (reports/gpu/triton_staging)."""
    from llverify.gpu.triton_cvt import STAGING_CASES, staging_pairs

    base = RUN.parent / "triton_staging"
    rows = analyse(str(base / "cvt.json"), str(base / "ncu.csv"))
    assert len(rows) == 32 and all(r["bit_exact"] and r["placement_exact"] for r in rows)
    assert all(r["wavefronts_predicted"]["store"] == r["wavefronts_measured"]["store"] for r in rows)
    corpus = Path(__file__).resolve().parent / "data" / "ttgir"
    assert json.loads(STAGING_CASES.read_text()) == staging_pairs(corpus)


def test_the_analysis_needs_no_z3() -> None:
    """The GPU machine has no z3: the analysis of a run (placement, wavefronts from the real addresses) must
    import and run without it (checked in a child whose z3 import fails)."""
    code = ("import sys; sys.modules['z3'] = None\n"
            "from llverify.gpu.triton_cvt import analyse\n"
            f"rows = analyse({str(RUN / 'cvt.json')!r}, {str(RUN / 'ncu.csv')!r})\n"
            "assert len(rows) == 24 and all(r['placement_exact'] for r in rows)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-800:]
