"""Chains of ttg.convert_layout composed across a pass (``conversion_chain``): a two-step chain folded into
one direct conversion proves; a chain whose second step reads its operand through another layout is refuted
at that conversion with a replayed witness; a use fed from another value is unknown, never proved."""

from __future__ import annotations

import sys
from pathlib import Path

from llverify.ttgir.chains import compose_chain, uses
from llverify.ttgir.gate import gate_file
from llverify.ttgir.reader import parse_module

HEAD = """#A = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#B = #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#C = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32> loc("k.py":1:0), %q: !tt.ptr<f32> loc("k.py":1:0)) attributes {noinline = false} {
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #A> loc("k.py":2:4)
    %x = tt.load %ps : tensor<32x32x!tt.ptr<f32>, #A> loc("k.py":3:4)
    %x2 = tt.load %ps : tensor<32x32x!tt.ptr<f32>, #A> loc("k.py":4:4)
"""
TAIL = """    %qs = tt.splat %q : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #C> loc("k.py":6:4)
    tt.store %qs, %z : tensor<32x32x!tt.ptr<f32>, #C> loc("k.py":7:4)
    tt.store %qs, %x2c : tensor<32x32x!tt.ptr<f32>, #C> loc("k.py":8:4)
    tt.return loc("k.py":9:4)
  } loc("k.py":1:0)
} loc("k.py":1:0)
"""
SIDE = '    %x2c = ttg.convert_layout %x2 : tensor<32x32xf32, #A> -> tensor<32x32xf32, #C> loc("k.py":8:9)\n'
CHAIN = ('    %y = ttg.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #B> loc("k.py":5:8)\n'
         '    %z = ttg.convert_layout %y : tensor<32x32xf32, #B> -> tensor<32x32xf32, #C> loc("k.py":5:9)\n')
DIRECT = '    %z = ttg.convert_layout %x : tensor<32x32xf32, #A> -> tensor<32x32xf32, #C> loc("k.py":5:9)\n'


def _dump(tmp_path: Path, first: str, second: str) -> Path:
    text = ("// -----// IR Dump Before TritonGPURemoveLayoutConversions: tritongpu-remove-layout-conversions "
            "('builtin.module' operation) //----- //\n" + HEAD + first + SIDE + TAIL +
            "\n// -----// IR Dump Before TritonGPUOptimizeDotOperands: tritongpu-optimize-dot-operands "
            "('builtin.module' operation) //----- //\n" + HEAD + second + SIDE + TAIL)
    path = tmp_path / "chain.mlir"
    path.write_text(text)
    return path


def _chain_findings(path: Path) -> list:
    res = gate_file(str(path))
    assert not res.errors and res.modules == 2
    return [f for f in res.findings if f.rule == "conversion_chain"]


def test_a_chain_folded_into_a_direct_conversion_composes(tmp_path) -> None:
    found = _chain_findings(_dump(tmp_path, CHAIN, DIRECT))
    assert [f.verdict.status for f in found] == ["proved"]
    v = found[0].verdict
    assert v.certificate == {"chains_composed": 2, "uses_matched": 1}
    assert v.details["chains_shortened"] == 1


def test_a_conversion_removed_by_rematerialising_the_producer_composes(tmp_path) -> None:
    """RemoveLayoutConversions' other move: the load is recomputed in the converted layout (its pointers
    too) and the conversion disappears; the store is fed from the same load (by location) in a new layout."""
    remat = ('    %psC = tt.splat %p : !tt.ptr<f32> -> tensor<32x32x!tt.ptr<f32>, #C> loc("k.py":2:4)\n'
             '    %z = tt.load %psC : tensor<32x32x!tt.ptr<f32>, #C> loc("k.py":3:4)\n')
    found = _chain_findings(_dump(tmp_path, DIRECT, remat))
    assert [f.verdict.status for f in found] == ["proved"]
    assert found[0].verdict.certificate == {"chains_composed": 1, "uses_matched": 1}
    assert found[0].verdict.details["roots_rematerialised"] == 1 and found[0].verdict.details["chains_shortened"] == 1


def test_the_composed_map_is_the_roots_layout() -> None:
    m = parse_module(HEAD + CHAIN + SIDE + TAIL, "k.ttgir")
    (use,) = [u for u in uses(m.functions[0]) if u.op.location.line == 13]
    assert len(use.chain.steps) == 2 and use.chain.root == "k.py:3:4#0"
    assert compose_chain(use.chain).status == "proved"


def test_a_chain_that_reads_through_another_layout_is_refuted_at_that_conversion(tmp_path) -> None:
    bad = CHAIN.replace("%y : tensor<32x32xf32, #B>", "%y : tensor<32x32xf32, #A>")
    path = _dump(tmp_path, bad, DIRECT)
    found = _chain_findings(path)
    refuted = [f for f in found if f.verdict.status == "refuted"]
    assert refuted, [(f.verdict.status, f.verdict.message) for f in found]
    line = path.read_text().splitlines().index(bad.splitlines()[1]) + 1
    assert {f.location.line for f in refuted} == {line}
    assert all(f.op == "ttg.convert_layout" and f.stage == "TritonGPURemoveLayoutConversions" for f in refuted)
    ce = refuted[0].verdict.counterexample
    assert ce is not None and set(ce.inputs) >= {"register", "lane", "warp"}
    # the witness replays: the composed map and the root's layout differ at that hardware position
    m = parse_module(HEAD + bad + SIDE + TAIL, "k.ttgir")
    (use,) = [u for u in uses(m.functions[0]) if u.op.location.line == 13]
    assert compose_chain(use.chain).status == "refuted"


