"""The check kinds a spec may use, collected: every module that declares check kinds, imported here.

Each check kind is one :class:`~llverify.spec.checkkind.CheckKind`
declaration sitting next to its adapter, the function that turns the
validated arguments into a call of the layer that decides it:

* :mod:`llverify.spec.check_properties`: surjective, injective, bijective, distributed, memory, equal,
  conversion, in_bounds, duplicates (:mod:`llverify.prove.properties`);
* :mod:`llverify.spec.check_plans`: bank_conflicts, optimal_swizzle, vectorization, shuffle_plan,
  broadcast_store, broadcast_load, gather, shape_op (the plan proofs);
* :mod:`llverify.spec.check_code`: index_code (:mod:`llverify.prove.code`).

A new kind is a declaration and its adapter in one of these modules (or a
new module imported below), its prover, and an example spec with a check
expected proved and one expected refuted, which is its test
(``tests/test_declared_kinds.py``).  Readers
of the table (the validator, the JSON Schema, the command line's help, the
runner, the reports, SARIF's rule table) import :data:`KINDS` from here, so
every declaration is loaded first; the table keeps declaration order.
"""

from __future__ import annotations

# each module declares its kinds on import; this order is the table's (the schema's and the help's) order
from llverify.spec import check_properties, check_plans, check_code  # noqa: F401, I001
from llverify.spec.checkkind import COMMON_KEYS, KINDS, CheckKind, declare_check_kind

__all__ = ["CheckKind", "KINDS", "COMMON_KEYS", "declare_check_kind"]
