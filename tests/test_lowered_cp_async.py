"""``cp.async`` (Ampere's asynchronous global -> shared copy, what Triton's pipeliner emits for
``ttg.async_copy_global_to_local`` on sm_80 / sm_90): its shared footprint is PTX's cp-size operand (4, 8 or
16 bytes), so an access is in bounds only when all of those bytes are."""

from __future__ import annotations

import pytest

from llverify.lowered.llir import parse_llir
from llverify.lowered.validate import validate
from llverify.ttgir.reader import parse_module

MODULE = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:80\"} {\n}\n"

COPY = """define void @k(ptr addrspace(1) %g) {
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %o = shl i32 %t, 4
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %o
  tail call void asm sideeffect "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], SIZE, $2;", "r,l,r"(ptr addrspace(3) %p, ptr addrspace(1) %g, i32 16)
  ret void
}
"""


def _verdict(size: str, shared: int) -> tuple[str, str, object]:
    (f,) = [f for f in validate(parse_module(MODULE, "m"), parse_llir(COPY.replace("SIZE", size)), shared)
            if f.finding.verdict.property == "in_bounds"]
    v = f.finding.verdict
    return v.status, v.message, v.counterexample


@pytest.mark.parametrize("size", ["0x10", "16"])
def test_a_16_byte_copy_per_thread_fits_exactly(size: str) -> None:
    status, msg, _ = _verdict(size, 128 * 16)
    assert status == "proved", msg


def test_the_last_copy_past_the_end_is_refuted_with_its_thread() -> None:
    """8 bytes short: thread 127's 16 bytes end past the allocation (its first byte is inside)."""
    status, msg, cex = _verdict("0x10", 128 * 16 - 8)
    assert status == "refuted", msg
    assert "127" in str(cex) or "127" in msg


def test_a_4_byte_copy_in_the_same_place_fits() -> None:
    status, msg, _ = _verdict("0x4", 128 * 16 - 8)
    assert status == "proved", msg
