"""``suggest``: the "did you mean" hint of spec diagnostics (shared by the spec modules).

>>> suggest("surjectiv", ["surjective", "injective"])
" (did you mean 'surjective'?)"
>>> suggest("zzz", ["surjective"])
''
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable

__all__ = ["suggest"]


def suggest(word: Any, options: Iterable[Any]) -> str:
    """`` (did you mean 'x'?)`` when a close match exists."""
    close = difflib.get_close_matches(str(word), list(options), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
