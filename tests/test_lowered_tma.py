"""TMA messages in the lowered code (``llverify.lowered.tma``) and remainders of free counters
(``llverify.lowered.remainder``), on Triton 3.9's own code.

Samples (``tests/data/lowered_tma``): the warp-specialized TMA matmul of ``examples/more_kernels.py``
(``ws_matmul``, 128x128x64, 4 warps: 64x64 and 128x64 f16 loads into 3-stage buffers indexed by the loop
counter modulo 3, 64x128 f16 stores as two 64x64 boxes), and two tensor-descriptor copies of ``make_tma.py``
(a 64x512 f16 block: eight 64x64 boxes in two rounds of 4 warps; a 512x64 block, 8 warps: two 256x64 boxes).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import llverify.lowered.tma as tma
import llverify.lowered.assignments as assignments
from llverify.lowered.llir import parse_llir
from llverify.lowered.remainder import Reduction, base_assignment, reduction
from llverify.lowered.concrete import Concrete
from llverify.lowered.validate import validate_texts
from llverify.lowered.vector import Threads

DATA = Path(__file__).resolve().parent / "data" / "lowered_tma"
WS = DATA / "ws_tma_matmul-t128-cuda_90-w4"
WIDE = DATA / "tma_copy_fp16-64x512-cuda_90-w4"
TALL = DATA / "tma_copy_fp16-512x64-cuda_90-w8"
# the C store's buffer in the default partition (the second copy of the epilogue: llir line 1329)
STORE_BASE = "%1129 = getelementptr i8, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @global_smem, i32 114688)"


def _validate(stem: Path, llir: str | None = None):
    shared = json.loads(stem.with_suffix(".json").read_text())["shared"]
    text = llir if llir is not None else stem.with_suffix(".llir").read_text()
    return validate_texts(stem.with_suffix(".ttgir").read_text(), "m.ttgir", text, "m.llir", shared)


def _verdicts(findings, prop: str) -> list:
    return [f.finding.verdict for f in findings if f.finding.verdict.property == prop]


def _tma_bounds(findings) -> list:
    return [f for f in findings if f.finding.verdict.property == "in_bounds" and "tma" in f.finding.op]


# -- the samples, as Triton compiled them ------------------------------------------------------------------------


def test_ws_matmul_tma_messages_in_the_default_partition_prove_with_their_box() -> None:
    """The ws matmul launches 384 threads; its TMA copies sit in partitions entered under a path condition
    (llverify.lowered.guards) that is not known to select threads 0..127, on which the tiling is evaluated: those
    tilings are not claimed (unknown, never proved on the wrong threads), and their messages' in_bounds falls back
    to the first byte (unknown).  Nothing is refuted; the tilings that are claimed are proved."""
    findings = _validate(WS)
    assert not [f for f in findings if f.finding.verdict.status in ("refuted", "error")]
    tilings = _verdicts(findings, "tma_tiling")
    assert len(tilings) == 5
    assert all(v.status == "proved" or "not known to select exactly threads" in v.message for v in tilings)
    for v in tilings:
        if v.status == "proved":
            assert tuple(v.details["box"]) in ((64, 64), (128, 64))


def test_the_stage_index_urem_3_is_enumerated_not_sent_to_z3() -> None:
    findings = _validate(WS)
    # three loops' counters (%43, %600, %1264: i64, unknown trip count) index 3-stage barriers and buffers
    staged = [f.finding.verdict for f in findings if ":64.urem3:2" in f.finding.verdict.message]
    assert {m for v in staged for m in ("%43:", "%600:", "%1264:") if m in v.message} == {"%43:", "%600:", "%1264:"}
    assert len(staged) >= 18 and all(v.status == "proved" and v.method == "exhaustive" for v in staged)
    assert not [f for f in findings if f.finding.verdict.method == "smt"]


@pytest.mark.parametrize("stem, box, count", [(WIDE, (64, 64), 8), (TALL, (256, 64), 2)])
def test_copies_of_several_boxes_tile_their_buffers(stem: Path, box: tuple, count: int) -> None:
    findings = _validate(stem)
    # the stored tile is computed (arith.addf): its stored_values stays open (tests/test_lowered_stored_values.py)
    assert all(f.finding.verdict.status == "proved" for f in findings if f.finding.verdict.property != "stored_values")
    tilings = _verdicts(findings, "tma_tiling")
    assert len(tilings) == 2  # the load and the store
    assert all(tuple(v.details["box"]) == box and v.details["count"] == count for v in tilings)
    # and the kernel's own tensor maps (made on the device) hold the same box dims, innermost first
    llir = stem.with_suffix(".llir").read_text()
    for d, size in enumerate(reversed(box)):
        assert f'box_dim.shared::cta.b1024.b32 [ $0 + 0 ], 0x{d}, $1;", "l,r"' in llir
        assert any(re.search(rf"0x{d}, \$1;.*, i32 {size}\)", line) for line in llir.splitlines() if "box_dim" in line)


# -- mutants ------------------------------------------------------------------------------------------------------


@pytest.fixture
def as_if_threads_0_to_127_ran_every_block(monkeypatch):  # noqa: ANN001, ANN201
    """The mutants below test the tiling and box logic on the ws matmul's real code, whose TMA ops sit in
    warp-specialized partitions: the gate does not claim their tilings (guards: the partition's threads are not
    known to be 0..127, on which the tiling is evaluated).  Here that exactness gate is lifted, as in a kernel
    whose TMA ops run in straight-line code, so that the tiling logic itself is exercised."""
    from llverify.lowered import validate as validate_module

    monkeypatch.setattr(validate_module, "runs_on_first", lambda *args: True)


@pytest.mark.usefixtures("as_if_threads_0_to_127_ran_every_block")
def test_a_shifted_store_buffer_is_found_with_its_box_replayed() -> None:
    llir = WS.with_suffix(".llir").read_text()
    assert llir.count(STORE_BASE) == 1
    # 120000: the second box starts at 128192 (its first byte inside the 131672 bytes, its last past them)
    findings = _validate(WS, llir.replace(STORE_BASE, STORE_BASE.replace("i32 114688)", "i32 120000)")))
    # the store sits in a partition entered when a state byte loaded from shared memory (%15) is 1: the
    # witness is a thread of that partition (warp 5), reported with the value it needs, never proved (a
    # merge once shared the tiling's 128-thread evaluators with in_bounds, which then saw no thread reach it
    # and proved it: this is the regression test)
    store = [f.finding.verdict for f in _tma_bounds(findings) if f.lowered.line == 1333]
    assert [v.status for v in store] == ["unknown"]
    reached = store[0].details["if_reached"]
    # a worker thread (warp 4 or above) of an odd warp: the second box, 8192 bytes past the first
    assert reached["tid"] >= 128 and reached["tid"] // 32 % 2 == 1
    assert reached["address"] == 128192 and reached["%15:8"] == 1
    fn = parse_llir(llir.replace(STORE_BASE, STORE_BASE.replace("i32 114688)", "i32 120000)"))).functions[0]
    assert Concrete(fn, reached["tid"], {}).value("%1129", 32) == 128192  # replayed here too
    # the spacing is unchanged: the tiling itself still holds
    assert all(v.status == "proved" for v in _verdicts(findings, "tma_tiling"))


@pytest.mark.usefixtures("as_if_threads_0_to_127_ran_every_block")
def test_a_box_rule_that_does_not_tile_the_buffer_is_caught(monkeypatch) -> None:
    # the rule a previous attempt used: the whole block as each message's box (64x128 for the C store)
    monkeypatch.setattr(tma, "tma_block_shape", lambda shape, *args: list(shape))
    findings = _validate(WS)
    stores = [v for v in _verdicts(findings, "tma_tiling") if "local_to_global" in v.subject]
    assert len(stores) == 2 and all(v.status == "refuted" for v in stores)
    cx = stores[0].counterexample
    starts = [i["address"] for i in cx.inputs["issued"]]
    assert starts[1] - starts[0] == 8192 and list(cx.sides["expected_starts"]) == starts[:1]  # two boxes, one expected
    # a box the tiling does not confirm is never used for in_bounds
    for f in _tma_bounds(findings):
        if "local_to_global" in f.finding.op:
            assert f.finding.verdict.status == "unknown" and "not established" in f.finding.verdict.message


@pytest.mark.usefixtures("as_if_threads_0_to_127_ran_every_block")
def test_a_box_half_the_size_is_caught(monkeypatch) -> None:
    def half(shape, bits, swizzle, fp4, transposed):
        from llverify.hw.shared import tma_block_shape
        box = tma_block_shape(shape, bits, swizzle, fp4, transposed)
        return [box[0] // 2, *box[1:]]

    monkeypatch.setattr(tma, "tma_block_shape", half)
    tilings = _verdicts(_validate(WS), "tma_tiling")
    assert len(tilings) == 5 and not [v for v in tilings if v.status == "proved"]
    # the stores (no free variable) are refuted; the loads differ at a value of the stage index: unknown
    assert sorted(v.status for v in tilings) == ["refuted", "refuted", "unknown", "unknown", "unknown"]
    assert all("%1264:64.urem3:2 = " in v.message for v in tilings if v.status == "unknown")


@pytest.mark.usefixtures("as_if_threads_0_to_127_ran_every_block")
def test_a_pointer_that_is_not_the_shared_operand_is_not_given_a_box() -> None:
    llir = WS.with_suffix(".llir").read_text()
    line = next(x for x in llir.splitlines() if "cp.async.bulk.tensor.2d.shared::cta.global" in x)
    swapped = line.replace("[$1], [$2, {$3, $4}], [$5]", "[$5], [$2, {$3, $4}], [$1]")
    findings = _validate(WS, llir.replace(line, swapped))
    first = [v for v in _verdicts(findings, "tma_tiling") if v.status != "proved"]
    assert len(first) == 1 and "not the shared operand" in first[0].message


# -- remainders ---------------------------------------------------------------------------------------------------

_REM = '''define void @k(i64 %n, i32 %m) {{
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %q = udiv i64 %n, {c}
  %neg = mul i64 %q, {k}
  %s = add i64 %neg, %n
  %r = trunc i64 %s to i32
  %u = urem i32 %m, {c}
  %a = and i32 %m, 7
  %w = sub i32 %m, %x
  %x = mul i32 %y, {c}
  %y = udiv i32 %m, {c}
  %bad = add nsw i64 %neg, %n
  %off = shl nuw nsw i32 %r, 13
  %p = getelementptr i8, ptr addrspace(3) @global_smem, i32 %off
  store i32 0, ptr addrspace(3) %p, align 4
}}'''


def test_the_remainder_forms_are_recognised_and_others_are_not() -> None:
    fn = parse_llir(_REM.format(c=3, k=4294967293)).functions[0]
    assert reduction(fn, "%r", 32) == Reduction("%n", 64, 3)
    assert reduction(fn, "%s", 64) is None  # 2^32 - 3 is -3 only modulo 2^32
    assert reduction(fn, "%u", 32) == Reduction("%m", 32, 3)
    assert reduction(fn, "%a", 32) == Reduction("%m", 32, 8)
    assert reduction(fn, "%w", 32) == Reduction("%m", 32, 3)
    assert reduction(fn, "%bad", 64) is None  # nsw: may be poison
    wrong = parse_llir(_REM.format(c=3, k=4294967294)).functions[0]
    assert reduction(wrong, "%r", 32) is None  # K is not -C


def test_the_remainder_is_what_the_interpreter_computes() -> None:
    fn = parse_llir(_REM.format(c=3, k=4294967293)).functions[0]
    rng = random.Random(5)
    for n in [0, 1, 2, 3, 5, (1 << 64) - 1, *(rng.randrange(1 << 64) for _ in range(50))]:
        want = Concrete(fn, 0, {"%n:64": n}).value("%r", 32)
        assert want == n % 3  # the expansion is the remainder
        # the reduced variable at n mod 3 gives the same value, and so does the base assignment it implies
        assert Threads(fn, 4, {"%n:64.urem3:2": n % 3}).value("%r", 32).vals.tolist() == [want] * 4
        assert Concrete(fn, 0, base_assignment({"%n:64.urem3:2": n % 3})).value("%r", 32) == want
    assert sorted(Threads(fn, 4).value("%off", 32).free) == ["%n:64.urem3:2"]


@pytest.mark.parametrize("shared, status", [(3 * 8192, "proved"), (2 * 8192 + 2, "unknown")])
def test_every_remainder_value_is_evaluated(shared: int, status: str) -> None:
    llir = _REM.format(c=3, k=4294967293)
    findings = validate_texts('module attributes {"ttg.num-warps" = 1 : i32} {\n}\n', "m.ttgir", llir, "m.llir",
                              shared)
    (v,) = _verdicts(findings, "in_bounds")
    assert v.status == status
    if status == "proved":
        assert v.method == "exhaustive" and v.certificate["assignments"] == 3
    else:  # r = 2 stores 4 bytes at 16384: out of bounds for some counter values (worded by Z3: n = 2 mod 3)
        assert "%n:64.urem3:2" in v.message and "modulo 3" in v.message


def test_an_enumeration_that_misses_a_remainder_value_is_caught(monkeypatch) -> None:
    real = assignments.parse_key
    monkeypatch.setattr(assignments, "parse_key", lambda key: (lambda p: p and (p[0], p[1] - 1))(real(key)))
    llir = _REM.format(c=3, k=4294967293)
    findings = validate_texts('module attributes {"ttg.num-warps" = 1 : i32} {\n}\n', "m.ttgir", llir, "m.llir",
                              2 * 8192 + 2)
    (v,) = _verdicts(findings, "in_bounds")
    assert v.status == "proved"  # the mutant ([0, 2) for urem 3) proves what the parametrized test above refuses


# -- a pipelined (not warp-specialized) TMA matmul: prologue loads guarded by `K > 0` --------------------------------

PIPE = DATA / "tma_matmul-t128-cuda_90-w4"
K_TEST = "%55 = icmp sgt i32 %5, 0"


def test_a_guard_conjunct_of_kernel_arguments_only_is_uniform() -> None:
    findings = _validate(PIPE)
    assert not [f for f in findings if f.finding.verdict.status in ("refuted", "error")]
    tilings = _verdicts(findings, "tma_tiling")
    assert len(tilings) == 7
    # the 4 prologue loads (guard: tid & 127 < 32, elect.sync, K > 0) and the store tile their buffers
    proved = [v for v in tilings if v.status == "proved"]
    assert len(proved) == 5
    # the 2 loads in the loop are guarded by the loop's own counter (a phi of unknown trip count): unknown
    rest = [v for v in tilings if v.status != "proved"]
    assert all(v.status == "unknown" and "not enumerable" in v.message for v in rest)


def test_a_thread_dependent_conjunct_is_not_left_out() -> None:
    llir = PIPE.with_suffix(".llir").read_text()
    assert llir.count(K_TEST) == 1
    # lane 0 of warp 0 now fails the conjunct: elect.sync may pick it, so which lane issues is not determined
    findings = _validate(PIPE, llir.replace(K_TEST, "%55 = icmp sgt i32 %24, 0"))
    tilings = _verdicts(findings, "tma_tiling")
    loads = [v for v in tilings if "global_to_local" in v.subject]
    # the first stage's two loads (guarded by %55) are no longer proved; the second stage's (K > 64) still are
    assert sorted(v.status for v in loads) == ["proved", "proved", "unknown", "unknown", "unknown", "unknown"]
    assert sum("elect.sync may choose" in v.message for v in loads) == 2


# -- wrapping stage counters (their range: llverify.lowered.orbits) ---------------------------------------------

_WRAP = '''define void @k(i32 %n) {{
loop:
  %s = phi i32 [ {start}, %entry ], [ %x, %loop ]
  %a = add i32 %s, {step}
  %e = icmp {pred} i32 %a, {bound}
  %x = select i1 %e, i32 {reset}, i32 %a
  br label %loop
}}'''


def _recurrence(start: int, step: int, pred: str, bound: int, reset: int, n: int = 300) -> set[int]:
    """The values the counter takes in its first ``n`` iterations (i32, signed reading), run independently."""
    p, seen = start, set()
    for _ in range(n):
        seen.add(p)
        a = (p + step + 2**31) % 2**32 - 2**31
        u, ub = a % 2**32, bound % 2**32
        hit = {"eq": a == bound, "sgt": a > bound, "ugt": u > ub, "sge": a >= bound, "slt": a < bound}[pred]
        p = reset if hit else a
    return seen


@pytest.mark.parametrize("start, pred, bound, reset, want", [
    (0, "eq", 3, 0, (0, 3, False)), (2, "eq", 3, 0, (0, 3, False)), (-1, "sgt", 2, 0, (-1, 3, True)),
    (1, "ugt", 2, 0, (0, 3, False)), (0, "sge", 4, 1, (0, 4, False)),
])
def test_a_wrapping_counter_stays_in_its_range(start: int, pred: str, bound: int, reset: int, want: tuple) -> None:
    from llverify.lowered.orbits import phi_range
    fn = parse_llir(_WRAP.format(start=start, step=1, pred=pred, bound=bound, reset=reset)).functions[0]
    got = phi_range(fn, fn.defs["%s"])
    assert got is not None and (got.lo, got.hi, got.signed) == want
    assert _recurrence(start, 1, pred, bound, reset) <= set(range(got.lo, got.hi))


@pytest.mark.parametrize("start, step, pred, bound, reset, closes", [
    (0, 1, "eq", 3, 3, False), (0, 2, "eq", 3, 0, False), (3, 1, "eq", 3, 0, False), (-1, 1, "ugt", 2, 0, True),
    (0, 1, "slt", 3, 0, True),
])
def test_other_counters_get_a_range_only_when_it_holds_every_value(start: int, step: int, pred: str, bound: int,
                                                                  reset: int, closes: bool) -> None:
    # a reset outside the range, a step of 2 (skips the bound), a start at the bound: the counter runs away
    # (no range); a negative start under an unsigned compare, arms the other way round: a small orbit, whose
    # range must hold every value the recurrence takes
    from llverify.lowered.orbits import phi_range
    fn = parse_llir(_WRAP.format(start=start, step=step, pred=pred, bound=bound, reset=reset)).functions[0]
    got = phi_range(fn, fn.defs["%s"])
    assert (got is not None) == closes
    if got is not None:
        seen = {v % 2**32 for v in _recurrence(start, step, pred, bound, reset)} if not got.signed else \
            _recurrence(start, step, pred, bound, reset)
        assert seen <= set(range(got.lo, got.hi))
