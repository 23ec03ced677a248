"""A wgmma accumulator's ``instrShape`` K is the instruction's: 256 / element bits (k16 for 16-bit operands, k32 for
8-bit, k8 for tf32).  Another K has no ``wgmma.mma_async`` instruction: Triton's lowering asserts ("WGMMA type or
shape is not supported"), as in triton-lang/triton issue 5102 (``instrShape = [16, 64, 32]`` on bf16 operands).
The gate refutes it at the op, before the compiler crashes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

MODULE = Path(__file__).resolve().parent / "data" / "ttgir" / "matmul-t64s1-cuda_90-w4.ttgir"
RIGHT, WRONG = "instrShape = [16, 64, 16]", "instrShape = [16, 64, 32]"


def _instr_k(text: str) -> list:
    return [f for f in check_module(parse_module(text, "m.ttgir")) if f.verdict.subject.endswith("instrShape K")]


def test_triton_output_is_proved_and_a_wrong_k_refuted() -> None:
    text = MODULE.read_text()
    assert text.count(RIGHT) == 1
    assert [f.verdict.status for f in _instr_k(text)] == ["proved"]
    bad = _instr_k(text.replace(RIGHT, WRONG))
    assert [f.verdict.status for f in bad] == ["refuted"]
    assert bad[0].op == "ttng.warp_group_dot"
    assert bad[0].verdict.counterexample.sides["instrShape K"] == 32
    assert "ttng.warp_group_dot" in text.splitlines()[bad[0].location.line - 1]


_CHILD = r"""
import sys, triton
from triton.backends.compiler import GPUTarget
triton.compile(sys.argv[1], target=GPUTarget("cuda", 90, 32))
print("compiled")
"""


@pytest.mark.parametrize("wrong", [False, True])
def test_triton_lowers_the_right_k_and_aborts_on_the_wrong_one(tmp_path: Path, wrong: bool) -> None:
    """The oracle: Triton 3.9 lowers the module as compiled and aborts on the mutant (in a child: it aborts)."""
    pytest.importorskip("triton")
    path = tmp_path / "m.ttgir"
    text = MODULE.read_text()
    path.write_text(text.replace(RIGHT, WRONG) if wrong else text)
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, timeout=600)
    if wrong:
        assert proc.returncode != 0 and "WGMMA type or shape is not supported" in proc.stderr
    else:
        assert proc.returncode == 0 and "compiled" in proc.stdout, proc.stderr[-500:]
