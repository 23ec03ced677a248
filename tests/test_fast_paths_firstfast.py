"""The firstfast round's shared helpers give what their definitions give (each comparison shown able to fail).

* ``codegen.banks.offset_columns`` (read by ``offset_bases`` and ``bank_sim._offset_columns``): the ``offset``
  component of ``cvt`` at every one-hot input, evaluated with ``LinearLayout.apply``;
* ``ttgir.layouts._bounded_get`` (the three memos of ``_BuildMemo``): made once per key, returned on a hit,
  emptied when the bound is reached.
"""

from __future__ import annotations

from hypothesis import given, settings

from llverify.codegen import banks
from llverify.codegen.banks import access_to_offsets, offset_bases, offset_columns
from llverify.layout import LinearLayout
from llverify.ttgir import layouts
from tests.test_bank_models_amd import access_cases


def _definition(cvt: LinearLayout) -> list[int]:
    """``cvt(e)["offset"]`` for each one-hot input ``e``, in dims in order (one point at a time)."""
    return [cvt.apply(**{n: (1 << i if n == d else 0) for n in cvt.in_dim_names})["offset"]
            for d in cvt.in_dim_names for i in range(cvt.in_dim_size_log2(d))]


def _mutant_offset_columns(cvt: LinearLayout) -> list[int]:
    """``offset_columns`` with the other out dims' bits kept (the mask dropped)."""
    shift = cvt.flat_out_shifts()["offset"]
    return [c >> shift for c in cvt.flat_columns]


@given(access_cases(32, wide=False))
@settings(max_examples=80, deadline=None)
def test_offset_columns_are_the_definition(case):
    acc, shared, _ = case
    cvt = access_to_offsets(acc, shared)
    want = _definition(cvt)
    assert offset_columns(cvt) == want
    j = 0
    for d in cvt.in_dim_names:
        n = cvt.in_dim_size_log2(d)
        assert offset_bases(cvt, d) == want[j:j + n]
        j += n
    assert offset_bases(cvt, "no such dim") == []


def test_offset_columns_mutant_is_caught():
    """A layout whose columns also reach another out dim: the mask matters, and the comparison sees it."""
    cvt = LinearLayout.from_bases({"register": [[1, 0], [0, 1]], "lane": [[2, 1]]}, ["offset", "other"],
                                  require_surjective=False)
    assert offset_columns(cvt) == _definition(cvt) == [1, 0, 2]
    assert _mutant_offset_columns(cvt) != _definition(cvt)


def test_offset_bases_reads_offset_columns(monkeypatch):
    """``offset_bases`` is a slice of ``offset_columns`` (one reading of the flat columns, not two)."""
    cvt = LinearLayout.from_bases({"register": [[1]], "lane": [[2], [4]]}, ["offset"])
    monkeypatch.setattr(banks, "offset_columns", _mutant_constant)
    assert offset_bases(cvt, "lane") == [7, 7]


def _mutant_constant(cvt: LinearLayout) -> list[int]:
    return [7] * cvt.total_in_bits


def test_bounded_get_makes_once_and_empties_at_the_bound(monkeypatch):
    made: list[int] = []

    def make(k: int) -> str:
        made.append(k)
        return f"v{k}"

    memo: dict[int, str] = {}
    assert layouts._bounded_get(memo, 1, make, 1) == "v1"
    assert layouts._bounded_get(memo, 1, make, 1) == "v1"
    assert made == [1]                      # a hit does not make again
    monkeypatch.setattr(layouts, "_MEMO_BOUND", 2)
    layouts._bounded_get(memo, 2, make, 2)
    assert set(memo) == {1, 2}
    layouts._bounded_get(memo, 3, make, 3)  # the bound reached: emptied, then the new entry
    assert memo == {3: "v3"} and made == [1, 2, 3]


def test_build_memo_builds_each_spec_and_shape_once(monkeypatch):
    """``_build`` through ``_bounded_get``: one ``_build_uncached`` per (frozen spec, shape), the same object on a
    hit, and nothing kept after ``cache_clear``."""
    calls: list[tuple] = []
    real = layouts._build_uncached

    def counting(fs, shape):
        calls.append((fs, shape))
        return real(fs, shape)

    monkeypatch.setattr(layouts, "_build_uncached", counting)
    memo = layouts._BuildMemo()
    spec = layouts._freeze({"kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4],
                            "warps_per_cta": [4, 1], "order": [1, 0]})
    a = memo(spec, (64, 64))
    assert isinstance(a, LinearLayout)
    assert memo(spec, (64, 64)) is a
    memo(spec, (32, 64))
    assert calls == [(spec, (64, 64)), (spec, (32, 64))]
    memo.cache_clear()
    memo(spec, (64, 64))
    assert len(calls) == 3
