"""Free-variable assignments few enough to enumerate: with them and every thread id evaluated, a claim about a
lowered access is decided over its whole domain (exhaustive, complete)."""

from __future__ import annotations

import math

from llverify.lowered.llir import LlirFunction
from llverify.lowered.orbits import key_range
from llverify.lowered.remainder import parse_key

__all__ = ["enumerable"]


def enumerable(inputs: list[str], fn: LlirFunction, max_bits: int = 8) -> list[dict[str, int]] | None:
    r"""Every assignment of the free variables ``inputs`` when together they have at most ``max_bits`` bits
    and none is a loop-carried ``phi`` (the evaluator gives such a phi one value wherever it is used, a
    narrower domain than Z3's), else None; ``[{}]`` for none.  A remainder ``v:W.urem<C>:b`` has the domain
    ``[0, C)`` (:mod:`llverify.lowered.remainder`: exactly the values ``urem v, C`` takes).  A join ``phi``'s choice (``%p.choice:1``) and
    an unmodelled value (``%5:1``, an ``elect.sync`` predicate) are independent variables of their width, so
    these assignments are their whole domain.

    >>> from llverify.lowered.llir import parse_llir
    >>> fn = parse_llir("define void @k() {\n  %p = phi i1 [ 0, %a ], [ %q, %b ]\n}").functions[0]
    >>> enumerable(["%a.choice:1"], fn), len(enumerable(["%a.choice:1", "%5:1"], fn))
    ([{'%a.choice:1': 0}, {'%a.choice:1': 1}], 4)
    >>> enumerable(["%43:64"], fn), enumerable(["%p:1"], fn), enumerable(["%43:64.urem3:2"], fn)
    (None, None, [{'%43:64.urem3:2': 0}, {'%43:64.urem3:2': 1}, {'%43:64.urem3:2': 2}])
    """
    import itertools

    domains: list[range] = []
    for f in inputs:
        name, width = f.rsplit(":", 1)
        ins = fn.defs.get(name.partition("#")[0])  # a phi, or the vector phi of a lane %v#k
        reduced = parse_key(f)
        if reduced is not None:
            domains.append(range(reduced[1]))  # urem v, C: every value in [0, C) (llverify.lowered.remainder)
        elif not name.endswith(".choice") and ins is not None and ins.opcode == "phi":
            counted = key_range(fn, name)
            if counted is None or counted.width != int(width):
                return None
            domains.append(counted.values())  # every value a counted loop's phi holds
        else:
            domains.append(range(1 << int(width)))
    if math.prod(d.stop - d.start for d in domains) > 1 << max_bits:
        return None
    return [dict(zip(inputs, vals)) for vals in itertools.product(*domains)]
