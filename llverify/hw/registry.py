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

from llverify.hw import tiles
from llverify.hw.amd import amd_mfma, amd_wmma
from llverify.hw.blocked import blocked
from llverify.hw.dot_operand import dot_operand
from llverify.hw.kinds import Kind, build, build_spec, constructor, declare, parameters
from llverify.hw.linear import linear
from llverify.hw.nvidia_mma import nvidia_mma
from llverify.hw.shared import amd_rotating_shared, nvmma_shared, shared_linear, swizzled_shared
from llverify.hw.slice import slice_layout
from llverify.hw.tmem import tensor_memory, tensor_memory_scales

__all__ = ["DECLARATIONS", "KINDS", "TILE_KINDS", "build", "build_spec", "constructor", "parameters"]

#: Every kind: its name (as specs and the command line spell it), its constructor, other spellings
#: (Triton's tests and attribute names).
DECLARATIONS: tuple[Kind, ...] = (
    Kind("blocked", blocked),
    Kind("slice", slice_layout),
    Kind("nvidia_mma", nvidia_mma, aliases=("mma",)),
    Kind("dot_operand", dot_operand, aliases=("dot_op",)),
    Kind("amd_mfma", amd_mfma, aliases=("mfma",)),
    Kind("amd_wmma", amd_wmma, aliases=("wmma",)),
    Kind("swizzled_shared", swizzled_shared),
    Kind("nvmma_shared", nvmma_shared),
    Kind("amd_rotating_shared", amd_rotating_shared),
    Kind("shared_linear", shared_linear),
    Kind("linear", linear, aliases=("distributed_linear",)),
    Kind("tensor_memory", tensor_memory),
    Kind("tensor_memory_scales", tensor_memory_scales),
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
