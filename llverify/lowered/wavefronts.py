"""``lowered_wavefronts``: the shared-memory wavefronts of a lowered access, measured on every thread's address,
against the prediction of its TTGIR op's layouts (lemma 9.4).

When an access's address depends on the thread id only, every thread's address is evaluated concretely
(complete: the thread id is the only input) and the wavefronts of every warp counted with the target's bank
model; when the access is attributed to a ``ttg.local_load`` / ``local_store`` / ``local_alloc`` of known
layouts, the count must equal the layouts' prediction for the vector width the code uses: a difference means
the address arithmetic does not implement the shared layout.  Nothing is claimed where the bank model has no
established phase rule or its candidate rules disagree, nor where the prediction is not like for like.
"""

from __future__ import annotations

import time

import numpy as np

from llverify.codegen.bank_model import DIRECTIONS, NVIDIA, BankModel, bank_model_for_target
from llverify.codegen.bank_sim import simulate_addresses
from llverify.codegen.target_banks import target_wavefronts
from llverify.errors import LlverifyError
from llverify.lowered.llir import Access
from llverify.lowered.vector import VecValue
from llverify.prove.verdict import Counterexample, Verdict
from llverify.ttgir.layouts import BuiltLayout, element_bits, layout_of
from llverify.ttgir.memory_ops import SHARED_ACCESS_OPS, register_and_memory
from llverify.ttgir.model import Op

__all__ = ["Predictions", "wavefronts_verdict"]


def _wavefronts(addresses: np.ndarray, model: BankModel, vec_bytes: int, direction: str) -> int | None:
    """Most wavefronts of one wave-level access on ``model``; None where the model has no established phase
    rule for it or its documented candidate rules give different counts (then nothing is claimed)."""
    arr = addresses.reshape(-1, model.lanes)
    try:
        rules = model.phase_rules(max(vec_bytes, 1), direction)
    except LlverifyError:
        return None
    counts = {int(simulate_addresses(arr, max(vec_bytes, 1), model, r).max()) for r in rules}
    return counts.pop() if len(counts) == 1 else None


def _prediction_key(op: Op | None, vec_bytes: int) -> tuple | None:
    """What the layouts' wavefront prediction for ``op``'s accesses of ``vec_bytes`` depends on: (register
    layout, memory layout, element bits, padding, vector bytes), or None when there is no like-for-like one."""
    moved = register_and_memory(op) if op is not None and op.name in SHARED_ACCESS_OPS else None
    if moved is None:
        return None
    reg, mem, direction = moved
    if reg is None or mem is None or reg.kind != "tensor":
        return None
    R, M = layout_of(reg), layout_of(mem)
    if not (isinstance(R, BuiltLayout) and isinstance(M, BuiltLayout)) or tuple(reg.shape) != tuple(M.shape):
        return None
    bits = element_bits(reg.element)
    if bits not in (8, 16, 32, 64) or vec_bytes * 8 % bits:
        return None
    return (R.layout, M.layout, bits, M.padding, vec_bytes, direction)


def _predicted(key: tuple, target: str) -> int | None:
    """Lemma 9.4's wavefronts per warp-level access for :func:`_prediction_key`'s inputs on ``target``."""
    R, M, bits, padding, vec_bytes, direction = key
    try:
        tw = target_wavefronts(R, M, bits, target, padding, max_vector_elems=max(1, vec_bytes * 8 // bits),
                               direction=direction)
        if tw.min_wavefronts != tw.wavefronts:
            return None  # the documented phase rules (or instructions) disagree: no single prediction
        vec_bits, waves = tw.vector_bits, tw.wavefronts
    except LlverifyError:
        return None
    if vec_bits != vec_bytes * 8:
        return None  # the code's vector is not one llverify's plan would form; no like-for-like prediction
    return waves


class Predictions:
    """:func:`_predicted` memoised per (op, vector bytes), and per layouts: ops of the same layouts share it."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._by_op: dict[tuple[int, int], tuple | None] = {}
        self._memo: dict[tuple, int | None] = {}
        self._keep: list[Op] = []  # keeps the ops alive while their ids are keys

    def __call__(self, op: Op | None, vec_bytes: int) -> int | None:
        if op is None:
            return None
        at = (id(op), vec_bytes)
        if at not in self._by_op:
            self._keep.append(op)
            self._by_op[at] = _prediction_key(op, vec_bytes)
        key = self._by_op[at]
        if key is None:
            return None
        if key not in self._memo:
            self._memo[key] = _predicted(key, self.target)
        return self._memo[key]


def _known_target(target: str) -> bool:
    try:
        bank_model_for_target(target)
    except LlverifyError:
        return False
    return True


def wavefronts_verdict(at: VecValue, acc: Access, op: Op | None, target: str, predicted: Predictions, subject: str,
                       threads: int) -> Verdict | None:
    """The ``lowered_wavefronts`` verdict of an unpredicated access whose address ``at`` (every thread's, no free
    variable) was evaluated, for ``op``'s layouts' prediction (``predicted``); None where nothing is claimed
    (an unknown target or direction, a poison address, no established phase rule).

    Requires: the threads that execute the access are exactly ``0 .. threads - 1`` (or all or none uniformly)."""
    model = bank_model_for_target(target) if _known_target(target) else None
    direction = acc.kind if acc.kind in DIRECTIONS else ("load" if model == NVIDIA else None)
    if model is None or direction is None:
        return None
    t1 = time.perf_counter()
    waves = _wavefronts(at.vals.astype(np.int64), model, acc.bytes, direction) if not at.none.any() else None
    if waves is None:
        return None
    want = predicted(op, acc.bytes)
    details = {"wavefronts": waves, "vector_bytes": acc.bytes, "predicted": want}
    msg = f"{waves} wavefronts per warp-level instruction, measured on every thread's address"
    if want is None or want == waves:
        return Verdict("proved", "lowered_wavefronts", subject, "exhaustive", time.perf_counter() - t1,
                       msg + ("" if want is None else " = the layouts' prediction"),
                       certificate={"threads_evaluated": threads}, details=details)
    return Verdict("refuted", "lowered_wavefronts", subject, "exhaustive", time.perf_counter() - t1,
                   f"the code's addresses cost {waves} wavefronts, the layouts predict {want}",
                   Counterexample({"warp": 0}, {"measured": waves, "predicted": want},
                                  "every thread's address evaluated concretely"), details=details)
