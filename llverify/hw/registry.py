"""``build(kind, shape, **params)``: every hardware layout kind by name.

One declaration per kind, naming its constructor function directly
(:data:`DECLARATIONS`), and how Triton's Gluon builder builds its attribute
(the ``_gluon_*`` functions, read only by the differential tests' oracle).
A new kind is one module of :mod:`llverify.hw` holding its constructor, its
sampler, its Gluon builder and its ``KIND`` declaration
(:mod:`llverify.hw.partitioned` is the pattern), listed here (one import and
one entry of :data:`DECLARATIONS`), and an example spec that uses it, which
``tests/test_declared_kinds.py`` runs, with the sampler through the Triton
differential;
:data:`KINDS`, :data:`TILE_KINDS`, :func:`parameters` and :func:`build` derive
from it (the table and the building live in
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

from typing import Any, Mapping

from llverify.hw import partitioned, sampling, tiles
from llverify.hw.amd import amd_mfma, amd_wmma
from llverify.hw.blocked import blocked, blocked_on_shapes
from llverify.hw.dot_operand import dot_operand
from llverify.hw.intel_dpas import intel_dpas
from llverify.hw.kinds import (GluonBuilder, Kind, build, build_on_shapes, build_spec, constructor, declare, declared,
                               parameters)
from llverify.hw.linear import generic_linear, linear
from llverify.hw.nvidia_mma import nvidia_mma
from llverify.hw.shared import amd_rotating_shared, nvmma_shared, shared_linear, swizzled_shared
from llverify.hw.slice import slice_layout
from llverify.hw.tmem import tensor_memory, tensor_memory_scales

__all__ = ["DECLARATIONS", "KINDS", "TILE_KINDS", "build", "build_on_shapes", "build_spec", "constructor", "declared",
           "parameters"]

# -- how Triton's Gluon builder builds each attribute (tests/oracle_triton.py; Triton 3.9's GluonOpBuilder) --

P = Mapping[str, Any]


def _gluon_blocked(b: GluonBuilder, p: P) -> Any:
    return b.get_blocked_layout(p["size_per_thread"], p["threads_per_warp"], p["warps_per_cta"], p["order"], b.cga(p))


def _gluon_slice(b: GluonBuilder, p: P) -> Any:
    return b.get_slice_layout(p["dim"], b.nested(p["parent"]))


def _gluon_nvidia_mma(b: GluonBuilder, p: P) -> Any:
    v = p["version"]
    return b.get_mma_layout(list(v) if isinstance(v, (list, tuple)) else [v, 0], p["warps_per_cta"], b.cga(p),
                            p["instr_shape"])


def _gluon_dot_operand(b: GluonBuilder, p: P) -> Any:
    return b.get_dot_operand_layout(p["operand_index"], b.nested(p["parent"]), p["k_width"])


def _gluon_amd_mfma(b: GluonBuilder, p: P) -> Any:
    return b.get_amd_mfma_layout(p["version"], p["warps_per_cta"], p["instr_shape"], p["transposed"], b.cga(p),
                                 p.get("tiles_per_warp") or [1] * len(p["warps_per_cta"]),
                                 p.get("element_bitwidth") or 32)


def _gluon_amd_wmma(b: GluonBuilder, p: P) -> Any:
    shape, rank = p.get("instr_shape"), p.get("rank")  # None: Gluon's default
    return b.get_amd_wmma_layout(p["version"], bool(p.get("transposed", False)), p["warp_bases"],
                                 p.get("reg_bases") or [], b.cga(p),
                                 [16, 16, 16] if shape is None else shape, 2 if rank is None else rank)


def _gluon_swizzled_shared(b: GluonBuilder, p: P) -> Any:
    return b.get_swizzled_shared_layout(p["vec"], p["per_phase"], p["max_phase"], p["order"], b.cga(p))


def _gluon_nvmma_shared(b: GluonBuilder, p: P) -> Any:
    return b.get_nvmma_shared_layout(p["swizzle_byte_width"], p["element_bitwidth"], bool(p.get("transposed", False)),
                                     bool(p.get("fp4_padded", False)), b.cga(p), p.get("rank", 2))


def _gluon_shared_linear(b: GluonBuilder, p: P) -> Any:
    return b.get_shared_linear_layout(p["offset_bases"], p.get("block_bases", []), p.get("alignment", 16))


def _gluon_linear(b: GluonBuilder, p: P) -> Any:
    """The layout's own shape, when not given: per dim, the next power of two above the largest component."""
    vecs = [v for k in ("reg_bases", "lane_bases", "warp_bases", "block_bases") for v in p.get(k) or []]
    rank = len(vecs[0]) if vecs else 1
    extent = [1 << max([0] + [int(v[d]).bit_length() for v in vecs]) for d in range(rank)]
    return b.get_distributed_linear_layout(p.get("reg_bases", []), p.get("lane_bases", []), p.get("warp_bases", []),
                                           p.get("block_bases", []), p.get("layout_shape") or extent)


