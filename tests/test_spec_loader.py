"""Spec loading and validation: positions, every kind of bad input, and a fuzz test."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.layout import LinearLayout
from llverify.spec.parse import load_spec, load_spec_text
from llverify.spec.source import LList, LMap, Pos, SpecError, SpecErrors, load_text

GOOD = """\
layouts:
  raw:
    bases:
      register: [[0, 1], [0, 2]]
      lane: [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]
    out: {dim0: 8, dim1: 16}
  sw:
    cute: "Sw<3,4,3> o (8,64):(64,1)"
checks:
  - surjective: raw
  - equal: [raw, raw]
    name: same
  - conversion: {from: raw, to: raw}
    expect: proved
    timeout: 5
"""


def errors_of(text: str, path: str = "t.yaml") -> list[str]:
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, path)
    return [str(d) for d in info.value.diagnostics]


def test_positions_are_one_based_line_and_column() -> None:
    doc = load_text("a: [1, 2]\nb:\n  c: x\n", "x.yaml")
    assert isinstance(doc, LMap) and isinstance(doc["a"], LList)
    assert doc.value_pos["a"] == Pos(1, 4)
    assert doc.key_pos["b"] == Pos(2, 1)
    assert doc["b"].value_pos["c"] == Pos(3, 6)
    assert doc["a"].item_pos == [Pos(1, 5), Pos(1, 8)]


def test_good_spec_builds_layouts_and_checks() -> None:
    spec = load_spec_text(GOOD, "good.yaml")
    raw = spec.layouts["raw"]
    assert isinstance(raw, LinearLayout)
    assert dict(raw.out_dims) == {"dim0": 8, "dim1": 16}
    assert raw.apply(register=1, lane=4)["dim0"] == 1 and raw.apply(register=1, lane=4)["dim1"] == 1
    assert [c.name for c in spec.checks] == ["surjective(raw)", "same", "conversion(raw -> raw)"]
    assert spec.checks[0].pos == Pos(10, 5)
    assert spec.checks[1].args == {"a": "raw", "b": "raw"}
    assert spec.checks[2].timeout == 5.0 and spec.checks[2].expect == "proved"
    # the CuTe swizzle: offset 128 holds (2, 16) since Sw<3,4,3> maps 2*64+16 = 144 to 128
    assert dict(spec.layouts["sw"].apply(offset=128, block=0)) == {"dim0": 2, "dim1": 16}


def test_json_spec_is_the_same_structure() -> None:
    doc = yaml.safe_load(GOOD)
    spec_json = load_spec_text(json.dumps(doc, indent=1), "good.json")
    spec_yaml = load_spec_text(GOOD, "good.yaml")
    assert spec_json.layouts["raw"] == spec_yaml.layouts["raw"]
    assert [c.args for c in spec_json.checks] == [c.args for c in spec_yaml.checks]


@pytest.mark.parametrize("text, expected", [
    ("layouts: {}\nchecks:\n  - surjective: nope\n",
     "t.yaml:3:17: error: argument 'layout' of check 'surjective' refers to unknown layout 'nope'"),
    ("checks:\n  - equall: [a, b]\n", "t.yaml:2:5: error: unknown check property or key 'equall' (did you mean 'equal'?)"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - conversion: {from: a, too: a}\n",
     "t.yaml:4:27: error: unknown argument 'too' of check 'conversion' (did you mean 'to'?)"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: a\n    expect: maybe\n",
     "t.yaml:5:13: error: expect is 'maybe'"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: a\n    timeout: fast\n",
     "t.yaml:5:14: error: timeout must be a number"),
    ("layouts:\n  a: {kind: blocked, shape: [3, 4]}\nchecks: []\n",
     "t.yaml:2:30: error: shape[0] is 3, which is not a power of two"),
    ("layouts:\n  a: {kind: blocked, shape: [65536, 65536]}\nchecks: []\n",
     "t.yaml:2:29: error: shape [65536, 65536] has 2^32 elements, above the size guard"),
    ("layouts:\n  a: {bases: {lane: [[1], [2, 3]]}}\nchecks: []\n",
     "t.yaml:2:27: error: basis 1 of 'lane' has 2 components but earlier bases have 1"),
    ("layouts:\n  a: {bases: {lane: [[1]]}, triton: x}\nchecks: []\n",
     "t.yaml:2:7: error: layout 'a' gives both 'triton' and 'bases': give exactly one"),
    ("layouts:\n  a: {bases: {lane: [[1]]}, shape: [2]}\nchecks: []\n",
     "t.yaml:2:29: error: unknown key 'shape' in layout 'a' given by 'bases'"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: a\n    name: x\n  - injective: a\n    name: x\n",
     "t.yaml:7:11: error: duplicate check name 'x' (first at line 4)"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\n  a: {bases: {lane: [[1]]}}\nchecks: []\n",
     "t.yaml:3:3: error: duplicate key 'a' (first given at line 2)"),
    ("layouts:\n  a: {bases: {lane: [[1]]}, out: {dim0: 3}}\nchecks: []\n",
     "t.yaml:2:41: error: out dim 'dim0' has size 3, which is not a power of two"),
    ("layouts:\n  a: {cute: '(4,4):(3,1)'}\nchecks: []\n",
     "t.yaml:2:13: error: invalid layout 'a': CuTe layout is not F2-linear"),
    ("layouts: {}\nchecks:\n  - surjective: a\n  bad\n", "t.yaml:5:1: error: invalid YAML"),
    ("checks: 3\n", "t.yaml:1:9: error: checks must be a list, not an integer"),
    ("- 1\n- 2\n", "t.yaml:1:1: error: a spec must be a mapping"),
    ("", "t.yaml:1:1: error: empty spec"),
    ("layout: {}\nchecks: []\n", "t.yaml:1:1: error: unknown top-level key 'layout' (did you mean 'layouts'?)"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - surjective: a\n    injective: a\n",
     "t.yaml:5:5: error: a check has exactly one property"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - bank_conflicts: {access: a, shared: a, bitwidth: 12}\n",
     "t.yaml:4:54: error: argument 'bitwidth' of check 'bank_conflicts' is 12, which is not a power of two"),
    ("layouts:\n  a: {bases: {lane: [[1]]}}\nchecks:\n  - gather: {layout: a, axis: 0}\n    method: smt\n",
     "t.yaml:5:13: error: method 'smt' does not apply to check 'gather'"),
    ("x: !!python/object/apply:os.system ['true']\n", "t.yaml:1:4: error: invalid YAML: unsupported tag"),
])
def test_bad_specs_report_where_and_what(text: str, expected: str) -> None:
    errs = errors_of(text)
    assert any(e.startswith(expected) for e in errs), errs


def test_all_errors_of_a_file_are_reported_in_line_order() -> None:
    text = ("layouts:\n  a: {kind: blocked, shape: [3]}\n  b: {bases: {lane: [[1]]}}\n"
            "checks:\n  - surjective: a\n  - surjectiv: b\n  - injective: zzz\n")
    errs = errors_of(text)
    # the check on the broken layout `a` is not reported again
    assert [e.split(": error")[0] for e in errs] == ["t.yaml:2:30", "t.yaml:6:5", "t.yaml:7:16"]


def test_hardware_parameter_errors_are_located(tmp_path) -> None:
    pytest.importorskip("llverify.hw")
    text = "layouts:\n  a:\n    kind: blocked\n    shape: [16, 16]\n    size_per_threadd: [1, 1]\nchecks: []\n"
    errs = errors_of(text)
    assert errs[0].startswith("t.yaml:3:11: error: invalid layout 'a':") and "size_per_threadd" in errs[0]


def test_unreadable_and_non_utf8_files(tmp_path) -> None:
    with pytest.raises(SpecErrors) as info:
        load_spec(str(tmp_path / "missing.yaml"))
    assert "cannot read file" in str(info.value)
    bad = tmp_path / "bin.yaml"
    bad.write_bytes(b"layouts: {}\n\xff\xfe\n")
    with pytest.raises(SpecErrors) as info:
        load_spec(str(bad))
    assert str(info.value).startswith(f"{bad}:2:1: error: file is not UTF-8")


def test_json_errors_are_located() -> None:
    errs = errors_of('{"layouts": {},\n "checks": [1,]}', "t.json")
    assert errs[0].startswith("t.json:2:15: error: invalid JSON")
    errs = errors_of('{"checks": [],\n "checks": []}', "t.json")
    assert errs[0].startswith("t.json:2:2: error: duplicate key 'checks'")


# -- fuzz: random documents and mutations never escape as anything but SpecErrors ---------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70) | st.sampled_from(
        ["raw", "sw", "a", "blocked", "proved", "refuted", "lane", "register", "dim0", "", "#ttg.x"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["layouts", "checks", "raw", "bases", "kind", "shape", "out", "lane",
                                       "register", "surjective", "equal", "expect", "name", "from", "to",
                                       "conversion", "cute", "timeout", "method", "a", "b"]), children, max_size=4),
    max_leaves=20)


def _load_never_crashes(text: str, path: str) -> None:
    try:
        spec = load_spec_text(text, path)
    except SpecErrors as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert str(d).startswith(f"{path}:{d.pos.line}:{d.pos.col}: error: ")
            assert d.pos.line >= 1 and d.pos.col >= 1
    else:
        assert all(c.property for c in spec.checks)


@settings(max_examples=150)
@given(json_values)
def test_fuzz_random_documents(value) -> None:
    _load_never_crashes(yaml.safe_dump(value), "f.yaml")
    _load_never_crashes(json.dumps(value), "f.json")


@settings(max_examples=150)
@given(st.integers(0, len(GOOD) - 1), st.integers(0, 8), st.text(max_size=6))
def test_fuzz_mutations_of_a_valid_spec(at: int, cut: int, insert: str) -> None:
    _load_never_crashes(GOOD[:at] + insert + GOOD[at + cut:], "m.yaml")


@settings(max_examples=60)
@given(st.binary(max_size=64))
def test_fuzz_raw_bytes(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    _load_never_crashes(text, "b.yaml")


# -- regressions found by the hostile-document fuzz (tests/test_spec_fuzz.py, issue 18) -----------------------

def test_a_name_with_a_line_break_stays_one_diagnostic_line() -> None:
    """A check key '\\n' (and names like 'a\\nb') printed raw split a diagnostic line in two."""
    text = 'layouts:\n  {}\nchecks:\n  - {"\\u000a": null, "name": "proved", "expect": "proved"}\n'
    assert errors_of(text, "fuzz.yaml") == ["fuzz.yaml:4:6: error: unknown check property or key '\\n'"]
    text = ('layouts:\n  "a\\u000ab": {"lego": null}\n  "c\u202ed": {"cute": "x\\u000d\\u0085\u2028"}\n'
            'checks:\n  - {"surjective": "a\\u000ab"}\n')
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "fuzz.yaml")
    lines = [str(d) for d in info.value.diagnostics]
    assert lines == ["fuzz.yaml:2:24: error: 'lego' of layout 'a\\nb' must be a string, not null",
                     "fuzz.yaml:3:19: error: invalid layout 'c\\u202ed': CuTe expression 'x': unexpected character "
                     "'x' at position 0"]
    # the data stays as written (JSON, SARIF and JUnit carry it quoted); only the printed line is escaped
    assert info.value.diagnostics[0].message == "'lego' of layout 'a\nb' must be a string, not null"


@pytest.mark.parametrize("scalar,message", [
    ("!!bool maybe", "invalid scalar 'maybe': not a valid !!bool value"),
    ("!!timestamp x", "invalid scalar 'x': not a valid !!timestamp value"),
    ('!!timestamp ""', "invalid scalar '': not a valid !!timestamp value"),
    ('!!int ""', "invalid scalar '': not a valid !!int value"),
    ('!!int "-"', "invalid scalar '-': not a valid !!int value"),
    ('!!int "_"', "invalid scalar '_': not a valid !!int value"),
    ('!!float ""', "invalid scalar '': not a valid !!float value"),
])
def test_explicitly_tagged_scalars_pyyaml_cannot_construct_are_located(scalar: str, message: str) -> None:
    """The fuzz's `1: !!bool maybe` escaped as KeyError: 'maybe' (PyYAML's constructors trust the resolver)."""
    assert errors_of(f"layouts:\n  a: {{cute: [{{k: {scalar}}}]}}\nchecks: []\n") == [
        f"t.yaml:2:18: error: {message}"]


def test_a_huge_quoted_value_is_printed_by_its_ends() -> None:
    """A 3000-character CuTe string (or a 1000-character layout name) was quoted whole: a diagnostic line of
    3000+ characters.  The printed line shows each long quoted run by its ends; the message keeps it all."""
    text = 'layouts:\n  "' + "n" * 1000 + '": {"cute": "' + "x" * 3000 + '"}\nchecks: []\n'
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "fuzz.yaml")
    (d,) = info.value.diagnostics
    assert len(d.message) > 4000  # the data (JSON, SARIF) is whole
    assert str(d) == ("fuzz.yaml:2:1016: error: invalid layout '" + "n" * 60 + "...[920 characters]..." + "n" * 20
                      + "': CuTe expression '" + "x" * 60 + "...[2920 characters]..." + "x" * 20
                      + "': unexpected character 'x' at position 0")
    text = 'layouts:\n  a: {"kind": "blocked", "shape": [' + "9" * 80 + ']}\nchecks: []\n'
    (line,) = errors_of(text)
    assert line == "t.yaml:2:36: error: shape[0] is " + "9" * 80 + ", which is not a power of two"
