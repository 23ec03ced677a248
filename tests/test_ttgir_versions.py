"""The gate on TTGIR from Triton versions other than 3.9 (samples in tests/data/ttgir/versions/<version>/, compiled
from our own kernels by examples/build_versions.py with Triton 3.2.0, 3.4.0, 3.5.1 and 3.6.0 in their own virtualenvs).

Each test is the regression test of one reader gap those versions exposed, with a mutant that must still be
refuted where the fix touches a proof."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from llverify.ttgir.gate import gate_file
from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.reader import parse_module
from llverify.ttgir.types import parse_typeref

VERSIONS = Path(__file__).resolve().parent / "data" / "ttgir" / "versions"


def _statuses(res) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in res.findings:
        out[f.verdict.status] = out.get(f.verdict.status, 0) + 1
    return out


def _gate_text(tmp_path: Path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return gate_file(str(p))


# -- quoted function symbols in MLIR_ENABLE_DUMP snapshots (every version before inlining) ----------------

def test_dump_with_quoted_function_symbols_is_read() -> None:
    """The first snapshots of a dump hold not-yet-inlined helpers named by quoted symbols,
    ``tt.func private @"triton.language.standard.zeros____(0, 0)cconstexpr_64__..."``; the reader took
    them for a malformed tt.func and lost the whole snapshot (an error per snapshot, 30 on the samples)."""
    path = VERSIONS / "3.6.0" / "matmul-t64s1-cuda_90-w4.dump.mlir"
    res = gate_file(str(path))
    assert not res.errors and res.modules == 3
    assert _statuses(res).get("refuted", 0) == 0 and _statuses(res).get("proved", 0) > 100
    from llverify.ttgir.loader import load_paths

    first = load_paths([str(path)])[0]
    assert first.stage.startswith("Inliner")
    names = [fn.name for fn in first.functions]
    assert names[0] == "matmul"
    assert any(n.startswith("triton.language.standard.zeros____(0, 0)cconstexpr_64__") for n in names[1:])


def test_quoted_symbol_escapes_and_bad_quotes() -> None:
    text = ('module {\n  tt.func private @"a\\22b(0, 1)" () -> f32 {\n'
            '    %c = arith.constant 0.0 : f32\n    tt.return %c : f32\n  }\n}\n')
    mod = parse_module(text, "q.ttgir")
    assert mod.functions[0].name == 'a"b(0, 1)'
    from llverify.ttgir.model import TtgirError
    with pytest.raises(TtgirError, match=r"q.ttgir:2:3: .*malformed tt.func"):
        parse_module(text.replace('@"a\\22b(0, 1)"', '@"unterminated'), "q.ttgir")


# -- Triton <= 3.5: #ttg.amd_mfma with instrShape = [M, N] -----------------------------------------------

MFMA_35 = VERSIONS / "3.5.1" / "matmul-t64s1-hip_gfx942-w4.ttgir"


def test_mfma_two_element_instr_shape_is_read() -> None:
    """3.5 and older print ``instrShape = [32, 32]``; every MFMA obligation was unknown ("must be [M, N, K]",
    about 1,800 per version).  K enters neither the accumulator nor the operand layouts."""
    res = gate_file(str(MFMA_35))
    st = _statuses(res)
    assert not res.errors and st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0 and st["proved"] > 60
    old = VERSIONS / "3.4.0" / "matmul-t64s1-hip_gfx942-w4.ttgir"  # versionMajor = 3, versionMinor = 0 too
    assert "versionMajor = 3" in old.read_text()
    st = _statuses(gate_file(str(old)))
    assert st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0 and st["proved"] > 60
    for opidx, kw in ((0, 4), (1, 4), (0, 8)):
        two = parse_typeref(f"tensor<64x32xf16, #ttg.dot_op<{{opIdx = {opidx}, parent = #ttg.amd_mfma<{{version = 3, "
                            f"warpsPerCTA = [2, 2], instrShape = [32, 32], isTransposed = true}}>, kWidth = {kw}}}>>", {})
        three = parse_typeref(two.text.replace("instrShape = [32, 32]", "instrShape = [32, 32, 8]"), {})
        a, b = layout_of(two), layout_of(three)
        assert isinstance(a, BuiltLayout) and isinstance(b, BuiltLayout) and a.layout == b.layout


def test_mfma_two_element_layouts_match_triton_35_lowered_addresses() -> None:
    """Triton 3.5.1's own LLVM IR of the sample (USE_IR_LOC=ttgir): every shared-memory access, including
    the MFMA operand loads, reads the elements llverify's reading of the layouts predicts; an operand read
    with another kWidth is refuted against the same code."""
    from llverify.lowered.llir import parse_llir
    from llverify.lowered.validate import summarize, validate

    llir = parse_llir(MFMA_35.with_suffix(".llir").read_text(), "m.llir")
    shared = json.loads(MFMA_35.with_suffix(".json").read_text())["shared"]
    text = MFMA_35.read_text()
    # (stored_values of its strided / transposed tiles stays unknown: tests/test_lowered_stored_values.py)
    counts = summarize([f for f in validate(parse_module(text, str(MFMA_35)), llir, shared)
                        if f.finding.verdict.property != "stored_values"])
    assert counts["refuted"] == 0 and counts["unknown"] == 0 and counts["proved"] >= 10
    old = "-> tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> loc"
    assert text.count(old) == 1
    mutant = text.replace(old, old.replace("kWidth = 4", "kWidth = 8"))
    found = validate(parse_module(mutant, "mutant.ttgir"), llir, shared)
    bad = [f for f in found if f.finding.verdict.status == "refuted"]
    assert bad and all(f.finding.op == "ttg.local_load" for f in bad)


# -- Triton <= 3.5: #ttng.tensor_memory_encoding<..., unpacked = true|false> -----------------------------

def _tmem(enc: str, elem: str):
    return layout_of(parse_typeref(f"!ttg.memdesc<128x64x{elem}, #ttng.tensor_memory_encoding<blockM = 128, "
                                   f"blockN = 64, {enc}>, #ttng.tensor_memory, mutable>", {}))


@pytest.mark.parametrize("elem,unpacked,stride", [("f32", "true", 1), ("f32", "false", 1), ("f16", "true", 2),
                                                  ("f16", "false", 1), ("i8", "true", 4), ("i8", "false", 1)])
def test_tmem_unpacked_is_col_stride(elem, unpacked, stride) -> None:
    """``unpacked = true`` is 3.6's ``colStride = 32 / element bits``; packed is ``colStride = 1``."""
    a, b = _tmem(f"unpacked = {unpacked}", elem), _tmem(f"colStride = {stride}", elem)
    assert isinstance(a, BuiltLayout) and isinstance(b, BuiltLayout) and a.layout == b.layout
    if stride != 1:
        assert a.layout != _tmem("colStride = 1", elem).layout


