"""Predicted shared-memory wavefronts per warp-level instruction.

Two independent predictions for one access (a distributed layout L reading or
writing through a shared layout S, elements of ``elem_bytes``, ``vec``
elements per instruction):

* :func:`lemma_wavefronts`: lemma 9.4 of seed 000 (section 9.2).  With
  ``n = max(1, vec * elem_bytes / 4)`` and ``c = |span(S_Vec u S_Idx) n
  span(L_Thr)|``, the access takes ``n * c`` wavefronts.  Read in 4-byte
  word addresses, ``S_Vec u S_Idx`` is the set of addresses whose *bank
  bits* are zero, and L_Thr is the lanes of one phase (``32 / n`` lanes:
  the paper's "each vectorized shared memory operation is split into 128
  byte transactions").
* :func:`simulate_wavefronts`: a brute-force model of the hardware: a warp's
  request is served in ``n`` phases of ``32 / n`` consecutive lanes; each
  phase takes as many wavefronts as the largest number of *distinct* 4-byte
  words any one of the 32 banks must deliver (equal words broadcast).

``llverify.codegen.bank_wavefronts`` (when present) is a third, and the one
the report calls "predicted"; the test suite checks the three agree where
the lemma is exact.  Example: a 32x32 f32 tile read column-wise from a
row-major buffer (lane i -> offset 32 i) is a 32-way conflict: both give 32.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from llverify.gpu.tile import DistMap, SharedMap, xor_span

__all__ = ["access_offsets", "lemma_wavefronts", "simulate_wavefronts"]


def _rank(cols: Sequence[int]) -> int:
    basis: list[int] = []
    for c in cols:
        for b in basis:
            c = min(c, c ^ b)
        if c:
            basis.append(c)
    return len(basis)


def access_offsets(m: DistMap, s: SharedMap) -> tuple[list[int], list[int], list[int]]:
    """Offset columns of (register, lane, warp) bases: ``S^-1 o L`` read on element ids."""
    return ([s.offset(c) for c in m.reg], [s.offset(c) for c in m.lane], [s.offset(c) for c in m.warp])


def lemma_wavefronts(m: DistMap, s: SharedMap, elem_bytes: int, vec: int) -> int:
    """Lemma 9.4 read on 4-byte words: ``n * c`` wavefronts per instruction.

    ``n = max(1, vec * elem_bytes / 4)`` words per lane; the hardware serves
    ``32 / n`` lanes per phase, so L_Thr is the first ``5 - log2 n`` lane
    bases.  Their word addresses (offset * bytes / 4, linear: a shift) span a
    subspace W; ``c = |W n {bank bits 0}| = 2^(rank W - rank(bank bits of W))``
    where the bank bits are word bits ``log2 n .. 4`` (the vector's own words
    are never shared between lanes).  Equal words are one access (broadcast),
    so this is exact for narrow accesses too, not only a lower bound.
    """
    _, lane, _ = access_offsets(m, s)
    n = max(1, (vec * elem_bytes) // 4)
    phase_bits = 5 - (n.bit_length() - 1)
    shift = (elem_bytes.bit_length() - 1) - 2        # offset (elements) -> word: * elem_bytes / 4
    words = [(x << shift) if shift >= 0 else (x >> -shift) for x in lane[:phase_bits]]
    bank_mask = 31 & ~(n - 1)
    c_log = _rank(words) - _rank([w & bank_mask for w in words])
    return n * (1 << c_log)


def simulate_wavefronts(m: DistMap, s: SharedMap, elem_bytes: int, vec: int,
                        group: int = 0, warp: int = 0) -> int:
    """Brute-force wavefronts of one instruction (vector group ``group`` of warp ``warp``)."""
    reg, lane, wcols = access_offsets(m, s)
    lo = vec.bit_length() - 1
    base = int(xor_span(reg[lo:])[group]) ^ int(xor_span(wcols)[warp])
    offs = (xor_span(lane) ^ base).astype(np.int64)           # element offset of each lane's vector start
    access = vec * elem_bytes
    n = max(1, access // 4)
    per_phase = 32 // n
    total = 0
    for p in range(n):
        words: dict[int, set[int]] = {}
        for ln in range(p * per_phase, (p + 1) * per_phase):
            start = int(offs[ln]) * elem_bytes
            for byte in range(start, start + access, 4 if access >= 4 else access):
                w = byte // 4
                words.setdefault(w % 32, set()).add(w)
        total += max(len(v) for v in words.values())
    return total
