"""A fuzz of the spec loader with hostile YAML documents (issue 18 item 2).

Hypothesis builds spec-shaped documents (the real top-level keys, layout sources, every hardware kind's
Gluon parameters, every check kind's arguments and the common check keys) whose values are drawn from
plausible ones *and* hostile ones: wrong types for every key, huge integers (decimal at Python's
4300-digit limit, hex/octal/binary literals far beyond it, sexagesimal ``1:2:3``), floats (``.inf``,
``.nan``, ``1e400``), YAML 1.1 oddities (``yes``, ``~``, dates, ``!!binary``, ``!!set``, ``!!omap``, unsafe
``!!python/...`` tags), unicode (astral, combining, RTL, lone surrogates, newlines, very long text),
non-string and complex keys, random nesting, anchors, aliases and ``<<`` merge keys.  Each document goes
through the real loader in process (:func:`load_spec_text`, YAML and, where the document is plain data,
JSON too) and must end as a :class:`Spec` or as :class:`SpecErrors` whose every diagnostic is one located
line (``path:line:col: error: what``, no "internal error"), never another exception, and within a few
seconds.  500 documents by default (derandomized), 10,000 under ``-m slow``.
"""

from __future__ import annotations

import functools
import json
import math
import time
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.hw import KINDS as HW_KINDS
from llverify.hw import parameters
from llverify.spec.kinds import COMMON_KEYS, KINDS
from llverify.spec.layouts import LAYOUT_SOURCES
from llverify.spec.model import Spec
from llverify.spec.parse import TOP_KEYS, load_spec_text
from llverify.spec.source import SpecErrors

TIME_CAP_S = 5.0
MAX_MESSAGE = 1000  # a diagnostic quotes what is wrong, never a whole 5000-character value


# -- the document model: plain values plus YAML-only constructs -----------------------------------------------

@dataclass(frozen=True)
class Raw:
    """A YAML scalar written verbatim (a tag, a YAML 1.1 spelling, a literal Python cannot make)."""
    text: str


@dataclass(frozen=True)
class Alias:
    """``*aK``: an alias of the K-th anchor defined before it (``null`` if none is)."""
    k: int


@dataclass(frozen=True)
class Anchored:
    """``&aN value``."""
    value: Any


@dataclass(frozen=True)
class Merge:
    """A mapping with a ``<<: *aK`` merge key in front of its entries."""
    k: int
    entries: tuple


@dataclass(frozen=True)
class Complex:
    """A mapping with a non-scalar key ``? [..] : v``."""
    key: Any
    value: Any


