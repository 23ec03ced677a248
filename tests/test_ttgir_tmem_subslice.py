"""TMEM accesses through ``ttng.tmem_subslice`` views and over several CTAs (``tmem_access``): a view's element
``e`` is its allocation's element ``e + offset`` (the sum of the subslice offsets on its def chain), and a warp
of CTA ``b`` reaches only the tile of ``b``'s tensor memory, in its own lane quarter.

Real output: the epilogue-subtile matmul of examples/kernels/epilogue_subtile.py compiled by Triton 3.9 for
cuda:100 (4 and 8 warps; halves, and quarters through a chain of two subslices).  Oracle: the register layouts
Gluon's ``get_reg_layout`` gives a view (Triton's own choice for a TMEM view) prove at every offset the view
fits at.  Mutants: warps 1 and 2 swapped (refuted at the load, witness replayed), an offset past the
allocation (``view_in_bounds`` refuted at the subslice), a register CGA that is not the TMEM's (refuted: the
element is in the other CTA's tensor memory), and a two-CTA ``blockM = 64`` tile where the offset moves the
view to other lanes (proved at one offset, refuted at the other, unknown when either may hold)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from llverify.hw.tmem import tensor_memory
from llverify.layout import LinearLayout
from llverify.prove.tmem_access import tmem_lane_quarters
from llverify.ttgir.gate import check_module
from llverify.ttgir.reader import parse_module
from llverify.ttgir.rules_tmem import decided_lane_quarters

ROOT = Path(__file__).resolve().parents[1]
DATA = sorted((ROOT / "tests" / "data" / "ttgir" / "tmem_subslice").glob("*.ttgir"))


def _findings(text: str, name: str = "m.ttgir") -> list:
    return check_module(parse_module(text, name))


def _tmem(findings) -> list:
    return [f for f in findings if f.rule == "tmem_access"]


def _line_of(text: str, needle: str) -> int:
    return next(i + 1 for i, ln in enumerate(text.splitlines()) if needle in ln)


def test_real_epilogue_subtiles_prove_at_their_offsets() -> None:
    """Every finding of the compiled modules proves; the subslice reads among them are decided at their views'
    offsets: 2 halves, or 4 quarters whose views are subslices of subslices (offsets 0, 64, 128, 192 of a
    128 x 256 accumulator); in the Gluon modules the chain is subslice (buffers, dim 0), memdesc_index,
    subslice (columns), each half stored and loaded."""
    assert len(DATA) == 6
    for path in DATA:
        text = path.read_text()
        lines = text.splitlines()
        findings = _findings(text, path.name)
        assert findings and all(f.verdict.status == "proved" for f in findings if f.rule in ("tmem_access",
                                "view_in_bounds")), path.name
        views = [f for f in _tmem(findings) if "x64xf32" in lines[f.location.line - 1]]
        offsets = sorted(f.verdict.certificate.get("view offset", {}).get("dim1", 0) for f in views)
        if "gluon" in path.name:
            assert offsets == [0, 0, 64, 64], path.name  # a store and a load per half
        else:
            assert offsets == ([0, 64, 128, 192] if "q-" in path.name else [0, 64]), path.name


def test_a_buffer_slice_past_the_allocation_is_refuted_on_its_dim() -> None:
    """Mutant: buffers 3..4 of a 4-buffer allocation (``{dim = 0 : i32, offset = 3 : i32}``): refuted along dim
    0, where the real ``offset = 2`` proves (its dim read, not taken for the column dim)."""
    path = next(p for p in DATA if "gluon" in p.name)
    text = path.read_text()
    real = "{dim = 0 : i32, offset = 2 : i32}"
    assert text.count(real) == 1
    line = _line_of(text, real)
    ok = [f for f in _findings(text) if f.rule == "view_in_bounds" and f.location.line == line]
    assert [f.verdict.status for f in ok] == ["proved"]
    bad = [f for f in _findings(text.replace(real, real.replace("2 :", "3 :")))
           if f.rule == "view_in_bounds" and f.verdict.status == "refuted"]
    assert [f.location.line for f in bad] == [line]
    ce = bad[0].verdict.counterexample
    assert ce.inputs == {"dim": 0} and dict(ce.sides) == {"offset": 3, "view size": 2, "allocation size": 4}


def _w4_half() -> str:
    return next(p for p in DATA if "m128n128k64-cuda_100-w4" in p.name).read_text()


def test_a_subtile_read_with_warps_1_and_2_swapped_is_refuted() -> None:
    """Mutant: the subtiles' register layout gives warp 1 the rows of warp 2 (64..95) and back."""
    text = _w4_half()
    line = next(ln for ln in text.splitlines() if ln.startswith("#linear1 ="))
    assert "warp = [[32, 0], [64, 0]]" in line
    mutant = text.replace(line, line.replace("warp = [[32, 0], [64, 0]]", "warp = [[64, 0], [32, 0]]"))
    bad = [f for f in _tmem(_findings(mutant)) if f.verdict.status == "refuted"]
    loads = {i + 1 for i, ln in enumerate(text.splitlines()) if "ttng.tmem_load" in ln and "#linear1" in ln}
    assert len(loads) == 2 and {f.location.line for f in bad} == loads
    for f in bad:
        ce = f.verdict.counterexample
        assert ce.inputs["warp"] in (1, 2)
        q = ce.inputs["warp"]  # the quarter warp w must read
        assert list(ce.sides["warp quarter (lanes)"]) == [32 * q, 32 * q + 31]
        assert all(r // 32 != q for r in ce.sides["TMEM rows holding it"])
        # the replay: the element the swapped layout gives that warp, moved by the view's offset, sits in a
        # row of the other quarter in the allocation's layout
        R = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
                                     "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
                                     "warp": [[64, 0], [32, 0]], "block": []}, ["dim0", "dim1"])
        assert dict(R.apply(**ce.inputs)) == dict(ce.sides["element"])


