"""The second round of gate fast paths agree with the general code they shortcut (each comparison can fail)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.prove import certificates
from llverify.ttgir import syntax

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


@given(st.integers(1, 6), st.integers(0, 6), st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None)
def test_unit_right_inverse_is_the_eliminations(n_out, zeros, rnd):
    cols = [1 << r for r in range(n_out)]
    if rnd.random() < 0.3:
        cols.pop(rnd.randrange(n_out))  # not surjective: both say None
    cols += [0] * zeros
    rnd.shuffle(cols)
    assert certificates._unit_right_inverse(cols, n_out) == certificates.right_inverse(cols, n_out)


def test_unit_right_inverse_reads_the_right_column():
    cols = [0, 4, 1, 2]
    assert certificates._unit_right_inverse(cols, 3) == [4, 8, 2]
    assert certificates.check_right_inverse(cols, 3, certificates._unit_right_inverse(cols, 3))
    assert not certificates.check_right_inverse(cols, 3, [2, 8, 4])  # a wrong inverse is caught
