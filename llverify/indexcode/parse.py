"""Parsers for index code: a Python expression subset and a C expression subset.

Index code is *parsed*, never executed.  Both parsers produce the same small
expression tree (frozen dataclasses, :mod:`llverify.indexcode.tree`); :mod:`llverify.indexcode.bitvector`
gives it a meaning (Z3 terms, concrete evaluation) per language.

Accepted, in both languages: variable names, integer literals, parentheses,
``+ - * % << >> & | ^ ~``, unary ``-``/``+``, comparisons ``< <= > >= == !=``,
conditionals, ``min(a, b, ...)`` and ``max(a, b, ...)``.  Python adds ``//``
(floor division), ``a if c else b``, chained comparisons, ``and``/``or``/
``not``; C adds ``/`` (truncating division), ``c ? a : b``, ``&& || !``,
casts ``(int)``, ``(unsigned)``, ``(long long)``, ``(uint32_t)``, ... and
integer-literal suffixes ``u``, ``l``, ``ll``, ``ul``, ``ull``.

Everything else (calls, attributes, subscripts, floats, strings,
assignments, increments, true division ``/`` in Python, ``**``) is rejected
with an :class:`IndexCodeError` naming the construct and its 1-based column:

>>> parse_code("row * 64 + foo(col)", "python")
Traceback (most recent call last):
...
llverify.indexcode.parse.IndexCodeError: col 12: calls are not allowed (foo(...))
"""

from __future__ import annotations

import ast
from typing import Any

from llverify.indexcode.parse_c import parse_c
from llverify.indexcode.tree import (
    C_TYPES, Binary, Cast, Compare, Const, IndexCodeError, Logical, MinMax, Node, ParsedCode, Ternary, Unary, Var,
    count_operations, variables,
)

__all__ = [
    "IndexCodeError", "Var", "Const", "Unary", "Binary", "Compare", "Logical", "Ternary", "MinMax",
    "Cast", "Node", "ParsedCode", "parse_code", "parse_python", "variables", "C_TYPES",
    "count_operations",
]


#: index code longer than this is refused before parsing (real index code is a few hundred characters)
MAX_CODE_CHARS = 20_000
#: deepest expression tree accepted (parentheses, unary chains, operator chains); every later stage
#: (types, Z3, numpy, SymPy) walks the tree recursively
MAX_CODE_DEPTH = 200


def _guard_text(text: str) -> None:
    if len(text) > MAX_CODE_CHARS:
        raise IndexCodeError(f"col 1: index code of {len(text)} characters exceeds the {MAX_CODE_CHARS}-character "
                             "limit")
    depth = run = 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
            if depth > MAX_CODE_DEPTH:
                raise IndexCodeError(f"col {i + 1}: parentheses nested deeper than {MAX_CODE_DEPTH}")
        elif ch in ")]":
            depth -= 1
        run = run + 1 if ch in "-+~!" else (run if ch in " \t" else 0)
        if run > MAX_CODE_DEPTH:
            raise IndexCodeError(f"col {i + 1}: more than {MAX_CODE_DEPTH} unary operators in a row")


def _tree_depth(node: Any) -> int:
    """Depth of a parsed expression, computed without recursion."""
    deepest = 0
    stack = [(node, 1)]
    while stack:
        n, d = stack.pop()
        deepest = max(deepest, d)
        for v in vars(n).values() if hasattr(n, "__dataclass_fields__") else ():
            if hasattr(v, "__dataclass_fields__"):
                stack.append((v, d + 1))
            elif isinstance(v, (tuple, list)):
                stack.extend((x, d + 1) for x in v if hasattr(x, "__dataclass_fields__"))
    return deepest


def parse_code(text: str, lang: str = "c") -> ParsedCode:
    """Parse ``text`` as a ``python`` or ``c`` index expression.

    Postcondition: returns a tree of depth at most :data:`MAX_CODE_DEPTH`, or raises :class:`IndexCodeError`
    (never another exception: hostile input such as deep nesting, huge literals or enormous chains is
    refused with a located message)."""
    if not isinstance(text, str):
        raise IndexCodeError(f"index code must be a string, got {type(text).__name__}")
    _guard_text(text)
    lang = lang.lower()
    try:
        if lang in ("python", "py", "triton"):
            parsed = ParsedCode("python", parse_python(text), text)
        elif lang in ("c", "cuda", "c++", "cpp"):
            parsed = ParsedCode("c", parse_c(text), text)
        else:
            raise IndexCodeError(f"unknown index-code language {lang!r}; use 'c' or 'python'")
    except (RecursionError, MemoryError):
        raise IndexCodeError(f"col 1: expression too deeply nested to parse (limit {MAX_CODE_DEPTH})") from None
    except ValueError as exc:
        if isinstance(exc, IndexCodeError):
            raise
        raise IndexCodeError(f"col 1: {exc}") from None
    if _tree_depth(parsed.root) > MAX_CODE_DEPTH:
        raise IndexCodeError(f"col 1: expression nested deeper than {MAX_CODE_DEPTH} operations")
    return parsed


