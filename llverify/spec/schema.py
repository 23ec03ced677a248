"""The JSON Schema of a spec file (``llverify schema`` prints it).

Generated from the same tables the validator uses (:data:`~llverify.spec.kinds.KINDS`,
:data:`~llverify.spec.layouts.LAYOUT_SOURCES`), so the two cannot drift
apart.  The validator in :mod:`llverify.spec.parse` is stricter in places a
schema cannot express (layout references must name a layout of the file,
powers of two, size guards) and reports positions; the schema is for editors
and for tools that generate specs.
"""

from __future__ import annotations

from typing import Any

from llverify.hw.registry import declared
from llverify.spec.argtypes import Arg
from llverify.spec.kinds import KINDS
from llverify.spec.model import EXPECTS, METHODS

__all__ = ["spec_schema", "SCHEMA_ID"]

SCHEMA_ID = "https://llverify.dev/schema/spec-1.json"

_POW2 = {"type": "integer", "minimum": 1, "description": "a power of two"}


def _arg_schema(arg: Arg) -> dict[str, Any]:
    t = arg.type
    if t == "layout":
        s: dict[str, Any] = {"type": "string", "description": "the name of a layout of this spec"}
    elif t == "layouts":
        s = {"type": "array", "items": {"type": "string"}, "minItems": 1}
    elif t == "int":
        s = {"type": "integer"}
    elif t == "pow2":
        s = dict(_POW2)
    elif t == "number":
        s = {"type": "number", "exclusiveMinimum": 0}
    elif t == "str":
        s = {"type": "string"}
    elif t == "bool":
        s = {"type": "boolean"}
    elif t == "ints":
        s = {"type": "array", "items": {"type": "integer"}}
    elif t == "pow2s":
        s = {"type": "array", "items": dict(_POW2)}
    elif t == "map":
        s = {"type": "object"}
    else:
        s = {}
    if arg.choices:
        s["enum"] = list(arg.choices)
    if arg.doc:
        s["description"] = arg.doc
    return s


def _check_schema(name: str) -> dict[str, Any]:
    kind = KINDS[name]
    full = {
        "type": "object",
        "properties": {k: _arg_schema(a) for k, a in kind.args.items()},
        "required": [k for k, a in kind.args.items() if a.required],
        "additionalProperties": False,
    }
    forms: list[dict[str, Any]] = [full]
    if kind.positional:
        forms.append({"type": "string", "description": f"short for {{{kind.positional[0]}: <name>}}"})
        forms.append({"type": "array", "items": {"type": "string"}, "minItems": 1,
                      "maxItems": len(kind.positional),
                      "description": "short for {" + ", ".join(f"{p}: <name>" for p in kind.positional) + "}"})
    return {
        "type": "object",
        "description": kind.claim.replace("[", "").replace("]", ""),
        "properties": {name: {"oneOf": forms}, **_COMMON},
        "required": [name],
        "additionalProperties": False,
    }


_COMMON: dict[str, Any] = {
    "name": {"type": "string", "minLength": 1, "description": "unique within the file"},
    "expect": {"enum": list(EXPECTS), "default": "proved"},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "seconds"},
    "method": {"enum": list(METHODS), "default": "auto"},
    "rlimit": {"type": "integer", "minimum": 1, "description": "Z3 resource limit (deterministic)"},
    "description": {"type": "string"},
}

_SHAPE = {"type": "array", "items": dict(_POW2), "minItems": 1}


def _hardware_kinds() -> list[str]:
    """Every declared hardware kind's name and other spellings (:func:`llverify.hw.kinds.declared`)."""
    return [name for k in declared() for name in (k.name, *k.aliases)]


def _layout_schema() -> dict[str, Any]:
    desc = {"description": {"type": "string"}}
    return {
        "oneOf": [
            {"type": "object", "required": ["kind", "shape"],
             "properties": {"kind": {"enum": _hardware_kinds(), "description": "hardware layout kind (llverify.hw)"},
                            "shape": _SHAPE, **desc},
             "additionalProperties": True,
             "description": "a hardware layout with Gluon parameter names (size_per_thread, ...)"},
            {"type": "object", "required": ["triton"],
             "properties": {"triton": {"type": "string"}, "shape": _SHAPE, **desc},
             "additionalProperties": False,
             "description": "a #ttg attribute (with shape) or a tensor<...> type"},
            {"type": "object", "required": ["bases"],
             "properties": {
                 "bases": {"type": "object", "additionalProperties": {
                     "type": "array", "items": {"oneOf": [
                         {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
                         {"type": "integer", "minimum": 0}]}}},
                 "out": {"oneOf": [{"type": "object", "additionalProperties": dict(_POW2)},
                                   {"type": "array", "items": {"type": "string"}}]},
                 **desc},
             "additionalProperties": False,
             "description": "explicit bases: in dim -> list of bases (one component per out dim)"},
            {"type": "object", "required": ["lego"],
             "properties": {"lego": {"type": "string"}, **desc},
             "additionalProperties": False, "description": "a LEGO layout expression"},
            {"type": "object", "required": ["cute"],
             "properties": {"cute": {"type": "string"}, **desc},
             "additionalProperties": False,
             "description": "CuTe notation `[Sw<B,M,S> o] shape:stride` (F2-linear, bijective)"},
        ]
    }


def spec_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a spec document."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "llverify spec",
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "description": {"type": "string"},
            "layouts": {"type": "object", "additionalProperties": {"$ref": "#/$defs/layout"}},
            "checks": {"type": "array", "items": {"$ref": "#/$defs/check"}},
        },
        "required": ["checks"],
        "additionalProperties": False,
        "$defs": {
            "layout": _layout_schema(),
            "check": {"oneOf": [{"$ref": f"#/$defs/check_{name}"} for name in KINDS]},
            **{f"check_{name}": _check_schema(name) for name in KINDS},
        },
    }
