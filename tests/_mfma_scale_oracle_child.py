"""Child process: Triton 3.9's Gluon ``get_mfma_scale_layout`` (the oracle) on cases read as JSON from stdin.

Each case is ``[op_idx, mdim, tiles_per_warp, warps_per_cta, shape]``; one JSON line per case is printed:
``{"register": ..., "lane": ..., "warp": ..., "block": ...}`` or ``{"error": message}``.  Run apart from the test
process because LLVM may abort on an input.
"""

import json
import sys

from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.amd import cdna4
from triton.experimental.gluon.language.amd._layouts import AMDMFMALayout


def main() -> None:
    for op_idx, mdim, tpw, wpc, shape in json.load(sys.stdin):
        parent = AMDMFMALayout(version=4, instr_shape=[mdim, mdim, 128 if mdim == 16 else 64], transposed=True,
                               warps_per_cta=wpc, tiles_per_warp=tpw)
        try:
            lay = cdna4.get_mfma_scale_layout(gl.DotOperandLayout(operand_index=op_idx, parent=parent, k_width=16),
                                              shape)
            out = {"register": lay.reg_bases, "lane": lay.lane_bases, "warp": lay.warp_bases,
                   "block": lay.block_bases}
        except Exception as exc:  # the oracle's refusal is data for the test
            out = {"error": str(exc)[:200]}
        print("CASE " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
