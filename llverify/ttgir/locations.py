"""Source locations of TTGIR ops: the trailing ``loc(...)`` of an op's text and what it resolves to.

A location is a file location ``loc("k.py":4:9)``, an alias ``loc(#loc3)`` (defined at the top level as
``#loc3 = loc(...)``), a named location ``loc("x"(inner))``, a call site ``callsite(callee at caller)`` (the
callee, else the caller) or a fused location ``fused[a, b]`` (the first that resolves).  :class:`Locations`
resolves one to a Python :class:`~llverify.ttgir.model.SourceLocation`, following at most 64 aliases.

>>> split_loc("%0 = arith.addf %x, %x : f32 loc(#loc1)")
('%0 = arith.addf %x, %x : f32', 'loc(#loc1)')
>>> str(Locations({"loc1": 'loc("k.py":4:9)'}).resolve("loc(#loc1)"))
'k.py:4:9'
"""

from __future__ import annotations

import re

from llverify.ttgir.model import SourceLocation
from llverify.ttgir.syntax import matching_close, rfind_top, split_top, sub

__all__ = ["Locations", "split_loc"]

_FILE_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_NAMED_LOC = re.compile(r'^"((?:[^"\\]|\\.)*)"\((.*)\)$', re.S)
#: a whole (stripped) location text that resolves to a file location: ``loc("file":line:col ...)``
#: a call site of two location aliases (what ``split_top(body, " at ")`` cuts it into: one ``at`` at the top level)
_CALLSITE_ALIASES = re.compile(r"(#[\w$.\-]+) at (#[\w$.\-]+)")
_LOC_FILE = re.compile(r'loc\(\s*"((?:[^"\\]|\\.)*)":(\d+):(\d+).*\)', re.S)
#: the other definitions Triton prints (stripped): a named alias ``loc("x"(#loc3))`` (group 1: the name, 2: the alias)
#: and a call site of two aliases ``loc(callsite(#loc3 at #loc4))`` (group 3: the callee, 4: the caller)
_LOC_VIA = re.compile(r'loc\((?:"((?:[^"\\\n]|\\[^\n])*)"\(#([\w$.\-]+)\)|callsite\(#([\w$.\-]+) at #([\w$.\-]+)\))\)')


