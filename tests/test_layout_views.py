"""Triton's layout views (``get_distributed_view`` / ``get_shared_view``) against the 3.9.0 wheel.

The wheel is the judge: every case's text must be equal, character for
character, for both the tensor view and the hardware view.  The wheel runs in
a child process (``_ll_oracle_child.py``, ops ``distributed_view`` /
``shared_view``), as the other LinearLayout differential tests do: Triton
aborts the whole process on a layout with the wrong in dims, so only layouts
with exactly the needed in dims are sent.

Cases:

* random raw layouts from a seeded sampler: out rank 1 to 4 (out dims in any
  order, size-1 dims included), the four in dims in any order, wave32 and
  wave64 lanes, several warps and blocks, zero bases and repeated bases
  (broadcast: several holders per element), non-surjective layouts (elements
  nobody holds);
* random raw shared layouts: swizzled offsets, offset dims shorter or longer
  than a block's share of the tensor, with and without blocks;
* layouts llverify builds from Gluon parameters drawn by
  :func:`llverify.hw.sampling.random_case` (every sampled kind);
* the zoo: every hardware kind :func:`llverify.hw.build` knows on a small
  shape, against the wheel's view of *Triton's own* layout for it (Gluon's
  ``to_linear_layout``; ``amd_rotating_shared`` has no Python path in the
  wheel, so there the wheel draws llverify's bases).

Plus in-process properties over :func:`strategies.layouts` (each hardware
position is listed exactly once, at the element it holds) and the errors.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import oracle_triton
from strategies import layouts

from llverify import LayoutError, LinearLayout, SizeGuardError
from llverify.hw import KINDS, build
from llverify.hw.sampling import SAMPLED_KINDS, random_case
from llverify.layout_views import MAX_VIEW_ELEMENTS, distributed_view, shared_view

CHILD = os.path.join(os.path.dirname(__file__), "_ll_oracle_child.py")
DIST = ["register", "lane", "warp", "block"]

needs_triton = pytest.mark.skipif(not oracle_triton.available(), reason="triton (the oracle) is not installed")


# -- the oracle ---------------------------------------------------------------------------------------
def ser(L: LinearLayout) -> dict:
    return {"bases": [[d, [list(b) for b in bs]] for d, bs in L.bases.items()],
            "outs": [[n, s] for n, s in L.out_dims.items()]}


def wheel_views(layouts_: list[LinearLayout]) -> list[tuple[str, str]]:
    """(tensor view, hardware view) of every layout, as the wheel prints them."""
    cases = []
    for L in layouts_:
        op = "shared_view" if "offset" in L.in_dims else "distributed_view"
        cases += [{"op": op, "a": ser(L), "hw": False}, {"op": op, "a": ser(L), "hw": True}]
    proc = subprocess.run([sys.executable, CHILD], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    return list(zip(out[0::2], out[1::2]))


def my_views(L: LinearLayout) -> tuple[str, str]:
    if "offset" in L.in_dims:
        return L.shared_view(), L.shared_view(hw=True)
    return L.distributed_view(), L.distributed_view(hw=True)


def compare(layouts_: list[LinearLayout]) -> list[tuple[LinearLayout, str, str, str]]:
    """Every (layout, view, mine, wheel's) that differs."""
    bad = []
    for L, theirs in zip(layouts_, wheel_views(layouts_)):
        mine = my_views(L)
        for name, m, t in zip(("tensor", "hw"), mine, theirs):
            if m != t:
                bad.append((L, name, m, t))
    return bad


def report(bad) -> str:
    return "\n".join(f"{name} view differs for {L!r}:\nmine:\n{m[:600]}\nwheel:\n{t[:600]}"
                     for L, name, m, t in bad[:3])


# -- random raw layouts ------------------------------------------------------------------------------
def _out_dims(r: random.Random, max_bits: int) -> dict[str, int]:
    rank = r.randint(1, 4)
    names = [f"dim{i}" for i in range(rank)]
    if r.random() < 0.3:
        r.shuffle(names)  # out dims need not come in dim0.. order
    bits = [0] * rank
    for _ in range(r.randint(0, max_bits)):
        bits[r.randrange(rank)] += 1
    if r.random() < 0.2 and rank > 1:
        bits[r.randrange(rank)] = 0  # a size-1 dim
    return {n: 1 << b for n, b in zip(names, bits)}


def _basis(r: random.Random, outs: dict[str, int], unit: list[tuple[int, int]]) -> list[int]:
    """A unit vector from ``unit`` (consumed), a zero basis, a repeat or a random vector."""
    x = r.random()
    v = [0] * len(outs)
    if unit and x < 0.7:
        k, b = unit.pop()
        v[k] = 1 << b
        if r.random() < 0.15:  # a swizzle-like extra bit elsewhere
            j = r.randrange(len(outs))
            v[j] ^= r.randrange(list(outs.values())[j])
    elif x < 0.85:
        pass  # zero: broadcast
    else:
        v = [r.randrange(s) for s in outs.values()]
    return v


def rand_distributed(r: random.Random) -> LinearLayout:
    outs = _out_dims(r, 9)
    unit = [(k, b) for k, s in enumerate(outs.values()) for b in range(s.bit_length() - 1)]
    r.shuffle(unit)
    lane_bits = r.choice([5, 5, 6, 6, 0, 1, 2, 3])  # wave32, wave64, and tiny warps
    nbits = {"register": r.randint(0, 3), "lane": lane_bits, "warp": r.randint(0, 2), "block": r.choice([0, 0, 1, 2])}
    order = DIST[:]
    if r.random() < 0.3:
        r.shuffle(order)  # in-dim order does not matter to the views
    bases = {d: [_basis(r, outs, unit) for _ in range(nbits[d])] for d in order}
    return LinearLayout(bases, outs, require_surjective=False)


def rand_shared(r: random.Random) -> LinearLayout:
    outs = _out_dims(r, 8)
    total_bits = sum(s.bit_length() - 1 for s in outs.values())
    unit = [(k, b) for k, s in enumerate(outs.values()) for b in range(s.bit_length() - 1)]
    r.shuffle(unit)
    n_block = r.choice([0, 0, 0, 1, 2]) if total_bits else 0
    n_block = min(n_block, total_bits)
    block = [_basis(r, outs, unit) for _ in range(n_block)]
    n_off = total_bits - n_block + r.choice([0, 0, 0, 0, -1, 1, 2])  # shorter / longer than a block's share
    offset = [_basis(r, outs, unit) for _ in range(max(0, n_off))]
    bases = [("offset", offset), ("block", block)]
    if r.random() < 0.3:
        bases.reverse()
    return LinearLayout(bases, outs, require_surjective=False)


def sampled_hw(r: random.Random, n: int) -> list[LinearLayout]:
    """Layouts llverify builds from random Gluon parameters, every sampled kind, small enough to print."""
    out = []
    kinds = [k for k in SAMPLED_KINDS if not k.startswith("tensor_memory")]
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        case = random_case(kinds[tries % len(kinds)], r)
        try:
            L = build(case["kind"], case["shape"], **case["params"])
        except LayoutError:
            continue
        ins = set(L.in_dims)
        if L.total_out_size > 1024 or L.total_in_size > 4096 or ins not in (set(DIST), {"offset", "block"}):
            continue
        out.append(L)
    return out


def cases(seed: int, n_dist: int, n_shared: int, n_hw: int) -> list[LinearLayout]:
    r = random.Random(seed)
    return ([rand_distributed(r) for _ in range(n_dist)] + [rand_shared(r) for _ in range(n_shared)]
            + sampled_hw(r, n_hw))


def _coverage(ls: list[LinearLayout]) -> dict[str, int]:
    dist = [L for L in ls if "lane" in L.in_dims]
    shared = [L for L in ls if "offset" in L.in_dims]
    return {
        "ranks": len({L.num_out_dims for L in ls}),
        "broadcast": sum(not L.is_injective() for L in dist),
        "blocks": sum(L.in_dims["block"] > 1 for L in dist),
        "wave64": sum(L.in_dims["lane"] == 64 for L in dist),
        "non_surjective": sum(not L.is_surjective() for L in dist),
        "shared_blocks": sum(L.in_dims["block"] > 1 for L in shared),
        "shared_no_blocks": sum(L.in_dims["block"] == 1 for L in shared),
        "shared_ragged": sum(L.in_dims["offset"] * L.in_dims["block"] != L.total_out_size for L in shared),
    }


@needs_triton
def test_views_match_the_wheel():
    ls = cases(2026, 160, 100, 90)
    cov = _coverage(ls)
    assert len(ls) >= 300 and cov.pop("ranks") == 4 and min(cov.values()) >= 5, cov
    bad = compare(ls)
    print(f"\n{len(ls)} layouts x 2 views against triton {oracle_triton.triton_version()}: "
          f"{len(bad)} mismatches; {cov}")
    assert not bad, report(bad)


@needs_triton
@pytest.mark.slow
def test_views_match_the_wheel_sweep():
    ls = cases(7, 2500, 1500, 1000)
    bad = compare(ls)
    print(f"\n{len(ls)} layouts x 2 views: {len(bad)} mismatches; {_coverage(ls)}")
    assert not bad, report(bad)


# -- the zoo: every hardware kind, against Triton's own layout ----------------------------------------
ZOO = [
    {"kind": "blocked", "shape": [8, 16], "params": {"size_per_thread": [1, 2], "threads_per_warp": [4, 8],
                                                     "warps_per_cta": [2, 1], "order": [1, 0]}},
    {"kind": "blocked", "shape": [4, 4, 8], "params": {"size_per_thread": [1, 1, 2], "threads_per_warp": [2, 4, 4],
                                                       "warps_per_cta": [1, 2, 1], "order": [2, 1, 0],
                                                       "cga_layout": [[1, 0, 0]]}},
    {"kind": "slice", "shape": [16], "params": {"dim": 1, "parent": {
        "kind": "blocked", "size_per_thread": [1, 4], "threads_per_warp": [8, 4], "warps_per_cta": [2, 1],
        "order": [1, 0]}}},
    {"kind": "nvidia_mma", "shape": [16, 16], "params": {"version": [2, 0], "warps_per_cta": [1, 2],
                                                         "instr_shape": [16, 8]}},
    {"kind": "nvidia_mma", "shape": [64, 16], "params": {"version": [3, 0], "warps_per_cta": [4, 1],
                                                         "instr_shape": [16, 16, 16]}},
    {"kind": "dot_operand", "shape": [16, 16], "params": {"operand_index": 0, "k_width": 2, "parent": {
        "kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 1], "instr_shape": [16, 8]}}},
    {"kind": "dot_operand", "shape": [16, 8], "params": {"operand_index": 1, "k_width": 2, "parent": {
        "kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 1], "instr_shape": [16, 8]}}},
    {"kind": "amd_mfma", "shape": [32, 32], "params": {"version": 3, "warps_per_cta": [1, 1],
                                                       "instr_shape": [32, 32, 8], "transposed": False}},
    {"kind": "amd_mfma", "shape": [32, 16], "params": {"version": 4, "warps_per_cta": [2, 1],
                                                       "instr_shape": [16, 16, 16], "transposed": True,
                                                       "cga_layout": [[0, 1]]}},
    {"kind": "amd_wmma", "shape": [16, 32], "params": {"version": 2, "transposed": False,
                                                       "warp_bases": [[0, 1]], "instr_shape": [16, 16, 16]}},
    {"kind": "linear", "shape": [8, 4], "params": {"reg_bases": [[0, 1], [0, 0]], "lane_bases": [[1, 0], [2, 0],
                                                   [4, 0], [0, 2], [0, 0]], "warp_bases": [[0, 0]],
                                                   "block_bases": [[0, 0]]}},
    {"kind": "swizzled_shared", "shape": [8, 8], "params": {"vec": 2, "per_phase": 1, "max_phase": 4,
                                                            "order": [1, 0]}},
    {"kind": "swizzled_shared", "shape": [4, 8], "params": {"vec": 1, "per_phase": 2, "max_phase": 2,
                                                            "order": [0, 1], "cga_layout": [[0, 1]]}},
    {"kind": "nvmma_shared", "shape": [8, 64], "params": {"swizzle_byte_width": 64, "element_bitwidth": 16}},
    {"kind": "nvmma_shared", "shape": [16, 16], "params": {"swizzle_byte_width": 32, "element_bitwidth": 16,
                                                           "transposed": True}},
    {"kind": "amd_rotating_shared", "shape": [8, 8], "params": {"vec": 2, "per_phase": 1, "max_phase": 4,
                                                                "order": [1, 0]}},
    {"kind": "intel_dpas", "shape": [16, 32], "params": {"repeat_count": 8, "systolic_depth": 8, "execution_size": 16,
                                                        "ops_per_chan": 2, "threads_per_warp": 16,
                                                        "warps_per_cta": [2, 1], "rep_cluster": [1, 2]}},
    {"kind": "shared_linear", "shape": [4, 8], "params": {"offset_bases": [[0, 1], [0, 2], [0, 4], [1, 1], [2, 2]],
                                                          "block_bases": [[0, 0]]}},
    {"kind": "tensor_memory", "shape": [128, 32], "params": {"block": [128, 32], "col_stride": 1}},
    {"kind": "tensor_memory_scales", "shape": [128, 4], "params": {}},
    {"kind": "partitioned_shared", "shape": [16, 8], "params": {
        "num_partitions": 2, "num_groups": 2, "partition_dim": 0, "partition_layout": {
            "kind": "swizzled_shared", "vec": 2, "per_phase": 1, "max_phase": 4, "order": [1, 0]}}},
    {"kind": "generic_linear", "shape": [4, 4], "params": {"reg_bases": [[0, 1]], "lane_bases": [[0, 2], [1, 0]],
                                                           "warp_bases": [[2, 1]]}},
]
# a kind declared after these were written is covered by its sampler's first case (its declaration suffices)
ZOO += [random_case(k, random.Random(0)) for k in SAMPLED_KINDS if k not in {c["kind"] for c in ZOO}]
# the wheel cannot build these from Python, so they declare no Gluon builder: amd_rotating_shared (see
# test_lowered.py); intel_dpas (no Intel backend in the wheel: test_intel_dpas.py); generic_linear (its Python path aborts on swizzled warps: the text form is checked against
# Triton's parser in test_hw_39_kinds.py)
NO_PYTHON_PATH = {c["kind"] for c in ZOO if oracle_triton.skip_reason(c["kind"]) is not None}
TENSOR_MEMORY = {"tensor_memory", "tensor_memory_scales"}


def test_the_zoo_covers_every_kind():
    assert {c["kind"] for c in ZOO} == set(KINDS)


@needs_triton
def test_zoo_matches_the_wheel_on_tritons_own_layouts():
    ours = [build(c["kind"], c["shape"], **c["params"]) for c in ZOO]
    got = oracle_triton.run_cases([c for c in ZOO if c["kind"] not in NO_PYTHON_PATH])
    theirs, it = [], iter(got)
    for case, L in zip(ZOO, ours):
        if case["kind"] in NO_PYTHON_PATH:
            theirs.append(L)
            continue
        res = next(it)
        assert res["ok"], (case, res)
        outs = {f"dim{i}": s for i, s in enumerate(case["shape"])}
        T = LinearLayout(res["bases"], outs, require_surjective=False)
        assert T == L, (case, T, L)  # the views below are of the same layout
        theirs.append(T)
    printable = [(c, T) for c, T in zip(ZOO, theirs) if c["kind"] not in TENSOR_MEMORY]
    views = wheel_views([T for _, T in printable])
    for (case, T), (tv, hv) in zip(printable, views):
        L = build(case["kind"], case["shape"], **case["params"])
        assert my_views(L) == (tv, hv), f"{case['kind']} {case['shape']}:\n{my_views(L)[0]}\nwheel:\n{tv}"
    for case, L in zip(ZOO, ours):
        if case["kind"] in TENSOR_MEMORY:  # row/col: neither view applies
            with pytest.raises(LayoutError, match="in dims"):
                L.distributed_view()
            with pytest.raises(LayoutError, match="in dims"):
                L.shared_view(hw=True)


# -- in-process properties and errors -----------------------------------------------------------------
_HOLDER = re.compile(r"^ *(?:B(\d+):)?T(\d+):(\d+)$")


@given(layouts(ins=["register", "lane", "warp", "block"], max_bases=3), st.booleans())
def test_each_hardware_position_is_listed_once_at_the_element_it_holds(L, shuffle_outs):
    if shuffle_outs and L.num_out_dims > 1:
        L = L.transpose_outs(list(reversed(L.out_dim_names)))
    text = L.distributed_view()
    lines = text.split("\n")
    assert lines.pop() == ""
    cells = [c.strip() for ln in lines for c in ln.replace("[", "").replace("]", "").split(", ")]
    shape = list(L.out_dims.values())
    assert len(cells) == L.total_out_size
    seen = set()
    lanes, blocks = L.in_dims["lane"], L.in_dims["block"]
    for pos, cell in enumerate(cells):
        coords, rest = [], pos
        for s in reversed(shape):
            coords.append(rest % s)
            rest //= s
        coords.reverse()
        for h in filter(None, cell.split("|")):
            m = _HOLDER.match(h)
            assert m, h
            assert (m.group(1) is not None) == (blocks > 1)
            b, t, r = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
            x = {"block": b, "warp": t // lanes, "lane": t % lanes, "register": r}
            assert list(L.apply(x).values()) == coords
            seen.add((b, t, r))
    assert len(seen) == L.total_in_size
    # the hardware view lists the same map, one line per (block, warp, register)
    hw = [ln for ln in L.distributed_view(hw=True).splitlines() if not ln.endswith(":")]
    assert len(hw) == blocks * L.in_dims["warp"] * L.in_dims["register"]
    assert all(ln.count("(") == lanes for ln in hw)


@given(st.integers(1, 3), st.integers(0, 6), st.data())
def test_shared_hw_view_is_apply_line_by_line(rank, bits, data):
    sizes = [1] * rank
    for _ in range(bits):
        sizes[data.draw(st.integers(0, rank - 1))] *= 2
    outs = {f"dim{i}": s for i, s in enumerate(sizes)}
    L = data.draw(layouts(outs=outs, ins=["offset", "block"], max_bases=4))
    per_block = L.total_out_size // L.in_dims["block"]
    lines = L.shared_view(hw=True).splitlines()
    assert len(lines) == L.in_dims["block"] * (per_block + 1)
    for b in range(L.in_dims["block"]):
        assert lines[b * (per_block + 1)] == f"Block: {b}:"
        for o in range(per_block):
            line = lines[b * (per_block + 1) + 1 + o]
            want = L.apply(offset=o % L.in_dims["offset"], block=b)
            assert line == f"Offset: {o} -> (" + ",".join(
                str(want[n]).rjust(len(str(s))) for n, s in outs.items()) + ")"


def test_doc_examples():
    L = LinearLayout({"register": [[0, 1], [0, 0]], "lane": [[1, 0]], "warp": [], "block": [[0, 2]]},
                     {"dim0": 2, "dim1": 4})
    assert L.distributed_view() == ("[[B0:T0:0|B0:T0:2, B0:T0:1|B0:T0:3, B1:T0:0|B1:T0:2, B1:T0:1|B1:T0:3]\n"
                                    "[ B0:T1:0|B0:T1:2, B0:T1:1|B0:T1:3, B1:T1:0|B1:T1:2, B1:T1:1|B1:T1:3]]\n")
    assert L.distributed_view(hw=True) == ("Block0:\nWarp0:\n(0,0), (1,0)\n(0,1), (1,1)\n(0,0), (1,0)\n(0,1), (1,1)\n"
                                           "Block1:\nWarp0:\n(0,2), (1,2)\n(0,3), (1,3)\n(0,2), (1,2)\n(0,3), (1,3)\n")
    # 16 lanes: thread numbers under 10 are padded to two characters
    W = LinearLayout({"register": [], "lane": [[1], [2], [4], [8]], "warp": [], "block": []}, {"dim0": 16})
    assert W.distributed_view() == "[" + ", ".join(f"T{t}:0".rjust(5) for t in range(16)) + "]\n"


def test_errors_name_the_missing_or_extra_dims():
    three = LinearLayout({"register": [[1]], "lane": [[2]], "warp": []}, {"dim0": 4})
    with pytest.raises(LayoutError, match="lacks in dim 'block'"):
        three.distributed_view()
    extra = LinearLayout({"register": [[1]], "lane": [[2]], "warp": [], "block": [], "x": []}, {"dim0": 4})
    with pytest.raises(LayoutError, match="extra in dim 'x'"):
        extra.distributed_view(hw=True)
    shared = LinearLayout({"offset": [[1]], "block": []}, {"dim0": 2})
    with pytest.raises(LayoutError, match="lacks in dims 'register', 'lane', 'warp'.*extra in dim 'offset'"):
        shared.distributed_view()
    with pytest.raises(LayoutError, match="lacks in dim 'offset'"):
        LinearLayout({"block": [[1]]}, {"dim0": 2}).shared_view()
    with pytest.raises(LayoutError, match="out dim"):
        LinearLayout({"offset": [], "block": []}, {}).shared_view()
    with pytest.raises(LayoutError, match="out dim"):
        LinearLayout({d: [] for d in DIST}, {}).distributed_view()


def test_size_cap():
    big = build("blocked", [512, 256], size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1],
                order=[1, 0])
    with pytest.raises(SizeGuardError, match=f"{1 << 17} tensor elements exceeds the cap of {MAX_VIEW_ELEMENTS}"):
        big.distributed_view()
    assert distributed_view(big, max_elements=1 << 17).count("T") == 1 << 17
    # broadcast: few elements, many hardware positions
    wide = LinearLayout({"register": [[0]] * 10, "lane": [[0]] * 5, "warp": [[0]] * 2, "block": []}, {"dim0": 1})
    with pytest.raises(SizeGuardError, match="hardware positions"):
        distributed_view(wide, hw=True)
    assert distributed_view(wide, max_elements=1 << 17).count("|") == (1 << 17) - 1
    with pytest.raises(SizeGuardError):
        shared_view(LinearLayout({"offset": [[1]], "block": []}, {"dim0": 2}), max_elements=1)


# -- llverify show --format triton-view / triton-hw-view ----------------------------------------------
SHOW_TYPES = [
    "tensor<8x16xf16, #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], "
    "order = [1, 0]}>>",
    "tensor<4x8xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], "
    "order = [0, 1]}>>",  # smaller than the tile: broadcast
    "!ttg.memdesc<8x16xf16, #ttg.swizzled_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>, "
    "#ttg.shared_memory>",
]


@needs_triton
def test_show_prints_the_view_triton_prints_for_the_type():
    from click.testing import CliRunner

    from llverify.cli import cli

    got = oracle_triton.run_type_cases([{"type": t, "shape": [int(x) for x in t.split("<")[1].split("x")[:2]]}
                                        for t in SHOW_TYPES])
    theirs = []
    for t, res in zip(SHOW_TYPES, got):
        assert res["ok"], res
        shape = [int(x) for x in t.split("<")[1].split("x")[:2]]
        theirs.append(LinearLayout(res["bases"], {f"dim{i}": s for i, s in enumerate(shape)},
                                   require_surjective=False))
    runner = CliRunner()
    for t, (tv, hv) in zip(SHOW_TYPES, wheel_views(theirs)):
        for fmt, want in (("triton-view", tv), ("triton-hw-view", hv)):
            r = runner.invoke(cli, ["show", t, "--format", fmt])
            assert r.exit_code == 0, r.output
            assert r.output == want, f"{fmt} of {t}:\n{r.output}\nwheel:\n{want}"


def test_show_view_errors_exit_2():
    from click.testing import CliRunner

    from llverify.cli import cli

    runner = CliRunner()
    r = runner.invoke(cli, ["show", "{kind: tensor_memory, block: [128, 32], col_stride: 1}", "--shape", "128x32",
                            "--format", "triton-view"])
    assert r.exit_code == 2 and "no view" in r.output and "['row', 'col']" in r.output, r.output
    r = runner.invoke(cli, ["show", "{kind: blocked, size_per_thread: [1, 4], threads_per_warp: [8, 4], "
                                    "warps_per_cta: [4, 1], order: [1, 0]}", "--shape", "512x256",
                            "--format", "triton-hw-view"])
    assert r.exit_code == 2 and "exceeds the cap" in r.output and "Traceback" not in r.output, r.output
