"""The TTGIR reader on the committed corpus of real Triton 3.9 output, against Triton's own parser, and on
malformed or hostile modules (located errors, never another exception, never a hang)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llverify.ttgir.layouts import BuiltLayout, layout_of
from llverify.ttgir.loader import is_dump, load_paths, load_text, split_dump
from llverify.ttgir.model import Module, TtgirError
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"
MODULES = sorted(CORPUS.glob("*.ttgir"))
_OP_LINE = re.compile(r'^\s*(?:(%[\w$.\-]+)(?::(\d+))?\s*=\s*)?"?([a-z_]+\.[\w.]+)"?')


def _ops_by_regex(text: str) -> list[str]:
    """Op names in textual order, read with a regex independent of the reader."""
    names = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith(("#", "}", "^", "//", "module", "tt.func")):
            continue
        m = _OP_LINE.match(s)
        if m:
            names.append(m.group(3))
    return names


def test_corpus_is_there() -> None:
    assert len(MODULES) >= 200
    targets = {re.search(r"-(cuda_\d+|hip_gfx\d+)-", p.name).group(1) for p in MODULES}
    assert targets == {"cuda_80", "cuda_90", "cuda_100", "hip_gfx942", "hip_gfx950"}


@pytest.mark.parametrize("path", MODULES[::7], ids=lambda p: p.stem)
def test_every_op_is_read_in_order(path: Path) -> None:
    text = path.read_text()
    m = parse_module(text, str(path))
    assert [op.name for _, op, _ in m.walk()] == _ops_by_regex(text)
    assert m.target.replace(":", "_") in path.name
    assert f"-w{m.num_warps}" in path.name
    assert m.threads_per_warp == (64 if m.target.startswith("hip") else 32)


def test_all_corpus_modules_parse_with_located_ops() -> None:
    for path in MODULES:
        m = parse_module(path.read_text(), str(path))
        lines = path.read_text().splitlines()
        for _, op, _ in m.walk():
            assert op.name in lines[op.location.line - 1]
            if op.source is not None:
                assert op.source.file.endswith(".py")


def _layouts_against_triton(modules: list[Path]) -> tuple[int, int]:
    """(compared, oracle gaps): :func:`oracle_triton.layouts_against_triton` of ``modules``."""
    oracle = pytest.importorskip("oracle_triton")
    if not oracle.available():
        pytest.skip("triton is not installed")
    compared, gaps, _ = oracle.layouts_against_triton(modules)
    return compared, gaps


def test_every_layout_equals_triton_to_linear_layout() -> None:
    compared, oracle_gaps = _layouts_against_triton(MODULES)
    assert compared >= 1000 and oracle_gaps <= 20


MORE_TARGETS = sorted((CORPUS / "more_targets").glob("*.ttgir"))


def test_more_targets_wmma_sm75_sm120_layouts_equal_triton() -> None:
    """RDNA3/4 (WMMA), Turing and consumer Blackwell modules (examples/build_more_targets.py)."""
    targets = {re.search(r"-(cuda_\d+|hip_gfx\d+)-", p.name).group(1) for p in MORE_TARGETS}
    assert targets == {"cuda_75", "cuda_120", "hip_gfx1100", "hip_gfx1201"}
    compared, oracle_gaps = _layouts_against_triton(MORE_TARGETS)
    assert compared >= 100 and oracle_gaps <= 5


def test_more_kernels_layouts_equal_triton() -> None:
    """join/split, reshape, histogram, gather, fp8 dot, TMA, sort modules (examples/build_more_kernels.py)."""
    compared, oracle_gaps = _layouts_against_triton(sorted((CORPUS / "more_kernels").glob("*.ttgir")))
    assert compared >= 200 and oracle_gaps <= 8


# -- malformed and hostile input ---------------------------------------------------------------------

SMALL = sorted(MODULES, key=lambda p: p.stat().st_size)[0].read_text()


def _outcome(text: str) -> str:
    try:
        parse_module(text, "m.ttgir")
        return "module"
    except TtgirError as exc:
        assert re.match(r"^m\.ttgir:\d+:\d+: ", str(exc)), str(exc)
        return "error"


@pytest.mark.parametrize("cut", [10, 200, 700, -30, -5])
def test_truncated_module_is_a_located_error(cut: int) -> None:
    text = SMALL[:cut] if cut > 0 else SMALL[:cut]
    if "module attributes" in text and text.count("{") != text.count("}"):
        assert _outcome(text) == "error"


def test_specific_breakage_messages() -> None:
    with pytest.raises(TtgirError, match=r"m:2:1: unexpected end of module"):
        parse_module('module attributes {} {\n', "m")
    with pytest.raises(TtgirError, match=r"expected an alias definition or 'module"):
        parse_module("garbage here\n", "m")
    with pytest.raises(TtgirError, match="NUL byte"):
        parse_module("module {\n\x00}\n", "m")
    with pytest.raises(TtgirError, match="no 'module' found"):
        parse_module("#a = #ttg.shared_memory\n", "m")
    deep = "module attributes {} {\n" + "  scf.if %c {\n" * 400 + "  }\n" * 400 + "}\n"
    with pytest.raises(TtgirError, match="nested deeper"):
        parse_module(deep, "m")


def test_unknown_dialects_and_bad_attributes_degrade_to_unknowns() -> None:
    text = textwrap.dedent("""\
        #weird = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], bogus = 1}>
        #deep = #ttg.linear<{register = DEEP}>
        module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90"} {
          tt.func public @k() {
            %0 = foo.bar %x {attr = 1} : tensor<128xf32, #weird> loc(#loc1)
            %1 = foo.baz : tensor<128xf32, #deep>
            tt.return
          }
        }
        #loc1 = loc("k.py":1:2)
        """).replace("DEEP", "[" * 200 + "]" * 200)
    m = parse_module(text, "m")
    ops = [op for _, op, _ in m.walk()]
    assert ops[0].name == "foo.bar" and ops[0].results[0].type.encoding_error
    assert "nested deeper" in ops[1].results[0].type.encoding_error
    assert str(ops[0].source) == "k.py:1:2"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_mutated_modules_never_crash(data) -> None:
    text = SMALL
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(text)))
        kind = data.draw(st.sampled_from(["delete", "insert", "dup"]))
        if kind == "delete":
            text = text[:i] + text[i + data.draw(st.integers(1, 40)):]
        elif kind == "insert":
            text = text[:i] + data.draw(st.sampled_from(["{", "}", "(", ">", "<{", "%x = ", "\n", "#", "loc(",
                                                         '"', "\\", "^bb0(", "\x00", "9" * 80])) + text[i:]
        else:
            j = data.draw(st.integers(0, len(text)))
            text = text[:i] + text[min(i, j):max(i, j)] + text[i:]
    _outcome(text)  # a Module or a located TtgirError, nothing else


@pytest.mark.slow
@settings(max_examples=10000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
def test_fuzz_garbage_slow(text) -> None:
    _outcome("module attributes {} {\n" + text)


# -- loader --------------------------------------------------------------------------------------------

def test_loader_reads_dirs_cache_layouts_and_refuses_special_files(tmp_path) -> None:
    cache = tmp_path / "cache"
    (cache / "AbC123").mkdir(parents=True)
    (cache / "AbC123" / "k.ttgir").write_text(SMALL)
    (cache / "AbC123" / "k.json").write_text("{}")
    (cache / "Zz9" / "deeper").mkdir(parents=True)
    (cache / "Zz9" / "deeper" / "K.MLIR").write_text(SMALL)
    (cache / "AbC123" / "broken.ttgir").write_text(SMALL[:300])
    got = load_paths([str(cache)])
    assert sum(isinstance(m, Module) for m in got) == 2
    assert sum(isinstance(m, TtgirError) for m in got) == 1
    fifo = tmp_path / "p.ttgir"
    os.mkfifo(fifo)
    (err,) = load_paths([str(fifo)])
    assert isinstance(err, TtgirError) and "not a regular file" in str(err)
    (err,) = load_paths([str(tmp_path / "missing.ttgir")])
    assert isinstance(err, TtgirError) and "cannot read" in str(err)
    (tmp_path / "bin.ttgir").write_bytes(b"module \xff\xfe")
    (err,) = load_paths([str(tmp_path / "bin.ttgir")])
    assert isinstance(err, TtgirError) and "not UTF-8" in str(err)


def test_dump_is_split_into_pass_snapshots(tmp_path) -> None:
    triton = pytest.importorskip("triton")
    del triton
    script = textwrap.dedent("""
        import triton, triton.language as tl
        from triton.compiler import ASTSource
        from triton.backends.compiler import GPUTarget
        @triton.jit
        def k(x, y, N: tl.constexpr):
            o = tl.arange(0, N)
            v = tl.load(x + o[:, None] * N + o[None, :])
            tl.store(y + o[:, None] * N + o[None, :], tl.trans(v))
        triton.compile(ASTSource(fn=k, signature={"x": "*fp16", "y": "*fp16", "N": "constexpr"},
                                 constexprs={"N": 64}), target=GPUTarget("cuda", 90, 32))
    """)
    path = tmp_path / "k.py"
    path.write_text(script)
    env = {**os.environ, "MLIR_ENABLE_DUMP": "1", "TRITON_CACHE_DIR": str(tmp_path / "c"),
           "TRITON_DEFAULT_FP_FUSION": "1"}
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dump = proc.stderr
    assert is_dump(dump)
    heads = [s for s, _, _ in split_dump(dump)]
    mods = load_text(dump, "k.dump")
    assert all(isinstance(m, Module) for m in mods), [str(m) for m in mods if not isinstance(m, Module)][:3]
    stages = [m.stage for m in mods]
    assert "TritonGPUCoalesce" in stages and "TritonGPURemoveLayoutConversions" in stages
    assert set(stages) <= set(heads)
    # line numbers are the dump's own
    for m in mods[:5]:
        for _, op, _ in m.walk():
            assert op.name in dump.splitlines()[op.location.line - 1]
            break


LIT_STYLE = '''// RUN: some-tool %s -split-input-file | FileCheck %s

#bl = #ttg.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.target" = "cuda:80", "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: two_line_args
  tt.func public @two_line_args(
     %a: tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>>,
     %b: tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>>) -> tensor<64x64xf32, #bl> {
    %z = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #bl>   // a trailing comment
    %d = tt.dot %a, %b, %z :
      tensor<64x32xf16, #ttg.dot_op<{opIdx = 0, parent = #bl}>> * tensor<32x64xf16, #ttg.dot_op<{opIdx = 1, parent = #bl}>> -> tensor<64x64xf32, #bl>
    tt.return %d : tensor<64x64xf32, #bl>
  }
}

// -----

#b2 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
tt.func @implicit_module(%x: tensor<64xf32, #b2>) -> tensor<64xf32, #b2> {
  %y = arith.addf %x, %x : tensor<64xf32, #b2>
  tt.return %y : tensor<64xf32, #b2>
}
'''


def test_lit_test_style_files() -> None:
    """Triton's own lit tests: `// -----` splits, multi-line signatures and ops, comments, implicit modules."""
    mods = load_text(LIT_STYLE, "t.mlir")
    assert [type(m).__name__ for m in mods] == ["Module", "Module"]
    a, b = mods
    fn = a.functions[0]
    assert fn.name == "two_line_args" and len(fn.arguments) == 2
    assert fn.arguments[0].type.encoding["kind"] == "dot_operand"
    dot = next(op for _, op, _ in a.walk() if op.name == "tt.dot")
    assert dot.location.line == 10 and dot.operands == ("%a", "%b", "%z")
    assert dot.results[0].type.shape == (64, 64)
    assert b.functions[0].name == "implicit_module" and b.target == ""
    add = next(op for _, op, _ in b.walk() if op.name == "arith.addf")
    assert add.location.line == LIT_STYLE.splitlines().index("  %y = arith.addf %x, %x : tensor<64xf32, #b2>") + 1