def _gluon_tensor_memory(b: GluonBuilder, p: P) -> Any:
    return b.get_tensor_memory_layout(p["block"], p["col_stride"], b.cga(p), bool(p.get("two_ctas", False)),
                                      bool(p.get("fp4_padded", False)))


def _gluon_tensor_memory_scales(b: GluonBuilder, p: P) -> Any:
    return b.get_tensor_memory_scales_layout(b.cga(p))


#: Every kind, once: its name (as specs and the command line spell it), its constructor, other spellings
#: (Triton's tests and attribute names), its Triton attribute (mnemonic and field names), its sampler and
#: its Gluon builder.
DECLARATIONS: tuple[Kind, ...] = (
    Kind("blocked", blocked, mnemonic="blocked", sample=sampling.blocked_case, gluon=_gluon_blocked,
         on_shapes=blocked_on_shapes, fields={"sizePerThread": "size_per_thread", "threadsPerWarp": "threads_per_warp",
                 "warpsPerCTA": "warps_per_cta", "order": "order"}),
    Kind("slice", slice_layout, mnemonic="slice", sample=sampling.slice_case, gluon=_gluon_slice,
         fields={"dim": "dim", "parent": "parent"}),
    Kind("nvidia_mma", nvidia_mma, aliases=("mma",), mnemonic="nvidia_mma", sample=sampling.nvidia_mma_case,
         gluon=_gluon_nvidia_mma,
         fields={"warpsPerCTA": "warps_per_cta", "instrShape": "instr_shape"}),
    Kind("dot_operand", dot_operand, aliases=("dot_op",), mnemonic="dot_op", sample=sampling.dot_operand_case,
         gluon=_gluon_dot_operand,
         fields={"opIdx": "operand_index", "parent": "parent", "kWidth": "k_width"}),
    Kind("amd_mfma", amd_mfma, aliases=("mfma",), mnemonic="amd_mfma", sample=sampling.amd_mfma_case,
         gluon=_gluon_amd_mfma,
         fields={"version": "version", "warpsPerCTA": "warps_per_cta", "instrShape": "instr_shape",
                 "isTransposed": "transposed", "tilesPerWarp": "tiles_per_warp",
                 "elementBitWidth": "element_bitwidth"}),
    Kind("amd_wmma", amd_wmma, aliases=("wmma",), mnemonic="amd_wmma", sample=sampling.amd_wmma_case,
         gluon=_gluon_amd_wmma,
         fields={"version": "version", "isTranspose": "transposed", "isTransposed": "transposed",
                 "instrShape": "instr_shape", "warpBases": "warp_bases", "regBases": "reg_bases", "rank": "rank"}),
    Kind("swizzled_shared", swizzled_shared, mnemonic="swizzled_shared", sample=sampling.swizzled_shared_case,
         gluon=_gluon_swizzled_shared,
         fields={"vec": "vec", "perPhase": "per_phase", "maxPhase": "max_phase", "order": "order"}),
    Kind("nvmma_shared", nvmma_shared, mnemonic="nvmma_shared", sample=sampling.nvmma_shared_case,
         gluon=_gluon_nvmma_shared,
         fields={"swizzlingByteWidth": "swizzle_byte_width", "elementBitWidth": "element_bitwidth",
                 "transposed": "transposed", "fp4Padded": "fp4_padded", "rank": "rank"}),
    Kind("amd_rotating_shared", amd_rotating_shared, mnemonic="amd_rotating_shared",
         unsampled="not in the Gluon differential: Triton 3.9 has no Gluon builder for it, and no Python entry "
                   "point converts a parsed rotating layout (get_gluon_layout_from_memdesc: 'Unhandled encoding'); "
                   "its samples (sampling.amd_rotating_shared_case) are checked against Triton's own gfx942 "
                   "lowering instead (tests/test_amd_rotating_oracle.py)",
         fields={"vec": "vec", "perPhase": "per_phase", "maxPhase": "max_phase", "order": "order"}),
    Kind("shared_linear", shared_linear, mnemonic="shared_linear", sample=sampling.shared_linear_case,
         gluon=_gluon_shared_linear,
         fields={"offset": "offset_bases", "block": "block_bases", "alignment": "alignment"}),
    Kind("linear", linear, aliases=("distributed_linear",), mnemonic="linear", sample=sampling.linear_case,
         gluon=_gluon_linear,
         fields={"register": "reg_bases", "lane": "lane_bases", "warp": "warp_bases", "block": "block_bases"}),
    Kind("generic_linear", generic_linear, mnemonic="generic_linear",
         unsampled="Gluon has no generic_linear builder; tests/test_hw_39_kinds.py has Triton's parser read "
                   "random generic_linear attributes as llverify builds them",
         fields={"register": "reg_bases", "lane": "lane_bases", "warp": "warp_bases", "block": "block_bases"}),
    partitioned.KIND,  # declared in its own module, with its sampler and Gluon builder
    Kind("intel_dpas", intel_dpas, aliases=("dpas",), mnemonic="dpas", dialect="ttig",
         unsampled="not in the Gluon differential: the triton wheel has no Intel XPU backend, so no oracle builds "
                   "#ttig.dpas; tests/test_intel_dpas.py replays the expectations of Intel's own unit tests "
                   "(DPAStoLinearLayoutTest) instead",
         fields={"repeatCount": "repeat_count", "systolicDepth": "systolic_depth", "executionSize": "execution_size",
                 "opsPerChan": "ops_per_chan", "threadsPerWarp": "threads_per_warp", "warpsPerCTA": "warps_per_cta",
                 "repCluster": "rep_cluster", "fp4KPack": "fp4_k_pack", "A": "shape_a", "B": "shape_b",
                 "C": "shape_c"}),
    Kind("tensor_memory", tensor_memory, mnemonic="tensor_memory_encoding", dialect="ttng",
         sample=sampling.tensor_memory_case, gluon=_gluon_tensor_memory,
         fields={"blockM": "block_m", "blockN": "block_n", "colStride": "col_stride", "CTASplitM": "cta_split_m",
                 "CTASplitN": "cta_split_n", "twoCTAs": "two_ctas", "fp4Padded": "fp4_padded",
                 "unpacked": "unpacked"}),  # Triton 3.5 and older; read as col_stride (llverify.triton.parse)
    Kind("tensor_memory_scales", tensor_memory_scales, mnemonic="tensor_memory_scales_encoding", dialect="ttng",
         sample=sampling.tensor_memory_scales_case, gluon=_gluon_tensor_memory_scales,
         fields={"blockRepOrder": "block_rep_order"}),
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
