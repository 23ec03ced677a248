"""``ttg.async_copy_global_to_local`` on NVIDIA: the ``vector_width`` verdict (the cp.async widths Triton 3.9
may pick) against the widths Triton really emits, the contiguity hint, the refutation when no 4-byte vector
exists, and the bank wavefronts left ``unknown`` (LDGSTS's shared side is not st.shared's: H200 measurement).

Expected values come from Triton (its LLVM IR, stored or compiled here in a child process), from the
definition of Triton's width choice written out below, or from a brute-force bank count; none is read from
the code under test.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.codegen.cp_async import cp_async_widths
from llverify.ttgir import rules_async_copy
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rule_support import clear_caches

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "ttgir"
MATMUL = sorted(CORPUS.glob("pipelined_matmul-*.ttgir"))
TF32 = DATA / "lowered" / "pipelined_tf32x3-cuda_80-w4.ttgir"
CP_SIZE = re.compile(r"cp\.async\.c[ag]\.shared\.global \[ \$0 \+ 0 \], \[ \$1 \+ 0 \], (0x[0-9a-f]+)")


def _copies(text: str, name: str = "m.ttgir", clear: bool = True):
    if clear:
        clear_caches()
    found = [f for f in check_module(parse_module(text, name)) if f.op == "ttg.async_copy_global_to_local"]
    return ([f.verdict for f in found if f.verdict.property == "vector_width"],
            [f.verdict for f in found if f.verdict.property == "bank_conflicts"])


def _llir_sizes(text: str) -> set[int]:
    return {int(x, 16) for x in CP_SIZE.findall(text)}


# -- the corpus kernel and the stored lowered pair: the widths Triton emitted -------------------------------------

def test_corpus_has_the_pipelined_matmul_modules() -> None:
    assert [p.name for p in MATMUL] == ["pipelined_matmul-m64n64k32-cuda_80-w4.ttgir",
                                        "pipelined_matmul-m64n64k32-cuda_90-w4.ttgir"]


@pytest.mark.parametrize("path", MATMUL, ids=lambda p: p.stem)
def test_every_copy_of_the_corpus_kernel_has_a_proved_width_and_unknown_wavefronts(path: Path) -> None:
    widths, banks = _copies(path.read_text(), str(path))
    assert widths and len(widths) == len(banks) == path.read_text().count("= ttg.async_copy_global_to_local")
    for v in widths:
        assert v.status == "proved", v.message
        assert v.details["instruction"] == "cp.async" and v.details["direction"] == "store"
        assert v.details["contiguity_hint"] == 8 and list(v.details["widths_bytes"]) == [16]
    for v in banks:
        assert v.status == "unknown"
        assert "global source addresses" in v.message and "cp_async_ncu_h200.json" in v.message


@pytest.mark.parametrize("ttgir,llir", [(CORPUS / "pipelined_matmul-m64n64k32-cuda_90-w4.ttgir",
                                         CORPUS / "pipelined_matmul-m64n64k32-cuda_90-w4.llir"),
                                        (TF32, TF32.with_suffix(".llir"))], ids=["matmul_sm90", "tf32x3_sm80"])
def test_the_widths_triton_emitted_are_the_computed_ones(ttgir: Path, llir: Path) -> None:
    """Differential: every cp.async size in Triton's LLVM IR of the same compile is a computed width, and
    (each copy pinned to one width) every computed width is emitted."""
    widths, _ = _copies(ttgir.read_text(), str(ttgir))
    computed = {b for v in widths for b in list(v.details["widths_bytes"])}
    emitted = _llir_sizes(llir.read_text())
    assert emitted and emitted <= computed
    if all(len(list(v.details["widths_bytes"])) == 1 for v in widths):
        assert emitted == computed


# -- the width set against the definition of Triton's choice -------------------------------------------------------

def _definition(bound: int, bits: int, hint: int | None) -> set[int]:
    """Triton 3.9: maxVec = min(max(c, hint), 128 / bits) for the pointers' contiguity c (any power of two; the
    hint 1 when absent); w = the largest power of two <= min(maxVec, bound); a w below 4 bytes does not compile."""
    cap = 128 // bits
    out = set()
    for c in (1 << k for k in range(8)):
        max_vec = min(max(c, hint if hint is not None else 1), cap)
        w = 1 << (min(max_vec, bound).bit_length() - 1)
        if w * bits >= 32:
            out.add(w)
    return out


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_widths_are_the_definition(bits: int) -> None:
    for bound in (1, 2, 4, 8, 16, 32):
        for hint in (None, 0, 1, 2, 3, 4, 6, 8, 16, 64):
            assert set(cp_async_widths(bound, bits, hint)) == _definition(bound, bits, hint), (bound, bits, hint)
            assert list(cp_async_widths(bound, bits, hint)) == sorted(_definition(bound, bits, hint))


def test_a_widths_mutant_that_ignores_the_hint_fails_the_definition() -> None:
    def mutant(bound: int, bits: int, hint: int | None) -> tuple[int, ...]:
        return cp_async_widths(bound, bits, None)
    assert any(set(mutant(b, 16, h)) != _definition(b, 16, h) for b in (8,) for h in (2, 4, 8))


# -- small modules: the hint, the layout bound, the refutation; Triton compiles the same modules ------------------

def _module(spt: int, hint: int | None, vec: int, target: str = "cuda:80", cols: int = 32, tpw: str = "[4, 8]",
            max_phase: int = 1, aligned: bool = True) -> str:
    """A copy of a 64 x ``cols`` f16 tile (``sizePerThread = [1, spt]``, ``threadsPerWarp = tpw``) into a
    ``swizzled_shared<{vec, perPhase = 1, maxPhase}>`` buffer, then read back and stored; ``aligned``: the
    source pointer argument carries ``tt.divisibility = 16`` (without it Triton knows only the element's
    alignment, 2 bytes)."""
    h = f" {{contiguity = {hint} : i32}}" if hint is not None else ""
    div = " {tt.divisibility = 16 : i32}" if aligned else ""
    return f'''#blocked = #ttg.blocked<{{sizePerThread = [1, {spt}], threadsPerWarp = {tpw}, warpsPerCTA = [4, 1], order = [1, 0]}}>
#shared = #ttg.swizzled_shared<{{vec = {vec}, perPhase = 1, maxPhase = {max_phase}, order = [1, 0]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%arg0: !tt.ptr<f16>{div}, %arg1: !tt.ptr<f16> {{tt.divisibility = 16 : i32}}) {{
    %r = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>>
    %r2 = tt.expand_dims %r {{axis = 0 : i32}} : tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>> -> tensor<1x{cols}xi32, #blocked>
    %r3 = tt.broadcast %r2 : tensor<1x{cols}xi32, #blocked> -> tensor<64x{cols}xi32, #blocked>
    %p = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x{cols}x!tt.ptr<f16>, #blocked>
    %p2 = tt.addptr %p, %r3 : tensor<64x{cols}x!tt.ptr<f16>, #blocked>, tensor<64x{cols}xi32, #blocked>
    %buf = ttg.local_alloc : () -> !ttg.memdesc<64x{cols}xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p2, %buf{h} : tensor<64x{cols}x!tt.ptr<f16>, #blocked> -> <64x{cols}xf16, #shared, #smem, mutable>
    %c = ttg.async_commit_group tokens %t
    %w = ttg.async_wait %c {{num = 0 : i32}}
    %v = ttg.local_load %buf token %w : !ttg.memdesc<64x{cols}xf16, #shared, #smem, mutable> -> tensor<64x{cols}xf16, #blocked>
    %q = tt.splat %arg1 : !tt.ptr<f16> -> tensor<64x{cols}x!tt.ptr<f16>, #blocked>
    %q2 = tt.addptr %q, %r3 : tensor<64x{cols}x!tt.ptr<f16>, #blocked>, tensor<64x{cols}xi32, #blocked>
    tt.store %q2, %v : tensor<64x{cols}x!tt.ptr<f16>, #blocked>
    tt.return
  }}
}}
'''


def _width(text: str):
    widths, banks = _copies(text)
    assert len(widths) == 1 and len(banks) == 1
    return widths[0], banks[0]


def test_the_hint_pins_the_width_and_its_absence_leaves_several() -> None:
    """With ``contiguity = 8`` the width is 16 bytes; with 2 (4 bytes) any of 4, 8, 16; with none, f16 pointers
    of alignment 2 bytes would give a 2-byte copy, which Triton cannot lower: the verdict is ``unknown`` (the
    pointers' alignment decides), never ``proved``; the possible widths stay in the details."""
    pinned, _ = _width(_module(8, 8, 8))
    free, _ = _width(_module(8, None, 8))
    low, _ = _width(_module(8, 2, 8))
    assert pinned.status == low.status == "proved"
    assert list(pinned.details["widths_bytes"]) == [16] and "16 bytes per lane" in pinned.message
    assert free.status == "unknown" and "no contiguity hint" in free.message and "cannot lower" in free.message
    assert list(free.details["widths_bytes"]) == [4, 8, 16] and free.details["narrowest_bytes"] == 2
    assert list(low.details["widths_bytes"]) == [4, 8, 16] and "one of 4, 8, 16 bytes" in low.message
    four, _ = _width(_module(4, 4, 4))
    assert list(four.details["widths_bytes"]) == [8]


def test_a_rule_mutant_that_ignores_the_hint_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rules_async_copy.cp_async_widths
    monkeypatch.setattr(rules_async_copy, "cp_async_widths", lambda bound, bits, hint: real(bound, bits, None))
    pinned, _ = _width(_module(8, 8, 8))
    assert list(pinned.details["widths_bytes"]) != [16]  # what the hint test above requires: the mutant fails it
    clear_caches()


def _pinned_then_free() -> list[list[int]]:
    """The same layouts with the hint, then without, decided in one process (caches kept between them)."""
    clear_caches()
    out = []
    for text in (_module(8, 8, 8), _module(8, None, 8)):
        widths, _ = _copies(text, clear=False)
        out.extend(list(v.details["widths_bytes"]) for v in widths)
    clear_caches()
    return out


def test_the_memo_keys_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    """A memo keyed without the hint would return the first answer for both modules: the mutant below is
    such a memo, and the check catches it."""
    assert _pinned_then_free() == [[16], [4, 8, 16]]
    seen: dict = {}
    real = rules_async_copy.decided_cp_async_width

    def mutant(R, M, bits, hint):
        return seen.setdefault((R, M, bits), real(R, M, bits, hint))
    monkeypatch.setattr(rules_async_copy, "decided_cp_async_width", mutant)
    assert _pinned_then_free() != [[16], [4, 8, 16]]


def test_no_four_byte_vector_is_refuted_with_a_replayed_witness() -> None:
    from llverify.codegen.banks import access_to_offsets
    from llverify.ttgir.layouts import layout_of

    text = _module(1, 8, 1)
    v, bank = _width(text)
    assert v.status == "refuted" and "cannot lower" in v.message
    assert bank.status == "unknown"
    cx = v.counterexample
    assert cx is not None and cx.inputs == {"offset_bit": 0}
    # replay: the pointer layout through the buffer's inverse, evaluated at every register basis: none reaches
    # offset 1, so no two registers of a thread hold adjacent f16 (no 4-byte vector)
    _, op, _ = next(t for t in parse_module(text, "m.ttgir").walk() if t[1].name == "ttg.async_copy_global_to_local")
    cvt = access_to_offsets(layout_of(op.operand_types[0]).layout, layout_of(op.operand_types[1]).layout)
    regs = [int(cvt.apply({d: (1 << i if d == "register" else 0) for d in cvt.in_dim_names})["offset"])
            for i in range(cvt.in_dim_size_log2("register"))]
    assert regs == list(cx.sides["S^-1 L"]["register_offsets"]) and 1 not in regs


def test_two_byte_vectors_that_do_divide_are_not_refuted() -> None:
    v, _ = _width(_module(2, 8, 1))
    assert v.status == "proved" and list(v.details["widths_bytes"]) == [4]


def test_amd_and_targetless_copies_are_unknown_with_their_reason() -> None:
    amd, amd_bank = _width(_module(8, 8, 8, target="hip:gfx942"))
    assert amd.status == amd_bank.status == "unknown"
    assert "direct-to-LDS" in amd.message and "direct-to-LDS" in amd_bank.message
    none, none_bank = _width(_module(8, 8, 8).replace(', ttg.target = "cuda:80"', ""))
    assert none.status == none_bank.status == "unknown" and "--target" in none.message


CHILD = r'''
import json, re, sys, warnings
warnings.filterwarnings("ignore")
import triton
from triton.backends.compiler import GPUTarget
out = {}
size = re.compile(r"cp\.async\.c[ag]\.shared\.global \[ \$0 \+ 0 \], \[ \$1 \+ 0 \], (0x[0-9a-f]+)")
for name in sys.argv[1:]:
    try:
        k = triton.compile(name, target=GPUTarget("cuda", 80, 32))
        out[name] = sorted({int(x, 16) for x in size.findall(k.asm["llir"])})
    except Exception as e:
        out[name] = None
print(json.dumps(out))
'''


def test_triton_compiles_the_small_modules_to_a_computed_width(tmp_path: Path) -> None:
    """Differential against the installed Triton (3.9) on the small modules: every width it emits is one the
    gate computed, and the refuted module does not compile.  One child process (Triton aborts on the refuted
    module: its cp.async emitter asserts)."""
    cases = {"w16": _module(8, 8, 8), "free": _module(8, None, 8), "w8": _module(4, 4, 4),
             "w4": _module(2, 8, 1)}
    unaligned = tmp_path / "unaligned.ttgir"  # no hint, no divisibility: Triton picks 2 bytes and fails
    unaligned.write_text(_module(8, None, 8, aligned=False))
    paths = {}
    for name, text in cases.items():
        paths[name] = tmp_path / f"{name}.ttgir"
        paths[name].write_text(text)
    bad = tmp_path / "bad.ttgir"
    bad.write_text(_module(1, None, 1))
    env = {"TRITON_CACHE_DIR": str(tmp_path / "cache"), "TRITON_DEFAULT_FP_FUSION": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", CHILD, *map(str, paths.values()), str(bad), str(unaligned)],
                          capture_output=True, text=True, timeout=300, env=env)
    emitted = json.loads(proc.stdout.strip().splitlines()[-1])
    assert emitted[str(bad)] is None
    assert emitted[str(unaligned)] is None  # a module Triton cannot lower ...
    assert _width(unaligned.read_text())[0].status == "unknown"  # ... is never proved
    assert _width(_module(1, None, 1))[0].status == "refuted"
    for name, path in paths.items():
        v, _ = _width(cases[name])
        assert emitted[str(path)], name
        assert set(emitted[str(path)]) <= set(list(v.details["widths_bytes"])), (name, emitted[str(path)], v.details)


# -- the st.shared model count in the details against a brute-force count -------------------------------------------

def _brute_wavefronts(text: str, width_bytes: int) -> int:
    """Warp 0's first copy instruction (register 0 of every lane: the vector starts) counted as an st.shared of
    ``width_bytes`` per lane: 32 banks of 4 bytes, bank = (byte address / 4) % 32; the warp's lanes split into
    phases of ``128 / width_bytes`` lanes (one 128-byte wavefront's worth); a phase costs the largest number of
    distinct 4-byte words one bank holds.  Offsets from the layouts' linear maps (``LinearLayout.apply``)."""
    from llverify.codegen.banks import access_to_offsets
    from llverify.ttgir.layouts import layout_of

    _, op, _ = next(t for t in parse_module(text, "m.ttgir").walk() if t[1].name == "ttg.async_copy_global_to_local")
    cvt = access_to_offsets(layout_of(op.operand_types[0]).layout, layout_of(op.operand_types[1]).layout)
    lanes_per_phase = 128 // width_bytes
    total = 0
    for phase in range(32 // lanes_per_phase):
        banks: dict[int, set[int]] = {}
        for lane in range(phase * lanes_per_phase, (phase + 1) * lanes_per_phase):
            point = {d: (lane if d == "lane" else 0) for d in cvt.in_dim_names}
            start = int(cvt.apply(point)["offset"]) * 2  # f16 bytes
            for byte in range(start, start + width_bytes, 4):
                banks.setdefault((byte // 4) % 32, set()).add(byte // 4)
        total += max(len(words) for words in banks.values())
    return total


def test_st_shared_model_counts_in_the_details_are_the_brute_force_ones() -> None:
    """Rows of 64 f16 (128 bytes), one lane per row (``threadsPerWarp = [32, 1]``), 16 bytes per lane: an
    unswizzled buffer puts a phase's 8 lanes on the same 4 banks; the XOR swizzle spreads them.  The count is detail
    only (``st_shared_model_wavefronts``), never the verdict: cp.async's own wavefronts are not claimed."""
    plain = _module(8, 8, 1, cols=64, tpw="[32, 1]")
    swizzled = _module(8, 8, 8, cols=64, tpw="[32, 1]", max_phase=8)
    counts = {}
    for name, text in (("plain", plain), ("swizzled", swizzled)):
        v, bank = _width(text)
        assert v.status == "proved" and list(v.details["widths_bytes"]) == [16]
        assert bank.status == "unknown"
        counts[name] = v.details["st_shared_model_wavefronts"]["16"]
        assert counts[name] == _brute_wavefronts(text, 16), name
    assert counts["plain"] > counts["swizzled"]
