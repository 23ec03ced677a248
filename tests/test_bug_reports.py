"""Real bug reports, as the gate sees them: each test is a small module of my own that has the defect (or the
situation) a public report describes, and asserts what a user gating that module gets.

- triton-lang/triton#1910, "Incorrect layout_convert between layouts with different warpsPerCTA": a kernel of 2 warps
  whose destination layout is laid out for 1 warp (``warpsPerCTA = [1, 1]``); Triton's verifier of the time accepted
  it and the conversion gave wrong results.  The gate refutes the layout at every op that uses it, with the counts.
- intel/intel-xpu-backend-for-triton#1153, "a bug in the TritonGPUToLLVM code lowering": a one-element tensor whose
  layout gives each thread more elements than the tensor has (``sizePerThread = [1, 2]``; every thread holds the one
  element).  The conversion between two such slices moves no data: the gate proves it a no-op, as Triton 3.9's linear
  layouts (both all-zero) make it.
- triton-lang/triton#8149, "[Gluon] SwizzledSharedLayout did not work as expected, leading to more bank conflict": a
  cp.async copy whose measured conflicts grew with the tensor's size, not its layout.  The gate does not claim its
  wavefronts: they depend on the global source addresses (unknown, with that reason), while the layout, the CTA
  locality and the vector width are proved.
"""

from __future__ import annotations

from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rule_support import clear_caches


def _findings(text: str, path: str = "report.ttgir") -> list:
    clear_caches()
    return check_module(parse_module(text, path))


ISSUE_1910 = '''#a = #triton_gpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 2], order = [1, 0]}>
#b = #triton_gpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 16], warpsPerCTA = [1, WARPS], order = [1, 0]}>
module attributes {"triton_gpu.num-warps" = 2 : i32, "triton_gpu.threads-per-warp" = 64 : i32, "triton_gpu.target" = "hip:gfx942"} {
  tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #triton_gpu.slice<{dim = 0, parent = #a}>>
    %e = tt.expand_dims %r {axis = 0 : i32} : (tensor<32xi32, #triton_gpu.slice<{dim = 0, parent = #a}>>) -> tensor<1x32xi32, #a>
    %x = tt.broadcast %e : (tensor<1x32xi32, #a>) -> tensor<32x32xi32, #a>
    %y = triton_gpu.convert_layout %x : (tensor<32x32xi32, #a>) -> tensor<32x32xi32, #b>
    %s = tt.splat %p : (!tt.ptr<f32>) -> tensor<32x32x!tt.ptr<f32>, #b>
    %f = arith.sitofp %y : tensor<32x32xi32, #b> to tensor<32x32xf32, #b>
    tt.store %s, %f : tensor<32x32xf32, #b>
    tt.return
  }
}
'''


def test_issue_1910_a_conversion_into_a_layout_for_fewer_warps_is_refuted() -> None:
    bad = _findings(ISSUE_1910.replace("WARPS", "1"))
    refuted = [f for f in bad if f.verdict.status == "refuted"]
    assert refuted and {f.verdict.property for f in refuted} == {"thread_counts"}
    # every op whose result has the 1-warp layout, the conversion first
    assert [f.op for f in refuted] == ["ttg.convert_layout", "tt.splat", "arith.sitofp"]  # Triton 2's names read as 3.9's
    sides = refuted[0].verdict.counterexample.sides
    assert sides["warps in force"] == 2 and sides["warps of the layout"] == 1
    # the same kernel with the destination laid out for its 2 warps: nothing refuted
    good = _findings(ISSUE_1910.replace("WARPS", "2"))
    assert not [f for f in good if f.verdict.status != "proved"]


INTEL_1153 = '''#b = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#c = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: tensor<1x256x!tt.ptr<bf16>, #b>, %q: tensor<1x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #c}>>) {
    %x = tt.load %p : tensor<1x256x!tt.ptr<bf16>, #b>
    %f = arith.extf %x : tensor<1x256xbf16, #b> to tensor<1x256xf32, #b>
    %s = "tt.reduce"(%f) <{axis = 1 : i32}> ({
    ^bb0(%l: f32, %r: f32):
      %m = arith.addf %l, %r : f32
      tt.reduce.return %m : f32
    }) : (tensor<1x256xf32, #b>) -> tensor<1xf32, #ttg.slice<{dim = 1, parent = #b}>>
    %y = ttg.convert_layout %s : tensor<1xf32, #ttg.slice<{dim = 1, parent = #b}>> -> tensor<1xf32, #ttg.slice<{dim = 1, parent = #c}>>
    tt.store %q, %y : tensor<1x!tt.ptr<f32>, #ttg.slice<{dim = 1, parent = #c}>>
    tt.return
  }
}
'''


def test_intel_1153_a_conversion_of_a_one_element_tensor_is_a_proved_no_op() -> None:
    found = _findings(INTEL_1153)
    assert not [f for f in found if f.verdict.status != "proved"]
    conv = [f for f in found if f.op == "ttg.convert_layout" and f.verdict.property == "conversion"]
    assert len(conv) == 1 and conv[0].verdict.details["classification"] == "noop"
    # the store writes its one element once under Triton's predicate (every thread holds it)
    assert [f.verdict.status for f in found if f.op == "tt.store" and f.rule == "broadcast_store"] == ["proved"]


ISSUE_8149 = '''#b = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @copy(%src: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %dst: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c512 = arith.constant 512 : i32
    %pid = tt.get_program_id x : i32
    %base = arith.muli %pid, %c512 : i32
    %r = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
    %o = tt.splat %base : i32 -> tensor<512xi32, #b>
    %i = arith.addi %o, %r : tensor<512xi32, #b>
    %ns = tt.splat %n : i32 -> tensor<512xi32, #b>
    %m = arith.cmpi slt, %i, %ns : tensor<512xi32, #b>
    %ps = tt.splat %src : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>
    %p = tt.addptr %ps, %i : tensor<512x!tt.ptr<f32>, #b>, tensor<512xi32, #b>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<512xf32, #s, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %buf mask %m {contiguity = 4 : i32} : tensor<512x!tt.ptr<f32>, #b> -> <512xf32, #s, #smem, mutable>
    %c = ttg.async_commit_group tokens %t
    %w = ttg.async_wait %c {num = 0 : i32}
    %v = ttg.local_load %buf token %w : !ttg.memdesc<512xf32, #s, #smem, mutable> -> tensor<512xf32, #b>
    %qs = tt.splat %dst : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #b>
    %q = tt.addptr %qs, %i : tensor<512x!tt.ptr<f32>, #b>, tensor<512xi32, #b>
    tt.store %q, %v, %m : tensor<512x!tt.ptr<f32>, #b>
    tt.return
  }
}
'''


def test_issue_8149_cp_async_wavefronts_are_not_claimed_they_depend_on_global_addresses() -> None:
    found = _findings(ISSUE_8149)
    assert not [f for f in found if f.verdict.status == "refuted"]
    copy = [f.verdict for f in found if f.op == "ttg.async_copy_global_to_local"]
    unknown = [v for v in copy if v.status == "unknown"]
    assert [v.property for v in unknown] == ["bank_conflicts"] and "global source addresses" in unknown[0].message
    assert any(v.status == "proved" and v.property == "vector_width" for v in copy)
    # the plain local_load of the same buffer is decided (one wavefront per 128 bytes, conflict-free)
    load = [f.verdict for f in found if f.op == "ttg.local_load" and f.verdict.property == "bank_conflicts"]
    assert [v.status for v in load] == ["proved"]
