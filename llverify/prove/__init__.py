"""llverify.prove: claims about layouts in, trustworthy verdicts out.

Public API (see docs/prove.md)::

    surjective(L), injective(L), bijective(L), distributed(L), memory(L),
    equal(A, B), conversion(A, B, C=None), in_bounds(L, shape_or_size),
    duplicates(L, dims, expected=None)
        -> Verdict; keyword args method="auto"|"f2"|"exhaustive"|"smt",
           rlimit=None, timeout=None, subject=None
    prove(claim, method="auto")  over Surjective(L), Equal(A, B), ... (claims.py)

Building blocks reused by other layers: ``bv`` (Z3 encodings and a budgeted
``check``), ``smtlib`` (``.smt2`` export and re-checking), ``replay`` and
``minimize`` (concrete counterexample replay and Alive2-style shrinking for
any ``Callable[[dict[str, int]], Any]`` sides).
"""

from llverify.prove.claims import (CLAIMS, Bijective, Claim, Conversion, Distributed, Duplicates, Equal, InBounds,
                                   Injective, Memory, Surjective, prove)
from llverify.prove.properties import (METHOD_CHOICES, ClaimError, bijective, conversion, distributed, duplicates,
                                       equal, in_bounds, injective, memory, surjective)
from llverify.prove.verdict import Counterexample, Verdict

__all__ = [
    "CLAIMS", "METHOD_CHOICES", "Bijective", "Claim", "ClaimError", "Conversion", "Counterexample", "Distributed",
    "Duplicates", "Equal", "InBounds", "Injective", "Memory", "Surjective", "Verdict", "bijective", "conversion",
    "distributed", "duplicates", "equal", "in_bounds", "injective", "memory", "prove", "surjective",
]
