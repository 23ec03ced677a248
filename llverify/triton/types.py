"""Triton's tensor and memdesc types: ``tensor<128x64xf16, #blocked>``, ``!ttg.memdesc<64x64xf16, #shared, #smem>``.

:func:`parse_type_spec` reads the shape, the element type, the layout attribute (a layout spec, through
:mod:`llverify.triton.parse`) and a memdesc's allocation shape; :func:`parse_type` builds the layout, with
what the type adds to the attribute (an NVMMA layout's element width, Triton 3.5's ``unpacked`` tensor
memory) and Triton 3.9's memdesc verifier rules for tensor memory.
"""

from __future__ import annotations

from typing import Any, Mapping

from llverify.errors import LayoutError
from llverify.layout import LinearLayout
from llverify.triton.attr_grammar import AttrParseError, dtype_bits
from llverify.triton.parse import reader

__all__ = ["parse_type", "parse_type_spec"]


def parse_type(text: str, aliases: Mapping[str, Any] | None = None
               ) -> tuple[LinearLayout, list[int], str]:
    """``tensor<128x64xf16, #blocked>`` / ``!ttg.memdesc<64x64xf16, #shared, #smem>`` -> (layout, shape, dtype).

    For memdescs the layout is built on the allocation shape when one is given
    (``!ttg.memdesc<64x64xf16, #shared, #smem, mutable, 2x64x64>``), else on the shape.
    """
    from llverify.hw.registry import build_spec

    spec, shape, dtype, alloc = parse_type_spec(text, aliases)
    if spec.get("kind") == "nvmma_shared" and "element_bitwidth" not in spec:
        spec = {**spec, "element_bitwidth": dtype_bits(dtype)}
    if spec.get("kind") == "tensor_memory" and "unpacked" in spec:  # Triton 3.5's spelling of colStride
        unpacked = bool(spec["unpacked"])
        spec = {k: v for k, v in spec.items() if k != "unpacked"}
        bits = dtype_bits(dtype)
        spec["col_stride"] = 32 // bits if unpacked and bits < 32 else 1
    try:
        layout = build_spec(spec, alloc or shape)
        if spec.get("kind") == "tensor_memory":
            _tensor_memory_type_rules(spec, alloc or shape, shape, dtype, layout)
        return layout, shape, dtype
    except AttrParseError:
        raise
    except LayoutError as exc:
        raise LayoutError(f"{text.strip()}: {exc}") from None


def _tensor_memory_type_rules(spec: Mapping[str, Any], alloc: list[int], shape: list[int], dtype: str,
                              layout: LinearLayout) -> None:
    """Triton 3.9's memdesc verifier on a tensor-memory type, beyond what building the layout checks:
    ``bits(dtype) * colStride <= 32``, and the allocation holds at least ``blockM`` rows and
    ``min(blockN, N)`` columns per CTA along each split (``blockM * splitM x min(blockN, N) * splitN``).
    ``layout`` is the per-CTA layout built on ``alloc``, so ``split = alloc / layout's out dim sizes``.

    Example: ``!ttg.memdesc<256x32xi8, #ttng.tensor_memory_encoding<blockM = 128, blockN = 256, colStride = 4,
    CGALayout = [[0, 1], [0, 2]]>, ...>`` splits N over 4 CTAs, 8 columns each, fewer than min(256, 32): refused.
    """
    bits = dtype_bits(dtype)
    stride = int(spec.get("col_stride", 1))
    if bits * stride > 32:
        raise LayoutError(f"tensor_memory: {bits}-bit elements with col_stride = {stride} take more than one 32-bit "
                          f"column (Triton's memdesc verifier needs bits x col_stride <= 32)")
    block = list(spec.get("block") or [0, 0])
    m, n = alloc[-2], alloc[-1]
    split_m, split_n = m // layout.out_dim_size("dim0"), n // layout.out_dim_size("dim1")
    need_m, need_n = block[0] * split_m, min(block[1], shape[-1]) * split_n
    if m < need_m or n < need_n:
        raise LayoutError(f"tensor_memory: the allocation {m}x{n} is smaller than {need_m}x{need_n} (block {block} "
                          f"per CTA, {split_m}x{split_n} CTAs; Triton's memdesc verifier)")


def parse_type_spec(text: str, aliases: Mapping[str, Any] | None = None
                    ) -> tuple[dict[str, Any], list[int], str, list[int] | None]:
    """Like :func:`parse_type` without building: (spec, shape, dtype, allocation shape or None)."""
    p = reader(text, aliases)
    p.ws()
    if p.s.startswith("tensor", p.i):
        p.i += len("tensor")
        memdesc = False
    elif p.s.startswith("!ttg.memdesc", p.i):
        p.i += len("!ttg.memdesc")
        memdesc = True
    else:
        raise AttrParseError(text, p.i, "'tensor<' or '!ttg.memdesc<'")
    p.eat("<")
    shape, dtype = p.dims_and_elem()
    spec = None
    alloc = None
    while p.peek(","):
        p.i += 1
        p.ws()
        if p.s.startswith("#", p.i):
            v = p.attr()
            if isinstance(v, dict) and v.get("kind") != "__opaque__" and spec is None:
                spec = v
        elif p.s.startswith("mutable", p.i):
            p.i += len("mutable")
        elif memdesc and p.s[p.i:p.i + 1].isdigit():
            alloc = p.dims()
        else:
            raise AttrParseError(text, p.i, "a layout attribute, 'mutable' or an allocation shape")
    p.eat(">")
    p.end()
    if spec is None:
        raise AttrParseError(text, len(text) - 1, "a layout encoding ('#...') in the type")
    return spec, shape, dtype, alloc
