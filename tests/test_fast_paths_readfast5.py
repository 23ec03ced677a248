"""The reader's paths of issue 11's fifth reader pass agree with the general steps they skip: the common op line
assembled alone (``Assembler._common_op``, with its per-module memo of what the op's name and signature fix) against
``Assembler._general_op``, and the one-match location definitions (``locations._LOC_VIA``: a named alias, a call
site of two aliases) against ``Locations._resolve`` - on the whole TTGIR corpus, on random op lines and on random
alias tables (cycles, chains past the 64-level cut-off); each comparison is shown able to fail (the
``test_*_catches_*`` tests: a mutant of the fast path it must catch)."""

from __future__ import annotations

import re

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llverify.ttgir import assemble, locations
from llverify.ttgir.locations import Locations

_NEVER = re.compile(r"(?!)")


def _general_ops(mp: pytest.MonkeyPatch) -> None:
    """Every op assembled by the general path (the common line's match still used there, as before)."""
    mp.setattr(assemble.Assembler, "op", assemble.Assembler._general_op)


_read = corpus_reads.read_repr


def _both(text: str) -> tuple[str, str]:
    return corpus_reads.fast_and_general(text, _general_ops)


# -- the common op alone ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def corpus() -> list[tuple[str, str]]:
    return corpus_reads.corpus_texts()


def _corpus_differs(corpus, mp: pytest.MonkeyPatch | None = None) -> list[str]:
    fast = [repr(m) for m in corpus_reads.read_all(corpus)]
    with pytest.MonkeyPatch.context() as general_mp:
        _general_ops(general_mp)
        general = [repr(m) for m in corpus_reads.read_all(corpus)]
    return [path for (path, _), a, b in zip(corpus, fast, general) if a != b]


def test_the_corpus_reads_the_same_with_and_without_the_common_op_path(corpus) -> None:
    calls = []
    real = assemble.Assembler._common_op
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(assemble.Assembler, "_common_op", lambda self, *a: calls.append(1) or real(self, *a))
        corpus_reads.read_all(corpus[:20])
    assert len(calls) > 500  # the common path is the one taken
    assert _corpus_differs(corpus) == []


class _Keyed(dict):
    """The memo of ``OpTyping.common_types`` with part of its key forgotten (the mutants below)."""

    keep: slice = slice(None)

    def get(self, key, default=None):
        return super().get(key[self.keep], default)

    def __setitem__(self, key, value):
        super().__setitem__(key[self.keep], value)


