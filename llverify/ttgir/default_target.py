"""The target a module without ``ttg.target`` is checked for: ``--target``, else its file's RUN line.

Several obligations depend on the target (the shared-memory bank model of ``local_load`` / ``local_store`` /
``local_alloc``, the instructions Triton picks for a conversion through shared memory): a module that does
not declare ``ttg.target`` leaves them unknown ("no bank model for target ''").  Triton's lit tests print
their modules without it and name the target on the file's ``// RUN:`` lines instead
(:mod:`llverify.ttgir.run_lines`).  The rule, per file:

1. a module that declares ``ttg.target`` keeps it (nothing here overrides a module's own target);
2. else the ``--target`` option, when given;
3. else the one target the file's leading RUN lines name; when they name several different ones, none
   (the module stays target-less, and its findings that are not proved say which targets were named);
4. pass-dump snapshots (``Module.stage``) are left as they are: a snapshot without ``ttg.target`` is a
   Triton-dialect stage, which carries no layouts (:func:`llverify.ttgir.passes.is_tritongpu`).

The module is a new immutable value (``dataclasses.replace``) with ``target`` set, so every reader of
``Module.target`` (the rules, the lowered-code validator, the findings' ``target``) sees the same target.
Each finding of such a module says where its target came from: its message ends in
``[target cuda:90 from the RUN line]`` (or ``from --target``) and its details hold
``target_origin``.  ``ttg.threads-per-warp`` is not defaulted by target: Triton reads a missing one as 32
whatever the target (``TritonGPUDialect::getThreadsPerWarp``), and so does the reader.

>>> choice = choose_target("// RUN: triton-opt %s --convert-triton-amdgpu-to-llvm=arch=gfx942\\n", None)
>>> choice.target, choice.origin, choose_target("// RUN: arch=gfx942\\n", "cuda:90").origin
('hip:gfx942', 'the RUN line', '--target')
>>> choose_target("// RUN: arch=gfx942\\n// RUN: arch=gfx950\\n", None).named
('hip:gfx942', 'hip:gfx950')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from llverify.ttgir.findings import Finding
from llverify.ttgir.model import Module
from llverify.ttgir.run_lines import run_line_targets

__all__ = ["TargetChoice", "NO_CHOICE", "choose_target", "needs_target", "with_target", "annotate"]

#: the origins of a borrowed target, as findings name them
FROM_OPTION = "--target"
FROM_RUN_LINE = "the RUN line"


@dataclass(frozen=True)
class TargetChoice:
    """The target for the target-less modules of one file: ``target`` ("" when none), ``origin``
    (:data:`FROM_OPTION`, :data:`FROM_RUN_LINE` or ""), and ``named``: every target the file's RUN lines name
    (several when none was chosen for that reason)."""

    target: str = ""
    origin: str = ""
    named: tuple[str, ...] = ()


NO_CHOICE = TargetChoice()


def choose_target(text: str, option: str | None) -> TargetChoice:
    """The choice for a file of text ``text`` under ``--target option`` (None: not given): the option when
    given, else the RUN lines' one target, else none (see the module docstring).

    Requires: ``option`` is None or a valid target (:func:`llverify.ttgir.run_lines.parse_target`).
    Postcondition: ``target`` is "" or a valid target; ``origin`` is "" exactly when ``target`` is."""
    if option:
        return TargetChoice(option, FROM_OPTION)
    named = run_line_targets(text)
    if len(named) == 1:
        return TargetChoice(named[0], FROM_RUN_LINE, named)
    return TargetChoice("", "", named)


def needs_target(m: Module) -> bool:
    """Whether ``m`` is a module the choice applies to: no ``ttg.target`` of its own, not a dump snapshot."""
    return not m.target and not m.stage


def with_target(m: Module, choice: TargetChoice) -> Module:
    """``m`` with the chosen target when it :func:`needs_target` and one was chosen, else ``m`` itself."""
    if choice.target and needs_target(m):
        return replace(m, target=choice.target)
    return m


def annotate(findings: Sequence[Finding], m: Module, choice: TargetChoice) -> list[Finding]:
    """``findings`` of module ``m`` (as read, before :func:`with_target`) with the target's origin stated.

    Checked under a borrowed target: every finding's message ends in ``[target T from ORIGIN]`` and its
    details hold ``target_origin``.  Left target-less although the RUN lines name several targets: each
    finding that is not proved says so (``[no ttg.target; the RUN lines name A, B: none chosen, --target
    picks one]``), details ``run_line_targets``.  Otherwise the findings unchanged."""
    if not needs_target(m):
        return list(findings)
    if choice.target:
        note = f"[target {choice.target} from {choice.origin}]"
        return [_noted(f, note, {"target_origin": choice.origin}) for f in findings]
    if len(choice.named) > 1:
        note = f"[no ttg.target; the RUN lines name {', '.join(choice.named)}: none chosen, --target picks one]"
        return [f if f.verdict.status == "proved" else _noted(f, note, {"run_line_targets": list(choice.named)})
                for f in findings]
    return list(findings)


def _noted(f: Finding, note: str, details: dict[str, object]) -> Finding:
    v = f.verdict
    message = f"{v.message} {note}" if v.message else note
    return replace(f, verdict=v.with_(message=message, details={**v.details, **details}))
