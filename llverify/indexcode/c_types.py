"""The C integer types of index code and C's usual arithmetic conversions.

Shared by the Z3 encoder (:mod:`llverify.indexcode.bitvector`) and the concrete
evaluator (:mod:`llverify.indexcode.evaluate`): a type is ``(bits, signed)``
among ``int32``, ``uint32``, ``int64``, ``uint64``.  Example:
``common_type((32, True), (32, False)) == (32, False)`` (at equal width,
unsigned wins), ``common_type((64, True), (32, False)) == (64, True)``.
"""

from __future__ import annotations

from typing import Mapping

from llverify.indexcode.parse import C_TYPES, IndexCodeError, ParsedCode

__all__ = ["CType", "DEFAULT_C_TYPE", "INT32", "MAX_PYTHON_WIDTH", "common_type", "resolve_types", "type_name"]

DEFAULT_C_TYPE = "uint32"
MAX_PYTHON_WIDTH = 1024

CType = tuple[int, bool]  # (bits, signed)
INT32: CType = (32, True)


def resolve_types(parsed: ParsedCode, types: Mapping[str, str] | None) -> dict[str, str]:
    """Per variable, its C type name (declared or the default); Python gets ``int``."""
    types = dict(types or {})
    for name, t in types.items():
        if parsed.lang == "c" and t not in C_TYPES:
            raise IndexCodeError(f"variable '{name}' has unknown C type {t!r}; use one of {sorted(C_TYPES)}")
        if parsed.lang == "python" and t not in ("int",):
            raise IndexCodeError(f"variable '{name}': Python index code has unbounded 'int' variables, not {t!r}")
    default = DEFAULT_C_TYPE if parsed.lang == "c" else "int"
    return {v: types.get(v, default) for v in parsed.variables}


def common_type(a: CType, b: CType) -> CType:
    """C's usual arithmetic conversions on our four types."""
    if a == b:
        return a
    if a[1] == b[1]:
        return a if a[0] >= b[0] else b
    u, s = (a, b) if not a[1] else (b, a)
    return u if u[0] >= s[0] else s


def type_name(t: CType) -> str:
    """``(32, True)`` -> ``"int32"``."""
    return ("int" if t[1] else "uint") + str(t[0])
