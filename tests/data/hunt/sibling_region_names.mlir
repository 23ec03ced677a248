// One printed name in sibling regions, as MLIR prints it (Triton 3.9 does so for a pipelined loop and the
// peeled last iteration in an scf.if after it): `%nx` is a wrapping counter (0, 1, 2) in the loop body and the
// constant 1 in the scf.if; each use must see the definition visible from it.
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @shadow(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64xf32, #shared, #smem, mutable>
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %c0) -> (i32)  : i32 {
      %i = arith.addi %s, %c1 : i32
      %w = arith.cmpi sge, %i, %c3 : i32
      %nx = arith.select %w, %c0, %i : i32
      %v = ttg.memdesc_index %buf[%nx] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
      scf.yield %nx : i32
    }
    %p = arith.cmpi sgt, %n, %c0 : i32
    scf.if %p {
      %nx = arith.constant 1 : i32
      %v = ttg.memdesc_index %buf[%nx] : !ttg.memdesc<2x64xf32, #shared, #smem, mutable> -> !ttg.memdesc<64xf32, #shared, #smem, mutable>
    }
    tt.return
  }
}
