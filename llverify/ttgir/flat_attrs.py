"""The one-pass reading of the layout attributes Triton prints flat: ``#dialect.name<{field = value, ...}>``.

Nearly every layout alias and inline encoding of a module is a dotted attribute name and a braced field list whose
values are integers (``16``, ``16 : i32``), ``true`` / ``false``, an alias (``#blocked``) or integer lists
(``[1, 0]``, ``[[0, 1], [0, 2]]``), written ``name = value`` and separated by ``, ``::

    #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
    #ttg.slice<{dim = 1, parent = #blocked}>

:func:`flat_attribute` reads such a text with two regular expressions and hands the fields to the attribute's
meaning (:func:`llverify.triton.parse.reader`'s ``resolve``: the layout spec), which is what the general reader
(:class:`llverify.triton.attr_grammar.Reader`) does after reading the same fields one character class at a time: the
fields are the same values in the same order (an integer's ``: type`` is dropped, a list holds the same integers,
an alias is its spec itself), so the answer (spec or error) is the same.  Any other text (strings, enum words,
nested braces, an unknown alias, a repeated field, extra blanks) is None: the caller reads it the general way.

>>> flat_attribute("#ttg.slice<{dim = 1, parent = #b}>", {"b": {"kind": "blocked"}})["parent"]
{'kind': 'blocked'}
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from llverify.triton.parse import reader

__all__ = ["flat_attribute"]

_FLAT = re.compile(r"#((?:[A-Za-z_][A-Za-z0-9_$]*\.)+[A-Za-z_][A-Za-z0-9_$]*)<\{([^{}<>\"\\]*)\}>")
_NAME = r"[A-Za-z_][A-Za-z0-9_$]*"
_FIELD = re.compile(rf"({_NAME}) = (-?\d+(?: : {_NAME})?|true|false|#{_NAME}|\[[\[\]\d, \-]*\])(?:, (?=[A-Za-z_])|$)")


def flat_attribute(text: str, specs: Mapping[str, Any]) -> Any | None:
    """The value of a flat attribute ``text`` (see the module docstring) with the aliases ``specs``, or None when
    ``text`` is not flat.  Raises what the general reader raises for the same fields (an unknown field name, a
    bad value for the kind)."""
    m = _FLAT.fullmatch(text)
    if m is None or m.group(1).endswith(".padded_shared"):  # (its body opens with a padding list)
        return None
    inner = m.group(2)
    body: dict[str, Any] = {}
    pos = 0
    while pos < len(inner):
        f = _FIELD.match(inner, pos)
        if f is None:
            return None
        key, raw = f.group(1), f.group(2)
        if key in body:
            return None  # the general reader says which
        c = raw[0]
        if c == "[":
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                return None
        elif c == "#":
            if raw[1:] not in specs:
                return None
            value = specs[raw[1:]]
        elif c == "t" or c == "f":
            value = raw == "true"
        else:
            value = int(raw.split(" ", 1)[0])
        body[key] = value
        pos = f.end()
    # the general reader: `#` then the dotted name read from position 1, the fields, then the attribute's meaning
    # (an attribute it does not read is refused before its fields: it says which)
    general = reader(text)
    parts = m.group(1).split(".")
    if general.unknown is not None and general.unknown(parts) is not None:
        return None
    return general.resolve(text, parts, body, 1)
