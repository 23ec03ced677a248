"""The expression tree both index-code parsers produce (:mod:`llverify.indexcode.parse`).

Frozen dataclasses, one per construct, each with the 1-based column it starts
at; :class:`ParsedCode` is a tree with its language and text.  Also the error
both parsers raise (:class:`IndexCodeError`) and the C integer types
(:data:`C_TYPES`).  This module imports no parser, so the Python and C parsers
and the dispatcher :func:`~llverify.indexcode.parse.parse_code` can all
build on it.  Everything here is re-exported by :mod:`llverify.indexcode.parse`,
the public home of these names.

>>> variables(Binary("+", Var("row", 1), Binary("*", Var("col", 7), Var("row", 13), 11), 5))
('row', 'col')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from llverify.errors import LlverifyError

__all__ = [
    "IndexCodeError", "Var", "Const", "Unary", "Binary", "Compare", "Logical", "Ternary", "MinMax",
    "Cast", "Node", "ParsedCode", "variables", "C_TYPES", "count_operations", "children", "nodes",
]


class IndexCodeError(LlverifyError, ValueError):
    """Index code that cannot be parsed, or a claim about it that is malformed."""


IndexCodeError.__module__ = "llverify.indexcode.parse"  # its public home (as tracebacks and pickles name it)


# C type name -> (bits, signed).  ``long`` is 64 bits (LP64, as on every CUDA host).
C_TYPES: dict[str, tuple[int, bool]] = {
    "int32": (32, True), "uint32": (32, False), "int64": (64, True), "uint64": (64, False),
}


@dataclass(frozen=True)
class Var:
    name: str
    col: int


@dataclass(frozen=True)
class Const:
    value: int
    col: int
    ctype: str | None = None  # C: the literal's type (int32, uint32, int64, uint64); None in Python


@dataclass(frozen=True)
class Unary:
    op: str  # '-', '+', '~', 'not'
    operand: "Node"
    col: int


@dataclass(frozen=True)
class Binary:
    op: str  # '+', '-', '*', '/', '//', '%', '<<', '>>', '&', '|', '^'
    left: "Node"
    right: "Node"
    col: int


@dataclass(frozen=True)
class Compare:
    op: str  # '<', '<=', '>', '>=', '==', '!='
    left: "Node"
    right: "Node"
    col: int


@dataclass(frozen=True)
class Logical:
    op: str  # 'and', 'or'
    left: "Node"
    right: "Node"
    col: int


@dataclass(frozen=True)
class Ternary:
    cond: "Node"
    then: "Node"
    orelse: "Node"
    col: int


@dataclass(frozen=True)
class MinMax:
    op: str  # 'min' or 'max'
    args: tuple["Node", ...]
    col: int


@dataclass(frozen=True)
class Cast:
    ctype: str  # one of C_TYPES
    operand: "Node"
    col: int


Node = Union[Var, Const, Unary, Binary, Compare, Logical, Ternary, MinMax, Cast]


@dataclass(frozen=True)
class ParsedCode:
    """A parsed expression with its language (``python`` or ``c``) and source text."""

    lang: str
    root: Node
    text: str

    @property
    def variables(self) -> tuple[str, ...]:
        return variables(self.root)

    @property
    def operations(self) -> int:
        return count_operations(self.root)


def children(node: Node) -> tuple[Node, ...]:
    """The operands of ``node``, left to right (a leaf has none).

    >>> children(Ternary(Var("c", 1), Const(1, 5), Var("x", 12), 3))
    (Var(name='c', col=1), Const(value=1, col=5, ctype=None), Var(name='x', col=12))
    """
    if isinstance(node, (Unary, Cast)):
        return (node.operand,)
    if isinstance(node, (Binary, Compare, Logical)):
        return (node.left, node.right)
    if isinstance(node, Ternary):
        return (node.cond, node.then, node.orelse)
    if isinstance(node, MinMax):
        return node.args
    return ()


def nodes(node: Node) -> tuple[Node, ...]:
    """Every node of the tree, pre-order (a node before its operands, operands left to right)."""
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(children(n)))
    return tuple(out)


def variables(node: Node) -> tuple[str, ...]:
    """Variable names in first-occurrence order."""
    return tuple(dict.fromkeys(n.name for n in nodes(node) if isinstance(n, Var)))


def _own_operations(node: Node) -> int:
    if isinstance(node, (Var, Const, Cast)):
        return 0
    if isinstance(node, Unary):
        return 0 if node.op == "+" else 1
    if isinstance(node, MinMax):
        return len(node.args) - 1
    return 1


def count_operations(node: Node) -> int:
    """Number of operators in the tree (casts and unary ``+`` are free).

    >>> count_operations(MinMax("min", (Var("a", 5), Var("b", 8), Unary("-", Var("c", 12), 11)), 1))
    3
    """
    return sum(_own_operations(n) for n in nodes(node))
