"""Hardware layout constructors, bit-exact with Triton 3.9.0 (seed 000, section 4).

Each constructor takes Gluon's parameter names plus a ``shape`` and returns a
:class:`~llverify.layout.LinearLayout` (in dims ``register, lane, warp, block``
for distributed layouts, ``offset, block`` for shared ones, ``row, col`` for
tensor memory; out dims ``dim0..``).  :func:`build` dispatches by kind name;
instruction tiles (``ldmatrix``, ``stmatrix``, ``ld_shared``, ``st_shared``)
live in :mod:`llverify.hw.tiles`.
Invalid parameters raise :class:`~llverify.errors.LayoutError` naming them.
"""

from llverify.hw.amd import amd_mfma, amd_wmma
from llverify.hw.blocked import blocked
from llverify.hw.linear import linear
from llverify.hw.tmem import tensor_memory, tensor_memory_scales
from llverify.hw.dot_operand import dot_operand
from llverify.hw.nvidia_mma import nvidia_mma
from llverify.hw.registry import KINDS, TILE_KINDS, build, build_spec, constructor, parameters
from llverify.hw import tiles
from llverify.hw.shared import amd_rotating_shared, nvmma_shared, shared_linear, swizzled_shared
from llverify.hw.slice import slice_layout

__all__ = ["KINDS", "TILE_KINDS", "tiles", "build", "build_spec", "constructor", "parameters", "blocked", "slice_layout", "nvidia_mma",
           "dot_operand", "amd_mfma", "amd_wmma", "linear", "tensor_memory", "tensor_memory_scales", "swizzled_shared", "nvmma_shared", "amd_rotating_shared", "shared_linear"]
