"""Issue 12 parity gaps: layouts llverify refused that Triton 3.9 builds, checked against the wheel."""

from __future__ import annotations

import random
from typing import Any

import pytest

from llverify.errors import LayoutError
from llverify.hw.registry import build

oracle = pytest.importorskip("oracle_triton")


def _bases(L: Any) -> dict[str, list[list[int]]]:
    return {d: [list(b) for b in bs] for d, bs in L.bases.items()}


def _differential(cases: list[dict[str, Any]]) -> tuple[int, int]:
    """Every case: equal bases where Triton builds it, a LayoutError where Triton refuses; (built, refused)."""
    built = refused = 0
    for case, res in zip(cases, oracle.run_cases(cases)):
        params = dict(case["params"])
        if not res["ok"]:
            with pytest.raises(LayoutError):
                build(case["kind"], case["shape"], **params)
            refused += 1
            continue
        assert _bases(build(case["kind"], case["shape"], **params)) == res["bases"], case
        built += 1
    return built, refused


def _nvmma_cases(total: int = 300, large: bool = True) -> list[dict[str, Any]]:
    shapes = [[2, 64, 64], [4, 32, 16], [64, 8, 16], [128, 4, 32], [16, 16, 16], [32, 8, 64], [8, 128, 8],
              [256, 2, 4], [64, 4, 4, 8], [32, 2, 8, 16], [2, 2, 2, 2]]
    if large:
        shapes += [[512, 8, 512], [256, 512, 4]]
    cases = [{"kind": "nvmma_shared", "shape": s,
              "params": {"swizzle_byte_width": sw, "element_bitwidth": bits, "transposed": tr, "rank": len(s)}}
             for s in shapes for sw in (0, 32, 128) for bits in (8, 16, 32) for tr in (True, False)]
    rnd = random.Random(12)
    while len(cases) < total:  # random rank 3/4 shapes, fp4 padding and a CGA split
        r = rnd.choice([3, 4])
        s = [2 ** rnd.randint(0, 7) for _ in range(r)]
        p: dict[str, Any] = {"swizzle_byte_width": rnd.choice([0, 32, 64, 128]),
                             "element_bitwidth": rnd.choice([8, 16, 32]), "transposed": rnd.random() < 0.7,
                             "rank": r}
        if rnd.random() < 0.2:
            p.update(fp4_padded=True, swizzle_byte_width=128, element_bitwidth=8)
        d = rnd.randrange(r)
        if rnd.random() < 0.3 and s[d] >= 2:
            p["cga_layout"] = [[int(i == d) for i in range(r)]]
        cases.append({"kind": "nvmma_shared", "shape": s, "params": p})
    return cases


def test_nvmma_shared_rank3_transposed_matches_triton() -> None:
    """The default run: 120 cases (rank 3 and 4, every swizzle and width, transposed or not, fp4 padding, CGA
    splits) without the 2^21-element tiles; the slow run adds those."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    built, refused = _differential(_nvmma_cases(120, large=False))
    assert built >= 50 and refused >= 20


@pytest.mark.slow
def test_nvmma_shared_rank3_transposed_large_tiles_match_triton() -> None:
    if not oracle.available():
        pytest.skip("triton is not installed")
    built, refused = _differential(_nvmma_cases())
    assert built >= 150 and refused >= 50


def test_nvmma_shared_rank3_transposed_worked_example() -> None:
    """No swizzle, 16-bit, [2, 64, 64]: Triton 3.9's rank-3 transposed layout broadcasts offset bits 2..6."""
    L = build("nvmma_shared", [2, 64, 64], swizzle_byte_width=0, element_bitwidth=16, transposed=True)
    want = ([[0, 1, 0], [1, 0, 0]] + [[0, 0, 0]] * 5 + [[0, 0, 1 << k] for k in range(6)]
            + [[0, 1 << k, 0] for k in range(1, 6)])
    assert _bases(L)["offset"] == want
    L = build("nvmma_shared", [2, 64, 64], swizzle_byte_width=128, element_bitwidth=16)
    assert L.is_injective()
    with pytest.raises(LayoutError, match="swizzle_byte_width"):
        build("nvmma_shared", [2, 64, 64], swizzle_byte_width=128, element_bitwidth=16, transposed=True)


def _wgmma_operand_cases() -> list[dict[str, Any]]:
    rnd = random.Random(21)
    cases: list[dict[str, Any]] = []
    warps3 = [[4, 1, 1], [1, 4, 1], [2, 2, 1], [1, 1, 4], [8, 1, 1], [2, 4, 1]]
    warps4 = [[4, 1, 1, 1], [1, 1, 4, 1], [2, 1, 2, 1]]
    for w in warps3 + warps4:
        for _ in range(6):
            r = len(w)
            n = rnd.choice([8, 16, 32, 64, 128, 256])
            k = rnd.choice([8, 16, 32])
            shape = [2 ** rnd.randint(0, 3) for _ in range(r - 2)] + [2 ** rnd.randint(3, 8), 2 ** rnd.randint(2, 7)]
            parent = {"kind": "nvidia_mma", "version": [3, 0], "warps_per_cta": w, "instr_shape": [16, n, k]}
            cases.append({"kind": "dot_operand", "shape": shape,
                          "params": {"operand_index": rnd.choice([0, 0, 0, 1]), "parent": parent,
                                     "k_width": rnd.choice([1, 2, 4, 8])}})
    return cases