def test_multi_buffered_tmem_is_one_tile_per_buffer() -> None:
    """`!ttg.memdesc<2x128x128xf32, #tmem, ...>`: the TMEM encoding is a 2-D tile, the leading dim counts buffers
    (the warp-specialized matmul of examples/more_kernels.py allocates its accumulator so)."""
    enc = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"
    text = textwrap.dedent(f'''\
        module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
          tt.func public @k() {{
            %0 = ttng.tmem_alloc : () -> !ttg.memdesc<2x128x128xf32, {enc}, #ttng.tensor_memory, mutable>
            tt.return
          }}
        }}
        ''')
    mod = parse_module(text, "m.ttgir")
    op = next(op for _, op, _ in mod.walk() if op.name == "ttng.tmem_alloc")
    built = layout_of(op.results[0].type)
    assert isinstance(built, BuiltLayout), built
    assert built.shape == (128, 128) and built.buffers == 2


def test_select_result_type_is_the_last_printed_type() -> None:
    text = textwrap.dedent('''\
        #b = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
        module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
          tt.func public @k(%c: tensor<128xi1, #b>, %x: tensor<128xf32, #b>, %p: i1) {
            %0 = arith.select %c, %x, %x : tensor<128xi1, #b>, tensor<128xf32, #b>
            %1 = arith.select %p, %x, %x : tensor<128xf32, #b>
            tt.return
          }
        }
        ''')
    mod = parse_module(text, "m.ttgir")
    ops = [op for _, op, _ in mod.walk() if op.name == "arith.select"]
    assert [op.results[0].type.element for op in ops] == ["f32", "f32"]


