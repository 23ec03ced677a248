"""Lowered-code validation on Triton 3.9's real LLVM IR: the unmutated kernels validate, single mutations of
the address arithmetic are refuted with a thread id that an independent interpreter replays, and a
reconstructed instance of the duplicated-warp ldmatrix bug class (Triton PR #2198) is refuted."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.lowered.llir import parse_llir, type_bytes
from llverify.lowered.concrete import Concrete
from llverify.lowered.validate import validate, validate_texts
from llverify.ttgir.reader import parse_module

DATA = Path(__file__).resolve().parent / "data" / "lowered"
KERNELS = sorted(p.stem for p in DATA.glob("*.ttgir"))


def _load(stem: str) -> tuple[str, str, int]:
    meta = json.loads((DATA / f"{stem}.json").read_text())
    return (DATA / f"{stem}.ttgir").read_text(), (DATA / f"{stem}.llir").read_text(), int(meta["shared"] or 0)


def _run(stem: str, llir_text: str | None = None):
    ttgir, llir, shared = _load(stem)
    return validate_texts(ttgir, f"{stem}.ttgir", llir_text if llir_text is not None else llir, f"{stem}.llir", shared)


@pytest.mark.parametrize("stem", KERNELS)
def test_real_kernels_validate(stem: str) -> None:
    findings = _run(stem)
    assert findings
    statuses = {f.finding.verdict.status for f in findings}
    assert statuses <= {"proved", "unknown"}, [f.finding.verdict.message for f in findings
                                               if f.finding.verdict.status not in ("proved", "unknown")]
    for f in findings:
        # stored_values' unknowns have their own reasons (computed tensors, masked loads, strides: checked in
        # tests/test_lowered_stored_values.py)
        if f.finding.verdict.status == "unknown" and f.finding.verdict.property != "stored_values":
            # only loop-carried values, ldmatrix, gfx950's transposed LDS reads (ds_read_tr calls) and branches in
            # a conversion stay open
            msg = f.finding.verdict.message
            assert ("phi" in msg or "free variables" in msg or "kind ldmatrix" in msg or "kind call" in msg
                    or "control flow" in msg or "path condition" in msg), msg
    # every access is attributed to a TTGIR op (USE_IR_LOC=ttgir)
    assert all(f.finding.op != "unattributed" for f in findings)
    assert sum(f.finding.verdict.property == "in_bounds" and f.finding.verdict.status == "proved"
               for f in findings) >= 4


def test_accesses_are_all_found() -> None:
    for stem in KERNELS:
        text = (DATA / f"{stem}.llir").read_text()
        expected = sum(1 for line in text.splitlines()
                       if re.search(r"^\s*(%\S+ = )?(load|store) .*ptr addrspace\(3\) (%|@global_smem|getelementptr)", line)
                       or (re.search(r"\bcall\b.*ptr addrspace\(3\)", line)
                           and not re.search(r'asm[^"]*"[^"\[]*wait for regs', line)))  # a pass-through
        assert len([a for f in parse_llir(text).functions for a in f.accesses]) == expected, stem


def _mutate(text: str, old: str, new: str) -> tuple[str, int]:
    i = text.index(old)
    return text[:i] + new + text[i + len(old):], text[:i].count("\n") + 1


def _assert_replayed_out_of_bounds(stem: str, mutated: str) -> None:
    ttgir, _, shared = _load(stem)
    findings = validate(parse_module(ttgir, "m.ttgir"), parse_llir(mutated, "m.llir"), shared)
    bad = [f for f in findings if f.finding.verdict.status == "refuted" and f.finding.verdict.property == "in_bounds"]
    assert bad, "the mutant was not refuted"
    # independent replay: parse the mutated IR again, evaluate the access at the reported thread
    fn = parse_llir(mutated).functions[0]
    for f in bad[:4]:
        tid = f.finding.verdict.counterexample.inputs["tid"]
        access = next(a for a in fn.accesses if a.instr.line == f.lowered.line)
        addr = Concrete(fn, tid, {}).value(access.pointer, 32)
        assert addr is None or addr >= 1 << 31 or addr + max(1, access.bytes) > shared


@pytest.mark.parametrize("old,new", [
    ("%148 = shl nuw nsw i32 %147, 4,", "%148 = shl nuw nsw i32 %147, 12,"),   # one shift amount
    ("%147 = and i32 %5, 7,", "%147 = and i32 %5, 1023,"),                     # one mask
])
def test_mutated_shift_and_mask_are_refuted(old: str, new: str) -> None:
    stem = "gluon_convert_lane_swap_w4-64x64-cuda_90-w4"
    _, llir, _ = _load(stem)
    mutated, _ = _mutate(llir, old, new)
    _assert_replayed_out_of_bounds(stem, mutated)


def test_mutated_xor_constant_is_refuted() -> None:
    stem = "attention-q64k64d64-cuda_90-w4"
    _, llir, _ = _load(stem)
    mutated, _ = _mutate(llir, "%266 = xor i32 %242, 288,", "%266 = xor i32 %242, 1048864,")
    _assert_replayed_out_of_bounds(stem, mutated)


def test_mutated_gep_offset_is_refuted() -> None:
    stem = "gluon_convert_lane_swap_w4-64x64-cuda_90-w4"
    _, llir, _ = _load(stem)
    m = re.search(r"getelementptr inbounds (?:nuw )?i8, ptr addrspace\(3\) %\d+, i32 (\d+),", llir)
    assert m, "no constant getelementptr offset in the sample"
    mutated = llir[:m.start(1)] + str(int(m.group(1)) + (1 << 20)) + llir[m.end(1):]
    _assert_replayed_out_of_bounds(stem, mutated)


def test_array_element_gep_is_modelled_and_its_stride_matters() -> None:
    """Triton 3.9 indexes shared memory with ``getelementptr [4 x i8], ptr addrspace(3) @global_smem, i32 %i``
    (tl.cumsum + tl.sort): 4 bytes a step.  Proved as compiled; a 64-byte stride runs out of bounds."""
    stem = "cumsum_sort-m64n32-cuda_90-w4"
    findings = _run(stem)
    assert findings and all(f.finding.verdict.status == "proved" for f in findings)
    _, llir, _ = _load(stem)
    mutated = re.sub(r"getelementptr \[4 x i8\], ptr addrspace\(3\)", "getelementptr [64 x i8], ptr addrspace(3)", llir)
    assert mutated != llir
    _assert_replayed_out_of_bounds(stem, mutated)


# Triton PR #2198's class: with more warps than the tile needs, the duplicated warps computed ldmatrix row
# addresses past the end of the allocation.  Reconstructed: 4 warps, the warp id broadcast as Triton does
# (shfl.sync.idx of tid / 32), each warp's 2 KiB slab, but only 4 KiB allocated (two warps' worth).
PR2198 = """define ptx_kernel void @k() {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
  %2 = lshr i32 %1, 5, !dbg !5
  %3 = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %2, i32 0, i32 31), !dbg !5
  %4 = and i32 %1, 31, !dbg !5
  %5 = shl nuw nsw i32 %4, 4, !dbg !5
  %6 = shl nuw nsw i32 %3, 11, !dbg !5
  %7 = or disjoint i32 %6, %5, !dbg !5
  %8 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %7, !dbg !5
  %9 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %8), !dbg !5
  ret void
}
!5 = !DILocation(line: 4, column: 5, scope: !4)
"""
PR2198_TTGIR = """#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%m: !ttg.memdesc<64x64xf16, #shared, #smem>) {
    %0 = ttg.local_load %m : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 2}>>
    tt.return
  }
}
"""


def test_pr2198_duplicated_warps_out_of_bounds() -> None:
    findings = validate(parse_module(PR2198_TTGIR, "k.ttgir"), parse_llir(PR2198, "k.llir"), 4096)
    (f,) = [f for f in findings if f.finding.verdict.property == "in_bounds"]
    v = f.finding.verdict
    assert v.status == "refuted" and v.counterexample.inputs["tid"] >= 64   # a thread of warp 2 or 3
    fn = parse_llir(PR2198).functions[0]
    assert Concrete(fn, v.counterexample.inputs["tid"], {}).value("%8", 32) + 16 > 4096
    # with the allocation the duplicated warps really need, it proves
    ok = validate(parse_module(PR2198_TTGIR, "k.ttgir"), parse_llir(PR2198, "k.llir"), 8192)
    assert [x.finding.verdict.status for x in ok if x.finding.verdict.property == "in_bounds"] == ["proved"]


def test_semantics_poison_and_types() -> None:
    assert type_bytes("<4 x i32>") == 16 and type_bytes("half") == 2 and type_bytes("<8 x i16>") == 16
    text = """define void @k() {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
  %2 = shl nuw i32 %1, 30, !dbg !5
  %3 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %2, !dbg !5
  store i32 0, ptr addrspace(3) %3, align 4, !dbg !5
}
!5 = !DILocation(line: 1, column: 1, scope: !4)
"""
    fn = parse_llir(text).functions[0]
    assert Concrete(fn, 3, {}).value("%2", 32) == 3 << 30
    assert Concrete(fn, 4, {}).value("%2", 32) is None  # nuw overflow: poison
    mod = "module attributes {\"ttg.num-warps\" = 1 : i32, ttg.target = \"cuda:90\"} {\n}\n"
    (f,) = [f for f in validate(parse_module(mod, "m"), parse_llir(text), 1 << 20)
            if f.finding.verdict.property == "in_bounds"]
    assert f.finding.verdict.status == "refuted"


def test_cli(tmp_path) -> None:
    stem = "gluon_convert_lane_swap_w4-64x64-cuda_90-w4"
    args = [sys.executable, "-m", "llverify.cli", "lowered", str(DATA / f"{stem}.ttgir"), str(DATA / f"{stem}.llir")]
    res = subprocess.run(args + ["--format", "json"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["results"] and all("lowered" in r and "location" in r for r in doc["results"])
    bad = tmp_path / "bad.llir"
    bad.write_text((DATA / f"{stem}.llir").read_text().replace("%147 = and i32 %5, 7,", "%147 = and i32 %5, 1023,"))
    res = subprocess.run(args[:-1] + [str(bad), "--shared", "16384"], capture_output=True, text=True)
    assert res.returncode == 1 and "in_bounds" in res.stdout
    res = subprocess.run(args[:-1] + [str(tmp_path / "missing.llir")], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr


# -- the right elements (llverify.lowered.elements) --------------------------------------------------------

def _right_elements(findings) -> list:
    return [f for f in findings if f.finding.verdict.property == "right_elements"]


def test_right_elements_proved_on_the_samples() -> None:
    proved = [f for stem in KERNELS for f in _right_elements(_run(stem)) if f.finding.verdict.status == "proved"]
    assert len(proved) >= 15
    ops = {f.finding.op for f in proved}
    assert {"ttg.local_alloc", "ttg.local_load", "ttg.local_store"} & ops


def test_an_in_bounds_swizzle_mutant_is_caught_only_by_right_elements() -> None:
    """One XOR constant of the swizzle changed (288 -> 304): every address stays in bounds and the wavefronts
    do not change, but elements land at other registers' addresses."""
    stem = "attention-q64k64d64-cuda_90-w4"
    ttgir, llir, shared = _load(stem)
    mutated, _ = _mutate(llir, "%266 = xor i32 %242, 288,", "%266 = xor i32 %242, 304,")
    findings = validate(parse_module(ttgir, "m.ttgir"), parse_llir(mutated, "m.llir"), shared)
    assert not [f for f in findings if f.finding.verdict.status == "refuted" and
                f.finding.verdict.property != "right_elements"]
    bad = [f for f in _right_elements(findings) if f.finding.verdict.status == "refuted"]
    assert bad
    cx = bad[0].finding.verdict.counterexample
    # independent replay: the mutated address at that thread is not where S^-1 R puts the register
    fn = parse_llir(mutated).functions[0]
    line = int(cx.sides["instruction"].split()[-1])
    access = next(a for a in fn.accesses if a.instr.line == line)
    assert Concrete(fn, cx.inputs["tid"], {}).value(access.pointer, 32) == cx.sides["address"]
    assert cx.sides["address"] != cx.sides["expected (S^-1 R)"]
    assert all(f.finding.verdict.status == "proved" for f in _right_elements(_run(stem)))