def test_dot_operand_of_rank3_wgmma_parent_matches_triton() -> None:
    """A v3 parent with three or four warp dims: Triton builds operand A (tile M = instr_shape[rank - 2])."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    built, refused = _differential(_wgmma_operand_cases())
    assert built >= 35 and refused >= 5


def test_dot_operand_of_rank3_wgmma_parent_worked_example() -> None:
    parent = {"kind": "nvidia_mma", "version": [3, 0], "warps_per_cta": [4, 1, 1], "instr_shape": [16, 64, 16]}
    L = build("dot_operand", [2, 64, 64], operand_index=0, parent=parent, k_width=2)
    assert _bases(L) == {"register": [[0, 0, 1], [0, 8, 0], [0, 16, 0], [0, 32, 0], [0, 0, 8], [0, 0, 16], [0, 0, 32]],
                         "lane": [[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]],
                         "warp": [[1, 0, 0], [0, 0, 0]], "block": []}
    with pytest.raises(LayoutError, match="operand_index"):
        build("dot_operand", [2, 64, 64], operand_index=1, parent=parent, k_width=2)
    with pytest.raises(LayoutError, match="warps_per_cta"):
        build("nvidia_mma", [2, 64, 64], **{k: v for k, v in parent.items() if k != "kind"})


def test_tensor_memory_scales_matches_triton() -> None:
    """Gluon's TensorMemoryScalesLayout through the wheel's to_linear_layout, with and without a CGA split."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    cases = [{"kind": "tensor_memory_scales", "shape": [m, n], "params": {"cga_layout": cga}}
             for m in (1, 8, 32, 64, 128, 256, 1024) for n in (1, 2, 4, 8, 32, 128)
             for cga in ([], [[1, 0]], [[0, 1]], [[1, 0], [0, 1]])]
    built, _ = _differential(cases)
    assert built >= 150


def test_tensor_memory_scales_text_matches_triton_parser() -> None:
    """The attribute text (blockRepOrder, CGALayout) read by llverify and by Triton's MLIR parser."""
    if not oracle.available():
        pytest.skip("triton is not installed")
    from llverify.hw.registry import build_spec
    from llverify.triton.format import format_attr
    from llverify.triton.parse import parse_attr

    encs = ["#ttng.tensor_memory_scales_encoding<>", "#ttng.tensor_memory_scales_encoding<blockRepOrder = kThenMn>",
            "#ttng.tensor_memory_scales_encoding<CGALayout = [[1, 0]], blockRepOrder = kThenMn>",
            "#ttng.tensor_memory_scales_encoding<CGALayout = [[0, 1]]>"]
    items = [{"type": f"!ttg.memdesc<{m}x{n}xi8, {e}, #ttng.tensor_memory, mutable>", "shape": [m, n],
              "num_warps": 4, "num_ctas": 2 if "CGA" in e else 1, "enc": e}
             for e in encs for m, n in ((128, 4), (256, 16), (512, 32), (64, 2))]
    for it, res in zip(items, oracle.run_type_cases(items)):
        assert res["ok"], (it, res)
        spec = parse_attr(it["enc"])
        assert parse_attr(format_attr(spec)) == spec
        assert _bases(build_spec(spec, it["shape"])) == res["bases"], it


def test_tensor_memory_scales_worked_example() -> None:
    L = build("tensor_memory_scales", [128, 8])
    assert _bases(L) == {"row": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0], [0, 0]],
                         "col": [[0, 1], [0, 2], [32, 0], [64, 0], [0, 4]]}
    assert _bases(build("tensor_memory_scales", [64, 2]))["col"] == [[0, 1], [0, 0], [32, 0]]
    assert _bases(build("tensor_memory_scales", [128, 8], block_rep_order="kThenMn")) == _bases(L)
    with pytest.raises(LayoutError, match="block_rep_order"):
        build("tensor_memory_scales", [128, 8], block_rep_order="kFirst")
    with pytest.raises(LayoutError, match="shape"):
        build("tensor_memory_scales", [2, 128, 8])


