"""Python's cyclic garbage collector paused while a module is read or checked.

Reading and checking one module allocates some 10^5 short-lived objects (ops, types, layouts, verdicts), nearly all
freed by reference counting as soon as they are dropped.  The cyclic collector still runs a young-generation pass
every 700 net allocations and, as long-lived objects (the module, the process's memoised decisions) pile up, full
passes over everything; over issue 11's corpus that is about 5% of the gate's time for no memory back.  Pausing it
for the span of one module and restoring it after leaves the same results; any cycle made meanwhile is collected
by the first pass after (so memory stays bounded by one module's garbage).

>>> import gc
>>> with paused_collector():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

__all__ = ["paused_collector"]


@contextmanager
def paused_collector() -> Iterator[None]:
    """The cyclic collector disabled inside the block and restored to its previous state after it (a block inside
    another paused block leaves it paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
