"""The second round of gate fast paths agree with the general code they shortcut (each comparison can fail)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.prove import certificates
from llverify.ttgir import op_text, syntax, types

_QUOTED = st.text(alphabet='()[]{}<>-a ,:"', max_size=40)
_ESCAPED = st.text(alphabet='()<>-a"\\', max_size=30)


@given(st.one_of(_QUOTED, _ESCAPED))
@settings(max_examples=500, deadline=None)
def test_final_depth_of_quoted_text_is_the_scanned_one(text):
    assert syntax.max_depth_final(text) == syntax._scanned_final_depth(text)


def test_final_depth_sees_strings():
    # the mutant: counting brackets inside the string, or gluing '-' and '>' across a string into an arrow
    assert syntax.max_depth_final('a"<"b') == 0
    assert syntax.max_depth_final('-"x">') == -1 == syntax._scanned_final_depth('-"x">')


def _unit_right_inverse(cols, n_out):
    """The distributed certificate's right inverse read off unit columns (``certificates._unit_positions``, then
    ``_inverse_from``)."""
    where = certificates._unit_positions(cols)
    return None if where is None else certificates._inverse_from(where, n_out)


@given(st.integers(1, 6), st.integers(0, 6), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_unit_right_inverse_is_the_eliminations(n_out, zeros, rnd):
    cols = [1 << r for r in range(n_out)]
    if rnd.random() < 0.3:
        cols.pop(rnd.randrange(n_out))  # not surjective: both say None
    cols += [0] * zeros
    rnd.shuffle(cols)
    assert _unit_right_inverse(cols, n_out) == certificates.right_inverse(cols, n_out)


def test_unit_right_inverse_reads_the_right_column():
    cols = [0, 4, 1, 2]
    assert _unit_right_inverse(cols, 3) == [4, 8, 2]
    assert certificates.check_right_inverse(cols, 3, _unit_right_inverse(cols, 3))
    assert not certificates.check_right_inverse(cols, 3, [2, 8, 4])  # a wrong inverse is caught


_TEXT = st.text(alphabet='()[]{}<>-a ,:"\\', max_size=40)


@given(_TEXT, st.data())
@settings(max_examples=800, deadline=None)
def test_a_derived_substring_scans_as_itself(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    inner = data.draw(st.integers(0, end - start))  # a substring of the substring, derived twice
    syntax._changes.cache_clear()
    s = syntax.sub(text, start, end)
    t = syntax.sub(s, inner, len(s))
    assert s == text[start:end] and t == s[inner:]
    for x in (t, s):
        assert syntax._changes(x) == syntax._quoted_changes(x)
        assert [syntax.depth_at(x, i) for i in range(len(x) + 1)] == \
            [_fresh_depth(x, i) for i in range(len(x) + 1)]
        assert [syntax.matching_close(x, i) for i in range(len(x))] == [_fresh_close(x, i) for i in range(len(x))]
    syntax._changes.cache_clear()


def _fresh_depth(text: str, i: int) -> int:
    pos, after = syntax._quoted_changes(text)
    k = max((j for j, p in enumerate(pos) if p <= i), default=-1)
    return after[k] if k >= 0 else 0


def _fresh_close(text: str, i: int) -> int:
    base = _fresh_depth(text, i)
    pos, after = syntax._quoted_changes(text)
    for p, d in zip(pos, after):
        if p > i and d == base:
            return p - 1 if text[p - 1] in ")]}>\"" else -1
    return -1


def test_a_substring_inside_brackets_is_not_derived():
    # the mutants: deriving "(a)" from "((a)" (at depth 1) or ">b" from "a->b" (the '>' of an arrow)
    for text, start in (("((a)", 1), ("a->b", 2)):
        syntax._changes.cache_clear()
        syntax._changes(text)
        s = syntax.sub(text, start, len(text))
        assert syntax._changes(s) == syntax._quoted_changes(s) != ((), ())
    syntax._changes.cache_clear()


def _reference_uses(text: str) -> list[str]:
    """The general rule: a ``%name`` followed by ``:`` is a definition unless a digit follows the colon."""
    out = []
    for m in re.finditer(r"%[\w$.\-]+(?:#\d+)?", text):
        after = text[m.end():m.end() + 2]
        if after.startswith(":") and not after[1:2].isdigit():
            continue
        out.append(m.group())
    return out


@given(st.text(alphabet="%ab#12:² ,.-$\n", max_size=24))
@settings(max_examples=1000, deadline=None)
def test_uses_are_the_general_rules(text):
    assert op_text.uses(text) == _reference_uses(text)


def test_uses_skip_a_definition_whole():
    # the mutant: a backtracking match would keep "%ab" of the definition "%abc: T"
    assert op_text.uses("%abc: f32, %d:2, %e:x, %f²:², %g:²") == ["%d", "%f²", "%g"]
    assert op_text.uses("%abc: f32, %d:2, %e:x") == ["%d"]


def _reference_too_deep(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if depth > types.MAX_ENCODING_DEPTH:
            return True
    return False


@given(st.text(alphabet="<>{}()[]a", max_size=80), st.integers(0, 40))
@settings(max_examples=500, deadline=None)
def test_encoding_depth_bound_is_the_walk(text, extra):
    text = "<" * extra + text
    problem = types._encoding_problem(text, types.AliasTable())
    assert (problem is not None and "nested deeper" in problem) == _reference_too_deep(text)


def test_encoding_depth_and_alias_errors_still_found():
    table = types.AliasTable()
    assert "nested deeper" in types._encoding_problem("<" * 33, table)
    assert types._encoding_problem("<" * 32 + ">" * 32, table) is None
    table.errors["bad"] = "unreadable"
    assert "alias #bad" in types._encoding_problem("#ttg.slice<{dim = 0, parent = #bad}>", table)
