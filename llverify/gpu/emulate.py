"""A numpy emulator of the generated kernels' data movement (no GPU needed).

It performs, with numpy arrays, the address arithmetic and data exchanges
the CUDA generator in :mod:`llverify.gpu.kernels` emits: vectorised global
loads at ``a_id ^ span(reg ids)``; shared stores of ``svec``-element vectors
at ``a_off ^ span(reg offsets)`` (refusing vectors that are not contiguous
and aligned, or two threads writing one offset with different values),
loads likewise; or a :class:`~llverify.gpu.shuffle.ShuffleProgram`: codegen's
word rounds as the kernel runs them (pack A's registers into 32-bit words,
lane-conditional word swaps, one ``shfl`` of a fixed word per round from lane
``S(lane) ^ c_k``, receive swaps and in-word byte permutations, unpack), or
its transpositions as data exchanges.
Comparing the result with :func:`llverify.gpu.reference.expected` checks
every generated plan on the CPU, so the GPU run only has to confirm that
the hardware agrees.

Example: ``emulate(case, tile)`` for ``blocked_to_mma2.64x64w4.f16.optimal``
returns a ``[128, 32]`` array equal to the reference for any input tile.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from llverify.codegen.vectorize import global_vector_width
from llverify.gpu.cases import Case
from llverify.gpu.kernels import shared_vectors
from llverify.gpu.shuffle import ShuffleProgram
from llverify.gpu.tile import DistMap, VectorGroups, offset_columns, xor_span

__all__ = ["emulate", "EmulationError"]


class EmulationError(AssertionError):
    """A plan the generator would emit breaks one of its own assumptions."""


def _vector_access(base: np.ndarray, cols: Sequence[int], vg: VectorGroups, what: str) -> list[tuple[int, np.ndarray]]:
    """(register, address per thread) of every element, checking each vector is contiguous and aligned."""
    span = xor_span(cols)
    out = []
    for g in range(vg.n_groups()):
        start = base ^ vg.group_address(cols, g)
        if np.any(start % vg.vec):
            raise EmulationError(f"{what} vector not aligned")
        for i in range(vg.vec):
            r = vg.register(g, i)
            if np.any((base ^ span[r]) != start + i):
                raise EmulationError(f"{what} vector not contiguous")
            out.append((r, start + i))
    return out


def _thread_base(lane_cols: Sequence[int], warp_cols: Sequence[int]) -> np.ndarray:
    return (xor_span(warp_cols)[:, None] ^ xor_span(lane_cols)[None, :]).reshape(-1)   # thread = warp*32 + lane


def _global_load(case: Case, a: DistMap, tile: np.ndarray) -> np.ndarray:
    vg = VectorGroups(global_vector_width(case.src, case.bitwidth))
    regs = np.zeros((a.n_threads, a.n_reg), dtype=tile.dtype)
    for r, addr in _vector_access(_thread_base(a.lane, a.warp), a.reg, vg, "global"):
        regs[:, r] = tile[addr]
    return regs


def _shared(case: Case, a: DistMap, b: DistMap, regs: np.ndarray) -> np.ndarray:
    assert case.shared is not None
    a_reg, a_lane, a_warp = offset_columns(case.src, case.shared)
    b_reg, b_lane, b_warp = offset_columns(case.dst, case.shared)
    sp, lp = shared_vectors(case.src, case.dst, case.shared, case.elem_bytes)
    smem = np.zeros(a.n_elems, dtype=regs.dtype)
    written = np.zeros(a.n_elems, dtype=bool)
    for r, addr in _vector_access(_thread_base(a_lane, a_warp), a_reg, sp, "shared store"):
        if np.any(written[addr] & (smem[addr] != regs[:, r])):
            raise EmulationError("two threads store different values at one offset")
        smem[addr] = regs[:, r]
        written[addr] = True
    if not written.all():
        raise EmulationError("some offsets were never written")
    out = np.zeros((b.n_threads, b.n_reg), dtype=regs.dtype)
    for r, addr in _vector_access(_thread_base(b_lane, b_warp), b_reg, lp, "shared load"):
        out[:, r] = smem[addr]
    return out


def _active(stage, lane: np.ndarray) -> np.ndarray:
    x = lane & stage.cond
    par = np.zeros_like(x)
    while np.any(x):
        par ^= x & 1
        x >>= 1
    return par.astype(bool)


def _swap_stage(words: np.ndarray, stage, lane: np.ndarray) -> np.ndarray:
    """``if parity(lane & cond): word j <-> word j ^ xor`` on ``[warps, 32, n_words, elems]``."""
    idx = np.arange(words.shape[2]) ^ stage.xor
    if np.any(idx >= words.shape[2]):
        raise EmulationError("a stage swaps a word that does not exist")
    c = _active(stage, lane)[None, :, None, None]
    return np.where(c, words[:, :, idx], words)


def _position_perm(words: np.ndarray, d: int) -> np.ndarray:
    """Element p -> position p ^ d inside each word (what the generated ``__byte_perm`` selector does)."""
    idx = np.arange(words.shape[-1]) ^ d
    if np.any(idx >= words.shape[-1]):
        raise EmulationError("an in-word permutation leaves the word")
    return words[..., idx]


def _plan_rounds(prog: ShuffleProgram, a: DistMap, b: DistMap, regs: np.ndarray) -> np.ndarray:
    """The generated word program: pack, send stages, one shfl per round, receive and position stages, unpack.

    A 32-bit word is modelled as its ``elems_per_word`` elements (position p =
    bits ``8 eb p ..``), so element ids stay distinct for any element width;
    the bit-level pack, unpack and ``__byte_perm`` selectors are tested apart.
    """
    lane = np.arange(32)
    nw, per = prog.n_words, prog.elems_per_word
    if any(len(w) != per for w in prog.a_words + prog.b_words) or per * nw != a.n_reg:
        raise EmulationError("words do not hold elems_per_word registers each")
    wa = regs[:, np.array(prog.a_words)].reshape(a.n_warps, 32, nw, per)
    for st in prog.send_stages:
        wa = _swap_stage(wa, st, lane)
    wb = np.zeros_like(wa)
    written = np.zeros(nw, dtype=bool)
    sl = np.zeros(32, dtype=np.int64)
    for j, c in enumerate(prog.lane_map):
        sl ^= ((lane >> j) & 1) * c
    for rd in prog.rounds:
        if not (0 <= rd.send < nw and 0 <= rd.recv < nw) or written[rd.recv]:
            raise EmulationError("a round addresses a word that does not exist or is written twice")
        src = sl ^ rd.src_xor
        if np.any((src < 0) | (src >= 32)):
            raise EmulationError("a round reads a lane that does not exist")
        got = wa[:, src, rd.send]
        wb[:, :, rd.recv] = _position_perm(got, rd.perm) if rd.perm else got
        written[rd.recv] = True
    if not written.all():
        raise EmulationError("a B word is never received")
    for st in prog.recv_stages:
        wb = _swap_stage(wb, st, lane)
    for st in prog.perm_stages:
        wb = np.where(_active(st, lane)[None, :, None, None], _position_perm(wb, st.xor), wb)
    wb = wb.reshape(a.n_threads, nw, per)
    out = np.zeros((b.n_threads, b.n_reg), dtype=regs.dtype)
    for w, rs in enumerate(prog.b_words):
        for p, r in enumerate(rs):
            out[:, r] ^= wb[:, w, p]
    return out


def _swap_bits(x: np.ndarray | int, p: int, q: int) -> np.ndarray | int:
    d = ((x >> p) ^ (x >> q)) & 1
    return x ^ (d * ((1 << p) | (1 << q)))


def _transpositions(prog: ShuffleProgram, a: DistMap, regs: np.ndarray) -> np.ndarray:
    """The generated exchanges in order on [warp, lane, register] arrays (renamings, shuffles, selects)."""
    d = regs.reshape(a.n_warps, 32, a.n_reg).copy()
    lane = np.arange(32)
    reg = np.arange(a.n_reg)
    for t in prog.steps:
        if t.kind == "register_swap":
            d = d[:, :, _swap_bits(reg, t.a[1], t.b[1])]
        elif t.kind == "lane_swap":
            d = d[:, _swap_bits(lane, t.a[1], t.b[1]), :]
        else:
            r, ln = (t.a[1], t.b[1]) if t.a[0] == "register" else (t.b[1], t.a[1])
            c = ((lane >> ln) & 1).astype(bool)[None, :]          # the generated select-shuffle-select
            partner = lane ^ (1 << ln)
            for x in range(a.n_reg):
                if x >> r & 1:
                    continue
                lo, hi = x, x | 1 << r
                send = np.where(c, d[:, :, lo], d[:, :, hi])
                got = send[:, partner]
                d[:, :, lo] = np.where(c, got, d[:, :, lo])
                d[:, :, hi] = np.where(c, d[:, :, hi], got)
    return d.reshape(a.n_threads, a.n_reg)


def emulate(case: Case, tile: np.ndarray) -> np.ndarray:
    """``[threads, dst registers]``: what the generated kernel leaves in B's registers for one tile."""
    a, b = case.maps()
    regs = _global_load(case, a, tile)
    if case.program is not None:
        if case.program.method == "plan":
            return _plan_rounds(case.program, a, b, regs)
        return _transpositions(case.program, a, regs)
    return _shared(case, a, b, regs)
