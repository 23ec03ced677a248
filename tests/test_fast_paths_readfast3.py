"""A reader fast path of issue 11's third pass, compared with the general path on the whole corpus (tests/data/ttgir,
and Triton's lit tests when a session copied them to /tmp/hunt6/lit) and shown able to fail (``test_*_catches_*``: a
mutant the comparison must catch): ``types.alias_encoding``, an encoding that is one layout alias (``#blocked``, most
encodings Triton prints) is that alias's spec at once, without the flat-attribute match and the attribute grammar."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import corpus_reads  # tests/corpus_reads.py (tests/ is on sys.path: conftest.py)
import pytest

from llverify.errors import LlverifyError
from llverify.triton.parse import parse_attr
from llverify.ttgir import loader, model, syntax, types
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


def _read(texts: list[tuple[str, str]]) -> list[list[Any]]:
    """Each file read as ``llverify ttgir`` reads it (``// -----`` chunks, dump snapshots): its modules or errors."""
    out = []
    for path, text in texts:
        syntax._changes.cache_clear()
        out.append([m if isinstance(m, model.Module) else f"error: {m}" for m in loader.load_text(text, path)])
    return out

def _encoding_cases(texts: list[tuple[str, str]]) -> list[tuple[str, types.AliasTable]]:
    """(encoding text, its module's layout aliases) of every tensor / memdesc encoding of the corpus, and odd cases:
    an opaque alias, an undefined alias, an alias that is no attribute, texts that are more than an alias."""
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