def test_divide_keeps_the_dividends_size_one_dims() -> None:
    """Worked examples of Triton's divideLeft/divideRight (lib/Tools/LinearLayout.cpp): the quotient has
    exactly A's in and out dims, in A's order, with sizes |A_d| / |B_d| -- 1 included."""
    from llverify import LinearLayout

    reg4 = LinearLayout.identity_1d(4, "register", "dim0")
    A = reg4 * LinearLayout.identity_1d(8, "lane", "dim0") * LinearLayout.identity_1d(2, "warp", "dim1")
    C = A.divide_left(reg4)
    assert C is not None
    assert (C.in_dim_names, C.out_dim_names) == (("register", "lane", "warp"), ("dim0", "dim1"))
    assert (C.in_dim_size("register"), C.out_dim_size("dim0"), C.out_dim_size("dim1")) == (1, 8, 2)
    assert [list(b) for b in C.bases["lane"]] == [[1, 0], [2, 0], [4, 0]]
    assert [list(b) for b in C.bases["warp"]] == [[0, 1]]
    # dividing by all of A leaves every dim of A with size 1 (Triton's "C has the same dims as A")
    one = A.divide_left(A)
    assert one is not None and one.in_dim_names == A.in_dim_names and one.out_dim_names == A.out_dim_names
    assert one.total_in_size == 1 and all(one.out_dim_size(o) == 1 for o in one.out_dim_names)
    assert A.divide_right(A) == one
    # a size-1 out dim of A that the divisor lacks stays in the quotient
    B1 = LinearLayout.identity_1d(4, "register", "dim0") * LinearLayout.identity_1d(1, "register", "dim1")
    q = B1.divide_right(LinearLayout.identity_1d(2, "register", "dim0"))
    assert q is not None and q.out_dim_names == ("dim0", "dim1") and q.out_dim_size("dim1") == 1
    assert [list(b) for b in q.bases["register"]] == [[1, 0]]
    # right division: the divisor's bases are the last ones, above C's out sizes
    R = A.divide_right(LinearLayout.identity_1d(2, "warp", "dim1"))
    assert R is not None and R.in_dim_size("warp") == 1 and R.out_dim_size("dim1") == 1
    assert R.out_dim_size("dim0") == 32
    # no quotient: the divisor's bases are not A's first ones / not divisible
    assert A.divide_left(LinearLayout.identity_1d(8, "lane", "dim0")) is None
    assert A.divide_left(LinearLayout.identity_1d(8, "register", "dim0")) is None
    assert A.divide_left(LinearLayout.identity_1d(2, "block", "dim0")) is None


def _pycute_swizzle(offset: int, bits: int, base: int, shift: int) -> int:
    """pycute's Swizzle(bits, base, shift)(offset), restated from cutlass python/pycute/swizzle.py."""
    yyy = ((1 << bits) - 1) << (base + max(0, shift))
    moved = offset & yyy
    return offset ^ (moved >> shift if shift > 0 else moved << -shift)


def test_cute_negative_shift_worked_examples() -> None:
    from llverify.spec.cute import cute_to_layout

    # (i, j) -> 4i + j, then the 2 bits at 0 (j) are XORed into the 2 bits at 2: 4 (i ^ j) + j
    L = cute_to_layout("Sw<2,0,-2> o (4,4):(4,1)")
    assert _bases(L)["offset"] == [[1, 1], [2, 2], [1, 0], [2, 0]]
    # the positive shift moves the other way: (i, j) -> (i ^ j) + 4j
    assert _bases(cute_to_layout("Sw<2,0,2> o (4,4):(1,4)"))["offset"] == [[1, 0], [2, 0], [1, 1], [2, 2]]
    # Sw<3,4,-3> on 8 x 128 (row-major): the 3 bits at 4 go to bits 7..9 (the row): offset 16 holds (1, 16)
    L = cute_to_layout("Sw<3,4,-3> o (8,128):(128,1)")
    assert _bases(L)["offset"][4] == [1, 16] and _bases(L)["offset"][7] == [1, 0]
    for bad, word in (("Sw<3,4,-2> o (8,64):(64,1)", "shift"), ("Sw<-1,4,3> o (8,64):(64,1)", "bits"),
                      ("Sw<3,-4,3> o (8,64):(64,1)", "base"), ("Sw<3,4,-3> o (64,8):(1,64)", "leave")):
        with pytest.raises(LayoutError, match=word):
            cute_to_layout(bad)


def test_cute_swizzles_agree_with_pycutes_definition() -> None:
    """Every coordinate: the layout's offset -> coordinate map inverts pycute's coordinate -> offset map."""
    from llverify.spec.cute import cute_to_layout

    rnd = random.Random(4)
    checked = 0
    while checked < 60:
        rows, cols = 2 ** rnd.randint(1, 5), 2 ** rnd.randint(1, 5)
        n = (rows * cols).bit_length() - 1
        bits = rnd.randint(0, 3)
        shift = rnd.choice([-1, 1]) * rnd.randint(max(bits, 1), 5)
        base = rnd.randint(0, 4)
        text = f"Sw<{bits},{base},{shift}> o ({rows},{cols}):({cols},1)"
        fits = all(_pycute_swizzle(x, bits, base, shift) < 1 << n for x in range(1 << n))
        if not fits:
            with pytest.raises(LayoutError):
                cute_to_layout(text)
            continue
        L = cute_to_layout(text)
        for i in range(rows):
            for j in range(cols):
                off = _pycute_swizzle(i * cols + j, bits, base, shift)
                assert L.apply({"offset": off, "block": 0}) == {"dim0": i, "dim1": j}, (text, i, j)
        checked += 1
