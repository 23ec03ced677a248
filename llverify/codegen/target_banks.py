"""Bank wavefronts and conflicts for any modelled target: one entry point over the closed form and the simulator.

:func:`target_wavefronts` answers, for a register layout ``access``, a shared layout ``shared`` (with an
optional ``#ttg.padded_shared`` padding) and an element width, what one warp-level (wave-level) shared
instruction costs on ``target``:

* NVIDIA (``cuda:*``), no padding: the closed form of lemma 9.4 (:func:`llverify.codegen.banks.bank_wavefronts`);
* AMD CDNA3 / CDNA4 LDS (``hip:gfx90a``, ``hip:gfx942``, ``hip:gfx950``), no padding: lemma 9.4 generalised to
  the target's phase rules (:func:`llverify.codegen.banks_phase.phase_wavefronts`);
* any padded layout: the brute-force simulator over every instruction
  (:func:`llverify.codegen.bank_sim.simulate_wavefronts`), which applies the target's phase rules to its real
  lane count (:mod:`llverify.codegen.bank_model`);
* other targets: :class:`~llverify.errors.LayoutError` (no model, never a guess).

``conflicts`` is Triton's unit (``get_shared_bank_conflicts``): wavefronts per instruction over the
conflict-free minimum (one wavefront per phase), minus one.

>>> from llverify.hw import build
>>> acc = build("blocked", [32, 32], size_per_thread=[1, 4], threads_per_warp=[4, 8], warps_per_cta=[1, 1],
...             order=[1, 0])
>>> sh = build("swizzled_shared", [32, 32], vec=1, per_phase=1, max_phase=1, order=[1, 0])
>>> w = target_wavefronts(acc, sh, 32, "cuda:90")
>>> (w.wavefronts, w.conflicts, w.vector_bits, w.method)
(4, 0, 128, 'closed_form')
"""

from __future__ import annotations

from dataclasses import dataclass

from llverify.codegen.bank_model import NVIDIA, bank_model_for_target
from llverify.codegen.bank_sim import simulate_wavefronts
from llverify.codegen.banks import access_to_offsets, bank_wavefronts
from llverify.codegen.banks_phase import phase_wavefronts
from llverify.codegen.vectorize import largest_vectorisation
from llverify.errors import LayoutError
from llverify.hw.padded import Padding
from llverify.layout import LinearLayout

__all__ = ["TargetWavefronts", "target_wavefronts", "shared_bank_conflicts"]


@dataclass(frozen=True)
class TargetWavefronts:
    """Per instruction: ``wavefronts`` (the maximum over instructions), ``min_wavefronts``, the vector width
    used, Triton-unit ``conflicts``, and how it was decided (``closed_form`` or ``simulated``)."""

    wavefronts: int
    min_wavefronts: int
    vector_bits: int
    conflicts: int
    method: str
    target: str


def target_wavefronts(access: LinearLayout, shared: LinearLayout, bitwidth: int, target: str,
                      padding: Padding | None = None, max_vector_elems: int | None = None,
                      direction: str = "load") -> TargetWavefronts:
    """See the module docstring.  Requires: ``access`` has the target's lane count.  ``direction``
    (``load``/``store``) matters where the target's phases differ by direction (AMD).  Where the target's
    documented phase rules disagree, ``wavefronts`` is the largest and ``min_wavefronts`` the smallest count
    over them; raises ``LayoutError`` where no rule is established for the access width."""
    model = bank_model_for_target(target)
    lanes = access.in_dim_size("lane") if access.has_in_dim("lane") else 0
    if lanes != model.lanes:
        raise LayoutError(f"the access has {lanes} lanes, the {model.name} bank model {model.lanes}")
    if model == NVIDIA and padding is None:
        rep = bank_wavefronts(access, shared, bitwidth, max_vector_elems)
        return TargetWavefronts(rep.wavefronts, rep.wavefronts, rep.vector.bits, rep.triton_conflicts,
                                "closed_form", target)
    vector = None
    if max_vector_elems is not None or padding is not None:
        cap = max_vector_elems
        if padding is not None:
            cap = padding.min_interval if cap is None else min(cap, padding.min_interval)
        vector = largest_vectorisation(access_to_offsets(access, shared), bitwidth, max_elems=cap)
    if padding is None:
        pc = phase_wavefronts(access, shared, bitwidth, model, direction, vector)
        most, least, bits = max(c.wavefronts for c in pc.counts), min(c.wavefronts for c in pc.counts), pc.vector.bits
        minimum = min(c.phases for c in pc.counts)
        method = "closed_form"
    else:
        sim = simulate_wavefronts(access, shared, bitwidth, vector, padding=padding, model=model, direction=direction)
        most, least, bits = sim.max_wavefronts, sim.min_wavefronts, sim.vector.bits
        rules = model.phase_rules(max(1, bits // 8), direction)
        minimum = min(model.lanes // r.lanes_per_phase for r in rules)  # one wavefront per phase, no conflict
        method = "simulated"
    return TargetWavefronts(most, least, bits, max(0, -(-most // minimum) - 1), method, target)


def shared_bank_conflicts(access: LinearLayout, shared: LinearLayout, bitwidth: int, target: str = "cuda:90",
                          padding: Padding | None = None) -> int:
    """Triton's ``get_shared_bank_conflicts`` for any modelled target: extra wavefronts per instruction, in
    units of the conflict-free minimum (0 = conflict-free)."""
    return target_wavefronts(access, shared, bitwidth, target, padding).conflicts
