"""Child process: Triton 3.9's Gluon ``gfx1250.get_wmma_scale_layout`` (the oracle) on cases read as JSON from stdin.

Each case is ``[op_idx, instr_shape, transposed, warp_bases, shape, scale_factor]``; one line per case is printed,
``CASE {"register": ..., "lane": ..., "warp": ..., "block": ...}`` or ``CASE {"error": message}``.  Run apart from
the test process because LLVM aborts on some inputs (the test then sees fewer lines and runs the rest again).
"""

import json
import sys

from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.amd import gfx1250
from triton.experimental.gluon.language.amd._layouts import AMDWMMALayout


def main() -> None:
    for op_idx, instr, transposed, warp, shape, factor in json.load(sys.stdin):
        parent = AMDWMMALayout(version=3, transposed=transposed, warp_bases=warp, reg_bases=[], instr_shape=instr)
        try:
            lay = gfx1250.get_wmma_scale_layout(gl.DotOperandLayout(operand_index=op_idx, parent=parent, k_width=16),
                                                shape, factor)
            out = {"register": lay.reg_bases, "lane": lay.lane_bases, "warp": lay.warp_bases,
                   "block": lay.block_bases}
        except Exception as exc:  # the oracle's refusal is data for the test
            out = {"error": str(exc)[:200]}
        print("CASE " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
