"""The integer an ``arith.constant`` op holds, read once for every reader of constants.

Triton prints an integer constant as ``%c3 = arith.constant 3 : i32``, a boolean as ``%true = arith.constant
true``, a splat tensor as ``%cst = arith.constant dense<4> : tensor<128xi32, #blocked>``, and Triton 3.4 puts an
attribute dictionary first (``arith.constant {async_task_id = array<i32: 1>} 0 : i32``).  :func:`integer_constant`
returns the literal as printed (``true``/``false`` as 1/0) and whether it is a splat; the width, and so the signed
reading, comes from the op's result type (the caller's business).

>>> from llverify.ttgir.reader import parse_module
>>> m = parse_module('module {\\n tt.func @f() {\\n  %c = arith.constant {a = 1 : i32} -3 : i32\\n'
...                  '  %d = arith.constant dense<4> : tensor<4xi32>\\n  tt.return\\n }\\n}\\n', "x.ttgir")
>>> [integer_constant(op) for op in m.functions[0].body.blocks[0].ops[:2]]
[IntegerConstant(value=-3, splat=False), IntegerConstant(value=4, splat=True)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llverify.ttgir.model import Op

__all__ = ["IntegerConstant", "integer_constant"]

_CONSTANT = re.compile(r"=\s*arith\.constant\s+(?:\{[^{}]*\}\s*)?(?:(-?\d+|true|false)|dense<(-?\d+|true|false)>)"
                       r"(?:\s*:|\s*$)")


@dataclass(frozen=True)
class IntegerConstant:
    """An integer literal as printed, and whether it fills a tensor (``dense<...>``)."""

    value: int
    splat: bool


def integer_constant(op: Op) -> IntegerConstant | None:
    """The integer literal of an ``arith.constant`` op (module docstring), or None for any other op or literal
    (floats, non-splat ``dense<[...]>``)."""
    if op.name != "arith.constant":
        return None
    m = _CONSTANT.search(op.text)
    if m is None:
        return None
    lit = m.group(1) if m.group(1) is not None else m.group(2)
    value = 1 if lit == "true" else 0 if lit == "false" else int(lit)
    return IntegerConstant(value, m.group(1) is None)
