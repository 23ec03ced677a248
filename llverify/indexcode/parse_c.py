"""The C-subset index-code parser: a tokenizer and a recursive-descent parser.

Accepts C expressions over integer variables: literals with C's suffixes
(``8u``, ``8ll``, hex, binary), ``+ - * / % << >> & | ^ ~ !``, comparisons,
``&& ||``, ``?:``, casts to the integer types (``(int)``, ``(unsigned)``,
``(long long)``, ``(uint32_t)``, ...) and ``min``/``max``, with C's operator
precedence.  Everything else (calls, member access, subscripts, floats,
assignments, increments, the comma operator) is rejected with an
:class:`IndexCodeError` naming the construct and its column.  The result is
the shared expression tree of :mod:`llverify.indexcode.tree`.

Example: ``parse_c("(row % 8 ^ col / 8) * 8 + col % 8")`` parses; ``parse_c("f(x)")``
raises ``IndexCodeError("col 1: calls are not allowed ...")``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llverify.indexcode.tree import (
    C_TYPES, Binary, Cast, Compare, Const, IndexCodeError, Logical, MinMax, Node, Ternary, Unary, Var,
)

__all__ = ["parse_c"]


_C_TYPE_WORDS = {
    "int": "int32", "signed": "int32", "signed int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "long": "int64", "long int": "int64", "long long": "int64", "long long int": "int64",
    "signed long": "int64", "signed long long": "int64",
    "unsigned long": "uint64", "unsigned long int": "uint64", "unsigned long long": "uint64",
    "unsigned long long int": "uint64",
    "int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64",
    "size_t": "uint64", "ptrdiff_t": "int64",
}
_C_TYPE_KEYWORDS = {"int", "signed", "unsigned", "long", "int32_t", "uint32_t", "int64_t", "uint64_t",
                    "size_t", "ptrdiff_t"}
_C_OTHER_TYPES = {"float", "double", "char", "short", "bool", "_Bool", "half", "void", "int8_t", "uint8_t",
                  "int16_t", "uint16_t"}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<float>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)[fFlL]?|\d+\.\d*[fFlL]?|\.\d+[fFlL]?)
  | (?P<int>(?:0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<string>"[^"]*"|'[^']*')
  | (?P<op><<=|>>=|\+\+|--|->|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^~!?:(),<>=\[\].;{}])
""", re.VERBOSE)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    col: int


def _tokenize_c(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise IndexCodeError(f"col {pos + 1}: unexpected character {text[pos]!r}")
        kind = m.lastgroup or ""
        if kind != "ws":
            toks.append(_Tok(kind, m.group(), pos + 1))
        pos = m.end()
    toks.append(_Tok("end", "", len(text) + 1))
    return toks


_C_FORBIDDEN_OPS = {
    "=": "assignments", "+=": "assignments", "-=": "assignments", "*=": "assignments", "/=": "assignments",
    "%=": "assignments", "&=": "assignments", "|=": "assignments", "^=": "assignments", "<<=": "assignments",
    ">>=": "assignments", "++": "increments", "--": "decrements", "[": "subscripts", "]": "subscripts",
    ".": "member accesses", "->": "member accesses", ";": "statements", "{": "blocks", "}": "blocks",
    ",": "comma expressions",
}

# binary operator -> precedence (higher binds tighter), C's table
_C_BINARY_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
    "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}


def _c_literal(tok: _Tok) -> Const:
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)", tok.text)
    assert m is not None
    digits, suffix = m.group(1), m.group(2).lower()
    if suffix not in ("", "u", "l", "ll", "ul", "lu", "ull", "llu"):
        raise IndexCodeError(f"col {tok.col}: invalid integer suffix {m.group(2)!r} in {tok.text}")
    if digits[:2].lower() == "0x":
        value, decimal = int(digits, 16), False
    elif digits[:2].lower() == "0b":
        value, decimal = int(digits[2:], 2), False
    elif len(digits) > 1 and digits[0] == "0":
        if any(c in "89" for c in digits):
            raise IndexCodeError(f"col {tok.col}: invalid octal literal {tok.text}")
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    unsigned = "u" in suffix
    longish = "l" in suffix
    # C11 6.4.4.1: the first type in the list that can represent the value
    if unsigned:
        cands = ["uint64"] if longish else ["uint32", "uint64"]
    elif decimal:
        cands = ["int64"] if longish else ["int32", "int64"]
    else:
        cands = ["int64", "uint64"] if longish else ["int32", "uint32", "int64", "uint64"]
    for t in cands:
        bits, signed = C_TYPES[t]
        if value < (1 << (bits - 1) if signed else 1 << bits):
            return Const(value, tok.col, t)
    raise IndexCodeError(f"col {tok.col}: integer literal {tok.text} does not fit any 64-bit type")


