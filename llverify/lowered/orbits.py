"""Loop ``phi``s with a small orbit: the wrap-around counters of Triton's software pipeliner.

Triton's pipeliner keeps the index of the shared-memory buffer a loop iteration reads (and the one it writes)
in a loop-carried counter that wraps around the number of buffers, e.g. for two buffers::

    %i    = phi i32 [ -1, %entry ], [ %nxt, %loop ]
    %inc  = add i32 %i, 1
    %wrap = icmp sgt i32 %inc, 1
    %nxt  = select i1 %wrap, i32 0, i32 %inc

and addresses ``@global_smem + (%nxt << 11) + ...``.  :func:`llverify.lowered.loops.counted_phi` does not
recognise it (it is not a counted induction variable), so without this module ``%i`` is a free 32-bit
variable and every such access is ``unknown``.

**The rule.**  A ``phi`` with exactly two incoming values, one a constant ``c0`` and the other a value ``f(%i)``
computed from the ``phi`` itself and constants only (integer arithmetic, comparisons, ``select``, casts; no
thread id, no other ``phi``, no argument, load or call), holds on entry ``c0`` and after each back edge
``f`` of the value it held before.  So every value it ever holds lies in the *orbit*
``O = {c0, f(c0), f(f(c0)), ...}``, whatever the trip count (a loop that stops early holds a subset).  The
orbit is computed by evaluating ``f`` exactly (:class:`~llverify.lowered.concrete.Concrete`, LLVM's integer
semantics, poison included) from ``c0`` until no new value appears; it is accepted only when it closes
within :data:`MAX_ORBIT` values and no step is poison.  The ``phi``'s range is the smallest interval (signed or
unsigned) containing ``O``: a superset of the values it holds, which is sound for the "for every value of the
free variables" claims the validator makes (more values can only cost a false alarm, never a false proof).

Requires: ``phi`` is an instruction of ``fn``.
Postcondition: every value ``phi`` holds in any execution lies in ``[lo, hi)`` of the returned range.

In the example above ``f(-1) = 0``, ``f(0) = 1``, ``f(1) = 0``: the orbit is ``{-1, 0, 1}``, the range
``[-1, 2)`` signed, and ``%nxt`` is 0 or 1.

>>> from llverify.lowered.llir import parse_llir
>>> fn = parse_llir('''define void @k() {
... entry:
...   br label %loop
... loop:
...   %i = phi i32 [ -1, %entry ], [ %nxt, %loop ]
...   %inc = add i32 %i, 1
...   %wrap = icmp sgt i32 %inc, 1
...   %nxt = select i1 %wrap, i32 0, i32 %inc
...   br label %loop
... }''').functions[0]
>>> orbit_phi(fn, fn.defs["%i"])
CountedPhi(lo=-1, hi=2, signed=True, width=32)
"""

from __future__ import annotations

from llverify.lowered.llir import Instr, LlirFunction, as_signed
from llverify.lowered.loops import PHI2, CountedPhi, counted_phi
from llverify.lowered.concrete import Concrete
from llverify.lowered.decode import PURE_INTEGER, Unmodelled, const_value, decoded

__all__ = ["MAX_ORBIT", "orbit_phi", "lane_orbit", "phi_range", "key_range"]

#: The most distinct values an orbit may have before the ``phi`` is left free (pipelines have a handful).
MAX_ORBIT = 256



def _depends_only_on(fn: LlirFunction, root: str, phi_name: str) -> bool:
    """True when the value ``root`` is computed from ``phi_name`` and constants by pure integer operations."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen or name == phi_name:
            continue
        seen.add(name)
        if const_value(name, 64) is not None or name == "poison":
            continue
        base, _, lane = name.partition("#")
        instr = fn.defs.get(base)
        if instr is None:
            return False  # an argument or a global: not a function of the phi
        try:
            d = decoded(instr, lane)
        except Unmodelled:
            return False
        if d.op not in PURE_INTEGER:  # a step function computes integers from its operands alone
            return False
        todo.extend(d.args)
    return True


def orbit_phi(fn: LlirFunction, phi: Instr) -> CountedPhi | None:
    """The interval hull of ``phi``'s orbit (module docstring), or None when the rule does not apply."""
    m = PHI2.match(phi.body)
    if m is None or phi.result is None:
        return None
    return _orbit(fn, phi.result, int(m.group(1)), m.group(2), m.group(4))


