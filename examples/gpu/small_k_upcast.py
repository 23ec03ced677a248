"""An int8 operand upcast to bf16, times a bf16 operand, on small tiles: does the device's Triton compute it right,
and what does llverify say about the TTGIR it compiled?  (triton-lang/triton PR 11691: MMA v2 dots with upcast
operands gave wrong results at small K, from a kWidth that ignored K.)

On a GPU machine (PyTorch and Triton there): ``python3 examples/gpu/small_k_upcast.py OUT_DIR`` writes each
configuration's TTGIR to OUT_DIR and prints one JSON line per configuration: exact or not against the fp32 product,
the ratio of the kernel's result to the right one, the kWidths and MMA instruction used.  Then, here:
``python -m llverify ttgir OUT_DIR``."""

from __future__ import annotations

import json
import os
import re
import sys

import triton
import triton.language as tl


@triton.jit
def upcast_dot(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :]).to(tl.bfloat16)
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))


CONFIGS = [(16, 16, 16, 1), (16, 16, 16, 4), (16, 16, 32, 4), (32, 32, 16, 4), (16, 32, 16, 2), (16, 16, 64, 4),
           (64, 64, 16, 4)]


def main(out: str) -> None:
    import torch

    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for bm, bn, bk, warps in CONFIGS:
        a = torch.randint(-3, 4, (bm, bk), dtype=torch.int8, device="cuda")
        b = torch.randint(-3, 4, (bk, bn), device="cuda").to(torch.bfloat16)
        c = torch.empty(bm, bn, dtype=torch.float32, device="cuda")
        k = upcast_dot[(1,)](a, b, c, BM=bm, BN=bn, BK=bk, num_warps=warps)
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        nz = ref != 0
        ratios = sorted({round(float(x), 3) for x in (c[nz] / ref[nz]).flatten().tolist()})
        name = f"upcast_i8_bf16-m{bm}n{bn}k{bk}-w{warps}"
        ttgir = k.asm["ttgir"]
        with open(os.path.join(out, name + ".ttgir"), "w") as f:
            f.write(ttgir)
        print(json.dumps({"config": name, "exact": bool(torch.equal(c, ref)), "ratios": ratios[:6],
                          "kWidth": sorted(set(re.findall(r"kWidth = (\d+)", ttgir))),
                          "mma": sorted(set(re.findall(r"(mma\.sync\.aligned\.[\w.]+|wgmma\.mma_async[\w.]*)",
                                                       k.asm["ptx"])))[:3],
                          "triton": triton.__version__}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
