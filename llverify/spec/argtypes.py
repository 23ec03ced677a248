"""Argument types of check kinds, and their validation against located values.

Each check kind (see :mod:`llverify.spec.kinds`) declares its arguments as
:class:`Arg` values: a type name, whether it is required, allowed choices.
:func:`check_value` validates one located value and returns it as a plain
Python value, or raises :class:`~llverify.spec.source.SpecError` pointing at
the value.

Types: ``layout`` (the name of a layout of the spec), ``layouts`` (a list of
names), ``int``, ``pow2`` (a positive power of two), ``number`` (int or
float > 0), ``str``, ``bool``, ``ints`` (list of ints), ``pow2s`` (list of
powers of two), ``strs`` (a name or a list of names), ``map`` (any mapping), ``any``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from llverify.spec.source import LList, LMap, Pos, SpecError

__all__ = ["Arg", "check_value", "type_name"]


@dataclass(frozen=True)
class Arg:
    """One argument of a check kind."""

    type: str
    required: bool = False
    choices: tuple[Any, ...] = ()
    doc: str = ""
    default: Any = None


def type_name(value: Any) -> str:
    """How a user would call the type of a YAML value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_pow2(v: Any) -> bool:
    return _is_int(v) and v > 0 and v & (v - 1) == 0


def _pos_of(container: Any, key: Any) -> Pos:
    if isinstance(container, LMap):
        return container.where(key)
    if isinstance(container, LList):
        return container.where(key)
    return Pos()


def check_value(arg: Arg, value: Any, where: Pos, path: str, what: str,
                layouts: Mapping[str, Any]) -> Any:
    """Validate ``value`` (at ``where``) against ``arg``; return it as plain data."""

    def fail(msg: str, pos: Pos = where) -> SpecError:
        return SpecError(path, pos, msg)

    t = arg.type
    if t == "layout":
        if not isinstance(value, str):
            raise fail(f"{what} must name a layout (a string), not {type_name(value)}")
        if value not in layouts:
            known = ", ".join(sorted(layouts)) or "none defined"
            raise fail(f"{what} refers to unknown layout '{value}' (layouts: {known})")
        return value
    if t == "layouts":
        if not isinstance(value, list) or not value:
            raise fail(f"{what} must be a non-empty list of layout names")
        return [check_value(Arg("layout"), v, _pos_of(value, i), path, f"{what}[{i}]", layouts)
                for i, v in enumerate(value)]
    if t == "int":
        if not _is_int(value):
            raise fail(f"{what} must be an integer, not {type_name(value)}")
        out: Any = value
    elif t == "pow2":
        if not _is_int(value):
            raise fail(f"{what} must be an integer, not {type_name(value)}")
        if not _is_pow2(value):
            raise fail(f"{what} is {value}, which is not a power of two")
        out = value
    elif t == "number":
        if not (_is_int(value) or isinstance(value, float)) or not value > 0:
            raise fail(f"{what} must be a positive number, not {value!r}")
        out = float(value)
    elif t == "str":
        if not isinstance(value, str):
            raise fail(f"{what} must be a string, not {type_name(value)}")
        out = value
    elif t == "bool":
        if not isinstance(value, bool):
            raise fail(f"{what} must be true or false, not {type_name(value)}")
        out = value
    elif t in ("ints", "pow2s"):
        if not isinstance(value, list):
            raise fail(f"{what} must be a list of integers, not {type_name(value)}")
        for i, v in enumerate(value):
            p = _pos_of(value, i)
            if not _is_int(v):
                raise fail(f"{what}[{i}] must be an integer, not {type_name(v)}", p)
            if t == "pow2s" and not _is_pow2(v):
                raise fail(f"{what}[{i}] is {v}, which is not a power of two", p)
        out = list(value)
    elif t == "strs":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(f"{what} must be a name or a list of names")
        out = list(value)
    elif t == "map":
        if not isinstance(value, Mapping):
            raise fail(f"{what} must be a mapping, not {type_name(value)}")
        out = value
    elif t == "any":
        out = value
    else:  # pragma: no cover - programming error in the registry
        raise ValueError(f"unknown argument type {t}")
    if arg.choices and out not in arg.choices:
        raise fail(f"{what} is {out!r}; expected one of {', '.join(map(str, arg.choices))}")
    return out