def lane_orbit(fn: LlirFunction, phi: Instr, lane: int) -> CountedPhi | None:
    """The interval hull of the orbit of lane ``lane`` of a vector ``phi`` (named ``%v#lane``): LLVM's SLP
    vectoriser packs several pipeline counters into one ``<N x iW>`` phi, each lane stepped by lane-wise
    ``add``/``icmp``/``select``.  The rule is the scalar one on the lane: one incoming lane a constant, the other
    computed from this lane alone (a step reading another lane reads another phi: the rule does not apply).

    >>> from llverify.lowered.llir import parse_llir
    >>> fn = parse_llir('''define void @k() {
    ... entry:
    ...   br label %loop
    ... loop:
    ...   %v = phi <2 x i32> [ <i32 -1, i32 1>, %entry ], [ %nxt, %loop ]
    ...   %inc = add <2 x i32> %v, splat (i32 1)
    ...   %wrap = icmp sgt <2 x i32> %inc, <i32 1, i32 2>
    ...   %nxt = select <2 x i1> %wrap, <2 x i32> zeroinitializer, <2 x i32> %inc
    ...   br label %loop
    ... }''').functions[0]
    >>> lane_orbit(fn, fn.defs["%v"], 0), lane_orbit(fn, fn.defs["%v"], 1)
    (CountedPhi(lo=-1, hi=2, signed=True, width=32), CountedPhi(lo=0, hi=3, signed=False, width=32))
    """
    if phi.opcode != "phi" or phi.result is None:
        return None
    try:
        d = decoded(phi, str(lane))
    except Unmodelled:
        return None
    if d.op != "phi" or len(d.args) != 2:
        return None
    return _orbit(fn, f"{phi.result}#{lane}", d.width, d.args[0], d.args[1])


def _orbit(fn: LlirFunction, name: str, w: int, a: str, b: str) -> CountedPhi | None:
    """The orbit rule for the phi (or phi lane) ``name`` of ``w`` bits with incoming values ``a`` and ``b``."""
    c0, step = (const_value(a, w), b) if const_value(a, w) is not None else (const_value(b, w), a)
    if c0 is None or not step.startswith("%") or not _depends_only_on(fn, step, name):
        return None
    key = f"{name}:{w}"
    orbit, frontier = {c0}, [c0]
    while frontier:
        v = frontier.pop()
        nxt = Concrete(fn, 0, {key: v}).value(step, w)
        if nxt is None:
            return None  # a poison step: the phi's value is not a number we can bound
        if nxt not in orbit:
            if len(orbit) >= MAX_ORBIT:
                return None
            orbit.add(nxt)
            frontier.append(nxt)
    unsigned = (min(orbit), max(orbit) + 1)
    signed_vals = [as_signed(v, w) for v in orbit]
    signed = (min(signed_vals), max(signed_vals) + 1)
    if signed[1] - signed[0] < unsigned[1] - unsigned[0]:
        return CountedPhi(signed[0], signed[1], True, w)
    return CountedPhi(unsigned[0], unsigned[1], False, w)


def phi_range(fn: LlirFunction, phi: Instr) -> CountedPhi | None:
    """The range of a loop ``phi``: a counted loop's induction variable (:func:`counted_phi`) or a small
    orbit (:func:`orbit_phi`); None when neither rule applies (the ``phi`` stays free)."""
    return counted_phi(fn, phi) or orbit_phi(fn, phi)


def key_range(fn: LlirFunction, key: str) -> CountedPhi | None:
    """The range of the phi named ``key``: a scalar phi ``%p`` (:func:`phi_range`) or lane ``k`` of a vector
    phi, ``%v#k`` (:func:`lane_orbit`); None for anything else."""
    base, _, lane = key.partition("#")
    ins = fn.defs.get(base)
    if ins is None or ins.opcode != "phi":
        return None
    return lane_orbit(fn, ins, int(lane)) if lane else phi_range(fn, ins)
