"""When Triton may read shared memory with an LDS *transpose* instruction, which no bank model covers.

On gfx950 (and gfx1250) Triton's AMD backend lowers a ``ttg.local_load`` into a dot operand through
``ds_read_b64_tr_b16`` / ``ds_read_b64_tr_b8`` (gfx1250: ``ds_load_tr*``) instead of plain ``ds_read`` vectors
when (Triton ``third_party/amd/lib/TritonAMDGPUToLLVM/MemoryOpToLLVM.cpp``, ``TransLocalLoadOpConversion``):
the element is 8 or 16 bits wide (4- and 6-bit types travel as bytes), the result is a dot operand of an MFMA or
WMMA layout, the buffer is ``swizzled_shared`` or ``padded_shared`` and the operand's K dimension is *not* the
buffer's contiguous one (``order[0] != kDim``, ``kDim = rank - 1`` for operand 0, ``rank - 2`` for operand 1).
Checked on this corpus: Triton 3.9's gfx950 lowering of ``tests/data/ttgir`` emits
``llvm.amdgcn.ds.read.tr16.b64`` exactly for the matmul B and attention V operand loads, which this test flags.

The phases of a transpose read (each lane supplies one 8-byte address, the data is exchanged across lanes) are
not stated by any source found, so such a load is not modelled: :func:`transposed_read_reason` answers why, and
the caller reports ``unknown``.  The test is a superset of Triton's (it ignores the parent kind, the tiles per
warp and ``dot_scaled`` users), so it never lets a transpose read pass as a plain one.

>>> from llverify.hw import build
>>> sh = build("swizzled_shared", [64, 64], vec=1, per_phase=1, max_phase=1, order=[1, 0])   # dim 1 contiguous
>>> transposed_read_reason("hip:gfx950", sh, 16, k_dim=0) is not None    # B operand (K = dim 0): transposed
True
>>> transposed_read_reason("hip:gfx950", sh, 16, k_dim=1), transposed_read_reason("hip:gfx942", sh, 16, k_dim=0)
(None, None)
"""

from __future__ import annotations

from llverify.layout import LinearLayout

__all__ = ["TRANSPOSE_READ_ARCHS", "transposed_read_reason", "contiguous_dim"]

TRANSPOSE_READ_ARCHS = ("gfx950", "gfx1250")
UNKNOWN_K = -1   # a dot operand whose K dimension the caller could not tell


def contiguous_dim(shared: LinearLayout) -> int | None:
    """Index of the out dim that offset 1 of ``shared`` steps (the buffer's contiguous dim); None when offset 1
    moves no dim or several (a swizzle acting on it) or the layout has no offsets."""
    if not shared.has_in_dim("offset") or shared.in_dim_size("offset") < 2:
        return None
    moved = [i for i, v in enumerate(shared.bases["offset"][0]) if v]
    return moved[0] if len(moved) == 1 else None


def transposed_read_reason(target: str, shared: LinearLayout, bits: int, k_dim: int | None) -> str | None:
    """Why a load of ``bits``-bit elements from ``shared`` on ``target`` may be lowered to an LDS transpose read,
    or None when Triton cannot lower it so.

    ``k_dim``: the K dimension of the dot operand the load produces (:data:`UNKNOWN_K` when the load produces a
    dot operand whose K dimension is unknown), None when the result is not a dot operand.
    Postcondition: None only if the target has no transpose read, the element is wider than 16 bits, the result
    is not a dot operand, or the buffer's contiguous dim is provably the operand's K dim; the reason is stable
    (the module cache may store it)."""
    backend, _, arch = target.partition(":")
    arch = arch.split(":")[0]
    if backend != "hip" or arch not in TRANSPOSE_READ_ARCHS or bits > 16 or k_dim is None:
        return None
    if k_dim != UNKNOWN_K and contiguous_dim(shared) == k_dim:
        return None
    instr = "ds_read_b64_tr_b16" if bits == 16 else "ds_read_b64_tr_b8"
    # (no word the module cache reads as a passing condition, such as "memory": the verdict is stable)
    return (f"on {arch} Triton may lower this load into a dot operand whose K dimension is not the buffer's "
            f"contiguous one to {instr} (a transpose read), whose LDS phases no source gives")
