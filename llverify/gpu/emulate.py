"""A numpy emulator of the generated kernels' data movement (no GPU needed).

It performs, with numpy arrays, exactly the address arithmetic the CUDA
generator in :mod:`llverify.gpu.kernels` emits: vectorised global loads at
``a_id ^ span(reg ids)``; shared stores of ``svec``-element vectors at
``a_off ^ span(reg offsets)`` (refusing vectors that are not contiguous and
aligned), loads likewise; or the shuffle rounds of a
:class:`~llverify.gpu.shuffle.ShufflePlan` (sender select, ``shfl`` from the
source lane, receiver select).  Comparing its result with
:func:`llverify.gpu.reference.expected` checks every plan on the CPU, so the
GPU run only has to confirm the hardware agrees.

Example: ``emulate(case, tile)`` for ``blocked_to_mma2.64x64w4.f16.optimal``
returns a ``[128, 32]`` array equal to the reference for any input tile.
"""

from __future__ import annotations

import numpy as np

from llverify.gpu.banks import access_offsets
from llverify.gpu.cases import Case
from llverify.gpu.kernels import _span
from llverify.gpu.tile import DistMap, SharedMap, vector_plan, xor_span

__all__ = ["emulate", "EmulationError"]


class EmulationError(AssertionError):
    """A plan the generator would emit breaks one of its own assumptions."""


def _global_load(a: DistMap, tile: np.ndarray, eb: int) -> np.ndarray:
    gp = vector_plan(list(a.reg), list(a.lane) + list(a.warp), eb)
    gvec = gp.vec
    base = (xor_span(a.warp)[:, None] ^ xor_span(a.lane)[None, :]).reshape(-1)   # thread = warp * 32 + lane
    regs = np.zeros((a.n_threads, a.n_reg), dtype=tile.dtype)
    for g in range(gp.n_groups()):
        start = base ^ gp.group_address(a.reg, g)
        if np.any(start % gvec):
            raise EmulationError("global vector not aligned")
        for i in range(gvec):
            r = gp.register(g, i)
            if np.any((base ^ _span(a.reg, r)) != start + i):
                raise EmulationError("global vector not contiguous")
            regs[:, r] = tile[start + i]
    return regs


def _shared(case: Case, a: DistMap, b: DistMap, regs: np.ndarray) -> np.ndarray:
    s = SharedMap.of(case.shared)
    eb = case.elem_bytes
    a_reg, a_lane, a_warp = access_offsets(a, s)
    b_reg, b_lane, b_warp = access_offsets(b, s)
    sp = vector_plan(a_reg, a_lane + a_warp, eb)
    lp = vector_plan(b_reg, b_lane + b_warp, eb)
    svec, lvec = sp.vec, lp.vec
    smem = np.zeros(a.n_elems, dtype=regs.dtype)
    written = np.zeros(a.n_elems, dtype=bool)
    a_off = (xor_span(a_warp)[:, None] ^ xor_span(a_lane)[None, :]).reshape(-1)
    for g in range(sp.n_groups()):
        start = a_off ^ sp.group_address(a_reg, g)
        if np.any(start % svec):
            raise EmulationError("shared store vector not aligned")
        for i in range(svec):
            r = sp.register(g, i)
            if np.any((a_off ^ _span(a_reg, r)) != start + i):
                raise EmulationError("shared store vector not contiguous")
            prev = written[start + i]
            if np.any(prev & (smem[start + i] != regs[:, r])):
                raise EmulationError("two threads store different values at one offset")
            smem[start + i] = regs[:, r]
            written[start + i] = True
    if not written.all():
        raise EmulationError("some offsets were never written")
    b_off = (xor_span(b_warp)[:, None] ^ xor_span(b_lane)[None, :]).reshape(-1)
    out = np.zeros((b.n_threads, b.n_reg), dtype=regs.dtype)
    for g in range(lp.n_groups()):
        start = b_off ^ lp.group_address(b_reg, g)
        if np.any(start % lvec):
            raise EmulationError("shared load vector not aligned")
        for i in range(lvec):
            r = lp.register(g, i)
            if np.any((b_off ^ _span(b_reg, r)) != start + i):
                raise EmulationError("shared load vector not contiguous")
            out[:, r] = smem[start + i]
    return out