def test_tmem_unpacked_and_col_stride_together_is_not_read() -> None:
    a = _tmem("unpacked = true, colStride = 1", "f16")
    assert not isinstance(a, BuiltLayout) and "either unpacked or colStride" in a.reason


def test_tmem_unpacked_module_is_proved_and_a_misplaced_warp_refuted(tmp_path) -> None:
    """3.5.1 Blackwell module: its tmem_alloc/store/load were unknown ("encoding not read"); now proved.
    Mutant: the register layout of the tmem_load gives warp 1 the rows of warp 0's lane quarter."""
    path = VERSIONS / "3.5.1" / "fp8_dot-k-cuda_100-w4.ttgir"
    text = path.read_text()
    assert "unpacked = true" in text
    res = gate_file(str(path))
    st = _statuses(res)
    assert not res.errors and st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0
    assert sum(1 for f in res.findings if f.rule == "tmem_access" and f.verdict.status == "proved") == 2
    m = re.search(r"^#blocked = (#ttg\.blocked<\{.*\}>)$", text, re.M)
    assert m and "warpsPerCTA = [4, 1]" in m.group(1)
    load = next(ln for ln in text.splitlines() if "ttng.tmem_load" in ln)
    swapped = ("#swapped = #ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], "
               "lane = [[1, 0], [2, 0], [4, 0], [8, 0], [32, 0]], warp = [[16, 0], [0, 0]], block = []}>\n")
    mutant = swapped + text.replace(load, load.replace("-> tensor<64x64xf32, #blocked>", "-> tensor<64x64xf32, #swapped>"))
    res = _gate_text(tmp_path, "mutant.ttgir", mutant)
    bad = [f for f in res.findings if f.rule == "tmem_access" and f.verdict.status == "refuted"]
    assert bad and bad[0].op == "ttng.tmem_load"


