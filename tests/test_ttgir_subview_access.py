"""A shared access through a subview (``ttg.memdesc_subslice``: a window of an allocation) is counted as the
window's access of the whole buffer (``rules_memory.subview_access``).  Checked against concrete addresses: for
every window offset Triton allows, the byte address of each lane's vector is the buffer layout's offset of the
element's coordinate in the *allocation*, and NVIDIA's bank rule written out from its definition
(``tests/bank_rules.py``) gives the gate's count at every offset.  A gate that built the window as a buffer of its
own (rows of the view's width) would count differently, and does here.  Matrix reads of windows: the
instructions and counts Triton 3.9 emits for the corpus's sm_80 pipelined matmul."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from llverify.hw import build
from llverify.triton.parse import layout_from_attr
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

from bank_rules import wavefronts_by_definition  # tests/bank_rules.py (tests/ is on sys.path: conftest.py)

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]}>"
SWIZZLED = {"vec": 8, "per_phase": 1, "max_phase": 8, "order": [1, 0]}


def module(offset: int, target: str = "cuda:80", shared: str = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, "
           "maxPhase = 8, order = [1, 0]}>", result: str = "#blocked") -> str:
    return f"""#blocked = {BLOCKED}
#shared = {shared}
#mma = #ttg.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%arg0: tensor<64x64xf16, #blocked>) {{
    %0 = ttg.local_alloc %arg0 : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %1 = ttg.memdesc_subslice %0 [0, {offset}] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x16xf16, #shared, #smem, mutable, 64x64>
    %2 = ttg.local_load %1 : !ttg.memdesc<64x16xf16, #shared, #smem, mutable, 64x64> -> tensor<64x16xf16, {result}>
    tt.return
  }}
}}
"""


def load_verdict(text: str):
    found = [f.verdict for f in check_module(parse_module(text, "m.ttgir"))
             if f.op == "ttg.local_load" and f.verdict.property == "bank_conflicts"]
    assert len(found) == 1
    return found[0]


def wavefronts_at(offset: int, buffer_shape: tuple[int, int]) -> set[int]:
    """Every warp's wavefronts for the blocked load of the 64x16 window at column ``offset`` of a buffer of
    ``buffer_shape`` (the swizzled layout built on that shape): each lane loads its 8 contiguous f16 (16 bytes)
    at the offset of their first coordinate."""
    buffer = build("swizzled_shared", list(buffer_shape), **SWIZZLED)
    offset_of = {}
    for off in range(buffer_shape[0] * buffer_shape[1]):
        c = buffer.apply({"offset": off, "block": 0})
        offset_of[(c["dim0"], c["dim1"])] = off
    R = layout_from_attr(BLOCKED, [64, 16])
    counts = set()
    for warp in range(4):
        addrs = []
        for lane in range(32):
            first = R.apply({"register": 0, "lane": lane, "warp": warp, "block": 0})
            elems = [R.apply({"register": r, "lane": lane, "warp": warp, "block": 0}) for r in range(8)]
            offs = [offset_of[(e["dim0"], e["dim1"] + offset)] for e in elems]
            assert offs == list(range(offs[0], offs[0] + 8)), "the 8 registers are one contiguous vector"
            assert offs[0] == offset_of[(first["dim0"], first["dim1"] + offset)]
            addrs.append(2 * offs[0])
        counts.add(wavefronts_by_definition(addrs, 16))
    return counts


@pytest.mark.parametrize("offset", [0, 16, 32, 48])
def test_a_window_costs_what_its_addresses_cost(offset: int) -> None:
    v = load_verdict(module(offset))
    assert v.status == "proved" and v.details["subview"] is True and v.details["vector_bits"] == 128
    assert wavefronts_at(offset, (64, 64)) == {v.details["wavefronts"]}


def test_a_window_built_as_its_own_buffer_would_count_differently() -> None:
    """The mutant the growth guards against: the 64x16 view as a 64x16 buffer (32-byte rows)."""
    assert wavefronts_at(0, (64, 16)) != {load_verdict(module(16)).details["wavefronts"]}


def test_a_padded_window_stays_unknown() -> None:
    padded = load_verdict(module(16, shared="#ttg.padded_shared<[32:+8] {order = [1, 0], shape = [64, 64]}>"))
    assert padded.status == "unknown" and "padding" in padded.message


CORPUS = Path(__file__).parent / "data" / "ttgir"


def test_window_loads_use_the_matrix_instructions_triton_emits() -> None:
    """The corpus's sm_80 pipelined matmul reads its k-slices through windows (``memdesc_subslice``) into mma v2
    operands.  The gate's instruction and count for each window load, summed, equal the ldmatrix calls in the LLVM
    IR Triton 3.9 produced for the module (stored beside it)."""
    name = "pipelined_matmul-m64n64k32-cuda_80-w4"
    found = [f.verdict for f in check_module(parse_module((CORPUS / f"{name}.ttgir").read_text(), f"{name}.ttgir"))
             if f.op == "ttg.local_load" and f.verdict.property == "bank_conflicts"]
    assert found and all(v.status == "proved" and v.details.get("subview") for v in found)
    ours = Counter()
    for v in found:
        ours[(v.details["instruction"], v.details["matrices"])] += v.details["instructions"]
    emitted = Counter()
    for line in (CORPUS / f"{name}.llir").read_text().splitlines():
        m = re.search(r"call .*@llvm\.nvvm\.ldmatrix\.sync\.aligned\.m8n8\.x(\d)(\.trans)?\.b16", line)
        if m:
            emitted[("ldmatrix_trans" if m.group(2) else "ldmatrix", int(m.group(1)))] += 1
    assert ours == emitted and sum(emitted.values()) == 12