# ---------------------------------------------------------------- Python --
_PY_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
              ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^"}
_PY_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_PY_FORBIDDEN = {
    ast.Call: "calls", ast.Attribute: "attribute accesses", ast.Subscript: "subscripts",
    ast.Lambda: "lambdas", ast.NamedExpr: "assignments", ast.Starred: "starred expressions",
    ast.List: "lists", ast.Tuple: "tuples", ast.Set: "sets", ast.Dict: "dicts",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions", ast.Await: "await expressions", ast.Yield: "yield expressions", ast.YieldFrom: "yield expressions",
    ast.JoinedStr: "f-strings", ast.Slice: "slices",
}


def _snippet(text: str, node: ast.AST) -> str:
    seg = ast.get_source_segment(text, node) or ""
    if isinstance(node, ast.Call):
        try:
            return ast.unparse(node.func) + "(...)"
        except Exception:  # pragma: no cover - unparse of any parsed node works
            return seg
    return seg if len(seg) <= 40 else seg[:37] + "..."


def parse_python(text: str) -> Node:
    """Parse a Python expression subset with :mod:`ast` (never evaluated)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        try:  # name statements (assignments) precisely
            mod = ast.parse(text.strip(), mode="exec")
        except SyntaxError:
            raise IndexCodeError(f"col {e.offset or 0}: syntax error ({e.msg})") from None
        stmt = mod.body[0] if mod.body else None
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            raise IndexCodeError(f"col {stmt.col_offset + 1}: assignments are not allowed") from None
        kind = type(stmt).__name__.lower() if stmt is not None else "empty input"
        raise IndexCodeError(f"col 1: only a single expression is allowed (got a {kind} statement)") from None
    text = text.strip()

    def conv(n: ast.AST) -> Node:
        col = getattr(n, "col_offset", 0) + 1
        if isinstance(n, ast.Name):
            return Var(n.id, col)
        if isinstance(n, ast.Constant):
            v = n.value
            if isinstance(v, bool) or not isinstance(v, int):
                what = {float: "floats", str: "strings", bool: "booleans", complex: "complex numbers",
                        bytes: "bytes"}.get(type(v), "non-integer constants")
                raise IndexCodeError(f"col {col}: {what} are not allowed ({_snippet(text, n)})")
            return Const(int(v), col)
        if isinstance(n, ast.BinOp):
            op = _PY_BINOPS.get(type(n.op))
            if op is None:
                name = {ast.Div: "true division '/' (use '//')", ast.Pow: "exponentiation '**'",
                        ast.MatMult: "matrix multiplication '@'"}.get(type(n.op), type(n.op).__name__)
                raise IndexCodeError(f"col {col}: {name} is not allowed ({_snippet(text, n)})")
            return Binary(op, conv(n.left), conv(n.right), col)
        if isinstance(n, ast.UnaryOp):
            op = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}[type(n.op)]
            return Unary(op, conv(n.operand), col)
        if isinstance(n, ast.Compare):
            left = conv(n.left)
            result: Node | None = None
            for cop, right_ast in zip(n.ops, n.comparators):
                sym = _PY_CMPOPS.get(type(cop))
                if sym is None:
                    raise IndexCodeError(f"col {col}: '{type(cop).__name__}' comparisons are not allowed")
                right = conv(right_ast)
                term = Compare(sym, left, right, col)
                result = term if result is None else Logical("and", result, term, col)
                left = right
            assert result is not None
            return result
        if isinstance(n, ast.BoolOp):
            op = "and" if isinstance(n.op, ast.And) else "or"
            vals = [conv(v) for v in n.values]
            acc = vals[0]
            for v in vals[1:]:
                acc = Logical(op, acc, v, col)
            return acc
        if isinstance(n, ast.IfExp):
            return Ternary(conv(n.test), conv(n.body), conv(n.orelse), col)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("min", "max") \
                and not n.keywords and len(n.args) >= 2 and not any(isinstance(a, ast.Starred) for a in n.args):
            return MinMax(n.func.id, tuple(conv(a) for a in n.args), col)
        what = _PY_FORBIDDEN.get(type(n), type(n).__name__)
        raise IndexCodeError(f"col {col}: {what} are not allowed ({_snippet(text, n)})")

    return conv(tree.body)
