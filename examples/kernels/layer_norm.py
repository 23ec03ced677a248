"""Layer normalisation of one row per program, weights and bias applied."""
import triton
import triton.language as tl

from _case import Case


@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, y_ptr, eps, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + cols).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    centred = x - mean
    inv = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / N + eps)
    y = centred * inv * tl.load(w_ptr + cols) + tl.load(b_ptr + cols)
    tl.store(y_ptr + row * N + cols, y.to(tl.float16))


CASES = [Case("layer_norm", layer_norm, {"x_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp16",
                                         "eps": "fp32"},
              {"n256": {"N": 256}, "n1024": {"N": 1024}})]
