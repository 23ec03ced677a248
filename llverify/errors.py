"""Error types shared by every layer.

`LayoutError` is raised for invalid layouts and invalid arguments to layout
operations; it is a `ValueError` so callers that only care about bad input can
catch that.  Every message names the offending dimension or parameter.
"""

from __future__ import annotations


class LlverifyError(Exception):
    """Base class of every error llverify raises on purpose."""


class LayoutError(LlverifyError, ValueError):
    """An invalid layout, layout parameter, or layout operation argument."""


class SizeGuardError(LayoutError):
    """A computation would enumerate more points than the configured guard allows."""


class TtgirError(LlverifyError, ValueError):
    """A malformed TTGIR module; the message starts with ``file:line:col:``."""