# -- pass-by-pass: loop-carried values restructured by a pipeliner ---------------------------------------

PIPE_34 = VERSIONS / "3.4.0" / "attention-q64k64d64-hip_gfx942-w4.pipeline.dump.mlir"


def test_pipeliner_growing_a_loops_iter_args_is_not_a_data_change() -> None:
    """Triton 3.4's AMD stream pipeliner turns the attention loop's 3 results into 6 (prefetched tiles,
    a counter): the results of an scf.for are whatever its yields carry, not a computed tensor; they were
    refuted as "changed the tensor an op computes" (3 false refutations on the 3.4.0 dumps)."""
    res = gate_file(str(PIPE_34))
    assert not res.errors and res.modules == 2
    assert not [f for f in res.findings if f.verdict.status in ("refuted", "error")]
    passes = [f for f in res.findings if f.rule == "pass_preserves_data"]
    assert passes and passes[0].verdict.status == "proved"
    assert passes[0].verdict.certificate["values_compared"] > 20


def test_pipeliner_changing_the_loops_consumer_is_refuted(tmp_path) -> None:
    """Mutant: the division after the loop (one op on each side; the loop body's ops are duplicated into the
    pipeliner's prologue, so their key names more ops after than before and they are not compared) computes
    a 64x32 tensor after the pass: still refuted at that line."""
    text = PIPE_34.read_text()
    second = text.index("// -----// IR Dump Before Canonicalizer")
    after = text[second:]
    m = re.search(r"^\s*%\S+ = arith\.divf [^\n]*: tensor<64x64xf32, #mma1>", after, re.M)
    assert m, "no division after the loop"
    line = m.group(0)
    text = text[:second] + after.replace(line, line.replace("tensor<64x64xf32", "tensor<64x32xf32"), 1)
    res = _gate_text(tmp_path, "mutant.dump.mlir", text)
    hits = [f for f in res.findings if f.rule == "pass_preserves_data" and f.verdict.status == "refuted"]
    assert len(hits) == 1 and hits[0].op == "arith.divf"
    assert hits[0].location.line == text[:text.index(line.replace("tensor<64x64xf32", "tensor<64x32xf32"))].count("\n") + 1


# -- Triton 3.6: a buffer index captured by a warp_specialize partition ----------------------------------

WS_36 = VERSIONS / "3.6.0" / "ws_matmul-k-cuda_100-w4.ttgir"


def test_partition_capture_of_a_constant_buffer_index_is_proved() -> None:
    """3.6 passes the constant 0 into the partitions as an operand of ttg.warp_specialize; inside, the
    index of the 1-buffer TMEM accumulator and barrier is the partition's block argument, which was taken
    for an arbitrary input ("not enumerable", 2 unknowns).  It is now the operand it receives."""
    res = gate_file(str(WS_36))
    st = _statuses(res)
    assert not res.errors and st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0
    idx = [f for f in res.findings if f.rule == "buffer_index"]
    assert len(idx) > 10 and all(f.verdict.status == "proved" for f in idx)


def test_partition_capture_of_an_out_of_range_index_is_refuted(tmp_path) -> None:
    text = WS_36.read_text()
    head = next(ln for ln in text.splitlines() if ln.lstrip().startswith("ttg.warp_specialize("))
    assert head.count("%K, %c0_i32,") == 1
    res = _gate_text(tmp_path, "mutant.ttgir", text.replace(head, head.replace("%K, %c0_i32,", "%K, %c1_i32,")))
    bad = [f for f in res.findings if f.rule == "buffer_index" and f.verdict.status == "refuted"]
    assert [f.location.line for f in bad] == [107, 112]
    assert all(f.verdict.counterexample.inputs == {"index": 1} and f.op == "ttg.memdesc_index" for f in bad)