def test_a_store_to_another_stores_address_leaves_registers_unwritten() -> None:
    stem = "gluon_padded-permuted-cuda_90-w4"
    ttgir, llir, shared = _load(stem)
    mutated, _ = _mutate(llir, "store <4 x i32> %156, ptr addrspace(3) %140,", "store <4 x i32> %156, ptr addrspace(3) %123,")
    findings = _right_elements(validate(parse_module(ttgir, "m.ttgir"), parse_llir(mutated, "m.llir"), shared))
    bad = [f for f in findings if f.finding.verdict.status == "refuted"]
    assert bad and "never written" in bad[0].finding.verdict.message


# LLVM's SLP vectoriser packs address arithmetic into integer vectors (seen in the attention sample): the
# lanes are modelled; Z3 and the interpreter must agree lane for lane, and the hand value is checked.
VECTOR_ADDR = """define void @k() {
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
  %2 = insertelement <4 x i32> poison, i32 %1, i64 0, !dbg !5
  %3 = shufflevector <4 x i32> %2, <4 x i32> poison, <4 x i32> zeroinitializer, !dbg !5
  %4 = shl nuw nsw <4 x i32> %3, <i32 8, i32 5, i32 2, i32 0>, !dbg !5
  %5 = and <4 x i32> %4, <i32 7168, i32 96, i32 384, i32 28>, !dbg !5
  %6 = tail call i32 @llvm.vector.reduce.or.v4i32(<4 x i32> %5), !dbg !5
  %7 = extractelement <4 x i32> %5, i64 2, !dbg !5
  %8 = xor i32 %6, %7, !dbg !5
  %9 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %8, !dbg !5
  store i32 0, ptr addrspace(3) %9, align 4, !dbg !5
}
!5 = !DILocation(line: 1, column: 1, scope: !4)
"""


