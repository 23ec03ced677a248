"""hunt13: the reason of a ``conversion_chain`` unknown names the ops and says why the match failed.

Found on real dumps (Triton 3.9, MLIR_ENABLE_DUMP=1): RemoveLayoutConversions on an AMD pipelined matmul
(gfx950, num_stages=3) folds ``local_load(blocked) -> convert(dot_op)`` into ``local_load(dot_op)``; three
``ttg.local_load`` ops share the source location (prologue and loop body), so the new root is not matched by
location.  The message said ``feeds this operand from k.py:91:13#0, not from k.py:91:13#0``, which reads as a
contradiction.  It now names the op and the ambiguity; an unrelated root keeps the old wording with op names.
"""

from __future__ import annotations

import test_ttgir_chains as tc


def _unknowns(found: list) -> list:
    return [f for f in found if f.verdict.status == "unknown"]


def test_a_sibling_at_the_same_location_is_named_as_an_ambiguity(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(tc, "HEAD", tc.HEAD.replace('loc("k.py":4:4)', 'loc("k.py":3:4)'))
    found = tc._chain_findings(tc._dump(tmp_path, tc.CHAIN, tc.DIRECT.replace("%x :", "%x2 :")))
    (u,) = _unknowns(found)
    msg = u.verdict.message
    assert "tt.load at k.py:3:4#0, where 2 tt.load ops were before the pass" in msg, msg
    assert "tt.load is not a pure op" in msg and "not decided" in msg
    assert "not from k.py:3:4#0" not in msg  # the old self-contradicting wording


def test_another_value_keeps_the_location_wording_with_op_names(tmp_path) -> None:
    found = tc._chain_findings(tc._dump(tmp_path, tc.CHAIN, tc.DIRECT.replace("%x :", "%x2 :")))
    (u,) = _unknowns(found)
    msg = u.verdict.message
    assert "from tt.load at k.py:4:4#0, not from tt.load at k.py:3:4#0" in msg, msg
    assert "where" not in msg  # different locations: no ambiguity claimed


def test_the_same_chain_on_both_sides_is_still_proved_or_absent(tmp_path) -> None:
    """Mutant guard: the message change must not turn a matched use into an unknown."""
    assert tc._chain_findings(tc._dump(tmp_path, tc.CHAIN, tc.CHAIN)) == []
    found = tc._chain_findings(tc._dump(tmp_path, tc.CHAIN, tc.DIRECT))
    assert [f.verdict.status for f in found] == ["proved"]

