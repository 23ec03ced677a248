"""``dot_operand(operand_index, parent, k_width, shape)``: dispatch on the parent's kind.

The parent is a ``{"kind": ..., **params}`` spec: ``nvidia_mma`` (see
:mod:`llverify.hw.nvidia_mma`), ``amd_mfma``/``amd_wmma`` (see :mod:`llverify.hw.amd_dot`),
``intel_dpas`` (:mod:`llverify.hw.intel_dpas`) or ``blocked`` (FMA dots, :mod:`llverify.hw.fma_dot`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

from llverify.errors import LayoutError
from llverify.layout import LinearLayout

__all__ = ["dot_operand"]


def dot_operand(operand_index: int, parent: Mapping[str, Any], shape: Sequence[int],
                k_width: int = 0) -> LinearLayout:
    """Dot operand ``operand_index`` (0 = A, 1 = B) of ``parent`` on ``shape``."""
    if not isinstance(parent, Mapping) or "kind" not in parent:
        raise LayoutError(f"dot_operand: parent must be a mapping with a 'kind' key, got {parent!r}")
    p = dict(parent)
    if "params" in p and isinstance(p["params"], Mapping):
        p = {**p.pop("params"), **p}
    pk = p.get("kind")
    pk = {"mma": "nvidia_mma", "mfma": "amd_mfma", "wmma": "amd_wmma", "dpas": "intel_dpas"}.get(pk, pk)
    if pk == "nvidia_mma":
        from llverify.hw.nvidia_mma import nvidia_dot_operand
        return nvidia_dot_operand(operand_index, p, k_width, shape)
    if pk in ("amd_mfma", "amd_wmma"):
        from llverify.hw.amd_dot import amd_dot_operand
        return amd_dot_operand(operand_index, p, k_width, shape)
    if pk == "intel_dpas":
        from llverify.hw.intel_dpas import dpas_dot_operand
        return dpas_dot_operand(operand_index, p, k_width, shape)
    if pk == "blocked":
        from llverify.hw.fma_dot import fma_dot_operand
        return fma_dot_operand(operand_index, p, k_width, shape)
    raise LayoutError(f"dot_operand: parent kind {pk!r} has no dot operand layout "
                      "(expected nvidia_mma, amd_mfma, amd_wmma, intel_dpas or blocked)")