# -- Triton 3.4: memdesc_subview, constants with attributes, partitions that reuse value names ------------

WS_34 = VERSIONS / "3.4.0" / "ws_matmul-k-cuda_90-w4.ttgir"


def test_subview_offsets_are_proved_in_bounds() -> None:
    """3.4 has one ``ttg.memdesc_subview %buf[%i, %c0, %c0]`` where 3.5+ print memdesc_index/subslice: its
    offsets were not checked at all.  Its partitions print constants as ``arith.constant {async_task_id = ...}
    0 : i32`` (read now) and reuse value names (``%53``, ``%c0_i32_6`` in both partitions): each partition is
    its own scope."""
    text = WS_34.read_text()
    assert text.count("%c0_i32_6 = arith.constant {async_task_id") == 2
    res = gate_file(str(WS_34))
    sub = [f for f in res.findings if f.rule == "subview_in_bounds"]
    assert len(sub) > 40 and all(f.verdict.status == "proved" for f in sub)
    st = _statuses(res)
    assert st.get("refuted", 0) == 0 and st.get("unknown", 0) == 1  # the 3-barrier array 3xi64: no linear layout


def test_subview_offset_past_the_allocation_is_refuted(tmp_path) -> None:
    text = WS_34.read_text()
    line = next(ln for ln in text.splitlines()
                if "ttg.memdesc_subview %arg10[%61, %c0_i32_6, %c0_i32_6]" in ln and "3x64x64xf16" in ln)
    assert "%c64_i32_7 = arith.constant" in text
    res = _gate_text(tmp_path, "mutant.ttgir",
                     text.replace(line, line.replace("[%61, %c0_i32_6, %c0_i32_6]", "[%61, %c64_i32_7, %c0_i32_6]")))
    bad = [f for f in res.findings if f.rule == "subview_in_bounds" and f.verdict.status == "refuted"]
    assert len(bad) == 1 and bad[0].verdict.counterexample.inputs == {"index": 64}


PARTITIONS = """\
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k() attributes {noinline = false} {
    %bars = ttg.local_alloc : () -> !ttg.memdesc<2x1xi64, #shared, #smem, mutable>
    %c0_i32 = arith.constant 0 : i32
    ttg.warp_specialize(%bars, %c0_i32) attributes {requestedRegisters = array<i32: 24, 24>}
    default {
      ttg.warp_yield
    }
    partition0(%b: !ttg.memdesc<2x1xi64, #shared, #smem, mutable>, %z: i32) num_warps(1) {
      %i = arith.constant IDX0 : i32
      %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x1xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
      %w = ttg.memdesc_index %b[%z] : !ttg.memdesc<2x1xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
      ttg.warp_return
    }
    partition1(%b: !ttg.memdesc<2x1xi64, #shared, #smem, mutable>, %z: i32) num_warps(1) {
      %i = arith.constant IDX1 : i32
      %v = ttg.memdesc_index %b[%i] : !ttg.memdesc<2x1xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable>
      ttg.warp_return
    } : (!ttg.memdesc<2x1xi64, #shared, #smem, mutable>, i32) -> ()
    tt.return
  }
}
"""


@pytest.mark.parametrize("idx0,idx1,verdicts", [("1", "5", ["proved", "proved", "refuted"]),
                                                 ("5", "1", ["refuted", "proved", "proved"]),
                                                 ("0", "1", ["proved", "proved", "proved"])])