def test_vector_lanes_agree_between_z3_and_the_interpreter() -> None:
    import z3

    from llverify.lowered.symbolic import Symbolic

    fn = parse_llir(VECTOR_ADDR).functions[0]
    sym = Symbolic(fn, 128)
    term = sym.value("%8", 32)
    assert not term.free
    for t in range(128):
        want = (((t << 8) & 7168) | ((t << 5) & 96) | ((t << 2) & 384) | (t & 28)) ^ ((t << 2) & 384)
        assert Concrete(fn, t, {}).value("%8", 32) == want
        assert z3.simplify(z3.substitute(term.term, (sym.tid, z3.BitVecVal(t, 32)))).as_long() == want


def test_attention_sample_has_no_unknown_after_vector_lanes() -> None:
    findings = _run("attention-q64k64d64-cuda_90-w4")
    # stored_values of the K and V tiles (in the loop) stay open: tests/test_lowered_stored_values.py
    assert findings and all(f.finding.verdict.status == "proved" for f in findings
                            if f.finding.verdict.property != "stored_values")


def test_amd_rotating_shared_matches_tritons_own_address_code() -> None:
    """The wheel has no Python path to amd_rotating_shared's linear layout; Triton's gfx942 lowering is the
    oracle instead: every local_alloc / local_load through a rotating buffer moves each thread's registers to
    the addresses llverify's model gives (right_elements), for every parameter set in the samples."""
    seen: set[str] = set()
    proved = 0
    for stem in KERNELS:
        ttgir, _, _ = _load(stem)
        rotating = {line.split(" = ", 1)[0].lstrip("#"): line.split(" = ", 1)[1]
                    for line in ttgir.splitlines() if "amd_rotating_shared" in line and line.startswith("#")}
        if not rotating:
            continue
        ops = {op.location.line: op for op in _ops_with_encoding(ttgir, set(rotating))}
        for f in _right_elements(_run(stem)):
            if f.finding.location.line in ops:
                assert f.finding.verdict.status == "proved", (stem, f.finding.verdict.message)
                proved += 1
                seen.update(rotating.values())
    assert proved >= 6 and len(seen) >= 2