class Locations:
    """Location aliases (``name -> loc(...)`` text) and the resolution of location texts, memoised per text and
    per alias.

    Resolution follows at most 64 levels (aliases, named locations, call sites, fused parts); the answer for an
    alias depends on the level it is met at only through that cut-off, so an alias's answer found without reaching
    the cut-off is kept with its ``span`` (how many levels below it the resolution went) and reused at level ``d``
    only when ``d + span <= 64`` (where resolving it again would go the same way without reaching it)."""

    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs
        self.memo: dict[str, SourceLocation | None] = {}  # top-level answers (the many ops sharing one loc)
        self.alias_memo: dict[str, tuple[SourceLocation | None, int]] = {}  # alias -> (answer, span)
        self.level_memo: dict[tuple[str, int], tuple[SourceLocation | None, int]] = {}  # -> (answer, deepest)
        self.deepest = 0  # the deepest level reached by the resolution under way

    def resolve(self, text: str | None, depth: int = 0) -> SourceLocation | None:
        """The source location ``text`` (a ``loc(...)`` or its content) resolves to, met at level ``depth``."""
        if depth == 0 and text is not None:
            if text in self.memo:
                return self.memo[text]
            t = text.strip()
            if t.startswith("loc(#") and t.endswith(")"):  # an op's `loc(#loc3)`: the alias (as _resolve reads it)
                found = self.memo[text] = self._alias(t[5:-1].rstrip(), 0)
                return found
            found = self.memo[text] = self._resolve(text, 0)
            return found
        return self._resolve(text, depth)

    def _resolve(self, text: str | None, depth: int) -> SourceLocation | None:
        if depth > self.deepest:
            self.deepest = depth
        if text is None or depth > 64:
            return None
        t = text.strip()
        if t.startswith("loc(") and t.endswith(")"):
            t = t[4:-1].strip()
        if t.startswith("#"):
            return self._alias(t[1:], depth)
        m = _FILE_LOC.match(t)
        if m:
            return SourceLocation(m.group(1), int(m.group(2)), int(m.group(3)))
        m = _NAMED_LOC.match(t)
        if m:
            inner = self.resolve(m.group(2), depth + 1)
            return SourceLocation(inner.file, inner.line, inner.col, m.group(1)) if inner else None
        if t.startswith("callsite(") and t.endswith(")"):
            body = t[len("callsite("):-1]
            m = _CALLSITE_ALIASES.fullmatch(body)  # `#a at #b`, as Triton prints nearly every call site
            parts = [m.group(1), m.group(2)] if m else split_top(body, " at ")
            for part in parts:
                found = self.resolve(part, depth + 1)
                if found:
                    return found
            return None
        if t.startswith("fused"):
            i = t.find("[")
            if i >= 0 and t.endswith("]"):
                for part in split_top(t[i + 1:-1], ","):
                    found = self.resolve(part, depth + 1)
                    if found:
                        return found
        return None

    def _alias(self, name: str, depth: int) -> SourceLocation | None:
        """The resolution of ``#name`` met at level ``depth`` (its definition resolved at ``depth + 1``), kept per
        (name, level) as well: a cyclic definition (``#a = loc(callsite(#a at #a))``) costs at most 65 resolutions
        per alias instead of one per path to the cut-off."""
        hit = self.alias_memo.get(name)
        if hit is not None and depth + hit[1] <= 64:
            if depth + hit[1] > self.deepest:
                self.deepest = depth + hit[1]
            return hit[0]
        level = self.level_memo.get((name, depth))
        if level is not None:
            if level[1] > self.deepest:
                self.deepest = level[1]
            return level[0]
        definition = self.defs.get(name)
        if definition is not None and depth < 64:
            m = _LOC_FILE.fullmatch(definition.strip())  # most definitions: what _resolve reads at depth + 1
            if m:
                found = SourceLocation(m.group(1), int(m.group(2)), int(m.group(3)))
                self.alias_memo[name] = (found, 1)
                if depth + 1 > self.deepest:
                    self.deepest = depth + 1
                return found
        outer, self.deepest = self.deepest, depth
        found = self._definition(definition, depth + 1)
        self.level_memo[(name, depth)] = (found, self.deepest)
        if self.deepest <= 64:  # a cut-off answer is kept for its level only (a shallower one might go further)
            self.alias_memo[name] = (found, self.deepest - depth)
        self.deepest = max(outer, self.deepest)
        return found

    def _definition(self, definition: str | None, depth: int) -> SourceLocation | None:
        """``resolve(definition, depth)`` (``depth > 0``), in one match for a named alias or a call site of two
        aliases (:data:`_LOC_VIA`): the levels :meth:`_resolve` goes through for them, the definition's at
        ``depth`` and each alias's at ``depth + 1``, reached in the same order."""
        m = _LOC_VIA.fullmatch(definition.strip()) if definition is not None else None
        if m is None:
            return self.resolve(definition, depth)
        if depth > self.deepest:
            self.deepest = depth
        if depth > 64:
            return None
        name, alias, callee, caller = m.groups()
        if alias is not None:
            inner = self._at(alias, depth + 1)
            return SourceLocation(inner.file, inner.line, inner.col, name) if inner else None
        return self._at(callee, depth + 1) or self._at(caller, depth + 1)

    def _at(self, name: str, depth: int) -> SourceLocation | None:
        """``resolve("#" + name, depth)`` (``depth > 0``)."""
        if depth > self.deepest:
            self.deepest = depth
        return None if depth > 64 else self._alias(name, depth)


def split_loc(text: str) -> tuple[str, str | None]:
    """``"... loc(#loc3)"`` -> (``"..."``, ``"loc(#loc3)"``) for a trailing top-level loc."""
    t = text.rstrip()
    if not t.endswith((")", "]", "}", ">")):
        return t, None  # a location ends the text with the bracket that closes its `loc(`
    i = rfind_top(t, "loc(")
    if i >= 0 and (i == 0 or not (t[i - 1].isalnum() or t[i - 1] == "_")):
        close = matching_close(t, i + 3)
        if close == len(t) - 1:
            return sub(t, 0, len(t[:i].rstrip())), t[i:]
    return t, None