def test_byte_order_mark_and_crlf_lines_read_as_the_plain_text(tmp_path) -> None:
    # modules pasted from Windows editors: a UTF-8 byte-order mark and CRLF line ends give the same verdicts
    from llverify.ttgir.gate import gate_file

    src = Path(__file__).resolve().parent / "data" / "ttgir" / "matmul-t64s1-cuda_90-w4.ttgir"
    plain = src.read_bytes()
    variants = {"bom": b"\xef\xbb\xbf" + plain, "crlf": plain.replace(b"\n", b"\r\n"),
                "both": b"\xef\xbb\xbf" + plain.replace(b"\n", b"\r\n")}

    def outcomes(path):
        res = gate_file(str(path))
        assert not res.errors, res.errors
        return sorted((f.location.line, f.rule, f.verdict.status) for f in res.findings)

    want = outcomes(src)
    assert want
    for name, data in variants.items():
        p = tmp_path / f"{name}.ttgir"
        p.write_bytes(data)
        assert outcomes(p) == want, name


def test_dump_with_stderr_noise_between_snapshots_reads_every_snapshot(tmp_path) -> None:
    # MLIR_ENABLE_DUMP captured with `2> dump.txt` carries Python's warnings between snapshots: every snapshot
    # is still read, with the same verdicts at the same (dump) lines; noise inside a module stays an error there
    from llverify.ttgir.gate import gate_file

    src = Path(__file__).resolve().parent / "data" / "ttgir" / "versions" / "3.6.0" / "matmul-t64s1-cuda_90-w4.dump.mlir"
    lines = src.read_text().split("\n")
    noise = ["/site-packages/triton/knobs.py:504: UserWarning: TRITON_DEFAULT_FP_FUSION is unset",
             "  warn_once(FP_FUSION_DEFAULT_WARNING)"]
    heads = [i for i, ln in enumerate(lines) if ln.startswith("// -----// IR Dump")]
    assert len(heads) >= 3
    noisy: list[str] = []
    origin: list[int | None] = []  # per noisy line (0-based), the clean line it is, None for noise
    for i, ln in enumerate(lines):
        if i in heads[1:]:  # before every snapshot after the first: after the previous one's module
            noisy.extend(noise)
            origin.extend([None] * len(noise))
        noisy.append(ln)
        origin.append(i)
    path = tmp_path / "noisy.dump.mlir"
    path.write_text("\n".join(noisy))
    clean, got = gate_file(str(src)), gate_file(str(path))
    assert not got.errors and got.modules == clean.modules == len(heads)
    want = sorted((f.location.line, f.rule, f.verdict.status) for f in clean.findings)
    mapped = sorted((origin[f.location.line - 1] + 1, f.rule, f.verdict.status) for f in got.findings)
    assert want and mapped == want
    inside = list(lines)
    module_line = next(i for i in range(heads[1], len(lines)) if lines[i].startswith("module"))
    inside.insert(module_line + 3, noise[0])  # within the second snapshot's module
    bad = tmp_path / "inside.dump.mlir"
    bad.write_text("\n".join(inside))
    res = gate_file(str(bad))
    assert res.errors and res.modules == len(heads) - 1


def test_a_dump_may_exceed_the_module_limit_but_a_module_may_not(tmp_path, monkeypatch) -> None:
    # a real gfx1250 pipelined-matmul dump is 74 MB of ~1 MB snapshots: it is read snapshot by snapshot; a single
    # module over the limit is still refused, located, and a file over the file limit is refused unread
    from llverify.ttgir import loader
    from llverify.ttgir.gate import gate_file

    data = Path(__file__).resolve().parent / "data" / "ttgir"
    dump = data / "versions" / "3.6.0" / "matmul-t64s1-cuda_90-w4.dump.mlir"
    module = data / "matmul-t64s1-cuda_90-w4.ttgir"
    limit = min(dump.stat().st_size, module.stat().st_size) - 1
    monkeypatch.setattr(loader, "MAX_MODULE_BYTES", limit)
    res = gate_file(str(dump))
    assert not res.errors and res.modules == 3
    res = gate_file(str(module))
    assert res.modules == 0 and len(res.errors) == 1 and "limit of a module" in res.errors[0]
    assert res.errors[0].startswith(f"{module}:1:1:")
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", limit)
    res = gate_file(str(dump))
    assert res.modules == 0 and "MiB limit" in res.errors[0]
