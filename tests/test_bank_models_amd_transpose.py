"""gfx950 loads that Triton lowers to LDS transpose reads (``ds_read_b64_tr_b16``) are never counted as plain
``ds_read`` vectors: the gate's bank claim for them is ``unknown`` with the reason.

Oracle: Triton 3.9's own gfx950 lowering (``tests/_amd_rotating_child.py``, a child process) of corpus modules;
every ``llvm.amdgcn.ds.read.tr*`` call is tied by its debug location (the Python source line) to the
``ttg.local_load`` ops of that line.  Soundness needs every such op flagged; the test also checks that no other
load is (precision on this corpus).  Mutants: the K dimensions of the two operands swapped, and no check at all,
both let transpose reads pass as plain ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.codegen import lds_transpose
from llverify.hw import build
from llverify.ttgir import rules_memory
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules import clear_caches

HERE = Path(__file__).parent
MODULES = ["matmul-t64s1-hip_gfx950-w4.ttgir", "attention-q64k64d64-hip_gfx950-w4.ttgir",
           "transpose-m64n64-hip_gfx950-w4.ttgir"]


def _lowered(names: list[str]) -> dict[str, str]:
    items = [{"ttgir": (HERE / "data" / "ttgir" / n).read_text(), "arch": "gfx950"} for n in names]
    proc = subprocess.run([sys.executable, str(HERE / "_amd_rotating_child.py")], input=json.dumps(items),
                          capture_output=True, text=True, timeout=900)
    out = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(out) == len(names) and all(r["ok"] for r in out), proc.stderr[-300:]
    return {n: r["llir"] for n, r in zip(names, out)}


@pytest.fixture(scope="module")
def lowered() -> dict[str, str]:
    return _lowered(MODULES)


def _transpose_read_loads(name: str, llir: str) -> set[int]:
    """TTGIR lines of the ``ttg.local_load`` ops whose source line carries a ``ds.read.tr`` call."""
    locs = dict(re.findall(r"^(![0-9]+) = !DILocation\(line: ([0-9]+)", llir, re.M))
    src_lines = {int(locs[m]) for m in re.findall(r"ds\.read\.tr[^\n]*!dbg (![0-9]+)", llir)}
    module = parse_module((HERE / "data" / "ttgir" / name).read_text(), name)
    return {op.location.line for _, op, _ in module.walk()
            if op.name == "ttg.local_load" and op.source is not None and op.source.line in src_lines}


def _flagged(name: str) -> set[int]:
    clear_caches()  # decided afresh: a mutant patched into the rule must not meet verdicts memoised before
    module = parse_module((HERE / "data" / "ttgir" / name).read_text(), name)
    return {f.location.line for f in check_module(module)
            if f.verdict.property == "bank_conflicts" and "transpose read" in f.verdict.message}


def test_every_transpose_read_is_unknown(lowered) -> None:
    total = 0
    for name in MODULES:
        want = _transpose_read_loads(name, lowered[name])
        assert _flagged(name) == want, name
        total += len(want)
    assert total >= 4   # the matmul's B operand and attention's V operand loads


def test_the_mutant_with_the_k_dims_swapped_misses_them(lowered, monkeypatch) -> None:
    """K of operand 0 taken as rank - 2 (and of operand 1 as rank - 1): the B loads pass as plain reads."""
    real = rules_memory._dot_k_dim

    def swapped(reg):
        k = real(reg)
        return k if k is None or k < 0 else len(reg.shape) * 2 - 3 - k
    monkeypatch.setattr(rules_memory, "_dot_k_dim", swapped)
    name = MODULES[0]
    assert _transpose_read_loads(name, lowered[name]) - _flagged(name)


def test_the_mutant_without_the_check_misses_them(lowered, monkeypatch) -> None:
    monkeypatch.setattr(rules_memory, "transposed_read_reason", lambda *a, **k: None)
    name = MODULES[1]
    assert _transpose_read_loads(name, lowered[name]) and not _flagged(name)


def test_predicate() -> None:
    rows = build("swizzled_shared", [32, 64], vec=8, per_phase=1, max_phase=8, order=[1, 0])   # dim 1 contiguous
    cols = build("swizzled_shared", [32, 64], vec=1, per_phase=1, max_phase=1, order=[0, 1])
    assert lds_transpose.contiguous_dim(rows) == 1 and lds_transpose.contiguous_dim(cols) == 0
    why = lds_transpose.transposed_read_reason
    assert why("hip:gfx950", rows, 16, k_dim=0) and why("hip:gfx950", cols, 8, k_dim=1)
    assert why("hip:gfx950", rows, 16, k_dim=lds_transpose.UNKNOWN_K)        # cannot tell: unknown
    assert why("hip:gfx950", rows, 16, k_dim=1) is None                       # K contiguous: plain ds_read
    assert why("hip:gfx950", rows, 32, k_dim=0) is None                       # no 32-bit transpose read
    assert why("hip:gfx950", rows, 16, k_dim=None) is None                    # not a dot operand
    assert why("hip:gfx942", rows, 16, k_dim=0) is None and why("cuda:90", rows, 16, k_dim=0) is None
