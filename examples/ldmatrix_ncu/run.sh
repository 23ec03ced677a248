#!/bin/sh
# Measure ldmatrix/stmatrix wavefronts on an NVIDIA GPU (sm_90): one warp executes one .x4 instruction whose
# lanes supply the row addresses given on each input line ("mode model r0 .. r31": mode 0 ldmatrix,
# 1 ldmatrix.trans, 2 stmatrix, 3 stmatrix.trans; rows in 16-byte units), Nsight Compute counts the shared
# wavefronts.  The cases of tests/data/ldmatrix_ncu_h100.json are printed by
#   python3 -c "import json; [print(' '.join(map(str, [['ldmatrix','ldmatrix_trans','stmatrix','stmatrix_trans'].index(c['instruction']), c['model_wavefronts'], *c['row_chunks']]))) for c in json.load(open('tests/data/ldmatrix_ncu_h100.json'))['cases']]"
set -e
nvcc -arch=sm_90a -o k "$(dirname "$0")/k.cu"
P=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_
while read m e r; do
  echo "= mode $m model $e"
  ncu --clock-control none --metrics ${P}ld.sum,${P}st.sum --csv ./k $m $r </dev/null 2>&1 | grep -E 'wavef|rror'
done