class _CParser:
    def __init__(self, text: str) -> None:
        self.toks = _tokenize_c(text)
        self.i = 0

    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def reject(self, t: _Tok) -> IndexCodeError:
        if t.kind == "float":
            return IndexCodeError(f"col {t.col}: floating-point literals are not allowed ({t.text})")
        if t.kind == "string":
            return IndexCodeError(f"col {t.col}: strings are not allowed ({t.text})")
        if t.kind == "end":
            return IndexCodeError(f"col {t.col}: unexpected end of expression")
        if t.text in _C_FORBIDDEN_OPS:
            return IndexCodeError(f"col {t.col}: {_C_FORBIDDEN_OPS[t.text]} are not allowed ('{t.text}')")
        return IndexCodeError(f"col {t.col}: unexpected '{t.text}'")

    def expect(self, text: str) -> _Tok:
        if self.tok.text != text or self.tok.kind == "string":
            t = self.tok
            if t.kind == "end" or t.text in _C_FORBIDDEN_OPS or t.kind in ("float", "string"):
                raise self.reject(t)
            raise IndexCodeError(f"col {t.col}: expected '{text}' but found '{t.text}'")
        return self.take()

    def parse(self) -> Node:
        node = self.ternary()
        if self.tok.kind != "end":
            raise self.reject(self.tok)
        return node

    def ternary(self) -> Node:
        cond = self.binary(1)
        if self.tok.text == "?":
            q = self.take()
            then = self.ternary()
            self.expect(":")
            orelse = self.ternary()
            return Ternary(cond, then, orelse, q.col)
        return cond

    def binary(self, min_prec: int) -> Node:
        left = self.unary()
        while True:
            t = self.tok
            prec = _C_BINARY_PREC.get(t.text) if t.kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.take()
            right = self.binary(prec + 1)
            if t.text in ("&&", "||"):
                left = Logical("and" if t.text == "&&" else "or", left, right, t.col)
            elif t.text in ("<", "<=", ">", ">=", "==", "!="):
                left = Compare(t.text, left, right, t.col)
            else:
                left = Binary(t.text, left, right, t.col)

    def cast_type(self) -> str | None:
        """If the tokens after '(' spell a type name followed by ')', consume them and return it."""
        j = self.i + 1
        words: list[str] = []
        while self.toks[j].kind == "ident" and (self.toks[j].text in _C_TYPE_KEYWORDS or self.toks[j].text in _C_OTHER_TYPES):
            words.append(self.toks[j].text)
            j += 1
        if not words or self.toks[j].text != ")":
            return None
        name = " ".join(words)
        if name not in _C_TYPE_WORDS:
            raise IndexCodeError(f"col {self.tok.col}: cast to '{name}' is not allowed "
                                 "(only int, unsigned, long long, unsigned long long, [u]int32_t, [u]int64_t)")
        self.i = j + 1
        return _C_TYPE_WORDS[name]

    def unary(self) -> Node:
        t = self.tok
        if t.kind == "op" and t.text in ("-", "+", "~", "!"):
            self.take()
            return Unary({"!": "not"}.get(t.text, t.text), self.unary(), t.col)
        if t.kind == "op" and t.text == "(":
            ctype = self.cast_type()
            if ctype is not None:
                return Cast(ctype, self.unary(), t.col)
        return self.postfix(self.primary())

    def postfix(self, node: Node) -> Node:
        t = self.tok
        if t.kind == "op" and t.text in ("[", ".", "->", "++", "--"):
            raise self.reject(t)
        if t.kind == "op" and t.text == "(":
            raise IndexCodeError(f"col {t.col}: calls are not allowed (call of a parenthesised expression)")
        return node

    def primary(self) -> Node:
        t = self.take()
        if t.kind == "int":
            return _c_literal(t)
        if t.kind == "ident":
            if t.text in _C_TYPE_KEYWORDS or t.text in _C_OTHER_TYPES:
                raise IndexCodeError(f"col {t.col}: unexpected type name '{t.text}'")
            if self.tok.text == "(":
                if t.text in ("min", "max"):
                    self.take()
                    args = [self.ternary()]
                    while self.tok.text == ",":
                        self.take()
                        args.append(self.ternary())
                    self.expect(")")
                    if len(args) < 2:
                        raise IndexCodeError(f"col {t.col}: {t.text} needs at least two arguments")
                    return MinMax(t.text, tuple(args), t.col)
                raise IndexCodeError(f"col {t.col}: calls are not allowed ({t.text}(...))")
            return Var(t.text, t.col)
        if t.kind == "op" and t.text == "(":
            inner = self.ternary()
            self.expect(")")
            return inner
        raise self.reject(t)


def parse_c(text: str) -> Node:
    """Parse a C expression subset with a hand-written recursive-descent parser."""
    if not text.strip():
        raise IndexCodeError("col 1: empty expression")
    return _CParser(text).parse()
