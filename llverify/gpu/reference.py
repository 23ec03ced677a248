"""The numpy reference: what every (block, warp, lane, register) must hold, and input sets.

A kernel's output for tile b (see :mod:`llverify.gpu.kernels`) is
``out[b, warp * 32 + lane, r] = in[b, id(B(r, lane, warp))]``: the value of
the element that the destination layout B assigns to that register.  The
reference computes it from the layout alone (:func:`expected`), independently
of any plan or shared layout, so a wrong swizzle, vector width or shuffle
round shows as a mismatch.

Input sets (:func:`id_planes`) make every element's value distinct across
the sets and never zero: the global element id ``g = b * tile + id`` plus one
is written in base ``2^bits - 1`` and each digit stored plus one (so f8 needs
three sets at 256x256, f32 one).  A zero in the output therefore always means
"never written".  Example: f8, g = 300: digits of 301 in base 255 are
(46, 1), stored as 47 and 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llverify.gpu.tile import DistMap, ids_table

__all__ = ["Mismatch", "expected", "first_mismatch", "id_planes", "random_inputs", "DTYPES"]

DTYPES: dict[str, tuple[int, type]] = {"f32": (4, np.uint32), "f16": (2, np.uint16), "f8": (1, np.uint8)}


def expected(b: DistMap, inp: np.ndarray, n_blocks: int) -> np.ndarray:
    """Reference output ``[n_blocks, threads, regs]`` for input ``[n_blocks * tile]``."""
    ids = ids_table(b).reshape(b.n_threads, b.n_reg)          # [thread, reg]
    tiles = inp.reshape(n_blocks, b.n_elems)
    return tiles[:, ids]


def id_planes(n_blocks: int, tile: int, dtype: str) -> list[np.ndarray]:
    """Input sets whose tuple of values names each element uniquely; no value is zero."""
    eb, np_t = DTYPES[dtype]
    base = (1 << (8 * eb)) - 1
    g = np.arange(n_blocks * tile, dtype=np.int64) + 1
    sets = []
    while True:
        sets.append(((g % base) + 1).astype(np_t))
        g = g // base
        if not g.any():
            break
    return sets


def random_inputs(n_blocks: int, tile: int, dtype: str, count: int, seed: int = 0) -> list[np.ndarray]:
    eb, np_t = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    return [rng.integers(1, 1 << (8 * eb), size=n_blocks * tile, dtype=np.uint64).astype(np_t)
            for _ in range(count)]


@dataclass(frozen=True)
class Mismatch:
    block: int
    warp: int
    lane: int
    register: int
    expected: int
    got: int

    def __str__(self) -> str:
        what = "never written (0)" if self.got == 0 else f"{self.got:#x}"
        return (f"block {self.block}, warp {self.warp}, lane {self.lane}, register {self.register}: "
                f"expected {self.expected:#x}, got {what}")


def first_mismatch(got: np.ndarray, want: np.ndarray) -> Mismatch | None:
    """The first differing (block, warp, lane, register), in that order, or None."""
    if got.shape != want.shape:
        raise ValueError(f"output shape {got.shape} != reference shape {want.shape}")
    bad = np.argwhere(got != want)
    if bad.size == 0:
        return None
    blk, thr, reg = (int(x) for x in bad[0])
    return Mismatch(blk, thr // 32, thr % 32, reg, int(want[blk, thr, reg]), int(got[blk, thr, reg]))