def _forgetting(mp: pytest.MonkeyPatch, keep: slice) -> None:
    real = assemble.Assembler.__init__

    def init(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self.typing.op_types = type("Mutant", (_Keyed,), {"keep": keep})()

    mp.setattr(assemble.Assembler, "__init__", init)


def test_the_corpus_comparison_catches_a_memo_that_forgets_the_op_name(corpus) -> None:
    # `arith.cmpi` and `arith.addi` of one signature would share result types (i1 versus i32)
    with pytest.MonkeyPatch.context() as mp:
        _forgetting(mp, slice(1, None))
        assert _corpus_differs(corpus) != []


_CONSTANTS = ('module {\n  tt.func @k() {\n    %t = arith.constant true\n    %c = arith.constant 1\n'
              '    %d = arith.addi %c, %c\n    tt.return\n  }\n}\n')


def test_bare_constants_read_as_the_general_path_reads_them() -> None:
    fast, general = _both(_CONSTANTS)
    assert fast == general
    assert "TypeRef(text='i1'" in fast
    with pytest.MonkeyPatch.context() as mp:  # the mutant: the constant's text left out of the memo's key
        _forgetting(mp, slice(0, 4))
        assert _read(_CONSTANTS) != general


_TYPE = st.sampled_from(["i32", "i1", "f16", "tensor<4xf32, #b>", "tensor<4xi1, #b>", "tensor<4x!tt.ptr<f16>, #b>",
                         "!tt.ptr<f32>", "<4xf32, #s>", "!ttg.memdesc<4xf32, #s, #m>", "!ttg.async.token",
                         "<1x4xf16, #s>"])
_SEP = st.sampled_from([", ", " -> ", " * ", " to "])
_SIG = st.lists(st.tuples(_TYPE, _SEP), min_size=1, max_size=4).map(
    lambda ps: "".join(t + s for t, s in ps[:-1]) + ps[-1][0]).flatmap(
    lambda s: st.sampled_from([s, f"({s})", f"({s}) -> i32", f"{s} -> ({s})"]))
_OPERANDS = st.lists(st.sampled_from(["%a", "%b", "%c", "%r", "%u", "%a[%b]", "slt,", "1", "true", "false",
                                      "dense<0.0>", "%a,", "%c,", "[%a, %b]"]),
                     max_size=4).map(lambda xs: "".join(" " + x for x in xs))
_ATTRS = st.sampled_from(["", " {a = 1 : i32}", " {partitionNumWarps = array<i32: 2>}"])
_LOC = st.sampled_from(["", " loc(#l)", " loc(#l1)", " loc(#l2)"])
_RESULTS = st.sampled_from(["", "%r = ", "%r, %s = ", "%r:2 = ", "%u = "])
_NAME = st.sampled_from(["arith.addi", "arith.cmpi", "arith.select", "arith.constant", "tt.make_tensor_descriptor",
                         "ttng.tmem_load", "tt.load", "tt.atomic_rmw", "tt.dot", "ttg.warp_id", "ttg.async_wait",
                         "ttg.async_copy_global_to_local", "ttg.local_atomic_scatter_rmw", "ttg.warp_specialize",
                         "triton_gpu.convert_layout", "scf.if", "scf.for", "scf.yield", "nvg.cluster_id"])


def _op_line(parts) -> str:
    results, name, operands, attrs, sig, loc = parts
    return f"{results}{name}{operands}{attrs}{' : ' + sig if sig is not None else ''}{loc}"


_LINE = st.tuples(_RESULTS, _NAME, _OPERANDS, _ATTRS, st.none() | _SIG, _LOC).map(_op_line)

PRELUDE = ("#b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
           "#s = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>\n#m = #ttg.shared_memory\n"
           'module attributes {"ttg.num-warps" = 4 : i32} {\n'
           "  tt.func @k(%a: i32, %b: f16, %c: tensor<4xf32, #b>) {\n    %u = nvg.cluster_id\n")
POSTLUDE = ("    tt.return\n  }\n}\n#l = loc(\"k.py\":1:2)\n#l1 = loc(callsite(#l at #l))\n"
            "#l2 = loc(\"x\"(#l1))\n")


@given(st.lists(_LINE, min_size=1, max_size=4))
@settings(max_examples=800, deadline=None)
def test_random_op_lines_assemble_as_the_general_path_assembles_them(body) -> None:
    text = PRELUDE + "".join(f"    {line}\n" for line in body) + POSTLUDE
    fast, general = _both(text)
    assert fast == general


@pytest.mark.parametrize("lines", [
    ["%r = arith.cmpi slt, %c, %c : tensor<4xf32, #b>", "%s = arith.addi %c, %c : tensor<4xf32, #b>"],
    ["%s = arith.addi %c, %c : tensor<4xf32, #b>", "%r = arith.cmpi slt, %c, %c : tensor<4xf32, #b>"],
])
def test_the_random_comparison_catches_a_memo_that_forgets_the_op_name(lines) -> None:
    text = PRELUDE + "".join(f"    {line}\n" for line in lines) + POSTLUDE
    fast, general = _both(text)
    assert fast == general
    with pytest.MonkeyPatch.context() as mp:
        _forgetting(mp, slice(1, None))
        assert _read(text) != general


# -- locations -------------------------------------------------------------------------------------------------------

def _general_locations(defs: dict[str, str]) -> Locations:
    """A resolver whose definitions all take ``_resolve``'s steps (the one-match forms off)."""
    return _Frozen(Locations(defs))


class _Frozen:
    """Resolves with the one-match definition forms (``_LOC_VIA``, ``_LOC_FILE``) off."""

    def __init__(self, locs: Locations) -> None:
        self.locs = locs

    def resolve(self, text):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(locations, "_LOC_VIA", _NEVER)
            mp.setattr(locations, "_LOC_FILE", _NEVER)
            return self.locs.resolve(text)


_FORMS = ['loc("f.py":{n}:1)', 'loc(#{a})', 'loc("nm{n}"(#{a}))', 'loc(callsite(#{a} at #{b}))',
          'loc(fused[#{a}, #{b}])', 'loc(unknown)', ' loc("n"(#{a})) ', 'loc("n" (#{a}))', 'loc("a\\"b"(#{a}))',
          'loc(callsite(#{a}  at #{b}))', 'loc(callsite(#missing at #{b}))', 'loc("nm"(#missing))']


@st.composite
def _tables(draw):
    n = draw(st.integers(1, 14))
    names = [f"l{i}" for i in range(n)]
    defs = {name: draw(st.sampled_from(_FORMS)).format(n=i, a=draw(st.sampled_from(names)),
                                                         b=draw(st.sampled_from(names)))
            for i, name in enumerate(names)}
    queries = draw(st.lists(st.sampled_from([f"loc(#{x})" for x in names] + ["loc(#missing)"]), min_size=1,
                            max_size=10))
    return defs, queries


def _chain(length: int, form: str) -> dict[str, str]:
    """``#c0 -> #c1 -> ... -> file`` with each link written as ``form``."""
    defs = {f"c{i}": form.format(a=f"c{i + 1}") for i in range(length)}
    defs[f"c{length}"] = 'loc("deep.py":7:1)'
    return defs


_CHAINS = [_chain(k, form) for k in (20, 21, 31, 32, 33, 40, 63, 64, 65)
           for form in ('loc("x"(#{a}))', "loc(callsite(#{a} at #{a}))", "loc(callsite(#missing at #{a}))",
                        "loc(#{a})")]


def _agree(defs: dict[str, str], queries: list[str]) -> bool:
    fast = Locations(defs)
    return [fast.resolve(q) for q in queries] == [_general_locations(defs).resolve(q) for q in queries]


@given(_tables())
@settings(max_examples=500, deadline=None)
def test_random_location_tables_resolve_as_the_general_steps_resolve_them(table) -> None:
    assert _agree(*table)


@pytest.mark.parametrize("defs", _CHAINS)
def test_deep_chains_keep_the_cut_off(defs) -> None:
    queries = ["loc(#c0)", "loc(#c5)", "loc(#c0)", f"loc(#c{len(defs) // 2})"]
    assert _agree(defs, queries)
    assert _agree(defs, list(reversed(queries)))  # the memo filled from the other end


def test_the_location_comparison_catches_a_wrong_level(monkeypatch) -> None:
    named = _chain(25, 'loc("x"(#{a}))')  # 50 levels: resolves; with one level more per link it is cut off
    assert _agree(named, ["loc(#c0)"])
    monkeypatch.setattr(Locations, "_at", lambda self, name, depth: Locations._alias(self, name, depth + 1))
    assert not _agree(named, ["loc(#c0)"])


def test_the_location_comparison_catches_a_swapped_call_site(monkeypatch) -> None:
    defs = {"a": 'loc("callee.py":1:1)', "b": 'loc("caller.py":2:2)', "c": "loc(callsite(#a at #b))"}
    assert _agree(defs, ["loc(#c)"])
    swapped = re.compile(locations._LOC_VIA.pattern.replace(
        r"callsite\(#([\w$.\-]+) at #([\w$.\-]+)\)", r"callsite\((?=#[\w$.\-]+ at #([\w$.\-]+)\))#([\w$.\-]+) at "
                                                     r"#[\w$.\-]+\)"))
    assert swapped.pattern != locations._LOC_VIA.pattern
    monkeypatch.setattr(locations, "_LOC_VIA", swapped)
    assert not _agree(defs, ["loc(#c)"])


def test_a_cyclic_call_site_stays_cheap(monkeypatch) -> None:
    defs = {"a": "loc(callsite(#a at #b))", "b": 'loc("n"(#a))'}
    calls = []
    real = Locations._alias

    def counted(self, name, depth):
        calls.append(depth)
        if len(calls) > 20_000:
            raise RuntimeError("too many resolutions")
        return real(self, name, depth)

    monkeypatch.setattr(Locations, "_alias", counted)
    assert Locations(defs).resolve("loc(#a)") is None
    assert len(calls) < 1000
