"""Child process: one of Triton 3.9's Gluon scale-layout helpers (the oracle) on cases read as JSON from stdin.

``python _scale_oracle_child.py mfma``: ``cdna4.get_mfma_scale_layout``, each case
``[op_idx, mdim, tiles_per_warp, warps_per_cta, shape]``.
``python _scale_oracle_child.py wmma``: ``gfx1250.get_wmma_scale_layout``, each case
``[op_idx, instr_shape, transposed, warp_bases, shape, scale_factor]``.

One line per case is printed, ``CASE {"register": ..., "lane": ..., "warp": ..., "block": ...}`` or
``CASE {"error": message}`` when the oracle refuses it.  Run apart from the test process because LLVM aborts on some
inputs (the caller then sees fewer lines and runs the rest again).
"""

import json
import sys

from triton.experimental.gluon import language as gl


def _mfma(op_idx, mdim, tpw, wpc, shape):
    from triton.experimental.gluon.language.amd import cdna4
    from triton.experimental.gluon.language.amd._layouts import AMDMFMALayout

    parent = AMDMFMALayout(version=4, instr_shape=[mdim, mdim, 128 if mdim == 16 else 64], transposed=True,
                           warps_per_cta=wpc, tiles_per_warp=tpw)
    return cdna4.get_mfma_scale_layout(gl.DotOperandLayout(operand_index=op_idx, parent=parent, k_width=16), shape)


def _wmma(op_idx, instr, transposed, warp, shape, factor):
    from triton.experimental.gluon.language.amd import gfx1250
    from triton.experimental.gluon.language.amd._layouts import AMDWMMALayout

    parent = AMDWMMALayout(version=3, transposed=transposed, warp_bases=warp, reg_bases=[], instr_shape=instr)
    return gfx1250.get_wmma_scale_layout(gl.DotOperandLayout(operand_index=op_idx, parent=parent, k_width=16),
                                         shape, factor)


def main() -> None:
    build = {"mfma": _mfma, "wmma": _wmma}[sys.argv[1]]
    for case in json.load(sys.stdin):
        try:
            lay = build(*case)
            out = {"register": lay.reg_bases, "lane": lay.lane_bases, "warp": lay.warp_bases,
                   "block": lay.block_bases}
        except Exception as exc:  # the oracle's refusal is data for the test
            out = {"error": str(exc)[:200]}
        print("CASE " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
