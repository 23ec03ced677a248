"""Result types of ops whose printed signature is not ``operands -> results`` (found on Triton's lit tests)."""

from __future__ import annotations

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module

HEAD = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
"""


def _types(body: str) -> dict[str, str]:
    m = parse_module(HEAD + body + "}\n", "m.ttgir")
    return {r.name: r.type.text for _, op, _ in m.walk() for r in op.results}


def test_make_tensor_descriptor_result_is_the_last_type() -> None:
    body = """\
  tt.func @f(%p: !tt.ptr<i8>, %n: i32, %s: i64) {
    %d = tt.make_tensor_descriptor %p, [%n, %n], [%s, %s] : !tt.ptr<i8>, !tt.tensordesc<1x32xi8, #shared>
    tt.return
  }
"""
    assert _types(body)["%d"] == "!tt.tensordesc<1x32xi8, #shared>"
    found = check_module(parse_module(HEAD + body + "}\n", "m.ttgir"))
    assert not [f for f in found if f.verdict.status == "refuted"]


def test_tmem_load_token_is_not_the_tensor() -> None:
    body = """\
  tt.func @f() {
    %m, %t = ttng.tmem_alloc : () -> (!ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.async.token)
    %v, %t2 = ttng.tmem_load %m[%t] : !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<128x128xf32, #blocked>
    tt.return
  }
"""
    types = _types(body)
    assert types["%v"].startswith("tensor<128x128xf32") and "token" in types["%t2"]
