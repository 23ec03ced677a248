"""The PTX predicate of a predicated inline-asm shared access (``@$n`` / ``@!$n``), three ways: as a Z3 condition,
at every thread (numpy), and at one replayed thread.

A predicated-off thread accesses nothing; a poison predicate may let it run (each form counts it as running).
``acc.guard`` is ``(operand, negated)`` (:func:`llverify.lowered.llir.parse_llir` reads it), the operand an ``i1``
value or the constant ``true`` / ``false``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import z3

from llverify.lowered.concrete import Concrete
from llverify.lowered.llir import Access
from llverify.lowered.symbolic import Symbolic
from llverify.lowered.vector import Threads, VecValue

__all__ = ["guard_term", "guard_threads", "guard_value"]


def guard_term(sym: Symbolic, acc: Access) -> Any:
    """The Z3 condition under which a predicated inline-asm access executes (a poison predicate may), or None
    when it always does."""
    if acc.guard is None:
        return None
    name, negated = acc.guard
    if name in ("true", "false"):
        return z3.BoolVal((name == "true") != negated)
    g = sym.value(name, 1)
    on = g.term == (0 if negated else 1)
    return z3.Or(g.poison, on)


def guard_threads(vec: Threads, acc: Access) -> VecValue | None:
    """The predicate of a predicated inline-asm access at every thread (``none``: poison, it may run), or None
    when it always runs."""
    if acc.guard is None:
        return None
    name = acc.guard[0]
    if name in ("true", "false"):
        if (name == "true") != acc.guard[1]:
            return None  # always on
        off = np.full(vec.threads, 1 if acc.guard[1] else 0, dtype=np.uint64)  # the value that turns it off
        return VecValue(off, np.zeros(vec.threads, dtype=bool), frozenset())
    return vec.value(name, 1)


def guard_value(replay: Concrete, acc: Access) -> bool | None:
    """Whether a predicated access executes for the replayed thread (None: poison, it may)."""
    assert acc.guard is not None
    name, negated = acc.guard
    if name in ("true", "false"):
        return (name == "true") != negated
    v = replay.value(name, 1)
    return None if v is None else (v == 1) != negated