def test_partitions_reusing_a_name_are_separate_scopes(tmp_path, idx0, idx1, verdicts) -> None:
    """``%i`` is defined in both partitions; each use sees its own partition's definition (the function-wide
    table took the last one: partition 1's 5 refuted partition 0's index 1, or its 1 proved partition 0's 5).
    ``%z`` is the captured constant 0."""
    text = PARTITIONS.replace("IDX0", idx0).replace("IDX1", idx1)
    res = _gate_text(tmp_path, "p.ttgir", text)
    assert not res.errors
    got = [f.verdict.status for f in sorted((f for f in res.findings if f.rule == "buffer_index"),
                                            key=lambda f: f.location.line)]
    assert got == verdicts


# -- Triton 3.5: amd_mfma's elementType ------------------------------------------------------------------

def test_mfma_element_type_is_read() -> None:
    """3.5 prints an int32 accumulator's MFMA as ``elementType = i32`` (3.6+: ``elementBitWidth``, omitted at
    32): the batched int8 dot of examples/version_kernels.py had 136 unknowns ("expected a value")."""
    path = VERSIONS / "3.5.1" / "batched_i8_dot-k-hip_gfx942-w4.ttgir"
    assert "elementType = i32" in path.read_text()
    res = gate_file(str(path))
    st = _statuses(res)
    assert not res.errors and st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0
    assert any(f.rule == "dot_operands" and f.verdict.status == "proved" for f in res.findings)
    base = "tensor<64x64x{e}, #ttg.amd_mfma<{{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16], isTransposed = true, {f}}}>>"
    for e, old, new in (("i32", "elementType = i32", "elementBitWidth = 32"),
                        ("f64", "elementType = f64", "elementBitWidth = 64")):
        a = layout_of(parse_typeref(base.format(e=e, f=old), {}))
        b = layout_of(parse_typeref(base.format(e=e, f=new), {}))
        assert isinstance(a, BuiltLayout) and isinstance(b, BuiltLayout) and a.layout == b.layout
    assert layout_of(parse_typeref(base.format(e="f64", f="elementType = f64"), {})).layout != \
        layout_of(parse_typeref(base.format(e="f64", f="elementType = f32"), {})).layout
    bad = layout_of(parse_typeref(base.format(e="i32", f="elementType = foo"), {}))
    assert not isinstance(bad, BuiltLayout) and "expected a value" in bad.reason


# -- our kernels of other shapes (examples/version_kernels.py), 3.9 and 3.4 ------------------------------

@pytest.mark.parametrize("rel", ["3.9.0/splitk_matmul-k-cuda_90-w4.ttgir", "3.9.0/batched_i8_dot-k-cuda_100-w4.ttgir",
                                 "3.4.0/splitk_matmul-k-hip_gfx942-w4.ttgir"])
def test_version_kernels_are_proved(rel) -> None:
    """Split-K with atomics (wgmma on sm_90, MFMA on gfx942 in 3.4's spelling) and a batched int8 dot."""
    res = gate_file(str(VERSIONS / rel))
    st = _statuses(res)
    assert not res.errors and st.get("refuted", 0) == 0 and st.get("unknown", 0) == 0 and st["proved"] > 40
    ops = {f.op for f in res.findings}
    assert ("tt.atomic_rmw" in ops) == ("splitk" in rel)


# -- Triton 3.3: bare i1 constants used through a functional signature ----------------------------------

def test_bare_i1_constant_has_type_i1(tmp_path) -> None:
    """``%true = arith.constant true`` prints no type (an i1 literal); 3.3's ``ttng.tc_gen5_mma`` lists its
    i1 operands in a functional signature ``(..., i1, i1) -> ()``, and each use was unknown ("type not read:
    defined as '?'", 40 on the 3.3.1 sweep).  A use typed i32 is refuted."""
    path = VERSIONS / "3.3.1" / "matmul-t64s1-cuda_100-w4.ttgir"
    text = path.read_text()
    res = gate_file(str(path))
    st = _statuses(res)
    assert not res.errors and st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0
    mod = parse_module(text, str(path))
    consts = {op.results[0].name: op.results[0].type.text for _, op, _ in mod.walk()
              if op.name == "arith.constant" and op.results[0].name in ("%true", "%false")}
    assert consts and set(consts.values()) == {"i1"}
    line = next(ln for ln in text.splitlines() if "ttng.tc_gen5_mma" in ln)
    assert "mutable>, i1, i1)" in line
    res = _gate_text(tmp_path, "mutant.ttgir", text.replace(line, line.replace("mutable>, i1, i1)", "mutable>, i1, i32)")))
    bad = [f for f in res.findings if f.verdict.status == "refuted"]
    assert len(bad) == 1 and bad[0].rule == "use_type" and bad[0].op == "ttng.tc_gen5_mma"


