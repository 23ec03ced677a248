"""Lowered-code validation: Triton's shared-memory address arithmetic in LLVM IR, proved against the layouts."""
