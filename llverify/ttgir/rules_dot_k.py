"""Each K element of an MMA v2 (or AMD MFMA) dot operand reaches the instruction from one lane only.

An ``mma.sync`` operand fragment gives every lane fixed K positions of the instruction (``m16n8k16``: lane ``l``
of a quad holds the K runs ``kWidth * (l mod 4) ...``; the four lanes of a quad cover the tile's K), and the
instruction adds the product at every K position.  A ``#ttg.dot_op`` layout whose tile is longer along K than the
tensor (``kWidth = 8`` on ``K = 16``) maps the tile's upper K bits to nothing (zero columns, seed 000 section 4:
broadcast).  Where such a bit is a register bit, Triton's MMA v2 lowering drops the repeated registers (kWidth 4 on
K = 16 computes exactly on the H200, Triton 3.6: ``tests/data/ttgir_smallk``); where it is a lane bit, two lanes of a
quad hold the same K elements at different K positions, and the instruction adds each of their products twice.
That is Triton's small-K upcast bug (triton-lang/triton PR 11691, "incorrect results for small-K dots with upcast
operands": an int8 operand upcast to bf16 got ``kWidth = 8`` whatever K; fixed by bounding kWidth by K).
MFMA is read the same way: each 16- or 32-lane group of a wave holds K runs of kWidth, so a cut lane bit repeats a
lane group (triton-lang/triton PR 10290, kWidth packed past K); decided from the operand fragment, not run on AMD
hardware.

What is computed: the operand's layout ``L`` on its shape, and the same encoding ``T`` on the shape with K widened
(:data:`WIDE_K`), where no tile bit is cut.  A lane or warp bit whose column is zero in ``L`` but moves along K in
``T`` is a K position of the tile that holds no K element of its own: refuted, with the two inputs that differ in
that bit and give the same element (replayed on ``L``).  A zero column that moves along M or N in ``T`` (warps that
split N share A; a tile taller than the tensor) duplicates whole rows or columns of the product, which the
accumulator layout duplicates the same way: not a K repeat.  Register bits are listed (:func:`k_repeats`), not
refuted.

Requires: the tile's bits come first in each input dimension of both layouts (Triton's dot-operand layouts are the
instruction tile, then repetitions; a tile bit is cut to zero, never moved, when the shape is smaller).

>>> from llverify.hw.registry import build_spec
>>> mma = {"kind": "nvidia_mma", "version": [2, 0], "warps_per_cta": [1, 1], "instr_shape": [16, 8]}
>>> A = lambda kw, k: build_spec({"kind": "dot_operand", "operand_index": 0, "parent": mma, "k_width": kw}, [16, k])
>>> k_repeats(A(8, 16), A(8, WIDE_K), 1)      # bf16 with kWidth 8 on K = 16 (PR 11691's bug): a lane bit
[('register', 4), ('lane', 1)]
>>> k_repeats(A(4, 16), A(4, WIDE_K), 1)      # Triton 3.9's kWidth 4 on K = 16: a register bit only
[('register', 3)]
>>> k_repeats(A(2, 16), A(2, WIDE_K), 1)
[]
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Mapping

from llverify.layout import LinearLayout
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, layout_of, nvidia_mma_major
from llverify.ttgir.model import TypeRef
from llverify.ttgir.rule_support import OpContext, memoised

__all__ = ["WIDE_K", "k_repeats", "k_fed_once"]

#: K of the widened shape: longer than any dot-operand tile along K (mma v2: 4 lanes x kWidth x 2; MFMA: 4 lane
#: groups x kWidth; kWidth <= 32)
WIDE_K = 1024


def k_repeats(L: LinearLayout, T: LinearLayout, k_dim: int) -> list[tuple[str, int]]:
    """The ``(in dim, bit)`` whose column is zero in ``L`` and moves along out dim ``k_dim`` in ``T`` (the same
    encoding on a shape with K widened), in input order.

    Requires: ``L`` and ``T`` have the same in dims and out dims; every bit of ``L`` is a bit of ``T`` (``T`` has at
    least as many bits per in dim)."""
    out: list[tuple[str, int]] = []
    for dim in L.in_dim_names:
        wide = T.bases.get(dim, [])
        for j, column in enumerate(L.bases[dim]):
            if not any(column) and j < len(wide) and wide[j][k_dim]:
                out.append((dim, j))
    return out


#: the instruction of a dot-operand parent this rule reads, and whether Triton's lowering for it drops repeated
#: registers (checked on the H200 for mma v2: ``tests/data/ttgir_smallk``; not established for MFMA, so a repeated
#: register bit there is ``unknown``)
_INSTRUCTIONS: dict[str, bool] = {"mma v2": True, "MFMA": False}


def _instruction(parent: Mapping[str, Any]) -> str | None:
    """The instruction whose operand fragment a dot-operand ``parent`` describes, when this rule reads it."""
    if nvidia_mma_major(parent) == 2:
        return "mma v2"
    if parent.get("kind") == "amd_mfma":
        return "MFMA"
    return None


@memoised()
def _decided(L: LinearLayout, T: LinearLayout, k_dim: int, instruction: str) -> Verdict:
    t0 = time.perf_counter()
    repeats = k_repeats(L, T, k_dim)
    claim = f"each K element reaches the {instruction} tile from one lane"
    if not repeats:
        return Verdict("proved", "dot_k_once", "", "f2", time.perf_counter() - t0,
                       f"{claim}: no tile bit along K is cut by the shape", certificate={"k_dim": k_dim})
    dim, bit = next(((d, b) for d, b in repeats if d != "register"), (None, 0))
    if dim is None:
        bits = ", ".join(f"bit {b}" for _, b in repeats)
        if not _INSTRUCTIONS[instruction]:
            return Verdict("unknown", "dot_k_once", "", None, time.perf_counter() - t0,
                           f"the tile's K positions cut by the shape are register bits ({bits}): whether Triton's "
                           f"{instruction} lowering adds a repeated register's product once is not established",
                           details={"repeated_register_bits": [b for _, b in repeats]})
        return Verdict("proved", "dot_k_once", "", "f2", time.perf_counter() - t0,
                       f"{claim}: the tile's K positions cut by the shape are register bits ({bits}), which "
                       f"Triton's {instruction} lowering drops as broadcast registers", certificate={"k_dim": k_dim},
                       details={"repeated_register_bits": [b for _, b in repeats]})
    other = {d: 0 for d in L.in_dim_names}
    other[dim] = 1 << bit
    zero = {d: 0 for d in L.in_dim_names}
    held, again = dict(L.apply(zero)), dict(L.apply(other))
    if held != again:  # the witness, replayed: a zero column cannot move the element
        raise AssertionError(f"dot_k_once: {dim} bit {bit} has a zero column but moves the element")
    k_name = T.out_dim_names[k_dim]
    where = ", ".join(f"{d} bit {b}" for d, b in repeats if d != "register")
    return Verdict("refuted", "dot_k_once", "", "f2", time.perf_counter() - t0,
                   f"not {claim}: the tile is longer along K than the tensor, so {where} "
                   f"{'repeats' if ',' not in where else 'repeat'} K elements another lane holds and {instruction} "
                   f"adds their products twice ({dim} {1 << bit} is K position {dict(T.apply(other))[k_name]} of the "
                   f"tile, and holds the element at {dim} 0)",
                   counterexample=Counterexample(inputs=other, sides={"element": again, f"element at {dim} 0": held}),
                   details={"k_dim": k_dim, "repeated_bits": [f"{d}:{b}" for d, b in repeats]})


def k_fed_once(ctx: OpContext, t: TypeRef, operand: int, subject: str) -> Verdict | None:
    """The ``dot_k_once`` verdict of a ``tt.dot`` operand ``t`` (0: A, K its last dim; 1: B, K its second last) of
    an NVIDIA MMA v2 or AMD MFMA parent, or None where it does not apply or a layout does not build (the layout rule
    reports that)."""
    enc = t.encoding
    if not enc or enc.get("kind") != "dot_operand":
        return None
    instruction = _instruction(enc.get("parent") or {})
    if instruction is None:
        return None
    built = ctx.built(t)
    if not isinstance(built, BuiltLayout) or len(built.shape) < 2:
        return None
    k_dim = len(built.shape) - 1 if operand == 0 else len(built.shape) - 2
    if built.shape[k_dim] >= WIDE_K:
        return None
    wide_shape = list(t.shape)
    wide_shape[len(t.shape) - len(built.shape) + k_dim] = WIDE_K
    wide = layout_of(replace(t, shape=tuple(wide_shape), alloc_shape=None))
    if not isinstance(wide, BuiltLayout):
        return None
    return _decided(built.layout, wide.layout, k_dim, instruction).with_(subject=subject)
