// tt.cat whose result layout repeats a register basis (a zero basis): 8 distinct registers per thread,
// 4 + 4 from the operands.  Triton 3.9 accepts and lowers it (each thread stores its 4 + 4 values).
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#linear_bcast = #ttg.linear<{register = [[1], [0], [8], [1024]], lane = [[2], [4], [16], [32], [64]], warp = [[128], [256], [512]], block = []}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @cat_broadcast(%p: !tt.ptr<i32>, %q: !tt.ptr<i32>) {
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %pp = tt.splat %p : !tt.ptr<i32> -> tensor<1024x!tt.ptr<i32>, #blocked>
    %ptrs = tt.addptr %pp, %r : tensor<1024x!tt.ptr<i32>, #blocked>, tensor<1024xi32, #blocked>
    %lhs = tt.load %ptrs : tensor<1024x!tt.ptr<i32>, #blocked>
    %rhs = arith.addi %lhs, %lhs : tensor<1024xi32, #blocked>
    %cat = tt.cat %lhs, %rhs : tensor<1024xi32, #blocked> -> tensor<2048xi32, #linear_bcast>
    %r2 = tt.make_range {end = 2048 : i32, start = 0 : i32} : tensor<2048xi32, #linear_bcast>
    %qq = tt.splat %q : !tt.ptr<i32> -> tensor<2048x!tt.ptr<i32>, #linear_bcast>
    %qs = tt.addptr %qq, %r2 : tensor<2048x!tt.ptr<i32>, #linear_bcast>, tensor<2048xi32, #linear_bcast>
    tt.store %qs, %cat : tensor<2048x!tt.ptr<i32>, #linear_bcast>
    tt.return
  }
}
