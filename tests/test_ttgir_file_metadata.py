"""MLIR file metadata (``{-# ... #-}``) after a module: the reproducer Triton writes when a pass fails, which bug
reports paste whole, and the blobs of ``dense_resource`` constants.  It is skipped, the module is checked as
without it, and a malformed one is a located error (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llverify.errors import TtgirError
from llverify.ttgir.gate import gate_text

MODULE = """#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%arg0: !tt.ptr<f32>) {
    %0 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
    %1 = ttg.convert_layout %0 : tensor<256xi32, #blocked> -> tensor<256xi32, #blocked1>
    tt.return
  }
}
"""

REPRODUCER = """
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(tritongpu-remove-layout-conversions, convert-triton-gpu-to-llvm{compute-capability=90})",
      disable_threading: false,
      verify_each: true
    }
  }
#-}
"""


def _facts(text: str) -> list[tuple[str, str, int, str]]:
    return [(f.rule, f.op, f.location.line, f.verdict.status) for f in gate_text(text, "m.mlir")]


def test_a_reproducer_trailer_is_skipped_and_the_module_checked_as_without_it() -> None:
    plain = _facts(MODULE)
    assert any(rule == "conversion" and status == "proved" for rule, _, _, status in plain)
    assert _facts(MODULE + REPRODUCER) == plain


def test_dialect_resources_on_one_line_and_text_after_the_close() -> None:
    one_line = '{-# dialect_resources: {builtin: {blob1: "0x0400000001000000"}} #-}\n'
    assert _facts(MODULE + one_line) == _facts(MODULE)
    # before the module too (MLIR reads it anywhere at the top level): every finding one line further down
    assert _facts(one_line + MODULE) == [(r, o, line + 1, s) for r, o, line, s in _facts(MODULE)]


def test_braces_and_closing_marks_inside_strings_do_not_end_the_keys() -> None:
    text = MODULE + '{-#\n  external_resources: {r: {pipeline: "a{b, c: d}"}},\n  dialect_resources: {}\n#-}\n'
    assert _facts(text) == _facts(MODULE)


@pytest.mark.parametrize("trailer,line,words", [
    ("{-#\n  external_resources: {}\n", 10, "never closed"),
    ("{-#\n  resources: {}\n#-}\n", 10, "unknown key 'resources'"),
])
def test_malformed_metadata_is_a_located_error(trailer: str, line: int, words: str) -> None:
    with pytest.raises(TtgirError) as err:
        gate_text(MODULE + trailer, "m.mlir")
    assert f"m.mlir:{line}:1:" in str(err.value) and words in str(err.value)


def test_the_command_reads_a_reproducer_and_refuses_a_broken_one(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.mlir", tmp_path / "bad.mlir"
    good.write_text(MODULE + REPRODUCER)
    bad.write_text(MODULE + "{-#\n  external_resources: {\n")
    run = subprocess.run([sys.executable, "-m", "llverify", "ttgir", "--no-cache", str(good), str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert f"{bad}:10:1:" in run.stdout + run.stderr
    assert "0 refuted" in run.stdout and " 0 proved" not in run.stdout  # the good file's results are still there
