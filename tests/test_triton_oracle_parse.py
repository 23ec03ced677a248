"""Our printed attribute text, parsed by Triton 3.9.0's own MLIR parser, is the same layout (child processes).

For random valid cases of every kind we print the type (``tensor<...>`` or
``!ttg.memdesc<...>``) with :func:`llverify.triton.format_type`, let Triton parse
it (``ir.parse_mlir_module``), convert Triton's parsed attribute with its
``to_linear_layout`` and compare the bases with the layout we build from the
same parameters.  Then we parse the type text as Triton re-prints it (with its
alias lines) and check that we get the same layout again.  AMD rotating shared
layouts are excluded: Triton parses them, but no Python entry point converts a
parsed rotating layout (``get_gluon_layout_from_memdesc`` answers "Unhandled
encoding").
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import oracle_triton  # noqa: E402

from llverify.errors import LayoutError  # noqa: E402
from llverify.hw import build_spec  # noqa: E402
from llverify.hw.kinds import lookup  # noqa: E402
from llverify.hw.sampling import SAMPLED_KINDS, random_case  # noqa: E402
from llverify.triton import format_type, parse_aliases, parse_type  # noqa: E402

pytestmark = pytest.mark.skipif(not oracle_triton.available(), reason="triton (the oracle) is not installed")

#: the sampled kinds that have a Triton attribute (a declared mnemonic): the ones Triton's parser can read
ATTRIBUTE_KINDS = [k for k in SAMPLED_KINDS if lookup(k).mnemonic]

_DTYPE = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}


def _item(case):
    spec = {"kind": case["kind"], **case["params"]}
    try:
        ll = build_spec(spec, case["shape"])
    except LayoutError:
        return None
    kind = case["kind"]
    shape = case["shape"]
    if kind in ("swizzled_shared", "nvmma_shared", "shared_linear", "amd_rotating_shared", "partitioned_shared"):
        inner = case["params"].get("partition_layout") or {}
        bits = case["params"].get("element_bitwidth") or inner.get("element_bitwidth") or 16
        text = format_type(spec, shape, _DTYPE[bits], memdesc=True)
        warps, threads = 4, 32
    elif kind in ("tensor_memory", "tensor_memory_scales"):
        if kind == "tensor_memory_scales":
            dtype = "i8"  # MMA scale factors: one byte each
        else:
            stride = case["params"]["col_stride"]
            dtype = "i8" if case["params"].get("fp4_padded") else _DTYPE[32 // stride]
        text = format_type(spec, shape, dtype, memdesc=True).replace("#ttg.shared_memory", "#ttng.tensor_memory")
        warps, threads = 4, 32
        nb = len(case["params"].get("cga_layout") or [])
        try:  # the memdesc verifier's rules on top of the layout (llverify.triton.parse)
            parse_type(text)
            refused = False
        except LayoutError:
            refused = True
        return {"type": text, "shape": shape, "num_warps": warps, "threads": threads, "num_ctas": 1 << nb,
                "spec": spec, "want": ll, "refused": refused}
    else:
        text = format_type(spec, shape, "f32")
        warps, threads = 1 << len(ll.bases["warp"]), 1 << len(ll.bases["lane"])
    return {"type": text, "shape": shape, "num_warps": warps, "threads": threads,
            "num_ctas": 1 << len(ll.bases.get("block", ())), "spec": spec, "want": ll}


def _items(per_kind, seed):
    rng = random.Random(seed)
    items = []
    for kind in ATTRIBUTE_KINDS:
        got = 0
        while got < per_kind:
            it = _item(random_case(kind, rng))
            if it is not None:
                items.append(it)
                got += 1
    return items


def test_triton_parses_our_text_into_the_same_layout():
    items = _items(12, 2024)
    res = oracle_triton.run_type_cases([{k: v for k, v in it.items() if k not in ("spec", "want", "refused")}
                                        for it in items])
    checked = 0
    for it, r in zip(items, res):
        if it.get("refused"):  # llverify refuses the type: Triton's verifier must refuse it too
            assert not r["ok"], it["type"]
            checked += 1
            continue
        assert r["ok"], (it["type"], r.get("error"))
        want = {d: [list(b) for b in bs] for d, bs in it["want"].bases.items()}
        assert r["bases"] == want, it["type"]
        # Triton's own re-printed text parses back (through our parser) to the same layout.
        ll, shape, _dtype = parse_type(r["printed"], parse_aliases(r["aliases"]))
        assert shape == it["shape"] and ll == it["want"], r["printed"]
        checked += 1
    assert checked >= 12 * len(ATTRIBUTE_KINDS)


def test_tensor_memory_types_are_refused_exactly_when_triton_refuses_them():
    """The memdesc verifier's tensor-memory rules (``bits * colStride <= 32``; at least ``blockM x
    min(blockN, N)`` per CTA): over random encodings, element types and CGAs, llverify's ``parse_type``
    refuses a type exactly when Triton 3.9's parser does."""
    rng = random.Random(77)
    items = []
    while len(items) < 160:
        case = random_case("tensor_memory", rng)
        spec = {"kind": "tensor_memory", **case["params"]}
        try:
            build_spec(spec, case["shape"])
        except LayoutError:
            continue
        dtype = rng.choice(["i8", "f16", "f32"])
        text = format_type(spec, case["shape"], dtype, memdesc=True).replace("#ttg.shared_memory",
                                                                              "#ttng.tensor_memory")
        try:
            parse_type(text)
            refused = False
        except LayoutError:
            refused = True
        nb = len(case["params"].get("cga_layout") or [])
        items.append(({"type": text, "shape": case["shape"], "num_warps": 4, "threads": 32, "num_ctas": 1 << nb},
                      refused))
    res = oracle_triton.run_type_cases([it for it, _ in items])
    disagreements = [(it["type"], refused, r.get("error")) for (it, refused), r in zip(items, res)
                     if refused == r["ok"]]
    assert not disagreements, disagreements[:5]
    assert 10 < sum(refused for _, refused in items) < len(items) - 10  # both outcomes are exercised
