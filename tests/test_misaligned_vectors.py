"""``vector_alignment``: a padded shared layout whose padding is not a multiple of the vector size makes Triton 3.9's
16-byte shared stores misaligned, which faults on NVIDIA.

Evidence (tests/data/padded_misaligned/h200_run.json): Triton 3.9's cubin of ``pad4.ttgir`` (a 64x64 f16 tile, 8
elements per thread per row, padded ``[32:+4, 256:+8]``) fails on an H200 with ``cudaErrorMisalignedAddress``;
compute-sanitizer names 16-byte shared writes of threads 100-103; the control ``pad8`` (``[32:+8, 256:+8]``, every
run 16-byte aligned) copies the tile exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from llverify.codegen.bank_sim import MisalignedVectors, simulate_wavefronts
from llverify.codegen.banks import access_to_offsets
from llverify.hw.padded import padded_shared
from llverify.hw import build
from llverify.ttgir.gate import gate_file
from llverify.ttgir.layouts import layout_of
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).parent / "data" / "padded_misaligned"


def _store(name: str):
    module = parse_module((DATA / name).read_text(), name)
    op = next(op for _, op, _ in module.walk() if op.name == "ttg.local_store")
    return layout_of(op.operand_types[0]), layout_of(op.operand_types[1])


def test_the_faulting_store_is_refuted_and_the_aligned_control_is_proved() -> None:
    bad = [f for f in gate_file(str(DATA / "pad4.ttgir")).findings if f.verdict.status != "proved"]
    assert [(f.op, f.verdict.property, f.verdict.status) for f in bad] == [
        ("ttg.local_store", "bank_conflicts", "unknown"), ("ttg.local_store", "vector_alignment", "refuted")]
    cx = bad[1].verdict.counterexample
    assert cx.sides["vector bytes"] == 16
    assert (cx.sides["this vector's first byte"] - cx.sides["another vector's first byte"]) % 16 != 0
    assert bad[1].source is not None and bad[1].source.line == 21  # buf.store(v) in examples/kernels/gluon_padded.py
    good = gate_file(str(DATA / "pad8.ttgir")).findings
    assert {f.verdict.status for f in good} == {"proved"}


def test_the_witness_is_where_the_hardware_faulted() -> None:
    """Each thread compute-sanitizer names writes its first vector at the byte the layouts give, plus one base
    offset common to all (the buffer's place in Triton's shared memory, a multiple of 16); that byte is 8 mod 16."""
    R, M = _store("pad4.ttgir")
    cvt = access_to_offsets(R.layout, M.layout)
    run = json.loads((DATA / "h200_run.json").read_text())
    assert [r["launched"] for r in run["runs"]] == [False, True] and "Misaligned" in run["runs"][0]["error"]
    bases = set()
    for fault in run["compute_sanitizer_pad4"]:
        t = fault["thread"]
        offset = int(cvt.apply({"register": 0, "lane": t % 32, "warp": t // 32, "block": 0})["offset"])
        byte = int(M.padding.apply(np.array([offset]))[0]) * 2
        assert byte % 16 == 8
        bases.add(int(fault["address"], 16) - byte)
    assert len(bases) == 1 and next(iter(bases)) % 16 == 0


def test_the_simulator_replays_both_vectors() -> None:
    """Rows of 64 f16, 8 per thread: padding 4 elements per 32 puts the run at column 32 of row 0 at byte 72."""
    reg = build("blocked", [64, 64], size_per_thread=[1, 8], threads_per_warp=[4, 8], warps_per_cta=[4, 1],
                order=[1, 0])
    M, pad = padded_shared([[32, 4], [256, 8]], [64, 64], order=[1, 0])
    with pytest.raises(MisalignedVectors) as info:
        simulate_wavefronts(reg, M, 16, padding=pad, direction="store")
    e = info.value
    assert e.align == 16 and e.first["byte"] == 0
    assert e.second["element"] == {"dim0": 0, "dim1": 32} and e.second["byte"] == 72
    # aligned padding: simulated, no error
    M8, pad8 = padded_shared([[32, 8], [256, 8]], [64, 64], order=[1, 0])
    assert simulate_wavefronts(reg, M8, 16, padding=pad8, direction="store").vector.bits == 128


def test_amd_keeps_it_unknown() -> None:
    """The same kind of store on gfx942 (wave64, the corpus's Gluon padded kernel): the simulator finds the pair,
    but no fault of a misaligned ds_write_b128 has been shown, so the access stays unknown, naming the pair."""
    path = Path(__file__).parent / "data" / "ttgir" / "padded" / "gluon_padded_wave64-pad4b-hip_gfx942-w4.ttgir"
    found = [f for f in gate_file(str(path)).findings if f.op == "ttg.local_store"]
    assert not [f for f in found if f.verdict.property == "vector_alignment"]
    banks = [f.verdict for f in found if f.verdict.property == "bank_conflicts"]
    assert [v.status for v in banks] == ["unknown"] and "whatever the buffer's base" in banks[0].message
    assert banks[0].details["misaligned"]["second"]["byte"] % 16 != 0


_PTX_CHILD = r'''
import json, re, sys, warnings
warnings.filterwarnings("ignore")
import triton
from triton.backends.compiler import GPUTarget
out = {}
for path in sys.argv[1:]:
    ptx = triton.compile(path, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
    out[path] = sorted(set(re.findall(r"st\.shared(?:\.v\d)?\.b\d+", ptx)))
print(json.dumps(out))
'''


def test_triton_stores_the_16_byte_vectors_the_refutation_assumes(tmp_path: Path) -> None:
    """The refutation rests on the vector width Triton 3.9 picks: its PTX of both refuted modules (the example's
    and the corpus's Gluon padded kernel) stores 16-byte vectors (``st.shared.v4.b32``)."""
    import subprocess
    import sys

    pytest.importorskip("triton")
    paths = [str(DATA / "pad4.ttgir"),
             str(Path(__file__).parent / "data" / "ttgir" / "padded" / "gluon_padded-pad4b-cuda_90-w4.ttgir")]
    env = {"TRITON_CACHE_DIR": str(tmp_path / "cache"), "TRITON_DEFAULT_FP_FUSION": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", _PTX_CHILD, *paths], capture_output=True, text=True, timeout=300,
                          env=env)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    for p in paths:
        assert "st.shared.v4.b32" in got[p], (p, got[p])
        refuted = [f for f in gate_file(p).findings if f.verdict.property == "vector_alignment"]
        assert [f.verdict.details["vector_bytes"] for f in refuted] == [16]


def test_narrower_vectors_fault_exactly_where_refuted() -> None:
    """8-byte (st.shared.v4.b16) and 4-byte (st.shared.v2.b16) vectors through paddings of fewer bytes fault on the
    H200, and the gate refutes exactly those two, with the vector size Triton used; the controls, padded by a
    multiple of the vector, run correctly and are proved."""
    runs = json.loads((DATA / "h200_run.json").read_text())["narrower_vectors"]["runs"]
    for name, run in runs.items():
        found = gate_file(str(DATA / f"{name}.ttgir")).findings
        refuted = [f.verdict.details["vector_bytes"] for f in found if f.verdict.property == "vector_alignment"]
        if run["launched"]:
            assert run["y_equals_x"] and not refuted
            assert [f.verdict.status for f in found if f.verdict.property == "bank_conflicts"] == ["proved", "proved"]
        else:
            assert "Misaligned" in run["error"]
            assert refuted == [8 if name.startswith("spt4") else 4]
