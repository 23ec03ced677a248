"""Which free variables of the lowered code hold the same value in every thread of the CTA (uniformity).

The semantics (:mod:`llverify.lowered.decode`; :mod:`.symbolic`, :mod:`.concrete`, :mod:`.vector`) leaves some
values *free*:
kernel arguments, loop-carried ``phi`` s, which predecessor a ``phi`` came from, values it does not compute
(loads, unmodelled calls).  A free variable is one value shared by all threads.  That is exact for a
per-thread claim (``in_bounds``: each thread's own value is one of all values), but a claim that relates
*different* threads (each instruction moves one fixed register in every thread; a conversion's memory
replay) is only decided by one value for all threads when the value really is the same in every thread.  A
value that depends on the thread id (a vector ``phi`` carrying per-thread swizzle offsets out of a loop) is
not, and setting it to one value for all threads can fake both a proof and a refutation.

The divergence analysis is :func:`llverify.lowered.guards.control_flow`'s (a value is divergent when the
thread id, a warp broadcast, a load, an atomic, inline asm or an unknown call flows into it, or a ``phi``
whose predecessor a divergent branch decides); this module reads it for free-variable names from the
:class:`~llverify.lowered.conditions.ControlFlow` the caller computed for the function (once per function, in
:func:`llverify.lowered.validate.validate`).  It is
conservative: it may call a uniform value divergent (a cross-thread claim is then ``unknown``), never the
converse; when the control flow is not read, every free variable but a kernel argument is divergent.

Requires: names as the semantics writes free variables (``%x:W``, ``%x.choice:W``, ``%v#k:W``); ``flow`` is
``control_flow(fn)``.
Postcondition: every free variable not returned by :func:`nonuniform` has one value in all threads.

>>> from llverify.lowered.guards import control_flow
>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k(i32 %n) {
... entry:
...   %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
...   %a = add i32 %n, 4
...   %b = add i32 %t, %a
...   ret void
... }''').functions[0]
>>> nonuniform(fn, ["%a:32", "%b:32", "%n:32"], control_flow(fn))
['%b:32']
"""

from __future__ import annotations

from llverify.lowered.conditions import ControlFlow
from llverify.lowered.llir import LlirFunction

__all__ = ["nonuniform"]


def nonuniform(fn: LlirFunction, frees: list[str] | tuple[str, ...], cf: ControlFlow) -> list[str]:
    """The free variables among ``frees`` that may differ between threads, by ``cf = control_flow(fn)``'s
    divergence analysis (module docstring)."""
    out = []
    for f in frees:
        name = f.rsplit(":", 1)[0]
        choice = name.endswith(".choice")
        base = (name[: -len(".choice")] if choice else name).partition("#")[0]
        if cf.divergent is None or cf.divergent_phis is None:
            if base in fn.defs or choice:  # nothing is known uniform but a kernel argument
                out.append(f)
        elif base in (cf.divergent_phis if choice else cf.divergent):
            out.append(f)
    return out