_TRITON_2 = """#blocked = #triton_gpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #triton_gpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2]}>
module attributes {"triton_gpu.num-warps" = 4 : i32, "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func public @k(%a: tensor<32x32xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma%KA%}>>,
                    %b: tensor<32x32xf16, #triton_gpu.dot_op<{opIdx = 1, parent = #mma%KB%}>>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #mma>
    %d = tt.dot %a, %b, %cst {allowTF32 = true} : tensor<32x32xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #mma%KA%}>> * tensor<32x32xf16, #triton_gpu.dot_op<{opIdx = 1, parent = #mma%KB%}>> -> tensor<32x32xf32, #mma>
    tt.return
  }
}
"""


def test_triton_2_dot_operands_without_kwidth_are_unknown_not_refuted(tmp_path) -> None:
    # Triton 2.x printed no kWidth on MMA v2 dot operands: nothing to compare, so no refutation (a real bug
    # report's module from that era); a stated kWidth that differs between A and B is still refuted
    res = _gate_text(tmp_path, "t2.ttgir", _TRITON_2.replace("%KA%", "").replace("%KB%", ""))
    kw = [f.verdict for f in res.findings if f.verdict.subject.endswith("kWidth")]
    assert len(kw) == 2 and all(v.status == "unknown" and "no kWidth" in v.message for v in kw)
    assert not [f for f in res.findings if f.verdict.status == "refuted"]
    res = _gate_text(tmp_path, "t2b.ttgir", _TRITON_2.replace("%KA%", ", kWidth = 2").replace("%KB%", ", kWidth = 4"))
    assert any(f.verdict.status == "refuted" and "different kWidth" in f.verdict.message for f in res.findings)


# -- Triton 3.2: real output (the PyTorch 2.6 era), every layout in the old spelling ------------------------------------

V32 = VERSIONS / "3.2.0"


def test_triton_32_hopper_matmul_is_fully_decided(tmp_path: Path) -> None:
    """Triton 3.2.0's own cuda:90 matmul (examples/build_versions.py): `triton_gpu.*` ops, `!tt.memdesc`, the
    leading-offset `#triton_gpu.shared<{..., hasLeadingOffset = true}>` wgmma operands, `triton_nvidia_gpu.
    warp_group_dot`: every obligation decided and none refuted; stating 8 warps in the 4-warp module (the 3.2
    attribute spelling, `"triton_gpu.num-warps"`) refutes its layouts."""
    path = V32 / "matmul-t64s3-cuda_90-w4.ttgir"
    text = path.read_text()
    assert "hasLeadingOffset = true" in text and "triton_nvidia_gpu.warp_group_dot" in text
    st = _statuses(gate_file(str(path)))
    assert st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0 and st["proved"] > 60
    assert '"triton_gpu.num-warps" = 4' in text
    res = _gate_text(tmp_path, "w8.ttgir", text.replace('"triton_gpu.num-warps" = 4', '"triton_gpu.num-warps" = 8'))
    refuted = [f for f in res.findings if f.verdict.status == "refuted"]
    assert refuted and all(f.rule == "layout" and "the module runs 8" in f.verdict.message for f in refuted)


def test_triton_32_wgmma_register_operand_without_kwidth_is_unknown_not_refuted() -> None:
    """Triton 3.2 prints a wgmma register operand as `#triton_gpu.dot_op<{opIdx = 0, parent = #mma}>` (no
    kWidth): the layout its lowering implies is not modelled, so exactly those obligations are unknown, saying why,
    and the rest of the attention kernel is proved."""
    res = gate_file(str(V32 / "attention-q64k64d64-cuda_90-w4.ttgir"))
    st = _statuses(res)
    assert not res.errors and st.get("refuted", 0) == 0 and st["proved"] > 60
    unknown = [f for f in res.findings if f.verdict.status == "unknown"]
    assert unknown and all("states no kWidth" in f.verdict.message and "parent = #mma}>" in f.verdict.subject
                           for f in unknown)


