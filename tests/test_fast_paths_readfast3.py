"""Three reader fast paths of issue 11's third pass, each compared with the general path (or the definition) on the
whole corpus and shown able to fail (``test_*_catches_*``: a mutant the comparison must catch): the lazy ``Op.source``,
``new_typeref`` (the TypeRef dataclass without its generated ``__init__``) and ``alias_encoding`` (an encoding that
is one layout alias, ``#blocked``, is that alias's spec without the attribute grammar).

The lazy ``Op.source``: an op's ``loc(...)`` is resolved when ``op.source`` is first read
(:func:`llverify.ttgir.model.new_lazy_op`), not while the module is read.  It must be invisible: over the whole TTGIR
corpus (and Triton's lit tests when they are on this machine) every op's ``source`` is the eagerly resolved one,
whatever order the ops are asked in (the resolver's memos must not make the answer depend on it), and equality, repr,
copy and pickling see the same op.  Each comparison is shown able to fail (``test_*_catches_*``: a mutant of the
lazy constructor it must catch)."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any, Callable

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest

from llverify.errors import LlverifyError
from llverify.triton.parse import parse_attr
from llverify.ttgir import assemble, loader, model, reader, syntax, types
from llverify.ttgir.flat_attrs import flat_attribute

_LIT = Path("/tmp/hunt6/lit")  # Triton's own lit tests, where a session copied them (read in addition when present)


def _texts() -> list[tuple[str, str]]:
    paths = sorted(corpus_reads.CORPUS.rglob("*.ttgir"))
    if _LIT.is_dir():
        paths += sorted(_LIT.rglob("*.mlir"))
    assert len(paths) > 100
    return [(str(p), p.read_text(errors="replace")) for p in paths]


@pytest.fixture(scope="module")
def texts() -> list[tuple[str, str]]:
    return _texts()


def _eager(name, results, operands, operand_types, attributes, regions, location, resolve, loc_text, text,
           printed=()) -> model.Op:
    """The definition: ``new_op`` with the location resolved at once (what the reader did before)."""
    return model.new_op(name, results, operands, operand_types, attributes, regions, location, resolve(loc_text), text,
                        printed)


def _read(texts: list[tuple[str, str]]) -> list[Any]:
    out = []
    for path, text in texts:
        syntax._changes.cache_clear()
        # the loader reads a file as `llverify ttgir` does (`// -----` chunks, dump snapshots), each part or its error
        out.append([m if isinstance(m, model.Module) else f"error: {m}" for m in loader.load_text(text, path)])
    return out


def _ops(mods: list[Any]) -> list[model.Op]:
    return [op for m in mods if isinstance(m, model.Module) for _, op, _ in m.walk()]


def _differences(lazy: list[Any], eager: list[Any], texts: list[tuple[str, str]]) -> list[str]:
    """Where the lazily read modules differ from the eager ones: each op's ``source`` read in reverse program order
    first (the memos of the resolver then fill in an order unlike the reader's), then the whole modules' repr."""
    out = []
    for (path, _), a, b in zip(texts, lazy, eager):
        ops_a, ops_b = _ops(a), _ops(b)
        if len(ops_a) != len(ops_b):
            out.append(f"{path}: {len(ops_a)} ops, eager {len(ops_b)}")
            continue
        for x, y in reversed(list(zip(ops_a, ops_b))):
            if x.source != y.source:
                out.append(f"{path}:{x.location.line}: source {x.source} != eager {y.source}")
        if repr(a) != repr(b):
            out.append(f"{path}: modules differ")
    return out


def _compare(texts: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch,
             lazy_op: Callable[..., model.Op] | None = None) -> list[str]:
    if lazy_op is not None:
        monkeypatch.setattr(assemble, "new_lazy_op", lazy_op)
    lazy = _read(texts)
    monkeypatch.setattr(assemble, "new_lazy_op", _eager)
    eager = _read(texts)
    monkeypatch.undo()
    return _differences(lazy, eager, texts)


def test_lazy_sources_are_the_eager_ones_on_the_corpus(texts, monkeypatch) -> None:
    lazy = _read(texts)
    pending = sum(1 for mods in lazy for op in _ops(mods) if "_source_pending" in op.__dict__)
    assert pending > 1000  # the lazy path is the one taken
    assert _compare(texts, monkeypatch) == []


def test_the_comparison_catches_a_lazy_op_that_loses_its_location(texts, monkeypatch) -> None:
    def mutant(*args, **kw):
        args = list(args)
        args[8] = None  # loc_text dropped
        return model.new_lazy_op(*args, **kw)
    assert _compare(texts, monkeypatch, mutant)


def test_the_comparison_catches_a_lazy_op_that_reuses_the_first_answer(texts, monkeypatch) -> None:
    first: dict[str, Any] = {}

    def mutant(name, results, operands, operand_types, attributes, regions, location, resolve, loc_text, text,
               printed=()):
        def sticky(t):  # a memo keyed on nothing: the first location read answers for every op
            if "v" not in first:
                first["v"] = resolve(t)
            return first["v"]
        return model.new_lazy_op(name, results, operands, operand_types, attributes, regions, location, sticky,
                                 loc_text, text, printed)
    assert _compare(texts, monkeypatch, mutant)


_MODULE = '''module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%x: f32) {
    %0 = arith.addf %x, %x : f32 loc(#loc1)
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.subf %1, %0 : f32 loc("named"(#loc1))
    tt.return
  } loc(#loc)
} loc(#loc)
#loc = loc("k.py":3:0)
#loc1 = loc("k.py":4:9)
'''


def _module_ops() -> list[model.Op]:
    return [op for _, op, _ in reader.parse_module(_MODULE).walk()]


def test_an_op_without_a_location_has_none_at_once_and_others_resolve_on_first_read() -> None:
    add, mul, sub, ret = _module_ops()
    assert "source" not in add.__dict__ and "_source_pending" in add.__dict__
    assert str(add.source) == "k.py:4:9" and add.source.name == ""
    assert "source" in add.__dict__ and "_source_pending" not in add.__dict__  # kept once read
    assert mul.__dict__["source"] is None and "_source_pending" not in mul.__dict__
    assert (str(sub.source), sub.source.name) == ("k.py:4:9", "named")
    assert ret.source is None
    assert not hasattr(add, "no_such_field")


def test_equality_hash_repr_copy_and_pickle_see_the_resolved_source() -> None:
    a, b = _module_ops()[0], _module_ops()[0]
    assert "_source_pending" in b.__dict__
    assert a == b  # equality reads `source` of both
    fresh = _module_ops()[0]
    assert "source=SourceLocation(file='k.py', line=4, col=9" in repr(fresh)
    for twin in (pickle.loads(pickle.dumps(_module_ops()[0])), copy.copy(_module_ops()[0]),
                 copy.deepcopy(_module_ops()[0])):
        assert twin == a and twin.source == a.source
        assert "_source_pending" not in twin.__dict__  # a copy holds no resolver


# -- new_typeref: the reader's TypeRef constructor -------------------------------------------------------------------

def _typerefs(texts: list[tuple[str, str]]) -> list[model.TypeRef]:
    out: dict[int, model.TypeRef] = {}
    for mods in _read(texts):
        for m in mods:
            if not isinstance(m, model.Module):
                continue
            for fn in m.functions:
                for v in fn.arguments:
                    out[id(v.type)] = v.type
            for _, op, _ in m.walk():
                for t in (*(v.type for v in op.results), *op.operand_types):
                    if t is not None:
                        out[id(t)] = t
    return list(out.values())


def _same_as_the_dataclass(refs: list[model.TypeRef], build: Callable[..., model.TypeRef]) -> list[str]:
    """Where ``build`` (called with each TypeRef's fields, trailing defaults left out as the reader leaves them)
    makes something other than the dataclass's own constructor: fields, equality, hash, repr."""
    bad = []
    names = [f.name for f in model.TypeRef.__dataclass_fields__.values()]
    for ref in refs:
        values = [getattr(ref, n) for n in names]
        for k in range(2, len(values) + 1):  # every prefix of the arguments, the rest defaulted
            a, b = build(*values[:k]), model.TypeRef(*values[:k])
            if not (a == b and b == a and vars(a) == vars(b) and repr(a) == repr(b)):
                bad.append(f"{ref.text} ({k} arguments)")
            elif a.encoding is None and hash(a) != hash(b):  # (a spec is a dict: such types are unhashable)
                bad.append(f"{ref.text} ({k} arguments): hash")
    return bad


def test_new_typeref_is_the_dataclass_on_every_corpus_type(texts) -> None:
    refs = _typerefs(texts)
    assert len(refs) > 500 and {r.kind for r in refs} >= {"tensor", "memdesc", "ptr", "scalar", "other"}
    assert _same_as_the_dataclass(refs, model.new_typeref) == []


def test_the_typeref_comparison_catches_a_wrong_default(texts) -> None:
    def mutant(text, kind, shape=(), element="", encoding=None, encoding_text=None, encoding_error=None,
               memory_space=None, mutable=False, alloc_shape=()):  # alloc_shape defaulted to () instead of None
        return model.new_typeref(text, kind, shape, element, encoding, encoding_text, encoding_error, memory_space,
                                 mutable, alloc_shape)
    assert _same_as_the_dataclass(_typerefs(texts)[:200], mutant)


# -- alias_encoding: an encoding that is one alias reference ---------------------------------------------------------

def _encoding_cases(texts: list[tuple[str, str]]) -> list[tuple[str, types.AliasTable]]:
    """(encoding text, the alias table it was read with) of every tensor / memdesc encoding of the corpus, and a
    module whose encodings are an opaque alias, an undefined alias and a non-layout alias."""
    cases = []
    for mods in _read(texts):
        for m in mods:
            if not isinstance(m, model.Module):
                continue
            table = types.AliasTable()
            for name, spec in m.aliases.items():
                if not (isinstance(spec, str) and spec.startswith("error: ")):
                    table.specs[name] = spec
            for ref in _typerefs_of(m):
                if ref.encoding_text:
                    cases.append((ref.encoding_text, table))
    odd = types.AliasTable()
    odd.define("smem", "#ttg.shared_memory")
    odd.define("b", "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    odd.specs["num"] = 4  # an alias whose value is no attribute
    cases += [(t, odd) for t in ("#smem", "#b", "#undefined", "#num", "#b ", "#b<{}>")]
    return cases


def _typerefs_of(m: model.Module) -> list[model.TypeRef]:
    return [t for _, op, _ in m.walk() for t in (*(v.type for v in op.results), *op.operand_types) if t is not None]


def _general_encoding(text: str, table: types.AliasTable) -> tuple[Any, str | None]:
    """The general reading (flat attribute, else the attribute grammar), as ``_read_encoding`` does without the
    alias fast path."""
    try:
        flat = flat_attribute(text, table.specs)
        if isinstance(flat, dict) and flat.get("kind") != "__opaque__":
            return flat, None
        return parse_attr(text, table.specs), None
    except LlverifyError as exc:
        return None, str(exc)


def _alias_differences(cases, fast: Callable[[str, Any], Any]) -> list[str]:
    bad = []
    for text, table in cases:
        spec = fast(text, table.specs)
        if spec is None:
            continue  # the general way reads it
        general, err = _general_encoding(text, table)
        if err is not None or general is not spec:
            bad.append(f"{text}: fast {spec!r}, general {general!r} / {err}")
    return bad


def test_alias_encoding_is_the_general_reading_on_every_corpus_encoding(texts) -> None:
    cases = _encoding_cases(texts)
    taken = sum(1 for t, table in cases if types.alias_encoding(t, table.specs) is not None)
    assert taken > 1000  # the fast path is the common one
    assert _alias_differences(cases, types.alias_encoding) == []
    odd = {t: types.alias_encoding(t, table.specs) for t, table in cases[-6:]}
    assert [t for t, v in odd.items() if v is not None] == ["#b"]  # the others: read (and refused) the general way


def test_the_alias_comparison_catches_a_fast_path_that_takes_an_opaque_alias(texts) -> None:
    def mutant(text, specs):  # without the check that the alias is a layout spec
        name = text[1:]
        return specs.get(name) if text.startswith("#") and name in specs else None
    assert _alias_differences(_encoding_cases(texts), mutant)
