"""index_code's ``below: n``: the code's value stays in [0, n) over the declared inputs.

Oracle (hand-derived): the definition-4.11 swizzle of a 64x64 tile, row-major,
takes every offset in [0, 4096) exactly once, so its largest value is 4095:
``below: 4096`` holds and ``below: 4095`` is refuted at the element that
lands on 4095 (row 63: (63 % 8) * 8 + 7 + 63 * 64 = 4095 needs col % 8 == 7
and col / 8 == 0).
"""
from __future__ import annotations

from llverify.spec.parse import load_spec_text
from llverify.spec.runner import Budget, Task, run_check

SPEC = """
layouts:
  s: {kind: swizzled_shared, shape: [64, 64], vec: 8, per_phase: 1, max_phase: 8, order: [1, 0]}
checks:
  - index_code:
      layout: s
      code: "((row % 8) ^ (col / 8)) * 8 + col % 8 + row * 64"
      inputs: {row: dim0, col: dim1}
      output: offset
      below: BOUND
"""


def _run(bound: int, method: str | None = None):
    spec = load_spec_text(SPEC.replace("BOUND", str(bound)))
    (check,) = spec.checks
    return run_check(Task(check, spec.layouts, Budget(method=method))).verdict


def test_bound_that_holds_is_proved_by_both_methods():
    for method in (None, "smt"):
        v = _run(4096, method)
        assert v.status == "proved", v.message
        assert v.details["below"] == 4096


def test_bound_one_too_small_is_refuted_with_the_witness():
    for method in (None, "smt"):
        v = _run(4095, method)
        assert v.status == "refuted", v.message
        x = dict(v.counterexample.inputs)
        assert x["row"] == 63 and x["col"] == 7
        assert ((x["row"] % 8) ^ (x["col"] // 8)) * 8 + x["col"] % 8 + x["row"] * 64 == 4095
