"""What a kernel launch fixes: how many threads run, which of them execute a block, which free values a launch
may set (kernel arguments, block ids), and the lane ``elect.sync`` elects.

The obligations of :mod:`llverify.lowered.validate` quantify over the launch's threads; these are the premises
they rest on (the TTGIR's thread count as the exact executing set; a witness that names a free value only when
a launch can choose it).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from llverify.lowered.concrete import Concrete
from llverify.lowered.conditions import PathCondition
from llverify.lowered.divergence import UNIFORM_CALL
from llverify.lowered.llir import LlirFunction

__all__ = ["launch_threads", "runs_on_first", "launch_parameter", "elected", "whichever_lane"]


_REQNTID = re.compile(r'"nvvm\.reqntid"="(\d+)(?:,(\d+))?(?:,(\d+))?"')


def launch_threads(fn: LlirFunction, attributes: Mapping[str, str], default: int) -> int:
    """Threads per CTA the kernel is launched with: NVVM's ``"nvvm.reqntid"`` of the function's attribute
    group (Triton 3.9 sets it; a warp-specialized kernel's partitions add warps to the TTGIR's count), else
    ``default``; never less than ``default``."""
    want = default
    for ref in re.findall(r"#(\d+)", fn.header):
        m = _REQNTID.search(attributes.get(ref, ""))
        if m:
            want = max(want, int(m.group(1)) * int(m.group(2) or 1) * int(m.group(3) or 1))
    return want


def runs_on_first(pc: PathCondition, ev: Any, threads: int) -> bool:
    """Whether the threads that execute a block are exactly ``0 .. threads - 1`` (or, uniformly, all or none
    of them), where ``ev`` evaluates the launch's threads (:class:`~llverify.lowered.vector.Threads`): the
    premise of the obligations that quantify over the TTGIR's ``threads`` as the exact executing set.

    Requires: ``pc`` exact; its literals then decide the set at every thread without free variables."""
    if pc.uniform and ev.threads == threads:
        return True
    if not pc.exact:
        return False
    maybe, sure = pc.threads(ev)
    return bool((maybe == sure).all() and (maybe == (np.arange(ev.threads) < threads)).all())


def launch_parameter(fn: LlirFunction, free: str) -> bool:
    """Whether a free variable (``%3:32``) is a launch parameter, which a launch may set to any value: a
    kernel argument or a block id (a witness may name its value; a loaded or loop-carried one it may not)."""
    base = free.rsplit(":", 1)[0]
    if base.endswith(".choice"):
        return False
    ins = fn.defs.get(base)
    return ins is None or (ins.opcode == "call" and UNIFORM_CALL.search(ins.body) is not None)


def elected(fn: LlirFunction, free: str) -> bool:
    """Whether a free variable is the predicate of ``llvm.nvvm.elect.sync`` (``extractvalue {i32, i1} %e, 1``):
    true at exactly one lane of the warp, which one unknown."""
    ins = fn.defs.get(free.rsplit(":", 1)[0])
    if ins is None or ins.opcode != "extractvalue" or not re.search(r",\s*1$", ins.body):
        return False
    src = fn.defs.get(ins.body.split()[-2].rstrip(","))
    return src is not None and "@llvm.nvvm.elect.sync(" in src.body


def whichever_lane(fn: LlirFunction, pc: PathCondition, pointer: str, tid: int, values: Mapping[str, int],
                   warp: int) -> bool:
    """Whether a witness that needs ``elect.sync`` predicates (``values`` sets them to 1) is real whichever lane
    is elected: at every lane of ``tid``'s warp, with the same values, the path condition holds and the
    address is the same (the scalar interpreter, lane by lane).  Postcondition: True only if the elected lane,
    whichever it is, reaches the access at that address."""
    if not all(v == 1 for n, v in values.items() if elected(fn, n)):
        return False
    first = tid - tid % warp
    want = None
    for t in range(first, first + warp):
        replay = Concrete(fn, t, dict(values))
        if pc.holds(replay) is not True:
            return False
        got = replay.value(pointer, 32)
        if got is None or (want is not None and got != want):
            return False
        want = got
    return True