def test_a_use_fed_from_another_value_is_unknown_not_proved(tmp_path) -> None:
    rewired = DIRECT.replace("%x :", "%x2 :")
    path = _dump(tmp_path, CHAIN, rewired)
    found = _chain_findings(path)
    store = [i + 1 for i, t in enumerate(path.read_text().splitlines()) if "tt.store %qs, %z" in t][1]
    unknown = [f for f in found if f.verdict.status == "unknown"]
    assert len(unknown) == 1 and "k.py:4:4#0" in unknown[0].verdict.message
    assert unknown[0].op == "tt.store" and unknown[0].location.line == store  # in the second snapshot
    summary = [f for f in found if f.verdict.status == "proved"]
    assert all(f.verdict.certificate["uses_matched"] == 0 for f in summary)  # the chains compose; no use matched


def test_a_use_moved_to_a_sibling_at_the_same_location_is_unknown(tmp_path, monkeypatch) -> None:
    """Two loads printed at one source location: a use moved from one to the other is not matched by the
    location alone (loads are not pure: memory may change between them)."""
    monkeypatch.setattr(sys.modules[__name__], "HEAD", HEAD.replace('loc("k.py":4:4)', 'loc("k.py":3:4)'))
    found = _chain_findings(_dump(tmp_path, CHAIN, DIRECT.replace("%x :", "%x2 :")))
    assert [f.verdict.status for f in found if f.op == "tt.store"] == ["unknown"]


def test_unchanged_snapshots_have_no_chain_finding(tmp_path) -> None:
    assert _chain_findings(_dump(tmp_path, CHAIN, CHAIN)) == []


# -- names reused in sibling regions (the hunt15 branchy kernel: `%s` in both branches of an scf.if) -----------------

BRANCHES = """#A = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#C = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #A> loc("k.py":1:0), %c: i1 loc("k.py":1:0)) -> tensor<32xf32, #C> {
    %r = scf.if %c -> (tensor<32xf32, #C>) {
      %s = arith.addf %x, %x : tensor<32x32xf32, #A> loc("k.py":3:8)
      %t = "tt.reduce"(%s) <{axis = 1 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.addf %a, %b : f32
        tt.reduce.return %m : f32
      }) : (tensor<32x32xf32, #A>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #A}>> loc("k.py":4:8)
      %u = ttg.convert_layout %t : tensor<32xf32, #ttg.slice<{dim = 1, parent = #A}>> -> tensor<32xf32, #C> loc("k.py":5:8)
      %w = arith.addf %u, %u : tensor<32xf32, #C> loc("k.py":5:12)
      scf.yield %w : tensor<32xf32, #C> loc("k.py":5:8)
    } else {
      %s = "tt.reduce"(%x) <{axis = 1 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %m = arith.maxnumf %a, %b : f32
        tt.reduce.return %m : f32
      }) : (tensor<32x32xf32, #A>) -> tensor<32xf32, #ttg.slice<{dim = 1, parent = #A}>> loc("k.py":7:8)
      %v = ttg.convert_layout %s : tensor<32xf32, #ttg.slice<{dim = 1, parent = #A}>> -> tensor<32xf32, #C> loc("k.py":8:8)
      %w = arith.addf %v, %v : tensor<32xf32, #C> loc("k.py":8:12)
      scf.yield %w : tensor<32xf32, #C> loc("k.py":8:8)
    } loc("k.py":2:4)
    tt.return %r : tensor<32xf32, #C> loc("k.py":9:4)
  } loc("k.py":1:0)
} loc("k.py":1:0)
"""


def test_a_name_reused_in_sibling_regions_resolves_to_its_own_branch() -> None:
    """Each branch's conversion reads its own branch's ``%s``: the chain's root type is the 1-D reduce result in
    the else branch (the 32x32 ``%s`` of the then branch is not visible there).  Resolving names function-wide
    took the other branch's definition and refuted the chain ('reads its operand with ... sizes that are not
    those of the value it is given') on every snapshot of a real dump."""
    fn = parse_module(BRANCHES, "m.ttgir").functions[0]
    found = [u for u in uses(fn) if u.op.name == "arith.addf"]
    assert len(found) == 4  # two operands in each branch
    for u in found:
        assert u.chain.root_type is not None and tuple(u.chain.root_type.shape) == (32,)
        assert u.chain.root_op is not None and u.chain.root_op.name == "tt.reduce"


def test_the_branches_dump_has_no_chain_refutation(tmp_path: Path) -> None:
    head = "// -----// IR Dump Before {p}: x ('builtin.module' operation) //----- //\n"
    path = tmp_path / "branches.dump"
    path.write_text(head.format(p="TritonGPURemoveLayoutConversions") + BRANCHES + "\n" +
                    head.format(p="TritonGPUOptimizeDotOperands") + BRANCHES)
    result = gate_file(str(path))
    assert not result.errors
    refuted = [f for f in result.findings if f.verdict.status == "refuted"]
    assert not refuted, [f.verdict.message for f in refuted]
