"""`llverify ttgir` on real modules: the unmutated corpus passes, each single mutation is refuted with a
located finding, policy and baseline behave, and the command's formats and exit codes hold."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llverify.ttgir.baseline import diff_findings, regressions
from llverify.ttgir.gate import check_module
from llverify.ttgir.policy import PolicyError, apply_policy, load_policy
from llverify.ttgir.reader import parse_module

CORPUS = Path(__file__).resolve().parent / "data" / "ttgir"


def _module(name: str) -> str:
    return (CORPUS / f"{name}.ttgir").read_text()


def _findings(text: str, path: str = "m.ttgir"):
    return check_module(parse_module(text, path))


def _bad(findings):
    return [f for f in findings if f.verdict.status not in ("proved", "unknown")]


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--no-cache", *args], capture_output=True,
                          text=True, cwd=cwd)


@pytest.mark.parametrize("name", ["matmul-t128s3-cuda_90-w4", "matmul-t64s1-cuda_80-w4", "attention-q64k64d64-cuda_100-w4",
                                  "transpose-m64n64-cuda_90-w8", "reduction-m64n64-cuda_80-w4",
                                  "gluon_convert_lane_swap_w4-64x64-cuda_90-w4", "softmax-r16c256-hip_gfx942-w8"])
def test_unmutated_modules_pass(name: str) -> None:
    findings = _findings(_module(name))
    assert findings and not _bad(findings)
    assert all(f.verdict.status == "proved" or f.rule == "shared_access" for f in findings)


def _replace_line(text: str, needle: str, old: str, new: str) -> tuple[str, int]:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if needle in line and old in line:
            lines[i] = line.replace(old, new, 1)
            return "\n".join(lines) + "\n", i + 1
    raise AssertionError(f"no line with {needle!r} and {old!r}")


def _assert_refuted_at(findings, line: int, rule: str) -> None:
    bad = _bad(findings)
    assert bad, "the mutant was not refuted"
    hits = [f for f in bad if f.location.line == line and f.rule == rule]
    assert hits, [(f.location.line, f.rule, f.verdict.message) for f in bad]
    for f in hits:
        assert f.verdict.status == "refuted" and f.verdict.counterexample is not None


def test_mutant_convert_result_layout_breaks_the_store() -> None:
    text = _module("gluon_convert_lane_swap_w4-64x64-cuda_90-w4")
    m = re.search(r"ttg.convert_layout .*-> tensor<64x64xf16, (#\w+)>", text)
    target = m.group(1)
    other = "#blocked" if target != "#blocked" else "#blocked1"
    mutated, line = _replace_line(text, "ttg.convert_layout", f"-> tensor<64x64xf16, {target}>",
                                  f"-> tensor<64x64xf16, {other}>")
    findings = _findings(mutated)
    store = [f for f in _bad(findings) if f.op == "tt.store"]
    assert store and store[0].rule in ("memory_operands", "use_type")
    assert store[0].verdict.counterexample is not None


def test_mutant_trans_result_layout_is_refuted() -> None:
    text = _module("transpose-m64n64-cuda_90-w4")
    m = re.search(r"tt.trans .* -> tensor<64x64xf16, (#\w+)>", text)
    aliases = set(re.findall(r"^(#blocked\d*) = ", text, re.M))
    other = sorted(aliases - {m.group(1)})[0]
    mutated, line = _replace_line(text, "tt.trans", f"-> tensor<64x64xf16, {m.group(1)}>",
                                  f"-> tensor<64x64xf16, {other}>")
    _assert_refuted_at(_findings(mutated), line, "shape_op")


def test_mutant_reduce_slice_dim_is_refuted() -> None:
    text = _module("reduction-m64n64-cuda_80-w4")
    m = re.search(r'"tt.reduce".*\) -> tensor<64xf32, #ttg.slice<\{dim = (\d)', text, re.S)
    assert m
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("})") and "#ttg.slice<{dim = 1" in line:
            lines[i] = line.replace("#ttg.slice<{dim = 1", "#ttg.slice<{dim = 0")
            mutated, line_no = "\n".join(lines) + "\n", i + 1
            break
    findings = _findings(mutated)
    bad = [f for f in _bad(findings) if f.rule == "reduce_scan"]
    assert bad and bad[0].verdict.counterexample is not None


def test_mutant_dot_operand_kwidth_is_refuted() -> None:
    text = _module("matmul-t64s1-cuda_80-w4")
    # a pass that picks the wrong kWidth does so consistently: every occurrence changes
    mutated = text.replace("opIdx = 0, parent = #mma, kWidth = 2", "opIdx = 0, parent = #mma, kWidth = 4")
    bad = [f for f in _bad(_findings(mutated)) if f.op == "tt.dot"]
    assert bad and any("kWidth" in str(f.verdict.counterexample.sides) for f in bad)


def test_mutant_local_load_through_another_swizzle_is_refuted() -> None:
    text = _module("matmul-t64s1-cuda_80-w4")
    mutated, line = _replace_line(text, "ttg.local_load", "#shared,", "#shared1,")
    _assert_refuted_at(_findings(mutated), line, "use_type")


def test_unknown_is_unknown_never_proved() -> None:
    findings = _findings(_module("matmul-t64s1-hip_gfx950-w4"))
    unknown = [f for f in findings if f.verdict.status == "unknown"]
    assert unknown and all(f.rule == "shared_access" and "gfx950" in f.verdict.message for f in unknown)


# -- policy -------------------------------------------------------------------------------------------

def test_policy_thresholds(tmp_path) -> None:
    findings = _findings(_module("matmul-t128s1-cuda_90-w4"))
    pol = tmp_path / "p.yaml"
    pol.write_text("defaults:\n  max_shared_memory_conversions: 0\n  max_wavefronts: 1\n"
                   "kernels:\n  - match: 'other*'\n    max_wavefronts: 100\n")
    violations = apply_policy(load_policy(str(pol)), findings)
    assert any("shared-memory conversions" in v.verdict.subject for v in violations)
    assert any("wavefronts" in v.verdict.subject for v in violations)
    assert all(v.verdict.status == "refuted" and v.verdict.counterexample for v in violations)
    pol.write_text("kernels:\n  - match: 'matmul'\n    max_shared_memory_conversions: 5\n")
    assert apply_policy(load_policy(str(pol)), findings) == []
    for bad in ("defaults: {max_wavefronts: -1}\n", "defaults: {forbid: [everything]}\n", "kernels: [{}]\n",
                "nonsense: 1\n", "defaults: [\n"):
        pol.write_text(bad)
        with pytest.raises(PolicyError, match=str(pol)):
            load_policy(str(pol))


def test_policy_schema_accepts_the_documented_example() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from llverify.ttgir.policy import policy_schema

    doc = {"defaults": {"max_shared_memory_conversions": 2, "max_wavefronts": 4,
                        "forbid": ["no_op_conversion", "unknown"]},
           "kernels": [{"match": "attn_*", "max_shared_memory_conversions": 0}]}
    jsonschema.validate(doc, policy_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"defaults": {"max_wavefronts": "four"}}, policy_schema())


# -- baseline -----------------------------------------------------------------------------------------

def test_baseline_self_diff_is_empty_and_an_added_conversion_is_reported() -> None:
    text = _module("gluon_convert_vec4_to_vec1_w4-64x64-cuda_90-w4")
    base = _findings(text)
    assert diff_findings(base, _findings(text)) == []
    # add one conversion (from the loaded tile to another layout), at a new Python location
    m = re.search(r"^(\s*)(%\w+) = tt.load .*: (tensor<64x64x!tt.ptr<f16>, (#\w+)>)", text, re.M)
    enc = m.group(4)
    other = "#blocked1" if enc != "#blocked1" else "#blocked"
    extra = (f'{m.group(1)}%extra = ttg.convert_layout {m.group(2)} : tensor<64x64xf16, {enc}> -> '
             f'tensor<64x64xf16, {other}> loc("new.py":7:3)')
    lines = text.splitlines()
    at = next(i for i, l in enumerate(lines) if m.group(0).strip() in l)
    lines.insert(at + 1, extra)
    cur = _findings("\n".join(lines) + "\n")
    diffs = diff_findings(base, cur)
    changes = [c for d in diffs for c in d.changes]
    assert [c.kind for c in changes] == ["added"] and "new.py:7:3" in changes[0].key
    regs = regressions(diffs)
    assert len(regs) == 1 and regs[0].verdict.status == "refuted" and regs[0].location.line == at + 2


# -- the command --------------------------------------------------------------------------------------

def test_cli_json_schema_and_exit_codes(tmp_path) -> None:
    mod = CORPUS / "matmul-t128s3-cuda_90-w4.ttgir"
    out = _cli("--format", "json", str(mod))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert set(doc) >= {"llverify", "results", "summary"}
    r = doc["results"][0]
    for key in ("spec", "check", "property", "subject", "expected", "status", "ok", "method", "seconds",
                "counterexample", "message", "details", "op", "location", "source", "kernel"):
        assert key in r
    conv = [x for x in doc["results"] if x["rule"] == "conversion"]
    assert conv and "classification" in conv[0]["details"] and "cost" in conv[0]["details"]
    per_op = doc["summary"]["per_op"]["ttg.convert_layout"]
    assert per_op["proved"] == sum(x["op"] == "ttg.convert_layout" for x in doc["results"])
    # unknowns only (gfx950 has no bank model): 3; with --allow-unknown: 0
    amd = CORPUS / "matmul-t64s1-hip_gfx950-w4.ttgir"
    assert _cli(str(amd)).returncode == 3
    assert _cli("--allow-unknown", str(amd)).returncode == 0
    # a refutation: 1, located
    bad = tmp_path / "bad.ttgir"
    text = (CORPUS / "matmul-t64s1-cuda_80-w4.ttgir").read_text()
    bad.write_text(text.replace("opIdx = 0, parent = #mma, kWidth = 2", "opIdx = 0, parent = #mma, kWidth = 4"))
    res = _cli(str(bad))
    assert res.returncode == 1 and re.search(r"bad\.ttgir:\d+:\d+: error: dot_operands", res.stdout)
    # an unreadable module among good ones: 2, and the good one is still reported
    broken = tmp_path / "broken.ttgir"
    broken.write_text(text[:500])
    res = _cli("--format", "json", str(broken), str(mod))
    assert res.returncode == 2
    doc = json.loads(res.stdout)
    assert doc["errors"] and doc["results"] and "broken.ttgir:" in doc["errors"][0]
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("fmt", ["text", "junit", "sarif", "markdown"])
def test_cli_formats(fmt, tmp_path) -> None:
    bad = tmp_path / "bad.ttgir"
    bad.write_text((CORPUS / "matmul-t64s1-cuda_80-w4.ttgir").read_text()
                   .replace("opIdx = 0, parent = #mma, kWidth = 2", "opIdx = 0, parent = #mma, kWidth = 4"))
    out = tmp_path / f"r.{fmt}"
    res = _cli("--format", fmt, "-o", str(out), str(bad))
    assert res.returncode == 1
    body = out.read_text()
    if fmt == "sarif":
        doc = json.loads(body)
        results = doc["runs"][0]["results"]
        assert results and results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("bad.ttgir")
        assert results[0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith(".py")
    else:
        assert "dot_operands" in body


def test_cli_bad_command_lines(tmp_path) -> None:
    assert _cli().returncode == 2
    res = _cli("-o", str(tmp_path / "missing" / "x.json"), str(CORPUS / "matmul-t64s1-cuda_80-w4.ttgir"))
    assert res.returncode == 2 and "does not exist" in res.stderr
    pol = tmp_path / "p.yaml"
    pol.write_text("defaults: {forbid: [nope]}\n")
    res = _cli("--policy", str(pol), str(CORPUS / "matmul-t64s1-cuda_80-w4.ttgir"))
    assert res.returncode == 2 and "forbid" in res.stderr and "Traceback" not in res.stderr


def test_cli_parallel_equals_sequential_and_cache_replays(tmp_path) -> None:
    files = [str(p) for p in sorted(CORPUS.glob("*cuda_90-w4.ttgir"))][:24]
    one = _cli("--format", "json", "-j", "1", *files)
    two = _cli("--format", "json", "-j", "2", *files)

    def strip(doc):
        for r in doc["results"]:
            r.pop("seconds")
            r["details"].pop("seconds", None)
        doc["summary"].pop("seconds")
        return doc

    assert strip(json.loads(one.stdout)) == strip(json.loads(two.stdout))
    cache = tmp_path / "c.sqlite"
    cold = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--cache", str(cache), "--format", "json",
                           *files], capture_output=True, text=True)
    warm = subprocess.run([sys.executable, "-m", "llverify.cli", "ttgir", "--cache", str(cache), "--format", "json",
                           *files], capture_output=True, text=True)
    a, b = strip(json.loads(cold.stdout)), strip(json.loads(warm.stdout))
    assert b["summary"]["cached_files"] == len(files) and a["summary"]["cached_files"] == 0
    a["summary"].pop("cached_files"), b["summary"].pop("cached_files")
    assert a == b


def test_cli_lowered_beside_ttgir() -> None:
    """With --lowered, a .ttgir whose .llir and Triton metadata sit beside it (a cache directory) gets the
    lowered-code obligations too, located in both files."""
    data = CORPUS.parent / "lowered"
    res = _cli("--lowered", "--format", "json", str(data))
    doc = json.loads(res.stdout)
    low = [r for r in doc["results"] if r["rule"].startswith("lowered")]
    assert low and all("lowered" in r and r["lowered"]["file"].endswith(".llir") for r in low)
    assert doc["summary"]["refuted"] == 0 and res.returncode in (0, 3)
    assert {r["rule"] for r in low} >= {"lowered_in_bounds", "lowered_wavefronts"}


# -- Triton 3.0-3.2 spellings ---------------------------------------------------------------------------

def _as_triton_3_2(text: str) -> str:
    """The same module as Triton 3.0-3.2 printed it: long dialect names, `#triton_gpu.shared<{...,
    hasLeadingOffset = false}>` for the swizzled encoding and `!tt.memdesc` for memory descriptors."""
    text = re.sub(r"#ttg\.swizzled_shared<\{([^}]*)\}>", r"#ttg.shared<{\1, hasLeadingOffset = false}>", text)
    text = text.replace("!ttg.memdesc<", "!tt.memdesc<")
    text = re.sub(r"amd_mfma<\{version = (\d+),", r"amd_mfma<{versionMajor = \1, versionMinor = 0,", text)
    text = re.sub(r"\bttng\.", "triton_nvidia_gpu.", text)
    return re.sub(r"\bttg\.", "triton_gpu.", text)


def _outcomes(findings):
    return sorted((f.location.line, f.rule, f.verdict.status) for f in findings)


@pytest.mark.parametrize("name", ["matmul-t64s1-cuda_80-w4", "attention-q128k64d64-cuda_80-w4",
                                  "softmax-r16c256-hip_gfx942-w8", "attention-q128k64d64-hip_gfx942-w4"])
def test_triton_3_2_spelling_gives_the_same_verdicts(name: str) -> None:
    text = _module(name)
    old = _as_triton_3_2(text)
    assert "ttg." not in old.replace("triton_gpu.", "") and old != text
    assert "version = " not in old.replace("versionM", "")
    assert _outcomes(_findings(old)) == _outcomes(_findings(text))


def test_triton_3_2_spelling_keeps_mutants_refuted() -> None:
    text = _module("matmul-t64s1-cuda_80-w4")
    mutated, line = _replace_line(text, "ttg.local_load", "#shared,", "#shared1,")
    _assert_refuted_at(_findings(_as_triton_3_2(mutated)), line, "use_type")


_NVMMA_AS_3_2 = {32: "perPhase = 4, maxPhase = 2", 64: "perPhase = 2, maxPhase = 4", 128: "perPhase = 1, maxPhase = 8"}


def _nvmma_as_triton_3_2(text: str) -> str:
    """The module as Triton 3.0-3.2 printed it, with its NVMMA layouts in that version's leading-offset form:
    ``#triton_gpu.shared<{vec = 128 / bits, perPhase, maxPhase, order, hasLeadingOffset = true}>``."""
    def old(m: re.Match) -> str:
        width, transposed, bits = int(m.group(1)), m.group(2) == "true", int(m.group(3))
        order = "[0, 1]" if transposed else "[1, 0]"
        return (f"#ttg.shared<{{vec = {128 // bits}, {_NVMMA_AS_3_2[width]}, order = {order}, "
                f"hasLeadingOffset = true}}>")
    text = re.sub(r"#ttg\.nvmma_shared<\{swizzlingByteWidth = (\d+), transposed = (\w+), elementBitWidth = (\d+)\}>",
                  old, text)
    return _as_triton_3_2(text)


