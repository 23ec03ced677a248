"""Pass-by-pass validation of real MLIR_ENABLE_DUMP output, and shadow mode (the Triton hook and the pytest
plugin) on real compiles.  Compiles run in child processes (Triton can abort)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("triton")

from llverify.ttgir.gate import gate_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "examples" / "kernels"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "triton-cache"), "TRITON_DEFAULT_FP_FUSION": "1",
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(KERNELS)]), **extra}


def _dump(tmp_path: Path, kernel: str, config: str) -> Path:
    script = textwrap.dedent(f"""
        import triton
        from triton.compiler import ASTSource
        from triton.backends.compiler import GPUTarget
        from {kernel} import CASES
        case = CASES[0]
        cfg = case.configs[{config!r}]
        sig = dict(case.signature, **{{k: "constexpr" for k in cfg}})
        triton.compile(ASTSource(fn=case.fn, signature=sig, constexprs=cfg), target=GPUTarget("cuda", 90, 32),
                       options={{"num_warps": 4}})
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env=_env(tmp_path, MLIR_ENABLE_DUMP="1"), cwd=KERNELS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    path = tmp_path / f"{kernel}.mlir"
    path.write_text(proc.stderr)
    return path


@pytest.mark.parametrize("kernel,config", [("matmul", "t128s3"), ("attention", "q64k64d64")])
def test_real_dump_validates_pass_by_pass(tmp_path, kernel, config) -> None:
    dump = _dump(tmp_path, kernel, config)
    res = gate_file(str(dump))
    assert res.modules > 40 and not res.errors
    bad = [f for f in res.findings if f.verdict.status in ("refuted", "error")]
    assert not bad, [(f.stage, f.rule, f.verdict.message) for f in bad[:5]]
    passes = [f for f in res.findings if f.rule == "pass_preserves_data"]
    assert passes and any(f.verdict.details.get("conversions_inserted") or f.verdict.details.get("conversions_removed")
                          for f in passes)
    stages = {f.stage for f in res.findings}
    assert any("RemoveLayoutConversions" in s for s in stages)
    # chains of conversions: every use a pass changed composes and is fed from the same value (by location);
    # RemoveLayoutConversions shortens chains; the matmul's CSE merges two identical expand_dims, the
    # attention's canonicaliser folds convert(make_range) into a make_range at the conversion's location
    chains = [f for f in res.findings if f.rule == "conversion_chain"]
    assert chains and all(f.verdict.status == "proved" for f in chains), [f.verdict.message for f in chains][:3]
    removal = [f for f in chains if f.stage.startswith("TritonGPURemoveLayoutConversions")]
    assert any(f.verdict.details["chains_shortened"] for f in removal)
    assert sum(f.verdict.certificate["chains_composed"] for f in chains) > 20
    key = {"matmul": "roots_merged_by_cse", "attention": "roots_folded"}[kernel]
    assert any(f.verdict.details[key] for f in chains)


def test_a_conversion_chain_that_does_not_compose_is_refuted(tmp_path) -> None:
    dump = _dump(tmp_path, "matmul", "t64s1")
    text = dump.read_text()
    start = text.index("// -----// IR Dump Before TritonGPURemoveLayoutConversions")
    end = text.find("// -----//", start + 10)
    snapshot = text[start:end]
    # a conversion A -> C becomes the chain A -> C, then C read as if it were A -> C: it no longer composes
    # (a 2-D tile with no dimension of 1: its two blocked layouts differ as maps, not only as printed)
    m = re.search(r"^(\s*)(%[\w]+) = ttg\.convert_layout (%[\w]+) : (tensor<[1-9]\d+x[1-9]\d+x[^,]*, #blocked\d*>)"
                  r" -> (tensor<[^,]*, #blocked\d*>) (loc\([^)]*\))$", snapshot, re.M)
    assert m, "no 2-D blocked -> blocked conversion in the snapshot"
    ind, res, src, ta, tc, loc = m.groups()
    assert ta != tc
    second = f"{ind}{res} = ttg.convert_layout {res}_mid : {ta} -> {tc} {loc}"
    chain = f"{ind}{res}_mid = ttg.convert_layout {src} : {ta} -> {tc} {loc}\n{second}"
    text = text[:start] + snapshot.replace(m.group(0), chain, 1) + text[end:]
    line_no = text.splitlines().index(second) + 1
    mutated = tmp_path / "mutated-chain.mlir"
    mutated.write_text(text)
    res = gate_file(str(mutated))
    hits = [f for f in res.findings if f.rule == "conversion_chain" and f.verdict.status == "refuted"]
    assert hits and {f.location.line for f in hits} == {line_no}, [(f.location.line, f.stage) for f in hits]
    assert all(f.stage == "TritonGPURemoveLayoutConversions" for f in hits)


