"""amd_wmma, tensor_memory, FMA/MFMA/WMMA dot operands: outputs recorded from Triton 3.9.0, and worked examples.

The expected bases below were printed by the Triton 3.9.0 wheel's
``GluonOpBuilder.to_linear_layout`` (see tests/oracle_triton.py); the random
differential test covers the rest of the parameter space.
"""

from __future__ import annotations

import pytest

from llverify.errors import LayoutError
from llverify.hw import build
from llverify.hw.tmem import tensor_memory


def _b(ll):
    return {d: [list(b) for b in bs] for d, bs in ll.bases.items()}


WMMA_CASES = [
    # (params, shape, register, lane, warp, block)
    (dict(version=2, transposed=False, warp_bases=[[0, 1], [1, 0]], instr_shape=[16, 16, 16]), [128, 64],
     [[1, 0], [2, 0], [4, 0], [0, 32], [32, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]],
     [[0, 16], [16, 0]], []),
    (dict(version=1, transposed=False, warp_bases=[[0, 1], [0, 2]], instr_shape=[16, 16, 16]), [8, 64],
     [[2, 0], [4, 0], [0, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]], [[0, 16], [0, 32]], []),
    (dict(version=3, transposed=True, warp_bases=[], instr_shape=[32, 16, 64]), [64, 64],
     [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [16, 0], [32, 0]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], [], []),
    (dict(version=3, transposed=False, warp_bases=[[1, 0]], reg_bases=[[0, 1]], instr_shape=[32, 16, 64]), [64, 64],
     [[1, 0], [2, 0], [4, 0], [16, 0], [0, 16], [0, 32]], [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], [[32, 0]], []),
    (dict(version=2, transposed=True, warp_bases=[[0, 1], [1, 0]], instr_shape=[16, 16, 16], cga_layout=[[1, 0]]),
     [64, 64], [[0, 1], [0, 2], [0, 4], [0, 32]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], [[0, 16], [16, 0]],
     [[32, 0]]),
    (dict(version=2, transposed=False, warp_bases=[[0, 0, 1], [0, 1, 0]], instr_shape=[16, 16, 16], rank=3),
     [2, 32, 32], [[0, 1, 0], [0, 2, 0], [0, 4, 0], [1, 0, 0]],
     [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 8, 0]], [[0, 0, 16], [0, 16, 0]], []),
]


@pytest.mark.parametrize("params,shape,reg,lane,warp,block", WMMA_CASES)
def test_wmma_recorded_from_triton(params, shape, reg, lane, warp, block):
    assert _b(build("amd_wmma", shape, **params)) == {"register": reg, "lane": lane, "warp": warp, "block": block}


@pytest.mark.parametrize("params,why", [
    (dict(version=1, transposed=False, warp_bases=[], instr_shape=[16, 16, 32]), "instr_shape"),
    (dict(version=3, transposed=False, warp_bases=[], instr_shape=[16, 16, 16]), "instr_shape"),
    (dict(version=4, transposed=False, warp_bases=[]), "version"),
    (dict(version=2, transposed=False, warp_bases=[[0, 1], [0, 4]]), "surjective"),
    (dict(version=2, transposed=False, warp_bases=[[0, 0, 1]]), "components"),
])
def test_wmma_rejects_what_triton_rejects(params, why):
    with pytest.raises(LayoutError, match=why):
        build("amd_wmma", [64, 64], **params)