def _quote(s: str) -> str:
    """A YAML double-quoted scalar: unicode kept as is, escapes only for what YAML cannot carry raw (a lone
    surrogate stays an escape, which the YAML reader refuses: one located error)."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif o < 0x20 or 0x7F <= o < 0xA0 or 0xD800 <= o < 0xE000 or o in (0xFFFE, 0xFFFF):
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


class _Emitter:
    def __init__(self) -> None:
        self.anchors = 0

    def emit(self, v: Any) -> str:
        if isinstance(v, Raw):
            return v.text
        if isinstance(v, Alias):
            return f"*a{v.k % self.anchors}" if self.anchors else "null"
        if isinstance(v, Anchored):
            n = self.anchors
            self.anchors += 1  # an alias inside may name it: a recursive alias, which the loader must refuse
            body = self.emit(v.value)
            return f"&a{n} " + (f"[{body}]" if body.startswith(("*", "&")) else body)
        if isinstance(v, Merge):
            head = [f"<<: {self.emit(Alias(v.k))}"] if self.anchors else []
            return "{" + ", ".join(head + [f"{self.key(k)}: {self.emit(x)}" for k, x in v.entries]) + "}"
        if isinstance(v, Complex):
            return "{? " + self.emit(v.key) + " : " + self.emit(v.value) + "}"
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return ".nan" if math.isnan(v) else (".inf" if v > 0 else "-.inf") if math.isinf(v) else repr(v)
        if isinstance(v, str):
            return _quote(v)
        if isinstance(v, dict):
            return "{" + ", ".join(f"{self.key(k)}: {self.emit(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(self.emit(x) for x in v) + "]"
        raise TypeError(v)

    def key(self, k: Any) -> str:
        return self.emit(k)


def to_yaml(doc: dict) -> str:
    """Top level in block style (so positions vary by line), each value in flow style."""
    e = _Emitter()
    lines = []
    for k, v in doc.items():
        if k == "layouts" and isinstance(v, dict):
            lines.append("layouts:")
            lines += [f"  {e.key(n)}: {e.emit(b)}" for n, b in v.items()] or ["  {}"]
        elif k == "checks" and isinstance(v, list):
            lines.append("checks:")
            lines += [f"  - {e.emit(c)}" for c in v] or ["  []"]
        else:
            lines.append(f"{e.key(k)}: {e.emit(v)}")
    return "\n".join(lines) + "\n"


def plain(v: Any) -> bool:
    """Whether ``v`` is plain data JSON can carry (no YAML-only construct)."""
    if isinstance(v, (Raw, Alias, Anchored, Merge, Complex)):
        return False
    if isinstance(v, dict):
        return all(isinstance(k, str) and plain(x) for k, x in v.items())
    if isinstance(v, list):
        return all(plain(x) for x in v)
    return v is None or isinstance(v, (bool, int, float, str))


# -- strategies -----------------------------------------------------------------------------------------------

HUGE = [2**31, 2**32, 2**63 - 1, 2**63, 2**64, -2**63 - 1, 10**100, -(10**100), int("9" * 4300), 2**26, 2**27,
        2**32 + 1, 1 << 1000]
RAW_SCALARS = [
    ".inf", "-.inf", ".nan", "1e400", "-1e400", "1.0e-400", "~", "yes", "no", "on", "off", "Y", "NULL", "True",
    "0x" + "f" * 5000, "0o" + "7" * 5000, "0b" + "1" * 20000, "-0x" + "f" * 4000, "0x10", "0o17", "0b100", "1_000",
    "1:2:3", "190:20:30", "-1:30", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "!!binary aGVsbG8=",
    "!!set {a, b}", "!!omap [{a: 1}, {b: 2}]", "!!pairs [[a, 1], [a, 2]]", "!!python/name:os.system",
    "!!python/object/apply:os.system [echo]", "!!float 1e999", "!!int \"x\"", "!!str 3", "!!timestamp 2001-12-14",
    "!!null ''", "!custom x", "!!bool maybe", "!!int 0x" + "f" * 3000, "!!float nan", "\"\\ud800\"", "\"\\udfff\\x00\"",
    "\"a\\nb\"", "\"\\u202etxt\"", "\"" + "x" * 5000 + "\"", "'" + "\u00e9" * 3000 + "'",
    "!!timestamp x", "!!int \"\"", "!!int \"-\"", "!!float \"\"", "!!int \"1:\"", "!!binary \"!!\"",
    "2**64", "0.5", "-0.0", "1e-5", "4.0", "64.0",
]
WORDS = ["raw", "sw", "a", "b", "src", "dst", "blocked", "proved", "refuted", "unknown", "auto", "f2", "smt",
         "exhaustive", "lane", "register", "warp", "block", "offset", "dim0", "dim1", "", " ", "#ttg.x", "trans",
         "python", "c", "x", "x + 1", "x << 40", "i", "j", "forward", "equals", "shared", "shuffle"]
STRINGS = [
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "#ttg.blocked<{sizePerThread = [" + "9" * 40 + "], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>",
    "#ttg.blocked<{sizePerThread = [1, -4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 1]}>",
    "tensor<64x64xf16, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>>", "tensor<" + "9" * 50 + "x64xf16, #ttg.linear<{register = []}>>",
    "#a = #ttg.blocked<{}>\n#ttg.dot_op<{opIdx = 0, parent = #a, kWidth = 2}>", "#a = #a\n#a",
    "Sw<3,4,3> o (8,64):(64,1)", "Sw<99,99,99> o (8,64):(64,1)", "Sw<3,4,-3> o (8,64):(64,1)",
    "(" + "9" * 30 + ",2):(1,2)", "((2,2),(2,2)):((1,4),(2,8))", "Sw<1,2> o (4):(1)", "(4,4):(1,4)", "(0,4):(1,0)",
    "GroupBy([8, 8], TileBy((2, 2), (4, 4)))", "GroupBy([4, 4], Col(4, 4))", "GroupBy([" + "9" * 30 + "], Row(3))",
    "GroupBy([4], OrderBy(RegP([0, 0, 1, 1])))", "__import__('os')", "GroupBy(" * 200 + ")" * 200,
    "\u202e\u0000\u2028\ufeff", "\U0001f600" * 10, "e\u0301" * 5, "\u0645\u0631\u062d\u0628\u0627", "a\nb", "a\rb",
    "\ud800", "x" * 3000,
]


def _scalars() -> st.SearchStrategy:
    return st.one_of(
        st.none(), st.booleans(), st.integers(-70, 70), st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64, 128, -1, 3]),
        st.sampled_from(HUGE), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(WORDS), st.sampled_from(STRINGS), st.text(max_size=12),
        st.sampled_from(RAW_SCALARS).map(Raw), st.integers(0, 30).map(Alias))


def _values() -> st.SearchStrategy:
    """Anything: scalars, plausible lists of small ints, random nesting, anchors and merges."""
    leaf = st.one_of(_scalars(), st.lists(st.sampled_from([0, 1, 2, 4, 8, 16, 32]), max_size=4),
                     st.lists(st.lists(st.integers(0, 64), min_size=1, max_size=3), max_size=4))
    return st.recursive(
        leaf,
        lambda kids: st.one_of(
            st.lists(kids, max_size=4), st.lists(kids, max_size=4),
            st.dictionaries(st.one_of(st.sampled_from(WORDS), st.text(max_size=6), st.integers(-3, 3)), kids,
                            max_size=4),
            st.dictionaries(st.sampled_from(WORDS), kids, max_size=4),
            kids.map(Anchored),
            st.builds(Merge, st.integers(0, 30), st.lists(st.tuples(st.sampled_from(WORDS), kids), max_size=3)
                      .map(tuple))),
        max_leaves=12)


_V = _values()
#: complex keys (refused at once) one time in ten, so that most hostile documents get past the YAML reader
_HOSTILE = st.integers(0, 19).flatmap(
    lambda r: st.builds(Complex, st.lists(_V, max_size=2), _V) if r == 19 else _V)

#: what a spec's values usually are: small powers of two, short lists of them, permutations, lists of bases
_PLAUSIBLE = st.one_of(
    st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 0, 3, True, False, "a", "b"]),
    st.lists(st.sampled_from([1, 2, 4, 8, 16, 32]), min_size=1, max_size=3),
    st.sampled_from([[0], [1, 0], [0, 1], [2, 1, 0], [0, 0], [1, 2]]),
    st.lists(st.lists(st.integers(0, 64), min_size=1, max_size=2), max_size=5),
    st.dictionaries(st.sampled_from(["register", "lane", "warp", "block"]),
                    st.lists(st.lists(st.sampled_from([0, 1, 2, 4, 8, 16]), min_size=2, max_size=2), max_size=5),
                    max_size=4))


def values() -> st.SearchStrategy:
    """Anything at all (hostile)."""
    return _HOSTILE


def value_for() -> st.SearchStrategy:
    """A key's value: plausible three times in four, hostile otherwise."""
    return _VALUE_FOR


