"""Print layout specs as Triton attribute text (inverse of :func:`llverify.triton.parse.parse_attr`).

``format_attr({"kind": "blocked", "size_per_thread": [1, 4], ...})`` ->
``#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>``.
Nested parents are printed inline (``parent = #ttg.nvidia_mma<{...}>``), or as
``#name`` when ``aliases`` maps a name to an equal spec.  ``parse_attr(format_attr(s)) == s``
for every spec :func:`parse_attr` produces, except that a legacy CGA triple
(``ctas_per_cga, cta_split_num, cta_order``) is printed as the equivalent
``CGALayout = [[...]]`` bases: Triton 3.9.0's parser accepts only that form.
"""

from __future__ import annotations

from typing import Any, Mapping

from llverify.errors import LayoutError
from llverify.hw.kinds import attribute_kinds
from llverify.triton.parse import attr_fields, attr_kinds

__all__ = ["format_attr", "format_value", "format_type"]


def _mnemonic(kind: str) -> str | None:
    return next((m for m, k in attr_kinds().items() if k == kind), None)


def _dialect(kind: str) -> str:
    return next((k.dialect for k in attribute_kinds().values() if k.name == kind), "ttg")


def format_value(v: Any, aliases: Mapping[str, Any] | None = None) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Mapping):
        return format_attr(v, aliases)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_value(x, aliases) for x in v) + "]"
    if isinstance(v, str):
        return '"' + v + '"'
    raise LayoutError(f"cannot print value {v!r} as attribute text")


def format_attr(spec: Mapping[str, Any], aliases: Mapping[str, Any] | None = None) -> str:
    """Triton attribute text for a layout spec (``{"kind": ..., **params}``)."""
    for name, a in (aliases or {}).items():
        if a == spec:
            return f"#{name}"
    kind = spec.get("kind")
    mnemonic = _mnemonic(str(kind))
    if mnemonic is None:
        raise LayoutError(f"cannot print a layout of kind {kind!r} as a Triton attribute")
    fields = attr_fields(kind)
    back: dict[str, str] = {}
    for k, v in fields.items():
        back.setdefault(v, k)
    parts = []
    params = _modern_cga(dict(spec))
    params.pop("kind")
    if kind == "nvidia_mma":
        ver = params.pop("version", [2, 0])
        ver = [ver, 0] if isinstance(ver, int) else list(ver) + [0] * (2 - len(ver))
        parts += [f"versionMajor = {ver[0]}", f"versionMinor = {ver[1]}"]
    if kind == "tensor_memory":
        blk = params.pop("block", [128, 128])
        parts += [f"blockM = {blk[0]}", f"blockN = {blk[1]}"]
    if kind == "amd_wmma":
        return _format_wmma(params, aliases)
    for k, v in params.items():
        if k not in back:
            raise LayoutError(f"#{kind} has no attribute field for parameter {k!r}")
        if kind == "tensor_memory_scales" and k == "block_rep_order":
            parts.append(f"{back[k]} = {v}")  # a bare enum keyword
            continue
        parts.append(f"{back[k]} = {format_value(v, aliases)}")
    dialect = _dialect(kind)
    if kind == "shared_linear":
        # Triton 3.9 prints (and its parser requires) the alignment after the braces: `<{offset = ...}, alignment = 16>`
        inner = [p for p in parts if not p.startswith("alignment")]
        align = params.get("alignment", 16)
        return f"#{dialect}.{mnemonic}<{{" + ", ".join(inner) + f"}}, alignment = {align}>"
    if kind in ("tensor_memory", "tensor_memory_scales"):
        return f"#{dialect}.{mnemonic}<" + ", ".join(parts) + ">"
    return f"#{dialect}.{mnemonic}<{{" + ", ".join(parts) + "}>"


def _modern_cga(params: dict[str, Any]) -> dict[str, Any]:
    """Legacy ``ctas_per_cga/cta_split_num/cta_order`` -> ``cga_layout`` bases (Triton 3.9.0 parses only ``CGALayout``)."""
    legacy = ("ctas_per_cga", "cta_split_num", "cta_order")
    if not any(params.get(k) is not None for k in legacy):
        return params
    from llverify.hw.cga import cga_bases

    ctas = params.get("ctas_per_cga") or []
    bases = cga_bases(len(ctas), str(params.get("kind")), None, *(params.get(k) for k in legacy))
    out = {k: v for k, v in params.items() if k not in legacy}
    if bases:
        out["cga_layout"] = bases
    return out


def _format_wmma(params: dict[str, Any], aliases: Mapping[str, Any] | None) -> str:
    """``#ttg.amd_wmma`` the way Triton 3.9.0 prints it (bases under ``ctaLayout``)."""
    known = {"version", "transposed", "warp_bases", "reg_bases", "instr_shape", "cga_layout", "rank"}
    extra = sorted(set(params) - known)
    if extra:
        raise LayoutError(f"#amd_wmma has no attribute field for parameter {extra[0]!r}")
    warp = list(params.get("warp_bases") or [])
    reg = list(params.get("reg_bases") or [])
    rank = params.get("rank")
    if rank not in (None, 2) and not warp and not reg:
        raise LayoutError(f"#amd_wmma of rank {rank} with no warp/register bases has no attribute text "
                          "(Triton infers the rank from the bases)")
    cta = ", ".join(f"{n} = {format_value(b, aliases)}" for n, b in (("register", reg), ("warp", warp))
                    if b or n == "warp")
    parts = [f"version = {format_value(params.get('version'))}",
             f"isTranspose = {format_value(bool(params.get('transposed', False)))}",
             "ctaLayout = {" + cta + "}"]
    if params.get("cga_layout"):
        parts.append(f"CGALayout = {format_value(params['cga_layout'])}")
    parts.append(f"instrShape = {format_value(params.get('instr_shape') or [16, 16, 16])}")
    if rank not in (None, 2):
        parts.append(f"rank = {format_value(rank)}")
    return "#ttg.amd_wmma<{" + ", ".join(parts) + "}>"


def format_type(spec: Mapping[str, Any], shape: list[int], dtype: str, memdesc: bool = False,
                aliases: Mapping[str, Any] | None = None) -> str:
    """``tensor<128x64xf16, #ttg.blocked<{...}>>`` (or ``!ttg.memdesc<..., #ttg.shared_memory>``)."""
    dims = "x".join(str(s) for s in shape)
    if memdesc:
        return f"!ttg.memdesc<{dims}x{dtype}, {format_attr(spec, aliases)}, #ttg.shared_memory>"
    return f"tensor<{dims}x{dtype}, {format_attr(spec, aliases)}>"
