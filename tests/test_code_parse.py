"""Parsing index code: accepted subsets, C precedence and literal types, rejections with columns."""

import pytest

from llverify.errors import LlverifyError
from llverify.indexcode.parse import Binary, Compare, Const, IndexCodeError, parse_code


@pytest.mark.parametrize("code, lang, construct, col", [
    ("row * 64 + foo(col)", "python", "calls", 12),
    ("x.y + 1", "python", "attribute", 1),
    ("a[3] + 1", "python", "subscripts", 1),
    ("1.5 * x", "python", "floats", 1),
    ("'a'", "python", "strings", 1),
    ("x = 3", "python", "assignments", 1),
    ("(y := 3)", "python", "assignments", 2),
    ("x / 2", "python", "true division", 1),
    ("x ** 2", "python", "exponentiation", 1),
    ("lambda: 3", "python", "lambdas", 1),
    ("[x for x in y]", "python", "comprehensions", 1),
    ("row * 64 + foo(col)", "c", "calls", 12),
    ("a[3]", "c", "subscripts", 2),
    ("s.x", "c", "member", 2),
    ("p->x", "c", "member", 2),
    ("x = 3", "c", "assignments", 3),
    ("x += 3", "c", "assignments", 3),
    ("x++", "c", "increments", 2),
    ("1.5f * x", "c", "floating-point", 1),
    ("2e3 + x", "c", "floating-point", 1),
    ("\"s\"", "c", "strings", 1),
    ("(float)x", "c", "cast to 'float'", 1),
    ("x; y", "c", "statements", 2),
    ("a, b", "c", "comma", 2),
])
def test_rejections_name_construct_and_column(code, lang, construct, col):
    with pytest.raises(IndexCodeError) as e:
        parse_code(code, lang)
    msg = str(e.value)
    assert msg.startswith(f"col {col}:"), msg
    assert construct in msg
    assert isinstance(e.value, LlverifyError)


def test_c_precedence_differs_from_naive_reading():
    # C: == binds tighter than &, so a & b == c is a & (b == c)
    root = parse_code("a & b == c", "c").root
    assert isinstance(root, Binary) and root.op == "&" and isinstance(root.right, Compare)
    # shifts bind looser than +
    root = parse_code("a << 1 + 2", "c").root
    assert isinstance(root, Binary) and root.op == "<<"
    # ternary is right-associative
    root = parse_code("a ? b : c ? d : e", "c").root
    assert root.orelse.__class__.__name__ == "Ternary"


@pytest.mark.parametrize("lit, ctype, value", [
    ("8", "int32", 8), ("8u", "uint32", 8), ("8U", "uint32", 8), ("8ll", "int64", 8), ("8ull", "uint64", 8),
    ("0xFFFFFFFF", "uint32", 2**32 - 1), ("4294967295", "int64", 2**32 - 1), ("0x10", "int32", 16),
    ("010", "int32", 8), ("2147483648", "int64", 2**31),
])
def test_c_literal_types(lit, ctype, value):
    root = parse_code(lit, "c").root
    assert isinstance(root, Const) and root.ctype == ctype and root.value == value


def test_python_subset_accepts_all_listed_constructs():
    p = parse_code("min(a, b) + max(a, 3) - (a if a < b <= 9 else b) ^ ~a & b | a // 2 % 3 << 1 >> 1", "python")
    assert p.variables == ("a", "b")
    p = parse_code("(unsigned)(a % 8) ^ (long long)b / 8u ? -a : !b && a || b", "c")
    assert p.variables == ("a", "b")


def test_unknown_language():
    with pytest.raises(IndexCodeError, match="language"):
        parse_code("x", "rust")