def _triton_3_2_leading_offset(shape, width, bits, order):
    """Triton 3.2's leading-offset shared layout (rank 2, one CTA) from that version's definition, written out
    independently of llverify's builders: one 8-row atom of ``8 * width / bits`` columns (columns first; row
    ``r < 8`` XORs ``(128 / bits) * ((r / perPhase) % maxPhase)`` into the column), then the rows, then the
    columns beyond the atom."""
    from llverify.layout import LinearLayout

    col, row = order
    atom_cols, vec = 8 * width // bits, 128 // bits
    per_phase, max_phase = {32: (4, 2), 64: (2, 4), 128: (1, 8)}[width]

    def basis(r: int, c: int) -> list[int]:
        v = [0, 0]
        v[row], v[col] = r, c
        return v
    bases = [basis(0, 1 << k) for k in range(atom_cols.bit_length() - 1)]
    bases += [basis(r, vec * ((r // per_phase) % max_phase)) for r in (1, 2, 4)]
    bases += [basis(1 << k, 0) for k in range(3, shape[row].bit_length() - 1)]
    bases += [basis(0, 1 << k) for k in range(atom_cols.bit_length() - 1, shape[col].bit_length() - 1)]
    return LinearLayout.from_bases({"offset": bases, "block": []}, ["dim0", "dim1"])


def test_leading_offset_shared_of_triton_3_2_is_nvmma_up_to_256_rows() -> None:
    from llverify.ttgir.layouts import layout_of
    from llverify.ttgir.types import parse_typeref

    checked = 0
    for bits, elem in ((8, "i8"), (16, "f16"), (32, "f32")):
        for width, phases in _NVMMA_AS_3_2.items():
            for order in ([1, 0], [0, 1]):
                atom = 8 * width // bits
                for rows in (8, 64, 256, 512):
                    for cols in (atom, 4 * atom):
                        shape = (rows, cols) if order == [1, 0] else (cols, rows)
                        enc = f"#triton_gpu.shared<{{vec = {128 // bits}, {phases}, order = {order}, hasLeadingOffset = true}}>"
                        got = layout_of(parse_typeref(f"!tt.memdesc<{shape[0]}x{shape[1]}x{elem}, {enc}>", {}))
                        if rows > 256:  # Triton 3.3+ tiles TMA boxes of at most 256 rows: not the same map
                            assert "beyond 256 rows" in got.reason
                            continue
                        assert got.layout == _triton_3_2_leading_offset(shape, width, bits, order), (bits, width, shape)
                        checked += 1
    assert checked == 108
    wrong_vec = layout_of(parse_typeref("!tt.memdesc<64x64xf16, #triton_gpu.shared<{vec = 4, perPhase = 1, "
                                        "maxPhase = 8, order = [1, 0], hasLeadingOffset = true}>>", {}))
    assert "needs vec = 8" in wrong_vec.reason


def test_leading_offset_shared_of_triton_3_2_gives_the_same_verdicts() -> None:
    # Hopper wgmma matmuls and attention as Triton 3.2 printed them: every verdict as on the 3.9 spelling
    for name in ("matmul-t128s3-cuda_90-w4", "matmul-t64s1-cuda_90-w4", "attention-q128k64d64-cuda_90-w4"):
        text = _module(name)
        old = _nvmma_as_triton_3_2(text)
        assert "hasLeadingOffset = true" in old and "nvmma_shared" not in old
        assert _outcomes(_findings(old)) == _outcomes(_findings(text))


def test_leading_offset_shared_of_triton_3_2_keeps_mutants_refuted() -> None:
    # the wgmma's A buffer retyped at its use with an inline leading-offset encoding: the same parameters as its
    # definition's (64-byte swizzle) are the same layout; a 32-byte swizzle is another, refuted where it is used
    text = _nvmma_as_triton_3_2(_module("matmul-t64s1-cuda_90-w4"))
    enc = "#triton_gpu.shared<{{vec = 8, {}, order = [1, 0], hasLeadingOffset = true}}>"
    same, line = _replace_line(text, "warp_group_dot %", "64x32xf16, #shared,",
                               f"64x32xf16, {enc.format(_NVMMA_AS_3_2[64])},")
    assert not _bad(_findings(same))
    other, line = _replace_line(text, "warp_group_dot %", "64x32xf16, #shared,",
                                f"64x32xf16, {enc.format(_NVMMA_AS_3_2[32])},")
    _assert_refuted_at(_findings(other), line, "use_type")


def test_leading_offset_pairs_triton_3_2_never_accepted_are_read_errors() -> None:
    text = _nvmma_as_triton_3_2(_module("matmul-t64s1-cuda_90-w4")).replace("perPhase = 2, maxPhase = 4",
                                                                            "perPhase = 1, maxPhase = 4")
    findings = _findings(text)  # (1, 4) is no pair Triton 3.2 accepts with a leading offset
    assert not _bad(findings)
    unknown = [f for f in findings if f.verdict.status == "unknown"]
    assert unknown and all("leading-offset" in f.verdict.message for f in unknown)


def test_triton_2_mma_mnemonic_gives_the_same_verdicts() -> None:
    text = _module("matmul-t64s1-cuda_80-w4")
    old = _as_triton_3_2(text).replace("#triton_gpu.nvidia_mma<", "#triton_gpu.mma<")
    assert "#triton_gpu.mma<" in old
    assert _outcomes(_findings(old)) == _outcomes(_findings(text))


def test_more_targets_pass_with_only_bank_unknowns_on_rdna() -> None:
    """WMMA (gfx1100, gfx1201), sm_75 and sm_120 modules: nothing refuted; the only unknowns are RDNA bank
    claims the model does not establish (writes: only reads were measured; stated in the message)."""
    modules = sorted((CORPUS / "more_targets").glob("*.ttgir"))
    assert len(modules) == 20
    for path in modules:
        findings = _findings(path.read_text(), str(path))
        assert findings and not _bad(findings), path.name
        for f in findings:
            if f.verdict.status == "unknown":
                assert f.rule == "shared_access" and "gfx1" in path.name and "not established" in f.verdict.message


def test_more_kernels_pass() -> None:
    """join/split, trans+reshape, histogram, gather, atomics, fp8 dot, TMA descriptors, cumsum+sort, argmax,
    batched dot, interleave+flip, tuple scan, dot_scaled, cat + reorder reshape (examples/more_kernels.py) on cuda:90, cuda:100 and
    gfx942: everything proved, the layout of Blackwell's TMEM scales (dot_scaled on cuda:100) included.
    `tl.sort` once gave 45 false `use_type` refutations (arith.select's result type read from its condition)."""
    modules = sorted((CORPUS / "more_kernels").glob("*.ttgir"))
    assert len(modules) == 48
    for path in modules:
        findings = _findings(path.read_text(), str(path))
        assert findings and not _bad(findings), path.name
        for f in findings:
            assert f.verdict.status == "proved", (path.name, f.verdict)


def test_wgmma_operand_retyped_at_its_use_is_refuted() -> None:
    # `ttng.warp_group_dot %a, %b, %c : A * B -> C`: the printed A and B are compared with their definitions'
    # types as every other op's operands are (MLIR's parser would reject the mismatch; a hand-edited or
    # mis-printed module must not pass)
    text = _module("matmul-t64s1-cuda_90-w4")
    swapped = "#ttg.nvmma_shared<{swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16}>"
    mutated, line = _replace_line(text, "warp_group_dot %", "64x32xf16, #shared,", f"64x32xf16, {swapped},")
    _assert_refuted_at(_findings(mutated), line, "use_type")
    assert not _bad(_findings(text))
