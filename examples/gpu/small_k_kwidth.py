"""A bf16 MMA v2 dot in Gluon whose operands' kWidth is stated, on K = 16 and 32: what does mma v2 compute when the
dot-operand tile is longer along K than the tensor?  (llverify's ``dot_k_once``: a lane bit that repeats K elements
is refuted, a register bit is not; triton-lang/triton PR 11691.)

On a GPU machine: ``python3 examples/gpu/small_k_kwidth.py OUT_DIR`` prints one JSON line per (K, kWidth): exact or
not against the fp32 product, and the ratios of the kernel's results to the right ones; it writes each TTGIR to
OUT_DIR.  Here: ``python -m llverify ttgir OUT_DIR``."""

from __future__ import annotations

import json
import os
import sys

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.ampere import mma_v2


@gluon.jit
def dot_kwidth(a_ptr, b_ptr, c_ptr, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, KW: gl.constexpr):
    blocked: gl.constexpr = gl.BlockedLayout([1, 1], [4, 8], [1, 1], [1, 0])
    mma: gl.constexpr = gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])
    a_l: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=mma, k_width=KW)
    b_l: gl.constexpr = gl.DotOperandLayout(operand_index=1, parent=mma, k_width=KW)
    am = gl.arange(0, M, layout=gl.SliceLayout(1, blocked))
    ak = gl.arange(0, K, layout=gl.SliceLayout(0, blocked))
    a = gl.load(a_ptr + am[:, None] * K + ak[None, :])
    bk = gl.arange(0, K, layout=gl.SliceLayout(1, blocked))
    bn = gl.arange(0, N, layout=gl.SliceLayout(0, blocked))
    b = gl.load(b_ptr + bk[:, None] * N + bn[None, :])
    acc = gl.zeros([M, N], gl.float32, mma)
    c = mma_v2(gl.convert_layout(a, a_l), gl.convert_layout(b, b_l), acc)
    cm = gl.arange(0, M, layout=gl.SliceLayout(1, mma))
    cn = gl.arange(0, N, layout=gl.SliceLayout(0, mma))
    gl.store(c_ptr + cm[:, None] * N + cn[None, :], c)


def main(out: str) -> None:
    import torch

    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    m = n = 16
    for k in (16, 32):
        for kw in (2, 4, 8):
            name = f"gluon_mma2_bf16-m{m}n{n}k{k}-kw{kw}"
            a = torch.randint(-3, 4, (m, k), device="cuda").to(torch.bfloat16)
            b = torch.randint(-3, 4, (k, n), device="cuda").to(torch.bfloat16)
            c = torch.zeros(m, n, dtype=torch.float32, device="cuda")
            rec: dict = {"config": name, "triton": triton.__version__}
            try:
                kern = dot_kwidth[(1,)](a, b, c, M=m, N=n, K=k, KW=kw, num_warps=1)
                torch.cuda.synchronize()
                ref = a.float() @ b.float()
                nz = ref != 0
                rec["exact"] = bool(torch.equal(c, ref))
                rec["ratios"] = sorted({round(float(x), 3) for x in (c[nz] / ref[nz]).flatten().tolist()})[:6]
                rec["max_abs_error"] = float((c - ref).abs().max())
                with open(os.path.join(out, name + ".ttgir"), "w") as f:
                    f.write(kern.asm["ttgir"])
            except Exception as exc:  # noqa: BLE001 - a configuration Triton refuses is reported, not fatal
                rec["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
