#!/bin/sh
# Measure the shared-side wavefronts of one warp's cp.async (LDGSTS) against st.shared of the same width and
# addresses on an NVIDIA GPU (sm_80+).  Each input line is "case mode width a0 .. a31" (mode 0 cp.async, 1
# st.shared, 2 cp.async from packed sources; byte offsets); Nsight Compute prints every shared-wavefront and LDGSTS counter of the launch.
# The input lines are printed by `python3 examples/cp_async_ncu/cases.py lines`.
set -e
nvcc -arch=${ARCH:-sm_90a} -o k "$(dirname "$0")/k.cu"
while read name m w r; do
  echo "= $name mode $m width $w"
  ncu --clock-control none --metrics "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum" --csv ./k $m $w $r </dev/null 2>&1 | grep -E 'wavefronts|bank_conflicts|rror' || true
done
