"""The ``target_isa`` obligation: every MMA, TMA / cp.async copy and tensor-memory op asks for an instruction
family its module's ``ttg.target`` has (llverify.hw.target_isa).  Real Triton 3.9 modules prove it on every
target they were compiled for; the same modules retargeted to a target without the family are refuted at the op;
a module without a target has nothing to check."""

from __future__ import annotations

from pathlib import Path

import pytest

from llverify.hw.target_isa import has, parse_target
from llverify.ttgir.gate import gate_text

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
HUNT = CORPUS.parent / "hunt"
REAL = [*sorted((CORPUS / "more_targets").glob("*.ttgir")),
        *sorted(CORPUS.glob("attention-q128k64d64-*-w4.ttgir")), *sorted(CORPUS.glob("matmul-*-w4.ttgir"))[:6],
        *sorted((CORPUS / "scaled_dot").glob("*.ttgir")), CORPUS / "more_kernels" / "tma_matmul-cuda_90.ttgir",
        CORPUS / "pipelined_matmul-m64n64k32-cuda_80-w4.ttgir",
        HUNT / "fp8_dot_mma_v2-cuda_89.ttgir",  # Triton 3.9: an fp8 mma.sync dot on sm_89
        HUNT / "fp8e5_dot_upcast-cuda_80.ttgir"]  # on sm_80 the same dot's fp8 operands are converted to f16 first


def _isa(text: str, name: str = "m.ttgir") -> list:
    return [f for f in gate_text(text, name) if f.rule == "target_isa"]


def _retarget(path: Path, target: str) -> str:
    text = path.read_text()
    old = text.split('ttg.target = "', 1)[1].split('"', 1)[0]
    return text.replace(f'ttg.target = "{old}"', f'ttg.target = "{target}"')


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_modules_have_their_instructions(path: Path) -> None:
    found = _isa(path.read_text(), path.name)
    assert all(f.verdict.status == "proved" for f in found), [(f.op, f.verdict.message) for f in found]


def test_the_real_modules_exercise_every_family() -> None:
    subjects = " ".join(f.verdict.subject for p in REAL for f in _isa(p.read_text(), p.name))
    for family in ("mma_v2", "mma_v2_fp8", "wgmma", "tcgen05", "tma", "cp_async", "mfma v3", "mfma v4", "wmma v1", "wmma v2"):
        assert f"needs {family}" in subjects, family


@pytest.mark.parametrize("name,target,op", [
    ("attention-q128k64d64-cuda_90-w4.ttgir", "cuda:80", "ttng.warp_group_dot"),  # wgmma below sm_90
    ("attention-q128k64d64-cuda_90-w4.ttgir", "cuda:100", "ttng.warp_group_dot"),  # wgmma is sm_90a only
    ("attention-q128k64d64-cuda_100-w4.ttgir", "cuda:90", "ttng.tc_gen5_mma"),  # tcgen05 on Hopper
    ("attention-q128k64d64-cuda_100-w4.ttgir", "cuda:120", "ttng.tmem_load"),  # tensor memory on sm_120
    ("more_kernels/tma_matmul-cuda_90.ttgir", "cuda:80", "ttng.async_tma_copy_global_to_local"),
    ("pipelined_matmul-m64n64k32-cuda_80-w4.ttgir", "cuda:75", "ttg.async_copy_global_to_local"),
    ("attention-q128k64d64-hip_gfx942-w4.ttgir", "hip:gfx1100", "tt.dot"),  # MFMA on RDNA3
    ("scaled_dot/scaled_dot-e2m1-m128n128k128-hip_gfx950-w4.ttgir", "hip:gfx942", "tt.dot_scaled"),  # MFMA v4
    ("more_targets/attention-q64k64d64-hip_gfx1100-w4.ttgir", "hip:gfx1201", "tt.dot"),  # WMMA v1 on RDNA4
    ("more_targets/attention-q64k64d64-hip_gfx1100-w4.ttgir", "hip:gfx942", "tt.dot"),  # WMMA on CDNA3
    ("attention-q128k64d64-cuda_80-w4.ttgir", "hip:gfx942", "tt.dot"),  # an NVIDIA MMA on an AMD target
    ("../hunt/fp8_dot_mma_v2-cuda_89.ttgir", "cuda:86", "tt.dot"),  # fp8 mma.sync below sm_89
])
def test_a_module_retargeted_to_a_target_without_the_family_is_refuted(name: str, target: str, op: str) -> None:
    path = CORPUS / name
    refuted = [f for f in _isa(_retarget(path, target)) if f.verdict.status == "refuted"]
    assert refuted and any(f.op == op for f in refuted), [(f.op, f.verdict.message) for f in _isa(_retarget(path, target))]
    f = next(f for f in refuted if f.op == op)
    assert f.location.line > 0 and target in f.verdict.message
    assert f.verdict.counterexample is not None and f.verdict.counterexample.inputs["target"] == target