def test_an_offset_past_the_allocation_is_refuted_by_view_in_bounds() -> None:
    """Mutant: the second half read at column 96 of a 128-column accumulator (columns 96..159)."""
    text = _w4_half()
    assert text.count("{offset = 64 : i32}") == 1
    mutant = text.replace("{offset = 64 : i32}", "{offset = 96 : i32}")
    found = _findings(mutant)
    bounds = [f for f in found if f.rule == "view_in_bounds" and f.verdict.status == "refuted"]
    assert [f.location.line for f in bounds] == [_line_of(text, "{offset = 64 : i32}")]
    assert bounds[0].verdict.counterexample.sides["offset"] == 96
    # the read through that view is not claimed either way: the view leaves its allocation
    view = re.search(r"(%\S+) = ttng.tmem_subslice \S+ \{offset = 64 : i32\}", text).group(1)
    load = _line_of(text, f"ttng.tmem_load {view} ")
    at = [f for f in _tmem(found) if f.location.line == load]
    assert [f.verdict.status for f in at] == ["unknown"] and "reaches past" in at[0].verdict.message


MODULE = """#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#L = #ttg.linear<{{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = {warps}, block = []}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%view: !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x128>) {{
    %v = ttng.tmem_load %view : !ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable, 128x128> -> tensor<128x64xf32, #L>
    tt.return
  }}
}}
"""


@pytest.mark.parametrize("warps,status", [("[[32, 0], [64, 0]]", "proved"), ("[[64, 0], [32, 0]]", "refuted")])
def test_a_view_of_unknown_offset_is_decided_at_every_offset_it_fits_at(warps: str, status: str) -> None:
    """A view passed in as an argument: its offset in the 128 x 128 allocation is not read, so the claim is
    decided at each of the 65 offsets a 64-column view fits at; it holds (or fails) at all of them."""
    (f,) = _tmem(_findings(MODULE.format(warps=warps)))
    assert f.verdict.status == status
    assert f.verdict.details["possible view offsets"] == 65