def test_triton_32_mfma_matmul_is_decided_and_a_kwidth_mutant_refuted(tmp_path: Path) -> None:
    """Triton 3.2.0's gfx942 matmul (`#triton_gpu.amd_mfma<{versionMajor = 3, versionMinor = 0, ...,
    instrShape = [32, 32]}>`, dot operands of kWidth 4): decided, none refuted; B's operand layout with kWidth 8
    while A keeps 4 is refuted at the tt.dot."""
    path = V32 / "matmul-t64s1-hip_gfx942-w4.ttgir"
    text = path.read_text()
    st = _statuses(gate_file(str(path)))
    assert st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0 and st["proved"] > 40
    b_old = "#triton_gpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>"
    assert b_old in text
    res = _gate_text(tmp_path, "kw.ttgir", text.replace(b_old, b_old.replace("kWidth = 4", "kWidth = 8")))
    refuted = [f for f in res.findings if f.verdict.status == "refuted"]
    assert any(f.op == "tt.dot" and f.rule == "dot_operands" for f in refuted)


# -- Triton 3.0 / 3.1: wgmma is a tt.dot on shared operands (3.2 introduced triton_nvidia_gpu.warp_group_dot) -----------

V31 = VERSIONS / "3.1.0"


def test_triton_31_tt_dot_on_shared_operands_is_a_wgmma(tmp_path: Path) -> None:
    """Triton 3.1.0's cuda:90 matmul types its wgmma as `tt.dot %a, %b, %c : !tt.memdesc<...> * !tt.memdesc<...>
    -> tensor<..., #mma>` (v3): its shared operands must have an NVMMA (leading-offset) layout, as
    warp_group_dot's do.  It was refuted as a tt.dot whose operands are not #ttg.dot_op (43 false refutations over
    Triton 3.1's 233 modules of our kernels); now decided, and an operand in a plain swizzled layout is refuted."""
    path = V31 / "matmul-t64s1-cuda_90-w4.ttgir"
    text = path.read_text()
    assert "tt.dot %" in text and "!tt.memdesc<64x32xf16, #shared> * !tt.memdesc<32x64xf16, #shared1>" in text
    res = gate_file(str(path))
    st = _statuses(res)
    assert st.get("unknown", 0) == 0 and st.get("refuted", 0) == 0 and st["proved"] > 50
    assert any(f.op == "tt.dot" and f.rule == "dot_operands" and "NVMMA" not in f.verdict.message
               for f in res.findings if f.verdict.status == "proved")
    old = "#shared1 = #triton_gpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>"
    assert old in text
    res = _gate_text(tmp_path, "swz.ttgir", text.replace(old, old.replace("true", "false")))
    refuted = [f for f in res.findings if f.verdict.status == "refuted"]
    assert any(f.op == "tt.dot" and "NVMMA shared layout" in f.verdict.message for f in refuted)


def test_triton_31_attention_register_operand_with_another_warp_split_is_not_refuted() -> None:
    """Triton 3.1's 8-warp attention: the second wgmma's A is in registers as a dot operand of `#mma` (warps
    [8, 1]) while the accumulator is `#mma1` (warps [4, 2]); that form, like 3.2's warp_group_dot, is not a
    tt.dot "parent must be the result" mismatch.  Its kWidth-less operand is unknown (as in 3.2), nothing refuted."""
    res = gate_file(str(V31 / "attention-q64k64d64-cuda_90-w8.ttgir"))
    st = _statuses(res)
    assert not res.errors and st.get("refuted", 0) == 0 and st["proved"] > 60
    assert all("states no kWidth" in f.verdict.message for f in res.findings if f.verdict.status == "unknown")