def _ops_with_encoding(ttgir: str, aliases: set[str]) -> list:
    m = parse_module(ttgir, "k.ttgir")
    out = []
    for _, op, _ in m.walk():
        if op.name in ("ttg.local_alloc", "ttg.local_load", "ttg.local_store"):
            types = [t for t in (*op.operand_types, *(r.type for r in op.results)) if t is not None]
            if any(t.kind == "memdesc" and (t.encoding_text or "").lstrip("#") in aliases for t in types):
                out.append(op)
    return out


def test_a_rotating_buffer_read_as_a_plain_swizzle_is_refuted() -> None:
    """Mutant: the TTGIR claims the plain swizzle with the same parameters; the real (rotating) addresses no
    longer match: right_elements refutes it."""
    stem = "matmul-t64s1-hip_gfx942-w4"
    ttgir, llir, shared = _load(stem)
    mutant = ttgir.replace("#ttg.amd_rotating_shared<", "#ttg.swizzled_shared<")
    assert mutant != ttgir
    found = _right_elements(validate(parse_module(mutant, "m.ttgir"), parse_llir(llir, "m.llir"), shared))
    assert any(f.finding.verdict.status == "refuted" for f in found)


def test_ldmatrix_elements_follow_ptx_semantics() -> None:
    """ldmatrix (.x4 and .x4.trans) of the sm_80 matmul: a lane's elements sit at other lanes' row addresses
    (PTX); every operand load proves right_elements.  Mutant: one .trans dropped (the same addresses, so in
    bounds and wavefronts do not change): the elements land in the wrong registers, refuted."""
    stem = "matmul-t64s1-cuda_80-w4"
    found = [f for f in _right_elements(_run(stem)) if f.finding.op == "ttg.local_load"]
    assert len(found) == 2 and all(f.finding.verdict.status == "proved" for f in found)
    ttgir, llir, shared = _load(stem)
    mutated = llir.replace("ldmatrix.sync.aligned.m8n8.x4.trans.b16", "ldmatrix.sync.aligned.m8n8.x4.b16", 1)
    assert mutated != llir
    findings = validate(parse_module(ttgir, "m.ttgir"), parse_llir(mutated, "m.llir"), shared)
    assert not [f for f in findings if f.finding.verdict.status == "refuted"
                and f.finding.verdict.property != "right_elements"]
    bad = [f for f in _right_elements(findings) if f.finding.verdict.status == "refuted"]
    assert len(bad) == 1 and bad[0].finding.op == "ttg.local_load"
    assert "matrix" in bad[0].finding.verdict.message


