"""The gate leaves no reference cycle behind: a module read and checked is freed by reference counting as soon as
it is dropped, so pausing the cyclic collector (llverify.ttgir.collector) never lets a module's objects pile up
and the collector's catch-up pass after each module walks only what is kept (the findings)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from llverify.ttgir.collector import paused_collector
from llverify.ttgir.gate import check_module, gate_text
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
MODULES = [CORPUS / "attention-q128k64d64-cuda_90-w4.ttgir",  # loops, dots, conversions
           *sorted((CORPUS / "warp_specialize").glob("*.ttgir"))[:2]]  # warp_specialize partitions


def _cyclic_garbage(action) -> list[object]:
    """The objects only the cyclic collector could free after ``action()`` (the collector saves them instead)."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        action()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_reading_and_checking_a_module_makes_no_reference_cycle(path: Path) -> None:
    text = path.read_text()
    gate_text(text, path.name)  # first use: lazy imports and one-time tables are not the module's garbage
    garbage = _cyclic_garbage(lambda: gate_text(text, path.name))
    assert not garbage, sorted({type(o).__name__ for o in garbage})


def test_a_cycle_is_detected_by_the_probe() -> None:
    # the probe must see a cycle when there is one: a nested recursive closure (function <-> cell) holding a module
    # is what partition_scopes used to make
    text = MODULES[0].read_text()

    def leak() -> None:
        module = parse_module(text, "m.ttgir")

        def walk(depth: int) -> object:
            return module if depth == 0 else walk(depth - 1)

        walk(1)

    assert any(type(o).__name__ == "Module" for o in _cyclic_garbage(leak))


def test_gate_text_is_check_module_of_parse_module() -> None:
    text = MODULES[0].read_text()
    with paused_collector():
        expected = check_module(parse_module(text, "m.ttgir"))
    got = gate_text(text, "m.ttgir")
    assert [(f.rule, f.op, f.location, f.verdict.status) for f in got] == \
           [(f.rule, f.op, f.location, f.verdict.status) for f in expected]
    assert gc.isenabled()
