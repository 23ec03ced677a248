"""GPU side of the harness (``pytest -m gpu``): real kernels, bit for bit, on a CUDA device.

Skipped without CuPy or a GPU.  The full suite with timings and ncu is
``python3 -m llverify.gpu bench`` (see docs/gpu.md); these tests keep to the
64x64 cases so they finish in about a minute.
"""

from __future__ import annotations

import pytest

from llverify.gpu.runner import gpu_unavailable

pytestmark = pytest.mark.gpu

_WHY = gpu_unavailable()
skip_no_gpu = pytest.mark.skipif(_WHY is not None, reason=f"no GPU: {_WHY}")


@skip_no_gpu
def test_quick_suite_is_bit_exact_on_the_gpu(tmp_path):
    from llverify.gpu.cases import suite
    from llverify.gpu.runner import check_case, compile_kernels

    cases = suite(quick=True)
    kernels = [c.kernel() for c in cases]
    fns = compile_kernels(kernels, tmp_path / "cubins")
    bad = []
    for c, k in zip(cases, kernels):
        chk = check_case(fns[k.name], k, c.maps()[1], c.dtype)
        if not chk.bit_exact:
            bad.append(f"{c.name}: {chk.mismatch}")
    assert not bad, "\n".join(bad)


@skip_no_gpu
def test_nvrtc_compiles_and_runs_the_generated_code():
    import cupy

    from llverify.gpu.cases import suite
    from llverify.gpu.runner import check_case

    picked = {}
    for c in suite(quick=True):
        picked.setdefault((c.dtype, c.variant), c)
    for c in picked.values():
        k = c.kernel()
        fn = cupy.RawModule(code=k.code).get_function(k.name)
        chk = check_case(fn, k, c.maps()[1], c.dtype)
        assert chk.bit_exact, f"{c.name} (NVRTC): {chk.mismatch}"


@skip_no_gpu
def test_a_broken_kernel_is_caught(tmp_path):
    """Mutant: swap two store offsets in the generated code; the check must report the mismatch."""
    import dataclasses

    from llverify.gpu.cases import suite
    from llverify.gpu.runner import check_case, compile_kernels

    c = next(x for x in suite(quick=True) if x.variant == "unswizzled" and x.dtype == "f32")
    k = c.kernel()
    lines = k.code.splitlines()
    stores = [i for i, ln in enumerate(lines) if "reinterpret_cast" in ln and "smem + " in ln and "a_off" in ln]
    assert len(stores) >= 2
    i, j = stores[0], stores[1]
    ai, aj = lines[i].split(" = ", 1), lines[j].split(" = ", 1)
    lines[i], lines[j] = ai[0] + " = " + aj[1], aj[0] + " = " + ai[1]
    bad = dataclasses.replace(k, code="\n".join(lines) + "\n", name=k.name)
    fns = compile_kernels([bad], tmp_path / "mutant")
    chk = check_case(fns[bad.name], bad, c.maps()[1], c.dtype)
    assert not chk.bit_exact and "expected" in chk.mismatch


@skip_no_gpu
def test_peak_and_timing_are_positive():
    from llverify.gpu.cases import suite
    from llverify.gpu.runner import compile_kernels, measure_peak, time_case

    peak = measure_peak(iters=256)
    assert peak["peak_bytes_per_s"] > 1e12
    c = next(x for x in suite(quick=True) if x.variant == "optimal" and x.dtype == "f16")
    k = c.kernel()
    fn = compile_kernels([k])[k.name]
    t = time_case(fn, k, c.maps()[1], c.dtype, n_blocks=264, extra_reps=16, iters=5)
    assert t.kernel_us > 0 and t.kernel_us_extra > t.kernel_us and t.bit_exact_large


def _triton_gpu_missing() -> str | None:
    try:
        import torch
        import triton  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None if torch.cuda.is_available() else "torch sees no CUDA device"


@pytest.mark.skipif(_triton_gpu_missing() is not None, reason=f"no Triton GPU: {_triton_gpu_missing()}")
def test_tritons_own_conversions_are_bit_exact_and_placed_as_modelled():
    """Issue 17: every Gluon conversion of the device suite, compiled by the Triton installed beside the GPU:
    the output equals the input, and every element was stored by a thread that llverify's model of the
    destination layout says holds it."""
    from llverify.gpu.triton_cvt import placement
    from llverify.gpu.triton_cvt_device import run

    results = run(None, timing=False)
    assert len(results) >= 14
    errors = [r["name"] + ": " + r["error"] for r in results if "error" in r]
    assert not errors, errors
    assert all(r["bit_exact"] for r in results), [r["name"] for r in results if not r["bit_exact"]]
    for r in results:
        p = placement(r["ttgir"], r["tid"])
        assert p["placement_exact"], (r["name"], p)