_VALUE_FOR = st.one_of(_PLAUSIBLE, _PLAUSIBLE, _PLAUSIBLE, _HOSTILE)


def keys(vocab: list[str]) -> st.SearchStrategy:
    """Mostly the real keys; sometimes a misspelled, unicode, non-string or odd one."""
    return _keys(tuple(vocab))


@functools.lru_cache(maxsize=None)
def _keys(vocab: tuple[str, ...]) -> st.SearchStrategy:
    return st.one_of(st.sampled_from(vocab), st.sampled_from(vocab), st.sampled_from(vocab),
                     st.sampled_from(vocab).map(lambda k: k.upper()), st.text(max_size=8),
                     st.integers(-3, 2**70), st.none(), st.booleans(), st.sampled_from(["a\nb", "<<", "x" * 1000]),
                     st.sampled_from(["1:2", "2001-12-14", ".inf", "~"]).map(Raw))


def mapping(keys_st: st.SearchStrategy, value_st: st.SearchStrategy, max_size: int = 6) -> st.SearchStrategy:
    return st.one_of(
        st.dictionaries(keys_st, value_st, max_size=max_size),
        st.dictionaries(keys_st, value_st, max_size=max_size).map(Anchored),
        st.builds(Merge, st.integers(0, 30), st.lists(st.tuples(keys_st, value_st), max_size=max_size).map(tuple)))