def test_a_pass_that_changes_a_tensor_is_refuted(tmp_path) -> None:
    dump = _dump(tmp_path, "matmul", "t64s1")
    text = dump.read_text()
    heads = [m.start() for m in re.finditer(r"^// -----// IR Dump Before TritonGPUOptimizeDotOperands", text, re.M)]
    assert heads
    start = heads[0]
    end = text.find("// -----//", start + 10)
    snapshot = text[start:end]
    m = re.search(r"^(\s*%\w+ = tt\.load [^\n]*?: tensor<)64x32x", snapshot, re.M)
    assert m, "no 64x32 load in the snapshot"
    line_text = snapshot[m.start():snapshot.find("\n", m.start())]
    mutated_line = line_text.replace("tensor<64x32x", "tensor<64x16x", 1)
    text = text[:start] + snapshot.replace(line_text, mutated_line, 1) + text[end:]
    line_no = text[:text.find(mutated_line)].count("\n") + 1
    mutated = tmp_path / "mutated.mlir"
    mutated.write_text(text)
    res = gate_file(str(mutated))
    hits = [f for f in res.findings if f.rule == "pass_preserves_data" and f.verdict.status == "refuted"]
    assert hits and any(f.location.line == line_no for f in hits), [(f.location.line, f.stage) for f in hits]


THREE = textwrap.dedent("""
    import triton, triton.language as tl
    from triton.compiler import ASTSource
    from triton.backends.compiler import GPUTarget

    @triton.jit
    def add_one(x, y, N: tl.constexpr):
        o = tl.arange(0, N)
        tl.store(y + o, tl.load(x + o) + 1)

    @triton.jit
    def row_sums(x, y, N: tl.constexpr):
        o = tl.arange(0, N)
        tl.store(y + o, tl.sum(tl.load(x + o[:, None] * N + o[None, :]), axis=1))

    @triton.jit
    def flip(x, y, N: tl.constexpr):
        o = tl.arange(0, N)
        tl.store(y + o[:, None] * N + o[None, :], tl.trans(tl.load(x + o[:, None] * N + o[None, :])))

    def compile_all():
        for fn in (add_one, row_sums, flip):
            triton.compile(ASTSource(fn=fn, signature={"x": "*fp32", "y": "*fp32", "N": "constexpr"},
                                     constexprs={"N": 64}), target=GPUTarget("cuda", 90, 32))

    if __name__ == "__main__":
        compile_all()
""")


def test_shadow_mode_gates_three_kernels(tmp_path) -> None:
    script = tmp_path / "three.py"
    script.write_text(THREE)
    out = tmp_path / "gate.json"
    for _ in range(2):  # the second run is served from Triton's cache: still three kernels
        proc = subprocess.run([sys.executable, "-m", "llverify.triton_gate", str(script)], capture_output=True,
                              text=True, timeout=600,
                              env=_env(tmp_path, LLVERIFY_GATE_FORMAT="json", LLVERIFY_GATE_OUTPUT=str(out)))
        assert proc.returncode == 0, proc.stderr[-2000:]
        doc = json.loads(out.read_text())
        assert sorted({r["kernel"] for r in doc["results"]}) == ["add_one", "flip", "row_sums"]
        assert doc["summary"]["refuted"] == 0 and doc["summary"]["proved"] > 10


def test_pytest_plugin_option(tmp_path) -> None:
    (tmp_path / "kernels3.py").write_text(THREE)
    (tmp_path / "test_k.py").write_text("from kernels3 import compile_all\n\ndef test_compiles():\n    compile_all()\n")
    from importlib.metadata import entry_points

    # installed from pyproject, the plugin is registered by its pytest11 entry point; from a bare checkout, load it
    registered = any(ep.value == "llverify.triton_gate" for ep in entry_points(group="pytest11"))
    plugin = [] if registered else ["-p", "llverify.triton_gate"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *plugin, "--llverify-gate",
                           "-p", "no:cacheprovider", str(tmp_path / "test_k.py")], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env=_env(tmp_path, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}"))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "llverify gate" in proc.stdout and "0 refuted" in proc.stdout
    assert "in 3 modules" in proc.stdout
