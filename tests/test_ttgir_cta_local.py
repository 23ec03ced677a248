"""``cta_local``: in a cluster each CTA touches only its own shared memory (stores, loads, wgmma operands).

Real inputs: Triton 3.9's TTGIR of two hunt15 kernels compiled with ``num_ctas = 2`` for sm_90 and sm_100
(``tests/data/ttgir_cta``, examples/hunt15/kernels.py).  Their layouts are compared with Triton's own
``to_linear_layout`` at 2 CTAs; every ``cta_local`` verdict on them is proved.  Mutants, each one attribute edited:
the B buffer kept whole by every CTA under a tensor split over the CTAs (Triton 3.9 still compiles it, and each
CTA's copy is half unwritten) and the wgmma accumulator split along M while B is split along N (Triton 3.9 fails
to lower it); both refuted with a replayed witness.  The prover is checked against a brute-force count of each
CTA's elements on random layouts.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.layout import LinearLayout
from llverify.prove.cta_locality import cta_local
from llverify.ttgir.gate import check_module
from llverify.ttgir.layouts import layout_of
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rule_support import clear_caches
from llverify.ttgir.rules_cta import mma_operand_needs

DATA = Path(__file__).parent / "data"
CLUSTER = sorted((DATA / "ttgir_cta").glob("*.ttgir"))
SM90 = DATA / "ttgir_cta" / "cluster_mm-b128x128x64-cuda_90-w4.ttgir"


def _cta(text: str, name: str = "m.ttgir"):
    clear_caches()
    return [f for f in check_module(parse_module(text, name)) if f.verdict.property == "cta_local"]


# -- the real modules ------------------------------------------------------------------------------------------------

def test_the_cluster_modules_are_two_cta_compiles_for_sm90_and_sm100() -> None:
    assert len(CLUSTER) == 4
    for p in CLUSTER:
        m = parse_module(p.read_text(), str(p))
        assert m.num_ctas == 2 and m.target in ("cuda:90", "cuda:100")


@pytest.mark.parametrize("path", CLUSTER, ids=lambda p: p.stem)
def test_every_cta_claim_of_a_real_cluster_module_is_proved(path: Path) -> None:
    found = _cta(path.read_text(), str(path))
    assert found, "a two-CTA module with shared-memory accesses has cta_local findings"
    assert all(f.verdict.status == "proved" for f in found), [f.verdict.message for f in found]
    assert {f.op for f in found} <= {"ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttng.warp_group_dot"}


def test_a_single_cta_module_has_no_cta_finding() -> None:
    one = SM90.read_text().replace('"ttg.num-ctas" = 2', '"ttg.num-ctas" = 1')
    one = re.sub(r", CGALayout = \[\[[01], [01]\]\]|, CGALayout = \[\[[01]\]\]", "", one)
    assert _cta(one) == []


def test_two_cta_layouts_equal_triton_to_linear_layout() -> None:
    """Every tensor / memdesc layout of the cluster modules, as llverify builds it, is Triton 3.9's
    ``to_linear_layout`` of the same type at 2 CTAs (the ``block`` bases included)."""
    oracle = pytest.importorskip("oracle_triton")
    if not oracle.available():
        pytest.skip("triton is not installed")
    compared, _, split = oracle.layouts_against_triton(CLUSTER)
    assert compared >= 20 and split >= 5  # layouts split over the CTAs among them, not only broadcast ones


# -- mutants of the real sm_90 module --------------------------------------------------------------------------------

def _alias_line(text: str, alias: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"#{alias} = "))


def test_a_tensor_split_over_ctas_stored_into_a_buffer_every_cta_keeps_whole_is_refuted() -> None:
    text = SM90.read_text()
    line = _alias_line(text, "shared1")
    assert "CGALayout = [[0, 1]]" in line
    mutant = text.replace(line, line.replace("CGALayout = [[0, 1]]", "CGALayout = [[0, 0]]"))
    found = _cta(mutant)
    bad = [f for f in found if f.verdict.status == "refuted"]
    assert len(bad) == 1 and bad[0].op == "ttg.local_alloc" and "store" in bad[0].verdict.subject
    cx = bad[0].verdict.counterexample
    assert cx is not None and cx.sides["held by CTA"] is False
    # replay by hand: the element the witness names is in CTA cx.inputs["cta"]'s buffer copy and in none of that
    # CTA's registers (the stored tensor is the local_alloc's operand)
    m = parse_module(mutant, "m.ttgir")
    op = next(o for _, o, _ in m.walk() if o.location.line == bad[0].location.line)
    R, M = layout_of(op.operand_types[0]).layout, layout_of(op.results[0].type).layout
    cta, elem = cx.inputs["cta"], cx.sides["need(x)"]
    held = {tuple(R.apply(register=r, lane=l, warp=w, block=cta).values())
            for r in range(R.in_dim_size("register")) for l in range(32) for w in range(4)}
    kept = {tuple(M.apply(offset=o, block=cta).values()) for o in range(M.in_dim_size("offset"))}
    assert tuple(elem.values()) in kept - held
    assert all(f.verdict.status == "proved" for f in _cta(text))
    # on an H200 (tests/data/ttgir_cta/partial_copy/h200_run.json) the real kernel computes a @ b and the mutant
    # gets CTA 1's columns 64..127 wrong: its copy of B is half unwritten and its wgmma reads all of it
    run = json.loads((DATA / "ttgir_cta" / "partial_copy" / "h200_run.json").read_text())["cluster_mm"]
    assert all(r["bad_elements"] == 0 for r in run["real"])
    assert all(r["bad_elements"] > 0 and r["bad_columns"] == [64, 127] for r in run["b_whole"])


def test_an_accumulator_split_along_m_with_b_split_along_n_is_refuted() -> None:
    text = SM90.read_text()
    line = _alias_line(text, "mma")
    mutant = text.replace(line, line.replace("CGALayout = [[0, 1]]", "CGALayout = [[1, 0]]"))
    bad = [f for f in _cta(mutant) if f.verdict.status == "refuted"]
    assert [f.op for f in bad] == ["ttng.warp_group_dot"] and "operand B" in bad[0].verdict.subject


def _load_module(reg_split: str, buf_split: str, target: str = "hip:gfx1250") -> str:
    return f'''#b = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = {reg_split}}}>
#s = #ttg.swizzled_shared<{{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = {buf_split}}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%buf: !ttg.memdesc<64x32xf16, #s, #smem>, %out: tensor<64x32x!tt.ptr<f16>, #b>) {{
    %v = ttg.local_load %buf : !ttg.memdesc<64x32xf16, #s, #smem> -> tensor<64x32xf16, #b>
    tt.store %out, %v : tensor<64x32x!tt.ptr<f16>, #b>
    tt.return
  }}
}}
'''


def test_a_load_of_a_split_buffer_into_a_layout_every_cta_holds_whole_is_refuted_on_amd() -> None:
    assert [f.verdict.status for f in _cta(_load_module("[[1, 0]]", "[[1, 0]]"))] == ["proved"]
    assert [f.verdict.status for f in _cta(_load_module("[[1, 0]]", "[[0, 0]]"))] == ["proved"]  # each CTA has all
    bad = _cta(_load_module("[[0, 0]]", "[[1, 0]]"))
    assert [f.verdict.status for f in bad] == ["refuted"]
    assert "load" in bad[0].verdict.subject


def test_the_same_load_on_nvidia_goes_through_distributed_shared_memory(tmp_path: Path) -> None:
    """Triton 3.9 lowers the load that needs the other CTA's copy, on sm_90, with mapa / ld.shared::cluster (compiled
    here): cta_local is unknown there (valid IR, cost not modelled), and so are its bank wavefronts; the CTA-local
    load compiles without any cluster access and keeps its proved wavefronts."""

    crossing, local = _load_module("[[0, 0]]", "[[1, 0]]", "cuda:90"), _load_module("[[1, 0]]", "[[1, 0]]", "cuda:90")
    clear_caches()
    found = [f for f in check_module(parse_module(crossing, "m.ttgir")) if f.op == "ttg.local_load"]
    by = {f.verdict.property: f.verdict for f in found}
    assert by["cta_local"].status == "unknown" and "distributed shared memory" in by["cta_local"].message
    assert by["bank_conflicts"].status == "unknown" and "other CTAs" in by["bank_conflicts"].message
    clear_caches()
    found = [f for f in check_module(parse_module(local, "m.ttgir")) if f.op == "ttg.local_load"]
    statuses = {f.verdict.property: f.verdict.status for f in found}
    assert statuses["cta_local"] == statuses["bank_conflicts"] == "proved"
    got = _compiled_on_sm90(tmp_path, crossing=crossing, local=local)
    assert got["crossing"]["mapa"] is True and got["local"]["mapa"] is False


# -- the prover against brute force --------------------------------------------------------------------------------

def _by_cta(L: LinearLayout) -> list[set[tuple[int, ...]]]:
    local = [d for d in L.in_dim_names if d != "block"]
    out = []
    for b in range(L.in_dim_size("block")):
        seen = set()
        total = 1
        for d in local:
            total *= L.in_dim_size(d)
        for k in range(total):
            p, rest = {"block": b}, k
            for d in local:
                p[d] = rest % L.in_dim_size(d)
                rest //= L.in_dim_size(d)
            seen.add(tuple(L.apply(p).values()))
        out.append(seen)
    return out


def _random_layout(rng: random.Random, local: str, nloc: int) -> LinearLayout:
    vec = lambda: (rng.randrange(8), rng.randrange(4))  # noqa: E731 - an 8x4 tensor
    return LinearLayout({local: [vec() for _ in range(nloc)], "block": [vec()]}, [("dim0", 8), ("dim1", 4)],
                        require_surjective=False)


def test_cta_local_is_the_brute_force_inclusion_on_random_layouts() -> None:
    rng = random.Random(15)
    outcomes = set()
    for _ in range(400):
        supply = _random_layout(rng, "register", rng.randrange(1, 5))
        need = _random_layout(rng, "offset", rng.randrange(0, 4))
        expected = all(n <= s for n, s in zip(_by_cta(need), _by_cta(supply)))
        v = cta_local(supply, need)
        assert v.status == ("proved" if expected else "refuted"), (supply, need)
        outcomes.add(v.status)
    assert outcomes == {"proved", "refuted"}


def test_a_prover_mutant_that_ignores_the_block_bases_is_caught() -> None:
    """A prover checking only the local columns (condition (i)) is the real one on layouts with the block bases
    zeroed: it proves a buffer every CTA keeps whole from a tensor split over the CTAs; brute force and the real
    prover refute it."""
    def zero_block(L: LinearLayout) -> LinearLayout:
        return LinearLayout({d: [tuple(0 for _ in b) if d == "block" else b for b in bs] for d, bs in L.bases.items()},
                            list(L.out_dims.items()), require_surjective=False)

    def mutant(supply: LinearLayout, need: LinearLayout):
        return cta_local(zero_block(supply), zero_block(need))

    supply = LinearLayout({"register": [(1,)], "block": [(2,)]}, [("dim0", 4)])  # CTA b holds {2b, 2b+1}
    need = LinearLayout({"offset": [(1,)], "block": [(0,)]}, [("dim0", 4)],
                        require_surjective=False)  # every CTA keeps {0, 1}
    expected = all(n <= h for n, h in zip(_by_cta(need), _by_cta(supply)))
    assert expected is False
    assert cta_local(supply, need).status == "refuted"
    assert mutant(supply, need).status == "proved"  # the mutant is caught by the expectation above


def test_mma_operand_needs_every_k_of_the_accumulator_rows() -> None:
    acc = LinearLayout({"register": [(1, 0)], "block": [(0, 1)]}, [("dim0", 2), ("dim1", 2)])
    need_b = mma_operand_needs(acc, LinearLayout({"offset": [(1, 0), (2, 0), (0, 1)]}, [("dim0", 4), ("dim1", 2)]),
                               "B")
    assert isinstance(need_b, LinearLayout)
    assert dict(need_b.bases) == {"register": ((0, 0),), "block": ((0, 1),), "k": ((1, 0), (2, 0))}
    need_a = mma_operand_needs(acc, LinearLayout({"offset": [(1, 0), (0, 1), (0, 2)]}, [("dim0", 2), ("dim1", 4)]),
                               "A")
    assert isinstance(need_a, LinearLayout)
    assert dict(need_a.bases) == {"register": ((1, 0),), "block": ((0, 0),), "k": ((0, 1), (0, 2))}


# -- conversions in a cluster: costed per CTA tile, or flagged as crossing CTAs; against Triton's own lowering ------

CHILD = r'''
import json, sys, warnings
warnings.filterwarnings("ignore")
import triton
from triton.backends.compiler import GPUTarget
out = {}
for path in sys.argv[1:]:
    llir = triton.compile(path, target=GPUTarget("cuda", 90, 32)).asm["llir"]
    out[path] = {"stmatrix_trans": "stmatrix.sync.aligned.m8n8.x4.trans" in llir, "mapa": "mapa" in llir}
print(json.dumps(out))
'''


def _compiled_on_sm90(tmp_path: Path, **texts: str) -> dict[str, dict]:
    """Each module text compiled by Triton for sm_90 in one child process: whether its LLVM IR has
    ``stmatrix .trans`` and ``mapa`` (a cluster address), by name."""

    paths = {name: tmp_path / f"{name}.ttgir" for name in texts}
    for name, text in texts.items():
        paths[name].write_text(text)
    env = {"TRITON_CACHE_DIR": str(tmp_path / "cache"), "TRITON_DEFAULT_FP_FUSION": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", CHILD, *map(str, paths.values())], capture_output=True, text=True,
                          timeout=300, env=env)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return {name: got[str(path)] for name, path in paths.items()}


def _conversion_cost(text: str) -> dict:
    found = [f for f in check_module(parse_module(text, "m.ttgir"))
             if f.op == "ttg.convert_layout" and f.verdict.property == "conversion"]
    assert len(found) == 1 and found[0].verdict.status == "proved"
    return dict(found[0].verdict.details["cost"])


def test_cluster_conversions_against_tritons_lowering(tmp_path: Path) -> None:
    """The real sm_90 module's epilogue conversion keeps each element in its CTA: costed on one CTA's 128x64 tile,
    with the instruction Triton emits (stmatrix .trans); the blocked side split along M instead of N moves data
    between CTAs: flagged as distributed shared memory, which Triton 3.9 lowers with mapa (cluster addresses)."""

    text = SM90.read_text()
    line = _alias_line(text, "blocked2")
    crossing = text.replace(line, line.replace("CGALayout = [[0, 1]]", "CGALayout = [[1, 0]]"))
    real, moved = _conversion_cost(text), _conversion_cost(crossing)
    assert list(real["per_cta_tile"]) == [128, 64] and real["store_instruction"] == "stmatrix_trans"
    assert "distributed_shared_memory" not in real
    assert moved.get("distributed_shared_memory") is True and "store_instruction" not in moved
    got = _compiled_on_sm90(tmp_path, real=text, crossing=crossing)
    assert got["real"] == {"stmatrix_trans": True, "mapa": False}
    assert got["crossing"]["mapa"] is True


# -- a real Triton 3.9 bug: gfx1250 with two CTAs ---------------------------------------------------------------------

GFX1250 = DATA / "ttgir_cta" / "triton_fails" / "cluster_mm_amd-b128x128x64-hip_gfx1250-w4-s2.ttgir"

TARGET_CHILD = r'''
import sys, warnings
warnings.filterwarnings("ignore")
import triton
from triton.backends.compiler import GPUTarget
backend, arch = sys.argv[2].split(":")
triton.compile(sys.argv[1], target=GPUTarget(backend, int(arch) if backend == "cuda" else arch, 32))
print("compiled")
'''


def _triton_compiles(path: Path, target: str, tmp_path: Path) -> tuple[bool, str]:
    """(whether Triton 3.9 compiles the module for ``target``, its stderr), in a child process (it may abort)."""
    env = {"TRITON_CACHE_DIR": str(tmp_path / "cache"), "TRITON_DEFAULT_FP_FUSION": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", TARGET_CHILD, str(path), target], capture_output=True, text=True,
                          timeout=300, env=env)
    return "compiled" in proc.stdout, proc.stderr


def test_tritons_two_cta_gfx1250_matmul_is_refuted_where_triton_aborts(tmp_path: Path) -> None:
    """Triton 3.9 compiles examples/hunt15's cluster_mm for gfx1250 with num_ctas = 2 to TTGIR whose pipelined B
    buffer (64x128, K x N) is split over the CTAs along K (``block = [[32, 0]]``) while the WMMA operand read from
    it needs every K in each CTA (the accumulator is split along M; A's buffer, split along M too, is fine); its
    AMD lowering then aborts ("AMDGPU does not support cross-CTA shared memory transfers").  The gate refutes
    exactly the local_loads of B, each witness a K row only the other CTA keeps."""
    found = _cta(GFX1250.read_text(), str(GFX1250))
    bad = [f for f in found if f.verdict.status == "refuted"]
    assert bad and {f.op for f in bad} == {"ttg.local_load"}
    assert all(f.verdict.status == "proved" for f in found if f.op != "ttg.local_load")
    for f in bad:
        elem = f.verdict.counterexample.sides["need(x)"]
        assert f.verdict.counterexample.inputs["cta"] == 0 and elem["dim0"] >= 32  # K rows only CTA 1 keeps
        assert "dot_op" in f.verdict.subject
    compiled, stderr = _triton_compiles(GFX1250, "hip:gfx1250", tmp_path)
    assert not compiled and "does not support cross-CTA shared memory transfers" in stderr


FAILS = DATA / "ttgir_cta" / "triton_fails"
#: Triton 3.9's own 2-CTA compiles of examples/hunt15 kernels that it cannot lower: the ops the gate refutes and
#: Triton's message
CROSS_CTA = {
    "scans_cta2-r16c64-cuda_90-w4": ("cuda:90", {"tt.scan"}, "unsupported scan layout"),
    "huge_row_cta2-c4096-hip_gfx1250-w4": ("hip:gfx1250", {"tt.reduce"},
                                           "does not support cross-CTA shared memory transfers"),
    "five_d_cta2-a2b4c8d2e4-hip_gfx1250-w4": ("hip:gfx1250", {"tt.reduce", "ttg.convert_layout"},
                                              "does not support cross-CTA shared memory transfers"),
}


@pytest.mark.parametrize("name", sorted(CROSS_CTA))
def test_reductions_scans_and_conversions_across_ctas_triton_cannot_lower_are_refuted(name: str,
                                                                                      tmp_path: Path) -> None:
    """A scan along an axis split over the CTAs (every target: 'TODO: unsupported scan layout'), and on AMD a
    reduction along such an axis or a conversion between CTAs (its lowering aborts): each refuted at the op, the
    witness an element of the line (or of the conversion) that another CTA holds; Triton's failure read here."""
    target, ops, message = CROSS_CTA[name]
    path = FAILS / f"{name}.ttgir"
    found = _cta(path.read_text(), str(path))
    bad = [f for f in found if f.verdict.status == "refuted"]
    assert {f.op for f in bad} == ops
    for f in bad:
        assert f.verdict.counterexample is not None and f.verdict.counterexample.sides["held by CTA"] is False
    compiled, stderr = _triton_compiles(path, target, tmp_path)
    assert not compiled and message in stderr


@pytest.mark.parametrize("path", sorted((DATA / "ttgir_cta" / "nvidia_dsmem").glob("*.ttgir")), ids=lambda p: p.stem)
def test_nvidia_reductions_and_conversions_across_ctas_are_not_refuted(path: Path, tmp_path: Path) -> None:
    """The same kernels for sm_90: Triton 3.9 compiles them (reductions and conversions between CTAs go through
    distributed shared memory), and the gate refutes nothing."""
    clear_caches()
    assert not [f for f in check_module(parse_module(path.read_text(), str(path))) if f.verdict.status == "refuted"]
    compiled, _ = _triton_compiles(path, "cuda:90", tmp_path)
    assert compiled


def _copy_module(ptr_split: str, buf_split: str) -> str:
    return f'''#b = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = {ptr_split}}}>
#s = #ttg.swizzled_shared<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = {buf_split}}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%p: tensor<64x32x!tt.ptr<f16>, #b>) {{
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x32xf16, #s, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %buf {{contiguity = 8 : i32}} : tensor<64x32x!tt.ptr<f16>, #b> -> <64x32xf16, #s, #smem, mutable>
    tt.return
  }}
}}
'''


def test_an_async_copy_is_checked_as_a_store_of_its_pointer_layout() -> None:
    """cp.async writes each thread's elements into its own CTA's copy: pointers split along M into a buffer split
    the same way, or kept whole only where the pointers are too, are proved; split pointers into a buffer every CTA
    keeps whole are refuted (CTA 0's copy needs rows only CTA 1's pointers address).  Triton 3.9 on sm_90 lowers
    the first to cp.async and fails to legalize the third ("failed to legalize operation
    'ttg.async_copy_global_to_local'"), compiled by hand this pass."""
    assert [f.verdict.status for f in _cta(_copy_module("[[1, 0]]", "[[1, 0]]"))] == ["proved"]
    assert [f.verdict.status for f in _cta(_copy_module("[[0, 0]]", "[[0, 0]]"))] == ["proved"]
    bad = _cta(_copy_module("[[1, 0]]", "[[0, 0]]"))
    assert [(f.op, f.verdict.status) for f in bad] == [("ttg.async_copy_global_to_local", "refuted")]
    assert bad[0].verdict.counterexample.sides["need(x)"]["dim0"] >= 32


def _store_module(tensor_split: str, buf_split: str, load_split: str | None = None) -> str:
    """A tensor (split ``tensor_split``) stored into a buffer (``buf_split``) and loaded back into a tensor split
    ``load_split`` (default: as it was stored)."""
    return f'''#b = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = {tensor_split}}}>
#c = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = {load_split or tensor_split}}}>
#s = #ttg.swizzled_shared<{{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = {buf_split}}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%p: tensor<64x32x!tt.ptr<f16>, #b>, %q: tensor<64x32x!tt.ptr<f16>, #c>) {{
    %v = tt.load %p : tensor<64x32x!tt.ptr<f16>, #b>
    %buf = ttg.local_alloc %v : (tensor<64x32xf16, #b>) -> !ttg.memdesc<64x32xf16, #s, #smem, mutable>
    %w = ttg.local_load %buf : !ttg.memdesc<64x32xf16, #s, #smem, mutable> -> tensor<64x32xf16, #c>
    tt.store %q, %w : tensor<64x32x!tt.ptr<f16>, #c>
    tt.return
  }}
}}
'''


def test_nvidia_stores_across_ctas_per_buffer_kind(tmp_path: Path) -> None:
    """A tensor split along M stored into a buffer split along N: Triton 3.9 writes the other CTA's copy through
    distributed shared memory (mapa), so the store is unknown, not refuted; into a buffer every CTA keeps whole it
    writes only its own copy (no cluster access), so the other half of each copy is never written: refuted when
    a load of the buffer reads that half (every CTA loads the whole tensor back), proved when every load reads
    back only what its CTA wrote (Triton's membar-cluster lit tests do this).  A cp.async into a buffer split the
    other way has no cluster form (Triton fails to legalize it): refuted."""
    crossing, whole = _store_module("[[1, 0]]", "[[0, 1]]"), _store_module("[[1, 0]]", "[[0, 0]]", "[[0, 0]]")
    own_half = _store_module("[[1, 0]]", "[[0, 0]]")
    stores = {name: [f.verdict for f in _cta(text) if f.op == "ttg.local_alloc"]
              for name, text in (("crossing", crossing), ("whole", whole), ("own_half", own_half))}
    assert [v.status for v in stores["crossing"]] == ["unknown"]
    assert "st.shared::cluster" in stores["crossing"][0].message
    assert [v.status for v in stores["whole"]] == ["refuted"]
    assert "the local_load at 9:" in stores["whole"][0].message  # the reader of the unwritten half is named
    assert stores["whole"][0].counterexample.sides["need(x)"]["dim0"] >= 32  # CTA 0 reads a row CTA 1 wrote
    assert [v.status for v in stores["own_half"]] == ["proved"]
    assert stores["own_half"][0].details["unwritten"]["sides"]["need(x)"]["dim0"] >= 32
    got = _compiled_on_sm90(tmp_path, crossing=crossing, whole=whole)
    assert got["crossing"]["mapa"] is True and got["whole"]["mapa"] is False
    copy = [f.verdict.status for f in _cta(_copy_module("[[1, 0]]", "[[0, 1]]"))]
    assert copy == ["refuted"]


def test_a_crash_dump_is_read_whole_and_claimed_on_the_snapshot_triton_lowers(tmp_path: Path) -> None:
    """An MLIR_ENABLE_DUMP of a compile that aborts in its LLVM lowering ends with the snapshot Triton lowers,
    then Triton's error, its crash reproducer (a second copy of the module) and a traceback: the snapshot is read
    (it was an unreadable module), and cta_local claims there, not on the intermediate snapshots (a valid kernel's
    early snapshots may still convert across CTAs)."""
    from llverify.ttgir.gate import gate_file

    module = GFX1250.read_text()
    head = "// -----// IR Dump Before {p}: x ('builtin.module' operation) //----- //\n"
    tail = ("\n\nLLVM ERROR: AMDGPU does not support cross-CTA shared memory transfers\n" + module +
            "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: \"builtin.module(x)\"\n    }\n"
            "  }\n#-}\nk.py:15:1: error: Failures have been detected while processing an MLIR pass pipeline\n"
            "Traceback (most recent call last):\nRuntimeError: PassManager::run failed\n")
    path = tmp_path / "crash.dump"
    path.write_text(head.format(p="TritonGPURemoveLayoutConversions") + module + "\n" +
                    head.format(p="ConvertTritonAMDGPUToLLVM") + module + tail)
    clear_caches()
    result = gate_file(str(path))
    assert not result.errors and result.modules == 2
    bad = [f for f in result.findings if f.verdict.property == "cta_local" and f.verdict.status == "refuted"]
    assert bad and {f.stage for f in bad} == {"ConvertTritonAMDGPUToLLVM"}
    assert not [f for f in result.findings if f.verdict.property == "cta_local"
                and f.stage == "TritonGPURemoveLayoutConversions"]


def test_a_partial_store_into_a_buffer_another_op_writes_is_unknown() -> None:
    """A store that leaves half of each CTA's copy unwritten into a buffer a TMA copy also fills (it may write the
    other half): neither refuted nor proved, the other writer is named."""
    text = '''#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [0, 1], CGALayout = [[1, 0]]}>
#n = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[0, 0]]}>
#bar = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0], CGALayout = [[0]]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @k(%d: !tt.tensordesc<64x128xf16, #n>) -> tensor<64x128xf16, #b> {
    %c0 = arith.constant 0 : i32
    %t = arith.constant true
    %z = arith.constant dense<0.000000e+00> : tensor<64x128xf16, #b>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x128xf16, #n, #smem, mutable>
    %bar = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #bar, #smem, mutable>
    ttng.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %bar, %t {multicast} : !tt.tensordesc<64x128xf16, #n>, !ttg.memdesc<2xi64, #bar, #smem, mutable> -> !ttg.memdesc<64x128xf16, #n, #smem, mutable>
    ttg.local_store %z, %buf : tensor<64x128xf16, #b> -> !ttg.memdesc<64x128xf16, #n, #smem, mutable>
    %w = ttg.local_load %buf : !ttg.memdesc<64x128xf16, #n, #smem, mutable> -> tensor<64x128xf16, #b>
    tt.return %w : tensor<64x128xf16, #b>
  }
}
'''
    stores = [f.verdict for f in _cta(text) if f.op == "ttg.local_store"]
    assert [v.status for v in stores] == ["unknown"]
    assert "ttng.async_tma_copy_global_to_local at 12:" in stores[0].message
    # without the TMA copy the same store is proved: the load reads back only what each CTA wrote
    alone = "\n".join(line for line in text.splitlines() if "async_tma_copy" not in line)
    assert [f.verdict.status for f in _cta(alone) if f.op == "ttg.local_store"] == ["proved"]


PARTIAL = DATA / "ttgir_cta" / "partial_copy"


def test_partial_copies_against_an_h200() -> None:
    """Each CTA stores its half of a tile into a buffer both keep whole, then loads it back (Triton 3.9 sm_90
    cubins run on an H200: tests/data/ttgir_cta/partial_copy/h200_run.json).  Loaded in the same split, y equals x
    in every run, and the gate proves the store; loaded whole in every CTA, rows 32..63 come back wrong in every run,
    and the gate refutes the store with a witness row among them."""
    from llverify.ttgir.gate import gate_file

    run = json.loads((PARTIAL / "h200_run.json").read_text())["runs"]
    assert all(r["mismatches"] == 0 for r in run["own_half"])
    assert all(r["mismatches"] > 0 for r in run["read_whole"])
    verdicts = {name: [f.verdict for f in gate_file(str(PARTIAL / f"{name}.ttgir")).findings
                       if f.verdict.property == "cta_local" and f.op == "ttg.local_alloc"]
                for name in ("own_half", "read_whole")}
    assert [v.status for v in verdicts["own_half"]] == ["proved"]
    assert [v.status for v in verdicts["read_whole"]] == ["refuted"]
    row = verdicts["read_whole"][0].counterexample.sides["need(x)"]["dim0"]
    assert all(row >= min(r["first_bad_rows"]) for r in run["read_whole"]) and 32 <= row < 64


def test_partial_copies_through_pipeline_slots_and_arguments() -> None:
    """The buffer is followed through memdesc_index slots (a pipeline's): a split store into a slot every CTA keeps
    whole, loaded back in the same split, is proved, loaded whole refuted; a buffer passed in as an argument (Triton's
    tritongpu_to_llvm lit test local_store_uses_local_cta) is unknown: who reads the rest is not in the function."""
    def module(load_split: str, arg: bool) -> str:
        buf = "%buf" if arg else "%slot"
        head = ", %buf: !ttg.memdesc<64x32xf16, #s, #smem, mutable>" if arg else ""
        body = "" if arg else ('''    %all = ttg.local_alloc : () -> !ttg.memdesc<2x64x32xf16, #s, #smem, mutable>
    %c1 = arith.constant 1 : i32
    %slot = ttg.memdesc_index %all[%c1] : !ttg.memdesc<2x64x32xf16, #s, #smem, mutable> -> !ttg.memdesc<64x32xf16, #s, #smem, mutable>
''')
        return f'''#b = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[1, 0]]}}>
#c = #ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = {load_split}}}>
#s = #ttg.swizzled_shared<{{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], CGALayout = [[0, 0]]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%v: tensor<64x32xf16, #b>{head}) -> tensor<64x32xf16, #c> {{
{body}    ttg.local_store %v, {buf} : tensor<64x32xf16, #b> -> !ttg.memdesc<64x32xf16, #s, #smem, mutable>
    %w = ttg.local_load {buf} : !ttg.memdesc<64x32xf16, #s, #smem, mutable> -> tensor<64x32xf16, #c>
    tt.return %w : tensor<64x32xf16, #c>
  }}
}}
'''
    def store(text: str) -> list[str]:
        return [f.verdict.status for f in _cta(text) if f.op == "ttg.local_store"]
    assert store(module("[[1, 0]]", False)) == ["proved"]
    assert store(module("[[0, 0]]", False)) == ["refuted"]
    assert store(module("[[1, 0]]", True)) == ["unknown"]


def test_a_partial_copy_read_by_a_two_cta_mma_is_unknown() -> None:
    """B split over the CTAs along N, stored into a buffer every CTA keeps whole, read by tc_gen5_mma: a one-CTA MMA
    reads the whole copy (refuted, as the wgmma matmul's mutant on the H200); a two-CTA MMA (``two_ctas``) reads B
    from both CTAs of the pair, so which copy it reads is not modelled (unknown)."""
    def module(attr: str) -> str:
        return f'''#r = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[0, 1]]}}>
#a = #ttg.nvmma_shared<{{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}}>
#b = #ttg.nvmma_shared<{{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16, CGALayout = [[0, 0]]}}>
#t = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>
#bar = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @f(%a: !ttg.memdesc<128x64xf16, #a, #smem>, %v: tensor<64x128xf16, #r>, %d: !ttg.memdesc<128x128xf32, #t, #ttng.tensor_memory, mutable>, %p: i1, %bar: !ttg.memdesc<1xi64, #bar, #smem>) {{
    %b = ttg.local_alloc %v : (tensor<64x128xf16, #r>) -> !ttg.memdesc<64x128xf16, #b, #smem>
    ttng.tc_gen5_mma %a, %b, %d, %p, %p, %bar[%p] {{is_async{attr}}} : !ttg.memdesc<128x64xf16, #a, #smem>, !ttg.memdesc<64x128xf16, #b, #smem>, !ttg.memdesc<128x128xf32, #t, #ttng.tensor_memory, mutable>, !ttg.memdesc<1xi64, #bar, #smem>
    tt.return
  }}
}}
'''
    def store(text: str) -> list[str]:
        return [f.verdict.status for f in _cta(text) if f.op == "ttg.local_alloc"]
    assert store(module("")) == ["refuted"]
    assert store(module(", two_ctas")) == ["unknown"]


def test_a_partial_copy_read_through_a_view_is_unknown() -> None:
    """A split store into a buffer every CTA keeps whole, read only through a memdesc_trans view: what the view's
    users read is not followed, so the store is neither proved nor refuted."""
    text = _store_module("[[1, 0]]", "[[0, 0]]").replace(
        "    %w = ttg.local_load %buf : !ttg.memdesc<64x32xf16, #s, #smem, mutable> -> tensor<64x32xf16, #c>\n",
        "    %t = ttg.memdesc_trans %buf {order = array<i32: 1, 0>} : !ttg.memdesc<64x32xf16, #s, #smem, mutable> -> "
        "!ttg.memdesc<32x64xf16, #t, #smem, mutable>\n"
        "    %w = ttg.local_load %buf : !ttg.memdesc<64x32xf16, #s, #smem, mutable> -> tensor<64x32xf16, #c>\n")
    text = text.replace("#smem = #ttg.shared_memory", "#t = #ttg.swizzled_shared<{vec = 4, perPhase = 1, maxPhase = 8, "
                        "order = [0, 1], CGALayout = [[0, 0]]}>\n#smem = #ttg.shared_memory")
    assert "memdesc_trans" in text
    found = [f.verdict for f in _cta(text) if f.op == "ttg.local_alloc"]
    assert [v.status for v in found] == ["unknown"] and "ttg.memdesc_trans" in found[0].message


def test_a_partial_copy_nothing_reads_is_proved() -> None:
    """The split store into a buffer every CTA keeps whole with no load of it: the unwritten half is never read."""
    text = "\n".join(line for line in _store_module("[[1, 0]]", "[[0, 0]]").splitlines()
                     if "%w" not in line)
    found = [f.verdict for f in _cta(text) if f.op == "ttg.local_alloc"]
    assert [v.status for v in found] == ["proved"] and found[0].message.startswith("nothing reads this buffer")