HW_PARAMS = sorted({p for k in HW_KINDS for p in parameters(k)} | {"shape", "kind", "parent", "description"})


@st.composite
def layout_body(draw: Any) -> Any:
    source = draw(st.sampled_from(LAYOUT_SOURCES))
    vocab = {"kind": HW_PARAMS, "triton": ["shape"], "bases": ["out"], "lego": [], "cute": []}[source]
    body: dict = {}
    if source == "kind":
        body["kind"] = draw(st.one_of(st.sampled_from(list(HW_KINDS)), values()))
        hw = body["kind"] if isinstance(body["kind"], str) and body["kind"] in HW_KINDS else "blocked"
        for p, required in parameters(hw).items():
            if required or draw(st.integers(0, 3)) == 3:
                body[p] = draw(value_for())
        body["shape"] = draw(st.one_of(st.sampled_from([[64, 64], [16], [8, 8, 2], [2**13, 2**13]]), values()))
        if draw(st.booleans()):
            body["parent"] = draw(st.one_of(st.sampled_from(["a", "b", "src"]), values()))
    elif source == "bases":
        body["bases"] = draw(st.one_of(
            st.dictionaries(st.sampled_from(["register", "lane", "warp", "block", "offset"]) | st.text(max_size=4),
                            st.lists(st.one_of(st.lists(st.integers(0, 64) | st.sampled_from(HUGE), min_size=1,
                                                        max_size=3), values()), max_size=6), max_size=4),
            values()))
        if draw(st.booleans()):
            body["out"] = draw(st.one_of(st.dictionaries(st.sampled_from(["dim0", "dim1", "x"]),
                                                         st.sampled_from([1, 2, 8, 64, 3, 0, -8]) | values(),
                                                         max_size=3),
                                         st.lists(st.sampled_from(["dim0", "dim1"]), max_size=3), values()))
    else:
        body[source] = draw(st.one_of(st.sampled_from(STRINGS), values()))
        if source == "triton" and draw(st.booleans()):
            body["shape"] = draw(st.one_of(st.sampled_from([[64, 64], [32], [16, 16, 2]]), values()))
    for _ in range(draw(st.integers(0, 4)) // 3):  # stray keys: the real vocabulary, or anything
        body[draw(keys(vocab + ["description"] + list(LAYOUT_SOURCES)))] = draw(values())
    wrap = draw(st.integers(0, 19))
    if wrap == 19:
        return Anchored(body)
    if wrap == 18:
        return Merge(draw(st.integers(0, 30)), tuple(body.items()))
    if wrap == 17:
        return draw(values())  # not a mapping at all
    return body


@st.composite
def check_item(draw: Any, names: list[str]) -> Any:
    prop = draw(st.one_of(st.sampled_from(list(KINDS)), keys(list(KINDS))))
    kind = KINDS.get(prop) if isinstance(prop, str) else None
    name_st = st.sampled_from(names) if names else st.sampled_from(WORDS)
    arg_value = st.one_of(name_st, name_st, value_for())
    form = draw(st.integers(0, 3))
    if kind is None or form == 3:
        args: Any = draw(values())
    elif form == 0:
        args = draw(name_st)
    elif form == 1:
        args = draw(st.lists(arg_value, max_size=3))
    else:
        args = {}
        for a in kind.args:
            if draw(st.integers(0, 3)):
                args[a] = draw(arg_value)
        for _ in range(draw(st.integers(0, 1))):
            args[draw(keys(list(kind.args)))] = draw(arg_value)
    item: dict = {prop: args}
    for k in COMMON_KEYS:
        if draw(st.integers(0, 3)) == 3:
            item[k] = draw(st.one_of(st.sampled_from(["proved", "refuted", "unknown", "auto", "f2", "smt"]),
                                     st.sampled_from([1, 0.5, 30, "x"]), st.floats(), values()))
    if draw(st.integers(0, 9)) == 9:
        item[draw(keys(list(KINDS) + list(COMMON_KEYS)))] = draw(values())
    return item if draw(st.integers(0, 19)) < 19 else draw(values())


@st.composite
def documents(draw: Any) -> dict:
    names = draw(st.lists(st.one_of(st.sampled_from(["a", "b", "src", "dst", "raw"]), keys(WORDS)), min_size=1,
                          max_size=4,
                          unique_by=lambda x: (type(x).__name__, repr(x))))
    doc: dict = {}
    layouts = {n: draw(layout_body()) for n in names}
    doc["layouts"] = layouts if draw(st.integers(0, 19)) < 19 else draw(values())
    str_names = [n for n in names if isinstance(n, str)]
    checks = draw(st.lists(check_item(str_names), min_size=1, max_size=4))
    if draw(st.integers(0, 19)) < 19:
        doc["checks"] = checks
    elif draw(st.booleans()):
        doc["checks"] = draw(values())
    for k in ("title", "description"):
        if draw(st.integers(0, 3)) == 3:
            doc[k] = draw(st.one_of(st.text(max_size=20), values()))
    for _ in range(draw(st.integers(0, 1)) * draw(st.integers(0, 1))):
        doc[draw(keys(list(TOP_KEYS)))] = draw(values())
    return doc


# -- the property ---------------------------------------------------------------------------------------------

def assert_loads_or_is_located(text: str, path: str) -> None:
    t0 = time.perf_counter()
    try:
        spec = load_spec_text(text, path)
    except SpecErrors as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            line = str(d)
            assert d.path == path and isinstance(d.pos.line, int) and isinstance(d.pos.col, int)
            assert d.pos.line >= 1 and d.pos.col >= 1
            assert line.startswith(f"{path}:{d.pos.line}:{d.pos.col}: error: "), line[:300]
            assert "\n" not in line and "\r" not in line, line[:300]  # one line per diagnostic
            assert "internal error" not in line, line[:500]
            assert len(line) <= len(path) + 40 + MAX_MESSAGE, (len(line), line[:300])
    else:
        assert isinstance(spec, Spec)
        assert all(c.property in KINDS for c in spec.checks)
    secs = time.perf_counter() - t0
    assert secs < TIME_CAP_S, (secs, text[:300])


def _run(doc: dict) -> None:
    text = to_yaml(doc)
    assert_loads_or_is_located(text, "fuzz.yaml")
    if plain(doc):
        try:
            js = json.dumps(doc, ensure_ascii=True)
        except ValueError:  # an int above Python's 4300-digit str() limit
            return
        assert_loads_or_is_located(js, "fuzz.json")


_COMMON = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


@settings(max_examples=500, derandomize=True, **_COMMON)
@given(documents())
def test_fuzz_hostile_documents(doc: dict) -> None:
    _run(doc)


@pytest.mark.slow
@settings(max_examples=10_000, **_COMMON)
@given(documents())
def test_fuzz_hostile_documents_many(doc: dict) -> None:
    _run(doc)


def test_the_generator_reaches_every_source_and_yaml_construct() -> None:
    """The fuzz is only as good as what it generates: YAML with anchors, aliases, merges, tags and complex keys
    that PyYAML reads, and documents that load cleanly as well as ones that are refused."""
    doc = {"layouts": {"a": Anchored({"bases": {"lane": [[1], [2]]}}), "b": Merge(0, (("out", ["dim0"]),))},
           "checks": [{"equal": ["a", "b"], "timeout": Raw("1:2")}, Complex([1, 2], Raw("!!set {a}"))]}
    text = to_yaml(doc)
    assert "&a0 {" in text and "<<: *a0" in text and "? [1, 2]" in text
    with pytest.raises(SpecErrors) as info:
        load_spec_text(text, "g.yaml")
    assert all(d.pos.line >= 2 for d in info.value.diagnostics)
    ok = to_yaml({"layouts": {"a": {"bases": {"lane": [[1], [2]]}}}, "checks": [{"surjective": "a"}]})
    assert [c.property for c in load_spec_text(ok, "ok.yaml").checks] == ["surjective"]

