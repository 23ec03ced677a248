"""``build(kind, shape, **params)``: every hardware layout kind by name.

One declaration per kind, naming its constructor function directly
(:data:`DECLARATIONS`); :data:`KINDS`, :data:`TILE_KINDS`, :func:`parameters`
and :func:`build` derive from it (the table and the building live in
:mod:`llverify.hw.kinds`).  Kind names are the ones specs and the command
line use; parameters are Gluon's snake_case names.  Nested parents
(``slice``, ``dot_operand``) are given as ``{"kind": ..., **params}``
mappings (a ``"params"`` sub-mapping is accepted too).  Unknown kinds and
unknown or missing parameters raise :class:`~llverify.errors.LayoutError`
naming them.

>>> from llverify.hw import build
>>> L = build("blocked", [16], size_per_thread=[1], threads_per_warp=[4], warps_per_cta=[4], order=[0])
>>> [list(b) for b in L.bases["warp"]]
[[4], [8]]
"""

from __future__ import annotations

from llverify.hw import sampling, tiles
from llverify.hw.amd import amd_mfma, amd_wmma
from llverify.hw.blocked import blocked
from llverify.hw.dot_operand import dot_operand
from llverify.hw.kinds import Kind, build, build_spec, constructor, declare, parameters
from llverify.hw.linear import generic_linear, linear
from llverify.hw.nvidia_mma import nvidia_mma
from llverify.hw.partitioned import partitioned_shared
from llverify.hw.shared import amd_rotating_shared, nvmma_shared, shared_linear, swizzled_shared
from llverify.hw.slice import slice_layout
from llverify.hw.tmem import tensor_memory, tensor_memory_scales

__all__ = ["DECLARATIONS", "KINDS", "TILE_KINDS", "build", "build_spec", "constructor", "parameters"]

#: Every kind, once: its name (as specs and the command line spell it), its constructor, other spellings
#: (Triton's tests and attribute names), its Triton attribute (mnemonic and field names) and its sampler.
DECLARATIONS: tuple[Kind, ...] = (
    Kind("blocked", blocked, mnemonic="blocked", sample=sampling.blocked_case,
         fields={"sizePerThread": "size_per_thread", "threadsPerWarp": "threads_per_warp",
                 "warpsPerCTA": "warps_per_cta", "order": "order"}),
    Kind("slice", slice_layout, mnemonic="slice", sample=sampling.slice_case,
         fields={"dim": "dim", "parent": "parent"}),
    Kind("nvidia_mma", nvidia_mma, aliases=("mma",), mnemonic="nvidia_mma", sample=sampling.nvidia_mma_case,
         fields={"warpsPerCTA": "warps_per_cta", "instrShape": "instr_shape"}),
    Kind("dot_operand", dot_operand, aliases=("dot_op",), mnemonic="dot_op", sample=sampling.dot_operand_case,
         fields={"opIdx": "operand_index", "parent": "parent", "kWidth": "k_width"}),
    Kind("amd_mfma", amd_mfma, aliases=("mfma",), mnemonic="amd_mfma", sample=sampling.amd_mfma_case,
         fields={"version": "version", "warpsPerCTA": "warps_per_cta", "instrShape": "instr_shape",
                 "isTransposed": "transposed", "tilesPerWarp": "tiles_per_warp",
                 "elementBitWidth": "element_bitwidth"}),
    Kind("amd_wmma", amd_wmma, aliases=("wmma",), mnemonic="amd_wmma", sample=sampling.amd_wmma_case,
         fields={"version": "version", "isTranspose": "transposed", "isTransposed": "transposed",
                 "instrShape": "instr_shape", "warpBases": "warp_bases", "regBases": "reg_bases", "rank": "rank"}),
    Kind("swizzled_shared", swizzled_shared, mnemonic="swizzled_shared", sample=sampling.swizzled_shared_case,
         fields={"vec": "vec", "perPhase": "per_phase", "maxPhase": "max_phase", "order": "order"}),
    Kind("nvmma_shared", nvmma_shared, mnemonic="nvmma_shared", sample=sampling.nvmma_shared_case,
         fields={"swizzlingByteWidth": "swizzle_byte_width", "elementBitWidth": "element_bitwidth",
                 "transposed": "transposed", "fp4Padded": "fp4_padded", "rank": "rank"}),
    Kind("amd_rotating_shared", amd_rotating_shared, mnemonic="amd_rotating_shared",
         fields={"vec": "vec", "perPhase": "per_phase", "maxPhase": "max_phase", "order": "order"}),
    Kind("shared_linear", shared_linear, mnemonic="shared_linear", sample=sampling.shared_linear_case,
         fields={"offset": "offset_bases", "block": "block_bases", "alignment": "alignment"}),
    Kind("linear", linear, aliases=("distributed_linear",), mnemonic="linear", sample=sampling.linear_case,
         fields={"register": "reg_bases", "lane": "lane_bases", "warp": "warp_bases", "block": "block_bases"}),
    Kind("generic_linear", generic_linear, mnemonic="generic_linear",
         fields={"register": "reg_bases", "lane": "lane_bases", "warp": "warp_bases", "block": "block_bases"}),
    Kind("partitioned_shared", partitioned_shared, mnemonic="partitioned_shared", sample=sampling.partitioned_shared_case,
         fields={"numPartitions": "num_partitions", "numGroups": "num_groups", "partitionDim": "partition_dim",
                 "partitionLayout": "partition_layout"}),
    Kind("tensor_memory", tensor_memory, mnemonic="tensor_memory_encoding", dialect="ttng",
         sample=sampling.tensor_memory_case,
         fields={"blockM": "block_m", "blockN": "block_n", "colStride": "col_stride", "CTASplitM": "cta_split_m",
                 "CTASplitN": "cta_split_n", "twoCTAs": "two_ctas", "fp4Padded": "fp4_padded",
                 "unpacked": "unpacked"}),  # Triton 3.5 and older; read as col_stride (llverify.triton.parse)
    Kind("tensor_memory_scales", tensor_memory_scales, mnemonic="tensor_memory_scales_encoding", dialect="ttng",
         sample=sampling.tensor_memory_scales_case, fields={"blockRepOrder": "block_rep_order"}),
    # instruction tiles (seed 000, section 5.3); shape optional, fixed by the instruction
    Kind("ld_shared", tiles.ld_shared, tile=True),
    Kind("st_shared", tiles.st_shared, tile=True),
    Kind("ldmatrix", tiles.ldmatrix, tile=True),
    Kind("stmatrix", tiles.stmatrix, tile=True),
)
declare(*DECLARATIONS)

#: The instruction-tile kinds (:mod:`llverify.hw.tiles`); ``build("ldmatrix", None, num=4, trans=True)``.
TILE_KINDS: tuple[str, ...] = tuple(k.name for k in DECLARATIONS if k.tile)

#: Every hardware layout kind name :func:`build` accepts (instruction tiles are in :data:`TILE_KINDS`).
KINDS: tuple[str, ...] = tuple(k.name for k in DECLARATIONS if not k.tile)
