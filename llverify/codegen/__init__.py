"""The paper's code-generation algorithms (seed 000, section 5), as pure plans.

Each function takes layouts and returns an immutable plan; the proofs that a
plan is correct or optimal live one layer up, one module per plan module: ``codegen/swizzle.py`` is proved by
:mod:`llverify.prove.plan_swizzle`, ``codegen/banks.py`` by :mod:`llverify.prove.plan_banks`, and so on.
"""

from __future__ import annotations

from llverify.codegen.bank_sim import SimResult, simulate_wavefronts
from llverify.codegen.banks import BankReport, access_to_offsets, bank_wavefronts
from llverify.codegen.broadcast import BroadcastPlan, broadcast_predicate
from llverify.codegen.conversion import CLASSIFICATIONS, ConversionPlan, classify, convert
from llverify.codegen.gather import GatherPlan, gather_plan
from llverify.codegen.shape_ops import SHAPE_OPS, ShapeOpPlan, infer_shape_op
from llverify.codegen.shuffle import (
    LaneMap, ShufflePlan, ShuffleRound, Transposition, WordRound, shuffle_plan, transposition_decomposition,
    transposition_packing,
)
from llverify.codegen.swizzle import SwizzlePlan, optimal_swizzle
from llverify.codegen.target_banks import TargetWavefronts, shared_bank_conflicts, target_wavefronts
from llverify.codegen.triton_swizzle import TritonSwizzleChoice, triton_mma_v2_operand_swizzle, triton_nvmma_operand_swizzle
from llverify.codegen.vectorize import (
    InstructionTiles,
    VectorPlan,
    global_vector_width,
    instruction_tiles,
    shared_vector_width,
)

__all__ = [
    "BankReport", "BroadcastPlan", "CLASSIFICATIONS", "ConversionPlan", "GatherPlan", "InstructionTiles", "LaneMap", "WordRound", "transposition_packing",
    "SHAPE_OPS", "ShapeOpPlan", "ShufflePlan", "ShuffleRound", "SimResult", "SwizzlePlan", "Transposition",
    "TritonSwizzleChoice", "VectorPlan", "access_to_offsets", "bank_wavefronts", "broadcast_predicate", "classify",
    "convert", "gather_plan", "global_vector_width", "infer_shape_op", "instruction_tiles", "optimal_swizzle",
    "shared_vector_width", "shuffle_plan", "simulate_wavefronts", "transposition_decomposition",
    "triton_mma_v2_operand_swizzle", "triton_nvmma_operand_swizzle", "TargetWavefronts", "target_wavefronts",
    "shared_bank_conflicts",
]
