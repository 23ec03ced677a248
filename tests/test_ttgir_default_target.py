"""Modules without ``ttg.target``: the target named on a lit test's ``// RUN:`` lines
(llverify.ttgir.run_lines) or given with ``llverify ttgir --target`` (llverify.ttgir.default_target).

The modules are written here: a copy through shared memory (local_alloc, then local_load) whose bank
wavefronts need a target's bank model, conflict-free (``ROWS``) or with every lane of a warp in one bank
(``COLUMNS``: 32 wavefronts per access on NVIDIA's model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from llverify.ttgir.cli import ttgir
from llverify.ttgir.default_target import FROM_OPTION, FROM_RUN_LINE, choose_target, needs_target, with_target
from llverify.ttgir.modcache import key_context
from llverify.ttgir.reader import parse_module
from llverify.ttgir.run_lines import NV_LOWERING_DEFAULT, parse_target, run_commands, run_line_target, \
    run_line_targets

ROOT = Path(__file__).resolve().parents[1]

_MODULE = """#layout = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>
#rows = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#smem = #ttg.shared_memory
module attributes {{{attrs}}} {{
  tt.func public @copy(%x: tensor<32x32xf32, #layout>) -> tensor<32x32xf32, #layout> {{
    %a = ttg.local_alloc %x : (tensor<32x32xf32, #layout>) -> !ttg.memdesc<32x32xf32, #rows, #smem>
    %b = ttg.local_load %a : !ttg.memdesc<32x32xf32, #rows, #smem> -> tensor<32x32xf32, #layout>
    tt.return %b : tensor<32x32xf32, #layout>
  }}
}}
"""
ATTRS = '"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32'
#: a warp reads a row: 32 consecutive f32, one per bank
ROWS = dict(tpw="[1, 32]", wpc="[4, 1]", order="[1, 0]")
#: a warp reads a column of a row-major buffer: 32 lanes, one bank
COLUMNS = dict(tpw="[32, 1]", wpc="[1, 4]", order="[0, 1]")


def module(attrs: str = ATTRS, run: str = "", shape: dict | None = None) -> str:
    return run + _MODULE.format(attrs=attrs, **(shape or ROWS))


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def gate(*args: str):
    """The command in process: (exit code, parsed JSON report)."""
    res = CliRunner().invoke(ttgir, ["--no-cache", "--format", "json", *args])
    return res.exit_code, json.loads(res.stdout)


def shared(doc: dict) -> list[dict]:
    return [r for r in doc["results"] if r["rule"] == "shared_access"]


# --- reading RUN lines -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("run, target", [
    ("triton-opt %s --convert-triton-gpu-to-llvm='compute-capability=90 ptx-version=83' | FileCheck %s", "cuda:90"),
    ("triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=100 -cse", "cuda:100"),
    ("triton-opt %s --allocate-shared-memory-nv='compute-capability=120' | FileCheck %s", "cuda:120"),
    ("triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942 | FileCheck %s", "hip:gfx942"),
    ("triton-opt %s --convert-triton-amdgpu-to-llvm=gfx-arch=gfx950 | FileCheck %s", "hip:gfx950"),
    ('triton-opt %s -convert-triton-amdgpu-to-llvm="gfx-arch=gfx1100 ftz=True"', "hip:gfx1100"),
    ('triton-opt %s --convert-triton-amdgpu-to-llvm=gfx-arch="gfx1250"', "hip:gfx1250"),
    ("triton-opt %s -tritonamdgpu-accelerate-matmul='arch-generation-name=x arch=gfx90a'", "hip:gfx90a"),
    ("triton-opt %s --optimize-amd-lds-usage=target-arch=gfx942", "hip:gfx942"),
    ("triton-opt %s -convert-triton-to-tritongpu='target=cuda:80 num-warps=2'", "cuda:80"),
    ("triton-opt %s -convert-triton-to-tritongpu='target=hip:gfx942 num-warps=4 threads-per-warp=64'",
     "hip:gfx942"),
    ("triton-opt %s -pass-pipeline='builtin.module(convert-triton-to-tritongpu{num-warps=4 target=cuda:100},"
     "tritongpu-coalesce)'", "cuda:100"),
    ("mlir-translate --mlir-to-llvmir | llc -mtriple nvptx64-nvidia-cuda -mcpu=sm_90a", "cuda:90"),
    ("llc -mtriple amdgcn-amd-amdhsa -mcpu=gfx942", "hip:gfx942"),
    # Triton's NVIDIA lowering given no compute capability lowers for its option's default, 80
    ("triton-opt %s -split-input-file --allocate-shared-memory-nv --convert-triton-gpu-to-llvm | FileCheck %s",
     NV_LOWERING_DEFAULT),
    ("triton-opt %s -pass-pipeline='builtin.module(convert-triton-gpu-to-llvm{ptx-version=83})'",
     NV_LOWERING_DEFAULT),
])
def test_each_spelling_names_its_target(run: str, target: str) -> None:
    text = f"// RUN: {run}\n" + module()
    assert run_line_targets(text) == (target,)
    assert run_line_target(text) == target


@pytest.mark.parametrize("run", [
    "triton-opt %s -tritoninstrument-prepare-consan-captures=\"target=nvidia\"",  # a vendor, not a target
    "triton-opt %s -tritoninstrument-prepare-consan-captures=\"target=amd\"",
    "triton-opt %s -tritongpu-prefetch -canonicalize | FileCheck %s",  # a pass with no target
    "triton-opt %s --allocate-shared-memory-nv | FileCheck %s",  # no option, and not the lowering
    "triton-opt %s --convert-triton-amdgpu-to-llvm | FileCheck %s",  # AMD's lowering has no default arch
    "triton-opt %s --some-arch=gfx942 -march=gfx942 xtarget=cuda:90",  # not these keys
    "triton-opt %s compute-capability=9x arch=sm_90 target=cuda:090 -mcpu=sm_ target=hip:942",  # bad values
    "triton-opt %s --convert-triton-gpu-to-llvm-extra",  # another pass whose name starts the same
])
def test_what_names_no_target(run: str) -> None:
    assert run_line_targets(f"// RUN: {run}\n" + module()) == ()


def test_several_targets_choose_none() -> None:
    text = ("// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942 | FileCheck %s\n"
            "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx950 | FileCheck %s --check-prefix=B\n"
            "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942 | FileCheck %s --check-prefix=C\n")
    assert run_line_targets(text) == ("hip:gfx942", "hip:gfx950")
    assert run_line_target(text) is None
    # one command may name two: an explicit allocation target and the lowering's default
    two = "// RUN: opt --allocate-shared-memory-nv='compute-capability=90' --convert-triton-gpu-to-llvm\n"
    assert run_line_targets(two) == ("cuda:90", "cuda:80") and run_line_target(two) is None
    # the same target named twice is one target
    same = "// RUN: opt --allocate-shared-memory-nv=compute-capability=90 --convert-triton-gpu-to-llvm=compute-capability=90\n"
    assert run_line_target(same) == "cuda:90"


def test_continuation_lines_and_leading_block() -> None:
    text = ("// A header comment.\n"
            "\n"
            "// RUN: triton-opt %s -split-input-file \\\n"
            "// RUN:   --convert-triton-amdgpu-to-llvm=arch=gfx950 \\\n"
            "// a comment inside a continued command is not part of it\n"
            "// RUN:   | FileCheck %s\n"
            + module() +
            "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942\n")  # after the module: not leading
    assert run_commands(text) == ["triton-opt %s -split-input-file --convert-triton-amdgpu-to-llvm=arch=gfx950 "
                                  "| FileCheck %s"]
    assert run_line_targets(text) == ("hip:gfx950",)
    assert run_commands("// RUN: a \\\n// RUN: b \\") == ["a b"]  # a dangling backslash ends the command
    assert run_commands("  //RUN: a\r\n// RUN:\tb\n") == ["a", "b"]
    assert run_commands("/ RUN: a\n// RUN: b\n") == []  # a line that is not a // comment ends the block


@pytest.mark.parametrize("head, unit, count, tail", [
    ("// RUN: ", "a=b=c ", 1_700_000, "compute-capability=90"),
    ("// RUN: ", "=", 10_000_000, ""),
    ("// RUN: ", "-arch=", 1_700_000, ""),
    ("// RUN: ", "--convert-triton-gpu-to-llvm='", 350_000, ""),
    ("// RUN: ", "x --convert-triton-gpu-to-llvm{", 330_000, ""),
    ("", "// RUN: x \\\n", 800_000, "// RUN: arch=gfx942\n"),
    ("", "//\n", 3_000_000, "// RUN: target=cuda:90\n"),
    ("", " ", 10_000_000, "\n// RUN: target=cuda:90\n"),
    ("", "\n", 10_000_000, ""),
])
def test_hostile_text_is_read_in_linear_time(head: str, unit: str, count: int, tail: str) -> None:
    """About 10 MB each (built in the test, not at collection): a quadratic reading would take minutes; linear
    ones take about a second here."""
    hostile = head + unit * count + tail
    t0 = time.perf_counter()
    found = run_line_targets(hostile)
    assert time.perf_counter() - t0 < 15.0
    assert found in ((), ("cuda:90",), ("cuda:80",), ("hip:gfx942",))


@pytest.mark.parametrize("text, ok", [
    ("cuda:80", True), ("cuda:90", True), ("cuda:100", True), ("cuda:120", True), ("hip:gfx90a", True),
    ("hip:gfx942", True), ("hip:gfx950", True), ("hip:gfx1250", True), ("hip:gfx1201", True),
    ("", False), ("cuda", False), ("cuda:", False), ("cuda:9", False), ("cuda:090", False), ("cuda:9x", False),
    ("cuda:1000", False), ("sm_90", False), ("hip:942", False), ("hip:gfx", False), ("hip:gfxA42", False),
    ("HIP:gfx942", False), ("hip:gfx942 ", False), ("cuda:90\n", False), ("xpu:pvc", False),
])
def test_parse_target(text: str, ok: bool) -> None:
    assert parse_target(text) == (text if ok else None)


# --- the choice, applied ------------------------------------------------------------------------------------------

def test_choice_rule() -> None:
    gfx = "// RUN: opt --convert-triton-amdgpu-to-llvm=arch=gfx942\n"
    assert choose_target(gfx, None).target == "hip:gfx942" and choose_target(gfx, None).origin == FROM_RUN_LINE
    over = choose_target(gfx, "cuda:90")
    assert over.target == "cuda:90" and over.origin == FROM_OPTION  # the option wins over the RUN line
    none = choose_target(gfx + "// RUN: opt arch=gfx950\n", None)
    assert none.target == "" and none.named == ("hip:gfx942", "hip:gfx950")
    # a module's own target is kept; a dump snapshot is left as read
    own = parse_module(module(ATTRS + ', ttg.target = "cuda:80"'))
    assert with_target(own, over) is own and not needs_target(own)
    bare = parse_module(module())
    assert with_target(bare, over).target == "cuda:90" and bare.target == ""  # a new value; the read one unchanged
    assert not needs_target(replace(bare, stage="TritonGPUCoalesce"))


def test_threads_per_warp_is_not_defaulted_by_target() -> None:
    """Triton reads a missing ttg.threads-per-warp as 32 whatever the target (TritonGPUDialect::getThreadsPerWarp):
    a hip target from the RUN line does not make it 64."""
    text = "// RUN: opt --convert-triton-amdgpu-to-llvm=arch=gfx942\n" + module('"ttg.num-warps" = 4 : i32')
    m = with_target(parse_module(text), choose_target(text, None))
    assert m.target == "hip:gfx942" and m.threads_per_warp == 32


# --- through the command --------------------------------------------------------------------------------------------

def test_target_option_decides_the_bank_unknowns(tmp_path: Path) -> None:
    path = write(tmp_path, "bare.mlir", module())
    code, doc = gate(path)
    assert code == 3 and len(shared(doc)) == 2
    assert all(r["status"] == "unknown" and "no bank model for target ''" in r["message"] for r in shared(doc))
    code, doc = gate(path, "--target", "cuda:90")
    assert code == 0 and doc["summary"]["unknown"] == 0 and len(shared(doc)) == 2
    for r in doc["results"]:
        assert r["status"] == "proved" and r["target"] == "cuda:90"
        assert r["message"].endswith("[target cuda:90 from --target]") and r["details"]["target_origin"] == "--target"
    assert {r["details"]["bank_model"] for r in shared(doc)} == {"nvidia"}


def test_a_borrowed_target_can_fail_the_gate(tmp_path: Path) -> None:
    """Mutant: the column access (32 lanes in one bank) under the borrowed target is decided, so a policy bounding
    wavefronts fails on it; the row access passes the same policy; without a target both stay unknown."""
    policy = write(tmp_path, "policy.yaml", "defaults:\n  max_wavefronts: 4\n")
    columns = write(tmp_path, "columns.mlir", module(shape=COLUMNS))
    rows = write(tmp_path, "rows.mlir", module())
    code, doc = gate(columns, "--target", "cuda:90", "--policy", policy)
    assert code == 1
    refuted = [r for r in doc["results"] if r["status"] == "refuted"]
    assert len(refuted) == 2 and all(r["rule"] == "policy" and r["target"] == "cuda:90" for r in refuted)
    assert all(r["counterexample"]["sides"]["measured"] == 32 for r in refuted)
    assert gate(rows, "--target", "cuda:90", "--policy", policy)[0] == 0
    assert gate(columns, "--policy", policy)[0] == 3


def test_run_line_target_and_its_note(tmp_path: Path) -> None:
    run = "// RUN: triton-opt %s --convert-triton-gpu-to-llvm='compute-capability=90 ptx-version=83' | FileCheck %s\n"
    code, doc = gate(write(tmp_path, "lit.mlir", module(run=run)))
    assert code == 0 and doc["summary"]["proved"] == doc["summary"]["obligations"]
    assert all(r["target"] == "cuda:90" and r["message"].endswith("[target cuda:90 from the RUN line]")
               and r["details"]["target_origin"] == "the RUN line" for r in doc["results"])
    # text report: an unknown under a borrowed target says where the target came from
    hip = "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942\n"  # 32 lanes, CDNA3's model has 64
    res = CliRunner().invoke(ttgir, ["--no-cache", write(tmp_path, "hip.mlir", module(run=hip))])
    assert res.exit_code == 3
    lines = [x for x in res.stdout.splitlines() if "shared_access: unknown" in x]
    assert len(lines) == 2 and all("amd-cdna3-lds" in x and "[target hip:gfx942 from the RUN line]" in x
                                   for x in lines)


def test_option_wins_over_the_run_line(tmp_path: Path) -> None:
    hip = "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942\n"
    code, doc = gate(write(tmp_path, "hip.mlir", module(run=hip)), "--target", "cuda:90")
    assert code == 0 and {r["target"] for r in doc["results"]} == {"cuda:90"}
    assert {r["details"]["target_origin"] for r in doc["results"]} == {"--target"}


def test_several_run_line_targets_stay_unknown_and_say_which(tmp_path: Path) -> None:
    runs = ("// RUN: triton-opt %s --convert-triton-gpu-to-llvm=compute-capability=90\n"
            "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx950\n")
    code, doc = gate(write(tmp_path, "two.mlir", module(run=runs)))
    assert code == 3
    assert {r["target"] for r in doc["results"]} == {""}
    for r in shared(doc):
        assert r["status"] == "unknown" and "no bank model for target ''" in r["message"]
        assert "the RUN lines name cuda:90, hip:gfx950: none chosen" in r["message"]
        assert r["details"]["run_line_targets"] == ["cuda:90", "hip:gfx950"]
    # proved findings carry no note (it explains unknowns only)
    assert all("RUN lines" not in r["message"] for r in doc["results"] if r["status"] == "proved")


def test_a_module_with_its_own_target_is_unaffected(tmp_path: Path) -> None:
    own = ATTRS + ', ttg.target = "cuda:80"'
    run = "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942\n"
    path = write(tmp_path, "own.mlir", module(own, run=run))
    plain = gate(path)
    forced = gate(path, "--target", "hip:gfx950")
    assert plain[0] == forced[0] == 0

    def key(doc: dict) -> list:
        return [(r["rule"], r["status"], r["target"], r["message"], r["location"]["line"]) for r in doc["results"]]

    assert key(plain[1]) == key(forced[1])
    assert {r["target"] for r in forced[1]["results"]} == {"cuda:80"}
    assert all("target_origin" not in r["details"] for r in forced[1]["results"])


def test_several_modules_of_one_file(tmp_path: Path) -> None:
    """Each module of a split file is decided on its own: the one with ttg.target keeps it, the others borrow."""
    run = "// RUN: triton-opt %s -split-input-file --convert-triton-gpu-to-llvm=compute-capability=90\n"
    text = run + module() + "\n// -----\n\n" + module(ATTRS + ', ttg.target = "hip:gfx942"', shape=ROWS)
    code, doc = gate(write(tmp_path, "split.mlir", text))
    targets = [r["target"] for r in shared(doc)]
    assert targets == ["cuda:90", "cuda:90", "hip:gfx942", "hip:gfx942"]
    assert code == 3  # the gfx942 module's 32-lane accesses are unknown under CDNA3's 64-lane model


def test_bad_target_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, "bare.mlir", module())
    for bad in ("cuda:9x", "sm_90", "hip:942", "", "cuda:90\nsecond line", "x" * 10_000):
        res = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", "--target", bad, path],
                             capture_output=True, text=True, cwd=ROOT, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert res.returncode == 2, (bad, res.stdout, res.stderr)
        err = res.stderr.strip()
        assert "\n" not in err and err.startswith("<command line>:1:1: error: --target") and len(err) < 400
        assert "Traceback" not in res.stderr and res.stdout == ""


# --- the module cache, -j and --baseline ------------------------------------------------------------------------

def test_the_option_enters_the_cache_key(tmp_path: Path) -> None:
    assert len({key_context(False), key_context(False, "cuda:90"), key_context(False, "hip:gfx942"),
                key_context(True, "cuda:90")}) == 4
    assert key_context(False, None) == key_context(False)
    path = write(tmp_path, "bare.mlir", module())
    cache = str(tmp_path / "cache.sqlite")

    def run(*args: str):
        res = CliRunner().invoke(ttgir, ["--cache", cache, "--format", "json", path, *args])
        return res.exit_code, json.loads(res.stdout)

    first = run("--target", "cuda:90")
    again = run("--target", "cuda:90")
    assert first[0] == again[0] == 0 and first[1]["summary"]["cached_files"] == 0
    assert again[1]["summary"]["cached_files"] == 1  # stored under its key, served from it
    other = run("--target", "hip:gfx942")  # another default target: another record
    assert other[0] == 3 and other[1]["summary"]["cached_files"] == 0
    assert {r["target"] for r in other[1]["results"]} == {"hip:gfx942"}
    none = run()  # no option: neither record
    assert none[0] == 3 and none[1]["summary"]["cached_files"] == 0
    assert {r["target"] for r in none[1]["results"]} == {""}


def _results(stdout: str) -> list:
    doc = json.loads(stdout)
    return [(r["location"]["file"], r["location"]["line"], r["rule"], r["status"], r["target"], r["message"])
            for r in doc["results"]]


def test_jobs_2_equals_jobs_1(tmp_path: Path) -> None:
    """Enough text for the command to start a pool (trailing comment lines), modules that borrow their target
    from the option and from the RUN line: the workers receive the option with each unit."""
    pad = "".join(f"// padding line {i} of a module large enough for a pool\n" for i in range(1500))
    run = "// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx950\n"
    paths = [write(tmp_path, "a.mlir", module() + pad), write(tmp_path, "b.mlir", module(run=run) + pad),
             write(tmp_path, "c.mlir", module(shape=COLUMNS) + pad)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outs = []
    for jobs in ("1", "2"):
        res = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", "--format", "json",
                              "-j", jobs, "--target", "cuda:90", *paths[:1], *paths[2:]],
                             capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
        res_b = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", "--format", "json",
                                "-j", jobs, *paths], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
        outs.append((res.returncode, _results(res.stdout), res_b.returncode, _results(res_b.stdout)))
    assert outs[0] == outs[1]
    opt, by_run = outs[0][1], outs[0][3]
    assert {r[4] for r in opt} == {"cuda:90"}
    assert {r[4] for r in by_run if r[0].endswith("b.mlir")} == {"hip:gfx950"}
    assert {r[4] for r in by_run if not r[0].endswith("b.mlir")} == {""}


def test_baseline_modules_borrow_the_same_target(tmp_path: Path) -> None:
    """--baseline runs the baseline's modules under the same --target, so their kernels pair up: a conflict-free
    access that became a 32-way conflict is a regression (mutant), the same module against itself is none."""
    rows = write(tmp_path, "rows.mlir", module())
    columns = write(tmp_path, "columns.mlir", module(shape=COLUMNS))
    res = CliRunner().invoke(ttgir, ["--no-cache", columns, "--target", "cuda:90", "--baseline", rows])
    assert res.exit_code == 1 and "REGRESSION: wavefronts" in res.stdout and "kernel copy (cuda:90)" in res.stdout
    same = CliRunner().invoke(ttgir, ["--no-cache", rows, "--target", "cuda:90", "--baseline", rows])
    assert same.exit_code == 0 and "REGRESSION" not in same.stdout


def test_lowered_code_sees_the_borrowed_target(tmp_path: Path) -> None:
    """--lowered validates the .llir beside a .ttgir with the module's target: stripped of its ttg.target, a
    module given it back with --target is validated exactly as the original (its wavefront claims included)."""
    src = ROOT / "tests" / "data" / "lowered" / "cvt_mma3_to_blocked_f32-cuda_90-w4"
    stem = tmp_path / "cvt_mma3_to_blocked_f32-cuda_90-w4"
    for ext in ("llir", "json"):
        (tmp_path / f"{stem.name}.{ext}").write_bytes(Path(f"{src}.{ext}").read_bytes())
    text = Path(f"{src}.ttgir").read_text()
    bare = text.replace(', ttg.target = "cuda:90"', "").replace('ttg.target = "cuda:90", ', "")
    assert "ttg.target" not in bare
    Path(f"{stem}.ttgir").write_text(bare)

    def lowered(doc: dict) -> list:
        return sorted((r["rule"], r["status"], r["location"]["line"]) for r in doc["results"]
                      if r["rule"].startswith("lowered"))

    original = gate("--lowered", f"{src}.ttgir")[1]
    without = gate("--lowered", f"{stem}.ttgir")[1]
    given = gate("--lowered", "--target", "cuda:90", f"{stem}.ttgir")[1]
    assert lowered(given) == lowered(original) and any(r[0] == "lowered_wavefronts" for r in lowered(given))
    assert not any(r[0] == "lowered_wavefronts" for r in lowered(without))  # no target, no wavefront claims
    assert all(r["target"] == "cuda:90" and r["details"]["target_origin"] == "--target" for r in given["results"]
               if r["rule"].startswith("lowered"))
