// The rhs of an mxfp8 x mxfp4 `tl.dot_scaled` for cuda:100 (Triton 3.9 output, cut down): the packed fp4
// operand is staged in shared memory with `fp4Padded = true` (8 data bytes, 8 padding bytes per 16).
#blocked = #ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8, fp4Padded = true}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @rhs(%p: tensor<64x128x!tt.ptr<i8>, #blocked>) {
    %y = tt.load %p : tensor<64x128x!tt.ptr<i8>, #blocked>
    %s = ttg.local_alloc %y : (tensor<64x128xi8, #blocked>) -> !ttg.memdesc<64x128xi8, #shared, #smem>
    tt.return
  }
}