def _bits_sum(x: np.ndarray, consts: tuple[int, ...]) -> np.ndarray:
    v = np.zeros_like(x)
    for k, c in enumerate(consts):
        v ^= ((x >> k) & 1) * c
    return v


def _shuffle(case: Case, a: DistMap, b: DistMap, regs: np.ndarray) -> np.ndarray:
    plan = case.plan
    assert plan is not None
    vec = plan.vec
    lane = np.arange(32)
    out = np.zeros((b.n_threads, b.n_reg), dtype=regs.dtype)
    for w in range(a.n_warps):
        ra = regs[w * 32:(w + 1) * 32]
        wv = np.full(32, w)
        for rd in plan.rounds:
            send = rd.send_reg0 ^ _bits_sum(lane, rd.send_reg_bits) ^ _bits_sum(wv, rd.send_reg_warp_bits)
            src = rd.src_lane0 ^ _bits_sum(lane, rd.src_lane_bits) ^ _bits_sum(wv, rd.src_lane_warp_bits)
            if np.any(src >= 32) or np.any(send >= a.n_reg // vec):
                raise EmulationError("shuffle round addresses a lane or register that does not exist")
            dst = rd.dst_vec ^ _bits_sum(lane, rd.dst_vec_bits)
            for i in range(vec):
                got = ra[src, send[src] * vec + i]
                out[w * 32 + lane, dst * vec + i] ^= got
    return out


def _transpose(case: Case, a: DistMap, b: DistMap, regs: np.ndarray) -> np.ndarray:
    """The swap-stage form the generator emits for transposition plans."""
    plan = case.plan
    assert plan is not None and plan.transpose is not None
    tg, vec = plan.transpose, plan.vec
    m = len(tg.pairs)
    n = 1 << m
    lane = np.arange(32)
    out = np.zeros((b.n_threads, b.n_reg), dtype=regs.dtype)
    for w in range(a.n_warps):
        ra = regs[w * 32:(w + 1) * 32].reshape(32, a.n_reg // vec, vec)
        for g, (send_base, dst_base) in enumerate(tg.groups):
            u = []
            for z in range(n):
                idx = send_base
                for p, (_, _, _, r) in enumerate(tg.pairs):
                    if z >> p & 1:
                        idx ^= 1 << r
                u.append(ra[:, idx].copy())                       # [lane, vec]
            for p, (_, _, ap, _) in enumerate(tg.pairs):          # sender swaps
                c = ((lane >> ap) & 1).astype(bool)[:, None]
                for z in range(n):
                    if not z >> p & 1:
                        y = z ^ (1 << p)
                        u[z], u[y] = np.where(c, u[y], u[z]), np.where(c, u[z], u[y])
            for z in range(n):                                    # shuffles
                rd = plan.rounds[g * n + z]
                src = rd.src_lane0 ^ _bits_sum(lane, rd.src_lane_bits)
                u[z] = u[z][src]
            for p, (_, kp, _, _) in enumerate(tg.pairs):          # receiver swaps
                c = ((lane >> kp) & 1).astype(bool)[:, None]
                for z in range(n):
                    if not z >> p & 1:
                        y = z ^ (1 << p)
                        u[z], u[y] = np.where(c, u[y], u[z]), np.where(c, u[z], u[y])
            for y in range(n):
                d = dst_base
                for p, (j, _, _, _) in enumerate(tg.pairs):
                    if y >> p & 1:
                        d ^= 1 << j
                out[w * 32:(w + 1) * 32, d * vec:(d + 1) * vec] ^= u[y]
    return out


def emulate(case: Case, tile: np.ndarray, rounds_form: bool = False) -> np.ndarray:
    """``[threads, dst registers]``: what the generated kernel leaves in B's registers for one tile."""
    a, b = case.maps()
    regs = _global_load(a, tile, case.elem_bytes)
    if case.variant == "shuffle":
        if not rounds_form and case.plan is not None and case.plan.transpose is not None and case.plan.transpose.pairs:
            return _transpose(case, a, b, regs)
        return _shuffle(case, a, b, regs)
    return _shared(case, a, b, regs)