def _two_cta_m64() -> tuple[LinearLayout, LinearLayout]:
    """One CTA's tile of a two-CTA ``blockM = 64`` accumulator (rows 64..127 hold columns 64..127) and a
    2-warp register layout of a 64 x 64 view (warp 1: rows 32..63)."""
    T = tensor_memory([64, 128], 1, [128, 128], cga_layout=[[1, 0]], two_ctas=True)
    R = LinearLayout.from_bases({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
                                 "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "warp": [[32, 0]]},
                                ["dim0", "dim1"])
    return R, T


@pytest.mark.parametrize("first_warp,offset,status", [(0, 0, "proved"), (0, 64, "refuted"),
                                                      (2, 64, "proved"), (2, 0, "refuted")])
def test_the_offset_decides_the_lanes_of_a_two_cta_m64_view(first_warp: int, offset: int, status: str) -> None:
    """The view at column 64 lies in TMEM rows 64..127 (quarters 2, 3): warps 0, 1 read it only when they
    run as CTA warps 2, 3."""
    R, T = _two_cta_m64()
    v = tmem_lane_quarters(R, T, first_warp=first_warp, offset={"dim0": 0, "dim1": offset})
    assert v.status == status
    if status == "refuted":
        ce = v.counterexample
        element = dict(R.apply(**ce.inputs))
        assert dict(ce.sides["element"]) == element
        assert dict(ce.sides.get("allocation element", element)) == {"dim0": element["dim0"],
                                                                     "dim1": element["dim1"] + offset}
        quarter = (first_warp + ce.inputs["warp"]) % 4
        rows = {r for r in range(128) for c in range(T.in_dim_size("col"))
                if dict(T.apply(row=r, col=c)) == {"dim0": element["dim0"], "dim1": element["dim1"] + offset}}
        assert rows and all(r // 32 != quarter for r in rows)


def test_a_view_whose_offset_matters_and_is_not_known_is_unknown() -> None:
    R, T = _two_cta_m64()
    v = decided_lane_quarters(R, T, (0,), ((0, 0), (0, 64)))
    assert v.status == "unknown" and "holds at 1 of the cases" in v.message
    assert decided_lane_quarters(R, T, (0,), ((0, 0),)).status == "proved"


CTAS = """#blocked = #ttg.blocked<{{sizePerThread = [1, 64], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1], CGALayout = [{reg_cga}]}}>
#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1, CGALayout = [[1, 0]]>
module attributes {{"ttg.num-ctas" = 2 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:100", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%x: tensor<256x128xf32, #blocked>) {{
    %true = arith.constant true
    %m = ttng.tmem_alloc : () -> !ttg.memdesc<256x128xf32, #tmem, #ttng.tensor_memory, mutable>
    ttng.tmem_store %x, %m, %true : tensor<256x128xf32, #blocked> -> !ttg.memdesc<256x128xf32, #tmem, #ttng.tensor_memory, mutable>
    tt.return
  }}
}}
"""


def test_an_access_over_two_ctas_proves_per_cta_and_a_foreign_cga_is_refuted() -> None:
    """CTA 1 holds rows 128..255 in its tensor memory: a register layout with the same CGA proves; one whose
    CTAs hold column halves of all 256 rows (CGALayout [[0, 1]]) is
    refuted -- Triton refuses it too ("The cga_layout of the register and memory layout must be the same")."""
    (ok,) = _tmem(_findings(CTAS.format(reg_cga="[1, 0]")))
    assert ok.verdict.status == "proved" and [list(b) for b in ok.verdict.certificate["CTA tiles"]] == [[128, 0]]
    (bad,) = _tmem(_findings(CTAS.format(reg_cga="[0, 1]")))
    assert bad.verdict.status == "refuted"
    ce = bad.verdict.counterexample
    origin = 128 * ce.inputs["block"]  # CTA b's tensor memory holds rows 128 b .. 128 b + 127
    assert dict(ce.sides["its TMEM tile origin"]) == {"dim0": origin, "dim1": 0}
    assert ce.sides["CTA"] == ce.inputs["block"]
    assert not origin <= ce.sides["element"]["dim0"] < origin + 128


ORACLE = textwrap.dedent("""
    import json, sys, warnings
    warnings.filterwarnings("ignore")
    import triton.experimental.gluon.language as gl
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, tensor_memory_descriptor_type
    out = []
    for blk, view, alloc, warps in json.loads(sys.argv[1]):
        ty = tensor_memory_descriptor_type(gl.float32, view, TensorMemoryLayout(blk, col_stride=1), alloc)
        r = ty.get_reg_layout(num_warps=warps)
        out.append({"register": r.reg_bases, "lane": r.lane_bases, "warp": r.warp_bases})
    print(json.dumps(out))
""")

ORACLE_CASES = [([128, 128], [128, 64], [128, 128], 4), ([128, 256], [128, 64], [128, 256], 8),
                ([128, 256], [128, 128], [128, 256], 4), ([64, 128], [64, 64], [64, 128], 4),
                ([64, 64], [128, 32], [128, 64], 4), ([64, 64], [128, 32], [128, 64], 8)]


def test_gluon_register_layouts_of_views_prove_at_every_aligned_offset() -> None:
    """Triton's own register layout for a TMEM view (Gluon ``get_reg_layout``, computed in a child process)
    proves at every offset that is a multiple of the view's width; with warps 1 and 2 swapped it is refuted
    at each."""
    pytest.importorskip("triton")
    proc = subprocess.run([sys.executable, "-c", ORACLE, json.dumps(ORACLE_CASES)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    layouts = json.loads(proc.stdout.strip().splitlines()[-1])
    for (blk, view, alloc, warps), bases in zip(ORACLE_CASES, layouts):
        R = LinearLayout.from_bases(bases, ["dim0", "dim1"], view)
        T = tensor_memory(blk, 1, alloc)
        swapped = dict(bases, warp=[bases["warp"][1], bases["warp"][0], *bases["warp"][2:]])
        W = LinearLayout.from_bases(swapped, ["dim0", "dim1"], view)
        for off in range(0, alloc[1] - view[1] + 1, view[1]):
            at = {"dim0": 0, "dim1": off}
            assert tmem_lane_quarters(R, T, offset=at).status == "proved", (blk, view, alloc, warps, off)
            assert tmem_lane_quarters(W, T, offset=at).status == "refuted", (blk, view, alloc, warps, off)