@pytest.mark.parametrize("name,lanes,op", [
    ("attention-q128k64d64-hip_gfx942-w4.ttgir", 32, "tt.dot"),  # MFMA in a wave32 module: CDNA has no wave32
    ("attention-q128k64d64-cuda_90-w4.ttgir", 64, "ttng.warp_group_dot"),  # a 64-lane NVIDIA warp
])
def test_a_family_in_the_wrong_warp_size_is_refuted(name: str, lanes: int, op: str) -> None:
    text = (CORPUS / name).read_text()
    old = text.split('"ttg.threads-per-warp" = ', 1)[1].split(" ", 1)[0]
    mutant = text.replace(f'"ttg.threads-per-warp" = {old}', f'"ttg.threads-per-warp" = {lanes}')
    assert mutant != text
    refuted = [f for f in _isa(mutant) if f.verdict.status == "refuted" and f.op == op]
    assert refuted and f"{lanes}" in refuted[0].verdict.message
    # a module that does not state its warp size is not compared (the reader's default is no claim of the module)
    unstated = text.replace(f'"ttg.threads-per-warp" = {old} : i32', "").replace(", }", " }").replace("{, ", "{")
    assert "threads-per-warp" not in unstated.split("tt.func")[0]
    assert all(f.verdict.status == "proved" for f in _isa(unstated) if f.op == op)


def test_no_target_no_finding_and_an_unknown_architecture_is_unknown() -> None:
    path = CORPUS / "attention-q128k64d64-hip_gfx942-w4.ttgir"
    text = path.read_text()
    assert _isa(text.replace('ttg.target = "hip:gfx942", ', "")) == []
    found = _isa(_retarget(path, "hip:gfx1300"))
    assert found and all(f.verdict.status == "unknown" for f in found)


def test_the_table_against_the_vendors_statements() -> None:
    # one row per family at its boundaries (PTX ISA target requirements; AMD ISA references)
    rows = [("cuda:75", "mma_v2", 2, True), ("cuda:70", "mma_v2", 2, False), ("cuda:90", "wgmma", 3, True),
            ("cuda:89", "wgmma", 3, False), ("cuda:100", "wgmma", 3, False), ("cuda:100", "tcgen05", None, True),
            ("cuda:110", "tcgen05", None, True), ("cuda:120", "tcgen05", None, False),
            ("cuda:121", "mma_block_scale", 2, True), ("cuda:100", "mma_block_scale", 2, False),
            ("cuda:90", "tma", None, True), ("cuda:89", "tma", None, False), ("cuda:80", "cp_async", None, True),
            ("cuda:75", "cp_async", None, False), ("cuda:89", "mma_v2_fp8", 2, True),
            ("cuda:86", "mma_v2_fp8", 2, False), ("cuda:120", "mma_v2_fp8", 2, True), ("hip:gfx908", "mfma", 1, True), ("hip:gfx908", "mfma", 2, False),
            ("hip:gfx90a", "mfma", 2, True), ("hip:gfx950", "mfma", 4, True), ("hip:gfx1250", "mfma", 3, False),
            ("hip:gfx1151", "wmma", 1, True), ("hip:gfx1200", "wmma", 2, True), ("hip:gfx1250", "wmma", 3, True),
            ("hip:gfx1250", "wmma", 2, False), ("hip:gfx942", "wmma", 1, False), ("cuda:90", "mfma", 3, False)]
    assert [has(parse_target(t), f, v) for t, f, v, _ in rows] == [want for *_, want in rows]