TMEM_CASES = [
    (dict(block=[128, 64], col_stride=2), [128, 64],
     [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], [[0, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    (dict(block=[64, 64], col_stride=1), [64, 128],
     [[1, 0], [2, 0], [4, 0], [8, 0], [0, 64], [16, 0], [32, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    (dict(block=[64, 64], col_stride=1), [64, 64],
     [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [16, 0], [32, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]),
    (dict(block=[128, 32], col_stride=1), [256, 64],
     [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [128, 0], [0, 32]]),
    (dict(block=[128, 64], col_stride=1, cga_layout=[[0, 1]]), [256, 64],
     [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [64, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [128, 0]]),
    (dict(block=[64, 64], col_stride=1, cga_layout=[[1, 0]], two_ctas=True), [128, 16],
     [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 8]], [[0, 1], [0, 2], [0, 4]]),
    (dict(block=[64, 1], col_stride=4, cga_layout=[[1, 0]], two_ctas=True), [512, 4],
     [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0], [0, 0]], [[0, 0], [64, 0], [128, 0], [0, 1], [0, 2]]),
]


@pytest.mark.parametrize("params,shape,rows,cols", TMEM_CASES)
def test_tensor_memory_recorded_from_triton(params, shape, rows, cols):
    ll = tensor_memory(shape=shape, **params)
    assert _b(ll) == {"row": rows, "col": cols}
    assert list(ll.in_dims) == ["row", "col"]


def test_tensor_memory_is_per_cta():
    ll = tensor_memory([128, 64], 1, [256, 64], cga_layout=[[1, 0]])
    assert dict(ll.out_dims) == {"dim0": 128, "dim1": 64}


@pytest.mark.parametrize("params,shape,why", [
    (dict(block=[32, 64], col_stride=1), [128, 64], "block_m"),
    (dict(block=[128, 64], col_stride=3), [128, 64], "col_stride"),
    (dict(block=[128, 64], col_stride=1), [32, 64], "smaller than one"),
    (dict(block=[128, 64], col_stride=2, fp4_padded=True), [128, 64], "fp4_padded"),
    (dict(block=[128, 64], col_stride=1, two_ctas=True), [256, 64], "two_ctas"),
    (dict(block=[128, 64], col_stride=1, cga_layout=[[1, 0], [1, 0]]), [512, 64], "permutation"),
])
def test_tensor_memory_rejects_what_triton_rejects(params, shape, why):
    with pytest.raises(LayoutError, match=why):
        tensor_memory(shape=shape, **params)


BLOCKED = {"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4], "warps_per_cta": [4, 1],
           "order": [1, 0]}


def test_fma_dot_operand_recorded_and_k_width_rule():
    ll = build("dot_operand", [32, 16], operand_index=0, parent=BLOCKED, k_width=0)
    assert _b(ll) == {"register": [[0, 1], [0, 2], [0, 4], [0, 8]], "lane": [[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]],
                      "warp": [[8, 0], [16, 0]], "block": []}
    # B: K = dim0 is kept whole in registers, lanes/warps along it broadcast
    ll_b = build("dot_operand", [16, 32], operand_index=1, parent=BLOCKED, k_width=0)
    assert all(b[0] == 0 for b in ll_b.bases["lane"] + ll_b.bases["warp"])
    assert sorted(b[0] for b in ll_b.bases["register"] if b[0]) == [1, 2, 4, 8]
    with pytest.raises(LayoutError, match="k_width"):
        build("dot_operand", [32, 16], operand_index=0, parent=BLOCKED, k_width=2)


def test_wmma_dot_operands_recorded_from_triton():
    par = {"kind": "amd_wmma", "version": 2, "transposed": False, "warp_bases": [], "instr_shape": [16, 16, 16]}
    ll = build("dot_operand", [64, 64], operand_index=0, parent=par, k_width=8)
    assert _b(ll)["register"] == [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [16, 0], [32, 0]]
    assert _b(ll)["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
    v1 = dict(par, version=1)
    ll1 = build("dot_operand", [64, 64], operand_index=0, parent=v1, k_width=16)
    assert _b(ll1)["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]  # v1 duplicates across the lane halves
    v3 = dict(par, version=3, instr_shape=[32, 16, 64])
    a = build("dot_operand", [128, 128], operand_index=0, parent=dict(v3, warp_bases=[[1, 0]]), k_width=8)
    assert _b(a)["register"] == [[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [16, 0], [0, 64], [64, 0]]
    assert _b(a)["warp"] == [[32, 0]]
    with pytest.raises(LayoutError, match="k_width"):
        build("dot_operand", [64, 64], operand_index=0, parent=par, k_width=2)


def test_mfma_dot_operand_worked_example():
    par = {"kind": "amd_mfma", "version": 2, "instr_shape": [32, 32, 8], "transposed": False, "warps_per_cta": [1, 1]}
    ll = build("dot_operand", [32, 8], operand_index=0, parent=par, k_width=4)
    assert _b(ll)["register"] == [[0, 1], [0, 2]]
    assert _b(ll)["lane"] == [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]
