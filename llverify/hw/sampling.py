"""Random layout parameters for differential tests and benchmarks.

One sampler per kind (``<kind>_case``), named in that kind's declaration
(``Kind.sample`` in :mod:`llverify.hw.registry`);
:func:`random_case` draws one ``{"kind", "shape", "params"}`` case for a kind:
ranks 1-3 where the kind allows, CGAs (as ``cga_layout`` bases or the legacy
triple), transposed / 64-bit / fp4-padded variants, shapes smaller than the
tile (broadcast) and larger (repetition).  With ``invalid`` > 0 a fraction of
cases has one parameter deliberately broken (non-power-of-two, wrong rank,
bad instruction shape ...), so tests see that Triton and llverify reject the
same inputs.  Pure function of the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from typing import Any

from llverify.hw.kinds import sampled_kinds, sampler

__all__ = ["random_case", "SAMPLED_KINDS", "p2"]


def __getattr__(name: str) -> Any:
    """``SAMPLED_KINDS``: the declared kinds with a sampler (``Kind.sample``, :mod:`llverify.hw.registry`),
    read from the declarations when asked, so a kind declared later is sampled too."""
    if name == "SAMPLED_KINDS":
        return sampled_kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def p2(rng: random.Random, lo: int, hi: int) -> int:
    """A power of two 2^k with lo <= k <= hi."""
    return 1 << rng.randint(lo, hi)


def _split(rng: random.Random, total_log: int, rank: int) -> list[int]:
    """Powers of two over ``rank`` dims whose product is 2^total_log."""
    out = [1] * rank
    for _ in range(total_log):
        out[rng.randrange(rank)] *= 2
    return out


def _perm(rng: random.Random, rank: int) -> list[int]:
    p = list(range(rank))
    rng.shuffle(p)
    return p


def _cga(rng: random.Random, rank: int, params: dict[str, Any], max_log: int = 2) -> None:
    r = rng.random()
    if r < 0.55:
        return
    if r < 0.8:
        ctas = _split(rng, rng.randint(0, max_log), rank)
        split = [p2(rng, 0, c.bit_length() - 1) for c in ctas]
        params.update(ctas_per_cga=ctas, cta_split_num=split, cta_order=_perm(rng, rank))
    else:
        bases = []
        used = [0] * rank
        for _ in range(rng.randint(1, max_log)):
            if rng.random() < 0.2:
                bases.append([0] * rank)
                continue
            d = rng.randrange(rank)
            v = [0] * rank
            v[d] = 1 << used[d]
            used[d] += 1
            bases.append(v)
        params["cga_layout"] = bases


def _shape(rng: random.Random, rank: int, lo: int = 0, hi: int = 8) -> list[int]:
    return [p2(rng, lo, hi) for _ in range(rank)]


def _blocked_params(rng: random.Random, rank: int) -> dict[str, Any]:
    p = {"size_per_thread": [p2(rng, 0, 2) for _ in range(rank)],
         "threads_per_warp": _split(rng, 5, rank),
         "warps_per_cta": _split(rng, rng.randint(0, 3), rank),
         "order": _perm(rng, rank)}
    _cga(rng, rank, p)
    return p


def _mma_params(rng: random.Random, rank: int, version: int | None = None) -> dict[str, Any]:
    v = version or (3 if rank == 2 and rng.random() < 0.4 else 2)
    if v == 2:
        r = rng.random()
        if r < 0.85:
            instr = [1] * (rank - 2) + [16 if r < 0.7 else 8, 8]
        else:  # a wider tile Triton also builds (the instruction repeated in registers), batch entries unused
            instr = [rng.choice([1, 2])] * (rank - 2) + [8 * p2(rng, 0, 3), 8 * p2(rng, 0, 2)]
    else:
        instr = [16, 8 * rng.choice([1, 2, 4, 8, 16, 32]), rng.choice([8, 16, 32])]
    wl = rng.randint(0, 3)
    wpc = _split(rng, wl, rank)
    if v == 3:
        wpc = [4 * p2(rng, 0, 1), p2(rng, 0, 1)]
    p = {"version": [v, 0], "warps_per_cta": wpc, "instr_shape": instr}
    _cga(rng, rank, p)
    return p


def blocked_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(1, 3)
    return {"kind": "blocked", "shape": _shape(rng, rank, 0, 8 - rank), "params": _blocked_params(rng, rank)}


def slice_case(rng: random.Random) -> dict[str, Any]:
    prank = rng.randint(2, 3)
    if rng.random() < 0.6:
        parent = {"kind": "blocked", **_blocked_params(rng, prank)}
    else:
        parent = {"kind": "nvidia_mma", **_mma_params(rng, prank)}
    dim = rng.randrange(prank)
    return {"kind": "slice", "shape": _shape(rng, prank - 1, 0, 8), "params": {"dim": dim, "parent": parent}}


def nvidia_mma_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(2, 3)
    return {"kind": "nvidia_mma", "shape": _shape(rng, rank, 0, 8 - rank + 1), "params": _mma_params(rng, rank)}


def dot_operand_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(2, 3)
    r = rng.random()
    if r < 0.4:
        parent = {"kind": "nvidia_mma", **_mma_params(rng, rank)}
        op = 0 if parent["version"][0] == 3 else rng.randint(0, 1)
    elif r < 0.6:
        parent = {"kind": "blocked", **_blocked_params(rng, rank)}
        op = rng.randint(0, 1)
    elif r < 0.8:
        parent = {"kind": "amd_mfma", **amd_mfma_case(rng, rank)["params"]}
        op = rng.randint(0, 1)
    else:
        parent = {"kind": "amd_wmma", **amd_wmma_case(rng, rank)["params"]}
        op = rng.randint(0, 1)
    kw = p2(rng, 0, 3)
    if parent["kind"] == "blocked" and rng.random() < 0.9:
        kw = 0
    if parent["kind"] == "amd_wmma" and rng.random() < 0.9:
        kw = rng.choice({1: [8, 16], 2: [4, 8, 16]}.get(parent["version"], [2, 4, 8, 16, 32]))
    return {"kind": "dot_operand", "shape": _shape(rng, rank, 0, 8 - rank + 1),
            "params": {"operand_index": op, "parent": parent, "k_width": kw}}


def swizzled_shared_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(1, 3)
    p = {"vec": p2(rng, 0, 3), "per_phase": p2(rng, 0, 3), "max_phase": p2(rng, 0, 3), "order": _perm(rng, rank)}
    _cga(rng, rank, p)
    return {"kind": "swizzled_shared", "shape": _shape(rng, rank, 0, 8 - rank), "params": p}


def amd_rotating_shared_case(rng: random.Random, cga: bool = True) -> dict[str, Any]:
    """``#ttg.amd_rotating_shared`` parameters (those of ``swizzled_shared``) and a shape of at most 2^(8 - rank)
    per dim; ``cga=False`` keeps one CTA (AMD lowers one)."""
    case = swizzled_shared_case(rng)
    p = case["params"]
    if not cga:
        for k in ("ctas_per_cga", "cta_split_num", "cta_order", "cga_layout"):
            p.pop(k, None)
    return {**case, "kind": "amd_rotating_shared"}


def nvmma_shared_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(2, 3) if rng.random() < 0.9 else 1
    bits = rng.choice([8, 16, 32, 64])
    sw = rng.choice([0, 32, 64, 128])
    fp4 = sw == 128 and bits == 8 and rng.random() < 0.4
    p: dict[str, Any] = {"swizzle_byte_width": sw, "element_bitwidth": bits, "rank": rank,
                         "transposed": rng.random() < 0.3, "fp4_padded": fp4}
    _cga(rng, rank, p)
    shape = _shape(rng, rank, 2, 9 - rank)
    return {"kind": "nvmma_shared", "shape": shape, "params": p}




def _break(rng: random.Random, case: dict[str, Any]) -> None:
    """Corrupt one integer list parameter (non-power-of-two, zero, or a wrong rank)."""
    p = case["params"]
    if case["kind"] in ("slice", "dot_operand") and rng.random() < 0.5:
        p = p["parent"]
    keys = [k for k, v in p.items() if isinstance(v, list) and v and all(isinstance(x, int) for x in v)]
    ikeys = [k for k, v in p.items() if isinstance(v, int) and not isinstance(v, bool)]
    if keys and (not ikeys or rng.random() < 0.7):
        k = rng.choice(keys)
        v = list(p[k])
        how = rng.randrange(3)
        if how == 0:
            v[rng.randrange(len(v))] = rng.choice([3, 6, 12, 0])
        elif how == 1:
            v.append(1)
        else:
            v = v[:-1] if len(v) > 1 else v + [2]
        p[k] = v
    elif ikeys:
        k = rng.choice(ikeys)
        p[k] = rng.choice([3, 0, 5, 24, 256])
    else:
        case["shape"] = case["shape"] + [rng.choice([3, 4])]


def random_case(kind: str, rng: random.Random, invalid: float = 0.0) -> dict[str, Any]:
    """One random ``{"kind", "shape", "params"}`` case of ``kind`` (see the module docstring)."""
    case = sampler(kind)(rng)
    if invalid and rng.random() < invalid:
        _break(rng, case)
    return case


def amd_mfma_case(rng: random.Random, rank: int | None = None) -> dict[str, Any]:
    rank = rank or rng.randint(2, 3)
    instr = rng.choice([[32, 32, 8], [16, 16, 16], [4, 64, 4], [64, 4, 4]])
    p: dict[str, Any] = {"version": rng.randint(1, 4), "instr_shape": instr,
                         "transposed": instr[0] == 64 or rng.random() < 0.5,
                         "warps_per_cta": _split(rng, rng.randint(0, 3), rank),
                         "element_bitwidth": 64 if rng.random() < 0.2 else 32}
    if rng.random() < 0.4:
        p["tiles_per_warp"] = [p2(rng, 0, 1) for _ in range(rank)]
    _cga(rng, rank, p)
    return {"kind": "amd_mfma", "shape": _shape(rng, rank, 2, 8 - rank + 1), "params": p}


def linear_case(rng: random.Random) -> dict[str, Any]:
    rank = rng.randint(1, 3)
    # a random blocked-like layout written out as bases
    used = [0] * rank
    names = {"reg_bases": rng.randint(0, 3), "lane_bases": 5, "warp_bases": rng.randint(0, 2), "block_bases": rng.randint(0, 1)}
    p: dict[str, Any] = {}
    for n, k in names.items():
        bs = []
        for _ in range(k):
            if rng.random() < 0.15:
                bs.append([0] * rank)
                continue
            d = rng.randrange(rank)
            v = [0] * rank
            v[d] = 1 << used[d]
            used[d] += 1
            bs.append(v)
        rng.shuffle(bs)
        p[n] = bs
    return {"kind": "linear", "shape": _shape(rng, rank, 0, 8 - rank), "params": p}




_WMMA_INSTR = {1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]],
               3: [[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128], [32, 16, 64], [32, 16, 128]]}


def _tile_bases(rng: random.Random, rank: int, n: int, used: list[int]) -> list[list[int]]:
    """``n`` bases, each zero or the next unused power of two along a random dim (surjective together)."""
    out = []
    for _ in range(n):
        if rng.random() < 0.15:
            out.append([0] * rank)
            continue
        d = rng.randrange(rank)
        v = [0] * rank
        v[d] = 1 << used[d]
        used[d] += 1
        out.append(v)
    return out


def amd_wmma_case(rng: random.Random, rank: int | None = None) -> dict[str, Any]:
    rank = rank or rng.randint(2, 3)
    version = rng.randint(1, 3)
    used = [0] * rank
    p: dict[str, Any] = {"version": version, "transposed": rng.random() < 0.5,
                         "warp_bases": _tile_bases(rng, rank, rng.randint(rank - 2, 3), used),
                         "instr_shape": rng.choice(_WMMA_INSTR[version]), "rank": rank}
    if rng.random() < 0.4:
        p["reg_bases"] = _tile_bases(rng, rank, rng.randint(1, 2), used)
    if rng.random() < 0.3:
        _cga(rng, rank, p)
        for k in ("ctas_per_cga", "cta_split_num", "cta_order"):
            p.pop(k, None)
    return {"kind": "amd_wmma", "shape": _shape(rng, rank, 0, 8 - rank + 1), "params": p}


def tensor_memory_case(rng: random.Random) -> dict[str, Any]:
    bm = rng.choice([64, 128])
    bn = p2(rng, 0, 8)
    p: dict[str, Any] = {"block": [bm, bn], "col_stride": p2(rng, 0, 2)}
    if rng.random() < 0.3:
        p["cga_layout"] = _tile_bases(rng, 2, rng.randint(1, 2), [0, 0])
        if rng.random() < 0.5:
            p["cga_layout"][0] = [1, 0] if p["cga_layout"][0] != [0, 1] else [0, 1]
            p["two_ctas"] = p["cga_layout"][0] == [1, 0]
    if rng.random() < 0.1:
        p["fp4_padded"] = True
        p["col_stride"] = 1
    return {"kind": "tensor_memory", "shape": [p2(rng, 7, 9), p2(rng, 0, 9)], "params": p}


def shared_linear_case(rng: random.Random) -> dict[str, Any]:
    """An explicit shared layout: the unit vectors of a random shape in a random order, some XOR-combined
    with earlier ones (a swizzle), optionally CTA bases."""
    rank = rng.randint(1, 3)
    shape = _shape(rng, rank, 1, 10 - rank)
    units = [[(1 << k) if d == dim else 0 for d in range(rank)]
             for dim in range(rank) for k in range(shape[dim].bit_length() - 1)]
    rng.shuffle(units)
    bases = []
    for i, u in enumerate(units):
        v = list(u)
        # a swizzle: XOR in a later unit vector of another dim (keeps the map bijective; Triton's parser
        # takes bases whose components are each 0 or a power of two)
        later = [w for w in units[i + 1:] if w.index(max(w)) != u.index(max(u))]
        if later and rng.random() < 0.3:
            v = [a ^ b for a, b in zip(v, rng.choice(later))]
        bases.append(v)
    return {"kind": "shared_linear", "shape": shape, "params": {"offset_bases": bases}}


def tensor_memory_scales_case(rng: random.Random) -> dict[str, Any]:
    p: dict[str, Any] = {}
    if rng.random() < 0.2:
        p["cga_layout"] = _tile_bases(rng, 2, rng.randint(1, 2), [0, 0])
    return {"kind": "tensor_memory_scales", "shape": [p2(rng, 5, 9), p2(rng, 1, 7)], "params": p}