PHI_JOIN = """define void @k(i1 %c) {
entry:
  %1 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !5
  br i1 %c, label %a, label %b
a:
  %2 = shl nuw nsw i32 %1, 2, !dbg !5
  br label %j
b:
  %3 = shl nuw nsw i32 %1, SHIFT, !dbg !5
  br label %j
j:
  %4 = phi i32 [ %2, %a ], [ %3, %b ], !dbg !5
  %5 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i32 %4, !dbg !5
  store i32 0, ptr addrspace(3) %5, align 4, !dbg !5
  br label %l
l:
  %6 = phi i32 [ 0, %j ], [ %7, %l ], !dbg !5
  %7 = add i32 %6, 1, !dbg !5
  br label %l
}
!5 = !DILocation(line: 1, column: 1, scope: !4)
"""


def test_a_join_phi_is_either_incoming_value() -> None:
    """A phi joining two thread-only addresses (GVN's PRE leaves these in Triton's gfx942 code) is one of its
    incomings, whichever predecessor ran: proved when both are in bounds, unknown (not refuted: that path may
    never run) when one is not.  A loop phi stays a free variable (no endless recursion)."""
    mod = "module attributes {\"ttg.num-warps\" = 4 : i32, ttg.target = \"cuda:90\"} {\n}\n"

    def in_bounds(shift: int) -> str:
        text = PHI_JOIN.replace("SHIFT", str(shift))
        (f,) = [f for f in validate(parse_module(mod, "m"), parse_llir(text), 512)
                if f.finding.verdict.property == "in_bounds"]
        return f.finding.verdict.status

    assert in_bounds(2) == "proved"
    assert in_bounds(4) == "unknown"
    fn = parse_llir(PHI_JOIN.replace("SHIFT", "2")).functions[0]
    assert Concrete(fn, 5, {"%4.choice:1": 1}).value("%4", 32) == 20
    assert Concrete(fn, 5, {}).value("%6", 32) is None  # loop-carried: unknown without a value
